import { verification } from '@aas-core-works/aas-core3.0-typescript';
import type { JsonObject } from '../aas/model/parse';
import { V2XmlError, decodeXml, pathOf, readXmlTree, type XmlLimits, type XmlNode } from '../aas/xml/v2-tree';
import { DCC_ELEMENT_NAMES, SI_ELEMENT_NAMES } from './dcc-names';

/**
 * Converts a Digital Calibration Certificate (PTB's DCC schema 2.x and 3.x, quantities in D-SI) into a submodel.
 * The mapping is generic over the certificate's elements, so that nothing of it is lost, with rules for what the
 * schema means: texts in languages (`dcc:content`) become a MultiLanguageProperty, a leaf element a Property whose
 * value is the element's text as written (typed xs:double, xs:date, xs:dateTime, xs:boolean where the schema
 * types it so), an XML list (`si:valueXMLList`, ...) a SubmodelElementList of one Property per entry, an embedded
 * file (`dataBase64`) a File element, attributes qualifiers. Semantic ids come from the schema's own names
 * (docs/dcc.md): `{namespace}/{element}` for an element with children, `{namespace}/{parent}/{element}` for a leaf.
 * The XML signature (`ds:Signature`) is not checked: its presence is recorded.
 */

export const DCC_NS = 'https://ptb.de/dcc';
export const SI_NS = 'https://ptb.de/si';
export const DSIG_NS = 'http://www.w3.org/2000/09/xmldsig#';

/** The largest DCC taken, in bytes (the body of a request, the GraphQL argument's UTF-8 length). */
export const MAX_DCC_BYTES = 32 * 1024 * 1024;

export const DCC_XML_LIMITS: XmlLimits = { maxChars: MAX_DCC_BYTES, maxDepth: 64, maxElements: 1_000_000 };

/** Schema versions of the DCC in use: 2.x and 3.x (3.3 is current), release candidates included. */
const SCHEMA_VERSION = /^[23]\.\d{1,3}\.\d{1,3}(?:-?rc\.?\d{1,3})?$/;

/** Everything that makes a document no convertible DCC; the message is written for the client (a 400). */
export class DccError extends Error {
  override readonly name = 'DccError';
}

export interface DccFile {
  /** `original`: the DCC itself; `document`: a file embedded in it (base64). */
  role: 'original' | 'document';
  fileName: string;
  contentType: string;
  content: Buffer;
  /** The idShort path of its File element in the submodel. */
  idShortPath: string;
  /** The File element, whose value the caller sets to the stored file's tfp (`setFileValue`). */
  element: JsonObject;
}

export interface DccSpecificAssetId {
  name: string;
  value: string;
}

export interface DccConversion {
  schemaVersion: string;
  uniqueIdentifier: string;
  submodel: JsonObject;
  warnings: string[];
  /** The identifications of the calibrated items, as specific asset ids (name: the issuer). */
  specificAssetIds: DccSpecificAssetId[];
  signaturePresent: boolean;
  /** The original first, then the embedded documents, in document order. */
  files: DccFile[];
}

export interface ConvertOptions {
  /** The submodel's id; default `urn:dcc:` and the DCC's unique identifier. */
  submodelId?: string | null;
  /** The name of the original's file; default the unique identifier with `.xml`. */
  fileName?: string | null;
}

