import { randomBytes, randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { resolveStatement } from '../../src/aas/semantics/semantic.service';
import { createDataSource, runMigrations } from '../../src/db/data-source';
import { COLOCATION_TABLE, NESTED_READERS, SHARD_KEY, SHARED_TABLES, TENANT_TABLES, distributeOnCitus } from '../../src/db/distribution';
import { CitusNode, FreshCitusDatabase, citusNodes, freshCitusDatabase } from '../support/citus-database';

/**
 * On a Citus cluster (the suite run with DATABASE_URL naming a database of a coordinator: docs/scale-out.md), a fresh
 * database runs every migration from the first and comes out as src/db/distribution.ts places it: the shared tables
 * reference tables, the tenant-owned ones distributed by tenant_id and colocated, none left a Citus local table, and
 * the functions that read the tenant's shards from within a statement on a worker allowed to; and so does a database
 * migrated before it gained Citus, placed by `npm run db:distribute` (distributeOnCitus). Skipped elsewhere
 * (the database of DATABASE_URL has no `citus` extension, or there is none: the embedded database).
 */

let nodes: CitusNode[] = [];
const opened: { database: FreshCitusDatabase; dataSource: DataSource }[] = [];

beforeAll(async () => {
  if (process.env.DATABASE_URL) nodes = await citusNodes(inject('databaseUrl'));
}, 120_000);

afterAll(async () => {
  for (const { database, dataSource } of opened) {
    await dataSource.destroy();
    await database.drop();
  }
});

/** A database of the test's own on the cluster (`extension: false`: plain until `addCitus`), and a data source on it. */
async function database(options: { extension?: boolean } = {}): Promise<{ database: FreshCitusDatabase; dataSource: DataSource }> {
  const made = await freshCitusDatabase(inject('databaseUrl'), nodes, `citus_migrations_${randomBytes(4).toString('hex')}`, options);
  const dataSource = await createDataSource(made.url, 2).initialize().catch(async (err) => {
    await made.drop();
    throw err;
  });
  opened.push({ database: made, dataSource });
  return { database: made, dataSource };
}

/** What breaks src/db/distribution.ts's placement of the tables, each as a line; and the equivalent resolve's answer. */
async function placementOf(dataSource: DataSource): Promise<string[]> {
  const placed: { table: string; type: string; column: string | null; colocation: number }[] = await dataSource.query(
    `SELECT table_name::text AS table, citus_table_type AS type, distribution_column AS column, colocation_id AS colocation FROM citus_tables`,
  );
  const byTable = new Map(placed.map((row) => [row.table, row]));
  const shells = byTable.get(COLOCATION_TABLE);
  // A table created with a foreign key to a reference table becomes a Citus local table, which cannot be distributed.
  const local: { table: string }[] = await dataSource.query(`SELECT logicalrelid::regclass::text AS table FROM pg_dist_partition WHERE partmethod = 'n' AND repmodel <> 't'`);
  const keys: { table: string }[] = await dataSource.query(
    `SELECT conrelid::regclass::text AS table FROM pg_constraint WHERE contype = 'f' AND confrelid = 'tenants'::regclass AND conrelid::regclass::text LIKE 'semantic%' ORDER BY 1`,
  );
  const settings = await Promise.all(NESTED_READERS.map(async (fn) => [fn, (await dataSource.query('SELECT proconfig AS config FROM pg_proc WHERE oid = to_regprocedure($1)', [fn]))[0]?.config] as const));
  return [
    ...SHARED_TABLES.filter((table) => table !== 'migrations' && byTable.get(table)?.type !== 'reference').map((table) => `${table}: ${byTable.get(table)?.type ?? 'not placed'}, not reference`),
    ...TENANT_TABLES.filter((table) => {
      const row = byTable.get(table);
      return row?.type !== 'distributed' || row.column !== SHARD_KEY || row.colocation !== shells?.colocation;
    }).map((table) => `${table}: ${JSON.stringify(byTable.get(table) ?? 'not placed')}, not distributed by ${SHARD_KEY} with ${COLOCATION_TABLE}`),
    ...local.map((row) => `${row.table}: a Citus local table`),
    ...(keys.map((row) => row.table).join() === 'semantic_dictionaries,semantic_equivalence_sets' ? [] : [`keys to tenants: ${keys.map((row) => row.table).join()}`]),
    ...settings.filter(([, config]) => !(config ?? []).includes('citus.allow_nested_distributed_execution=on')).map(([fn, config]) => `${fn}: ${JSON.stringify(config)}`),
  ];
}

/** The equivalent resolve's statement, for a tenant without data: Citus sends it to one worker, which calls semantic_neighbours. */
async function resolveKeys(dataSource: DataSource): Promise<unknown> {
  const [row] = await dataSource.query(resolveStatement('equivalent'), [randomUUID(), ['irdi:0173-1#02-AAO677'], 5001]);
  return row.keys;
}

const KEYS = { capped: false, keys: [[1, ['irdi:0173-1#02-AAO677']]] };

describe('the migrations on a Citus cluster', () => {
  it('run on a fresh database from the first to the last and place every table as src/db/distribution.ts lists it', async (ctx) => {
    if (!nodes.length) ctx.skip();
    const { dataSource } = await database();
    expect((await runMigrations(dataSource)).length).toBeGreaterThan(20);
    expect(await placementOf(dataSource)).toEqual([]);
    expect(await resolveKeys(dataSource)).toEqual(KEYS);
  }, 300_000);

  it('place a database that gains Citus later (npm run db:distribute), its functions on every node', async (ctx) => {
    if (!nodes.length) ctx.skip();
    const { database: made, dataSource } = await database({ extension: false });
    await runMigrations(dataSource);
    await made.addCitus();
    const placed = await dataSource.transaction((manager) => distributeOnCitus((sql, params) => manager.query(sql, params)));
    expect(placed).toEqual(expect.arrayContaining([...SHARED_TABLES.filter((table) => table !== 'migrations'), ...TENANT_TABLES]));
    expect(await placementOf(dataSource)).toEqual([]);
    expect(await resolveKeys(dataSource)).toEqual(KEYS);
  }, 300_000);
});

