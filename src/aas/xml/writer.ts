import type { JsonObject } from '../model/parse';
import type { AasVersion } from '../versions/needed';
import { AAS_NAMESPACE, CHOICES, CLASSES, type XmlProperty } from './schema-table';
import { AAS_V31_NAMESPACE, AAS_V31_XML } from './v31';

/**
 * Writer of the AAS V3.0 XML serialization from the official JSON serialization (what the server stores). Driven
 * by the table generated from AAS.xsd (`schema-table.ts`): every class's elements in the order its schema
 * sequence demands, lists in their wrapper elements, polymorphic items named after their `modelType`. What it
 * writes validates against AAS.xsd when the JSON is a verified environment (the constraints the schema repeats,
 * lengths and patterns, are the metamodel's).
 *
 * An empty list is written as its empty wrapper element (`<keys/>`, `<description/>`), as the aas-core
 * xmlization writes it, and the reader reads that back as the empty list: the XML says what the JSON says. Neither
 * the JSON schema (minItems 1) nor AAS.xsd (minOccurs 1) allows an empty list, and the metamodel's verification
 * reports one, so only a document stored with that violation (an import with warnings) has one; leaving its
 * wrapper out would lose it (`description: []` read back as no description) or make XML the reader refuses (a
 * required list: `keys`, `valueReferencePairs`, `preferredName`). The environment's own lists are not part of a
 * stored document: empty, they are left out (`{}` and `{"submodels": []}` are both the empty environment).
 *
 * The version of the metamodel written is an option (default V3.0): V3.1 XML has its own namespace, leaves out
 * what V3.1 made optional where the document has none (a File without contentType, ...), and writes the two
 * elements of an embedded data specification in V3.1's order (`dataSpecificationContent` first). The documents
 * are written as given: a V3.0 export is of documents mapped down (`mapDownToV30`) by the caller.
 *
 * `writeXmlEnvironment` returns one string; `writeXmlEnvironmentChunks` yields the document piece by piece, one
 * shell, submodel or concept description at a time, from (async) iterables, for a streamed response.
 */

export class XmlWriteError extends Error {
  override readonly name = 'XmlWriteError';
  constructor(
    message: string,
    /** The JSON path of the value that cannot be written, `$.submodels[0].submodelElements[2].value`. */
    readonly path: string,
  ) {
    super(`${path}: ${message}`);
  }
}

export interface XmlWriteOptions {
  /** Indent with tabs, one element a line (default: no whitespace between elements). */
  pretty?: boolean;
  /** The version of the metamodel to write (its namespace and schema): default '3.0'. */
  version?: AasVersion;
}

/** Each version's XML namespace. */
export const XML_NAMESPACES: Readonly<Record<AasVersion, string>> = { '3.0': AAS_NAMESPACE, '3.1': AAS_V31_NAMESPACE };

/** The properties of `cls` in the order of `version`'s schema. */
const V31_ORDER = new Map(
  Object.entries(CLASSES).map(([name, cls]) => [name, name === 'embeddedDataSpecification' ? [...cls.properties].reverse() : cls.properties]),
);

const XML_DECLARATION = '<?xml version="1.0" encoding="UTF-8"?>';

const PROPERTY_NAMES = new Map(Object.entries(CLASSES).map(([name, cls]) => [name, new Set(cls.properties.map((p) => p.name))]));
const CHOICE_SETS = new Map(Object.entries(CHOICES).map(([name, list]) => [name, new Set(list)]));

/** Characters XML 1.0 cannot carry at all, not even as character references; lone surrogates. */
// eslint-disable-next-line no-control-regex -- the control characters XML cannot carry are what it looks for
const NOT_XML = /[\x00-\x08\x0B\x0C\x0E-\x1F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const SPECIAL = /[&<>\r]/;
const SPECIAL_ALL = /[&<>\r]/g;
const REPLACEMENT: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '\r': '&#xD;' };

/** Character data: &, < and > escaped; a CR as a character reference, which line-end handling would drop. */
function escape(text: string, path: string): string {
  if (NOT_XML.test(text)) throw new XmlWriteError('The text holds a character XML 1.0 cannot represent', path);
  return SPECIAL.test(text) ? text.replace(SPECIAL_ALL, (c) => REPLACEMENT[c]) : text;
}

const lowerFirst = (name: string) => name[0].toLowerCase() + name.slice(1);

class Writer {
  constructor(
    private readonly out: string[],
    private readonly pretty: boolean,
    private readonly version: AasVersion = '3.0',
  ) {}

  /** Whether `version` requires the property `name` of `cls`. */
  private requires(cls: string, prop: XmlProperty): boolean {
    if (!prop.required) return false;
    return this.version === '3.0' || !(AAS_V31_XML.optional[cls] ?? []).includes(prop.name);
  }

  private indent(depth: number): string {
    return this.pretty ? `\n${'\t'.repeat(depth)}` : '';
  }

