import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The outbox's deliveries and the push worker take work one tenant at a time (src/events/publisher.ts,
 * src/push/push.worker.ts): a statement that locks rows names the tenant, which on a database distributed by tenant
 * (Citus) routes it to one shard. Pending rows are found by tenant in `seq` order, due jobs by tenant in order of
 * their next attempt. The tenants that have work are found by the same indexes (their leading column). The pending
 * indexes by `seq` alone served the claims across all tenants and are dropped.
 */
export class TenantQueues1795776496925 implements MigrationInterface {
  name = 'TenantQueues1795776496925';

  async up(q: QueryRunner): Promise<void> {
    await q.query('CREATE INDEX outbox_pending_tenant ON outbox (tenant_id, seq) WHERE published_at IS NULL');
    await q.query('CREATE INDEX outbox_mqtt_pending_tenant ON outbox (tenant_id, seq) WHERE mqtt_published_at IS NULL AND events');
    await q.query('DROP INDEX outbox_unpublished');
    await q.query('DROP INDEX outbox_mqtt_unpublished');
    await q.query('CREATE INDEX push_jobs_tenant_due ON push_jobs (tenant_id, next_attempt_at)');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP INDEX push_jobs_tenant_due');
    await q.query('CREATE INDEX outbox_mqtt_unpublished ON outbox (seq) WHERE mqtt_published_at IS NULL AND events');
    await q.query('CREATE INDEX outbox_unpublished ON outbox (seq) WHERE published_at IS NULL');
    await q.query('DROP INDEX outbox_mqtt_pending_tenant');
    await q.query('DROP INDEX outbox_pending_tenant');
  }
}
