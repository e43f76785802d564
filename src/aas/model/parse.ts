import { common, jsonization, types, verification } from '@aas-core-works/aas-core3.0-typescript';
import { MAX_JSON_DEPTH, nestsDeeperThan } from '../../common/json-depth';
import { badRequest } from '../../graphql/errors';

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
  if (nestsDeeperThan(json)) throw badRequest(`The ${what} nests deeper than ${MAX_JSON_DEPTH} levels.`);
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

/** The violations of `instance`: with `recursive` false, only its own invariants (not its parts'). */
export function violationsOf(instance: types.Class, recursive = true): Violation[] {
  const found: Violation[] = [];
  for (const error of verification.verify(instance, recursive)) {
    found.push({ key: stableKey(error), text: `${jsonPath(error.path.toString())}: ${error.message}` });
  }
  return found;
}

/** 400 for `what` with the messages of `violations` (at most MAX_REPORTED, the rest counted); nothing when none. */
export function refuseViolations(what: string, violations: Violation[]): void {
  if (!violations.length) return;
  const messages = violations.slice(0, MAX_REPORTED).map((v) => v.text);
  if (violations.length > MAX_REPORTED) messages.push(`... and ${violations.length - MAX_REPORTED} more violations`);
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
): { doc: JsonObject; instance: T; violations: Violation[] } {
  const read = readModel(what, parse, json);
  if (read.stray.length) throw badRequest(`Invalid ${what}: ${read.stray[0]}`, read.stray.slice(0, MAX_REPORTED));
  return { doc: read.canonical, instance: read.instance, violations: violationsOf(read.instance) };
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
): JsonObject {
  const { instance, canonical, stray } = readModel(what, parse, json);
  if (stray.length && warnings) warnings.push(...stray.slice(0, MAX_REPORTED).map((m) => `${m} (left out)`));
  else if (stray.length) throw badRequest(`Invalid ${what}: ${stray[0]}`, stray.slice(0, MAX_REPORTED));
  const messages: string[] = [];
  let count = 0;
  for (const error of verification.verify(instance, true)) {
    count++;
    if (messages.length < MAX_REPORTED) messages.push(`${jsonPath(error.path.toString())}: ${error.message}`);
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

export const parseShell = (json: unknown, warnings?: string[]) =>
  parseVerified('AssetAdministrationShell', jsonization.assetAdministrationShellFromJsonable, json, warnings);
export const parseAssetInformation = (json: unknown) =>
  parseVerified('AssetInformation', jsonization.assetInformationFromJsonable, json);
export const parseReference = (json: unknown) => parseVerified('Reference', jsonization.referenceFromJsonable, json);
export const parseSubmodel = (json: unknown, warnings?: string[]) => parseVerified('Submodel', jsonization.submodelFromJsonable, json, warnings);
export const parseSubmodelElement = (json: unknown) =>
  parseVerified('SubmodelElement', jsonization.submodelElementFromJsonable, json);
/** A submodel element with its violations, for writes judged by what they change. */
export const readSubmodelElement = (json: unknown) => readWithViolations('SubmodelElement', jsonization.submodelElementFromJsonable, json);
export const parseConceptDescription = (json: unknown, warnings?: string[]) =>
  parseVerified('ConceptDescription', jsonization.conceptDescriptionFromJsonable, json, warnings);

/** The document kinds `verifyDocument` (verify-document.ts) takes, and their parsers. */
export const DOCUMENT_PARSERS = {
  AssetAdministrationShell: parseShell,
  Submodel: parseSubmodel,
  ConceptDescription: parseConceptDescription,
} as const;

/** The same kinds read with their violations (`readWithViolations`). */
export const DOCUMENT_READERS = {
  AssetAdministrationShell: (json: unknown) => readWithViolations('AssetAdministrationShell', jsonization.assetAdministrationShellFromJsonable, json),
  Submodel: (json: unknown) => readWithViolations('Submodel', jsonization.submodelFromJsonable, json),
  ConceptDescription: (json: unknown) => readWithViolations('ConceptDescription', jsonization.conceptDescriptionFromJsonable, json),
} as const;

export type DocumentKind = keyof typeof DOCUMENT_PARSERS;
