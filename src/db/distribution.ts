/**
 * How each table is placed when the database is distributed (Citus), with `tenant_id` as the shard key.
 *
 * Shared tables are small and read by every tenant's requests (who may do what, which tenant a request names):
 * they are replicated to every node (Citus reference tables). Every other table in the public schema is
 * tenant-owned and distributed by `tenant_id`, which obliges it to:
 * - carry a NOT NULL `tenant_id`, lead its primary key and every unique index with it;
 * - include `tenant_id` in each foreign key to another tenant-owned table (as the first column pair);
 * - have no triggers (Citus refuses them on distributed tables);
 * - be named with its `tenant_id` by every statement of a tenant's request, so that it runs on one shard.
 *
 * Every table of the public schema is in exactly one of the two lists (a test holds it): a new table is
 * classified when it is created.
 */
export const SHARED_TABLES: readonly string[] = [
  'organizations',
  'tenants',
  'accounts',
  'organization_users',
  'invitations',
  'user_groups',
  'group_members',
  'role_assignments',
  'service_accounts',
  'service_account_secrets',
  'identity_trusts',
  'oidc_payloads',
  'signing_keys',
  'event_transports',
  'server_secrets',
  'cache_listeners',
  'migrations',
];

/** The tenant-owned tables, distributed by `tenant_id`. */
export const TENANT_TABLES: readonly string[] = [
  'shells',
  'submodels',
  'submodel_elements',
  'concept_descriptions',
  'files',
  'file_chunks',
  'aasx_packages',
  'registry_instances',
  'shell_descriptors',
  'asset_links',
  'outbox',
  'push_targets',
  'push_jobs',
  'push_packages',
  'semantic_dictionaries',
  'semantic_entries',
  'semantic_equivalence_sets',
  'semantic_equivalences',
];

/** The shard key of every tenant-owned table. */
export const SHARD_KEY = 'tenant_id';

/** Whether `table` (of the public schema) is tenant-owned, i.e. distributed by `tenant_id`. */
export function isTenantOwned(table: string): boolean {
  return TENANT_TABLES.includes(table);
}

/** The table the other tenant-owned tables are colocated with: a tenant's rows of every table share its node. */
export const COLOCATION_TABLE = 'shells';

type Query = (sql: string, params?: unknown[]) => Promise<unknown>;

/**
 * Functions that read tenant-owned tables and are called inside a statement that Citus sends to the tenant's worker
 * as a whole (`semantic_neighbours`, the step of the semantic connector's closure). Citus refuses a distributed query
 * from within a query on a shard unless the function allows it (`citus.allow_nested_distributed_execution`, set on the
 * function, so it holds wherever the function runs). Their lookups name the tenant of the statement, whose shards
 * are on the same worker: Citus runs them there, in the statement's own transaction. A migration that replaces such a
 * function (CREATE OR REPLACE drops its settings) calls `distributeOnCitus` again.
 */
export const NESTED_READERS: readonly string[] = ['semantic_neighbours(uuid, text)'];

/**
 * On a Citus database (the `citus` extension is installed in it), distributes the schema: the shared tables become
 * reference tables (a copy on every node), the tenant-owned ones are distributed by `tenant_id`, colocated with
 * `shells`; a table already placed is left as it is. Elsewhere it changes nothing. Runs inside a transaction
 * (`query` is that transaction's), and says which tables it placed.
 *
 * Citus places a table only while no foreign key ties it to a table it has not placed yet, so the foreign keys from
 * and to the tables it places are dropped first and added again at the end, as they were. TypeORM's own `migrations` table
 * stays on the coordinator, where migrations run. The functions of NESTED_READERS get their setting.
 */
export async function distributeOnCitus(query: Query): Promise<string[]> {
  const [citus] = (await query(`SELECT 1 FROM pg_extension WHERE extname = 'citus'`)) as unknown[];
  if (!citus) return [];
  for (const fn of NESTED_READERS) {
    const [{ exists }] = (await query('SELECT to_regprocedure($1) IS NOT NULL AS exists', [fn])) as { exists: boolean }[];
    // Planned for its values: Citus makes no distributed plan of a generic one (migration SemanticNeighboursGenericPlan
    // forces it where there is no Citus).
    if (exists) await query(`ALTER FUNCTION ${fn} SET citus.allow_nested_distributed_execution = on RESET plan_cache_mode`);
  }
  const placed = new Set(((await query('SELECT table_name::text AS t FROM citus_tables')) as { t: string }[]).map((row) => row.t));
  // The lists name the tables of the newest schema; a migration that runs before later ones made theirs places the
  // tables that exist by then (the later migrations place their own).
  const existing = new Set(
    ((await query(`SELECT c.relname::text AS t FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p')`)) as { t: string }[]).map((row) => row.t),
  );
  const unplaced = (table: string) => existing.has(table) && !placed.has(table);
  const reference = SHARED_TABLES.filter((table) => table !== 'migrations' && unplaced(table));
  const distributed = [COLOCATION_TABLE, ...TENANT_TABLES.filter((table) => table !== COLOCATION_TABLE)].filter(unplaced);
  if (!reference.length && !distributed.length) return [];
  // One connection per node for the DDL of this transaction, so no statement finds a shard another connection used.
  await query(`SET LOCAL citus.multi_shard_modify_mode TO 'sequential'`);
  // Functions made before the extension (a database that gains Citus later) are the coordinator's alone, and the
  // indexes of the shards call some of them: they go to every node first. Later ones Citus carries itself.
  const functions = (await query(`
    SELECT p.oid::regprocedure::text AS fn FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
     WHERE n.nspname = 'public'
       AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e')
       AND NOT EXISTS (SELECT 1 FROM pg_dist_object o WHERE o.classid = 'pg_proc'::regclass AND o.objid = p.oid)
     ORDER BY p.oid`)) as { fn: string }[];
  for (const { fn } of functions) await query('SELECT create_distributed_function($1)', [fn]);
  // The keys of the tables placed here; those between tables placed before stay (Citus keeps them on their shards).
  const keys = (await query(
    `SELECT c.conrelid::regclass::text AS tab, c.conname AS name, pg_get_constraintdef(c.oid) AS def
       FROM pg_constraint c JOIN pg_namespace n ON n.oid = c.connamespace
      WHERE c.contype = 'f' AND n.nspname = 'public'
        AND (c.conrelid::regclass::text = ANY($1::text[]) OR c.confrelid::regclass::text = ANY($1::text[])) ORDER BY c.oid`,
    [[...reference, ...distributed]],
  )) as { tab: string; name: string; def: string }[];
  for (const key of keys) await query(`ALTER TABLE ${key.tab} DROP CONSTRAINT "${key.name}"`);
  for (const table of reference) await query('SELECT create_reference_table($1)', [table]);
  for (const table of distributed) {
    const colocateWith = table === COLOCATION_TABLE ? 'none' : COLOCATION_TABLE;
    await query('SELECT create_distributed_table($1, $2, colocate_with => $3)', [table, SHARD_KEY, colocateWith]);
  }
  // Rows a table held before are copied to its shards; the coordinator's own copy goes.
  for (const table of [...reference, ...distributed]) await query('SELECT truncate_local_data_after_distributing_table($1)', [table]);
  for (const key of keys) await query(`ALTER TABLE ${key.tab} ADD CONSTRAINT "${key.name}" ${key.def}`);
  return [...reference, ...distributed];
}
