import { randomBytes, randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { resolveStatement } from '../../src/aas/semantics/semantic.service';
import { createDataSource, runMigrations } from '../../src/db/data-source';
import { COLOCATION_TABLE, NESTED_READERS, SHARD_KEY, SHARED_TABLES, TENANT_TABLES } from '../../src/db/distribution';
import { CitusNode, citusNodes, freshCitusDatabase } from '../support/citus-database';

/**
 * On a Citus cluster (the suite run with DATABASE_URL naming a database of a coordinator: docs/scale-out.md), a fresh
 * database runs every migration from the first and comes out as src/db/distribution.ts places it: the shared tables
 * reference tables, the tenant-owned ones distributed by tenant_id and colocated, none left a Citus local table, and
 * the functions that read the tenant's shards from within a statement on a worker allowed to. Skipped elsewhere
 * (the database of DATABASE_URL has no `citus` extension, or there is none: the embedded database).
 */

let nodes: CitusNode[] = [];
let database: { url: string; drop(): Promise<void> } | undefined;
let dataSource: DataSource | undefined;

beforeAll(async () => {
  const url = inject('databaseUrl');
  if (!process.env.DATABASE_URL) return;
  nodes = await citusNodes(url);
  if (!nodes.length) return;
  database = await freshCitusDatabase(url, nodes, `citus_migrations_${randomBytes(4).toString('hex')}`);
  dataSource = await createDataSource(database.url, 2).initialize();
}, 120_000);

afterAll(async () => {
  await dataSource?.destroy();
  await database?.drop();
});

describe('the migrations on a fresh Citus database', () => {
  it('run from the first to the last and place every table as src/db/distribution.ts lists it', async (ctx) => {
    if (!dataSource) ctx.skip();
    const applied = await runMigrations(dataSource!);
    expect(applied.length).toBeGreaterThan(20);
    const placed: { table: string; type: string; column: string | null; colocation: number }[] = await dataSource!.query(
      `SELECT table_name::text AS table, citus_table_type AS type, distribution_column AS column, colocation_id AS colocation FROM citus_tables`,
    );
    const byTable = new Map(placed.map((row) => [row.table, row]));
    const shells = byTable.get(COLOCATION_TABLE);
    const misplaced = [
      ...SHARED_TABLES.filter((table) => table !== 'migrations' && byTable.get(table)?.type !== 'reference').map((table) => `${table}: ${byTable.get(table)?.type ?? 'not placed'}, not reference`),
      ...TENANT_TABLES.filter((table) => {
        const row = byTable.get(table);
        return row?.type !== 'distributed' || row.column !== SHARD_KEY || row.colocation !== shells?.colocation;
      }).map((table) => `${table}: ${JSON.stringify(byTable.get(table) ?? 'not placed')}, not distributed by ${SHARD_KEY} with ${COLOCATION_TABLE}`),
    ];
    expect(misplaced).toEqual([]);
    // A table created with a foreign key to a reference table becomes a Citus local table, which cannot be distributed.
    const local: { table: string }[] = await dataSource!.query(`SELECT logicalrelid::regclass::text AS table FROM pg_dist_partition WHERE partmethod = 'n' AND repmodel <> 't'`);
    expect(local.map((row) => row.table)).toEqual([]);
    const keys: { table: string }[] = await dataSource!.query(
      `SELECT conrelid::regclass::text AS table FROM pg_constraint WHERE contype = 'f' AND confrelid = 'tenants'::regclass AND conrelid::regclass::text LIKE 'semantic%' ORDER BY 1`,
    );
    expect(keys.map((row) => row.table)).toEqual(['semantic_dictionaries', 'semantic_equivalence_sets']);
  }, 300_000);

  it('lets the closure of the semantic connector run on the tenant\'s worker (semantic_neighbours reads its shards there)', async (ctx) => {
    if (!dataSource) ctx.skip();
    for (const fn of NESTED_READERS) {
      const [{ config }] = await dataSource!.query('SELECT proconfig AS config FROM pg_proc WHERE oid = to_regprocedure($1)', [fn]);
      expect(config, fn).toContain('citus.allow_nested_distributed_execution=on');
    }
    // The equivalent resolve's statement, for a tenant without data: Citus sends it to one worker, which calls the function.
    const [row] = await dataSource!.query(resolveStatement('equivalent'), [randomUUID(), ['irdi:0173-1#02-AAO677'], 5001]);
    expect(row.keys).toEqual({ capped: false, keys: [[1, ['irdi:0173-1#02-AAO677']]] });
  });
});
