import { holdsMoreThan, stringifyJsonInSlices } from '../../common/json-slices';
import type { AasVersion } from '../versions/needed';
import { mapDownToV30 } from '../versions/map';
import { parseFor, readFor, readTolerantlyFor } from '../versions/verify';
import { introduced, refuseViolations, type DocumentKind, type JsonObject, type Violation } from './parse';
import type { DroppedPart } from './tolerant-read';
import { SAME, verifyPool } from './verify-pool';

/**
 * Documents with more values than this are verified in the worker thread (`verify-pool`): below it, verification
 * takes a few milliseconds and the round trip would cost more than it saves.
 */
export const WORKER_THRESHOLD = 20_000;

/**
 * `parseVerified` for `kind`, off the event loop when the document is large: a 50 MB submodel takes seconds to
 * verify, which would otherwise stall every other request (and the health check) for as long.
 */
export async function verifyDocument(kind: DocumentKind, json: unknown, warnings?: string[], version: AasVersion = '3.0'): Promise<JsonObject> {
  if (json === null || typeof json !== 'object' || Array.isArray(json) || !holdsMoreThan(json, WORKER_THRESHOLD)) return parseFor(version, kind, json, warnings);
  // Its depth was checked where it came in (the REST body, the GraphQL variables), and the worker checks it again.
  // Written for the worker in slices: one JSON.stringify of a 100,000-element submodel holds the event loop.
  return verifyPool.verify(kind, await stringifyJsonInSlices(json), warnings, version);
}

/**
 * `verifyDocument` (strict) for a document its caller would keep as it is: `same` when the canonical JSON is `json`
 * itself, property for property in the same order (then `doc` is `json`, not a copy), else `doc` is the canonical
 * JSON as `verifyDocument` answers it. `json` is plain JSON data (no `undefined`, no `toJSON`), so that its text is
 * all there is of it. A large document is not read back from the worker when it is the same (a parse saved).
 */
export async function verifyDocumentKeeping(kind: DocumentKind, json: JsonObject, version: AasVersion = '3.0'): Promise<{ doc: JsonObject; same: boolean }> {
  if (!holdsMoreThan(json, WORKER_THRESHOLD)) {
    const doc = parseFor(version, kind, json);
    return JSON.stringify(doc) === JSON.stringify(json) ? { doc: json, same: true } : { doc, same: false };
  }
  const answer = await verifyPool.verify(kind, await stringifyJsonInSlices(json), undefined, version, true);
  return answer === SAME ? { doc: json, same: true } : { doc: answer, same: false };
}

/**
 * `readTolerantly` for `kind` (imports): lenient, and what cannot be read is dropped (into `dropped`), off the
 * event loop when the document is large (as `verifyDocument`). `UnreadableDocument` when it cannot be read even so.
 */
export async function verifyTolerantly(kind: DocumentKind, json: unknown, warnings: string[], dropped: DroppedPart[], version: AasVersion = '3.0'): Promise<JsonObject> {
  if (json === null || typeof json !== 'object' || Array.isArray(json) || !holdsMoreThan(json, WORKER_THRESHOLD)) {
    const read = readTolerantlyFor(version, kind, json, warnings);
    dropped.push(...read.dropped);
    return read.doc;
  }
  return verifyPool.tolerant(kind, await stringifyJsonInSlices(json), warnings, dropped, version);
}

/** `readWithViolations` for `kind`, off the event loop when the document is large (as `verifyDocument`). */
export async function readDocument(kind: DocumentKind, json: unknown, version: AasVersion = '3.0'): Promise<{ doc: JsonObject; violations: Violation[] }> {
  if (json === null || typeof json !== 'object' || Array.isArray(json) || !holdsMoreThan(json, WORKER_THRESHOLD)) return readFor(version, kind, json);
  return verifyPool.read(kind, await stringifyJsonInSlices(json), version);
}

/**
 * A document that replaces `stored`, judged by what it changes: refused (400) for a constraint violation `stored`
 * did not already have, or when it cannot be read; a violation both have (an import with warnings, sent back as it
 * was read) does not block the write. Returns the canonical JSON to store.
 */
export async function verifyReplacement(kind: DocumentKind, json: unknown, stored: JsonObject, version: AasVersion = '3.0'): Promise<JsonObject> {
  return judgeReplacement(kind, await readDocument(kind, json, version), stored, version);
}

/** `verifyReplacement` of a document already read (`readDocument`). */
export async function judgeReplacement(kind: DocumentKind, read: { doc: JsonObject; violations: Violation[] }, stored: JsonObject, version: AasVersion = '3.0'): Promise<JsonObject> {
  if (read.violations.length) refuseViolations(kind, introduced(read.violations, await violationsOfStored(kind, stored, version)));
  return read.doc;
}

/**
 * The violations of a stored document under `version`; none where it cannot be read as `kind` at all (nothing to
 * compare with).
 */
async function violationsOfStored(kind: DocumentKind, stored: JsonObject, version: AasVersion): Promise<Violation[]> {
  try {
    // A V3.0 write is judged against what a V3.0 client saw of the stored document (mapped down).
    return (await readDocument(kind, version === '3.0' ? mapDownToV30(stored).json : stored, version)).violations;
  } catch {
    return [];
  }
}
