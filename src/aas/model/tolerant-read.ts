import { jsonization } from '@aas-core-works/aas-core3.0-typescript';
import { elementsNestDeeperThan, nestsDeeperThan } from '../../common/json-depth';
import { DOCUMENT_PARSERS, type DocumentKind, type ErrorRule, type JsonObject } from './parse';

/**
 * Tolerant reading, for imports of packages from other tools: a document that cannot be read as the metamodel
 * loses the smallest optional part that makes it readable (an item of an optional list: a submodel element, an
 * embedded data specification, an extension, a qualifier, a langString, ...; or an optional attribute), and says
 * so. A Reference with a bad key goes whole (its keys are what it is). What a document cannot do without (its id,
 * a required attribute of its own) makes it unreadable: `UnreadableDocument`.
 *
 * The metamodel library reports the first problem it meets, with the path to it and the JSON objects and arrays on
 * the way; each round drops what that path points at, or the nearest enclosing part that may go. Dropping a
 * required attribute makes its owner unreadable in the next round, which then goes instead (one report, with the
 * first reason). Child elements are repaired one by one before their container, so that a large submodel is read
 * about twice, not once per problem.
 */

/** A part that was dropped: where it was in the document as sent (`$.submodelElements[5].qualifiers[0]`), what, why. */
export interface DroppedPart {
  path: string;
  what: string;
  why: string;
}

/** The document cannot be read even with parts dropped: `path` (in the document as sent) and the reason. */
export class UnreadableDocument extends Error {
  constructor(
    readonly path: string,
    readonly reason: string,
  ) {
    super(`${path}: ${reason}`);
  }
}

/** At most this many parts are dropped from one container's own attributes; past that it cannot be read. */
const MAX_DROPS_PER_PART = 1000;

type Parse = (json: jsonization.JsonValue) => { error: jsonization.DeserializationError | null };

const PARSERS: Record<DocumentKind, Parse> = {
  AssetAdministrationShell: jsonization.assetAdministrationShellFromJsonable,
  Submodel: jsonization.submodelFromJsonable,
  ConceptDescription: jsonization.conceptDescriptionFromJsonable,
};

interface ChildList {
  key: string;
  parse: Parse;
}

const SUBMODEL_ELEMENTS: ChildList = { key: 'submodelElements', parse: jsonization.submodelElementFromJsonable };

/** The properties holding an element's child elements, and how a child is read (annotations are data elements only). */
const CHILD_LISTS: Record<string, ChildList> = {
  SubmodelElementCollection: { key: 'value', parse: jsonization.submodelElementFromJsonable },
  SubmodelElementList: { key: 'value', parse: jsonization.submodelElementFromJsonable },
  Entity: { key: 'statements', parse: jsonization.submodelElementFromJsonable },
  AnnotatedRelationshipElement: { key: 'annotations', parse: jsonization.dataElementFromJsonable },
};

/** Where an element's child elements are, and how one is read; undefined for an element without any. */
function childListOf(element: unknown): ChildList | undefined {
  if (element === null || typeof element !== 'object' || Array.isArray(element)) return undefined;
  const modelType = (element as JsonObject).modelType;
  return typeof modelType === 'string' && Object.hasOwn(CHILD_LISTS, modelType) ? CHILD_LISTS[modelType] : undefined;
}

/** Lists whose items are not dropped one by one: their owner goes instead (a Reference is its keys). */
const WHOLE_LISTS = new Set(['keys']);

/** The library's message for a required attribute missing, and the attribute's name. */
const REQUIRED = /^The required property '?([A-Za-z]+)'? is missing$/;

interface Problem {
  segments: jsonization.Segment[];
  message: string;
}

/** What was dropped, with what it needs to be reported and superseded. */
interface DropRecord {
  part: DroppedPart;
  /** The JSON objects and arrays it was inside: a later drop of one of them supersedes this report. */
  inside: Set<unknown>;
}

class Repair {
  /** Current index -> index in the document as sent, for arrays items were dropped from. */
  private readonly positions = new WeakMap<unknown[], number[]>();
  /** Attributes dropped, by owner and name: the owner's "required property missing" takes their reason. */
  private readonly droppedAttributes = new WeakMap<object, Map<string, { relative: string; message: string }>>();
  readonly records: DropRecord[] = [];

  originalIndex(list: unknown[], index: number): number {
    return this.positions.get(list)?.[index] ?? index;
  }

  remove(list: unknown[], index: number): void {
    let positions = this.positions.get(list);
    if (!positions) this.positions.set(list, (positions = list.map((_, i) => i)));
    positions.splice(index, 1);
    list.splice(index, 1);
  }

  /** The path of `segments` from a part at `prefix`, with the positions of the document as sent. */
  render(prefix: string, segments: jsonization.Segment[]): string {
    let path = prefix;
    for (const segment of segments) {
      path += segment instanceof jsonization.IndexSegment ? `[${this.originalIndex(segment.container as unknown[], segment.index)}]` : `.${segment.name}`;
    }
    return path;
  }

