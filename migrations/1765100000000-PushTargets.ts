import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Push targets (the sphere service's `/push-targets`, src/push/): where a tenant's changed shells are written to.
 * - `push_targets`: one row per target; `settings` holds what answers show (bucket, URL, ...), `secret` the
 *   write-only credential (an S3 secret access key, a bearer token) that no answer carries; `seq` orders lists
 *   (keyset paging); the last success and last error of its pushes.
 * - `push_jobs`: a shell to push to a target, queued by the outbox's delivery (one row per target and shell: the
 *   push reads the shell's current state, so later changes ride along). `generation` counts the changes queued while
 *   a push runs: the push deletes its job only when none came in meanwhile. `lease_until` keeps other replicas off
 *   a job being pushed; `next_attempt_at` is the retry backoff. `shell_key` (md5 of the id) keys the row: ids may
 *   be 2,000 characters, more than a btree entry holds.
 * - `push_packages`: for AASX File Server targets, the package each shell was posted as (later pushes PUT it).
 * Every row carries `tenant_id`, the shard key; all three go with their tenant and jobs and packages with their target.
 */
export class PushTargets1765100000000 implements MigrationInterface {
  name = 'PushTargets1765100000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE push_targets (
      tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
      id uuid NOT NULL,
      seq bigint GENERATED ALWAYS AS IDENTITY,
      kind text NOT NULL,
      settings jsonb NOT NULL,
      secret text,
      created_at timestamptz NOT NULL DEFAULT now(),
      last_success_at timestamptz,
      last_error text,
      last_error_at timestamptz,
      PRIMARY KEY (tenant_id, id))`);
    await q.query('CREATE UNIQUE INDEX push_targets_seq ON push_targets (tenant_id, seq)');
    await q.query(`CREATE TABLE push_jobs (
      tenant_id uuid NOT NULL,
      target_id uuid NOT NULL,
      shell_key text NOT NULL,
      shell_id text NOT NULL,
      generation integer NOT NULL DEFAULT 0,
      attempts integer NOT NULL DEFAULT 0,
      next_attempt_at timestamptz NOT NULL DEFAULT now(),
      lease_until timestamptz,
      created_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (tenant_id, target_id, shell_key),
      FOREIGN KEY (tenant_id, target_id) REFERENCES push_targets (tenant_id, id) ON DELETE CASCADE)`);
    await q.query('CREATE INDEX push_jobs_due ON push_jobs (next_attempt_at)');
    await q.query(`CREATE TABLE push_packages (
      tenant_id uuid NOT NULL,
      target_id uuid NOT NULL,
      shell_key text NOT NULL,
      shell_id text NOT NULL,
      package_id text NOT NULL,
      PRIMARY KEY (tenant_id, target_id, shell_key),
      FOREIGN KEY (tenant_id, target_id) REFERENCES push_targets (tenant_id, id) ON DELETE CASCADE)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE push_packages');
    await q.query('DROP TABLE push_jobs');
    await q.query('DROP TABLE push_targets');
  }
}
