import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Delivery tracked per transport (src/events/publisher.ts), so that a replica without a transport leaves that
 * delivery to the replicas that have it:
 * - `published_at`, `leased_until`, `leased_by` stay the delivery every delivering replica makes (push queues,
 *   GraphQL subscriptions of every replica through NOTIFY); `mqtt_published_at`, `mqtt_leased_until`, `mqtt_leased_by`
 *   are the MQTT delivery, made only by replicas with MQTT_URL. Rows delivered before this migration count as
 *   delivered to MQTT too (they are not published again).
 * - `events`: whether the row is a change event (the tenant opted in: MQTT and subscriptions) or only tells the push
 *   worker of a change (a tenant with push targets and without change events).
 * - `event_transports`: when a replica with a transport was last running, so rows do not wait for a transport that no
 *   replica has (a deployment without MQTT). A shared table, not tenant-owned.
 */
export class TransportDelivery1795740071316 implements MigrationInterface {
  name = 'TransportDelivery1795740071316';

  async up(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE outbox ADD COLUMN events boolean NOT NULL DEFAULT true');
    await q.query('ALTER TABLE outbox ADD COLUMN mqtt_published_at timestamptz, ADD COLUMN mqtt_leased_until timestamptz, ADD COLUMN mqtt_leased_by uuid');
    await q.query('UPDATE outbox SET mqtt_published_at = published_at WHERE published_at IS NOT NULL');
    // As for the core delivery: pending rows in seq order (the oldest first), and by object (no earlier pending row).
    await q.query('CREATE INDEX outbox_mqtt_unpublished ON outbox (seq) WHERE mqtt_published_at IS NULL AND events');
    await q.query('CREATE INDEX outbox_mqtt_pending_object ON outbox (tenant_id, entity_type, md5(entity_id), seq) WHERE mqtt_published_at IS NULL AND events');
    await q.query('CREATE TABLE event_transports (name text PRIMARY KEY, seen_at timestamptz NOT NULL)');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE event_transports');
    await q.query('DROP INDEX outbox_mqtt_pending_object');
    await q.query('DROP INDEX outbox_mqtt_unpublished');
    await q.query('ALTER TABLE outbox DROP COLUMN mqtt_published_at, DROP COLUMN mqtt_leased_until, DROP COLUMN mqtt_leased_by, DROP COLUMN events');
  }
}