  record(part: DroppedPart, inside: unknown[], value: unknown): void {
    // What was dropped before inside what goes now is said by this report.
    if (value !== null && typeof value === 'object') {
      for (let i = this.records.length - 1; i >= 0; i--) if (this.records[i].inside.has(value)) this.records.splice(i, 1);
    }
    this.records.push({ part, inside: new Set(inside) });
  }

  /**
   * Reads `node` (at `prefix`, inside `outer`); when it cannot be read, drops parts of it until it can. `children`:
   * where its child elements are, and how one is read. Throws `UnreadableDocument` (at `prefix`) when nothing that
   * may go makes it readable.
   */
  part(node: unknown, parse: Parse, prefix: string, outer: unknown[], children?: ChildList): void {
    const first = problemOf(parse, node);
    if (!first) return;
    const inside = [...outer, node];
    const object = node as JsonObject;
    const list = children && Array.isArray(object[children.key]) ? (object[children.key] as unknown[]) : undefined;
    if (!list) return this.ownAttributes(node, parse, prefix, inside, first);
    // Children first, one by one, then the container without them: each read costs what it reads.
    const listPrefix = `${prefix}.${children!.key}`;
    for (let i = 0; i < list.length; ) {
      const child = list[i];
      const at = `${listPrefix}[${this.originalIndex(list, i)}]`;
      try {
        this.part(child, children!.parse, at, [...inside, list], childListOf(child));
        i++;
      } catch (err) {
        if (!(err instanceof UnreadableDocument)) throw err;
        this.remove(list, i);
        this.record({ path: at, what: describeItem(children!.key, child, object), why: err.reason }, [...inside, list], child);
      }
    }
    delete object[children!.key];
    try {
      this.ownAttributes(node, parse, prefix, inside, problemOf(parse, node));
    } finally {
      if (list.length) object[children!.key] = list;
    }
  }

  /** Drops what `problem` (and each next one) points at, or the nearest part around it that may go. */
  private ownAttributes(node: unknown, parse: Parse, prefix: string, inside: unknown[], problem: Problem | undefined): void {
    for (let drops = 0; problem; drops++) {
      if (drops >= MAX_DROPS_PER_PART) throw new UnreadableDocument(prefix, `more than ${MAX_DROPS_PER_PART} of its parts cannot be read`);
      const { segments } = problem;
      const reason = this.reasonOf(problem, node);
      let level = segments.length;
      // A Reference is its keys: the reference goes, not a key.
      while (level >= 2 && segments[level - 1] instanceof jsonization.IndexSegment && WHOLE_LISTS.has((segments[level - 2] as jsonization.PropertySegment).name)) level -= 2;
      // Every path is rendered before anything is removed: positions are those of the document as sent.
      const relative = (from: number) => this.render('', segments.slice(from)) + reason.relative;
      if (level === 0) throw new UnreadableDocument(prefix, withPath(relative(0), reason.message));
      const at = this.render(prefix, segments.slice(0, level));
      const why = withPath(relative(level), reason.message);
      const around = [...inside, ...segments.slice(0, level).map((s) => (s instanceof jsonization.IndexSegment ? s.container : s.instance))];
      const segment = segments[level - 1];
      if (segment instanceof jsonization.IndexSegment) {
        const list = segment.container as unknown[];
        const item = list[segment.index];
        const owning = segments[level - 2] as jsonization.PropertySegment;
        const fromList = relative(level - 1);
        this.remove(list, segment.index);
        // An emptied list goes too (the metamodel has no empty lists); where it is required, its owner goes next.
        if (!list.length) {
          delete (owning.instance as JsonObject)[owning.name];
          this.attributeDropped(owning.instance, owning.name, fromList, reason.message);
        }
        this.record({ path: at, what: describeItem(owning.name, item, owning.instance as JsonObject), why }, around, item);
      } else {
        const owner = segment.instance as JsonObject;
        const value = owner[segment.name];
        delete owner[segment.name];
        this.attributeDropped(owner, segment.name, relative(level), reason.message);
        this.record({ path: at, what: segment.name, why }, around, value);
      }
      problem = problemOf(parse, node);
    }
  }

  private attributeDropped(owner: object, name: string, relative: string, message: string): void {
    let names = this.droppedAttributes.get(owner);
    if (!names) this.droppedAttributes.set(owner, (names = new Map()));
    names.set(name, { relative, message });
  }

  /** The reason of a problem; a required attribute missing because it was dropped has the reason it was dropped for. */
  private reasonOf(problem: Problem, root: unknown): { relative: string; message: string } {
    const required = REQUIRED.exec(problem.message);
    if (required) {
      const owner = problem.segments.length ? nodeAt(problem.segments) : root;
      const earlier = owner !== null && typeof owner === 'object' ? this.droppedAttributes.get(owner)?.get(required[1]) : undefined;
      if (earlier) return { relative: `.${required[1]}${earlier.relative}`, message: earlier.message };
    }
    return { relative: '', message: problem.message };
  }
}

