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
];

/** The shard key of every tenant-owned table. */
export const SHARD_KEY = 'tenant_id';

/** Whether `table` (of the public schema) is tenant-owned, i.e. distributed by `tenant_id`. */
export function isTenantOwned(table: string): boolean {
  return TENANT_TABLES.includes(table);
}
