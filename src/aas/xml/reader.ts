import { TextDecoder } from 'node:util';
import sax from 'sax';
import { ELEMENT_DEPTH_RULE, MAX_XML_DEPTH } from '../../common/json-depth';
import type { JsonObject } from '../model/parse';
import { AAS_NAMESPACE, CHOICES, CLASSES, ENUMS, type XmlClass, type XmlProperty } from './schema-table';
import { AAS_V2_NAMESPACE } from './v2';

/**
 * Reader of the AAS V3.0 XML serialization (namespace https://admin-shell.io/aas/3/0, schema AAS.xsd), producing
 * the official JSON serialization of the same content: what `jsonization.toJsonable` of the metamodel library
 * writes (modelType for the classes that have one, lists as arrays, booleans as booleans, Blob values as base64).
 * It is driven by the table generated from the XSD (`schema-table.ts`) and builds the JSON while sax parses, so
 * no DOM is ever held. With a dialect (`XmlReadOptions.dialect`) it reads a later version of the serialization with
 * the same table: the V3.1 namespace, with the elements V3.1 made optional and its new literals (`v31.ts`).
 *
 * What it refuses, each as an `XmlReadError` whose message names the element path
 * (`/environment/submodels/submodel[2]/submodelElements/property[1]/valueType`):
 * - anything not well-formed; a DOCTYPE (so no DTD, no external entity, no entity expansion); any entity but the
 *   five predefined ones and character references (sax in strict mode with strict entities);
 * - a root element of the AAS V2.0 namespace, with `code: 'AAS_V2'` so that a caller can hand the document to the
 *   V2 converter; any other namespace;
 * - an unknown or repeated element, a missing required element, text where elements belong and elements where
 *   text belongs, a literal that is not of its enumeration, a boolean or base64 value that is not one;
 * - nesting deeper than `maxDepth`, character data of one element longer than `maxTextChars`, a document longer
 *   than `maxChars`.
 * It does not check the metamodel's constraints (lengths, patterns, AASd-xxx): the JSON it returns goes through
 * the same verification as any JSON body (`parseVerified`). Elements are accepted in any order; the writer
 * writes them in the order of the schema. A list's wrapper element without items (`<keys/>`, which AAS.xsd
 * refuses) is read as the empty list, as the JSON `"keys": []` is read: the verification reports it, and the writer
 * writes a stored empty list that way, so what it writes reads back unchanged.
 */

export type XmlReadErrorCode =
  | 'AAS_V2'
  | 'NOT_WELL_FORMED'
  | 'FORBIDDEN'
  | 'ENCODING'
  | 'LIMIT'
  | 'NAMESPACE'
  | 'UNEXPECTED_ELEMENT'
  | 'MISSING_ELEMENT'
  | 'INVALID_VALUE';

export class XmlReadError extends Error {
  override readonly name = 'XmlReadError';
  constructor(
    readonly code: XmlReadErrorCode,
    message: string,
    /** The element path the problem is at, when there is one. */
    readonly path?: string,
  ) {
    super(path ? `${path}: ${message}` : message);
  }
}

export { AAS_V2_NAMESPACE };
const XSI_NAMESPACE = 'http://www.w3.org/2001/XMLSchema-instance';
const XMLNS_NAMESPACE = 'http://www.w3.org/2000/xmlns/';

export interface XmlReadLimits {
  /** Element nesting; the root element is at depth 1. */
  maxDepth: number;
  /** Characters of the character data of one element (a Blob value is the largest there is). */
  maxTextChars: number;
  /** Characters of the whole decoded document. */
  maxChars: number;
}

export const DEFAULT_XML_READ_LIMITS: XmlReadLimits = {
  maxDepth: MAX_XML_DEPTH,
  maxTextChars: 64 * 1024 * 1024,
  maxChars: 256 * 1024 * 1024,
};

