import { DOCUMENT_PARSERS, type DocumentKind, type JsonObject } from './parse';
import { verifyPool } from './verify-pool';

/**
 * Documents with more values than this are verified in the worker thread (`verify-pool`): below it, verification
 * takes a few milliseconds and the round trip would cost more than it saves.
 */
export const WORKER_THRESHOLD = 20_000;

/** Whether `json` holds more than `max` values (objects, arrays and scalars); stops counting at `max`. */
function holdsMoreThan(json: unknown, max: number): boolean {
  const stack: unknown[] = [json];
  let count = 0;
  while (stack.length) {
    const value = stack.pop();
    if (++count > max) return true;
    if (value !== null && typeof value === 'object') for (const inner of Object.values(value)) stack.push(inner);
  }
  return false;
}

/**
 * `parseVerified` for `kind`, off the event loop when the document is large: a 50 MB submodel takes seconds to
 * verify, which would otherwise stall every other request (and the health check) for as long.
 */
export async function verifyDocument(kind: DocumentKind, json: unknown, warnings?: string[]): Promise<JsonObject> {
  if (json === null || typeof json !== 'object' || Array.isArray(json) || !holdsMoreThan(json, WORKER_THRESHOLD)) return DOCUMENT_PARSERS[kind](json, warnings);
  // Its depth was checked where it came in (the REST body, the GraphQL variables), and the worker checks it again.
  return verifyPool.verify(kind, JSON.stringify(json), warnings);
}
