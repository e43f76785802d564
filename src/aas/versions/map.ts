import type { JsonObject } from '../model/parse';
import { leftOutInV30, mapV31Shell, mapV31Submodel, type V31MappingOptions } from '../model/v31-mapping';
import { CHILDREN, OPERATION_VARIABLES, isObject, neededVersion } from './needed';

/**
 * `identifiable` as a V3.0 client sees it: what V3.0 does not have mapped by the import rules of V3.1
 * (docs/aas-versions.md): `Role` read as `NotApplicable`, an Entity without `entityType` given one, a File or Blob
 * without `contentType` given one, a relationship without an end left out. `mapped` says what was mapped, where
 * (empty when nothing was). `identifiable` itself is left as it is. Constraints V3.1 relaxed are not mapped: the
 * content is served as it is (V3.0 reads it as a document with those violations).
 */
export function mapDownToV30(identifiable: JsonObject, options: V31MappingOptions = {}): { json: JsonObject; mapped: string[] } {
  const mapped: string[] = [];
  if (identifiable.modelType !== 'AssetAdministrationShell' && identifiable.modelType !== 'Submodel') return { json: identifiable, mapped };
  // What is mapped is always V3.1 content: a V3.0 document (most) is not copied. A walk costs a fraction of a copy.
  if (neededVersion(identifiable) === '3.0') return { json: identifiable, mapped };
  const json = structuredClone(identifiable);
  if (json.modelType === 'AssetAdministrationShell') mapV31Shell(json, '$', mapped);
  else mapV31Submodel(json, '$', mapped, options);
  return mapped.length ? { json, mapped } : { json: identifiable, mapped };
}

/**
 * One submodel element as a V3.0 client sees it (`mapDownToV30`'s rules): `json` null where V3.0 has no such element
 * (a relationship without an end). `element` itself is left as it is.
 */
export function mapElementDownToV30(element: JsonObject): { json: JsonObject | null; mapped: string[] } {
  const mapped: string[] = [];
  if (neededVersion(element) === '3.0') return { json: element, mapped };
  const holder: JsonObject = { submodelElements: [structuredClone(element)] };
  mapV31Submodel(holder, '$', mapped);
  const json = (holder.submodelElements as JsonObject[] | undefined)?.[0] ?? null;
  return mapped.length ? { json, mapped } : { json: element, mapped };
}

/** Whether two JSON values are equal in meaning (objects compared by key, not by key order). */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((item, i) => sameJson(item, b[i]));
  if (!isObject(a) || !isObject(b)) return false;
  const keys = Object.keys(a).filter((k) => a[k] !== undefined);
  if (keys.length !== Object.keys(b).filter((k) => b[k] !== undefined).length) return false;
  return keys.every((k) => Object.hasOwn(b, k) && sameJson(a[k], b[k]));
}

/** The lists of child elements `node` holds, by property; Operation variables hold theirs under `value`. */
function childLists(node: JsonObject): { key: string; wrapped: boolean }[] {
  const type = node.modelType;
  if (type === 'Submodel') return [{ key: 'submodelElements', wrapped: false }];
  if (type === 'Operation') return OPERATION_VARIABLES.map((key) => ({ key, wrapped: true }));
  const key = typeof type === 'string' ? CHILDREN[type] : undefined;
  return key ? [{ key, wrapped: false }] : [];
}

const elementOf = (item: unknown, wrapped: boolean): unknown => (wrapped ? (isObject(item) ? item.value : undefined) : item);
const idShortOf = (item: unknown, wrapped: boolean): string | undefined => {
  const element = elementOf(item, wrapped);
  return isObject(element) && typeof element.idShort === 'string' ? element.idShort : undefined;
};

/**
 * A V3.0 write (`incoming`, V3.0 JSON) of an identifiable stored as `stored` (which may need V3.1), merged so that
 * what the write did not touch keeps its stored V3.1 form. "Did not touch", precisely:
 * - a part of `stored` (the identifiable, an element, any object in them such as the asset information) whose V3.0
 *   form (`mapDownToV30`) equals the written part at the same place is kept as stored, whole;
 * - otherwise each of its properties is judged the same way: an unchanged V3.0 form keeps the stored value (so an
 *   Entity written back with the `entityType` the mapping gave it keeps having none), a changed one is the written
 *   value;
 * - child elements are matched by idShort (the items of a list and of Operation variables by position among those
 *   V3.0 sees; Operation variables by the idShort of their element);
 * - an element V3.0 does not see at all (a relationship without an end) stays where it was in its container, as
 *   long as the write keeps that container and does not put an element with the same idShort in it. Removing the
 *   container removes it; a V3.1 write is the only way to change it.
 * Returns `incoming` itself when `stored` needs nothing of V3.1.
 */