/**
 * A later version of the XML serialization read with the same table: its namespace, the elements it made optional
 * that V3.0 requires (by class), and the literals it added to enumerations. The JSON read can then lack what
 * V3.0 requires, or carry a literal V3.0 does not know: the caller maps it onto V3.0 (`model/v31-mapping.ts`).
 */
export interface XmlDialect {
  namespace: string;
  optional: Readonly<Record<string, readonly string[]>>;
  literals: Readonly<Record<string, readonly string[]>>;
}

export interface XmlReadOptions {
  limits?: Partial<XmlReadLimits>;
  /** Another version's namespace and relaxations; V3.0 (https://admin-shell.io/aas/3/0) without one. */
  dialect?: XmlDialect;
}

// ---------------------------------------------------------------------------------------------------------------
// The table, indexed once.

interface ClassInfo {
  name: string;
  cls: XmlClass;
  byName: Map<string, XmlProperty>;
  required: string[];
}

const CLASS_INFO = new Map<string, ClassInfo>(
  Object.entries(CLASSES).map(([name, cls]) => [
    name,
    {
      name,
      cls,
      byName: new Map(cls.properties.map((p) => [p.name, p])),
      required: cls.properties.filter((p) => p.required).map((p) => p.name),
    },
  ]),
);
const CHOICE_SETS = new Map(Object.entries(CHOICES).map(([name, list]) => [name, new Set(list)]));
const ENUM_SETS = new Map(Object.entries(ENUMS).map(([name, list]) => [name, new Set(list)]));

/** The classes `readXmlOf` takes: every concrete class of the metamodel, by its XML element name. */
export const XML_CLASS_NAMES: readonly string[] = [...CLASS_INFO.keys()];

// ---------------------------------------------------------------------------------------------------------------
// The frames of the elements open while parsing.

const F = { Object: 0, Text: 1, List: 2, Choice: 3 } as const;
type FrameType = (typeof F)[keyof typeof F];

interface Frame {
  type: FrameType;
  /** The path step: the local name, with its position among same-named siblings for items. */
  step: string;
  /** The property of the enclosing object this element fills; undefined for the root and for list items. */
  prop: XmlProperty | undefined;
  // Object
  info?: ClassInfo;
  object?: JsonObject;
  // Text
  text?: string;
  // List, Choice
  items?: unknown[];
  counts?: Map<string, number>;
}

const WHITESPACE = /^[ \t\r\n]*$/;
/** Base64 characters with at most two padding characters; the length is checked apart (no backtracking). */
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

class Stop extends Error {}

/**
 * The incremental reader: `write` decoded text as it comes, then `close` for the JSON. Used by the functions
 * below; exported for callers that feed text from elsewhere.
 */
export class AasXmlReader {
  private readonly parser: sax.SAXParser;
  private readonly limits: XmlReadLimits;
  private readonly namespace: string;
  private readonly optional: ReadonlyMap<string, ReadonlySet<string>>;
  private readonly literals: ReadonlyMap<string, ReadonlySet<string>>;
  private readonly stack: Frame[] = [];
  private result: JsonObject | undefined;
  private failure: XmlReadError | undefined;
  private chars = 0;
  /** A carriage return at the end of the last chunk, which may be the first half of CR LF. */
  private pendingCR = false;
  /** Until the root element starts: the end of the prolog so far, to catch a DOCTYPE split across chunks. */
  private prologTail: string | undefined = '';

