import { AsyncResource } from 'node:async_hooks';
import { DatabaseError, type Pool, type PoolClient } from 'pg';
import { apartFromRequest } from '../common/client-gone';

/**
 * Group commit of the one-statement writes (`writeRows`): writes that come while others are under way go to
 * PostgreSQL together, as one pipeline on one connection (each statement's Bind, Describe and Execute, one Sync at
 * the end), so that they run one after the other in one transaction, with one commit, one flush of the write-ahead
 * log and one round trip for all of them. Each write still sees those before it in the batch (each statement takes
 * its own snapshot, as in autocommit), and its answer is its own statement's rows.
 *
 * - **When.** A write is sent at once while fewer than `maxInFlight` batches are under way (alone, as before, when
 *   the server is not busy); else it waits for one of them to end and goes with everything else that waited, up to
 *   `maxBatch` statements.
 * - **Locks.** A batch's statements run in the order of their keys (the identifiable each writes; writes of one key
 *   in the order they came), so two batches take the rows' locks in one order and cannot deadlock on them. Several
 *   writes of one document in a batch take its lock once: each sees those before it, as it would after their
 *   commits, and a compare-and-set that no longer holds writes nothing (its caller reads again, as after any race).
 *   A batch waits for a lock `BATCH_LOCK_TIMEOUT` at most (`lock_timeout` for its transaction): a row held longer,
 *   by a transaction of another kind (an import, a locking element write), fails the batch, and its writes go alone,
 *   so the one that waits for the row waits alone, never with a batch of others' writes behind it.
 * - **Size.** A write whose parameters exceed `BATCH_BYTES` (a large submodel) goes alone at once: the writes that
 *   would have gone with it need not wait for it.
 * - **Failures.** A statement that fails rolls the whole batch back (PostgreSQL's ERROR, then nothing of the batch
 *   committed). Then each of its writes is sent again alone, so that only the one that failed fails, with its own
 *   error, and the others are written as if the batch had never been. Where the connection broke instead (or the
 *   session ended, a FATAL error), whether the batch committed cannot be told, and each of its writes fails with that
 *   error, as a lone statement would.
 * - **Acknowledgement.** A write is answered after its batch committed: `synchronous_commit` holds for it as for a
 *   lone statement.
 * - **Cancel.** A batch is not cancelled when one of its requests' clients goes (it would stop the others' writes);
 *   a write sent alone is, as before.
 * - **Context.** A batch is sent apart from any request (it serves several: no request's client-gone signal or
 *   earlier failure applies to it); a write sent alone, also when its batch failed, in its own request's context.
 */

/** One write: the statement, its parameters, its name where named, the key it writes, and its caller's promise. */
interface Pending {
  sql: string;
  params: unknown[];
  name: string | undefined;
  key: string;
  clientGone: AbortSignal | null;
  /** The async context of the request that wrote: a write sent alone runs in it. */
  scope: AsyncResource;
  resolve(rows: unknown[]): void;
  reject(err: unknown): void;
}

/** A statement sent alone on the pool (`read.ts`), under its request's client-gone signal. */
export type SendAlone = (sql: string, params: unknown[], name: string | undefined, clientGone: AbortSignal | null) => Promise<unknown[]>;

// pg's internals this module speaks through: the connection's writer and its record of prepared statements.
interface PgConnection {
  stream: { cork?(): void; uncork?(): void };
  parsedStatements: Record<string, string>;
  submittedNamedStatements: Record<string, string>;
  parse(query: { text: string; name?: string }): void;
  bind(config: { statement?: string; values: unknown[]; valueMapper?: (value: unknown) => unknown }): void;
  describe(msg: { type: 'P'; name: string }): void;
  execute(config: { portal: string; rows?: number }): void;
  sync(): void;
  on(event: 'parseComplete', listener: () => void): void;
  removeListener(event: 'parseComplete', listener: () => void): void;
}

interface PgResult {
  rows: unknown[];
  addFields(fields: unknown[]): void;
  parseRow(fields: unknown[]): unknown;
  addRow(row: unknown): void;
}

// eslint-disable-next-line @typescript-eslint/no-require-imports -- pg's row parser, which has no types of its own
const Result = require('pg/lib/result') as new () => PgResult;
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { prepareValue } = require('pg/lib/utils') as { prepareValue(value: unknown): unknown };

/** How long a batch waits for a row lock (see above). */
export const BATCH_LOCK_TIMEOUT = '100ms';
/** Parameters of a write, in bytes, above which it goes alone (see above). */
export const BATCH_BYTES = 256 * 1024;
/** The first statement of each batch: its transaction's lock_timeout. */
const LOCK_TIMEOUT_SQL = `SELECT set_config('lock_timeout', '${BATCH_LOCK_TIMEOUT}', true)`;

