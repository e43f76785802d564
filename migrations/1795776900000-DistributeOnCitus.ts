import { MigrationInterface, QueryRunner } from 'typeorm';
import { distributeOnCitus } from '../src/db/distribution';

/**
 * On a Citus database (the `citus` extension is installed in it), distributes the schema by tenant
 * (`distributeOnCitus`; docs/scale-out.md). Elsewhere it changes nothing; a database that gains Citus later is
 * distributed by `npm run db:distribute`.
 */
export class DistributeOnCitus1795776900000 implements MigrationInterface {
  name = 'DistributeOnCitus1795776900000';

  async up(q: QueryRunner): Promise<void> {
    await distributeOnCitus((sql, params) => q.query(sql, params));
  }

  async down(): Promise<void> {
    // Nothing: a distributed database stays distributed (Citus's undistribute_table undoes it table by table).
  }
}
