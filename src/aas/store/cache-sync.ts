import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { DataSource, EntityManager, EntitySubscriberInterface, QueryRunner } from 'typeorm';
import { apartFromRequest } from '../../common/client-gone';
import { NotificationListener } from '../../db/listener';
import { Query, deregister, register, registered, sweep, waitForEarlierWrites } from './cache-listeners';
import { ReadCache } from './read-cache';

/** The channel on which a write announces, with its commit, which identifiable it changed (PostgreSQL NOTIFY). */
export const CHANGED_CHANNEL = 'identifiable_changed';

/**
 * The SQL expression that announces a change, `payload` being the SQL of the payload (`CacheSync.notification`):
 * `notify_identifiable_changed`, which notifies only while a replica other than the writer is registered in
 * `cache_listeners` (migration CacheListeners). On Citus a plain `pg_notify`, in a statement of its own naming no table.
 */
export function announceSql(payload: string, citus = false): string {
  return citus ? `pg_notify('${CHANGED_CHANNEL}', ${payload})` : `notify_identifiable_changed(${payload})`;
}

export interface CacheSyncOptions {
  /** Where to LISTEN for the writes of other replicas (a PostgreSQL server); none for the embedded database. */
  listenUrl?: string;
  log: Logger;
  /** The LISTEN connection's heartbeat (DB_ANSWER_TIMEOUT_MS) and connect timeout (DB_CONNECT_TIMEOUT_MS). */
  heartbeatMs: number;
  connectTimeoutMs: number;
}

/**
 * Keeps the read cache in step with writes. In this process: a write marks its identifiable pending inside its
 * transaction (`writing`), and the transaction's end (TypeORM's commit and rollback events of the outermost
 * transaction) settles it, before the write returns to its caller. Across replicas (PostgreSQL): the write of a
 * stored identifiable sends `pg_notify('identifiable_changed', ...)` in its transaction (`notification`), which
 * PostgreSQL delivers to every listener when, and only if, it commits; each replica invalidates what it hears. It is
 * sent only while another replica is registered as listening (`cache_listeners`, `announceSql`). A
 * create sends one too: nothing caches the identifiable that did not exist, but the cached list pages of its kind
 * must show it. The cache serves only while the LISTEN connection is up: it
 * starts disabled, and a lost connection (closed, failed, or silent past its heartbeat) empties and disables it until
 * it listens again, and is registered again (`join`).
 */
export class CacheSync {
  readonly replica = randomUUID();
  private readonly open = new WeakMap<QueryRunner, string[]>();
  private readonly listener?: NotificationListener;

  constructor(
    readonly cache: ReadCache,
    private readonly dataSource: DataSource,
    private readonly options: CacheSyncOptions,
  ) {
    const subscriber: EntitySubscriberInterface = {
      afterTransactionCommit: (event) => this.ended(event.queryRunner),
      afterTransactionRollback: (event) => this.ended(event.queryRunner),
    };
    dataSource.subscribers.push(subscriber);
    if (!options.listenUrl) return;
    cache.disable();
    this.listener = new NotificationListener({
      url: options.listenUrl,
      channel: CHANGED_CHANNEL,
      purpose: 'read cache (off meanwhile)',
      log: options.log,
      heartbeatMs: options.heartbeatMs,
      connectTimeoutMs: options.connectTimeoutMs,
      onNotification: (payload) => {
        const space = payload.indexOf(' ');
        if (payload.slice(0, space) !== this.replica) cache.invalidate(payload.slice(space + 1));
      },
      onListening: (pid) => {
        this.joined = this.join(++this.generation, pid);
      },
      onHeartbeat: () => void this.check(),
      onLost: () => {
        this.generation++;
        this.pid = undefined;
        cache.disable();
      },
    });
  }

  /** Changes with each LISTEN connection and each loss of one: a registration of an earlier one gives up. */
  private generation = 0;
  /** The LISTEN connection's server process, once this replica is registered with it and its cache serves. */
  private pid?: number;
  /** The registration of the latest LISTEN connection, until it is done. */
  private joined?: Promise<void>;

