import { common, jsonization, types, verification } from '@aas-core-works/aas-core3.0-typescript';
import { ELEMENT_DEPTH_RULE, MAX_JSON_DEPTH, elementsNestDeeperThan, nestsDeeperThan } from '../../common/json-depth';
import { badRequest } from '../../graphql/errors';
import { readSubmodelDirectly } from './direct-read';

export type JsonObject = Record<string, unknown>;

/** At most this many constraint violations are reported for one document; the rest are counted. */
const MAX_REPORTED = 50;

function jsonPath(path: string): string {
  if (path === '') return '$';
  return path.startsWith('.') || path.startsWith('[') ? `$${path}` : `$.${path}`;
}

/** A constraint violation: `key` names it where it is (stable across positions), `text` is what a client reads. */
export interface Violation {
  key: string;
  text: string;
}

/** What `readModel` read: the canonical JSON, the properties the metamodel does not know, the violations. */
interface Read<T> {
  instance: T;
  canonical: JsonObject;
  stray: string[];
}

/** Deserializes `json` as `what`; 400 when it cannot be read at all. */
function readModel<T extends types.Class>(
  what: string,
  parse: (json: jsonization.JsonValue) => common.Either<T, jsonization.DeserializationError>,
  json: unknown,
): Read<T> {
  if (json === null || typeof json !== 'object' || Array.isArray(json)) {
    throw badRequest(`The body must be a JSON object (${what}).`);
  }
  if (nestsDeeperThan(json)) throw badRequest(`The ${what} nests deeper than ${MAX_JSON_DEPTH} levels (${ELEMENT_DEPTH_RULE}).`);
  const tooDeep = elementsNestDeeperThan(json);
  if (tooDeep) throw badRequest(`${ELEMENT_DEPTH_RULE}; the ${what} nests them deeper (at ${tooDeep}).`);
  // The common shapes of a submodel are read directly (direct-read.ts): the same instance, every property taken,
  // so nothing is stray; whatever else is read by the library.
  const direct = parse === (jsonization.submodelFromJsonable as unknown) ? (readSubmodelDirectly(json) as T | null) : null;
  if (direct) return { instance: direct, canonical: jsonization.toJsonable(direct) as JsonObject, stray: [] };
  let parsed: common.Either<T, jsonization.DeserializationError>;
  try {
    parsed = parse(json as jsonization.JsonValue);
  } catch (err) {
    // The library throws instead of reporting on some malformed values (a Blob whose base64 is cut short).
    throw badRequest(`Invalid ${what}: ${(err as Error).message}`);
  }
  if (parsed.error !== null) {
    const text = `${jsonPath(parsed.error.path.toString())}: ${parsed.error.message}`;
    throw badRequest(`Invalid ${what}: ${text}`, [text]);
  }
  const instance = parsed.mustValue();
  // The library ignores properties the metamodel does not have; the AAS JSON schema forbids them.
  const canonical = jsonization.toJsonable(instance) as JsonObject;
  return { instance, canonical, stray: strayProperties(json, canonical, '$') };
}

/**
 * A path that names a place by the idShorts on the way where the elements have them (`.submodelElements{Pump}`),
 * by index elsewhere: the same violation keeps its key when elements before it are added or removed.
 */
function stableKey(error: verification.VerificationError): string {
  const parts = error.path.segments.map((segment) => {
    if (segment instanceof verification.IndexSegment) {
      const idShort = (segment.sequence[segment.index] as { idShort?: string | null } | undefined)?.idShort;
      return typeof idShort === 'string' ? `{${idShort}}` : `[${segment.index}]`;
    }
    return `.${segment.name}`;
  });
  return `${parts.join('')}: ${error.message}`;
}

/**
 * `json` read as `what` without verifying it: the instance, for checking one level of it (`violationsOf` with
 * `recursive` false). 400 when it cannot be read; properties the metamodel does not know are ignored.
 */
export function readInstance<T extends types.Class>(
  what: string,
  parse: (json: jsonization.JsonValue) => common.Either<T, jsonization.DeserializationError>,
  json: unknown,
): T {
  return readModel(what, parse, json).instance;
}

