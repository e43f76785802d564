import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Registries and discovery.
 * - Implicit services are derived from `shells` and `submodels` at request time; shells get an `asset_type`
 *   column for their `assetType` filter.
 * - Explicit instances (`registry_instances`, named per tenant, of one kind: a discovery service or an AAS
 *   registry) keep their own data: shell descriptors, with their submodel descriptors inside the document, and
 *   asset links. Both are found by the same GIN index kind as shells: `asset_ids @> '[{"name":..,"value":..}]'`
 *   is one index lookup whatever the number of rows.
 */
export class Registries1764500000000 implements MigrationInterface {
  name = 'Registries1764500000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE shells ADD COLUMN asset_type text');
    await q.query("UPDATE shells SET asset_type = doc->'assetInformation'->>'assetType' WHERE doc->'assetInformation' ? 'assetType'");
    await q.query(`
      CREATE TABLE registry_instances (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
        seq bigint GENERATED ALWAYS AS IDENTITY,
        name text NOT NULL,
        kind text NOT NULL CHECK (kind IN ('discovery', 'aas-registry')),
        version integer NOT NULL DEFAULT 1,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query('CREATE UNIQUE INDEX registry_instances_name ON registry_instances (tenant_id, name)');
    await q.query('CREATE INDEX registry_instances_tenant_seq ON registry_instances (tenant_id, seq)');
    await q.query(`
      CREATE TABLE shell_descriptors (
        tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
        instance_id uuid NOT NULL REFERENCES registry_instances(id) ON DELETE CASCADE,
        seq bigint GENERATED ALWAYS AS IDENTITY,
        id text NOT NULL,
        id_short text,
        asset_kind text,
        asset_type text,
        global_asset_id text,
        asset_ids jsonb NOT NULL DEFAULT '[]',
        submodel_semantic_ids text[] NOT NULL DEFAULT '{}',
        doc jsonb NOT NULL,
        version integer NOT NULL DEFAULT 1,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (instance_id, seq)
      )`);
    // As for shells: ids may be longer than a B-tree entry holds, so the unique key is their MD5.
    await q.query('CREATE UNIQUE INDEX shell_descriptors_id ON shell_descriptors (instance_id, md5(id))');
    await q.query('CREATE INDEX shell_descriptors_asset_ids ON shell_descriptors USING gin (asset_ids jsonb_path_ops) WITH (fastupdate = off)');
    await q.query('CREATE INDEX shell_descriptors_submodel_semantic_ids ON shell_descriptors USING gin (submodel_semantic_ids)');
    await q.query(`
      CREATE TABLE asset_links (
        tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
        instance_id uuid NOT NULL REFERENCES registry_instances(id) ON DELETE CASCADE,
        seq bigint GENERATED ALWAYS AS IDENTITY,
        aas_id text NOT NULL,
        links jsonb NOT NULL,
        asset_ids jsonb NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (instance_id, seq)
      )`);
    await q.query('CREATE UNIQUE INDEX asset_links_aas_id ON asset_links (instance_id, md5(aas_id))');
    await q.query('CREATE INDEX asset_links_asset_ids ON asset_links USING gin (asset_ids jsonb_path_ops) WITH (fastupdate = off)');
    // GIN's pending list makes inserts cheaper and every lookup scan the list until (auto)vacuum merges it: 5-7 ms
    // instead of 0.1 ms per lookup after a bulk load, and the embedded database runs no autovacuum. A shell has a
    // few asset ids, so writing them into the index at once costs little.
    await q.query('ALTER INDEX shells_asset_ids SET (fastupdate = off)');
    await q.query("SELECT gin_clean_pending_list('shells_asset_ids'::regclass)");
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER INDEX shells_asset_ids RESET (fastupdate)');
    await q.query('DROP TABLE asset_links');
    await q.query('DROP TABLE shell_descriptors');
    await q.query('DROP TABLE registry_instances');
    await q.query('ALTER TABLE shells DROP COLUMN asset_type');
  }
}
