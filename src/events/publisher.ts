import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { DataSource, EntityManager } from 'typeorm';
import { NotificationListener } from '../db/listener';
import { ChangeEvent, DeliveredHook, EventEntityType, MAX_MESSAGE_BYTES, messageOf, topicOf } from './change-event';
import type { ChangeHub } from './hub';
import type { Transport } from './mqtt-transport';
import { outboxWrites } from './outbox';
import type { ChangeKind } from './outbox.entity';

export interface PublisherOptions {
  /**
   * Whether this process delivers events (EVENTS_PUBLISH). Off, it only listens for the events other replicas
   * deliver, for its own subscribers.
   */
  deliver: boolean;
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
  /** The LISTEN connection's heartbeat and connect timeout (DB_ANSWER_TIMEOUT_MS, DB_CONNECT_TIMEOUT_MS). */
  listenBounds: { heartbeatMs: number; connectTimeoutMs: number };
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
 * How long claimed events are this replica's to publish: past it (a process that stalled or died after claiming),
 * other replicas take them. Longer than a publish may take (the transport's acknowledgement timeout, 10 s).
 */
const LEASE_MS = 20_000;

/**
 * Delivers the outbox: at least once, in commit order per object, with the outbox id as the event id.
 *
 * A round: claim, in one short transaction, the oldest pending event of each object that no other replica holds
 * (`FOR UPDATE SKIP LOCKED`, a lease not run out, and no earlier pending event of the same object) and those objects'
 * later events, leasing them to this replica; publish them outside any transaction (MQTT, QoS 1, awaiting the
 * broker's acknowledgements); then, in a second transaction, mark them delivered, run the hooks (push queues) and
 * announce them to other replicas (NOTIFY); then hand them to this process's hub. A failed publish releases the
 * lease and the round is retried with backoff, so a broker that is away never fails a write, only delays its event.
 * A process that dies after publishing and before marking leaves its lease to run out: the events are published
 * again (at least once; subscribers de-duplicate by `id`). A rolled-back write never had an event.
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
  private listener?: NotificationListener;
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
    const { listenUrl } = this.options;
    if (listenUrl) {
      this.listener = new NotificationListener({
        url: listenUrl,
        channel: DELIVERED_CHANNEL,
        purpose: 'change events of other replicas (missed meanwhile)',
        log: this.options.log,
        ...this.options.listenBounds,
        onNotification: (payload) => this.announced(payload),
      });
      // A replica that does not deliver listens only once it has a subscriber: no connection held for nothing.
      if (this.options.deliver) await this.listener.start();
      else this.hub.onFirstListener(() => void this.listener?.start());
    }
    if (!this.options.deliver) return;
    outboxWrites.on('written', this.onWritten);
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    outboxWrites.off('written', this.onWritten);
    this.wake?.();
    await this.loop;
    await this.listener?.stop();
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
    // Claimed in one short transaction, published outside any, marked delivered in a second one.
    const rows = await this.dataSource.transaction((manager) => this.claim(manager));
    if (!rows.length) return 0;
    const claimed = rows.map((row) => eventOf(row));
    const seqs = rows.map((row) => row.seq);
    try {
      const { transport } = this.options;
      if (transport) {
        const messages = await Promise.all(
          rows.map(async (row, i) => ({
            topic: topicOf(claimed[i]),
            bytes: (await messageOf(claimed[i], this.options.tenantUrl(row.tenant_name), this.options.maxMessageBytes ?? MAX_MESSAGE_BYTES, row.payload)).bytes,
          })),
        );
        await transport.publish(messages);
      }
    } catch (err) {
      // Released at once for the next round (or another replica), rather than after the lease.
      await this.dataSource.query('UPDATE outbox SET leased_until = NULL, leased_by = NULL WHERE seq = ANY ($1::bigint[]) AND leased_by = $2', [seqs, this.replica]);
      throw err;
    }
    const delivered = await this.dataSource.transaction(async (manager) => {
      // Only events still leased to this replica: one whose lease ran out meanwhile (a stalled process) is another
      // replica's now, which publishes it again (at least once) and marks it.
      // TypeORM answers an UPDATE ... RETURNING as [rows, affected].
      const [marked] = (await manager.query(
        'UPDATE outbox SET published_at = now(), leased_until = NULL WHERE seq = ANY ($1::bigint[]) AND leased_by = $2 AND published_at IS NULL RETURNING seq',
        [seqs, this.replica],
      )) as [{ seq: string }[], number];
      const mine = new Set(marked.map((row) => String(row.seq)));
      const events = claimed.filter((event) => mine.has(event.seq));
      for (const hook of this.options.hooks ?? []) await hook(manager, events);
      if (this.options.listenUrl) {
        const ids = events.map((event) => event.seq);
        for (let i = 0; i < ids.length; i += IDS_PER_NOTIFY) {
          await manager.query('SELECT pg_notify($1, $2)', [DELIVERED_CHANNEL, JSON.stringify({ replica: this.replica, seqs: ids.slice(i, i + IDS_PER_NOTIFY) })]);
        }
      }
      return events;
    });
    if (delivered.length) this.hub.emit(delivered);
    return rows.length;
  }

  /**
   * The events of this round, leased to this replica: the first pending event of each object that no other replica
   * holds (locked or leased), then the later pending events of those objects (which no other replica takes while the
   * first is pending), in `seq` order.
   */
  private async claim(manager: EntityManager): Promise<OutboxRow[]> {
    const heads: { seq: string }[] = await manager.query(
      `SELECT o.seq FROM outbox o
        WHERE o.published_at IS NULL AND (o.leased_until IS NULL OR o.leased_until < now())
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
    const rows: OutboxRow[] = await manager.query(
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
    await manager.query(`UPDATE outbox SET leased_until = now() + $1 * interval '1 millisecond', leased_by = $2 WHERE seq = ANY ($3::bigint[])`, [
      LEASE_MS,
      this.replica,
      rows.map((row) => row.seq),
    ]);
    return rows;
  }

  private async prune(): Promise<void> {
    this.lastPrune = Date.now();
    await this.dataSource.query(`DELETE FROM outbox WHERE published_at < now() - $1 * interval '1 millisecond'`, [this.options.retentionMs]);
  }

  /** Events other replicas delivered reach this process's hub: announced by NOTIFY, read by id (still retained). */
  private announced(payload: string): void {
    if (this.hub.size === 0) return;
    const { replica, seqs } = JSON.parse(payload) as { replica: string; seqs: string[] };
    if (replica === this.replica) return;
    this.delivered(seqs).then(
      (events) => this.hub.emit(events),
      (err: unknown) => this.options.log.warn({ err: (err as Error).message }, 'could not read events another replica delivered'),
    );
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
