import { randomUUID } from 'node:crypto';
import os from 'node:os';
import mqtt, { MqttClient } from 'mqtt';
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

/**
 * MQTT 5 (the `mqtt` client), QoS 1. Each message carries the MQTT 5 content type `application/cloudevents+json`
 * and the user property `content-encoding: gzip`. While the broker is away, `publish` fails at once (the publisher
 * keeps the events and retries); the client reconnects by itself every second.
 */
export class MqttTransport implements Transport {
  private readonly client: MqttClient;
  private readonly ackTimeoutMs: number;

  constructor(options: MqttOptions, private readonly log: Logger) {
    this.ackTimeoutMs = options.ackTimeoutMs ?? 10_000;
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
    let down = false;
    this.client.on('connect', () => {
      if (down) this.log.info('MQTT broker reachable again');
      down = false;
    });
    this.client.on('error', (err) => {
      if (!down) this.log.warn({ err: err.message }, 'MQTT broker error');
      down = true;
    });
    this.client.on('offline', () => {
      if (!down) this.log.warn('MQTT broker unreachable; events wait in the outbox');
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
    await this.client.endAsync(true);
  }
}
