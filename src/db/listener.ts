import { Client } from 'pg';
import type { Logger } from 'pino';
import { dropConnection } from './answer-watch';

export interface ListenerOptions {
  /** The PostgreSQL server. */
  url: string;
  channel: string;
  /** What the notifications are for, in log lines ("read cache", "change events"). */
  purpose: string;
  log: Logger;
  /**
   * How often the connection is asked for a heartbeat (the LISTEN again), and how long its answer may take: a connection
   * that says nothing for that long is lost, even with nothing closed (a network gone silent).
   */
  heartbeatMs: number;
  /** How long connecting may take. */
  connectTimeoutMs: number;
  /** The longest pause between attempts to LISTEN again. */
  maxRetryMs?: number;
  onNotification(payload: string): void;
  /** The LISTEN is in place (again) on the connection of server process `pid`: notifications arrive from now on. */
  onListening?(pid: number): void;
  /** After each heartbeat's answer, on a connection that is still listening. */
  onHeartbeat?(): void;
  /** The connection is lost (ended, failed, or silent): notifications from now on may be missed until `onListening`. */
  onLost?(): void;
}

/**
 * One connection that LISTENs on a channel, for as long as it runs: a lost connection is replaced (with backoff),
 * and a heartbeat finds the connection that is lost without a word, which would otherwise pass for a quiet channel.
 */
export class NotificationListener {
  private client?: Client;
  private heartbeat?: NodeJS.Timeout;
  private retryTimer?: NodeJS.Timeout;
  private failures = 0;
  private started = false;
  private stopped = false;

  constructor(private readonly options: ListenerOptions) {}

  /** Listens; resolves after the first attempt (a failed one is retried in the background). */
  async start(): Promise<void> {
    if (this.started) return;
    this.started = true;
    await this.listen();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.retryTimer);
    const client = this.client;
    this.client = undefined;
    clearInterval(this.heartbeat);
    if (client) await Promise.race([client.end().catch(() => undefined), new Promise((resolve) => setTimeout(resolve, this.options.connectTimeoutMs).unref())]);
    if (client) dropConnection(client);
  }

  private async listen(): Promise<void> {
    if (this.stopped) return;
    const { url, channel, connectTimeoutMs, heartbeatMs } = this.options;
    // Keep-alive: a peer gone for good is noticed by TCP as well, when the network says so.
    const client = new Client({ connectionString: url, keepAlive: true, keepAliveInitialDelayMillis: heartbeatMs, connectionTimeoutMillis: connectTimeoutMs });
    this.client = client;
    const lost = (err: Error) => {
      if (this.client !== client) return;
      this.client = undefined;
      clearInterval(this.heartbeat);
      dropConnection(client);
      this.retry(err);
    };
    client.on('error', lost);
    client.on('end', () => lost(new Error('the connection ended')));
    client.on('notification', (message) => {
      if (message.channel === channel && message.payload) this.options.onNotification(message.payload);
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${channel}`);
    } catch (err) {
      lost(err as Error);
      return;
    }
    if (this.client !== client) {
      dropConnection(client); // stopped meanwhile
      return;
    }
    let waiting = false;
    this.heartbeat = setInterval(() => {
      if (waiting) return lost(new Error(`no answer to a heartbeat within ${heartbeatMs} ms`));
      waiting = true;
      // LISTEN again, a no-op: the connection stays recognizable in pg_stat_activity by its last statement.
      client.query(`LISTEN ${channel}`).then(
        () => {
          waiting = false;
          if (this.client === client) this.options.onHeartbeat?.();
        },
        () => undefined,
      );
    }, heartbeatMs);
    this.heartbeat.unref();
    if (this.failures) this.options.log.info({ afterFailures: this.failures }, `${this.options.purpose}: listening again`);
    this.failures = 0;
    // The server process at the other end (pg's Client keeps it from the backend's key data, untyped).
    this.options.onListening?.((client as unknown as { processID: number }).processID);
  }

  private retry(err: Error): void {
    if (this.stopped) return;
    this.options.onLost?.();
    this.failures++;
    if (this.failures === 1 || this.failures % 60 === 0) {
      this.options.log.warn({ err: err.message, failures: this.failures }, `${this.options.purpose}: cannot LISTEN on ${this.options.channel}; retrying`);
    }
    const wait = Math.min(this.options.maxRetryMs ?? 5_000, 100 * 2 ** Math.min(this.failures, 10));
    clearTimeout(this.retryTimer);
    this.retryTimer = setTimeout(() => void this.listen(), wait);
  }
}
