import { MigrationInterface, QueryRunner } from 'typeorm';
import { distributeOnCitus } from '../src/db/distribution';

/**
 * The replicas whose read caches listen for the writes of others (`cache_listeners`, one row per replica, kept by
 * `CacheSync`), and `notify_identifiable_changed(payload)`, which a write calls in place of
 * `pg_notify('identifiable_changed', payload)`: it notifies only when a replica other than the writer's (the payload's
 * first word) is registered.
 *
 * A notifying transaction commits under a lock that every other notifying transaction of the cluster waits for, held
 * until its commit is on disk: such commits cannot be flushed together. A server with no other replica had every write
 * pay for that, for nobody (docs/benchmarks.md: the write statement alone, 1,100 to 1,250 a second with the
 * notification, 2,300 without, on the same machine).
 *
 * The query in the function takes a snapshot of its own (PL/pgSQL, volatile): a write whose call began after a
 * replica's registration committed sees it. The registering replica waits for the others (`CacheSync`).
 */
export class CacheListeners1795860000000 implements MigrationInterface {
  name = 'CacheListeners1795860000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE cache_listeners (
        replica uuid PRIMARY KEY,
        pid integer NOT NULL,
        backend_start timestamptz,
        registered_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`
      CREATE FUNCTION notify_identifiable_changed(payload text) RETURNS boolean LANGUAGE plpgsql AS $$
      BEGIN
        IF EXISTS (SELECT 1 FROM cache_listeners WHERE replica::text <> split_part(payload, ' ', 1)) THEN
          PERFORM pg_notify('identifiable_changed', payload);
          RETURN true;
        END IF;
        RETURN false;
      END $$`);
    await distributeOnCitus((sql, params) => q.query(sql, params));
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP FUNCTION notify_identifiable_changed(text)');
    await q.query('DROP TABLE cache_listeners');
  }
}
