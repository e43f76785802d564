import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The submodel and concept description repositories, stored like shells: the AAS JSON document, the columns
 * the filters need, a version for entity tags. Reference filters match a `text[]` of canonical keys (GIN).
 */
export class SubmodelsConceptDescriptions1763900000000 implements MigrationInterface {
  name = 'SubmodelsConceptDescriptions1763900000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE submodels (
        tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
        id text NOT NULL,
        seq bigint GENERATED ALWAYS AS IDENTITY,
        id_short text,
        kind text NOT NULL,
        semantic_keys text[] NOT NULL DEFAULT '{}',
        has_blobs boolean NOT NULL DEFAULT false,
        doc jsonb NOT NULL,
        version integer NOT NULL DEFAULT 1,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (tenant_id, seq)
      )`);
    await q.query(`CREATE UNIQUE INDEX submodels_id ON submodels (tenant_id, md5(id))`);
    await q.query(`CREATE INDEX submodels_id_short ON submodels (tenant_id, id_short, seq)`);
    await q.query(`CREATE INDEX submodels_kind ON submodels (tenant_id, kind, seq)`);
    await q.query(`CREATE INDEX submodels_semantic_keys ON submodels USING gin (semantic_keys)`);
    await q.query(`
      CREATE TABLE concept_descriptions (
        tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
        id text NOT NULL,
        seq bigint GENERATED ALWAYS AS IDENTITY,
        id_short text,
        is_case_of text[] NOT NULL DEFAULT '{}',
        data_specifications text[] NOT NULL DEFAULT '{}',
        doc jsonb NOT NULL,
        version integer NOT NULL DEFAULT 1,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (tenant_id, seq)
      )`);
    await q.query(`CREATE UNIQUE INDEX concept_descriptions_id ON concept_descriptions (tenant_id, md5(id))`);
    await q.query(`CREATE INDEX concept_descriptions_id_short ON concept_descriptions (tenant_id, id_short, seq)`);
    await q.query(`CREATE INDEX concept_descriptions_is_case_of ON concept_descriptions USING gin (is_case_of)`);
    await q.query(`CREATE INDEX concept_descriptions_data_specifications ON concept_descriptions USING gin (data_specifications)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE concept_descriptions');
    await q.query('DROP TABLE submodels');
  }
}
