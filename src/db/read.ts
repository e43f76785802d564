import type { Pool, QueryConfig } from 'pg';
import { requestSignal } from '../common/client-gone';
import { DataSource } from 'typeorm';
import type { PostgresDriver } from 'typeorm/driver/postgres/PostgresDriver';
import { badRequest } from '../graphql/errors';
import { namedStatements, statementName } from './named-statements';
import { WriteBatcher } from './write-batch';

/** PostgreSQL errors caused by what a client sent (text it cannot store, a key too large to index). */
const CLIENT_TEXT_ERRORS: Record<string, string> = {
  '22021': 'The request contains a character PostgreSQL cannot store (such as U+0000).',
  '22P05': 'The request contains a character PostgreSQL cannot store (such as U+0000).',
  '54000': 'A value in the request is too large to be stored or looked up.',
};

/** Re-throws a database error caused by the client's text as a 400; anything else as it is. */
export function rethrowClientError(err: unknown): never {
  const code = (err as { code?: string; driverError?: { code?: string } }).driverError?.code ?? (err as { code?: string }).code;
  if (code !== undefined && Object.hasOwn(CLIENT_TEXT_ERRORS, code)) throw badRequest(CLIENT_TEXT_ERRORS[code]);
  throw err;
}

/**
 * A single read statement straight on TypeORM's connection pool, for the hot paths (GET by id, list pages):
 * it skips the per-query QueryRunner, its event broadcasts and result wrapping, which cost as much CPU as the
 * query's own round trip. Writes and transactions keep going through TypeORM. `named`: a hot statement of few texts,
 * sent as a named statement (`send`).
 */
export function readRows<T>(dataSource: DataSource, sql: string, params: unknown[], named = false): Promise<T[]> {
  return send<T>(dataSource, sql, params, named).catch(rethrowClientError);
}

/**
 * `sql` on the pool; `named`: as a named statement (prepared once per connection), where they are on
 * (`namedStatements`). For statements whose text is one of few (a hot path's), never for texts built per request.
 */
function send<T>(dataSource: DataSource, sql: string, params: unknown[], named: boolean): Promise<T[]> {
  // The request's client-gone signal, named here: the pool may hand the connection over in another request's context.
  return sendOnPool<T>(poolOf(dataSource), sql, params, nameOf(dataSource, sql, named), requestSignal() ?? null);
}

function poolOf(dataSource: DataSource): Pool {
  return (dataSource.driver as PostgresDriver).master as Pool;
}

function nameOf(dataSource: DataSource, sql: string, named: boolean): string | undefined {
  return named && namedStatements(dataSource) ? statementName(sql) : undefined;
}

function sendOnPool<T>(pool: Pool, sql: string, params: unknown[], name: string | undefined, clientGone: AbortSignal | null): Promise<T[]> {
  const query = pool.query({ ...(name !== undefined && { name }), text: sql, values: params, clientGone } as QueryConfig);
  return query.then((result) => result.rows as T[]);
}

const batchers = new WeakMap<DataSource, WriteBatcher>();

/** The group commit of `dataSource`'s one-statement writes (write-batch.ts). */
export function writeBatcher(dataSource: DataSource): WriteBatcher {
  let batcher = batchers.get(dataSource);
  if (!batcher) {
    const pool = poolOf(dataSource);
    batcher = new WriteBatcher(pool, (sql, params, name, clientGone) => sendOnPool(pool, sql, params, name, clientGone));
    batchers.set(dataSource, batcher);
  }
  return batcher;
}

/**
 * A single statement that writes, in autocommit: it commits on its own when it succeeds (no START or COMMIT of a
 * transaction around it), and changes nothing when it fails. For writes that are one statement (`IdentifiableStore`:
 * data-modifying CTEs carrying the row lock, the `If-Match` check and the outbox row). `key`: the identifiable it
 * writes. When other writes are under way it goes with those that wait beside it, in one transaction (write-batch.ts).
 */
export function writeRows<T>(dataSource: DataSource, sql: string, params: unknown[], named: boolean, key: string): Promise<T[]> {
  return writeBatcher(dataSource).write<T>(sql, params, nameOf(dataSource, sql, named), key, requestSignal() ?? null);
}
