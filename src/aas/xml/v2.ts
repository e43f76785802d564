import { verification } from '@aas-core-works/aas-core3.0-typescript';
import type { JsonObject } from '../model/parse';
import { V2_DATA_TYPES_IEC61360, V3_IEC61360_TEMPLATE, valueTypeOf } from './v2-types';
import { DEFAULT_XML_LIMITS, V2XmlError, decodeXml, pathOf, readXmlTree, type XmlLimits, type XmlNode } from './v2-tree';

export { V2XmlError } from './v2-tree';

/**
 * Converts an AAS V2.0 / V2.0.1 XML environment (`aas:aasenv`, still what most packages in the wild hold) into
 * the V3.0 JSON environment, in the form the official JSON serialization has it (what `jsonization.toJsonable`
 * of aas-core3.0 writes). What V3.0 has no place for is left out with a warning naming its XML path; values
 * V3.0 constrains differently (an idShort with a blank, a version "0.9") are kept as they are, for the
 * importer's verification to report. Only what cannot be converted at all (not XML, a DTD, not a V2
 * environment, a limit exceeded) throws V2XmlError.
 *
 * The converter is the base of those of the V1.0 (`v1.ts`) and V3.0 release candidate (`v3rc.ts`) namespaces,
 * which differ from V2.0 in a few parts each.
 */

export const AAS_V2_NAMESPACE = 'http://www.admin-shell.io/aas/2/0';
export const IEC61360_V2_NAMESPACE = 'http://www.admin-shell.io/IEC61360/2/0';
/** V2.0 documents are read with elements of the V1.0 namespaces in them too, as V2.0. */
const V2_NAMESPACES: ReadonlySet<string> = new Set([
  AAS_V2_NAMESPACE, IEC61360_V2_NAMESPACE, 'http://www.admin-shell.io/aas/1/0', 'http://www.admin-shell.io/IEC61360/1/0',
]);

export interface V2Conversion {
  environment: JsonObject;
  warnings: string[];
}

export function convertV2Xml(xml: string | Buffer, limits: XmlLimits = DEFAULT_XML_LIMITS): V2Conversion {
  const text = typeof xml === 'string' ? xml : decodeXml(xml);
  const root = readXmlTree(text, limits);
  if (root.local !== 'aasenv' || root.uri !== AAS_V2_NAMESPACE) {
    const found = root.uri ? `{${root.uri}}${root.local}` : root.local;
    throw new V2XmlError(`The document is not an AAS V2.0 environment: its root element is ${found}, not {${AAS_V2_NAMESPACE}}aasenv`);
  }
  const converter = new Converter(V2_NAMESPACES);
  const environment = converter.environment(root);
  return { environment, warnings: converter.report() };
}

export type Json = JsonObject;

const REFERABLE = ['idShort', 'category', 'description', 'parent'];

/** Key types of V2.0 (and of V1.0 and the V3.0 release candidate) that V3.0 spells differently. */
const RENAMED_KEY_TYPES: Record<string, string> = {
  BasicEvent: 'BasicEventElement',
  Event: 'EventElement',
  RelationShipElement: 'RelationshipElement',
  ISubmodelElement: 'SubmodelElement',
  SubmodelElementStruct: 'SubmodelElementCollection',
  GlobalReferenceElement: 'ReferenceElement',
  ModelReferenceElement: 'ReferenceElement',
};
const V3_KEY_TYPES = new Set([
  'AnnotatedRelationshipElement', 'AssetAdministrationShell', 'BasicEventElement', 'Blob', 'Capability',
  'ConceptDescription', 'DataElement', 'Entity', 'EventElement', 'File', 'FragmentReference', 'GlobalReference',
  'Identifiable', 'MultiLanguageProperty', 'Operation', 'Property', 'Range', 'Referable', 'ReferenceElement',
  'RelationshipElement', 'Submodel', 'SubmodelElement', 'SubmodelElementCollection', 'SubmodelElementList',
]);
/** V2 key types of things V3.0 no longer has. */
const GONE_KEY_TYPES = new Set(['View', 'ConceptDictionary', 'AccessPermissionRule']);

