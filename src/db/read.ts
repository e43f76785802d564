import type { Pool } from 'pg';
import { DataSource } from 'typeorm';
import type { PostgresDriver } from 'typeorm/driver/postgres/PostgresDriver';

/**
 * A single read statement straight on TypeORM's connection pool, for the hot paths (GET by id, list pages):
 * it skips the per-query QueryRunner, its event broadcasts and result wrapping, which cost as much CPU as the
 * query's own round trip. Writes and transactions keep going through TypeORM.
 */
export function readRows<T>(dataSource: DataSource, sql: string, params: unknown[]): Promise<T[]> {
  const pool = (dataSource.driver as PostgresDriver).master as Pool;
  return pool.query(sql, params).then((result) => result.rows as T[]);
}
