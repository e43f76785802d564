import pg, { Client, ClientConfig } from 'pg';
import { requestSignal } from '../common/client-gone';
import { isDatabaseUnavailable } from './unavailable';

/**
 * How long the server waits for a PostgreSQL server that does not answer (a network partition: nothing is closed,
 * nothing comes back). TCP notices such a connection only after minutes, if at all (a NAT or firewall that drops
 * the traffic keeps acknowledging nothing and refusing nothing), so every wait has a bound of its own.
 */
export interface AnswerBounds {
  /** Connecting (handshake included), a free connection of the pool, and the liveness check as a whole. */
  connectTimeoutMs: number;
  /** Silence on a connection with a statement under way before the database is checked on a new connection. */
  answerTimeoutMs: number;
  /**
   * Silence after which a connection is dropped even though the database answers new ones: by then the server has
   * ended any statement (its statement_timeout), so a connection that still says nothing is lost on its own.
   */
  longestStatementMs: number;
}

/** A statement that got no answer, on a database that answers no new connection either: unavailable (503). */
export class DatabaseSilentError extends Error {
  readonly code = 'ETIMEDOUT';
}

/**
 * How long the outcome of a liveness check stands for every connection that asks (one check at a time); never
 * longer than the answer timeout, so that a connection told "up" looks again after its next answer timeout with a
 * fresh check rather than with the same outcome.
 */
const CHECK_REUSE_MS = 1_000;

/** What a liveness check found: whether the database answered, and when it last did (for an outcome "up"). */
export interface Liveness {
  up: boolean;
  /** When the check's `SELECT 1` was answered (performance.now()); -Infinity when it was not. */
  answeredAt: number;
}

interface PgInternals {
  readyForQuery: boolean;
  connection: { stream: { destroy(err?: Error): void }; on(event: 'readyForQuery', listener: () => void): void };
}

/**
 * Closes a client's socket at once, failing what it has under way with `err`. (`end()` would say goodbye to the
 * server and wait for it to close: on a silent network, forever.)
 */
export function dropConnection(client: Client, err?: Error): void {
  (client as unknown as PgInternals).connection.stream.destroy(err);
}

/**
 * Whether the database answers a new connection now (connect and `SELECT 1` within `timeoutMs`): one check at a
 * time, its outcome reused for a second, so a thousand silent statements cost one connection attempt a second.
 */
export class LivenessCheck {
  private running?: Promise<Liveness>;
  private last: Liveness & { at: number } = { at: -Infinity, up: true, answeredAt: -Infinity };

  constructor(
    private readonly config: ClientConfig,
    private readonly timeoutMs: number,
    private readonly reuseMs = CHECK_REUSE_MS,
  ) {}

  answers(): Promise<Liveness> {
    if (performance.now() - this.last.at < this.reuseMs) return Promise.resolve(this.last);
    return (this.running ??= this.check().then((outcome) => {
      this.last = { ...outcome, at: performance.now() };
      this.running = undefined;
      return outcome;
    }));
  }

  private async check(): Promise<Liveness> {
    const client = new Client({ ...this.config, connectionTimeoutMillis: this.timeoutMs, keepAlive: false });
    client.on('error', () => undefined);
    const timer = setTimeout(() => dropConnection(client, new DatabaseSilentError('liveness check timed out')), this.timeoutMs);
    try {
      await client.connect();
      await client.query('SELECT 1');
      return { up: true, answeredAt: performance.now() };
    } catch {
      return { up: false, answeredAt: -Infinity };
    } finally {
      clearTimeout(timer);
      dropConnection(client);
    }
  }
}

/** Set by the pool on a connection it hands over: since when its taker has waited for it (performance.now()). */
const waitingSince = Symbol('waitingSince');
/** Set by the pool on a connection it hands over: the request it is handed to (its client-gone signal), if any. */
const heldFor = Symbol('heldFor');

interface HandedOver {
  [waitingSince]?: number;
  [heldFor]?: AbortSignal;
}

/**
 * Requests (by their client-gone signal) that have met the database unavailable: no connection within the connect
 * timeout, or a statement without an answer on a database that answered no liveness check. Such a request is not
 * made to wait again: every later connection it asks for fails at once, so a request that goes on after the
 * failure (a hot read that falls back to its route, a second step) answers 503 within the bound of its first wait
 * instead of waiting the bound once more per step.
 */
const unavailableTo = new WeakSet<AbortSignal>();

/** The error of a request's connection refused because the database already failed that request. */
export class DatabaseFailedBeforeError extends Error {
  readonly code = 'ETIMEDOUT';
}

/**
 * `pg` with a pool that knows the request each connection is asked for (its client-gone signal, `requestSignal`),
 * and notes on each connection it hands over since when the taker waited for it. A request that waited for a
 * free connection and got one just as the database fell silent has waited for the database since it asked: its
 * first statement's answer timeout counts from then (answerWatchedClient), so the wait for the pool and the
 * silence together stay within `answerTimeoutMs + connectTimeoutMs` instead of adding up to a connect timeout more.
 * A request that met the database unavailable once gets no connection after (`unavailableTo`).
 * (TypeORM's `driver` option: everything else is pg's own.)
 */