  constructor(
    private readonly rootClass: string = 'environment',
    options: XmlReadOptions = {},
  ) {
    if (!CLASS_INFO.has(rootClass)) throw new Error(`Unknown AAS class '${rootClass}'`);
    this.limits = { ...DEFAULT_XML_READ_LIMITS, ...options.limits };
    const dialect = options.dialect;
    this.namespace = dialect?.namespace ?? AAS_NAMESPACE;
    this.optional = new Map(Object.entries(dialect?.optional ?? {}).map(([cls, names]) => [cls, new Set(names)]));
    this.literals = new Map(Object.entries(dialect?.literals ?? {}).map(([type, names]) => [type, new Set(names)]));
    // strictEntities: only the five XML entities; without it sax would expand the HTML ones (&nbsp; ...) too.
    const parser = sax.parser(true, { xmlns: true, strictEntities: true, position: true } as sax.SAXOptions);
    this.parser = parser;
    parser.ondoctype = () =>
      this.fail('FORBIDDEN', 'The XML document has a DOCTYPE declaration, which is not allowed (no DTD, no entities)');
    parser.onopentag = (tag) => this.open(tag as sax.QualifiedTag);
    parser.onclosetag = () => this.close();
    parser.ontext = (text) => this.text(text);
    parser.oncdata = (text) => this.text(text);
    parser.onerror = (error) => {
      const reason = error.message.split('\n');
      const where = reason.slice(1).join(' ').trim();
      const forbidden = /entity/i.test(reason[0]);
      this.fail(forbidden ? 'FORBIDDEN' : 'NOT_WELL_FORMED', `The XML is not well-formed: ${reason[0]}${where ? ` (${where})` : ''}`);
    };
  }

  /** Feeds the next piece of the document. */
  write(chunk: string): this {
    if (this.failure) throw this.failure;
    this.chars += chunk.length;
    if (this.chars > this.limits.maxChars) this.fail('LIMIT', `The XML document is longer than ${this.limits.maxChars} characters`);
    // End-of-line handling (XML 1.0 §2.11): CR LF and a lone CR are read as LF; a CR written as &#13; stays.
    if (this.prologTail !== undefined) this.scanProlog(chunk);
    if (this.pendingCR) chunk = `\r${chunk}`;
    this.pendingCR = chunk.endsWith('\r');
    if (this.pendingCR) chunk = chunk.slice(0, -1);
    if (chunk.includes('\r')) chunk = chunk.replace(/\r\n?/g, '\n');
    this.run(() => this.parser.write(chunk));
    return this;
  }

  /**
   * Refuses a DOCTYPE as soon as it starts, before sax has read it to its end (sax reports it only then, or a
   * buffer overrun at 64 KB); sax's `ondoctype` still stands behind this. Only the prolog is scanned: up to the
   * first `<` that starts an element.
   */
  private scanProlog(chunk: string): void {
    const probe = this.prologTail + chunk;
    const element = probe.search(/<[^?!]/);
    const prolog = element < 0 ? probe : probe.slice(0, element);
    if (prolog.includes('<!DOCTYPE')) {
      this.failure = new XmlReadError('FORBIDDEN', 'The XML document has a DOCTYPE declaration, which is not allowed (no DTD, no entities)');
      throw this.failure;
    }
    this.prologTail = element < 0 ? probe.slice(-9) : undefined;
  }

  /** Ends the document; returns its JSON. */
  end(): JsonObject {
    if (this.failure) throw this.failure;
    if (this.pendingCR) this.run(() => this.parser.write('\n'));
    this.run(() => this.parser.close());
    if (!this.result) throw new XmlReadError('NOT_WELL_FORMED', 'The XML document has no root element');
    return this.result;
  }

  private run(action: () => unknown): void {
    try {
      action();
    } catch (error) {
      if (this.failure) throw this.failure;
      throw new XmlReadError('NOT_WELL_FORMED', `The XML is not well-formed: ${(error as Error).message.split('\n')[0]}`);
    }
  }

  private fail(code: XmlReadErrorCode, message: string, path?: string): never {
    this.failure ??= new XmlReadError(code, message, path);
    throw new Stop(message);
  }

  private pathOf(extra?: string): string {
    const steps = this.stack.map((f) => f.step);
    if (extra !== undefined) steps.push(extra);
    return `/${steps.join('/')}`;
  }

