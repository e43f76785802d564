import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { DataSource, EntityManager } from 'typeorm';
import { NotificationListener } from '../db/listener';
import { isLastingRefusal } from '../db/unavailable';
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
  /** Where events go (MQTT); none: this process leaves the MQTT delivery to replicas that have it. */
  transport?: Transport;
  /** Work done in each core delivery transaction, for every row (push queues). */
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
  events: boolean;
}

/**
 * One delivery of the outbox, tracked in columns of its own (when delivered, the lease): replicas that can make it
 * claim the rows it still lacks, and only those. `filter` says which rows it makes. `send` runs outside any
 * transaction (a failure releases the rows and retries the round); `marked` inside the transaction that marks them
 * delivered; `after` once that committed.
 */
interface Channel {
  /** The transport's name (logs; `event_transports`). */
  name: string;
  deliveredAt: string;
  leasedUntil: string;
  leasedBy: string;
  /** The condition on a row (of the alias given) that it is one this delivery makes. */
  filter: (alias: string) => string;
  send?(rows: OutboxRow[], events: ChangeEvent[]): Promise<void>;
  marked?(manager: EntityManager, rows: OutboxRow[], events: ChangeEvent[]): Promise<void>;
  after?(rows: OutboxRow[], events: ChangeEvent[]): void;
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

/** How often a transaction of a round that PostgreSQL chose as a deadlock's victim is run again at once. */
const DEADLOCK_RETRIES = 5;

/**
 * `work` in a transaction, run again when PostgreSQL aborts it as the victim of a deadlock (SQLSTATE 40P01). The
 * MQTT and the core delivery lock outbox rows of the same objects in their own rounds, so their claims and marks
 * can deadlock; the victim's transaction is rolled back whole, so running it again is the same work, and doing it
 * at once keeps a deadlock from delaying events by a failed round's backoff, or, for a mark after sending, from
 * leaving sent events leased until the lease runs out and sending them again.
 */
async function inTransaction<T>(dataSource: DataSource, work: (manager: EntityManager) => Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await dataSource.transaction(work);
    } catch (err) {
      const code = (err as { driverError?: { code?: string } }).driverError?.code ?? (err as { code?: string }).code;
      if (code !== '40P01' || attempt >= DEADLOCK_RETRIES) throw err;
    }
  }
}
/**
 * While tenants found with work are still being worked through, how often the tenants with work are looked for again
 * (new ones join the turn): a tenant whose events arrive while others have a backlog waits at most this long plus a
 * turn of the others (a round each).
 */
const FIND_TENANTS_MS = 1_000;
/** Most tenants one look for tenants with work finds (the oldest pending events first); the rest come later. */
const TENANTS_FOUND = 1_000;

/** The tenants with work for one delivery, in turn: a round serves the first, which goes last if it may have more. */
interface Turn {
  tenants: string[];
  foundAt: number;
}

/** How often a replica with MQTT says so in `event_transports`. */
const TRANSPORT_SEEN_MS = 60_000;
/**
 * Events wait for their MQTT delivery while a replica with MQTT has run within this time; when none has for longer
 * (MQTT taken out of the deployment), delivered rows are pruned without it.
 */
export const TRANSPORT_GONE_MS = 60 * 60_000;

