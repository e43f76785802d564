import { MigrationInterface, QueryRunner } from 'typeorm';

const TABLES = ['shells', 'submodels', 'concept_descriptions'];

/**
 * The size of each stored document as PostgreSQL's JSON text, kept by PostgreSQL itself: a request's read budget
 * (RESPONSE_LIMIT) cuts a page in SQL where its documents would exceed it, before they are loaded.
 */
export class DocumentBytes1764000000000 implements MigrationInterface {
  name = 'DocumentBytes1764000000000';

  async up(q: QueryRunner): Promise<void> {
    for (const table of TABLES) {
      await q.query(`ALTER TABLE ${table} ADD COLUMN doc_bytes bigint GENERATED ALWAYS AS (octet_length(doc::text)) STORED`);
    }
  }

  async down(q: QueryRunner): Promise<void> {
    for (const table of TABLES) await q.query(`ALTER TABLE ${table} DROP COLUMN doc_bytes`);
  }
}
