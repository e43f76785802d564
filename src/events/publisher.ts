import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import type { Logger } from 'pino';
import { DataSource, EntityManager } from 'typeorm';
import { ChangeEvent, DeliveredHook, EventEntityType, MAX_MESSAGE_BYTES, messageOf, topicOf } from './change-event';
import type { ChangeHub } from './hub';
import type { Transport } from './mqtt-transport';
import { outboxWrites } from './outbox';
import type { ChangeKind } from './outbox.entity';

export interface PublisherOptions {
  /** Where events go (MQTT); none: events are still delivered to the hooks and the hub, and pruned. */
  transport?: Transport;
  /** Work done in each delivery transaction (push queues). */
  hooks?: DeliveredHook[];
  /** `{tenant_url}` of a tenant, by name: the events' `source` and the slim events' URLs. */
  tenantUrl: (tenantName: string) => string;
  /** How often the outbox is looked at when nothing woke the publisher (writes of other replicas). */
  pollMs: number;
  /** Most events one delivery round takes. */
  batchSize: number;
  /** How long delivered rows stay (other replicas' subscribers read them by id) before they are pruned. */
  retentionMs: number;
  /** PostgreSQL connection string for LISTEN (events other replicas delivered); absent on the embedded database. */
  listenUrl?: string;
  maxMessageBytes?: number;
  log: Logger;
}

interface OutboxRow {
  seq: string;
  tenant_id: string;
  tenant_name: string;
  kind: ChangeKind;
  entity_type: EventEntityType;
  entity_id: string;
  version: number;
  payload: string | null;
  created_at: Date;
}

/** The NOTIFY channel on which a publisher announces the events it delivered, for the other replicas' hubs. */
const DELIVERED_CHANNEL = 'outbox_delivered';
/** NOTIFY payloads are at most 8,000 bytes: ids are announced in chunks. */
const IDS_PER_NOTIFY = 400;
/** The longest pause after failed rounds (broker away): events are retried at least this often. */
const MAX_BACKOFF_MS = 5_000;

/**
 * Delivers the outbox: at least once, in commit order per object, with the outbox id as the event id.
 *
 * A round, in one transaction: take the oldest pending event of each object that no other replica holds
 * (`FOR UPDATE SKIP LOCKED`, and only events with no earlier pending event of the same object), then that object's
 * later pending events; publish them all (MQTT, QoS 1, awaiting the broker's acknowledgements); run the hooks (push
 * queues); mark them delivered; announce them to other replicas (NOTIFY); commit; hand them to this process's hub.
 * A failure anywhere rolls the round back: the events stay pending and are retried with backoff, so a broker that is
 * away never fails a write, only delays its event. A crash after publishing and before the commit sends those events
 * again on the next round (at least once; subscribers de-duplicate by `id`). A rolled-back write never had an event.
 * Delivered rows are pruned after `retentionMs`.
 */
export class OutboxPublisher {
  private readonly replica = randomUUID();
  private stopped = true;
  private loop?: Promise<void>;
  private wake?: () => void;
  /** A write was committed since the last round began. */
  private dirty = false;
  private failures = 0;
  private lastPrune = 0;
  private listener?: Client;
  private readonly onWritten = () => {
    this.dirty = true;
    this.wake?.();
  };

  constructor(
    private readonly dataSource: DataSource,
    private readonly hub: ChangeHub,
    private readonly options: PublisherOptions,
  ) {}