/**
 * Delivers the outbox: at least once, in commit order per object, with the outbox id as the event id. Each transport
 * is a delivery of its own, tracked per row, made only by replicas that have the transport:
 * - `core` (every replica that delivers, EVENTS_PUBLISH): the hooks (push queues) for every row, and, for change
 *   events, the announcement to other replicas (NOTIFY) and this process's hub (GraphQL subscriptions);
 * - `mqtt` (replicas that deliver and have MQTT_URL): the change events to the broker.
 * A replica without MQTT leaves the MQTT delivery to those with it; a broker that is away delays MQTT only.
 *
 * A round of a delivery serves one tenant, so that every statement that locks or changes outbox rows names the tenant
 * (on a database distributed by tenant, Citus, it goes to that tenant's shard only). The tenants with work are
 * found by a read without locks (oldest pending event first), then served in turn, a round each; a tenant with more
 * than a round's worth goes last again, and the tenants with work are looked for again at least every
 * FIND_TENANTS_MS, so a tenant with a large backlog never holds up another. A round: claim, in one short transaction,
 * the oldest row of each object of the tenant that this delivery still lacks and no other replica holds (`FOR UPDATE SKIP LOCKED`, a lease not run out, and no earlier pending row of the
 * same object) and those objects' later rows, leasing them to this replica; send them outside any transaction (MQTT,
 * QoS 1, awaiting the broker's acknowledgements); then, in a second transaction, mark them delivered and run the
 * work that commits with that (hooks, NOTIFY); then hand them to this process's hub. A failed send releases the
 * lease and the round is retried with backoff, so a broker that is away never fails a write, only delays its event.
 * A process that dies after sending and before marking leaves its lease to run out: the events are sent again (at
 * least once; subscribers de-duplicate by `id`). A rolled-back write never had an event. Rows are pruned
 * `retentionMs` after their core delivery once their MQTT delivery is done too (or no replica has MQTT any more).
 */
export class OutboxPublisher {
  private readonly replica = randomUUID();
  private stopped = true;
  private loops: Promise<void>[] = [];
  private readonly wakes = new Set<() => void>();
  private lastPrune = 0;
  private lastSeen = 0;
  private listener?: NotificationListener;
  private readonly onWritten = () => {
    for (const wake of this.wakes) wake();
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
    this.loops = this.channels().map((channel) => this.run(channel));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    outboxWrites.off('written', this.onWritten);
    this.onWritten();
    await Promise.all(this.loops);
    await this.listener?.stop();
    await this.options.transport?.close();
  }

  /** The deliveries this process makes. */
  private channels(): Channel[] {
    const core: Channel = {
      name: 'core',
      deliveredAt: 'published_at',
      leasedUntil: 'leased_until',
      leasedBy: 'leased_by',
      filter: () => 'TRUE',
      marked: async (manager, rows, events) => {
        for (const hook of this.options.hooks ?? []) await hook(manager, events);
        if (!this.options.listenUrl) return;
        const changes = events.filter((_, i) => rows[i].events);
        if (!changes.length) return;
        // A round's events are one tenant's. The NOTIFY is a statement of its own, reading no table: on a distributed
        // database it runs on the coordinator (where replicas LISTEN), in a transaction that wrote one shard only.
        const tenant = changes[0].tenantId;
        const ids = changes.map((event) => event.seq);
        for (let i = 0; i < ids.length; i += IDS_PER_NOTIFY) {
          await manager.query('SELECT pg_notify($1, $2)', [DELIVERED_CHANNEL, JSON.stringify({ replica: this.replica, tenant, seqs: ids.slice(i, i + IDS_PER_NOTIFY) })]);
        }
      },
      after: (rows, events) => {
        const changes = events.filter((_, i) => rows[i].events);
        if (changes.length) this.hub.emit(changes);
      },
    };
    const { transport } = this.options;
    if (!transport) return [core];
    const mqtt: Channel = {
      name: 'mqtt',
      deliveredAt: 'mqtt_published_at',
      leasedUntil: 'mqtt_leased_until',
      leasedBy: 'mqtt_leased_by',
      filter: (alias) => `${alias}.events`,
      send: async (rows, events) => {
        const messages = await Promise.all(
          rows.map(async (row, i) => ({
            topic: topicOf(events[i]),
            bytes: (await messageOf(events[i], this.options.tenantUrl(row.tenant_name), this.options.maxMessageBytes ?? MAX_MESSAGE_BYTES, row.payload)).bytes,
          })),
        );
        await transport.publish(messages);
      },
    };
    return [core, mqtt];
  }

