import net from 'node:net';
import { gunzipSync } from 'node:zlib';
import { Aedes } from 'aedes';
import mqtt, { MqttClient } from 'mqtt';
import { freePort } from './free-port';
import { PATIENCE_MS, eventually as waitFor } from './timing';

/**
 * An MQTT 5 broker of a test's own (Aedes, in this process, on a free loopback port, anonymous), which the test may
 * stop and start again. Its sessions outlive a stop, as a production broker's on disk do: a stop closes the listener
 * and every connection, but the broker and its session store stay, so a subscriber with a persistent session misses
 * nothing published while it reconnects.
 */
export interface Broker {
  url: string;
  port: number;
  start(): Promise<void>;
  /** Closes the listener and every client connection, as a broker going down does; the sessions stay. */
  stop(): Promise<void>;
  /** Stops it and ends its sessions. */
  remove(): Promise<void>;
}

export async function startBroker(): Promise<Broker> {
  const port = await freePort();
  const aedes = await Aedes.createBroker();
  let server: net.Server | undefined;
  const connections = new Set<net.Socket>();
  const broker: Broker = {
    url: `mqtt://127.0.0.1:${port}`,
    port,
    async start() {
      const listener = net.createServer((socket) => {
        connections.add(socket);
        socket.once('close', () => connections.delete(socket));
        aedes.handle(socket);
      });
      await new Promise<void>((resolve, reject) => {
        listener.once('error', reject);
        listener.listen(port, '127.0.0.1', () => resolve());
      });
      server = listener;
    },
    async stop() {
      const listener = server;
      if (!listener) return;
      server = undefined;
      const closed = new Promise((resolve) => listener.close(resolve));
      for (const socket of connections) socket.destroy();
      await closed;
    },
    async remove() {
      await broker.stop();
      await new Promise<void>((resolve) => aedes.close(() => resolve()));
    },
  };
  await broker.start();
  return broker;
}

/** A received event: the topic, the gunzipped CloudEvents envelope, the message's size and MQTT 5 properties. */
export interface Received {
  topic: string;
  envelope: Record<string, any>;
  bytes: number;
  properties: Record<string, unknown> | undefined;
  at: number;
}

/**
 * A subscriber to `topics` (QoS 1) that collects every event it receives. With `session`, it keeps a persistent
 * session under that client id (clean start off, sessions kept a day), as a subscriber that must miss nothing does.
 */
export async function subscribe(url: string, topics: string[], session?: string): Promise<{ client: MqttClient; received: Received[]; close(): Promise<void> }> {
  const client = mqtt.connect(url, {
    protocolVersion: 5,
    reconnectPeriod: 200,
    ...(session ? { clientId: session, clean: false, properties: { sessionExpiryInterval: 86_400 } } : {}),
  });
  const received: Received[] = [];
  client.on('message', (topic, payload, packet) => {
    received.push({ topic, envelope: JSON.parse(gunzipSync(payload).toString('utf8')), bytes: payload.length, properties: packet.properties as Record<string, unknown>, at: performance.now() });
  });
  await new Promise<void>((resolve, reject) => {
    client.once('connect', () => resolve());
    client.once('error', reject);
  });
  await client.subscribeAsync(topics, { qos: 1 });
  return { client, received, close: () => client.endAsync(true) };
}

/**
 * Waits until `done()` holds, or fails with `describe()`. `ms` is how long it may take on a quiet machine; the wait is
 * patient (at least `PATIENCE_MS`), as a loaded machine delays deliveries (test/support/timing.ts).
 */
export async function eventually(done: () => boolean, ms: number, describe: () => string): Promise<void> {
  await waitFor(done, describe, Math.max(ms, PATIENCE_MS));
}
