import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { DataSource, EntityManager, EntitySubscriberInterface, QueryRunner } from 'typeorm';
import { NotificationListener } from '../../db/listener';
import { ReadCache } from './read-cache';

/** The channel on which a write announces, with its commit, which identifiable it changed (PostgreSQL NOTIFY). */
export const CHANGED_CHANNEL = 'identifiable_changed';

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
 * PostgreSQL delivers to every listener when, and only if, it commits; each replica invalidates what it hears. A
 * create sends one too: nothing caches the identifiable that did not exist, but the cached list pages of its kind
 * must show it. The cache serves only while the LISTEN connection is up: it
 * starts disabled, and a lost connection (closed, failed, or silent past its heartbeat) empties and disables it until
 * it listens again.
 */
export class CacheSync {
  readonly replica = randomUUID();
  private readonly open = new WeakMap<QueryRunner, string[]>();
  private readonly listener?: NotificationListener;

  constructor(
    readonly cache: ReadCache,
    dataSource: DataSource,
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
      onListening: () => {
        cache.enable();
        options.log.debug('read cache: listening for the writes of other replicas');
      },
      onLost: () => cache.disable(),
    });
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
   * The payload of the notification that announces a change of `key` to other replicas, which the write path sends
   * with `pg_notify(CHANGED_CHANNEL, payload)` in its transaction, once it has locked or created the row; undefined where there
   * are no other replicas (the embedded database).
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

  /** Starts listening (PostgreSQL); the cache serves once the LISTEN is in place. */
  async start(): Promise<void> {
    await this.listener?.start();
  }

  async stop(): Promise<void> {
    await this.listener?.stop();
  }
}
