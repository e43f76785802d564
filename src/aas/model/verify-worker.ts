import { parentPort } from 'node:worker_threads';
import { GraphQLError } from 'graphql';
import type { AasVersion } from '../versions/needed';
import { parseFor, readFor, readTolerantlyFor } from '../versions/verify';
import { DocumentKind, Violation } from './parse';
import { DroppedPart, UnreadableDocument } from './tolerant-read';

/**
 * The worker side of `verify-pool`: reads JSON text as one AAS document kind, verifies it, and answers the
 * canonical JSON text, or the 400's messages. Runs off the event loop, so a document of 50 MB, whose
 * verification takes seconds, stalls no other request.
 */
export interface VerifyRequest {
  id: number;
  kind: DocumentKind;
  text: string;
  /** The version of the metamodel whose constraints apply ('3.0' when not given). */
  version?: AasVersion;
  /** Lenient: problems are answered as warnings (parseVerified's `warnings`). */
  lenient?: boolean;
  /** The violations are answered, not refused (`readWithViolations`). */
  violations?: boolean;
  /** Lenient, and parts that cannot be read are dropped (`readTolerantly`). */
  tolerant?: boolean;
  /** Answer `same` instead of the text when the canonical JSON text is the very text sent (`verifyDocumentKeeping`). */
  same?: boolean;
}

export type VerifyResponse =
  | { id: number; text: string; warnings?: string[]; violations?: Violation[]; dropped?: DroppedPart[] }
  | { id: number; same: true; warnings?: string[] }
  | { id: number; message: string; messages: string[] }
  | { id: number; unreadable: { path: string; reason: string } };

parentPort?.on('message', ({ id, kind, text, version = '3.0', lenient, violations, tolerant, same }: VerifyRequest) => {
  try {
    if (tolerant) {
      const warnings: string[] = [];
      const read = readTolerantlyFor(version, kind, JSON.parse(text), warnings);
      parentPort!.postMessage({ id, text: JSON.stringify(read.doc), warnings, dropped: read.dropped } satisfies VerifyResponse);
      return;
    }
    if (violations) {
      const read = readFor(version, kind, JSON.parse(text));
      parentPort!.postMessage({ id, text: JSON.stringify(read.doc), violations: read.violations } satisfies VerifyResponse);
      return;
    }
    const warnings: string[] | undefined = lenient ? [] : undefined;
    const doc = parseFor(version, kind, JSON.parse(text), warnings);
    const canonical = JSON.stringify(doc);
    // The sender keeps its own document: nothing to send back and parse again.
    if (same && canonical === text) parentPort!.postMessage({ id, same: true, warnings } satisfies VerifyResponse);
    else parentPort!.postMessage({ id, text: canonical, warnings } satisfies VerifyResponse);
  } catch (err) {
    if (err instanceof UnreadableDocument) {
      parentPort!.postMessage({ id, unreadable: { path: err.path, reason: err.reason } } satisfies VerifyResponse);
      return;
    }
    const messages = err instanceof GraphQLError && Array.isArray(err.extensions?.messages) ? (err.extensions.messages as string[]) : undefined;
    if (!messages) throw err; // not a verdict on the document: a bug, which ends this worker and fails the request
    parentPort!.postMessage({ id, message: (err as GraphQLError).message, messages } satisfies VerifyResponse);
  }
});
