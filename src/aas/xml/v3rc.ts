import { Converter, present, type Json, type V2Conversion } from './v2';
import { valueTypeOf } from './v2-types';
import { DEFAULT_XML_LIMITS, V2XmlError, decodeXml, pathOf, readXmlTree, type XmlLimits, type XmlNode } from './v2-tree';

/**
 * Converts an environment in the namespace of the AAS V3.0 release candidate (`http://www.admin-shell.io/aas/3/0`,
 * root `aasenv`), which the AASX Package Explorer and AASX Server wrote in 2021 and 2022, into the V3.0 JSON
 * environment. Its XML is V2.0's (`v2.ts`: submodelElement wrappers, keys with a type attribute) with the ideas of
 * V3.0, mapped as follows:
 * - `id` is the identifiable's id; `displayName` and `extension` (name, valueType, value, refersTo, semanticId)
 *   are V3.0's; `checksum` has no place in V3.0 (dropped with a warning when not empty);
 * - a reference with `values` (a global reference) is an external reference with one GlobalReference key per
 *   value; one with `keys` is read as in V2.0;
 * - `assetInformation` (assetKind, globalAssetId, specificAssetId, defaultThumbnail) is V3.0's; a global asset id
 *   of several values has no V3.0 form and is refused (400);
 * - `submodelElementStruct` and `submodelElementCollection` are collections; `submodelElementList` is a list (its
 *   type and value type of the items taken from the items where the list does not say; the items' idShorts,
 *   which V3.0 list items may not have, dropped with a warning); `globalReferenceElement` and
 *   `modelReferenceElement` are reference elements;
 * - a shell's `hasDataSpecification` is its embedded data specifications;
 * - identifiables of one id: a copy of the same content is left out with a warning (as in every version); of
 *   copies with other content the import keeps the first.
 * Everything else is read as in V2.0, with the same warnings for what did not map.
 */

export const AAS_V3RC_NAMESPACE = 'http://www.admin-shell.io/aas/3/0';
const IEC61360_V3RC_NAMESPACE = 'http://www.admin-shell.io/IEC61360/3/0';
const V3RC_NAMESPACES: ReadonlySet<string> = new Set([AAS_V3RC_NAMESPACE, IEC61360_V3RC_NAMESPACE]);

/** What a user can do with a document this converter refuses. */
const CONVERT_ADVICE =
  'Open the package in the AASX Package Explorer (2022 or later), which reads it, and save it as AAS V3.0 ' +
  '(namespace https://admin-shell.io/aas/3/0); then import that package.';

export function convertV3RcXml(xml: string | Buffer, limits: XmlLimits = DEFAULT_XML_LIMITS): V2Conversion {
  const text = typeof xml === 'string' ? xml : decodeXml(xml);
  const root = readXmlTree(text, limits);
  if (root.local !== 'aasenv' || root.uri !== AAS_V3RC_NAMESPACE) {
    const found = root.uri ? `{${root.uri}}${root.local}` : root.local;
    throw refusal(`its root element is ${found}, not {${AAS_V3RC_NAMESPACE}}aasenv, which is the only form of this namespace this server converts`);
  }
  const converter = new V3RcConverter(V3RC_NAMESPACES);
  const environment = converter.environment(root);
  return { environment, warnings: converter.report() };
}

function refusal(what: string): V2XmlError {
  return new V2XmlError(`The document is in the namespace of the AAS V3.0 release candidate (${AAS_V3RC_NAMESPACE}), but ${what}. ${CONVERT_ADVICE}`);
}

/** The submodel element kinds of V3.0 (AasSubmodelElements), for a list's typeValueListElement. */
const V3_ELEMENT_TYPES = new Set([
  'AnnotatedRelationshipElement', 'BasicEventElement', 'Blob', 'Capability', 'DataElement', 'Entity', 'EventElement',
  'File', 'MultiLanguageProperty', 'Operation', 'Property', 'Range', 'ReferenceElement', 'RelationshipElement',
  'SubmodelElement', 'SubmodelElementCollection', 'SubmodelElementList',
]);
/** The release candidate's element kind names that V3.0 spells differently. */
const RENAMED_ELEMENT_TYPES: Record<string, string> = {
  SubmodelElementStruct: 'SubmodelElementCollection',
  GlobalReferenceElement: 'ReferenceElement',
  ModelReferenceElement: 'ReferenceElement',
  BasicEvent: 'BasicEventElement',
};
const LIST_PARTS = ['value', 'ordered', 'allowDuplicates', 'orderRelevant', 'semanticIdListElement', 'typeValueListElement', 'valueTypeListElement'];