const DATA_ELEMENTS = new Set(['property', 'multiLanguageProperty', 'range', 'blob', 'file', 'referenceElement']);
const MAX_WARNINGS = 1000;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

export function present<T>(value: T | undefined): value is T {
  return value !== undefined;
}

/** The V2.0 converter; its parts are protected for the converters of the other namespaces to change. */
export class Converter {
  private readonly warnings: string[] = [];
  /** Collections whose V2 `ordered` or `allowDuplicates` was true (V3.0 has neither); one warning for all. */
  protected orderedCollections = 0;

  /** `namespaces`: those of the AAS and IEC 61360 elements; elements in others are reported and left out. */
  constructor(private readonly namespaces: ReadonlySet<string>) {}

  /** The parts of a referable, an identifiable and a submodel element, by their element names. */
  protected get referableParts(): string[] {
    return REFERABLE;
  }
  protected get identifiableParts(): string[] {
    return [...this.referableParts, this.idElement, 'administration'];
  }
  /** The element of an identifiable's id. */
  protected get idElement(): string {
    return 'identification';
  }
  protected get elementParts(): string[] {
    return [...this.referableParts, 'kind', 'semanticId', 'qualifier', 'embeddedDataSpecification'];
  }

  /** Warnings beyond MAX_WARNINGS are only counted: a document of a million unknown elements stays cheap. */
  private unreported = 0;

  warn(node: XmlNode, message: string): void {
    if (this.warnings.length < MAX_WARNINGS) this.warnings.push(`${pathOf(node)}: ${message}`);
    else this.unreported++;
  }

  /** The warnings, the count of those not reported last. */
  report(): string[] {
    return this.unreported ? [...this.warnings, `... and ${this.unreported} more warnings`] : this.warnings;
  }

  // ---- tree access ------------------------------------------------------------------------------------------

  /** Children in the AAS or IEC 61360 namespaces; those in other namespaces are reported and skipped. */
  protected kids(node: XmlNode): XmlNode[] {
    return node.children.filter((c) => this.namespaces.has(c.uri));
  }

  protected child(node: XmlNode | undefined, local: string): XmlNode | undefined {
    return node?.children.find((c) => c.local === local && this.namespaces.has(c.uri));
  }

  protected all(node: XmlNode | undefined, local: string): XmlNode[] {
    return node ? node.children.filter((c) => c.local === local && this.namespaces.has(c.uri)) : [];
  }

  /** Trimmed text of a child; undefined when absent or empty. */
  protected str(node: XmlNode, local: string): string | undefined {
    const text = this.child(node, local)?.text.trim();
    return text ? text : undefined;
  }

  /** Reports every child not named in `known` (and not seen twice where once is allowed): left out. */
  protected expect(node: XmlNode, known: readonly string[]): void {
    const names = new Set(known);
    for (const c of node.children) {
      if (!this.namespaces.has(c.uri)) this.warn(c, `element in the foreign namespace '${c.uri}' (left out)`);
      else if (!names.has(c.local)) this.warn(c, 'unknown element (left out)');
    }
  }

  // ---- environment ------------------------------------------------------------------------------------------

  environment(root: XmlNode): Json {
    this.expect(root, ['assetAdministrationShells', 'assets', 'submodels', 'conceptDescriptions']);
    const assets = new Map<string, XmlNode>();
    const assetsNode = this.child(root, 'assets');
    if (assetsNode) {
      this.expect(assetsNode, ['asset']);
      for (const asset of this.all(assetsNode, 'asset')) {
        const id = this.str(asset, 'identification');
        if (id === undefined) this.warn(asset, 'asset without identification (left out)');
        else assets.set(id, asset);
      }
    }
    const used = new Set<string>();
    const env: Json = {};
    const shells = this.list(root, 'assetAdministrationShells', 'assetAdministrationShell', (n) => this.shell(n, assets, used));
    const submodels = this.list(root, 'submodels', 'submodel', (n) => this.submodel(n));
    const cds = this.list(root, 'conceptDescriptions', 'conceptDescription', (n) => this.conceptDescription(n));
    if (shells.length) env.assetAdministrationShells = shells;
    if (submodels.length) env.submodels = submodels;
    if (cds.length) env.conceptDescriptions = cds;
    for (const [id, asset] of assets) {
      if (!used.has(id)) this.warn(asset, `asset '${id}' is the asset of no shell (left out: V3.0 has assets only as a shell's asset information)`);
    }
    if (this.orderedCollections) {
      this.warn(root, `'ordered' or 'allowDuplicates' of ${this.orderedCollections} submodel element collection(s) dropped (V3.0 collections have neither)`);
    }
    return env;
  }

