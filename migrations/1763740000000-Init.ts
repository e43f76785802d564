import { MigrationInterface, QueryRunner } from 'typeorm';

/** Organizations, tenants, the shell repository and the change-event outbox. */
export class Init1763740000000 implements MigrationInterface {
  name = 'Init1763740000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE organizations (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        name text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`
      CREATE TABLE tenants (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        name text NOT NULL UNIQUE CHECK (name ~ '^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$'),
        friendly_name text,
        tag text,
        showcase boolean NOT NULL DEFAULT false,
        events_enabled boolean NOT NULL DEFAULT false,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX tenants_organization ON tenants (organization_id)`);
    await q.query(`
      CREATE TABLE shells (
        tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
        id text NOT NULL,
        seq bigint GENERATED ALWAYS AS IDENTITY,
        id_short text,
        asset_kind text NOT NULL,
        global_asset_id text,
        asset_ids jsonb NOT NULL DEFAULT '[]',
        doc jsonb NOT NULL,
        version integer NOT NULL DEFAULT 1,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (tenant_id, seq)
      )`);
    // Identifiers may be 2,000 characters, up to 8,000 bytes: more than a B-tree entry holds. The unique key
    // is their MD5; lookups compare the full id too, so a collision can only refuse a create, never mix shells.
    await q.query(`CREATE UNIQUE INDEX shells_id ON shells (tenant_id, md5(id))`);
    await q.query(`CREATE INDEX shells_id_short ON shells (tenant_id, id_short, seq)`);
    await q.query(`CREATE INDEX shells_asset_kind ON shells (tenant_id, asset_kind, seq)`);
    await q.query(`CREATE INDEX shells_asset_ids ON shells USING gin (asset_ids jsonb_path_ops)`);
    await q.query(`
      CREATE TABLE outbox (
        seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
        kind text NOT NULL,
        entity_type text NOT NULL,
        entity_id text NOT NULL,
        payload jsonb,
        created_at timestamptz NOT NULL DEFAULT now(),
        published_at timestamptz
      )`);
    await q.query(`CREATE INDEX outbox_unpublished ON outbox (seq) WHERE published_at IS NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE outbox');
    await q.query('DROP TABLE shells');
    await q.query('DROP TABLE tenants');
    await q.query('DROP TABLE organizations');
  }
}