class V3RcConverter extends Converter {
  protected override get referableParts(): string[] {
    return [...super.referableParts, 'extension', 'displayName', 'checksum'];
  }
  protected override get idElement(): string {
    return 'id';
  }

  protected override referable(node: XmlNode, out: Json, idShortRequired: boolean): void {
    super.referable(node, out, idShortRequired);
    const displayName = this.langStrings(this.child(node, 'displayName'));
    if (displayName) out.displayName = displayName;
    const checksum = this.child(node, 'checksum');
    if (checksum?.text.trim()) this.warn(checksum, 'checksum dropped (V3.0 has none)');
    const extensions = this.extensions(this.child(node, 'extension'));
    if (extensions.length) out.extensions = extensions;
  }

  private extensions(container: XmlNode | undefined): Json[] {
    if (!container) return [];
    this.expect(container, ['Extension']);
    const out: Json[] = [];
    for (const extension of this.all(container, 'Extension')) {
      this.expect(extension, ['semanticId', 'name', 'valueType', 'value', 'refersTo']);
      const name = this.str(extension, 'name');
      if (name === undefined) {
        this.warn(extension, 'extension without name (left out; V3.0 requires one)');
        continue;
      }
      const converted: Json = {};
      const semanticId = this.optionalReference(extension, 'semanticId');
      if (semanticId) converted.semanticId = semanticId;
      converted.name = name;
      const written = this.str(extension, 'valueType');
      let valueType = 'xs:string';
      if (written !== undefined) {
        const mapped = valueTypeOf(written);
        if (mapped.note) this.warn(this.child(extension, 'valueType')!, mapped.note);
        valueType = converted.valueType = mapped.valueType;
      }
      this.value(extension, converted, valueType);
      const refersTo = this.child(extension, 'refersTo');
      const references = refersTo ? this.kids(refersTo).map((r) => this.reference(r)).filter(present) : [];
      if (references.length) converted.refersTo = references;
      out.push(converted);
    }
    return out;
  }

  /** A global reference (`values`) or a model reference (`keys`, as in V2.0). */
  override reference(node: XmlNode): Json | undefined {
    const values = this.child(node, 'values');
    if (!values) return super.reference(node);
    this.expect(node, ['values']);
    this.expect(values, ['value']);
    const keys = this.all(values, 'value')
      .map((value) => value.text.trim())
      .filter(Boolean)
      .map((value) => ({ type: 'GlobalReference', value }));
    return keys.length ? { type: 'ExternalReference', keys } : undefined;
  }

  protected override shell(node: XmlNode): Json | undefined {
    this.expect(node, [...this.identifiableParts, 'hasDataSpecification', 'embeddedDataSpecification', 'derivedFrom', 'assetInformation', 'submodelRefs', 'views', 'security']);
    const out = this.identifiable(node, 'AssetAdministrationShell');
    if (!out) return undefined;
    // The shell names its embedded data specifications hasDataSpecification; accept both names.
    const named: Json = {};
    this.dataSpecifications(node, named, 'hasDataSpecification');
    this.dataSpecifications(node, out);
    const specs = [...((named.embeddedDataSpecifications as Json[]) ?? []), ...((out.embeddedDataSpecifications as Json[]) ?? [])];
    if (specs.length) out.embeddedDataSpecifications = specs;
    const derivedFrom = this.optionalReference(node, 'derivedFrom');
    if (derivedFrom) out.derivedFrom = derivedFrom;
    out.assetInformation = this.rcAssetInformation(node);
    const refs = this.child(node, 'submodelRefs');
    if (refs) {
      this.expect(refs, ['submodelRef']);
      const submodels = this.all(refs, 'submodelRef').map((r) => this.reference(r)).filter(present);
      if (submodels.length) out.submodels = submodels;
    }
    for (const dropped of ['views', 'security']) {
      const at = this.child(node, dropped);
      if (at) this.warn(at, `${dropped} dropped (V3.0 shells have no ${dropped})`);
    }
    return out;
  }

