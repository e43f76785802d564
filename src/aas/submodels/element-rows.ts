import { JsonObject } from '../model/parse';
import { childrenOf } from './element-tree';

/**
 * Submodel elements as rows of their own (table `submodel_elements`, migration 1764600000000-ElementRows).
 *
 * A submodel is stored as its head (the document without `submodelElements`) in `submodels.doc`, and each of
 * its elements, at every depth, as one row: the element's JSON without its child elements (`json`), where it is
 * (`ord`, its position at each level, so that ordering by `ord` is the document's depth-first order; `path`, its
 * idShortPath), and the columns queries look up (`id_short`, `model_type`, `semantic_key`, the value as text and
 * typed). Child elements are a collection's and a list's `value`, an entity's `statements` and an annotated
 * relationship's `annotations` (`childrenOf`); an Operation's variables stay inside its JSON.
 *
 * A container keeps its children key in `json` only when the list is empty (`"value": []`): rows then never
 * have to say whether an absent list was absent or empty.
 *
 * The whole document is the head plus the rows in `ord` order: `assemble` builds the object; PostgreSQL builds
 * the JSON text itself (`elementsTextSql` in store/element-rows-sql.ts).
 */

export interface ElementRow {
  /** Position at each level, from the submodel down. */
  ord: number[];
  /** The idShortPath: `a.b[2].c`. */
  path: string;
  idShort: string | null;
  modelType: string;
  /** The value of the semanticId's first key: what the query language compares a Reference with. */
  semanticKey: string | null;
  /** The element's `value` when it is a string (Property, File, Blob). */
  value: string | null;
  /** The element without its child elements. */
  json: JsonObject;
}

/** The key of the child elements, when `node` holds any (a non-empty list). */
function childKey(node: JsonObject): string | undefined {
  const children = childrenOf(node);
  if (!children) return undefined;
  const list = node[children.key];
  return Array.isArray(list) && list.length > 0 ? children.key : undefined;
}

/** The element without its child elements (the same object when it has none). */
function withoutChildren(element: JsonObject): JsonObject {
  const key = childKey(element);
  if (!key) return element;
  const { [key]: _children, ...rest } = element;
  return rest;
}

function semanticKeyOf(element: JsonObject): string | null {
  const keys = (element.semanticId as { keys?: { value?: unknown }[] } | undefined)?.keys;
  const value = Array.isArray(keys) ? keys[0]?.value : undefined;
  return typeof value === 'string' ? value : null;
}

/** The rows of `element` and its descendants, the element at `ord` and `path`, appended to `out`. */
export function subtreeRows(element: JsonObject, ord: number[], path: string, out: ElementRow[] = []): ElementRow[] {
  out.push({
    ord,
    path,
    idShort: typeof element.idShort === 'string' ? element.idShort : null,
    modelType: element.modelType as string,
    semanticKey: semanticKeyOf(element),
    value: typeof element.value === 'string' ? element.value : null,
    json: withoutChildren(element),
  });
  const key = childKey(element);
  if (key) {
    const byIndex = childrenOf(element)!.byIndex;
    (element[key] as JsonObject[]).forEach((child, i) => {
      subtreeRows(child, [...ord, i], byIndex ? `${path}[${i}]` : `${path}.${child.idShort as string}`, out);
    });
  }
  return out;
}

/** A submodel split into its head (stored in `submodels.doc`) and the rows of its elements. */
export function splitSubmodel(doc: JsonObject): { head: JsonObject; rows: ElementRow[] } {
  const elements = doc.submodelElements;
  if (!Array.isArray(elements) || elements.length === 0) return { head: doc, rows: [] };
  const { submodelElements: _elements, ...head } = doc;
  const rows: ElementRow[] = [];
  (elements as JsonObject[]).forEach((element, i) => subtreeRows(element, [i], element.idShort as string, rows));
  return { head, rows };
}

/**
 * `splitSubmodel`, with a turn of the event loop after each top-level element that brings the rows made since the
 * last turn to `perTurn`: a submodel of 100,000 elements is split in steps of some milliseconds, not in one call
 * that holds the loop for a tenth of a second.
 */