/** The classes whose invariants speak of their child elements, and the property that holds them. */
const CHILD_LISTS: [new (...args: never[]) => types.Class, string][] = [
  [types.Submodel, 'submodelElements'],
  [types.SubmodelElementCollection, 'value'],
  [types.SubmodelElementList, 'value'],
  [types.Entity, 'statements'],
  [types.AnnotatedRelationshipElement, 'annotations'],
];

/** The idShorts two or more of `children` have (model instances or their JSON alike). */
function idShortsTwice(children: readonly unknown[]): string[] {
  const seen = new Set<string>();
  const twice = new Set<string>();
  for (const child of children) {
    const idShort = (child as { idShort?: unknown } | null)?.idShort;
    if (typeof idShort !== 'string') continue;
    if (seen.has(idShort)) twice.add(idShort);
    seen.add(idShort);
  }
  return [...twice];
}

/** The instance a verification error is about: the root, or what the last step of its path reaches. */
function subjectOf(root: types.Class, error: verification.VerificationError): unknown {
  const last = error.path.segments[error.path.segments.length - 1];
  if (!last) return root;
  if (last instanceof verification.IndexSegment) return last.sequence[last.index];
  return (last.instance as unknown as Record<string, unknown>)[last.name];
}

/** `container` with `children` in place of its child elements (a copy; the original stays as it is). */
function withChildren(container: types.Class, key: string, children: types.Class[] | null): types.Class {
  return Object.assign(Object.create(Object.getPrototypeOf(container) as object) as types.Class, container, { [key]: children });
}

/**
 * Which children a container's violation is about, where its invariant speaks of them one by one (an idShort in a
 * list, a child of the wrong type, ...): by idShort, else by index. Undefined where the container has it without any
 * child (its own, such as a list without valueTypeListElement), or no single child has it (AASd-114, two children
 * that differ). A new child that breaks a list's rule is then a new violation, though the list already had one.
 */
function childrenAt(subject: unknown, message: string): string[] | undefined {
  const entry = CHILD_LISTS.find(([kind]) => subject instanceof kind);
  if (!entry) return undefined;
  const container = subject as types.Class;
  const key = entry[1];
  const children = (container as unknown as Record<string, unknown>)[key];
  if (!Array.isArray(children) || !children.length) return undefined;
  const name = (child: types.Class, i: number) => {
    const idShort = (child as { idShort?: string | null }).idShort;
    return typeof idShort === 'string' ? `{${idShort}}` : `[${i}]`;
  };
  const has = (candidate: types.Class) => [...verification.verify(candidate, false)].some((e) => e.path.segments.length === 0 && e.message === message);
  if (message.includes('AASd-022')) return idShortsTwice(children).map((idShort) => `{${idShort}}`);
  if (has(withChildren(container, key, null))) return undefined;
  const named = (children as types.Class[]).flatMap((child, i) => (has(withChildren(container, key, [child])) ? [name(child, i)] : []));
  return named.length ? named : undefined;
}

const AASD_022 = 'Constraint AASd-022: ID-short of non-identifiable referables within the same name space shall be unique (case-sensitive).';

/**
 * AASd-022 where the library does not check it: among an Entity's statements and an annotated relationship's
 * annotations (it checks a submodel's and a collection's elements). One violation per duplicated idShort.
 */
function duplicatesOutsideLibrary(node: unknown, path: string, key: string, found: Violation[]): void {
  if (node === null || typeof node !== 'object') return;
  if (Array.isArray(node)) {
    node.forEach((item, i) => {
      const idShort = (item as { idShort?: unknown } | null)?.idShort;
      duplicatesOutsideLibrary(item, `${path}[${i}]`, typeof idShort === 'string' ? `${key}{${idShort}}` : `${key}[${i}]`, found);
    });
    return;
  }
  const object = node as JsonObject;
  const own = object.modelType === 'Entity' ? 'statements' : object.modelType === 'AnnotatedRelationshipElement' ? 'annotations' : undefined;
  if (own && Array.isArray(object[own])) {
    for (const idShort of idShortsTwice(object[own] as unknown[])) found.push({ key: `${key}.${own}: ${AASD_022} {${idShort}}`, text: `${jsonPath(`${path}.${own}`)}: ${AASD_022}` });
  }
  for (const [name, value] of Object.entries(object)) {
    if (value !== null && typeof value === 'object') duplicatesOutsideLibrary(value, `${path}.${name}`, `${key}.${name}`, found);
  }
}

