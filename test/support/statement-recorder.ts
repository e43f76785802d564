import { AsyncLocalStorage } from 'node:async_hooks';
import http from 'node:http';
import pg from 'pg';
import { PipelinedStatements } from '../../src/db/write-batch';

/** A statement the `pg` driver sent, and the HTTP request (`METHOD url`) it served. */
export interface RecordedStatement {
  request: string;
  text: string;
}

/**
 * The statements of the first argument of pg.Client.prototype.query: a text, a config object's text, or the statements
 * of a group of writes sent together (write-batch.ts), each of which counts as the statement it is.
 */
export function statementTexts(first: unknown): string[] {
  if (typeof first === 'string') return [first];
  if (first instanceof PipelinedStatements) return first.texts;
  const text = (first as { text?: unknown } | undefined)?.text;
  return typeof text === 'string' && text ? [text] : [];
}

/**
 * Records every statement the `pg` driver sends (pg.Client.prototype.query: TypeORM's statements and those straight
 * on the pool alike, on a PostgreSQL server and on the embedded database, which the driver reaches over its socket),
 * attributed to the HTTP request it serves by an AsyncLocalStorage entered where an in-process server receives a
 * request (the statements of a group of writes sent together, all to the request in whose context the group went).
 * Statements outside any request (start-up, set-up through services, background work) are not recorded.
 */
export class StatementRecorder {
  readonly statements: RecordedStatement[] = [];
  recording = false;
  private readonly requestOf = new AsyncLocalStorage<string>();
  private readonly originalQuery = pg.Client.prototype.query;
  private readonly originalEmit = http.Server.prototype.emit;

  start(): void {
    const { requestOf, statements } = this;
    const recording = () => this.recording;
    const query = this.originalQuery as (...a: unknown[]) => unknown;
    // The driver's one entry for every statement: text, config object, or submittable (cursor, stream).
    pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
      const request = requestOf.getStore();
      if (recording() && request) {
        for (const text of statementTexts(args[0])) statements.push({ request, text });
      }
      return query.apply(this, args);
    } as typeof pg.Client.prototype.query;
    // Everything a request does runs in the async context of its 'request' event.
    const emit = this.originalEmit as (this: http.Server, ...a: unknown[]) => boolean;
    http.Server.prototype.emit = function (this: http.Server, event: string | symbol, ...args: unknown[]) {
      if (event === 'request') {
        const req = args[0] as http.IncomingMessage;
        return requestOf.run(`${req.method} ${req.url}`, () => emit.apply(this, [event, ...args]));
      }
      return emit.apply(this, [event, ...args]);
    } as typeof http.Server.prototype.emit;
  }

  stop(): void {
    pg.Client.prototype.query = this.originalQuery;
    http.Server.prototype.emit = this.originalEmit;
  }

  /** The statements of requests sent while `run` runs. */
  async during(run: () => Promise<unknown>): Promise<RecordedStatement[]> {
    const from = this.statements.length;
    this.recording = true;
    try {
      await run();
    } finally {
      this.recording = false;
    }
    return this.statements.slice(from);
  }
}
