import { AsyncLocalStorage } from 'node:async_hooks';
import type { ServerResponse } from 'node:http';

const signals = new WeakMap<ServerResponse, AbortSignal>();

/**
 * A signal that fires when the client of a request has gone: its connection closed before the whole answer was
 * sent (it gave up, timed out, crashed). Work done only for that answer (an import, a serialization, a query) stops
 * at its next check and rolls back: nobody would read what it computes, and it holds what others need. One signal
 * per response, however often asked.
 */
export function clientGoneSignal(res: ServerResponse): AbortSignal {
  const known = signals.get(res);
  if (known) return known;
  const controller = new AbortController();
  // Asked for after the response closed (the signal is made when first needed: `whileClientHere`): it is settled.
  if (res.closed) {
    if (!res.writableFinished) controller.abort(new ClientGoneError());
  } else {
    res.once('close', () => {
      if (!res.writableFinished) controller.abort(new ClientGoneError());
    });
  }
  signals.set(res, controller.signal);
  return controller.signal;
}

/** A request's client-gone signal, or its response, whose signal is made only when some code asks for it. */
const current = new AsyncLocalStorage<AbortSignal | ServerResponse>();

/**
 * Runs `work` (a request) with its client-gone signal at hand for the code below it, down to the database
 * connection, which cancels a statement under way when the signal fires (db/statement-cancel.ts). Given the
 * response, the signal (an AbortController and a listener) is made only when asked for (`requestSignal`): a read the
 * read cache answers never asks, and making it cost such a read more than its cache look-up.
 */
export function whileClientHere<T>(client: AbortSignal | ServerResponse, work: () => T): T {
  return current.run(client, work);
}

/**
 * Runs `work` apart from the request it is started by: work that other requests share (a look-up made once for all,
 * a refresh others wait for) must not stop because the client of the one that happened to start it went.
 */
export function apartFromRequest<T>(work: () => T): T {
  return current.exit(work);
}

/** The client-gone signal of the request this code runs for; none outside a request. */
export function requestSignal(): AbortSignal | undefined {
  const client = current.getStore();
  return client === undefined || client instanceof AbortSignal ? client : clientGoneSignal(client);
}

/** Why work stopped: its client went away before the answer. */
export class ClientGoneError extends Error {
  // As Koa's errors: a client status whose message may be shown (the client will not read it; the log will).
  readonly status = 400;
  readonly expose = true;

  constructor() {
    super('The client closed the connection before the answer; the work stopped and nothing was stored.');
    this.name = 'ClientGoneError';
  }
}

/** Whether `err` is, or was caused by (TypeORM wraps a driver's error), work stopped because its client went. */
export function isClientGone(err: unknown): boolean {
  const seen = new Set<unknown>();
  for (let e = err as Record<string, unknown> | undefined; e && typeof e === 'object' && !seen.has(e); ) {
    if (e instanceof ClientGoneError) return true;
    seen.add(e);
    e = (e.driverError ?? e.originalError ?? e.cause) as Record<string, unknown> | undefined;
  }
  return false;
}
