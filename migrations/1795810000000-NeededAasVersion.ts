import { MigrationInterface, QueryRunner } from 'typeorm';
import { elementsTextSql } from '../src/aas/store/element-rows-sql';
import { neededVersion } from '../src/aas/versions/needed';

/** The tables of identifiables, and whether a document's elements are rows of their own. */
const TABLES: [table: string, elementRows: boolean][] = [
  ['shells', false],
  ['submodels', true],
  ['concept_descriptions', false],
];

/** Rows read at a time while the column is filled from the documents. */
const BATCH = 500;

/**
 * Each identifiable knows the newest version of the AAS metamodel its content needs (`aas_version`: '3.0' or
 * '3.1', src/aas/versions): V3.0 reads map what needs V3.1 down, hot reads of V3.0 serve the stored text only
 * where it needs nothing of V3.1. The documents themselves are not touched; the column is filled from them.
 */
export class NeededAasVersion1795810000000 implements MigrationInterface {
  name = 'NeededAasVersion1795810000000';

  async up(q: QueryRunner): Promise<void> {
    for (const [table, elementRows] of TABLES) {
      await q.query(`ALTER TABLE ${table} ADD COLUMN aas_version text NOT NULL DEFAULT '3.0'`);
      const elements = elementRows ? `, ${elementsTextSql('t.tenant_id', 't.seq')} AS elements` : '';
      for (let after: { tenant: string; seq: string } | undefined; ; ) {
        const rows: { tenant_id: string; seq: string; doc: Record<string, unknown>; elements?: string | null }[] = await q.query(
          `SELECT t.tenant_id, t.seq, t.doc${elements} FROM ${table} t
            ${after ? 'WHERE (t.tenant_id, t.seq) > ($1::uuid, $2::bigint)' : ''} ORDER BY t.tenant_id, t.seq LIMIT ${BATCH}`,
          after ? [after.tenant, after.seq] : [],
        );
        if (!rows.length) break;
        for (const row of rows) {
          const doc = row.elements != null ? { ...row.doc, submodelElements: JSON.parse(`[${row.elements}]`) as unknown[] } : row.doc;
          if (neededVersion(doc) === '3.1') await q.query(`UPDATE ${table} SET aas_version = '3.1' WHERE tenant_id = $1 AND seq = $2`, [row.tenant_id, row.seq]);
        }
        const last = rows[rows.length - 1];
        after = { tenant: last.tenant_id, seq: last.seq };
      }
    }
  }

  async down(q: QueryRunner): Promise<void> {
    for (const [table] of TABLES) await q.query(`ALTER TABLE ${table} DROP COLUMN aas_version`);
  }
}
