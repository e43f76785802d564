import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import type { Logger } from 'pino';
import { DataSource, EntityManager, EntitySubscriberInterface, QueryRunner } from 'typeorm';
import { ReadCache } from './read-cache';

/** The channel on which a write announces, with its commit, which identifiable it changed (PostgreSQL NOTIFY). */
export const CHANGED_CHANNEL = 'identifiable_changed';

export interface CacheSyncOptions {
  /** Where to LISTEN for the writes of other replicas (a PostgreSQL server); none for the embedded database. */
  listenUrl?: string;
  log: Logger;
  /** The longest pause between attempts to LISTEN again. */
  maxRetryMs?: number;
}

/**
 * Keeps the read cache in step with writes. In this process: a write marks its identifiable pending inside its
 * transaction (`writing`), and the transaction's end (TypeORM's commit and rollback events of the outermost
 * transaction) settles it, before the write returns to its caller. Across replicas (PostgreSQL): the write of a
 * stored identifiable sends `pg_notify('identifiable_changed', ...)` in its transaction (`notification`), which
 * PostgreSQL delivers to every listener when, and only if, it commits; each replica invalidates what it hears. (A
 * create needs no notification: nothing caches an identifiable that did not exist.) The cache serves only while the LISTEN connection is up: it
 * starts disabled, and a lost connection empties and disables it until it listens again.
 */
export class CacheSync {
  readonly replica = randomUUID();
  private readonly open = new WeakMap<QueryRunner, string[]>();
  private listener?: Client;
  private stopped = false;
  private retryTimer?: NodeJS.Timeout;
  private failures = 0;

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
    if (options.listenUrl) cache.disable();
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
   * The payload of the notification that announces a change of `key` to other replicas, which the write path sends
   * with `pg_notify(CHANGED_CHANNEL, payload)` in its transaction (in the statement that locks the row: no round
   * trip of its own); undefined where there are no other replicas (the embedded database).
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
    if (!this.options.listenUrl) return;
    await this.listen().catch((err: unknown) => this.retry(err));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.retryTimer);
    const client = this.listener;
    this.listener = undefined;
    await client?.end().catch(() => undefined);
  }

  private async listen(): Promise<void> {
    if (this.stopped) return;
    // Keep-alive: a connection lost without a word (a network gone) is noticed, not only a closed one.
    const client = new Client({ connectionString: this.options.listenUrl, keepAlive: true });
    this.listener = client;
    const lost = (err?: Error) => {
      if (this.listener !== client) return;
      this.listener = undefined;
      this.cache.disable();
      client.end().catch(() => undefined);
      this.retry(err ?? new Error('the connection ended'));
    };
    client.on('error', lost);
    client.on('end', () => lost());
    client.on('notification', (message) => {
      if (message.channel !== CHANGED_CHANNEL || !message.payload) return;
      const space = message.payload.indexOf(' ');
      if (message.payload.slice(0, space) !== this.replica) this.cache.invalidate(message.payload.slice(space + 1));
    });
    await client.connect();
    await client.query(`LISTEN ${CHANGED_CHANNEL}`);
    if (this.listener !== client) return;
    this.failures = 0;
    this.cache.enable();
    this.options.log.debug('read cache: listening for the writes of other replicas');
  }

  private retry(err: unknown): void {
    if (this.stopped) return;
    this.cache.disable();
    this.failures++;
    if (this.failures === 1 || this.failures % 60 === 0) {
      this.options.log.warn({ err: (err as Error)?.message, failures: this.failures }, 'read cache off: cannot LISTEN for the writes of other replicas; retrying');
    }
    const wait = Math.min(this.options.maxRetryMs ?? 5_000, 100 * 2 ** Math.min(this.failures, 10));
    clearTimeout(this.retryTimer);
    this.retryTimer = setTimeout(() => void this.listen().catch((e: unknown) => this.retry(e)), wait);
  }
}