  private query: Query = (sql, params) => apartFromRequest(() => this.dataSource.query(sql, params));

  /**
   * Registers this replica with its LISTEN connection (`cache_listeners`), so that the writes of other replicas notify
   * it, and turns the cache on once no transaction that may have decided not to notify is still open. Retried while
   * it fails, with the cache off.
   */
  private async join(generation: number, pid: number): Promise<void> {
    const current = () => generation === this.generation;
    try {
      await register(this.query, this.replica, pid);
      const waited = await waitForEarlierWrites(this.query, current, (open) =>
        this.options.log.info({ open }, 'read cache: waiting for transactions older than its registration to end (off meanwhile)'),
      );
      if (!waited) return;
      this.pid = pid;
      this.cache.enable();
      this.options.log.debug('read cache: listening for the writes of other replicas');
    } catch (err) {
      if (!current()) return;
      this.options.log.warn({ err: (err as Error).message }, 'read cache: cannot register for the writes of other replicas; retrying (off meanwhile)');
      await new Promise((resolve) => setTimeout(resolve, Math.min(this.options.heartbeatMs, 1_000)).unref());
      if (current()) await this.join(generation, pid);
    }
  }

  /**
   * At each heartbeat: drops the registrations of replicas gone without a word, and checks this one's own. Gone
   * (dropped by mistake, or by a migration's undo), it is made again, with the cache off until that is done.
   */
  private async check(): Promise<void> {
    const pid = this.pid;
    if (pid === undefined) return;
    try {
      await sweep(this.query);
      if (pid !== this.pid || (await registered(this.query, this.replica, pid))) return;
    } catch (err) {
      this.options.log.debug({ err: (err as Error).message }, 'read cache: could not check its registration');
      return;
    }
    if (pid !== this.pid) return;
    this.options.log.warn('read cache: its registration for the writes of other replicas was gone; registering again (off meanwhile)');
    this.pid = undefined;
    this.cache.disable();
    this.joined = this.join(++this.generation, pid);
  }

  /** A write of `key` in the transaction of `manager`: pending here until the transaction ends. */
  writing(manager: EntityManager, key: string): void {
    const runner = manager.queryRunner;
    if (!runner?.isTransactionActive) throw new Error('identifiable writes run in a transaction');
    const keys = this.open.get(runner);
    if (keys) keys.push(key);
    else this.open.set(runner, [key]);
    this.cache.pending(key);
  }

  /**
   * A write of `key` in one statement outside any transaction (autocommit): pending while `run` sends it, settled
   * when its answer (its commit) or its failure is in.
   */
  async writingOnce<T>(key: string, run: () => Promise<T>): Promise<T> {
    this.cache.pending(key);
    try {
      return await run();
    } finally {
      this.cache.settled(key);
    }
  }

  /**
   * The payload of the notification that announces a change of `key` to other replicas (this replica's id, a space,
   * the key), which the write path sends with `announceSql` in its transaction, once it has locked or created the row;
   * undefined where there are no other replicas (the embedded database).
   */
  notification(key: string): string | undefined {
    return this.options.listenUrl ? `${this.replica} ${key}` : undefined;
  }

  private ended(runner: QueryRunner): void {
    // A savepoint's end is not the transaction's: the outermost commit or rollback settles the keys.
    if (runner.isTransactionActive) return;
    const keys = this.open.get(runner);
    if (!keys) return;
    this.open.delete(runner);
    for (const key of keys) this.cache.settled(key);
  }

  /**
   * Starts listening (PostgreSQL); the cache serves once the LISTEN is in place and this replica is registered for the
   * writes of others. Waits for that as long as one heartbeat at most: the wait for older transactions may be long.
   */
  async start(): Promise<void> {
    await this.listener?.start();
    if (this.joined) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([this.joined, new Promise((resolve) => (timer = setTimeout(resolve, this.options.heartbeatMs)))]);
      clearTimeout(timer);
    }
  }

  async stop(): Promise<void> {
    this.generation++;
    if (this.listener) await deregister(this.query, this.replica).catch(() => undefined);
    await this.listener?.stop();
  }
}
