import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * - `semantic_neighbours(tenant, key)`: the keys one step of equivalence away from `key` (the members of its sets, its
 *   concepts' isCaseOf, the concepts that are a case of it), which the semantic connector's closure (a recursive query,
 *   src/aas/semantics/semantic.service.ts) calls per key. A function the planner does not inline (STRICT), with a
 *   declared cost and row count: inlined, the planner's default guess for the isCaseOf lookups (1% of the entries per
 *   key) multiplied through the recursion made the estimated cost of a batch of 250 ids cross `jit_above_cost`, and
 *   JIT compilation took over a second of a statement that runs in a millisecond.
 * - The text search of the semantic connector's dictionaries (`GET /semantics/entries?text=`): a contains match on
 * `semantic_entries.search_text` (the entry's id, names and definitions, lower-cased), which read the tenant's entries
 * in import order until a page was full, so a rare text in a dictionary of 100,000 entries cost a scan of all of
 * them. A trigram GIN index (`pg_trgm`) serves `LIKE '%text%'` for texts of three characters and more; shorter ones
 * (and texts the planner expects to match often) are still read along the primary key. `pg_trgm` is a trusted
 * extension (PostgreSQL 13 and later): the database's owner, or a role with CREATE on it, may create it; the embedded
 * database loads it (src/db/embedded-worker.ts).
 */
export class SemanticSearchAndClosure1795840000000 implements MigrationInterface {
  name = 'SemanticSearchAndClosure1795840000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE FUNCTION semantic_neighbours(tenant uuid, key text) RETURNS SETOF text
        LANGUAGE sql STABLE STRICT PARALLEL SAFE ROWS 4 COST 1000
        AS $$
          SELECT m2.norm FROM public.semantic_equivalences m1
            JOIN public.semantic_equivalences m2 ON m2.tenant_id = tenant AND m2.set_id = m1.set_id
           WHERE m1.tenant_id = tenant AND md5(m1.norm) = md5(key) AND m1.norm = key
          UNION ALL
          SELECT unnest(public.semantic_case_of(cd.doc)) FROM public.concept_descriptions cd
           WHERE cd.tenant_id = tenant AND md5(public.semantic_norm(cd.id)) = md5(key)
          UNION ALL
          SELECT public.semantic_norm(cd.id) FROM public.concept_descriptions cd
           WHERE cd.tenant_id = tenant AND public.semantic_case_of(cd.doc) && ARRAY[key]
          UNION ALL
          SELECT unnest(e.is_case_of) FROM public.semantic_entries e WHERE e.tenant_id = tenant AND md5(e.norm) = md5(key)
          UNION ALL
          SELECT e.norm FROM public.semantic_entries e WHERE e.tenant_id = tenant AND e.is_case_of && ARRAY[key] $$`);
    // Without the right to create the extension (or without the extension on the server), the index is left out and
    // the search reads the entries as before: an upgrade never fails for it.
    await q.query(`
      DO $$ BEGIN
        CREATE EXTENSION IF NOT EXISTS pg_trgm;
      EXCEPTION WHEN insufficient_privilege OR undefined_file OR feature_not_supported THEN
        RAISE WARNING 'pg_trgm could not be created (%): the dictionary text search reads without an index', SQLERRM;
      END $$`);
    await q.query(`
      DO $$ BEGIN
        IF EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'pg_trgm') THEN
          CREATE INDEX semantic_entries_search ON semantic_entries USING gin (search_text gin_trgm_ops);
        END IF;
      END $$`);
  }

  async down(q: QueryRunner): Promise<void> {
    // The extension stays: other objects of the database may use it by now.
    await q.query('DROP INDEX IF EXISTS semantic_entries_search');
    await q.query('DROP FUNCTION semantic_neighbours(uuid, text)');
  }
}