  private open(tag: sax.QualifiedTag): void {
    const name = tag.local;
    const parent = this.stack[this.stack.length - 1];
    if (!parent) return this.openRoot(tag);
    if (this.stack.length >= this.limits.maxDepth) {
      // The rule first and the path's last steps: the whole path of the deepest element is longer than a message.
      const steps = [...this.stack.map((f) => f.step), name];
      this.fail('LIMIT', `${ELEMENT_DEPTH_RULE} (${this.limits.maxDepth} XML elements); the document nests deeper (at …/${steps.slice(-6).join('/')})`);
    }
    if (tag.uri !== this.namespace) {
      this.fail('NAMESPACE', `The element is not in the namespace ${this.namespace} (but in '${tag.uri}')`, this.pathOf(tag.name));
    }
    this.checkAttributes(tag, name);
    switch (parent.type) {
      case F.Object: {
        const info = parent.info!;
        const prop = info.byName.get(name);
        if (!prop) this.fail('UNEXPECTED_ELEMENT', `Unexpected element (not a property of ${this.className(parent)})`, this.pathOf(name));
        if (Object.hasOwn(parent.object!, name)) this.fail('UNEXPECTED_ELEMENT', 'The element appears more than once', this.pathOf(name));
        this.stack.push(this.frameFor(prop, name));
        return;
      }
      case F.Text:
        return this.fail('INVALID_VALUE', `Expected text, found the element <${name}>`, this.pathOf(name));
      case F.List:
      case F.Choice: {
        const prop = parent.prop!;
        const counts = parent.counts!;
        const position = (counts.get(name) ?? 0) + 1;
        counts.set(name, position);
        const step = `${name}[${position}]`;
        let cls: string;
        if (prop.kind === 'list') {
          if (name !== prop.item) this.fail('UNEXPECTED_ELEMENT', `Unexpected element (${prop.name} holds <${prop.item}> elements)`, this.pathOf(step));
          cls = prop.type!;
        } else {
          if (!CHOICE_SETS.get(prop.type!)!.has(name)) {
            this.fail('UNEXPECTED_ELEMENT', `Unexpected element (${prop.name} holds ${CHOICES[prop.type!].map((c) => `<${c}>`).join(', ')})`, this.pathOf(step));
          }
          if (prop.kind === 'choice' && parent.items!.length > 0) {
            this.fail('UNEXPECTED_ELEMENT', `${prop.name} holds exactly one element`, this.pathOf(step));
          }
          cls = name;
        }
        this.stack.push(this.objectFrame(cls, step, undefined));
        return;
      }
    }
  }

  private openRoot(tag: sax.QualifiedTag): void {
    if (tag.uri === AAS_V2_NAMESPACE) {
      this.fail('AAS_V2', `The document is in the AAS V2.0 namespace ${AAS_V2_NAMESPACE}, not in ${this.namespace}`, `/${tag.local}`);
    }
    if (tag.uri !== this.namespace) {
      this.fail('NAMESPACE', `The root element is not in the namespace ${this.namespace} (but in '${tag.uri}')`, `/${tag.name}`);
    }
    if (tag.local !== this.rootClass) {
      this.fail('UNEXPECTED_ELEMENT', `Expected the root element <${this.rootClass}>`, `/${tag.local}`);
    }
    this.checkAttributes(tag, tag.local);
    this.stack.push(this.objectFrame(this.rootClass, tag.local, undefined));
  }

  /** The AAS schema has no attributes; namespace declarations and xsi:schemaLocation and the like are fine. */
  private checkAttributes(tag: sax.QualifiedTag, step: string): void {
    for (const attribute of Object.values(tag.attributes)) {
      if (attribute.prefix === 'xmlns' || attribute.name === 'xmlns' || attribute.uri === XMLNS_NAMESPACE || attribute.uri === XSI_NAMESPACE) continue;
      this.fail('UNEXPECTED_ELEMENT', `Unexpected attribute '${attribute.name}'`, this.pathOf(step));
    }
  }

  private className(frame: Frame): string {
    return frame.info!.cls.modelType ?? frame.step.replace(/\[\d+\]$/, '');
  }

  private objectFrame(cls: string, step: string, prop: XmlProperty | undefined): Frame {
    return { type: F.Object, step, prop, info: CLASS_INFO.get(cls)!, object: {} };
  }