export function mergeV30Write(stored: JsonObject, incoming: JsonObject): JsonObject {
  if (neededVersion(stored) === '3.0') return incoming;
  return mergeNode(stored, mapDownToV30(stored).json, incoming) as JsonObject;
}

/**
 * `mergeV30Write` for one submodel element: a V3.0 write of the element stored as `stored`. Returns `incoming`
 * itself when `stored` has nothing a V3.0 reader gets mapped.
 */
export function mergeV30Element(stored: JsonObject, incoming: JsonObject): JsonObject {
  const { json } = mapElementDownToV30(stored);
  return json === stored || json === null ? incoming : (mergeNode(stored, json, incoming) as JsonObject);
}

/** `incoming` with what is unchanged against `mapped` (the V3.0 form of `stored`) taken from `stored`. */
function mergeNode(stored: unknown, mapped: unknown, incoming: unknown): unknown {
  if (sameJson(mapped, incoming)) return stored;
  if (!isObject(stored) || !isObject(mapped) || !isObject(incoming) || stored.modelType !== incoming.modelType) return incoming;
  const lists = childLists(stored);
  const result: JsonObject = {};
  for (const [key, value] of Object.entries(incoming)) {
    if (lists.some((list) => list.key === key)) continue;
    if (!Object.hasOwn(mapped, key)) result[key] = value;
    else if (sameJson(mapped[key], value)) {
      if (Object.hasOwn(stored, key)) result[key] = stored[key];
    } else result[key] = mergeNode(stored[key], mapped[key], value);
  }
  for (const { key, wrapped } of lists) {
    const children = mergeChildren(asList(stored[key]), asList(mapped[key]), incoming[key], wrapped, stored.modelType === 'SubmodelElementList');
    if (children !== undefined) result[key] = children;
  }
  return result;
}

const asList = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);

/**
 * The written children (`incoming`) merged with the stored ones: each matched stored child by `mergeNode`, and the
 * stored children V3.0 does not see put back after the stored child they followed. `mapped` is `stored` without
 * those, in order.
 */
function mergeChildren(stored: unknown[], mapped: unknown[], incoming: unknown, wrapped: boolean, byIndex: boolean): unknown[] | undefined {
  const written = Array.isArray(incoming) ? incoming : [];
  // The stored child each V3.0-visible one came from (same order, the left-out ones skipped).
  const origin: number[] = [];
  stored.forEach((item, i) => {
    if (!leftOutInV30(elementOf(item, wrapped))) origin.push(i);
  });
  const matchedAt = new Map<number, number>(); // stored index -> index in the result
  const result = written.map((item, w) => {
    let m = -1;
    if (byIndex) m = w < mapped.length ? w : -1;
    else {
      const idShort = idShortOf(item, wrapped);
      if (idShort !== undefined) m = mapped.findIndex((candidate) => idShortOf(candidate, wrapped) === idShort);
    }
    if (m < 0 || origin[m] === undefined) return item;
    matchedAt.set(origin[m], w);
    return mergeNode(stored[origin[m]], mapped[m], item);
  });
  if (!Array.isArray(incoming) && !stored.some((item) => leftOutInV30(elementOf(item, wrapped)))) return undefined;
  const taken = new Set(result.map((item) => idShortOf(item, wrapped)).filter((s) => s !== undefined));
  // Put each hidden child back after the result entry of the nearest stored child before it that was kept.
  const inserts = new Map<number, unknown[]>(); // result index it follows (-1: at the front) -> children
  let after = -1;
  stored.forEach((item, i) => {
    if (matchedAt.has(i)) after = matchedAt.get(i)!;
    else if (leftOutInV30(elementOf(item, wrapped))) {
      const idShort = idShortOf(item, wrapped);
      if (idShort !== undefined && taken.has(idShort)) return;
      const at = inserts.get(after) ?? [];
      at.push(item);
      inserts.set(after, at);
    }
  });
  const merged: unknown[] = [...(inserts.get(-1) ?? [])];
  result.forEach((item, w) => merged.push(item, ...(inserts.get(w) ?? [])));
  return merged.length ? merged : undefined;
}
