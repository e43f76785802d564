import { randomUUID } from 'node:crypto';
import os from 'node:os';
import type { MqttClient } from 'mqtt';
import type { Logger } from 'pino';

/** One message for the broker. */
export interface TransportMessage {
  topic: string;
  bytes: Buffer;
}

/** Where delivered events go. `publish` resolves once the broker has taken every message (QoS 1: PUBACK). */
export interface Transport {
  publish(messages: TransportMessage[]): Promise<void>;
  close(): Promise<void>;
}

export interface MqttOptions {
  url: string;
  username?: string;
  password?: string;
  /** How long one batch may wait for its acknowledgements before it counts as failed (and is retried). */
  ackTimeoutMs?: number;
}

/** How long a broker never reached yet may take to answer before it is said to be unreachable: a connect timeout and a retry. */
const FIRST_CONNECT_GRACE_MS = 6_000;

/**
 * MQTT 5 (the `mqtt` client), QoS 1. Each message carries the MQTT 5 content type `application/cloudevents+json`
 * and the user property `content-encoding: gzip`. While the broker is away, `publish` fails at once (the publisher
 * keeps the events and retries); the client reconnects by itself every second.
 */
export class MqttTransport implements Transport {
  private readonly client: MqttClient;
  private readonly ackTimeoutMs: number;
  /** The warning that the broker could not be reached at start, said if it still cannot be once the grace is over. */
  private firstWarning?: NodeJS.Timeout;

  constructor(options: MqttOptions, private readonly log: Logger) {
    this.ackTimeoutMs = options.ackTimeoutMs ?? 10_000;
    // The client library is loaded when a transport is made (after the server listens), not at every start.
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- see above
    const mqtt = require('mqtt') as typeof import('mqtt');
    this.client = mqtt.connect(options.url, {
      protocolVersion: 5,
      clientId: `asset-platform-${os.hostname()}-${process.pid}-${randomUUID().slice(0, 8)}`,
      clean: true,
      reconnectPeriod: 1_000,
      connectTimeout: 5_000,
      username: options.username,
      password: options.password,
      // Messages are never queued while offline: the outbox is the queue.
      queueQoSZero: false,
    });
    // What stays wrong is said; a broker that answers within its first connection attempts is not called
    // unreachable (it may still be starting, as this server is). Once it has been reached, a loss is said at once.
    let down = false;
    let warned = false;
    let everConnected = false;
    const warn = (fields: Record<string, unknown>, msg: string) => {
      if (warned) return;
      warned = true;
      this.log.warn(fields, msg);
    };
    let lastError: string | undefined;
    const failed = (fields: Record<string, unknown>, msg: string) => {
      down = true;
      if (everConnected) warn(fields, msg);
      else {
        this.firstWarning ??= setTimeout(() => {
          if (!this.client.connected) warn(lastError ? { err: lastError } : {}, 'MQTT broker unreachable; events wait in the outbox');
        }, FIRST_CONNECT_GRACE_MS).unref();
      }
    };
    this.client.on('connect', () => {
      if (warned) this.log.info('MQTT broker reachable again');
      clearTimeout(this.firstWarning);
      down = warned = false;
      everConnected = true;
    });
    this.client.on('error', (err) => {
      lastError = err.message;
      if (!down) failed({ err: err.message }, 'MQTT broker error');
    });
    this.client.on('offline', () => {
      if (!down) failed({}, 'MQTT broker unreachable; events wait in the outbox');
      down = true;
    });
  }

  get connected(): boolean {
    return this.client.connected;
  }

  async publish(messages: TransportMessage[]): Promise<void> {
    if (!this.client.connected) throw new Error('the MQTT broker is not connected');
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`the MQTT broker did not acknowledge within ${this.ackTimeoutMs} ms`)), this.ackTimeoutMs);
    });
    try {
      // Sent in order on one connection; the broker keeps that order per topic.
      await Promise.race([
        Promise.all(
          messages.map((m) =>
            this.client.publishAsync(m.topic, m.bytes, {
              qos: 1,
              properties: { contentType: 'application/cloudevents+json', userProperties: { 'content-encoding': 'gzip' } },
            }),
          ),
        ),
        timeout,
      ]);
    } finally {
      clearTimeout(timer);
    }
  }

  async close(): Promise<void> {
    clearTimeout(this.firstWarning);
    await this.client.endAsync(true);
  }
}