  async start(): Promise<void> {
    this.stopped = false;
    outboxWrites.on('written', this.onWritten);
    if (this.options.listenUrl) await this.listen(this.options.listenUrl);
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    outboxWrites.off('written', this.onWritten);
    this.wake?.();
    await this.loop;
    await this.listener?.end().catch(() => undefined);
    await this.options.transport?.close();
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      let delivered = 0;
      this.dirty = false;
      try {
        delivered = await this.round();
        if (this.failures) this.options.log.info({ afterFailures: this.failures }, 'change events delivered again');
        this.failures = 0;
        if (Date.now() - this.lastPrune > Math.min(this.options.retentionMs, 10_000)) await this.prune();
      } catch (err) {
        this.failures++;
        if (this.failures === 1 || this.failures % 60 === 0) {
          this.options.log.warn({ err: (err as Error).message, failures: this.failures }, 'change events not delivered; retrying');
        }
        await this.pause(Math.min(MAX_BACKOFF_MS, this.options.pollMs * 2 ** Math.min(this.failures, 10)), false);
        continue;
      }
      if (delivered === this.options.batchSize || this.dirty) continue;
      await this.pause(this.options.pollMs, true);
    }
  }

  /** Waits `ms`, or less when a write is committed in this process (if `wakeOnWrite`) or the publisher stops. */
  private pause(ms: number, wakeOnWrite: boolean): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.wake = undefined;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wake = wakeOnWrite ? done : () => (this.stopped ? done() : undefined);
    });
  }

  /** One delivery round; the number of events delivered. */
  private async round(): Promise<number> {
    let events: ChangeEvent[] = [];
    await this.dataSource.transaction(async (manager) => {
      const rows = await this.take(manager);
      if (!rows.length) return;
      events = rows.map((row) => eventOf(row));
      const { transport } = this.options;
      if (transport) {
        const messages = await Promise.all(
          rows.map(async (row, i) => ({
            topic: topicOf(events[i]),
            bytes: (await messageOf(events[i], this.options.tenantUrl(row.tenant_name), this.options.maxMessageBytes ?? MAX_MESSAGE_BYTES, row.payload)).bytes,
          })),
        );
        await transport.publish(messages);
      }
      for (const hook of this.options.hooks ?? []) await hook(manager, events);
      const seqs = rows.map((row) => row.seq);
      await manager.query('UPDATE outbox SET published_at = now() WHERE seq = ANY ($1::bigint[])', [seqs]);
      if (this.options.listenUrl) {
        for (let i = 0; i < seqs.length; i += IDS_PER_NOTIFY) {
          await manager.query('SELECT pg_notify($1, $2)', [DELIVERED_CHANNEL, JSON.stringify({ replica: this.replica, seqs: seqs.slice(i, i + IDS_PER_NOTIFY) })]);
        }
      }
    });
    if (events.length) this.hub.emit(events);
    return events.length;
  }

  /**
   * The events of this round, locked: the first pending event of each object no other replica holds, then the later
   * pending events of those objects (which no other replica can take while the first is pending), in `seq` order.
   */
  private async take(manager: EntityManager): Promise<OutboxRow[]> {
    const heads: { seq: string }[] = await manager.query(
      `SELECT o.seq FROM outbox o
        WHERE o.published_at IS NULL
          AND NOT EXISTS (
            SELECT 1 FROM outbox p
             WHERE p.published_at IS NULL AND p.tenant_id = o.tenant_id AND p.entity_type = o.entity_type
               AND md5(p.entity_id) = md5(o.entity_id) AND p.entity_id = o.entity_id AND p.seq < o.seq)
        ORDER BY o.seq
        LIMIT $1
        FOR UPDATE OF o SKIP LOCKED`,
      [this.options.batchSize],
    );
    if (!heads.length) return [];
    return manager.query(
      `SELECT o.seq, o.tenant_id, t.name AS tenant_name, o.kind, o.entity_type, o.entity_id, o.version, o.payload::text AS payload, o.created_at
         FROM outbox o
         JOIN tenants t ON t.id = o.tenant_id
        WHERE o.published_at IS NULL
          AND (o.tenant_id, o.entity_type, md5(o.entity_id), o.entity_id) IN (
            SELECT h.tenant_id, h.entity_type, md5(h.entity_id), h.entity_id FROM outbox h WHERE h.seq = ANY ($1::bigint[]))
        ORDER BY o.seq
        LIMIT $2
        FOR UPDATE OF o`,
      [heads.map((h) => h.seq), this.options.batchSize],
    );
  }

  private async prune(): Promise<void> {
    this.lastPrune = Date.now();
    await this.dataSource.query(`DELETE FROM outbox WHERE published_at < now() - $1 * interval '1 millisecond'`, [this.options.retentionMs]);
  }

  /** Events other replicas delivered reach this process's hub: announced by NOTIFY, read by id (still retained). */
  private async listen(url: string): Promise<void> {
    const client = new Client({ connectionString: url });
    client.on('error', (err) => this.options.log.warn({ err: err.message }, 'the LISTEN connection for delivered events failed'));
    await client.connect();
    client.on('notification', (message) => {
      if (message.channel !== DELIVERED_CHANNEL || !message.payload || this.hub.size === 0) return;
      const { replica, seqs } = JSON.parse(message.payload) as { replica: string; seqs: string[] };
      if (replica === this.replica) return;
      this.delivered(seqs).then(
        (events) => this.hub.emit(events),
        (err: unknown) => this.options.log.warn({ err: (err as Error).message }, 'could not read events another replica delivered'),
      );
    });
    await client.query(`LISTEN ${DELIVERED_CHANNEL}`);
    this.listener = client;
  }

  private async delivered(seqs: string[]): Promise<ChangeEvent[]> {
    const rows: OutboxRow[] = await this.dataSource.query(
      `SELECT o.seq, o.tenant_id, t.name AS tenant_name, o.kind, o.entity_type, o.entity_id, o.version, o.payload::text AS payload, o.created_at
         FROM outbox o JOIN tenants t ON t.id = o.tenant_id WHERE o.seq = ANY ($1::bigint[]) ORDER BY o.seq`,
      [seqs],
    );
    return rows.map((row) => eventOf(row));
  }
}

/** An outbox row as an event; its state is parsed only when a listener reads it. */
function eventOf(row: OutboxRow): ChangeEvent {
  let state: Record<string, unknown> | null | undefined;
  return {
    seq: String(row.seq),
    tenantId: row.tenant_id,
    tenantName: row.tenant_name,
    kind: row.kind,
    entityType: row.entity_type,
    entityId: row.entity_id,
    version: row.version,
    time: new Date(row.created_at),
    get state() {
      if (state === undefined) state = row.payload === null ? null : (JSON.parse(row.payload) as Record<string, unknown>);
      return state;
    },
  };
}