/** The problem `parse` finds in `node`, or undefined when it reads. */
function problemOf(parse: Parse, node: unknown): Problem | undefined {
  let error: jsonization.DeserializationError | null;
  try {
    error = parse(node as jsonization.JsonValue).error;
  } catch (err) {
    // The library throws instead of reporting on some malformed values (a Blob whose base64 is cut short).
    return { segments: [], message: (err as Error).message };
  }
  return error ? { segments: error.path.segments(), message: error.message } : undefined;
}

/** The JSON value a path of at least one segment reaches. */
function nodeAt(segments: jsonization.Segment[]): unknown {
  const last = segments[segments.length - 1];
  return last instanceof jsonization.IndexSegment ? (last.container as unknown[])[last.index] : (last.instance as JsonObject)[last.name];
}

const withPath = (relative: string, message: string) => (relative ? `${relative}: ${message}` : message);

const ELEMENT_LISTS = new Set(['submodelElements', 'statements', 'annotations']);
const LANG_STRING_LISTS = new Set(['description', 'displayName', 'preferredName', 'shortName', 'definition']);

/** What an item of the list `list` of `owner` is, for the report: `the Property 'Temperature'`, `the extension 'x'`. */
function describeItem(list: string, item: unknown, owner: JsonObject): string {
  const object = item !== null && typeof item === 'object' && !Array.isArray(item) ? (item as JsonObject) : {};
  const quoted = (value: unknown) => (typeof value === 'string' ? ` '${value}'` : '');
  const element = (e: JsonObject) => `the ${typeof e.modelType === 'string' ? e.modelType : 'submodel element'}${quoted(e.idShort)}`;
  if (ELEMENT_LISTS.has(list) || (list === 'value' && (owner.modelType === 'SubmodelElementCollection' || owner.modelType === 'SubmodelElementList'))) return element(object);
  if (list === 'value' && owner.modelType === 'MultiLanguageProperty') return `the value text${quoted(object.language)}`;
  if (LANG_STRING_LISTS.has(list)) return `the ${list} text${quoted(object.language)}`;
  if (list === 'inputVariables' || list === 'outputVariables' || list === 'inoutputVariables') {
    const value = object.value !== null && typeof object.value === 'object' ? (object.value as JsonObject) : {};
    return `the operation variable${quoted(value.idShort)}`;
  }
  switch (list) {
    case 'embeddedDataSpecifications':
      return 'the embedded data specification';
    case 'extensions':
      return `the extension${quoted(object.name)}`;
    case 'qualifiers':
      return `the qualifier${quoted(object.type)}`;
    case 'specificAssetIds':
      return `the specific asset id${quoted(object.name)}`;
    case 'valueReferencePairs':
      return `the value reference pair${quoted(object.value)}`;
    case 'submodels':
      return 'the submodel reference';
    case 'supplementalSemanticIds':
      return 'the supplemental semantic id';
    default:
      return `an item of ${list}`;
  }
}

/**
 * `json` (a document of `kind`, changed in place) with what cannot be read dropped; the parts dropped (child
 * elements' before their container's own). Nothing when it reads as it is. `UnreadableDocument` when it cannot be read even so.
 */
export function dropUnreadableParts(kind: DocumentKind, json: JsonObject): DroppedPart[] {
  const repair = new Repair();
  repair.part(json, PARSERS[kind], '$', [], kind === 'Submodel' ? SUBMODEL_ELEMENTS : undefined);
  return repair.records.map((r) => r.part);
}

/**
 * `parseVerified` of `kind`, lenient (`warnings`), and tolerant: when the document cannot be read, the parts that
 * make it unreadable are dropped (`dropUnreadableParts`, which changes `json`) and it is read again. The verified
 * document and what was dropped; `UnreadableDocument` when it cannot be read even so, the parser's 400 when the
 * problem is not one of reading (a document nested too deep, JSON or submodel elements).
 */
export function readTolerantly(kind: DocumentKind, json: unknown, warnings: string[], rule?: ErrorRule): { doc: JsonObject; dropped: DroppedPart[] } {
  try {
    return { doc: DOCUMENT_PARSERS[kind](json, warnings, rule), dropped: [] };
  } catch (err) {
    if (json === null || typeof json !== 'object' || Array.isArray(json) || nestsDeeperThan(json) || elementsNestDeeperThan(json)) throw err;
    const dropped = dropUnreadableParts(kind, json as JsonObject);
    if (!dropped.length) throw err;
    return { doc: DOCUMENT_PARSERS[kind](json, warnings, rule), dropped };
  }
}