  protected list(root: XmlNode, outer: string, inner: string, convert: (node: XmlNode) => Json | undefined): Json[] {
    const out: Json[] = [];
    const seen = new Map<unknown, { node: XmlNode; json: string }>();
    for (const container of this.all(root, outer)) {
      this.expect(container, [inner]);
      for (const node of this.all(container, inner)) {
        const converted = convert(node);
        if (!converted) continue;
        const json = JSON.stringify(converted);
        const first = seen.get(converted.id);
        if (first?.json === json) {
          this.warn(node, `a copy of ${pathOf(first.node)}, the same id and content (left out)`);
          continue;
        }
        if (!first) seen.set(converted.id, { node, json });
        out.push(converted);
      }
    }
    return out;
  }

  // ---- identifiables ----------------------------------------------------------------------------------------

  protected shell(node: XmlNode, assets: Map<string, XmlNode>, used: Set<string>): Json | undefined {
    this.expect(node, [...this.identifiableParts, 'embeddedDataSpecification', 'derivedFrom', 'assetRef', 'submodelRefs', 'views', 'conceptDictionaries', 'security']);
    const out = this.identifiable(node, 'AssetAdministrationShell');
    if (!out) return undefined;
    this.dataSpecifications(node, out);
    const derivedFrom = this.optionalReference(node, 'derivedFrom');
    if (derivedFrom) out.derivedFrom = derivedFrom;
    out.assetInformation = this.assetInformation(node, assets, used);
    const refs = this.child(node, 'submodelRefs');
    if (refs) {
      this.expect(refs, ['submodelRef']);
      const submodels: Json[] = [];
      for (const submodelRef of this.all(refs, 'submodelRef')) {
        const reference = this.reference(submodelRef);
        if (reference) submodels.push(reference);
        else if (!this.keysOf(submodelRef).length) this.warn(submodelRef, 'submodel reference without keys (left out)');
      }
      if (submodels.length) out.submodels = submodels;
    }
    for (const dropped of ['views', 'conceptDictionaries', 'security']) {
      const at = this.child(node, dropped);
      if (at) this.warn(at, `${dropped} dropped (V3.0 shells have no ${dropped})`);
    }
    return out;
  }

  protected assetInformation(shell: XmlNode, assets: Map<string, XmlNode>, used: Set<string>): Json {
    const ref = this.child(shell, 'assetRef');
    const keys = ref ? this.keysOf(ref) : [];
    const id = (keys.find((k) => k.attributes.type === 'Asset') ?? keys[keys.length - 1])?.text.trim();
    if (!ref || !id) {
      this.warn(ref ?? shell, 'no asset reference: asset kind Instance, no global asset id');
      return { assetKind: 'Instance' };
    }
    const asset = assets.get(id);
    if (!asset) {
      this.warn(ref, `the asset '${id}' is not in the environment: asset kind Instance, global asset id from the reference`);
      return { assetKind: 'Instance', globalAssetId: id };
    }
    used.add(id);
    this.expect(asset, [...this.identifiableParts, 'embeddedDataSpecification', 'assetIdentificationModelRef', 'billOfMaterialRef', 'kind']);
    const kind = this.str(asset, 'kind');
    let assetKind = 'Instance';
    if (kind === 'Type' || kind === 'Template') assetKind = 'Type';
    else if (kind !== 'Instance') this.warn(asset, kind === undefined ? 'asset without kind: Instance' : `asset kind '${kind}' unknown: Instance`);
    const dropped = ['description', 'category', 'administration', 'embeddedDataSpecification', 'hasDataSpecification', 'assetIdentificationModelRef', 'billOfMaterialRef']
      .filter((name) => this.child(asset, name));
    if (dropped.length) this.warn(asset, `${dropped.join(', ')} of the asset dropped (V3.0 has no asset element)`);
    return { assetKind, globalAssetId: id };
  }