/**
 * How a version of the metamodel other than the library's (V3.0) judges one of the library's errors: the message
 * to report instead (the same one where nothing differs), or null where that version has no such constraint.
 * `subject` is what the error is about (the value, or the instance whose invariant it is).
 */
export type ErrorRule = (message: string, subject: unknown) => string | null;

/**
 * The violations of `instance`: with `recursive` false, only its own invariants (not its parts'). A container's
 * violation about its children is one violation per child it is about (`childrenAt`).
 */
export function violationsOf(instance: types.Class, recursive = true, rule?: ErrorRule): Violation[] {
  const found: Violation[] = [];
  for (const error of verification.verify(instance, recursive)) {
    const subject = subjectOf(instance, error);
    const message = rule ? rule(error.message, subject) : error.message;
    if (message === null) continue;
    const key = `${stableKey(error)}${message === error.message ? '' : ` (${message})`}`;
    const text = `${jsonPath(error.path.toString())}: ${message}`;
    const children = childrenAt(subject, error.message);
    if (children) for (const child of children) found.push({ key: `${key} ${child}`, text });
    else found.push({ key, text });
  }
  return found;
}

/** 400 for `what` with the messages of `violations` (at most MAX_REPORTED, the rest counted); nothing when none. */
export function refuseViolations(what: string, violations: Violation[]): void {
  if (!violations.length) return;
  // One violation of a container about several of its children is one message.
  const texts = [...new Set(violations.map((v) => v.text))];
  const messages = texts.slice(0, MAX_REPORTED);
  if (texts.length > MAX_REPORTED) messages.push(`... and ${texts.length - MAX_REPORTED} more violations`);
  throw badRequest(`Invalid ${what}: ${messages[0]}`, messages);
}

/** The violations in `after` that `before` does not have: what a change introduces. */
export function introduced(after: Violation[], before: Violation[]): Violation[] {
  if (!after.length || !before.length) return after;
  const had = new Set(before.map((v) => v.key));
  return after.filter((v) => !had.has(v.key));
}

/**
 * `json` read as `what` with its constraint violations, which are returned, not refused (a change is judged by
 * the violations it introduces: `introduced`). 400 when it cannot be read, or has properties the metamodel does not
 * know. `doc` is the canonical JSON: what is stored and returned.
 */
export function readWithViolations<T extends types.Class>(
  what: string,
  parse: (json: jsonization.JsonValue) => common.Either<T, jsonization.DeserializationError>,
  json: unknown,
  rule?: ErrorRule,
): { doc: JsonObject; instance: T; violations: Violation[] } {
  const read = readModel(what, parse, json);
  if (read.stray.length) throw badRequest(`Invalid ${what}: ${read.stray[0]}`, read.stray.slice(0, MAX_REPORTED));
  const violations: Violation[] = [];
  duplicatesOutsideLibrary(read.canonical, '', '', violations);
  return { doc: read.canonical, instance: read.instance, violations: [...violations, ...violationsOf(read.instance, true, rule)] };
}

/**
 * Deserializes `json` with the official metamodel library and verifies every constraint, recursively, and
 * returns the canonical JSON of what was read: what is stored and what is returned.
 * Anything that fails is a 400 whose messages name the JSON path of each problem. With `warnings` (lenient, for
 * imports of packages from other tools), properties the metamodel does not know (left out) and broken
 * constraints are reported there instead; only what cannot be read at all is refused.
 */
