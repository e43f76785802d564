import { Client, ClientConfig } from 'pg';

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

/** How long the outcome of a liveness check stands for every connection that asks (one check at a time). */
const CHECK_REUSE_MS = 1_000;

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
  private running?: Promise<boolean>;
  private last = { at: -Infinity, up: true };

  constructor(
    private readonly config: ClientConfig,
    private readonly timeoutMs: number,
  ) {}

  answers(): Promise<boolean> {
    if (performance.now() - this.last.at < CHECK_REUSE_MS) return Promise.resolve(this.last.up);
    return (this.running ??= this.check().then((up) => {
      this.last = { at: performance.now(), up };
      this.running = undefined;
      return up;
    }));
  }

  private async check(): Promise<boolean> {
    const client = new Client({ ...this.config, connectionTimeoutMillis: this.timeoutMs, keepAlive: false });
    client.on('error', () => undefined);
    const timer = setTimeout(() => dropConnection(client, new DatabaseSilentError('liveness check timed out')), this.timeoutMs);
    try {
      await client.connect();
      await client.query('SELECT 1');
      return true;
    } catch {
      return false;
    } finally {
      clearTimeout(timer);
      dropConnection(client);
    }
  }
}

/**
 * The pool's connection class (`pg.Pool`'s `Client` option) for a PostgreSQL server: a connection whose statement
 * has had no answer for `answerTimeoutMs` asks the liveness check whether the database answers at all. If it does
 * not, the connection is dropped with a DatabaseSilentError, which fails its statements (503) and takes it out of
 * the pool; if it does, the statement is merely long (a large import, a lock wait, a migration) and keeps running,
 * up to `longestStatementMs` of silence. Waiting for an answer costs nothing per row: a clock reading per statement
 * and at most one timer per connection every `answerTimeoutMs`.
 */
export function answerWatchedClient(config: ClientConfig, bounds: AnswerBounds): typeof Client {
  const liveness = new LivenessCheck(config, bounds.connectTimeoutMs);
  return class AnswerWatchedClient extends Client {
    /** Since when the connection has waited for an answer: its last answer, or the statement sent when it was idle. */
    private since = 0;
    private watch?: NodeJS.Timeout;
    /** A liveness check is under way for this connection: it looks again when that ends. */
    private checking = false;
    private ended = false;

    constructor(clientConfig?: string | ClientConfig) {
      super(clientConfig);
      // A ReadyForQuery message ends each statement.
      this.internals.connection.on('readyForQuery', () => (this.since = performance.now()));
      this.on('end', () => {
        this.ended = true;
        clearTimeout(this.watch);
      });
    }

    private get internals(): PgInternals {
      return this as unknown as PgInternals;
    }

    // Every form of query() (promise, callback, submittable) comes through here.
    override query(...args: unknown[]): never {
      if (this.internals.readyForQuery) this.since = performance.now();
      const result = (super.query as (...a: unknown[]) => never)(...args);
      if (!this.watch && !this.checking) this.arm(bounds.answerTimeoutMs);
      return result;
    }

    private arm(ms: number): void {
      if (this.ended) return;
      this.watch = setTimeout(() => void this.look(), ms);
      this.watch.unref();
    }

    /** Idle: the watch ends. Silent for less than the answer timeout: looks again when it is up. Else the check. */
    private async look(): Promise<void> {
      this.watch = undefined;
      if (this.internals.readyForQuery) return;
      const since = this.since;
      const silentMs = performance.now() - since;
      if (silentMs < bounds.answerTimeoutMs) return this.arm(bounds.answerTimeoutMs - silentMs);
      if (silentMs >= bounds.longestStatementMs) return this.drop(silentMs);
      this.checking = true;
      const up = await liveness.answers();
      this.checking = false;
      if (this.since !== since) return this.look(); // answered meanwhile
      if (up) this.arm(bounds.answerTimeoutMs);
      else this.drop(performance.now() - since);
    }

    private drop(silentMs: number): void {
      this.watch = undefined;
      dropConnection(this, new DatabaseSilentError(`the database gave no answer for ${Math.round(silentMs)} ms`));
    }
  } as unknown as typeof Client;
}
