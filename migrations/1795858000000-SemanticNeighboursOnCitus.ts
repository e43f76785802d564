import { MigrationInterface, QueryRunner } from 'typeorm';
import { distributeOnCitus } from '../src/db/distribution';

/**
 * On a Citus database, `semantic_neighbours` (the step of the semantic connector's closure) may read the tenant's
 * shards from within the statement that Citus sends to the tenant's worker: without
 * `citus.allow_nested_distributed_execution` on the function Citus refused it there, and every resolve with
 * equivalence, usages with equivalence and `semanticIdMatching=equivalent` answered 500 (`distributeOnCitus` sets it,
 * src/db/distribution.ts NESTED_READERS). Elsewhere it changes nothing.
 */
export class SemanticNeighboursOnCitus1795858000000 implements MigrationInterface {
  name = 'SemanticNeighboursOnCitus1795858000000';

  async up(q: QueryRunner): Promise<void> {
    await distributeOnCitus((sql, params) => q.query(sql, params));
  }

  async down(q: QueryRunner): Promise<void> {
    const [citus] = await q.query(`SELECT 1 FROM pg_extension WHERE extname = 'citus'`);
    if (citus) await q.query('ALTER FUNCTION semantic_neighbours(uuid, text) RESET citus.allow_nested_distributed_execution');
  }
}
