import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The AASX File Server: one row per stored package (its bytes are a file of the tenant file repository, named by
 * its tfp) with the ids of the shells read from the package itself. Packages go with their tenant.
 */
export class AasxPackages1764300000000 implements MigrationInterface {
  name = 'AasxPackages1764300000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE aasx_packages (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
        seq bigint GENERATED ALWAYS AS IDENTITY,
        file text NOT NULL,
        file_name text NOT NULL,
        aas_ids text[] NOT NULL DEFAULT '{}',
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query('CREATE INDEX aasx_packages_tenant_seq ON aasx_packages (tenant_id, seq)');
    await q.query('CREATE INDEX aasx_packages_aas_ids ON aasx_packages USING gin (aas_ids)');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE aasx_packages');
  }
}