  private async run(channel: Channel): Promise<void> {
    let failures = 0;
    /** A write was committed since the last round began. */
    let dirty = false;
    const turn: Turn = { tenants: [], foundAt: 0 };
    const onWrite = () => (dirty = true);
    this.wakes.add(onWrite);
    try {
      while (!this.stopped) {
        let delivered = 0;
        dirty = false;
        try {
          if (channel.name === 'mqtt') await this.seen(channel.name);
          delivered = await this.round(channel, turn);
          if (failures) this.options.log.info({ transport: channel.name, afterFailures: failures }, 'change events delivered again');
          failures = 0;
          if (channel.name === 'core' && Date.now() - this.lastPrune > Math.min(this.options.retentionMs, 10_000)) await this.prune();
        } catch (err) {
          failures++;
          // A refusal that lasts (a setting of the database) is an error at once. Else one failed round is retried at
          // once and said quietly (a connection that timed out while the process was busy); a fault that stays is
          // warned about on the second round in a row, and every 60th after.
          const fields = { err: (err as Error).message, transport: channel.name, failures };
          if (isLastingRefusal(err)) {
            if (failures === 1 || failures % 60 === 0) this.options.log.error(fields, 'change events cannot be delivered: the database refuses the statements of the delivery; retrying');
          } else if (failures === 1) this.options.log.info(fields, 'change events not delivered; retrying');
          else if (failures === 2 || failures % 60 === 0) this.options.log.warn(fields, 'change events not delivered; retrying');
          await this.pause(Math.min(MAX_BACKOFF_MS, this.options.pollMs * 2 ** Math.min(failures, 10)), false);
          continue;
        }
        if (delivered === this.options.batchSize || turn.tenants.length || dirty) continue;
        await this.pause(this.options.pollMs, true);
      }
    } finally {
      this.wakes.delete(onWrite);
    }
  }

  /** Waits `ms`, or less when a write is committed in this process (if `wakeOnWrite`) or the publisher stops. */
  private pause(ms: number, wakeOnWrite: boolean): Promise<void> {
    return new Promise((resolve) => {
      if (this.stopped) return resolve();
      const done = () => {
        clearTimeout(timer);
        this.wakes.delete(wake);
        resolve();
      };
      const timer = setTimeout(done, ms);
      const wake = () => (wakeOnWrite || this.stopped ? done() : undefined);
      this.wakes.add(wake);
    });
  }

  /**
   * Says that a replica with this transport runs (at most every TRANSPORT_SEEN_MS). The update takes the inserted
   * row's time: Citus refuses a function that is not IMMUTABLE (`now()`) in the DO UPDATE of a distributed or
   * reference table.
   */
  private async seen(transport: string): Promise<void> {
    if (Date.now() - this.lastSeen < TRANSPORT_SEEN_MS) return;
    await this.dataSource.query('INSERT INTO event_transports (name, seen_at) VALUES ($1, now()) ON CONFLICT (name) DO UPDATE SET seen_at = excluded.seen_at', [transport]);
    this.lastSeen = Date.now();
  }

  /**
   * The tenants with rows `channel` still lacks and no replica holds, the oldest pending row first: a read without
   * locks, of every tenant (on a distributed database, of every shard), through the pending rows' partial index by
   * tenant.
   */
  private async tenantsWithWork(channel: Channel): Promise<string[]> {
    const { deliveredAt, leasedUntil, filter } = channel;
    const rows: { tenant_id: string }[] = await this.dataSource.query(
      `SELECT o.tenant_id FROM outbox o
        WHERE o.${deliveredAt} IS NULL AND ${filter('o')} AND (o.${leasedUntil} IS NULL OR o.${leasedUntil} < now())
        GROUP BY o.tenant_id
        ORDER BY min(o.seq)
        LIMIT $1`,
      [TENANTS_FOUND],
    );
    return rows.map((row) => row.tenant_id);
  }

