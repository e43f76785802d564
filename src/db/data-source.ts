import { Client } from 'pg';
import { DataSource, MigrationExecutor } from 'typeorm';
import { migrations } from '../../migrations';
import { DEFAULT_LOCK_TIMEOUT_MS } from '../config';
import { AnswerBounds, answerWatchedClient, poolTimingDriver } from './answer-watch';
import { cancellableClient } from './statement-cancel';
import { entities } from './entities';
import { namedStatementsOn, withOwnStatementNames } from './named-statements';

/** The longest one statement may run on the server (statement_timeout); a query of the query language sets its own. */
export const STATEMENT_TIMEOUT_MS = 60_000;
/** Idle time before TCP keep-alive probes a connection (a peer gone without a word, when the network says so). */
const KEEPALIVE_DELAY_MS = 10_000;

/**
 * The TypeORM data source on `url`. With `bounds`, no wait for a database reached over TCP is unbounded: a
 * connection from the pool or a new one within `connectTimeoutMs`, and a statement without an answer is watched
 * (answer-watch.ts). Over a unix socket (the embedded database, a server on the same host) none applies: no network
 * can fall silent there, and for the embedded database a slow answer means its one engine is busy, which a
 * liveness check could not tell from silence.
 */
export function createDataSource(url: string, poolSize: number, bounds?: AnswerBounds, lockTimeoutMs = DEFAULT_LOCK_TIMEOUT_MS, cancelStatements?: boolean): DataSource {
  const socket = overUnixSocket(url);
  // A statement of a request whose client has gone is cancelled (statement-cancel.ts), on a PostgreSQL server: by
  // default one reached over TCP; the caller says so for one on a unix socket (never the embedded database).
  cancelStatements ??= !socket;
  if (socket) bounds = undefined;
  const named = namedStatementsAllowed(url);
  const watched = bounds ? answerWatchedClient({ connectionString: url, application_name: 'asset-platform' }, bounds) : Client;
  const base = cancelStatements
    ? cancellableClient(watched, { connectionString: url, application_name: 'asset-platform', connectionTimeoutMillis: bounds?.connectTimeoutMs })
    : watched;
  const dataSource = new DataSource({
    type: 'postgres',
    url,
    entities,
    migrations,
    migrationsTransactionMode: 'each',
    synchronize: false,
    installExtensions: false,
    poolSize,
    // With bounds, the pool notes how long each connection's taker waited for it (answer-watch.ts).
    ...(bounds && { driver: poolTimingDriver() }),
    // Identifiables are large jsonb documents; a statement that runs away is a bug, not a workload.
    extra: {
      statement_timeout: STATEMENT_TIMEOUT_MS,
      lock_timeout: lockTimeoutMs,
      application_name: 'asset-platform',
      ...(bounds && {
        connectionTimeoutMillis: bounds.connectTimeoutMs,
        keepAlive: true,
        keepAliveInitialDelayMillis: KEEPALIVE_DELAY_MS,
      }),
      // Over a unix socket (the embedded database: one session, where a closed connection's named statements would
      // stay), a connection that ends takes its statements out of the session first.
      Client: named ? withOwnStatementNames(base, socket) : base,
    },
  });
  namedStatementsOn.set(dataSource, named);
  return dataSource;
}

/**
 * Named statements are on unless the database URL says `prepared_statements=false`: for a connection pooler that
 * hands a client's statements to different server sessions (PgBouncer in transaction mode before 1.21, or without
 * `max_prepared_statements`), where a statement prepared in one session is missing in the next (docs/operations.md).
 */
function namedStatementsAllowed(url: string): boolean {
  const value = new URL(url).searchParams.get('prepared_statements');
  if (value === null || value === 'true') return true;
  if (value === 'false') return false;
  throw new Error(`prepared_statements in the database URL is true or false, not '${value}'`);
}

/** Whether a connection string names a unix socket directory (`?host=/dir`, or `postgres://%2Fdir/db`). */
export function overUnixSocket(url: string): boolean {
  const parsed = new URL(url);
  return (parsed.searchParams.get('host') ?? decodeURIComponent(parsed.hostname)).startsWith('/');
}

/** Lock key for migrations, so replicas (and parallel test workers) starting at once migrate one at a time. */
const MIGRATION_LOCK = 7_405_991_201;

export async function runMigrations(dataSource: DataSource): Promise<string[]> {
  const runner = dataSource.createQueryRunner();
  await runner.connect();
  try {
    // Migrations wait as long as they must: for another replica's (the advisory lock) and for the locks they take.
    await runner.query('SET lock_timeout = 0');
    await runner.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    try {
      // On the lock's own connection: a pool of one must not wait for a second.
      const executor = new MigrationExecutor(dataSource, runner);
      executor.transaction = 'each';
      const applied = await executor.executePendingMigrations();
      return applied.map((m) => m.name);
    } finally {
      await runner.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]);
    }
  } finally {
    // The connection goes back to the pool: with the lock timeout every other statement has (its startup value).
    await runner.query('RESET lock_timeout').catch(() => undefined);
    await runner.release();
  }
}