  /** `<name>` holding an instance of `cls`; `attributes` only for the root. */
  object(name: string, cls: string, value: unknown, path: string, depth: number, attributes = ''): void {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new XmlWriteError(`Expected an object (${cls})`, path);
    const json = value as JsonObject;
    const table = CLASSES[cls];
    const known = PROPERTY_NAMES.get(cls)!;
    for (const key of Object.keys(json)) {
      if (!known.has(key) && key !== 'modelType') throw new XmlWriteError(`Unexpected property '${key}' (not of ${cls})`, path);
    }
    if (table.modelType && json.modelType !== undefined && json.modelType !== table.modelType) {
      throw new XmlWriteError(`Expected the modelType ${table.modelType}, got ${String(json.modelType)}`, path);
    }
    const start = this.out.length;
    this.out.push(`${depth > 0 ? this.indent(depth) : ''}<${name}${attributes}>`);
    for (const prop of this.version === '3.1' ? V31_ORDER.get(cls)! : table.properties) {
      const inner = json[prop.name];
      if (inner === undefined || inner === null) {
        if (this.requires(cls, prop)) throw new XmlWriteError(`The required property '${prop.name}' is missing`, path);
        continue;
      }
      // An environment's empty list is no list of a stored document: left out, as the streamed writer leaves it.
      if (cls === 'environment' && Array.isArray(inner) && inner.length === 0) continue;
      this.property(prop, inner, `${path}.${prop.name}`, depth + 1);
    }
    if (this.out.length === start + 1) this.out[start] = `${this.out[start].slice(0, -1)}/>`;
    else this.out.push(`${this.indent(depth)}</${name}>`);
  }

  private property(prop: XmlProperty, value: unknown, path: string, depth: number): void {
    const name = prop.name;
    switch (prop.kind) {
      case 'string':
      case 'enum':
      case 'base64':
        if (typeof value !== 'string') throw new XmlWriteError('Expected a string', path);
        this.out.push(`${this.indent(depth)}<${name}>${escape(value, path)}</${name}>`);
        return;
      case 'boolean':
        if (typeof value !== 'boolean') throw new XmlWriteError('Expected a boolean', path);
        this.out.push(`${this.indent(depth)}<${name}>${value}</${name}>`);
        return;
      case 'class':
        this.object(name, prop.type!, value, path, depth);
        return;
      case 'choice':
        this.out.push(`${this.indent(depth)}<${name}>`);
        this.choice(prop.type!, value, path, depth + 1);
        this.out.push(`${this.indent(depth)}</${name}>`);
        return;
      case 'list':
      case 'choiceList': {
        if (!Array.isArray(value)) throw new XmlWriteError('Expected an array', path);
        if (value.length === 0) {
          this.out.push(`${this.indent(depth)}<${name}/>`); // the empty list of a document stored with that violation
          return;
        }
        this.out.push(`${this.indent(depth)}<${name}>`);
        value.forEach((item, i) => {
          if (prop.kind === 'list') this.object(prop.item!, prop.type!, item, `${path}[${i}]`, depth + 1);
          else this.choice(prop.type!, item, `${path}[${i}]`, depth + 1);
        });
        this.out.push(`${this.indent(depth)}</${name}>`);
        return;
      }
    }
  }

  /** An instance of one of the classes of the choice group `choice`, named after its modelType. */
  private choice(choice: string, value: unknown, path: string, depth: number): void {
    const modelType = (value as JsonObject | null)?.modelType;
    const cls = typeof modelType === 'string' && modelType ? lowerFirst(modelType) : '';
    if (!CHOICE_SETS.get(choice)!.has(cls)) {
      throw new XmlWriteError(`Expected a modelType of ${CHOICES[choice].map((c) => c[0].toUpperCase() + c.slice(1)).join(', ')}`, path);
    }
    this.object(cls, cls, value, path, depth);
  }
}

/** The XML of an instance of `cls` (its XML name: `submodel`, `property`, ...) as a document of its own. */
export function writeXmlOf(cls: string, json: JsonObject, options: XmlWriteOptions = {}): string {
  if (!CLASSES[cls]) throw new Error(`Unknown AAS class '${cls}'`);
  const out = [XML_DECLARATION, options.pretty ? '\n' : ''];
  new Writer(out, !!options.pretty, options.version).object(cls, cls, json, '$', 0, ` xmlns="${XML_NAMESPACES[options.version ?? '3.0']}"`);
  out.push('\n');
  return out.join('');
}

/** The XML of an environment in its official JSON serialization. */
export function writeXmlEnvironment(environment: JsonObject, options: XmlWriteOptions = {}): string {
  return writeXmlOf('environment', environment, options);
}

type Items = Iterable<JsonObject> | AsyncIterable<JsonObject>;

/** The lists of an environment, each as an array or an (async) iterable, e.g. pages read from the database. */
export interface EnvironmentParts {
  assetAdministrationShells?: Items;
  submodels?: Items;
  conceptDescriptions?: Items;
}

/**
 * The XML of the environment of `parts`, a chunk at a time: the start, then one chunk per shell, submodel and
 * concept description, then the end. The iterables are read once, in order; nothing but one item is held.
 */
export async function* writeXmlEnvironmentChunks(parts: EnvironmentParts, options: XmlWriteOptions = {}): AsyncGenerator<string> {
  const pretty = !!options.pretty;
  const nl = pretty ? '\n' : '';
  const tab = pretty ? '\t' : '';
  yield `${XML_DECLARATION}${nl}<environment xmlns="${XML_NAMESPACES[options.version ?? '3.0']}">`;
  for (const prop of CLASSES.environment.properties) {
    const items = parts[prop.name as keyof EnvironmentParts];
    if (!items) continue;
    let index = 0;
    for await (const item of items) {
      const out: string[] = [];
      if (index === 0) out.push(`${nl}${tab}<${prop.name}>`);
      new Writer(out, pretty, options.version).object(prop.item!, prop.type!, item, `$.${prop.name}[${index}]`, 2);
      index++;
      yield out.join('');
    }
    if (index > 0) yield `${nl}${tab}</${prop.name}>`;
  }
  yield `${nl}</environment>\n`;
}
