import type { ServerResponse } from 'node:http';

/**
 * A signal that fires when the client of a request has gone: its connection closed before the whole answer was
 * sent (it gave up, timed out, crashed). Work done only for that answer (an import, a serialization, a query) stops
 * at its next check and rolls back: nobody would read what it computes, and it holds what others need.
 */
export function clientGoneSignal(res: ServerResponse): AbortSignal {
  const controller = new AbortController();
  res.once('close', () => {
    if (!res.writableFinished) controller.abort(new ClientGoneError());
  });
  return controller.signal;
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
