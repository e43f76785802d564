import { randomBytes } from 'node:crypto';
import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Secrets every replica of the server shares, made once (here) and read at each start: `cursor`, from which the key
 * that seals paging cursors is derived. A shared table: on Citus a reference table, placed before it holds a row.
 */
export class ServerSecrets1795790000000 implements MigrationInterface {
  name = 'ServerSecrets1795790000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query('CREATE TABLE server_secrets (name text PRIMARY KEY, secret bytea NOT NULL, created_at timestamptz NOT NULL DEFAULT now())');
    const [citus] = await q.query(`SELECT 1 FROM pg_extension WHERE extname = 'citus'`);
    if (citus) await q.query(`SELECT create_reference_table('server_secrets')`);
    await q.query(`INSERT INTO server_secrets (name, secret) VALUES ('cursor', $1)`, [randomBytes(32)]);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE server_secrets');
  }
}
