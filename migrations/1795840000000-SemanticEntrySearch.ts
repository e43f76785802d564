import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The text search of the semantic connector's dictionaries (`GET /semantics/entries?text=`): a contains match on
 * `semantic_entries.search_text` (the entry's id, names and definitions, lower-cased), which read the tenant's entries
 * in import order until a page was full, so a rare text in a dictionary of 100,000 entries cost a scan of all of
 * them. A trigram GIN index (`pg_trgm`) serves `LIKE '%text%'` for texts of three characters and more; shorter ones
 * (and texts the planner expects to match often) are still read along the primary key. `pg_trgm` is a trusted
 * extension (PostgreSQL 13 and later): the database's owner, or a role with CREATE on it, may create it; the embedded
 * database loads it (src/db/embedded-worker.ts).
 */
export class SemanticEntrySearch1795840000000 implements MigrationInterface {
  name = 'SemanticEntrySearch1795840000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query('CREATE EXTENSION IF NOT EXISTS pg_trgm');
    await q.query('CREATE INDEX semantic_entries_search ON semantic_entries USING gin (search_text gin_trgm_ops)');
  }

  async down(q: QueryRunner): Promise<void> {
    // The extension stays: other objects of the database may use it by now.
    await q.query('DROP INDEX semantic_entries_search');
  }
}