  protected submodel(node: XmlNode): Json | undefined {
    this.expect(node, [...this.identifiableParts, 'kind', 'semanticId', 'qualifier', 'embeddedDataSpecification', 'submodelElements']);
    const out = this.identifiable(node, 'Submodel');
    if (!out) return undefined;
    const kind = this.str(node, 'kind');
    if (kind === 'Template' || kind === 'Type') out.kind = 'Template';
    else if (kind === 'Instance') out.kind = 'Instance';
    else if (kind !== undefined) this.warn(this.child(node, 'kind')!, `kind '${kind}' unknown (left out)`);
    this.semantics(node, out);
    this.dataSpecifications(node, out);
    const elements = this.elements(this.child(node, 'submodelElements'));
    if (elements.length) out.submodelElements = elements;
    return out;
  }

  protected conceptDescription(node: XmlNode): Json | undefined {
    this.expect(node, [...this.identifiableParts, 'embeddedDataSpecification', 'isCaseOf']);
    const out = this.identifiable(node, 'ConceptDescription');
    if (!out) return undefined;
    this.dataSpecifications(node, out);
    const cases = this.all(node, 'isCaseOf').map((r) => this.reference(r)).filter(present);
    if (cases.length) out.isCaseOf = cases;
    return out;
  }

  protected identifiable(node: XmlNode, modelType: string): Json | undefined {
    const id = this.str(node, this.idElement);
    if (id === undefined) {
      this.warn(node, `${modelType} without ${this.idElement} (left out)`);
      return undefined;
    }
    const out: Json = { modelType, id };
    this.referable(node, out, false);
    const admin = this.child(node, 'administration');
    if (admin) {
      this.expect(admin, ['version', 'revision']);
      const administration: Json = {};
      const version = this.str(admin, 'version');
      const revision = this.str(admin, 'revision');
      if (version !== undefined) administration.version = version;
      if (revision !== undefined) administration.revision = revision;
      if (version !== undefined || revision !== undefined) out.administration = administration;
    }
    return out;
  }

  protected referable(node: XmlNode, out: Json, idShortRequired: boolean): void {
    const idShort = this.str(node, 'idShort');
    if (idShort !== undefined) {
      out.idShort = idShort;
      if (!verification.matchesIdShort(idShort)) this.warn(this.child(node, 'idShort')!, `idShort '${idShort}' is not a valid V3.0 idShort (kept)`);
    } else if (idShortRequired) {
      this.warn(node, 'no idShort (V3.0 requires one here)');
    }
    const category = this.str(node, 'category');
    if (category !== undefined) out.category = category;
    const description = this.langStrings(this.child(node, 'description'));
    if (description) out.description = description;
    const parent = this.child(node, 'parent');
    if (parent) this.warn(parent, 'parent dropped (V3.0 has none)');
  }

  // ---- shared parts -----------------------------------------------------------------------------------------

  protected langStrings(node: XmlNode | undefined): Json[] | undefined {
    if (!node) return undefined;
    this.expect(node, ['langString']);
    const out: Json[] = [];
    for (const s of this.all(node, 'langString')) {
      const language = (s.attributes.lang ?? '').trim();
      const text = s.text.trim();
      if (!text) continue; // an empty text is what tools write for "none"; V3.0 forbids it
      if (!language) this.warn(s, 'langString without lang (kept; V3.0 requires a language)');
      out.push({ language, text });
    }
    return out.length ? out : undefined;
  }

  protected keysOf(reference: XmlNode): XmlNode[] {
    const keys = this.child(reference, 'keys');
    return keys ? this.all(keys, 'key') : [];
  }

