import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What a submodel's row says of the writes since a version, for element writes sent as one statement that checks
 * only the rows they depend on (`writeElementsOnce` in src/aas/store/element-rows-sql.ts):
 *
 * - `element_writes_from`, `element_writes_to`: every write from version `element_writes_from` up to
 *   `element_writes_to` was such an element write, which left a new row version (`xmin`) on every element row whose
 *   content or child list it changed. Other writes (whole documents, imports, element writes under the row lock)
 *   raise `version` without these, which ends the run: a write that read before them compares the whole version.
 * - `top_elements_version`: raised by such writes when the submodel's own list of elements changes (an element
 *   added, deleted or renamed at the top level), the place where no element row can carry that change.
 */
export class ElementWriteChain1795800000000 implements MigrationInterface {
  name = 'ElementWriteChain1795800000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE submodels ADD COLUMN element_writes_from integer NOT NULL DEFAULT 0,
      ADD COLUMN element_writes_to integer NOT NULL DEFAULT 0, ADD COLUMN top_elements_version integer NOT NULL DEFAULT 0`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE submodels DROP COLUMN element_writes_from, DROP COLUMN element_writes_to, DROP COLUMN top_elements_version');
  }
}
