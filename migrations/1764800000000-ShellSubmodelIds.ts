import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Search (POST /search) finds shells through the submodels they reference: a `submodel_ids` column of the ids in
 * a shell's submodel references (`referencedSubmodelIds`: ModelReferences with one Submodel key), filled here for
 * the rows that exist and by ShellService on every write. A search joins each shell of its keyset page to those
 * submodels through the submodels' unique id index; no index on the column itself (nothing looks shells up by it).
 */
/** The shells' referenced submodel ids, from their documents (as `referencedSubmodelIds`), in reference order. */
export const FILL_SUBMODEL_IDS = `
  UPDATE shells SET submodel_ids = ARRAY(
    SELECT r->'keys'->0->>'value' FROM jsonb_array_elements(doc->'submodels') WITH ORDINALITY AS e(r, n)
     WHERE r->>'type' = 'ModelReference' AND jsonb_typeof(r->'keys') = 'array' AND jsonb_array_length(r->'keys') = 1
       AND r->'keys'->0->>'type' = 'Submodel'
     ORDER BY n)
   WHERE jsonb_typeof(doc->'submodels') = 'array'`;

export class ShellSubmodelIds1764800000000 implements MigrationInterface {
  name = 'ShellSubmodelIds1764800000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE shells ADD COLUMN submodel_ids text[] NOT NULL DEFAULT '{}'`);
    await q.query(FILL_SUBMODEL_IDS);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE shells DROP COLUMN submodel_ids');
  }
}