  /**
   * A V2 reference (keys of type, local, idType, value) as a V3.0 Reference; undefined when it cannot be, and,
   * without a warning, when it has no keys: that is how V2 tools write "none" (`<aas:semanticId><aas:keys/>`).
   */
  reference(node: XmlNode): Json | undefined {
    this.expect(node, ['keys']);
    const keysNode = this.child(node, 'keys');
    if (keysNode) this.expect(keysNode, ['key']);
    const keys: Json[] = [];
    for (const key of this.keysOf(node)) {
      const v2type = (key.attributes.type ?? '').trim();
      const value = key.text.trim();
      let type = RENAMED_KEY_TYPES[v2type] ?? v2type;
      if (GONE_KEY_TYPES.has(v2type)) {
        this.warn(key, `a reference to a ${v2type}, which V3.0 does not have (reference left out)`);
        return undefined;
      }
      if (v2type === 'Asset') {
        type = 'GlobalReference';
        this.warn(key, 'key type Asset: GlobalReference (V3.0 names assets by their global asset id)');
      } else if (!V3_KEY_TYPES.has(type)) {
        this.warn(key, `key type '${v2type}' unknown: GlobalReference`);
        type = 'GlobalReference';
      }
      keys.push({ type, value });
    }
    if (!keys.length) return undefined;
    const first = keys[0].type;
    const type = first === 'GlobalReference' || first === 'FragmentReference' ? 'ExternalReference' : 'ModelReference';
    return { type, keys };
  }

  protected optionalReference(node: XmlNode, local: string): Json | undefined {
    const at = this.child(node, local);
    return at ? this.reference(at) : undefined;
  }

  protected semantics(node: XmlNode, out: Json): void {
    const semanticId = this.optionalReference(node, 'semanticId');
    if (semanticId) out.semanticId = semanticId;
    const qualifiers = this.all(node, 'qualifier').map((q) => this.qualifier(q)).filter(present);
    if (qualifiers.length) out.qualifiers = qualifiers;
  }

  /** The element that tells a bare qualifier from the constraint wrapper around one (`qualifierType` in V1.0). */
  protected get qualifierMarker(): string {
    return 'type';
  }

  /** A constraint: a qualifier (wrapped, or bare as some V2.0 writers have it) or a formula (dropped). */
  protected qualifier(node: XmlNode): Json | undefined {
    if (this.child(node, this.qualifierMarker)) return this.bareQualifier(node);
    this.expect(node, ['qualifier', 'formula']);
    const formula = this.child(node, 'formula');
    if (formula) {
      this.warn(formula, 'formula dropped (V3.0 has no formulas)');
      return undefined;
    }
    const inner = this.child(node, 'qualifier');
    return inner ? this.bareQualifier(inner) : undefined;
  }

  /** A V2 qualifier itself. */
  protected bareQualifier(q: XmlNode): Json | undefined {
    this.expect(q, ['type', 'valueType', 'valueId', 'value', 'semanticId']);
    const type = this.str(q, 'type');
    if (type === undefined) {
      this.warn(q, 'qualifier without type (left out)');
      return undefined;
    }
    const out: Json = { type, valueType: this.valueType(q) };
    const semanticId = this.optionalReference(q, 'semanticId');
    if (semanticId) out.semanticId = semanticId;
    this.value(q, out, out.valueType as string);
    const valueId = this.optionalReference(q, 'valueId');
    if (valueId) out.valueId = valueId;
    return out;
  }

  protected valueType(node: XmlNode): string {
    const at = this.child(node, 'valueType');
    const v2 = at?.text.trim() ?? '';
    const { valueType, note } = valueTypeOf(v2);
    if (note) this.warn(at ?? node, note);
    return valueType;
  }

  /** A V2 value (its text as written; empty means none) into `out[name]`, booleans in V3.0's spelling. */
  protected value(node: XmlNode, out: Json, valueType: string, name = 'value'): void {
    const at = this.child(node, name);
    if (!at || at.children.length) {
      if (at) this.expect(at, []);
      return;
    }
    let text = at.text;
    if (text.trim() === '') return;
    if (valueType !== 'xs:string') text = text.trim();
    if (valueType === 'xs:boolean' && /^(true|false)$/i.test(text)) text = text.toLowerCase();
    out[name] = text;
  }