  private frameFor(prop: XmlProperty, name: string): Frame {
    switch (prop.kind) {
      case 'class':
        return this.objectFrame(prop.type!, name, prop);
      case 'list':
      case 'choiceList':
        return { type: F.List, step: name, prop, items: [], counts: new Map() };
      case 'choice':
        return { type: F.Choice, step: name, prop, items: [], counts: new Map() };
      default:
        return { type: F.Text, step: name, prop, text: '' };
    }
  }

  private text(text: string): void {
    const frame = this.stack[this.stack.length - 1];
    if (!frame) return; // whitespace around the root element; sax refuses anything else there
    if (frame.type === F.Text) {
      if (frame.text!.length + text.length > this.limits.maxTextChars) {
        this.fail('LIMIT', `The text of the element is longer than ${this.limits.maxTextChars} characters`, this.pathOf());
      }
      frame.text += text;
    } else if (!WHITESPACE.test(text)) {
      this.fail('INVALID_VALUE', `Unexpected text '${text.trim().slice(0, 40)}' (the element holds elements, not text)`, this.pathOf());
    }
  }

  private close(): void {
    const frame = this.stack[this.stack.length - 1];
    let value: unknown;
    switch (frame.type) {
      case F.Object: {
        const { info, object } = frame;
        const optional = this.optional.get(info!.name);
        for (const name of info!.required) {
          if (!Object.hasOwn(object!, name) && !optional?.has(name)) this.fail('MISSING_ELEMENT', `The required element <${name}> is missing`, this.pathOf());
        }
        if (info!.cls.modelType) object!.modelType = info!.cls.modelType;
        value = object;
        break;
      }
      case F.Text:
        value = this.scalar(frame);
        break;
      case F.List:
        value = frame.items;
        break;
      case F.Choice:
        if (frame.items!.length === 0) {
          this.fail('MISSING_ELEMENT', `Expected one of ${CHOICES[frame.prop!.type!].map((c) => `<${c}>`).join(', ')}`, this.pathOf());
        }
        value = frame.items![0];
        break;
    }
    this.stack.pop();
    const parent = this.stack[this.stack.length - 1];
    if (!parent) this.result = value as JsonObject;
    else if (parent.type === F.Object) parent.object![frame.prop!.name] = value;
    else parent.items!.push(value);
  }