/** What a batch's statements answered: each one's rows, or the error that rolled the batch back. */
type Outcome = { rows: unknown[][] } | { failed: unknown };

/**
 * The batch as one submittable of the `pg` driver (`client.query(batch)`): it writes its messages to the
 * connection in one write and reads the answers of its statements in order. `clientGone: null`: sent under no
 * request's signal (statement-cancel.ts).
 */
export class PipelinedStatements {
  readonly clientGone = null;
  /** Added to each statement's name by the connection (named-statements.ts: names of their own per connection). */
  statementSuffix = '';
  callback?: (err: unknown, outcome?: Outcome) => void;
  private readonly results: PgResult[];
  private current = 0;
  private failed: unknown;
  /** Statements parsed in this batch, in order: a ParseComplete message comes for each that PostgreSQL parsed. */
  private readonly parsing: { name: string; text: string }[] = [];
  private parsed = 0;
  private connection?: PgConnection;
  private readonly onParsed = () => {
    const statement = this.parsing[this.parsed++];
    if (!statement?.name || !this.connection) return;
    this.connection.parsedStatements[statement.name] = statement.text;
    delete this.connection.submittedNamedStatements[statement.name];
  };

  constructor(private readonly statements: { sql: string; params: unknown[]; name: string | undefined }[]) {
    this.results = statements.map(() => new Result());
  }

  /** The texts of the statements, in the order they run (for what records the statements sent: tests). */
  get texts(): string[] {
    return this.statements.map((statement) => statement.sql);
  }

  submit(connection: PgConnection): Error | null {
    const names = this.statements.map(({ name }) => (name === undefined ? undefined : `${name}${this.statementSuffix}`));
    // Checked before anything is written: a batch is sent whole, with its Sync, or not at all.
    for (const [i, named] of names.entries()) {
      const known = named === undefined ? undefined : (connection.parsedStatements[named] ?? connection.submittedNamedStatements[named]);
      if (known !== undefined && known !== this.statements[i].sql) return new Error(`Prepared statements must be unique - '${named}' was used for a different statement`);
    }
    this.connection = connection;
    connection.on('parseComplete', this.onParsed);
    connection.stream.cork?.();
    try {
      for (const [i, { sql, params }] of this.statements.entries()) {
        const named = names[i];
        const known = named === undefined ? undefined : (connection.parsedStatements[named] ?? connection.submittedNamedStatements[named]);
        if (known === undefined) {
          connection.parse({ text: sql, name: named });
          if (named !== undefined) {
            connection.submittedNamedStatements[named] = sql;
            this.parsing.push({ name: named, text: sql });
          } else {
            this.parsing.push({ name: '', text: sql });
          }
        }
        // The values were prepared before (`prepared`): binding cannot fail half-way through the batch.
        connection.bind({ statement: named ?? '', values: params });
        connection.describe({ type: 'P', name: '' });
        connection.execute({ portal: '' });
      }
      connection.sync();
    } finally {
      connection.stream.uncork?.();
    }
    return null;
  }

  handleRowDescription(msg: { fields: unknown[] }): void {
    this.results[this.current]?.addFields(msg.fields);
  }

  handleDataRow(msg: { fields: unknown[] }): void {
    const result = this.results[this.current];
    if (!result || this.failed !== undefined) return;
    try {
      result.addRow(result.parseRow(msg.fields));
    } catch (err) {
      this.failed = err;
    }
  }

  handleCommandComplete(): void {
    this.current++;
  }

  handleEmptyQuery(): void {
    this.current++;
  }

  handlePortalSuspended(): void {}

  handleCopyInResponse(): void {}

  handleCopyData(): void {}

  /** PostgreSQL's error (the batch rolled back; ReadyForQuery follows), or the connection's. */
  handleError(err: unknown): void {
    this.end();
    this.callback?.(err);
    this.callback = undefined;
  }

  handleReadyForQuery(): void {
    this.end();
    if (this.failed !== undefined) return this.handleError(this.failed);
    this.callback?.(null, { rows: this.results.map((result) => result.rows) });
    this.callback = undefined;
  }

  /** The statements submitted for parsing that PostgreSQL skipped after an error are not prepared. */
  private end(): void {
    const connection = this.connection;
    if (!connection) return;
    connection.removeListener('parseComplete', this.onParsed);
    for (const { name } of this.parsing.slice(this.parsed)) {
      if (name && connection.submittedNamedStatements[name] !== undefined && connection.parsedStatements[name] === undefined) delete connection.submittedNamedStatements[name];
    }
    this.connection = undefined;
  }
}