  /** The embedded data specifications of `node`, each an element named `name`. */
  protected dataSpecifications(node: XmlNode, out: Json, name = 'embeddedDataSpecification'): void {
    const specs: Json[] = [];
    for (const eds of this.all(node, name)) {
      // The reference to the template is not read: V3.0 names its own IEC 61360 template (V1.0 calls it hasDataSpecification).
      this.expect(eds, ['dataSpecificationContent', 'dataSpecification', 'hasDataSpecification']);
      const content = this.child(eds, 'dataSpecificationContent');
      const iec = this.child(content, 'dataSpecificationIEC61360');
      if (content) this.expect(content, ['dataSpecificationIEC61360']);
      if (!iec) {
        this.warn(eds, 'embedded data specification without IEC 61360 content dropped (V3.0 requires a content)');
        continue;
      }
      const converted = this.iec61360(iec);
      if (!converted) continue;
      specs.push({
        dataSpecification: { type: 'ExternalReference', keys: [{ type: 'GlobalReference', value: V3_IEC61360_TEMPLATE }] },
        dataSpecificationContent: converted,
      });
    }
    if (specs.length) out.embeddedDataSpecifications = specs;
  }

  protected iec61360(node: XmlNode): Json | undefined {
    this.expect(node, ['preferredName', 'shortName', 'unit', 'unitId', 'sourceOfDefinition', 'symbol', 'dataType', 'definition', 'valueFormat', 'valueList', 'value', 'valueId', 'levelType']);
    const preferredName = this.langStrings(this.child(node, 'preferredName'));
    if (!preferredName) {
      this.warn(node, 'IEC 61360 content without preferredName dropped (V3.0 requires one)');
      return undefined;
    }
    const out: Json = { modelType: 'DataSpecificationIec61360', preferredName };
    const shortName = this.langStrings(this.child(node, 'shortName'));
    if (shortName) out.shortName = shortName;
    for (const name of ['unit', 'sourceOfDefinition', 'symbol'] as const) {
      const text = this.str(node, name);
      if (text !== undefined) out[name] = text;
    }
    const unitId = this.optionalReference(node, 'unitId');
    if (unitId) out.unitId = unitId;
    const dataType = this.str(node, 'dataType');
    if (dataType !== undefined) {
      const mapped = V2_DATA_TYPES_IEC61360[dataType];
      if (mapped === undefined) this.warn(this.child(node, 'dataType')!, `IEC 61360 data type '${dataType}' unknown (left out)`);
      else {
        if (mapped !== dataType) this.warn(this.child(node, 'dataType')!, `IEC 61360 data type ${dataType}: ${mapped}`);
        out.dataType = mapped;
      }
    }
    const definition = this.langStrings(this.child(node, 'definition'));
    if (definition) out.definition = definition;
    const valueFormat = this.str(node, 'valueFormat');
    if (valueFormat !== undefined) out.valueFormat = valueFormat;
    const list = this.child(node, 'valueList');
    if (list) {
      this.expect(list, ['valueReferencePair']);
      const pairs: Json[] = [];
      for (const pair of this.all(list, 'valueReferencePair')) {
        this.expect(pair, ['value', 'valueId']);
        const value = this.child(pair, 'value')?.text.trim();
        const valueId = this.optionalReference(pair, 'valueId');
        if (value === undefined || !valueId) this.warn(pair, 'value reference pair without value or valueId (left out; V3.0 requires both)');
        else pairs.push({ value, valueId });
      }
      if (pairs.length) out.valueList = { valueReferencePairs: pairs };
    }
    const value = this.str(node, 'value');
    if (value !== undefined) out.value = value;
    const valueId = this.child(node, 'valueId');
    if (valueId) this.warn(valueId, 'IEC 61360 valueId dropped (V3.0 has none)');
    const levels = this.all(node, 'levelType').map((l) => l.text.trim().toLowerCase()).filter(Boolean);
    if (levels.length) {
      const levelType: Json = {};
      for (const level of ['min', 'nom', 'typ', 'max']) levelType[level] = levels.includes(level);
      for (const level of levels) {
        if (!(level in levelType)) this.warn(node, `IEC 61360 level type '${level}' unknown (left out)`);
      }
      out.levelType = levelType;
    }
    return out;
  }

  // ---- submodel elements ------------------------------------------------------------------------------------

  /** The elements of a `submodelElements`, `value`, `statements` container (each wrapped in submodelElement). */
  protected elements(container: XmlNode | undefined): Json[] {
    if (!container) return [];
    this.expect(container, ['submodelElement']);
    return this.all(container, 'submodelElement').map((wrapper) => this.wrapped(wrapper)).filter(present);
  }