export function poolTimingDriver(): typeof pg {
  type Callback = (err: Error | undefined, client: pg.PoolClient | undefined, done: (release?: unknown) => void) => void;
  class TimedPool extends pg.Pool {
    override connect(...args: unknown[]): never {
      const asked = performance.now();
      // The caller's request, read now: the callback may run in the context of whichever request released a connection.
      const request = requestSignal();
      const callback = args[0] as Callback | undefined;
      if (request && unavailableTo.has(request)) {
        const err = new DatabaseFailedBeforeError('the database did not answer this request before; it is not asked again');
        if (typeof callback !== 'function') return Promise.reject(err) as never;
        process.nextTick(() => callback(err, undefined, () => undefined));
        return undefined as never;
      }
      const handOver = (err: Error | undefined, client: pg.PoolClient | undefined) => {
        if (client) Object.assign(client, { [waitingSince]: asked, [heldFor]: request });
        else if (request && isDatabaseUnavailable(err)) unavailableTo.add(request);
      };
      if (typeof callback === 'function') {
        return super.connect((err, client, done) => {
          handOver(err, client);
          callback(err, client, done);
        }) as never;
      }
      return super.connect().then(
        (client) => (handOver(undefined, client), client),
        (err: Error) => {
          handOver(err, undefined);
          throw err;
        },
      ) as never;
    }
  }
  return Object.create(pg, { Pool: { value: TimedPool, enumerable: true } }) as typeof pg;
}

/**
 * The pool's connection class (`pg.Pool`'s `Client` option) for a PostgreSQL server: a connection whose statement
 * has had no answer for `answerTimeoutMs` asks the liveness check whether the database answers at all. If it does
 * not, the connection is dropped with a DatabaseSilentError, which fails its statements (503) and takes it out of
 * the pool; if it does, the statement is merely long (a large import, a lock wait, a migration) and keeps running,
 * up to `longestStatementMs` of silence. Waiting for an answer costs nothing per row: a clock reading per statement
 * and at most one timer per connection every `answerTimeoutMs`.
 *
 * The silence of a statement counts from when it was sent, or, for the first statement on a connection just taken
 * from the pool (poolTimingDriver), from when its taker asked for the connection; after a check found the database
 * answering, from that answer. So a statement fails within `answerTimeoutMs + connectTimeoutMs` of the moment its
 * request began to wait for the database, however the wait was split between the pool, the statement and a check.
 */
export function answerWatchedClient(config: ClientConfig, bounds: AnswerBounds): typeof Client {
  const liveness = new LivenessCheck(config, bounds.connectTimeoutMs, Math.min(CHECK_REUSE_MS, bounds.answerTimeoutMs));
  return class AnswerWatchedClient extends Client {
    /** Since when the connection has waited for an answer: its last answer, or the statement sent when it was idle. */
    private since = 0;
    /** Since when the database is known to have been silent for this connection's statement: `since`, or a later check's answer. */
    private heardAt = 0;
    private watch?: NodeJS.Timeout;
    /** A liveness check is under way for this connection: it looks again when that ends. */
    private checking = false;
    private ended = false;

    constructor(clientConfig?: string | ClientConfig) {
      super(clientConfig);
      // A ReadyForQuery message ends each statement.
      this.internals.connection.on('readyForQuery', () => (this.since = this.heardAt = performance.now()));
      this.on('end', () => {
        this.ended = true;
        clearTimeout(this.watch);
      });
    }

    private get internals(): PgInternals & HandedOver {
      return this as unknown as PgInternals & HandedOver;
    }

    // Every form of query() (promise, callback, submittable) comes through here.
    override query(...args: unknown[]): never {
      const asked = this.internals[waitingSince];
      this.internals[waitingSince] = undefined;
      if (this.internals.readyForQuery) this.since = this.heardAt = Math.min(asked ?? Infinity, performance.now());
      const result = (super.query as (...a: unknown[]) => never)(...args);
      if (!this.watch && !this.checking) this.arm(bounds.answerTimeoutMs - (performance.now() - this.heardAt));
      return result;
    }

    private arm(ms: number): void {
      if (this.ended) return;
      this.watch = setTimeout(() => void this.look(), Math.max(1, ms));
      this.watch.unref();
    }

    /** Idle: the watch ends. Silent for less than the answer timeout: looks again when it is up. Else the check. */
    private async look(): Promise<void> {
      this.watch = undefined;
      if (this.internals.readyForQuery) return;
      const since = this.since;
      const now = performance.now();
      if (now - since >= bounds.longestStatementMs) return this.drop(now - since);
      const quietMs = now - this.heardAt;
      if (quietMs < bounds.answerTimeoutMs) return this.arm(bounds.answerTimeoutMs - quietMs);
      this.checking = true;
      const { up, answeredAt } = await liveness.answers();
      this.checking = false;
      if (this.since !== since) return this.look(); // answered meanwhile
      if (!up) return this.drop(performance.now() - since);
      // The database answered at `answeredAt`: the next check comes an answer timeout after that, not after now
      // (an outcome shared by several connections may be up to a second old).
      this.heardAt = Math.max(this.heardAt, answeredAt);
      this.arm(this.heardAt + bounds.answerTimeoutMs - performance.now());
    }

    private drop(silentMs: number): void {
      this.watch = undefined;
      const request = this.internals[heldFor];
      if (request) unavailableTo.add(request);
      dropConnection(this, new DatabaseSilentError(`the database gave no answer for ${Math.round(silentMs)} ms`));
    }
  } as unknown as typeof Client;
}
