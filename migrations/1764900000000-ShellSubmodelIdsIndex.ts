import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Search (POST /search) answers a rare condition from the submodels that satisfy it: the shells that reference one of
 * them, found through a GIN index on `shells.submodel_ids` (`submodel_ids && ARRAY[...]`). As the other GIN indexes
 * of shells: no pending list, which every lookup would scan until a vacuum merged it.
 */
export class ShellSubmodelIdsIndex1764900000000 implements MigrationInterface {
  name = 'ShellSubmodelIdsIndex1764900000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query('CREATE INDEX shells_submodel_ids ON shells USING gin (submodel_ids) WITH (fastupdate = off)');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP INDEX shells_submodel_ids');
  }
}