  /** The one element inside a `submodelElement` (or `dataElement`, or operation variable `value`) wrapper. */
  protected wrapped(wrapper: XmlNode): Json | undefined {
    const inner = this.kids(wrapper);
    this.expect(wrapper, inner.map((c) => c.local));
    if (inner.length !== 1) {
      this.warn(wrapper, inner.length ? `${inner.length} elements in one wrapper (left out)` : 'empty (left out)');
      return undefined;
    }
    return this.element(inner[0]);
  }

  protected element(node: XmlNode): Json | undefined {
    switch (node.local) {
      case 'property':
        return this.property(node);
      case 'multiLanguageProperty':
        return this.common(node, 'MultiLanguageProperty', ['value', 'valueId'], (out) => {
          const value = this.langStrings(this.child(node, 'value'));
          if (value) out.value = value;
          const valueId = this.optionalReference(node, 'valueId');
          if (valueId) out.valueId = valueId;
        });
      case 'range':
        return this.common(node, 'Range', ['valueType', 'min', 'max'], (out) => {
          out.valueType = this.valueType(node);
          this.value(node, out, out.valueType as string, 'min');
          this.value(node, out, out.valueType as string, 'max');
        });
      case 'blob':
        return this.common(node, 'Blob', ['value', 'mimeType'], (out) => {
          out.contentType = this.contentType(node);
          const value = this.child(node, 'value')?.text.replace(/\s+/g, '');
          if (value && BASE64.test(value)) out.value = value;
          else if (value) this.warn(this.child(node, 'value')!, 'blob value is not base64 (left out)');
        });
      case 'file':
        return this.common(node, 'File', ['value', 'mimeType'], (out) => {
          out.contentType = this.contentType(node);
          const value = this.str(node, 'value');
          if (value !== undefined) out.value = value;
        });
      case 'referenceElement':
        return this.referenceElement(node);
      case 'relationshipElement':
      case 'annotatedRelationshipElement':
        return this.relationship(node);
      case 'submodelElementCollection':
        return this.collection(node);
      case 'entity':
        return this.entity(node);
      case 'operation':
        return this.operation(node);
      case 'capability':
        return this.common(node, 'Capability', [], () => {});
      case 'basicEvent':
        return this.basicEvent(node);
      default:
        this.warn(node, `unknown submodel element kind '${node.local}' (left out)`);
        return undefined;
    }
  }

  protected referenceElement(node: XmlNode): Json | undefined {
    return this.common(node, 'ReferenceElement', ['value'], (out) => {
      const value = this.optionalReference(node, 'value');
      if (value) out.value = value;
    });
  }

  protected collection(node: XmlNode): Json | undefined {
    return this.common(node, 'SubmodelElementCollection', ['value', 'ordered', 'allowDuplicates'], (out) => {
      if (this.str(node, 'ordered') === 'true' || this.str(node, 'allowDuplicates') === 'true') this.orderedCollections++;
      const value = this.elements(this.child(node, 'value'));
      if (value.length) out.value = value;
    });
  }

  /**
   * The parts every submodel element has (referable, semantics, qualifiers, data specifications; V2's `kind`
   * is dropped, V3.0 elements have none), then the kind's own parts; `own` returns false to drop the element.
   */
  protected common(node: XmlNode, modelType: string, known: string[], own: (out: Json) => boolean | void): Json | undefined {
    this.expect(node, [...this.elementParts, ...known]);
    const out: Json = { modelType };
    this.referable(node, out, true);
    this.semantics(node, out);
    this.dataSpecifications(node, out);
    return own(out) === false ? undefined : out;
  }

  protected property(node: XmlNode): Json | undefined {
    return this.common(node, 'Property', ['valueType', 'value', 'valueId'], (out) => {
      out.valueType = this.valueType(node);
      this.value(node, out, out.valueType as string);
      const valueId = this.optionalReference(node, 'valueId');
      if (valueId) out.valueId = valueId;
    });
  }