/** The D-SI leaves whose text is a real number (the D-SI decimal pattern: xs:double's lexical space without INF/NaN). */
const SI_REALS = new Set([
  'value', 'uncertainty', 'coverageFactor', 'coverageProbability', 'stdUncertainty', 'intervalMin', 'intervalMax',
  'valueReal', 'valueImag', 'valueMagnitude', 'valuePhase', 'radius', 'covarianceValue',
]);
const SI_DECIMAL = /^[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?$/;
/** D-SI's stricter number types: uncertainties not negative, coverage factors at least 1, probabilities in [0, 1]. */
const SI_NUMBER_RULES: Record<string, [RegExp, string]> = {
  uncertainty: [/^\+?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?$/, 'no uncertainty (a number not below 0)'],
  stdUncertainty: [/^\+?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?$/, 'no uncertainty (a number not below 0)'],
  coverageFactor: [/^\+?[1-9]\d*(?:\.\d*)?$/, 'no coverage factor (a number of at least 1, no exponent)'],
  coverageProbability: [/^\+?(?:0(?:\.\d*)?|1(?:\.0*)?)$/, 'no coverage probability (a number from 0 to 1, no exponent)'],
};

/** Why `text` is no number of the D-SI element `local` (its base name for XML lists), or undefined when it is one. */
function numberProblem(local: string, text: string): string | undefined {
  if (!SI_DECIMAL.test(text)) return 'no D-SI decimal number';
  const rule = SI_NUMBER_RULES[local];
  return rule && !rule[0].test(text) ? rule[1] : undefined;
}
/** DCC leaves typed xs:date and xs:boolean by the schema (all versions). */
const DCC_DATES = new Set(['receiptDate', 'beginPerformanceDate', 'endPerformanceDate', 'date', 'issueDate', 'validUntil']);
const DCC_BOOLEANS = new Set(['mainSigner', 'valid', 'traceable', 'inValidityRange', 'cryptElectronicSeal', 'cryptElectronicSignature', 'cryptElectronicTimeStamp']);
/** DCC elements whose content is any XML (xs:any): not held to the DCC's element names. */
const ANY_CONTENT = new Set(['comment', 'xml', 'mathml']);
/** Longest text of a langString (LangStringTextType). */
const MAX_LANG_TEXT = 1023;
const MAX_ID_SHORT = 128;

const ref = (value: string) => ({ type: 'ExternalReference', keys: [{ type: 'GlobalReference', value }] });
const semanticOf = (node: XmlNode, leaf: boolean) =>
  ref(leaf && node.parent ? `${nsOf(node)}/${node.parent.local}/${node.local}` : `${nsOf(node)}/${node.local}`);
/** The namespace as the semantic id starts: without a trailing `/` or `#`; an element without one gets `urn:xml:`. */
const nsOf = (node: XmlNode) => (node.uri ? node.uri.replace(/[/#]+$/, '') : 'urn:xml');

const isDcc = (node: XmlNode, local: string) => node.uri === DCC_NS && node.local === local;
const child = (node: XmlNode | undefined, local: string) => node?.children.find((c) => isDcc(c, local));
const childrenNamed = (node: XmlNode | undefined, local: string) => node?.children.filter((c) => isDcc(c, local)) ?? [];
const where = (node: XmlNode) => pathOf(node).replace(/^\/digitalCalibrationCertificate/, '');

/** Reads and converts a DCC given as bytes (the original, kept byte for byte as the file `original`). */
export function convertDcc(bytes: Buffer, options: ConvertOptions = {}): DccConversion {
  if (bytes.length > MAX_DCC_BYTES) throw new DccError(`The DCC is larger than ${MAX_DCC_BYTES} bytes.`);
  let root: XmlNode;
  try {
    root = readXmlTree(decodeXml(bytes), DCC_XML_LIMITS);
  } catch (err) {
    if (err instanceof V2XmlError) throw new DccError(`${err.message}.`);
    throw err;
  }
  normalizeLineEnds(root);
  return new Converter(root, bytes, options).run();
}

class Converter {
  private readonly warnings: string[] = [];
  private readonly files: DccFile[] = [];
  private signaturePresent = false;
  private defaultLang = 'en';

  constructor(
    private readonly root: XmlNode,
    private readonly bytes: Buffer,
    private readonly options: ConvertOptions,
  ) {}

  run(): DccConversion {
    const root = this.root;
    if (root.uri !== DCC_NS || root.local !== 'digitalCalibrationCertificate') {
      throw new DccError(`The document is no DCC: its root element is {${root.uri}}${root.local}, not {${DCC_NS}}digitalCalibrationCertificate.`);
    }
    const schemaVersion = root.attributes.schemaVersion;
    if (schemaVersion === undefined) throw new DccError('The DCC has no schemaVersion attribute, which its schema requires.');
    if (!SCHEMA_VERSION.test(schemaVersion)) throw new DccError(`Unknown DCC schema version '${schemaVersion}': versions 2.x and 3.x are converted.`);
    const administrativeData = this.required(root, 'administrativeData');
    this.required(root, 'measurementResults');
    const coreData = this.required(administrativeData, 'coreData');
    const uniqueIdentifier = this.required(coreData, 'uniqueIdentifier').text.trim();
    if (!uniqueIdentifier) throw new DccError('The DCC breaks its schema: /administrativeData/coreData/uniqueIdentifier is empty.');
    const languages = [...childrenNamed(coreData, 'mandatoryLangCodeISO639_1'), ...childrenNamed(coreData, 'usedLangCodeISO639_1')].map((n) => n.text.trim());
    if (languages[0] && verification.matchesBcp47(languages[0])) this.defaultLang = languages[0];
    else this.warnings.push(`The DCC names no language (coreData/mandatoryLangCodeISO639_1): texts without one are taken as '${this.defaultLang}'.`);
    this.checkSchema(root);

    const original: JsonObject = { idShort: 'originalDcc', semanticId: ref(`${DCC_NS}/digitalCalibrationCertificate/original`), contentType: 'application/xml', modelType: 'File' };
    this.files.push({
      role: 'original',
      fileName: this.options.fileName || `${uniqueIdentifier.replace(/[^A-Za-z0-9._-]+/g, '_').slice(0, 200)}.xml`,
      contentType: 'application/xml',
      content: this.bytes,
      idShortPath: 'originalDcc',
      element: original,
    });
    const elements: JsonObject[] = [
      { idShort: 'schemaVersion', semanticId: ref(`${DCC_NS}/digitalCalibrationCertificate/schemaVersion`), valueType: 'xs:string', value: schemaVersion, modelType: 'Property' },
      original,
    ];
    elements.push(...this.members(root, ''));
    for (const element of elements) if (element.idShort === 'signaturePresent') throw new DccError('The DCC has an element signaturePresent, which its schema does not know.');
    elements.push({
      idShort: 'signaturePresent',
      description: [{ language: 'en', text: 'Whether the DCC carries an XML signature (ds:Signature). The server does not check it.' }],
      semanticId: ref(`${DSIG_NS.replace(/#$/, '')}/Signature`),
      valueType: 'xs:boolean',
      value: String(this.signaturePresent),
      modelType: 'Property',
    });
    if (this.signaturePresent) this.warnings.push('The DCC carries an XML signature (ds:Signature): recorded, not checked.');
    const submodel: JsonObject = {
      idShort: 'DigitalCalibrationCertificate',
      id: this.options.submodelId || `urn:dcc:${uniqueIdentifier}`,
      kind: 'Instance',
      semanticId: ref(`${DCC_NS}/digitalCalibrationCertificate`),
      submodelElements: elements,
      modelType: 'Submodel',
    };
    return {
      schemaVersion,
      uniqueIdentifier,
      submodel,
      warnings: this.warnings,
      specificAssetIds: this.assetIds(administrativeData),
      signaturePresent: this.signaturePresent,
      files: this.files,
    };
  }

  private required(node: XmlNode, local: string): XmlNode {
    const found = child(node, local);
    if (!found) throw new DccError(`The DCC breaks its schema: ${where(node) || '/'} has no ${local}.`);
    return found;
  }

  /**
   * What the converter relies on and the schema requires of D-SI values: a si:real has one value and one unit,
   * an expanded uncertainty its uncertainty, coverage factor and probability, an XML list its values and units;
   * every number is a D-SI decimal. A DCC that breaks these is refused (the XSD says more; docs/dcc.md).
   */
  private checkSchema(node: XmlNode): void {
    if (node.uri === DCC_NS && !DCC_ELEMENT_NAMES.has(node.local)) {
      throw new DccError(`The DCC breaks its schema: ${where(node)} is an element dcc:${node.local}, which the DCC schema does not have.`);
    }
    if (node.uri === SI_NS && !SI_ELEMENT_NAMES.has(node.local)) this.warnings.push(`${where(node)}: si:${node.local} is no element of D-SI 2.1; converted as it is.`);
    if (node.uri === DCC_NS && ANY_CONTENT.has(node.local)) return;
    if (node.uri === SI_NS) {
      const need = (...names: string[]) => {
        for (const name of names) {
          const count = node.children.filter((c) => c.uri === SI_NS && c.local === name).length;
          if (count !== 1) throw new DccError(`The DCC breaks its schema: ${where(node)} needs exactly one si:${name}, has ${count}.`);
        }
      };
      if (node.local === 'real' || node.local === 'constant') need('value', 'unit');
      if (node.local === 'expandedUnc') need('uncertainty', 'coverageFactor', 'coverageProbability');
      if (node.local === 'coverageInterval') need('stdUncertainty', 'intervalMin', 'intervalMax', 'coverageProbability');
      if (node.local === 'realListXMLList') need('valueXMLList', 'unitXMLList');
      if (node.local === 'expandedUncXMLList') need('uncertaintyXMLList', 'coverageFactorXMLList', 'coverageProbabilityXMLList');
      const problem = !node.children.length && SI_REALS.has(node.local) ? numberProblem(node.local, node.text.trim()) : undefined;
      if (problem) throw new DccError(`The DCC breaks its schema: ${where(node)} is '${clip(node.text.trim())}', ${problem}.`);
    }
    for (const c of node.children) this.checkSchema(c);
  }

  /** The submodel elements of `node`'s children, with idShorts unique among them. */
  private members(node: XmlNode, path: string): JsonObject[] {
    const out: JsonObject[] = [];
    const parts = node.children.filter((c) => {
      if (c.uri === DSIG_NS && c.local === 'Signature') {
        this.signaturePresent = true;
        return false;
      }
      return true;
    });
    const contents = parts.filter((c) => isDcc(c, 'content'));
    const others = parts.filter((c) => !isDcc(c, 'content'));
    if (contents.length) out.push(this.texts(contents, node, ref(`${nsOf(node)}/${node.local}/content`), 'content', path ? `${path}.content` : 'content'));
    const used = new Set(out.map((e) => e.idShort as string));
    const counts = new Map<string, number>();
    for (const c of others) counts.set(c.local, (counts.get(c.local) ?? 0) + 1);
    const seen = new Map<string, number>();
    for (const c of others) {
      const base = idShortOf(c.local);
      const n = (seen.get(c.local) ?? 0) + 1;
      seen.set(c.local, n);
      let idShort = counts.get(c.local)! > 1 ? `${base}_${n}` : base;
      while (used.has(idShort)) idShort = `${idShort}_`;
      used.add(idShort);
      const element = this.element(c, idShort, path ? `${path}.${idShort}` : idShort);
      if (element) out.push(element);
    }
    return out;
  }

  /** One submodel element for an XML element. */
  private element(node: XmlNode, idShort: string, path: string): JsonObject | undefined {
    const qualifiers = Object.entries(node.attributes)
      .filter(([name]) => name !== 'lang')
      .map(([name, value]) => ({ semanticId: ref(`${nsOf(node)}/${node.local}/@${name}`), type: name.slice(0, MAX_ID_SHORT), valueType: 'xs:string', value }));
    const head = { idShort, semanticId: semanticOf(node, !node.children.length), ...(qualifiers.length ? { qualifiers } : {}) };
    const elements = node.children.filter((c) => !(c.uri === DSIG_NS && c.local === 'Signature'));
    if (node.uri === DSIG_NS) return undefined;
    if (elements.length && elements.every((c) => isDcc(c, 'content'))) {
      const semanticId = ref(node.parent ? `${nsOf(node)}/${node.parent.local}/${node.local}` : `${nsOf(node)}/${node.local}`);
      return this.texts(elements, node, semanticId, idShort, path, qualifiers);
    }
    const data = elements.find((c) => c.uri === node.uri && c.local === 'dataBase64');
    if (data) return this.embedded(node, data, head, path);
    if (!elements.length) return this.leaf(node, head);
    return { ...head, value: this.members(node, path), modelType: 'SubmodelElementCollection' };
  }

  /** A leaf: a Property with the text as written, or, for an XML list, a list of one Property per entry. */
  private leaf(node: XmlNode, head: JsonObject): JsonObject {
    const text = node.text;
    if (node.uri === SI_NS && node.local.endsWith('XMLList')) {
      const entries = text.split(/\s+/).filter(Boolean);
      const base = node.local.slice(0, -'XMLList'.length);
      const valueType = SI_REALS.has(base) ? 'xs:double' : base === 'dateTime' ? 'xs:dateTime' : 'xs:string';
      for (const entry of entries) {
        const problem = valueType === 'xs:double' ? numberProblem(base, entry) : undefined;
        if (problem) throw new DccError(`The DCC breaks its schema: ${where(node)} holds '${clip(entry)}', ${problem}.`);
      }
      return {
        ...head,
        orderRelevant: true,
        semanticIdListElement: ref(`${SI_NS}/${node.local}/entry`),
        typeValueListElement: 'Property',
        valueTypeListElement: valueType,
        value: entries.map((entry) => ({ valueType, value: entry, modelType: 'Property' })),
        modelType: 'SubmodelElementList',
      };
    }
    let valueType = 'xs:string';
    let value: string | undefined = text;
    const trimmed = text.trim();
    if (node.uri === SI_NS && SI_REALS.has(node.local)) {
      valueType = 'xs:double';
      value = trimmed;
    } else if (node.uri === SI_NS && node.local === 'dateTime') {
      if (!verification.matchesXsDateTime(trimmed)) throw new DccError(`The DCC breaks its schema: ${where(node)} is '${clip(trimmed)}', no xs:dateTime.`);
      valueType = 'xs:dateTime';
      value = trimmed;
    } else if (node.uri === DCC_NS && DCC_DATES.has(node.local) && trimmed) {
      if (!verification.matchesXsDate(trimmed) || !verification.isXsDate(trimmed)) throw new DccError(`The DCC breaks its schema: ${where(node)} is '${clip(trimmed)}', no xs:date.`);
      valueType = 'xs:date';
      value = trimmed;
    } else if (node.uri === DCC_NS && DCC_BOOLEANS.has(node.local) && trimmed) {
      if (!verification.matchesXsBoolean(trimmed)) throw new DccError(`The DCC breaks its schema: ${where(node)} is '${clip(trimmed)}', no xs:boolean.`);
      valueType = 'xs:boolean';
      value = trimmed;
    }
    if (!trimmed) value = undefined;
    else if (valueType === 'xs:string' && !verification.matchesXmlSerializableString(value)) value = trimmed;
    return { ...head, valueType, ...(value !== undefined ? { value } : {}), modelType: 'Property' };
  }

  /** `dcc:content` texts as one MultiLanguageProperty (a text longer than a langString holds: a Property per language instead). */
  private texts(contents: XmlNode[], parent: XmlNode, semanticId: JsonObject, idShort: string, path: string, qualifiers: JsonObject[] = []): JsonObject {
    const strings: { language: string; text: string }[] = [];
    for (const content of contents) {
      const language = content.attributes.lang ?? this.defaultLang;
      const text = content.text.trim();
      if (!text) continue;
      if (content.children.length) this.warnings.push(`${where(content)}: only the text of a rich content is kept, not its elements.`);
      if (!verification.matchesBcp47(language)) throw new DccError(`The DCC breaks its schema: ${where(content)} has the language '${clip(language)}', no language code.`);
      if (strings.some((s) => s.language === language)) {
        this.warnings.push(`${where(content)}: a second text in '${language}' is left out of ${path} (the first is kept; the original has both).`);
        continue;
      }
      strings.push({ language, text });
    }
    if (strings.some((s) => s.text.length > MAX_LANG_TEXT)) {
      this.warnings.push(`${where(parent)}: a text longer than ${MAX_LANG_TEXT} characters: ${path} is a collection of one Property per language.`);
      return {
        idShort,
        semanticId,
        ...(qualifiers.length ? { qualifiers } : {}),
        value: strings.map((s) => ({ idShort: idShortOf(s.language), semanticId: ref(`${nsOf(parent)}/${parent.local}/content`), valueType: 'xs:string', value: s.text, modelType: 'Property' })),
        modelType: 'SubmodelElementCollection',
      };
    }
    return { idShort, semanticId, ...(qualifiers.length ? { qualifiers } : {}), ...(strings.length ? { value: strings } : {}), modelType: 'MultiLanguageProperty' };
  }

  /** An embedded file (byteDataType: fileName, mimeType, dataBase64): a collection of its other parts and a File. */
  private embedded(node: XmlNode, data: XmlNode, head: JsonObject, path: string): JsonObject {
    const base64 = data.text.replace(/\s+/g, '');
    if (!/^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(base64)) {
      throw new DccError(`The DCC breaks its schema: ${where(data)} is no base64.`);
    }
    const declared = child(node, 'mimeType')?.text.trim() ?? '';
    const contentType = verification.matchesMimeType(declared) ? declared : 'application/octet-stream';
    if (declared !== contentType) this.warnings.push(`${where(node)}: the media type '${clip(declared)}' is no media type; stored as ${contentType}.`);
    const fileName = child(node, 'fileName')?.text.trim() || `document-${this.files.length}`;
    const file: JsonObject = { idShort: 'dataBase64', semanticId: semanticOf(data, true), contentType, modelType: 'File' };
    const rest = this.members({ ...node, children: node.children.filter((c) => c !== data) }, path).filter((e) => e.idShort !== 'dataBase64');
    this.files.push({ role: 'document', fileName, contentType, content: Buffer.from(base64, 'base64'), idShortPath: `${path}.dataBase64`, element: file });
    return { ...head, value: [...rest, file], modelType: 'SubmodelElementCollection' };
  }

  /** The identifications of the calibrated items (administrativeData/items/item/identifications). */
  private assetIds(administrativeData: XmlNode): DccSpecificAssetId[] {
    const out: DccSpecificAssetId[] = [];
    const items = childrenNamed(child(administrativeData, 'items'), 'item');
    items.forEach((item, i) => {
      const identifications = childrenNamed(child(item, 'identifications'), 'identification');
      if (!identifications.length) this.warnings.push(`Calibrated item ${i + 1} has no identifications: none is offered as a specific asset id.`);
      for (const identification of identifications) {
        const issuer = child(identification, 'issuer')?.text.trim() || 'other';
        const value = child(identification, 'value')?.text.trim();
        if (value && !out.some((id) => id.name === issuer && id.value === value)) out.push({ name: issuer.slice(0, 64), value: value.slice(0, 2048) });
      }
    });
    return out;
  }
}

/**
 * Sets a File element of the conversion to `tfp` (the stored file's) where the canonical serialization puts the
 * value, before the content type: the submodel stays in the canonical order of its properties, which lets it be
 * stored as it is (see `SubmodelService.createCanonical`).
 */
export function setFileValue(element: JsonObject, tfp: string): void {
  const { contentType, modelType } = element;
  delete element.contentType;
  delete element.modelType;
  Object.assign(element, { value: tfp, contentType, modelType });
}

/** XML 1.0 §2.11: a parser hands CR LF and a lone CR on as LF (sax keeps them as written). */
function normalizeLineEnds(root: XmlNode): void {
  const stack = [root];
  while (stack.length) {
    const node = stack.pop()!;
    if (node.text.includes('\r')) node.text = node.text.replace(/\r\n?/g, '\n');
    stack.push(...node.children);
  }
}

/** An XML local name as an idShort: letters, digits, `_` and `-`, starting with a letter. */
function idShortOf(local: string): string {
  // Room for a `_{n}` suffix of namesakes within the 128 characters of an idShort.
  let id = local.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, MAX_ID_SHORT - 10);
  if (!/^[A-Za-z]/.test(id)) id = `x${id}`;
  if (id.endsWith('-')) id = `${id}_`;
  return id;
}

const clip = (text: string) => (text.length > 80 ? `${text.slice(0, 80)}...` : text);