export function parseVerified<T extends types.Class>(
  what: string,
  parse: (json: jsonization.JsonValue) => common.Either<T, jsonization.DeserializationError>,
  json: unknown,
  warnings?: string[],
  rule?: ErrorRule,
): JsonObject {
  const { instance, canonical, stray } = readModel(what, parse, json);
  if (stray.length && warnings) warnings.push(...stray.slice(0, MAX_REPORTED).map((m) => `${m} (left out)`));
  else if (stray.length) throw badRequest(`Invalid ${what}: ${stray[0]}`, stray.slice(0, MAX_REPORTED));
  const messages: string[] = [];
  const duplicates: Violation[] = [];
  duplicatesOutsideLibrary(canonical, '', '', duplicates);
  let count = duplicates.length;
  messages.push(...duplicates.slice(0, MAX_REPORTED).map((v) => v.text));
  for (const error of verification.verify(instance, true)) {
    const message = rule ? rule(error.message, subjectOf(instance, error)) : error.message;
    if (message === null) continue;
    count++;
    if (messages.length < MAX_REPORTED) messages.push(`${jsonPath(error.path.toString())}: ${message}`);
  }
  if (count > 0) {
    if (count > MAX_REPORTED) messages.push(`... and ${count - MAX_REPORTED} more violations`);
    if (warnings) warnings.push(...messages);
    else throw badRequest(`Invalid ${what}: ${messages[0]}`, messages);
  }
  return canonical;
}

/**
 * What the client sent beyond the canonical serialization of what was read: properties the metamodel does not
 * know. Comparing with the canonical form also guarantees that what is stored is exactly what was sent.
 */
function strayProperties(sent: unknown, canonical: unknown, path: string, found: string[] = []): string[] {
  if (Array.isArray(sent) && Array.isArray(canonical)) {
    sent.forEach((item, i) => strayProperties(item, canonical[i], `${path}[${i}]`, found));
  } else if (sent !== null && typeof sent === 'object' && canonical !== null && typeof canonical === 'object') {
    for (const [key, value] of Object.entries(sent)) {
      const inner = `${path}.${key}`;
      if (Object.hasOwn(canonical, key)) strayProperties(value, (canonical as JsonObject)[key], inner, found);
      else found.push(`${inner}: unexpected property`);
    }
  } else if (sent !== canonical) {
    found.push(`${path}: not a valid value here`);
  }
  return found;
}

export const parseShell = (json: unknown, warnings?: string[], rule?: ErrorRule) =>
  parseVerified('AssetAdministrationShell', jsonization.assetAdministrationShellFromJsonable, json, warnings, rule);
export const parseAssetInformation = (json: unknown) =>
  parseVerified('AssetInformation', jsonization.assetInformationFromJsonable, json);
export const parseReference = (json: unknown) => parseVerified('Reference', jsonization.referenceFromJsonable, json);
export const parseSubmodel = (json: unknown, warnings?: string[], rule?: ErrorRule) => parseVerified('Submodel', jsonization.submodelFromJsonable, json, warnings, rule);
export const parseSubmodelElement = (json: unknown) =>
  parseVerified('SubmodelElement', jsonization.submodelElementFromJsonable, json);
/** A submodel element with its violations, for writes judged by what they change. */
export const readSubmodelElement = (json: unknown) => readWithViolations('SubmodelElement', jsonization.submodelElementFromJsonable, json);
export const parseConceptDescription = (json: unknown, warnings?: string[], rule?: ErrorRule) =>
  parseVerified('ConceptDescription', jsonization.conceptDescriptionFromJsonable, json, warnings, rule);

/** The document kinds `verifyDocument` (verify-document.ts) takes, and their parsers. */
export const DOCUMENT_PARSERS = {
  AssetAdministrationShell: parseShell,
  Submodel: parseSubmodel,
  ConceptDescription: parseConceptDescription,
} as const;

/** The same kinds read with their violations (`readWithViolations`). */
export const DOCUMENT_READERS = {
  AssetAdministrationShell: (json: unknown, rule?: ErrorRule) => readWithViolations('AssetAdministrationShell', jsonization.assetAdministrationShellFromJsonable, json, rule),
  Submodel: (json: unknown, rule?: ErrorRule) => readWithViolations('Submodel', jsonization.submodelFromJsonable, json, rule),
  ConceptDescription: (json: unknown, rule?: ErrorRule) => readWithViolations('ConceptDescription', jsonization.conceptDescriptionFromJsonable, json, rule),
} as const;

export type DocumentKind = keyof typeof DOCUMENT_PARSERS;