  private rcAssetInformation(shell: XmlNode): Json {
    const info = this.child(shell, 'assetInformation');
    if (!info) {
      this.warn(shell, 'no assetInformation: asset kind Instance, no global asset id');
      return { assetKind: 'Instance' };
    }
    this.expect(info, ['assetKind', 'globalAssetId', 'specificAssetId', 'defaultThumbnail']);
    const out: Json = { assetKind: 'Instance' };
    const kind = this.str(info, 'assetKind');
    if (kind === 'Type' || kind === 'Instance') out.assetKind = kind;
    else this.warn(info, kind === undefined ? 'no assetKind: Instance' : `assetKind '${kind}' unknown: Instance`);
    const global = this.child(info, 'globalAssetId');
    if (global) {
      // A global reference of values, a model reference of keys, or (as V3.0 has it) the id as text.
      const ids = this.kids(global).length
        ? ((this.reference(global)?.keys as Json[] | undefined) ?? []).map((k) => k.value as string)
        : [global.text.trim()].filter(Boolean);
      if (ids.length > 1) {
        throw refusal(`${pathOf(global)} names ${ids.length} global asset ids (${ids.map((id) => `'${id}'`).join(', ')}), and a V3.0 asset has one`);
      }
      if (ids.length) out.globalAssetId = ids[0];
    }
    const specific = this.child(info, 'specificAssetId');
    if (specific) {
      const pairs = this.kids(specific).map((pair) => this.specificAssetId(pair)).filter(present);
      if (pairs.length) out.specificAssetIds = pairs;
    }
    const thumbnail = this.child(info, 'defaultThumbnail');
    if (thumbnail) {
      this.expect(thumbnail, ['path', 'contentType']);
      const path = this.str(thumbnail, 'path');
      const contentType = this.str(thumbnail, 'contentType');
      if (path !== undefined) out.defaultThumbnail = contentType === undefined ? { path } : { path, contentType };
    }
    return out;
  }

  /** An IdentifierKeyValuePair: V3.0's specific asset id, its key the name. */
  private specificAssetId(pair: XmlNode): Json | undefined {
    this.expect(pair, ['semanticId', 'key', 'value', 'externalSubjectId']);
    const name = this.str(pair, 'key');
    const value = this.str(pair, 'value');
    if (name === undefined || value === undefined) {
      this.warn(pair, 'specific asset id without key or value (left out; V3.0 requires both)');
      return undefined;
    }
    const out: Json = {};
    const semanticId = this.optionalReference(pair, 'semanticId');
    if (semanticId) out.semanticId = semanticId;
    out.name = name;
    out.value = value;
    const externalSubjectId = this.optionalReference(pair, 'externalSubjectId');
    if (externalSubjectId) out.externalSubjectId = externalSubjectId;
    return out;
  }

  protected override element(node: XmlNode): Json | undefined {
    switch (node.local) {
      case 'submodelElementStruct':
        return this.collection(node);
      case 'submodelElementList':
        return this.elementList(node);
      case 'globalReferenceElement':
      case 'modelReferenceElement':
        return this.referenceElement(node);
      default:
        return super.element(node);
    }
  }

  private elementList(node: XmlNode): Json | undefined {
    return this.common(node, 'SubmodelElementList', LIST_PARTS, (out) => {
      const orderRelevant = this.str(node, 'orderRelevant') ?? this.str(node, 'ordered');
      if (orderRelevant === 'true' || orderRelevant === 'false') out.orderRelevant = orderRelevant === 'true';
      const semanticIdListElement = this.optionalReference(node, 'semanticIdListElement');
      if (semanticIdListElement) out.semanticIdListElement = semanticIdListElement;
      const items = this.elements(this.child(node, 'value'));
      const named = items.filter((item) => item.idShort !== undefined);
      for (const item of named) delete item.idShort;
      if (named.length) {
        this.warn(node, `idShort of ${named.length} list item(s) dropped (V3.0 list items have none)`);
      }
      const kinds = [...new Set(items.map((item) => item.modelType as string))];
      const written = this.str(node, 'typeValueListElement');
      const stated = written && (RENAMED_ELEMENT_TYPES[written] ?? written);
      if (stated && V3_ELEMENT_TYPES.has(stated)) out.typeValueListElement = stated;
      else {
        out.typeValueListElement = kinds.length === 1 ? kinds[0] : 'SubmodelElement';
        this.warn(node, `${stated ? `typeValueListElement '${written}' unknown` : 'no typeValueListElement'}: ${out.typeValueListElement} (from the items)`);
      }
      const writtenValueType = this.str(node, 'valueTypeListElement');
      if (writtenValueType !== undefined) {
        const mapped = valueTypeOf(writtenValueType);
        if (mapped.note) this.warn(this.child(node, 'valueTypeListElement')!, mapped.note);
        out.valueTypeListElement = mapped.valueType;
      } else if (out.typeValueListElement === 'Property' || out.typeValueListElement === 'Range') {
        const valueTypes = [...new Set(items.map((item) => item.valueType as string))];
        if (valueTypes.length === 1) out.valueTypeListElement = valueTypes[0];
      }
      if (items.length) out.value = items;
    });
  }
}
