import { MigrationInterface, QueryRunner } from 'typeorm';
import { SHARD_KEY, SHARED_TABLES, TENANT_TABLES } from '../src/db/distribution';

/** The table the other tenant-owned tables are colocated with: a tenant's rows of every table share its node. */
export const COLOCATION_TABLE = 'shells';

/**
 * On a Citus database (the `citus` extension is installed in it), distributes the schema: the shared tables become
 * reference tables (a copy on every node) and the tenant-owned ones are distributed by `tenant_id`, colocated with
 * `shells` (docs/scale-out.md). Elsewhere it changes nothing.
 *
 * Citus turns a table into a reference or distributed table only while no foreign key ties it to a table it has not
 * turned yet, so the foreign keys of the public schema are dropped first and added again at the end, as they were.
 * TypeORM's own `migrations` table stays on the coordinator, where migrations run.
 */
export class DistributeOnCitus1795776900000 implements MigrationInterface {
  name = 'DistributeOnCitus1795776900000';

  async up(q: QueryRunner): Promise<void> {
    const [citus] = await q.query(`SELECT 1 FROM pg_extension WHERE extname = 'citus'`);
    if (!citus) return;
    // One connection per worker for the DDL of this transaction, so no statement finds a shard another used.
    await q.query(`SET LOCAL citus.multi_shard_modify_mode TO 'sequential'`);
    const keys: { tab: string; name: string; def: string }[] = await q.query(`
      SELECT c.conrelid::regclass::text AS tab, c.conname AS name, pg_get_constraintdef(c.oid) AS def
        FROM pg_constraint c JOIN pg_namespace n ON n.oid = c.connamespace
        WHERE c.contype = 'f' AND n.nspname = 'public' ORDER BY c.oid`);
    for (const key of keys) await q.query(`ALTER TABLE ${key.tab} DROP CONSTRAINT "${key.name}"`);
    for (const table of SHARED_TABLES) {
      if (table === 'migrations') continue;
      await q.query('SELECT create_reference_table($1)', [table]);
    }
    for (const table of [COLOCATION_TABLE, ...TENANT_TABLES.filter((t) => t !== COLOCATION_TABLE)]) {
      await q.query('SELECT create_distributed_table($1, $2, colocate_with => $3)', [
        table,
        SHARD_KEY,
        table === COLOCATION_TABLE ? 'none' : COLOCATION_TABLE,
      ]);
    }
    for (const key of keys) await q.query(`ALTER TABLE ${key.tab} ADD CONSTRAINT "${key.name}" ${key.def}`);
  }

  async down(q: QueryRunner): Promise<void> {
    const [citus] = await q.query(`SELECT 1 FROM pg_extension WHERE extname = 'citus'`);
    if (!citus) return;
    await q.query(`SET LOCAL citus.multi_shard_modify_mode TO 'sequential'`);
    const keys: { tab: string; name: string; def: string }[] = await q.query(`
      SELECT c.conrelid::regclass::text AS tab, c.conname AS name, pg_get_constraintdef(c.oid) AS def
        FROM pg_constraint c JOIN pg_namespace n ON n.oid = c.connamespace
        WHERE c.contype = 'f' AND n.nspname = 'public' ORDER BY c.oid`);
    for (const key of keys) await q.query(`ALTER TABLE ${key.tab} DROP CONSTRAINT "${key.name}"`);
    for (const table of [...TENANT_TABLES, ...SHARED_TABLES]) {
      if (table === 'migrations') continue;
      await q.query('SELECT undistribute_table($1)', [table]);
    }
    for (const key of keys) await q.query(`ALTER TABLE ${key.tab} ADD CONSTRAINT "${key.name}" ${key.def}`);
  }
}