export async function splitSubmodelInTurns(doc: JsonObject, perTurn: number): Promise<{ head: JsonObject; rows: ElementRow[] }> {
  const elements = doc.submodelElements;
  if (!Array.isArray(elements) || elements.length === 0) return { head: doc, rows: [] };
  const { submodelElements: _elements, ...head } = doc;
  const rows: ElementRow[] = [];
  let turnAt = 0;
  for (let i = 0; i < elements.length; i++) {
    const element = elements[i] as JsonObject;
    subtreeRows(element, [i], element.idShort as string, rows);
    if (rows.length - turnAt >= perTurn && i < elements.length - 1) {
      turnAt = rows.length;
      await nextTurn();
    }
  }
  return { head, rows };
}

/** Whether the submodel `doc` has more than `max` elements, at every depth (counted without walking further). */
export function hasMoreElementsThan(doc: JsonObject, max: number): boolean {
  let count = 0;
  const stack: unknown[] = [doc.submodelElements];
  while (stack.length) {
    const list = stack.pop();
    if (!Array.isArray(list)) continue;
    count += list.length;
    if (count > max) return true;
    for (const element of list as JsonObject[]) {
      const key = element !== null && typeof element === 'object' ? childKey(element) : undefined;
      if (key) stack.push(element[key]);
    }
  }
  return false;
}

/** A stored row as read back: its depth (the length of `ord`), its modelType and its JSON, parsed or as text. */
export interface StoredRow<J> {
  depth: number;
  type: string;
  json: J;
}

/**
 * The object of `root` (a submodel head, depth 0, or an element at `rootDepth`) with `rows`, its descendants in
 * `ord` order, put back as its child elements. Parsed rows are used as they are (each read is a fresh object).
 */
export function assemble(root: JsonObject, rows: StoredRow<JsonObject>[], rootDepth = 0): JsonObject {
  const stack: { node: JsonObject; depth: number }[] = [{ node: root, depth: rootDepth }];
  for (const row of rows) {
    while (stack[stack.length - 1].depth >= row.depth) stack.pop();
    const parent = stack[stack.length - 1].node;
    const key = childrenOf(parent)!.key;
    ((parent[key] ??= []) as JsonObject[]).push(row.json);
    stack.push({ node: row.json, depth: row.depth });
  }
  return root;
}

/**
 * JSON text with object members in sorted order, for comparing two rows' JSON whatever order their members came
 * in (a parsed jsonb column and a verified document order them differently).
 */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.keys(value as object)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonicalJson((value as JsonObject)[key])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value);
}

/** The rows of a subtree as they are before a change: `ord` -> path and canonical JSON. */
export type RowSignatures = Map<string, string>;

const ordKey = (row: Pick<ElementRow, 'ord'>) => row.ord.join(',');
const signature = (row: Pick<ElementRow, 'path' | 'json'>) => `${row.path}\u0000${canonicalJson(row.json)}`;

/** Rows between two turns of the event loop while signatures are computed: a large submodel takes seconds. */
const ROWS_PER_TURN = 1_000;
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * The signatures of `rows`, taken before a change is made: a change may edit the elements in place, and the rows
 * share their objects.
 */
export async function signaturesOf(rows: Pick<ElementRow, 'ord' | 'path' | 'json'>[]): Promise<RowSignatures> {
  const signatures: RowSignatures = new Map();
  for (let i = 0; i < rows.length; i++) {
    if (i % ROWS_PER_TURN === ROWS_PER_TURN - 1) await nextTurn();
    signatures.set(ordKey(rows[i]), signature(rows[i]));
  }
  return signatures;
}

/** What changes from the rows `before` to `after`: the rows to delete (by `ord`) and the rows to insert. */
export async function rowChanges(before: RowSignatures, after: ElementRow[]): Promise<{ remove: number[][]; add: ElementRow[] }> {
  if (!before.size) return { remove: [], add: after };
  const kept = new Set<string>();
  const add: ElementRow[] = [];
  for (let i = 0; i < after.length; i++) {
    if (i % ROWS_PER_TURN === ROWS_PER_TURN - 1) await nextTurn();
    const row = after[i];
    const key = ordKey(row);
    if (before.get(key) === signature(row)) kept.add(key);
    else add.push(row);
  }
  const remove = [...before.keys()].filter((key) => !kept.has(key)).map((key) => key.split(',').map(Number));
  return { remove, add };
}
