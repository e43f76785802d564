import { Worker } from 'node:worker_threads';
import { parseJsonInSlices } from '../../common/json-slices';
import { workerScript } from '../../common/worker-script';
import { badRequest } from '../../graphql/errors';
import type { DocumentKind, JsonObject, Violation } from './parse';
import { type DroppedPart, UnreadableDocument } from './tolerant-read';
import type { AasVersion } from '../versions/needed';
import type { VerifyRequest, VerifyResponse } from './verify-worker';

/** The worker's answer that the document sent is its own canonical JSON (`verify` with `same`). */
export const SAME = Symbol('the document as sent');

interface Waiting {
  resolve(doc: JsonObject | typeof SAME): void;
  reject(err: unknown): void;
  /** Where a lenient verification puts what it found. */
  warnings?: string[];
  /** Where a reading with violations puts them. */
  violations?: Violation[];
  /** Where a tolerant reading puts the parts it dropped. */
  dropped?: DroppedPart[];
}

/**
 * One worker thread that verifies large documents (see `verify-worker`), started on first use. Requests queue in
 * the worker one after another: on a 2-core machine a second worker would only take the event loop's core.
 * The worker is restarted when it dies, failing what it had in hand.
 */
class VerifyPool {
  private worker: Worker | undefined;
  private readonly waiting = new Map<number, Waiting>();
  private next = 0;

  /**
   * With `warnings`, lenient: the problems found are added there (see parseVerified). `version`: whose constraints.
   * With `same`, `SAME` when the canonical JSON text is `text` itself (nothing is sent back).
   */
  verify(kind: DocumentKind, text: string, warnings?: string[], version?: AasVersion): Promise<JsonObject>;
  verify(kind: DocumentKind, text: string, warnings: string[] | undefined, version: AasVersion, same: true): Promise<JsonObject | typeof SAME>;
  verify(kind: DocumentKind, text: string, warnings?: string[], version: AasVersion = '3.0', same?: true): Promise<JsonObject | typeof SAME> {
    const worker = this.started();
    const id = this.next++;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject, warnings });
      worker.postMessage({ id, kind, text, version, lenient: warnings !== undefined, ...(same ? { same } : {}) } satisfies VerifyRequest);
    });
  }

  /** `readWithViolations` of `kind`: the document and its violations, refused only when it cannot be read. */
  async read(kind: DocumentKind, text: string, version: AasVersion = '3.0'): Promise<{ doc: JsonObject; violations: Violation[] }> {
    const worker = this.started();
    const id = this.next++;
    const violations: Violation[] = [];
    const doc = await new Promise<JsonObject>((resolve, reject) => {
      // No `same` asked: the answer is a document.
      this.waiting.set(id, { resolve: resolve as Waiting['resolve'], reject, violations });
      worker.postMessage({ id, kind, text, version, violations: true } satisfies VerifyRequest);
    });
    return { doc, violations };
  }

  /** `readTolerantly` of `kind`: warnings and the parts dropped go to `warnings` and `dropped`. */
  tolerant(kind: DocumentKind, text: string, warnings: string[], dropped: DroppedPart[], version: AasVersion = '3.0'): Promise<JsonObject> {
    const worker = this.started();
    const id = this.next++;
    return new Promise<JsonObject>((resolve, reject) => {
      this.waiting.set(id, { resolve: resolve as Waiting['resolve'], reject, warnings, dropped });
      worker.postMessage({ id, kind, text, version, tolerant: true } satisfies VerifyRequest);
    });
  }

  private started(): Worker {
    if (this.worker) return this.worker;
    const script = workerScript(__dirname, 'verify-worker', __filename);
    const worker = new Worker(script.filename, { execArgv: script.execArgv });
    worker.unref();
    worker.on('message', (answer: VerifyResponse) => {
      const waiting = this.waiting.get(answer.id);
      if (!waiting) return;
      this.waiting.delete(answer.id);
      if ('messages' in answer) waiting.reject(badRequest(answer.message, answer.messages));
      else if ('unreadable' in answer) waiting.reject(new UnreadableDocument(answer.unreadable.path, answer.unreadable.reason));
      else {
        if (answer.warnings) waiting.warnings?.push(...answer.warnings);
        if ('same' in answer) {
          waiting.resolve(SAME);
          return;
        }
        if (answer.violations) waiting.violations?.push(...answer.violations);
        if (answer.dropped) waiting.dropped?.push(...answer.dropped);
        // The document read back in slices: one JSON.parse of a large one holds the event loop.
        parseJsonInSlices(answer.text).then((doc) => waiting.resolve(doc as JsonObject), waiting.reject);
      }
    });
    const fail = (err: unknown) => {
      if (this.worker === worker) this.worker = undefined;
      for (const waiting of this.waiting.values()) waiting.reject(err);
      this.waiting.clear();
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`the document verification worker exited with code ${code}`)));
    this.worker = worker;
    return worker;
  }
}

export const verifyPool = new VerifyPool();