  protected contentType(node: XmlNode): string {
    const mimeType = this.str(node, 'mimeType');
    if (mimeType !== undefined) return mimeType;
    this.warn(node, 'no mimeType: content type application/octet-stream');
    return 'application/octet-stream';
  }

  protected relationship(node: XmlNode): Json | undefined {
    const annotated = node.local === 'annotatedRelationshipElement';
    const modelType = annotated ? 'AnnotatedRelationshipElement' : 'RelationshipElement';
    return this.common(node, modelType, ['first', 'second', ...(annotated ? ['annotations'] : [])], (out) => {
      const first = this.optionalReference(node, 'first');
      const second = this.optionalReference(node, 'second');
      if (!first || !second) {
        this.warn(node, `${modelType} without ${first ? 'second' : 'first'} (left out; V3.0 requires both)`);
        return false;
      }
      out.first = first;
      out.second = second;
      const annotations = this.child(node, 'annotations');
      if (annotations) {
        this.expect(annotations, ['dataElement', 'submodelElement']);
        const converted: Json[] = [];
        for (const wrapper of this.kids(annotations).filter((c) => c.local === 'dataElement' || c.local === 'submodelElement')) {
          const inner = this.kids(wrapper)[0];
          if (inner && !DATA_ELEMENTS.has(inner.local)) {
            this.warn(inner, 'an annotation that is no data element (left out)');
            continue;
          }
          const element = this.wrapped(wrapper);
          if (element) converted.push(element);
        }
        if (converted.length) out.annotations = converted;
      }
    });
  }

  protected entity(node: XmlNode): Json | undefined {
    return this.common(node, 'Entity', ['statements', 'entityType', 'assetRef'], (out) => {
      const statements = this.elements(this.child(node, 'statements'));
      if (statements.length) out.statements = statements;
      let entityType = this.str(node, 'entityType');
      const assetRef = this.child(node, 'assetRef');
      if (entityType !== 'CoManagedEntity' && entityType !== 'SelfManagedEntity') {
        const chosen = assetRef ? 'SelfManagedEntity' : 'CoManagedEntity';
        this.warn(node, `${entityType === undefined ? 'no entityType' : `entityType '${entityType}' unknown`}: ${chosen}`);
        entityType = chosen;
      }
      out.entityType = entityType;
      if (assetRef) {
        const keys = this.keysOf(assetRef);
        const id = (keys.find((k) => k.attributes.type === 'Asset') ?? keys[keys.length - 1])?.text.trim();
        if (!id) this.warn(assetRef, 'asset reference without keys (left out)');
        else if (entityType === 'CoManagedEntity') this.warn(assetRef, 'asset reference of a co-managed entity dropped (V3.0 allows a global asset id only for self-managed entities)');
        else out.globalAssetId = id;
      }
    });
  }

  protected operation(node: XmlNode): Json | undefined {
    const kinds = [['inputVariable', 'inputVariables'], ['outputVariable', 'outputVariables'], ['inoutputVariable', 'inoutputVariables']];
    return this.common(node, 'Operation', kinds.map(([v2]) => v2), (out) => {
      for (const [v2, v3] of kinds) {
        const variables: Json[] = [];
        for (const variable of this.all(node, v2)) {
          this.expect(variable, ['value']);
          const value = this.child(variable, 'value');
          if (!value) {
            this.warn(variable, 'operation variable without value (left out)');
            continue;
          }
          // The value is the element choice itself; some writers wrap it once more in submodelElement.
          const inner = this.kids(value);
          const element = inner.length === 1 && inner[0].local === 'submodelElement' ? this.wrapped(inner[0]) : this.wrapped(value);
          if (element) variables.push({ value: element });
        }
        if (variables.length) out[v3] = variables;
      }
    });
  }

  protected basicEvent(node: XmlNode): Json | undefined {
    return this.common(node, 'BasicEventElement', ['observed'], (out) => {
      const observed = this.optionalReference(node, 'observed');
      if (!observed) {
        this.warn(node, 'basic event without observed (left out; V3.0 requires it)');
        return false;
      }
      out.observed = observed;
      out.direction = 'output';
      out.state = 'off';
      this.warn(node, 'basic event: direction output and state off (V3.0 requires both; V2 has neither)');
    });
  }
}