  private scalar(frame: Frame): unknown {
    const prop = frame.prop!;
    const text = frame.text!;
    switch (prop.kind) {
      case 'boolean': {
        const trimmed = text.trim();
        if (trimmed === 'true' || trimmed === '1') return true;
        if (trimmed === 'false' || trimmed === '0') return false;
        return this.fail('INVALID_VALUE', `Expected a boolean (true or false), got '${text.slice(0, 40)}'`, this.pathOf());
      }
      case 'enum':
        if (!ENUM_SETS.get(prop.type!)!.has(text) && !this.literals.get(prop.type!)?.has(text)) {
          this.fail('INVALID_VALUE', `'${text.slice(0, 60)}' is not a literal of ${prop.type}`, this.pathOf());
        }
        return text;
      case 'base64': {
        const compact = text.replace(/[ \t\n\r]+/g, '');
        if (!BASE64.test(compact) || compact.length % 4 !== 0) this.fail('INVALID_VALUE', 'Expected base64-encoded content', this.pathOf());
        return compact;
      }
      default:
        return text;
    }
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Decoding bytes.

const DECLARED_ENCODING = /^<\?xml[^>]*?encoding\s*=\s*["']([A-Za-z0-9._-]+)["']/;

/** A streaming decoder for a document that starts with `head`: by byte order mark, else by the XML declaration. */
function decoderFor(head: Uint8Array): TextDecoder {
  let encoding = 'utf-8';
  if (head[0] === 0xff && head[1] === 0xfe) encoding = 'utf-16le';
  else if (head[0] === 0xfe && head[1] === 0xff) encoding = 'utf-16be';
  else {
    const declared = DECLARED_ENCODING.exec(Buffer.from(head.subarray(0, 200)).toString('latin1'))?.[1]?.toLowerCase();
    if (declared && declared !== 'utf8') encoding = declared;
  }
  try {
    // fatal: bytes that are not of the encoding are an error, not silently U+FFFD; the BOM is dropped.
    return new TextDecoder(encoding, { fatal: true });
  } catch {
    throw new XmlReadError('ENCODING', `The XML declares the encoding '${encoding}', which is not supported`);
  }
}

function decodeAll(bytes: Uint8Array): string {
  try {
    return decoderFor(bytes).decode(bytes);
  } catch (error) {
    if (error instanceof XmlReadError) throw error;
    throw new XmlReadError('ENCODING', `The XML is not correctly encoded: ${(error as Error).message}`);
  }
}

// ---------------------------------------------------------------------------------------------------------------
// The public functions.

/** Reads an AAS V3.0 XML environment into its official JSON serialization; throws `XmlReadError`. */
export function readXmlEnvironment(xml: string | Uint8Array, options?: XmlReadOptions): JsonObject {
  return readXmlOf('environment', xml, options);
}

/**
 * Reads an AAS V3.0 XML document whose root element is of class `cls` (its XML name: `submodel`,
 * `assetAdministrationShell`, `conceptDescription`, `property`, `eventPayload`, ...; see `XML_CLASS_NAMES`).
 */
export function readXmlOf(cls: string, xml: string | Uint8Array, options?: XmlReadOptions): JsonObject {
  const text = typeof xml === 'string' ? xml.replace(/^\uFEFF/, '') : decodeAll(xml);
  const limits = { ...DEFAULT_XML_READ_LIMITS, ...options?.limits };
  if (text.length > limits.maxChars) throw new XmlReadError('LIMIT', `The XML document is longer than ${limits.maxChars} characters`);
  return new AasXmlReader(cls, options).write(text).end();
}

/** `readXmlOf` over a stream of bytes (a request body, a package part): nothing but the JSON is held whole. */
export async function readXmlStreamOf(
  cls: string,
  source: AsyncIterable<Uint8Array | string>,
  options?: XmlReadOptions,
): Promise<JsonObject> {
  const reader = new AasXmlReader(cls, options);
  let decoder: TextDecoder | undefined;
  let strings = false;
  let pending: Uint8Array[] = [];
  let pendingBytes = 0;
  const feed = (bytes: Uint8Array, last: boolean) => {
    let text: string;
    try {
      text = decoder!.decode(bytes, { stream: !last });
    } catch (error) {
      throw new XmlReadError('ENCODING', `The XML is not correctly encoded: ${(error as Error).message}`);
    }
    if (text) reader.write(text);
  };
  for await (const chunk of source) {
    if (typeof chunk === 'string') {
      if (decoder || pendingBytes) throw new TypeError('readXmlStreamOf: a stream of bytes or of strings, not both');
      reader.write(strings ? chunk : chunk.replace(/^\uFEFF/, ''));
      strings = true;
    } else if (strings) {
      throw new TypeError('readXmlStreamOf: a stream of bytes or of strings, not both');
    } else if (decoder) {
      feed(chunk, false);
    } else {
      // The encoding is known from the first bytes: the byte order mark or the XML declaration.
      pending.push(chunk);
      pendingBytes += chunk.length;
      if (pendingBytes < 200) continue;
      const head = Buffer.concat(pending);
      pending = [];
      decoder = decoderFor(head);
      feed(head, false);
    }
  }
  if (!decoder && pendingBytes) {
    const head = Buffer.concat(pending);
    decoder = decoderFor(head);
    feed(head, true);
  } else if (decoder) {
    feed(new Uint8Array(0), true);
  }
  return reader.end();
}

/** `readXmlEnvironment` over a stream of bytes. */
export function readXmlEnvironmentStream(source: AsyncIterable<Uint8Array | string>, options?: XmlReadOptions): Promise<JsonObject> {
  return readXmlStreamOf('environment', source, options);
}
