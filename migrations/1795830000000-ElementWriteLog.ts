import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `submodels.element_log`: what the recent element writes sent as one statement (`writeElementsOnce` in
 * src/aas/store/element-rows-sql.ts) did to the submodel's structure, so that a later one can compare exactly what it
 * depends on under the submodel's row lock, where a statement's own reads see only its snapshot. A JSON array of
 * entries `{v, o, n?, a?}`: the version the write gave the submodel, the `ord` (as array text) of the element it
 * added (`a`) or whose rows it replaced, and the idShortPath it gave that element (`n`: an add or a rename). Only the
 * entries of the last `ELEMENT_LOG_WINDOW` versions are kept; a write that read before them compares the whole
 * version. Null is an empty log. No data moves.
 */
export class ElementWriteLog1795830000000 implements MigrationInterface {
  name = 'ElementWriteLog1795830000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE submodels ADD COLUMN element_log jsonb');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE submodels DROP COLUMN element_log');
  }
}
