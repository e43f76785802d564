import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DataSource } from 'typeorm';
import { createDataSource, runMigrations } from '../../src/db/data-source';
import { SHARD_KEY, SHARED_TABLES, TENANT_TABLES, isTenantOwned } from '../../src/db/distribution';
import { FreshDatabase, freshDatabase } from '../support/fresh-database';

/**
 * The schema that the migrations make can be distributed by Citus with `tenant_id` as the shard key
 * (src/db/distribution.ts): read from pg_catalog of a freshly migrated database of the test's own (a new database
 * on the server of DATABASE_URL, else an embedded one). Each rule lists what breaks it, by table and key, so that a
 * failure says what to fix.
 */

let database: FreshDatabase | undefined;
let dataSource: DataSource | undefined;
let tables: string[] = [];

const query = <T>(sql: string, params: unknown[] = []): Promise<T[]> => dataSource!.query(sql, params);

beforeAll(async () => {
  database = await freshDatabase('distribution');
  dataSource = createDataSource(database.url, 2);
  await dataSource.initialize();
  await runMigrations(dataSource);
  const rows = await query<{ name: string }>(
    `SELECT c.relname AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p') AND NOT c.relispartition ORDER BY 1`,
  );
  tables = rows.map((r) => r.name);
}, 120_000);

afterAll(async () => {
  await dataSource?.destroy();
  await database?.drop();
});

const tenantTables = () => tables.filter(isTenantOwned);

describe('distribution of the schema by tenant_id', () => {
  it('classifies every table as shared or tenant-owned, and no table as both', () => {
    expect(tables.length).toBeGreaterThan(SHARED_TABLES.length);
    const unclassified = tables.filter((t) => !SHARED_TABLES.includes(t) && !TENANT_TABLES.includes(t));
    expect(unclassified, 'tables in neither SHARED_TABLES nor TENANT_TABLES of src/db/distribution.ts').toEqual([]);
    const both = SHARED_TABLES.filter((t) => TENANT_TABLES.includes(t));
    expect(both, 'tables in both lists of src/db/distribution.ts').toEqual([]);
    const gone = [...SHARED_TABLES, ...TENANT_TABLES].filter((t) => !tables.includes(t));
    expect(gone, 'tables classified in src/db/distribution.ts that the migrations do not make').toEqual([]);
  });

  it('gives every tenant-owned table a NOT NULL tenant_id', async () => {
    const columns = await query<{ table: string; notnull: boolean }>(
      `SELECT c.relname AS table, a.attnotnull AS notnull
         FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname = 'public' AND a.attname = $1 AND NOT a.attisdropped`,
      [SHARD_KEY],
    );
    const byTable = new Map(columns.map((c) => [c.table, c.notnull]));
    const offenders = tenantTables().flatMap((t) =>
      !byTable.has(t) ? [`${t}: no ${SHARD_KEY} column`] : byTable.get(t) ? [] : [`${t}: ${SHARD_KEY} is nullable`],
    );
    expect(offenders).toEqual([]);
  });

  it('leads the primary key and every unique index of a tenant-owned table with tenant_id', async () => {
    const indexes = await query<{ table: string; index: string; primary: boolean; first: string; definition: string }>(
      `SELECT t.relname AS table, i.relname AS index, x.indisprimary AS primary,
              pg_get_indexdef(x.indexrelid, 1, true) AS first, pg_get_indexdef(x.indexrelid) AS definition
         FROM pg_index x JOIN pg_class t ON t.oid = x.indrelid JOIN pg_class i ON i.oid = x.indexrelid
         JOIN pg_namespace n ON n.oid = t.relnamespace
        WHERE n.nspname = 'public' AND x.indisunique
        ORDER BY 1, 2`,
    );
    const owned = new Set(tenantTables());
    const withPrimaryKey = new Set(indexes.filter((i) => i.primary).map((i) => i.table));
    const offenders = [
      ...[...owned].filter((t) => !withPrimaryKey.has(t)).map((t) => `${t}: no primary key`),
      ...indexes
        .filter((i) => owned.has(i.table) && i.first !== SHARD_KEY)
        .map((i) => `${i.table}: ${i.primary ? 'primary key' : 'unique index'} ${i.index} leads with ${i.first} (${i.definition})`),
    ];
    expect(offenders).toEqual([]);
  });

  it('has no triggers on tenant-owned tables', async () => {
    const triggers = await query<{ table: string; trigger: string; definition: string }>(
      `SELECT c.relname AS table, g.tgname AS trigger, pg_get_triggerdef(g.oid) AS definition
         FROM pg_trigger g JOIN pg_class c ON c.oid = g.tgrelid JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname = 'public' AND NOT g.tgisinternal ORDER BY 1, 2`,
    );
    const offenders = triggers.filter((t) => isTenantOwned(t.table)).map((t) => `${t.table}: trigger ${t.trigger} (${t.definition})`);
    expect(offenders).toEqual([]);
  });

  it('includes tenant_id, as the first column pair, in every foreign key between tenant-owned tables', async () => {
    const keys = await query<{ table: string; name: string; referenced: string; columns: string[]; referencedColumns: string[]; definition: string }>(
      `SELECT c.relname AS table, k.conname AS name, r.relname AS referenced,
              ARRAY(SELECT a.attname::text FROM unnest(k.conkey) WITH ORDINALITY u(n, o)
                      JOIN pg_attribute a ON a.attrelid = k.conrelid AND a.attnum = u.n ORDER BY u.o) AS columns,
              ARRAY(SELECT a.attname::text FROM unnest(k.confkey) WITH ORDINALITY u(n, o)
                      JOIN pg_attribute a ON a.attrelid = k.confrelid AND a.attnum = u.n ORDER BY u.o) AS "referencedColumns",
              pg_get_constraintdef(k.oid) AS definition
         FROM pg_constraint k JOIN pg_class c ON c.oid = k.conrelid JOIN pg_class r ON r.oid = k.confrelid
         JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname = 'public' AND k.contype = 'f' ORDER BY 1, 2`,
    );
    // Keys to shared tables (a tenant, an account) are allowed: those tables are on every node.
    const between = keys.filter((k) => isTenantOwned(k.table) && isTenantOwned(k.referenced));
    const offenders = between
      .filter((k) => k.columns[0] !== SHARD_KEY || k.referencedColumns[0] !== SHARD_KEY)
      .map((k) => `${k.table}: foreign key ${k.name} to ${k.referenced} ${k.definition}`);
    expect(offenders).toEqual([]);
  });
});
