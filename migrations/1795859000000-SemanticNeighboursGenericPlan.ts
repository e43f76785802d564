import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `semantic_neighbours` plans its query once per connection, for any tenant and key: `plan_cache_mode =
 * force_generic_plan` on the function. PL/pgSQL chooses between a plan made for the call's values (custom) and one
 * for any values (generic) as a prepared statement does: it keeps making custom plans while they are estimated
 * cheaper than the generic one, and for the five lookups of this query they always were (the generic plan guesses
 * 500 rows for the `&&` on a GIN index, a custom one knows its array). So every call planned the query anew:
 * 0.4 ms a call, where its index lookups take 0.05 ms (EXPLAIN ANALYZE of the equivalent resolve of a key without
 * equivalents, 100,000 dictionary entries: the whole statement 0.5 ms before, 0.16 ms after). The generic plan uses
 * the same indexes (each lookup leads with `tenant_id` and a key). Not on Citus, where the function runs nested in a
 * statement on the tenant's worker and Citus cannot make a distributed plan of a generic one (`distributeOnCitus` takes
 * the setting off a function that gains Citus later).
 */
export class SemanticNeighboursGenericPlan1795859000000 implements MigrationInterface {
  name = 'SemanticNeighboursGenericPlan1795859000000';

  async up(q: QueryRunner): Promise<void> {
    const [citus] = await q.query(`SELECT 1 FROM pg_extension WHERE extname = 'citus'`);
    if (!citus) await q.query('ALTER FUNCTION semantic_neighbours(uuid, text) SET plan_cache_mode = force_generic_plan');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER FUNCTION semantic_neighbours(uuid, text) RESET plan_cache_mode');
  }
}