  /**
   * One delivery round of `channel`, for the tenant whose turn it is (the tenants with work looked for when none is
   * left, or FIND_TENANTS_MS after the last look); the number of events it claimed.
   */
  private async round(channel: Channel, turn: Turn): Promise<number> {
    if (!turn.tenants.length || Date.now() - turn.foundAt >= FIND_TENANTS_MS) {
      const found = await this.tenantsWithWork(channel);
      turn.foundAt = Date.now();
      // Tenants in the turn keep their places; newly found ones join at the end.
      const waiting = new Set(turn.tenants);
      turn.tenants.push(...found.filter((tenant) => !waiting.has(tenant)));
    }
    const tenant = turn.tenants.shift();
    if (tenant === undefined) return 0;
    const claimedRows = await this.roundOf(channel, tenant);
    // A full round may have left more: the tenant goes last, after the others' turns.
    if (claimedRows === this.options.batchSize) turn.tenants.push(tenant);
    return claimedRows;
  }

  /** One delivery round of `channel` for one tenant; the number of events it claimed. */
  private async roundOf(channel: Channel, tenantId: string): Promise<number> {
    // Claimed in one short transaction, sent outside any, marked delivered in a second one.
    const rows = await inTransaction(this.dataSource, (manager) => this.claim(manager, channel, tenantId));
    if (!rows.length) return 0;
    const claimed = rows.map((row) => eventOf(row));
    const seqs = rows.map((row) => row.seq);
    try {
      await channel.send?.(rows, claimed);
    } catch (err) {
      // Released at once for the next round (or another replica), rather than after the lease.
      await this.dataSource.query(
        `UPDATE outbox SET ${channel.leasedUntil} = NULL, ${channel.leasedBy} = NULL WHERE tenant_id = $1 AND seq = ANY ($2::bigint[]) AND ${channel.leasedBy} = $3`,
        [tenantId, seqs, this.replica],
      );
      throw err;
    }
    const [mineRows, mine] = await inTransaction(this.dataSource, async (manager) => {
      // Only events still leased to this replica: one whose lease ran out meanwhile (a stalled process) is another
      // replica's now, which sends it again (at least once) and marks it.
      // TypeORM answers an UPDATE ... RETURNING as [rows, affected].
      const [marked] = (await manager.query(
        `UPDATE outbox SET ${channel.deliveredAt} = now(), ${channel.leasedUntil} = NULL
          WHERE tenant_id = $1 AND seq = ANY ($2::bigint[]) AND ${channel.leasedBy} = $3 AND ${channel.deliveredAt} IS NULL RETURNING seq`,
        [tenantId, seqs, this.replica],
      )) as [{ seq: string }[], number];
      const markedSeqs = new Set(marked.map((row) => String(row.seq)));
      const keep = rows.map((row) => markedSeqs.has(String(row.seq)));
      const ownRows = rows.filter((_, i) => keep[i]);
      const events = claimed.filter((_, i) => keep[i]);
      await channel.marked?.(manager, ownRows, events);
      return [ownRows, events] as const;
    });
    if (mine.length) channel.after?.(mineRows, mine);
    return rows.length;
  }

