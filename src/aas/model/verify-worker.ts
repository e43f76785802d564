import { parentPort } from 'node:worker_threads';
import { GraphQLError } from 'graphql';
import { DOCUMENT_PARSERS, DOCUMENT_READERS, DocumentKind, Violation } from './parse';
import { DroppedPart, UnreadableDocument, readTolerantly } from './tolerant-read';

/**
 * The worker side of `verify-pool`: reads JSON text as one AAS document kind, verifies it, and answers the
 * canonical JSON text, or the 400's messages. Runs off the event loop, so a document of 50 MB, whose
 * verification takes seconds, stalls no other request.
 */
export interface VerifyRequest {
  id: number;
  kind: DocumentKind;
  text: string;
  /** Lenient: problems are answered as warnings (parseVerified's `warnings`). */
  lenient?: boolean;
  /** The violations are answered, not refused (`readWithViolations`). */
  violations?: boolean;
  /** Lenient, and parts that cannot be read are dropped (`readTolerantly`). */
  tolerant?: boolean;
}

export type VerifyResponse =
  | { id: number; text: string; warnings?: string[]; violations?: Violation[]; dropped?: DroppedPart[] }
  | { id: number; message: string; messages: string[] }
  | { id: number; unreadable: { path: string; reason: string } };

parentPort?.on('message', ({ id, kind, text, lenient, violations, tolerant }: VerifyRequest) => {
  try {
    if (tolerant) {
      const warnings: string[] = [];
      const read = readTolerantly(kind, JSON.parse(text), warnings);
      parentPort!.postMessage({ id, text: JSON.stringify(read.doc), warnings, dropped: read.dropped } satisfies VerifyResponse);
      return;
    }
    if (violations) {
      const read = DOCUMENT_READERS[kind](JSON.parse(text));
      parentPort!.postMessage({ id, text: JSON.stringify(read.doc), violations: read.violations } satisfies VerifyResponse);
      return;
    }
    const warnings: string[] | undefined = lenient ? [] : undefined;
    const doc = DOCUMENT_PARSERS[kind](JSON.parse(text), warnings);
    parentPort!.postMessage({ id, text: JSON.stringify(doc), warnings } satisfies VerifyResponse);
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
