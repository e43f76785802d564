import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The outbox as the publisher delivers it (src/events/publisher.ts):
 * - `version`: the object's version after the change, carried by the event;
 * - `payload` as `json`: stored and read back as text, never queried inside, so PostgreSQL need not parse it into
 *   jsonb in the writing transaction (a 2 MB submodel's state is parsed once, by the writer, not twice);
 * - pending rows by object, in order: the publisher takes an object's next event only when no earlier one of that
 *   object is pending, which keeps commit order per object across replicas;
 * - a lease (`leased_until`, `leased_by`): the publisher claims events in a short transaction and publishes them
 *   outside of it, so no transaction (and on the embedded database, no session) waits for the broker;
 * - delivered rows by delivery time, for pruning after a short retention (subscriptions of other replicas read
 *   them by id in the meantime).
 */
export class EventDelivery1765000000000 implements MigrationInterface {
  name = 'EventDelivery1765000000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE outbox ADD COLUMN version integer NOT NULL DEFAULT 0');
    await q.query('ALTER TABLE outbox ALTER COLUMN version DROP DEFAULT');
    await q.query('ALTER TABLE outbox ALTER COLUMN payload TYPE json USING payload::json');
    await q.query('ALTER TABLE outbox ADD COLUMN leased_until timestamptz, ADD COLUMN leased_by uuid');
    await q.query('CREATE INDEX outbox_pending_object ON outbox (tenant_id, entity_type, md5(entity_id), seq) WHERE published_at IS NULL');
    await q.query('CREATE INDEX outbox_published ON outbox (published_at) WHERE published_at IS NOT NULL');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP INDEX outbox_published');
    await q.query('DROP INDEX outbox_pending_object');
    await q.query('ALTER TABLE outbox DROP COLUMN leased_until, DROP COLUMN leased_by');
    await q.query('ALTER TABLE outbox ALTER COLUMN payload TYPE jsonb USING payload::jsonb');
    await q.query('ALTER TABLE outbox DROP COLUMN version');
  }
}
