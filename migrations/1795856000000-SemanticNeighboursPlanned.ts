import { MigrationInterface, QueryRunner } from 'typeorm';

/** The five lookups of one step of equivalence from `key` (as migration SemanticSearchAndClosure wrote them). */
const NEIGHBOURS = `
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
    SELECT e.norm FROM public.semantic_entries e WHERE e.tenant_id = tenant AND e.is_case_of && ARRAY[key]`;

/**
 * `semantic_neighbours(tenant, key)` (the keys one step of equivalence away, which the semantic connector's closure
 * calls per key) in PL/pgSQL instead of SQL, with the same lookups, the same declared cost and row count. A SQL
 * function that is not inlined is planned anew in every statement that calls it: planning its five lookups took about
 * 0.6 ms of a resolve whose lookups take 0.05 ms (EXPLAIN ANALYZE of the equivalent resolve, 100,000 entries), twice
 * what the whole exact resolve costs the database. PL/pgSQL keeps the plan of its query per connection (after five
 * calls a generic one, as a named statement), so a step costs its index lookups. Still not inlined, so the planner's
 * estimates of the recursion stay those that migration SemanticSearchAndClosure chose them for.
 */
export class SemanticNeighboursPlanned1795856000000 implements MigrationInterface {
  name = 'SemanticNeighboursPlanned1795856000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE OR REPLACE FUNCTION semantic_neighbours(tenant uuid, key text) RETURNS SETOF text
        LANGUAGE plpgsql STABLE STRICT PARALLEL SAFE ROWS 4 COST 1000
        AS $fn$
        #variable_conflict use_variable
        BEGIN RETURN QUERY ${NEIGHBOURS}; END $fn$`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE OR REPLACE FUNCTION semantic_neighbours(tenant uuid, key text) RETURNS SETOF text
        LANGUAGE sql STABLE STRICT PARALLEL SAFE ROWS 4 COST 1000
        AS $fn$ ${NEIGHBOURS} $fn$`);
  }
}