/** The values of a statement as the driver would send them (strings, buffers, nulls); throws what it would throw. */
function prepared(params: unknown[]): unknown[] {
  return params.map((value) => prepareValue(value));
}

/** An estimate of the bytes the parameters take (strings by their length, the rest counted small). */
function paramBytes(params: unknown[]): number {
  let bytes = 0;
  for (const value of params) bytes += typeof value === 'string' ? value.length : Buffer.isBuffer(value) ? value.length : 16;
  return bytes;
}

/** A session-ending error (FATAL, PANIC) or none of PostgreSQL's: whether the batch committed cannot be told. */
function broke(err: unknown): boolean {
  return !(err instanceof DatabaseError) || err.severity !== 'ERROR';
}

export class WriteBatcher {
  private readonly waiting: Pending[] = [];
  private inFlight = 0;
  private scheduled = false;
  /** Statements sent and batches sent (for tests and the bench: how much was put together). */
  readonly counts = { statements: 0, batches: 0, retried: 0 };

  constructor(
    private readonly pool: Pool,
    private readonly alone: SendAlone,
    private readonly maxInFlight = 2,
    private readonly maxBatch = 32,
  ) {}

  write<T>(sql: string, params: unknown[], name: string | undefined, key: string, clientGone: AbortSignal | null): Promise<T[]> {
    if (paramBytes(params) > BATCH_BYTES) return this.alone(sql, params, name, clientGone) as Promise<T[]>;
    return new Promise<unknown[]>((resolve, reject) => {
      this.waiting.push({ sql, params, name, key, clientGone, scope: new AsyncResource('asset-platform:write'), resolve, reject });
      this.schedule();
    }) as Promise<T[]>;
  }

  /** A flush after the current turn of the event loop: the writes that come in it go together. */
  private schedule(): void {
    if (this.scheduled || this.inFlight >= this.maxInFlight || !this.waiting.length) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      apartFromRequest(() => this.flush());
    });
  }

  private flush(): void {
    while (this.inFlight < this.maxInFlight && this.waiting.length) {
      const batch = this.take();
      this.inFlight++;
      void this.send(batch).finally(() => {
        this.inFlight--;
        this.schedule();
      });
    }
  }

  /** The next batch: the first waiting writes, up to `maxBatch`, in the order of their keys (stable). */
  private take(): Pending[] {
    return this.waiting.splice(0, this.maxBatch).sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  }

  private async send(batch: Pending[]): Promise<void> {
    this.counts.batches++;
    this.counts.statements += batch.length;
    if (batch.length === 1) return this.sendAlone(batch[0]);
    const statements: { sql: string; params: unknown[]; name: string | undefined }[] = [{ sql: LOCK_TIMEOUT_SQL, params: [], name: undefined }];
    const members: Pending[] = [];
    for (const pending of batch) {
      try {
        statements.push({ sql: pending.sql, params: prepared(pending.params), name: pending.name });
        members.push(pending);
      } catch (err) {
        pending.reject(err);
      }
    }
    if (members.length <= 1) return members.length ? this.sendAlone(members[0]) : undefined;
    let client: PoolClient;
    try {
      client = await this.pool.connect();
    } catch (err) {
      for (const pending of members) pending.reject(err);
      return;
    }
    let outcome: Outcome;
    // A connection lost while it is taken (a silent database dropped by the answer watch) emits 'error' beside failing
    // the group's statements, which the callback below gets: the pool listens only while the connection is idle, and
    // an 'error' nobody listens to would end the process.
    const lost = () => undefined;
    client.on('error', lost);
    try {
      outcome = await new Promise<Outcome>((resolve) => {
        const pipeline = new PipelinedStatements(statements);
        pipeline.callback = (err, done) => resolve(err == null ? done! : { failed: err });
        client.query(pipeline as never);
      });
    } catch (err) {
      outcome = { failed: err };
    }
    client.removeListener('error', lost);
    const broken = 'failed' in outcome && broke(outcome.failed);
    client.release(broken ? (outcome as { failed: Error }).failed : undefined);
    if ('rows' in outcome) {
      members.forEach((pending, i) => pending.resolve(outcome.rows[i + 1]));
      return;
    }
    if (broken) {
      for (const pending of members) pending.reject(outcome.failed);
      return;
    }
    // PostgreSQL refused one statement and rolled the batch back: each write again on its own.
    this.counts.retried += members.length;
    await Promise.all(members.map((pending) => this.sendAlone(pending)));
  }

  private async sendAlone(pending: Pending): Promise<void> {
    try {
      pending.resolve(await pending.scope.runInAsyncScope(() => this.alone(pending.sql, pending.params, pending.name, pending.clientGone)));
    } catch (err) {
      pending.reject(err);
    }
  }
}