  /**
   * The rows of this round of `channel`, leased to this replica: the first row of each object that the delivery
   * lacks and no other replica holds (locked or leased), then the later pending rows of those objects (which no other
   * replica takes while the first is pending), in `seq` order.
   */
  private async claim(manager: EntityManager, channel: Channel, tenantId: string): Promise<OutboxRow[]> {
    const { deliveredAt, leasedUntil, leasedBy, filter } = channel;
    const pending = (alias: string) => `${alias}.${deliveredAt} IS NULL AND ${filter(alias)}`;
    const heads: { seq: string }[] = await manager.query(
      `SELECT o.seq FROM outbox o
        WHERE o.tenant_id = $1 AND ${pending('o')} AND (o.${leasedUntil} IS NULL OR o.${leasedUntil} < now())
          AND NOT EXISTS (
            SELECT 1 FROM outbox p
             WHERE p.tenant_id = $1 AND ${pending('p')} AND p.entity_type = o.entity_type
               AND md5(p.entity_id) = md5(o.entity_id) AND p.entity_id = o.entity_id AND p.seq < o.seq)
        ORDER BY o.seq
        LIMIT $2
        FOR UPDATE OF o SKIP LOCKED`,
      [tenantId, this.options.batchSize],
    );
    if (!heads.length) return [];
    const rows: Omit<OutboxRow, 'tenant_name'>[] = await manager.query(
      `SELECT o.seq, o.tenant_id, o.kind, o.entity_type, o.entity_id, o.version, o.payload::text AS payload, o.created_at, o.events
         FROM outbox o
        WHERE o.tenant_id = $1 AND ${pending('o')}
          AND (o.entity_type, md5(o.entity_id), o.entity_id) IN (
            SELECT h.entity_type, md5(h.entity_id), h.entity_id FROM outbox h WHERE h.tenant_id = $1 AND h.seq = ANY ($2::bigint[]))
        ORDER BY o.seq
        LIMIT $3
        FOR UPDATE OF o`,
      [tenantId, heads.map((h) => h.seq), this.options.batchSize],
    );
    await manager.query(
      `UPDATE outbox SET ${leasedUntil} = now() + $1 * interval '1 millisecond', ${leasedBy} = $2 WHERE tenant_id = $3 AND seq = ANY ($4::bigint[])`,
      [LEASE_MS, this.replica, tenantId, rows.map((row) => row.seq)],
    );
    // The tenant's name (a shared table) read on its own: the statements on the outbox read and lock nothing else.
    const [tenant]: { name: string }[] = await manager.query('SELECT name FROM tenants WHERE id = $1', [tenantId]);
    return rows.map((row) => ({ ...row, tenant_name: tenant?.name ?? '' }));
  }

  /**
   * Rows whose core delivery is `retentionMs` old, and which are delivered to MQTT too, or need no MQTT delivery
   * (no change event; no replica with MQTT ran within TRANSPORT_GONE_MS).
   */
  private async prune(): Promise<void> {
    this.lastPrune = Date.now();
    const [{ mqtt }]: { mqtt: boolean }[] = await this.dataSource.query(
      `SELECT EXISTS (SELECT 1 FROM event_transports WHERE name = 'mqtt' AND seen_at > now() - $1 * interval '1 millisecond') AS mqtt`,
      [TRANSPORT_GONE_MS],
    );
    // Of every tenant, without row locks: one statement on every shard of a distributed database.
    await this.dataSource.query(
      `DELETE FROM outbox
        WHERE published_at < now() - $1 * interval '1 millisecond'
          AND (mqtt_published_at IS NOT NULL OR NOT events OR NOT $2::boolean)`,
      [this.options.retentionMs, mqtt],
    );
  }

  /** Events other replicas delivered reach this process's hub: announced by NOTIFY, read by id (still retained). */
  private announced(payload: string): void {
    if (this.hub.size === 0) return;
    const { replica, tenant, seqs } = JSON.parse(payload) as { replica: string; tenant?: string; seqs: string[] };
    if (replica === this.replica) return;
    this.delivered(tenant, seqs).then(
      (events) => this.hub.emit(events),
      (err: unknown) => this.options.log.warn({ err: (err as Error).message }, 'could not read events another replica delivered'),
    );
  }

  /** The events of `seqs`, of `tenant` (announced by a replica of an earlier version without it: of any tenant). */
  private async delivered(tenant: string | undefined, seqs: string[]): Promise<ChangeEvent[]> {
    const columns = 'o.seq, o.tenant_id, t.name AS tenant_name, o.kind, o.entity_type, o.entity_id, o.version, o.payload::text AS payload, o.created_at, o.events';
    const rows: OutboxRow[] =
      tenant === undefined
        ? await this.dataSource.query(
            `SELECT ${columns} FROM outbox o JOIN tenants t ON t.id = o.tenant_id WHERE o.seq = ANY ($1::bigint[]) AND o.events ORDER BY o.seq`,
            [seqs],
          )
        : await this.dataSource.query(
            `SELECT ${columns} FROM outbox o JOIN tenants t ON t.id = o.tenant_id WHERE o.tenant_id = $1 AND o.seq = ANY ($2::bigint[]) AND o.events ORDER BY o.seq`,
            [tenant, seqs],
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
