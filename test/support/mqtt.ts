import { ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import mqtt, { MqttClient } from 'mqtt';
import { freePort } from './free-port';

/**
 * A Mosquitto broker of a test's own (Debian's `mosquitto`, on a free loopback port, anonymous), which the test may
 * stop and start again. It keeps sessions on disk across restarts (persistence), as a production broker would, so
 * a subscriber with a persistent session misses nothing published while it reconnects.
 */
export interface Broker {
  url: string;
  port: number;
  start(): Promise<void>;
  /** SIGTERM: Mosquitto saves its sessions and exits. */
  stop(): Promise<void>;
  /** Stops it and removes its directory. */
  remove(): Promise<void>;
}

export async function startBroker(): Promise<Broker> {
  const port = await freePort();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mosquitto-'));
  const conf = path.join(dir, 'mosquitto.conf');
  // `user`: started as root, Mosquitto otherwise becomes the user `mosquitto`, which cannot write this directory
  // (0700, ours): it then saved nothing, so a subscriber's session, and what the broker held for it, did not survive
  // a restart. As any other user it stays that user, and the line changes nothing.
  const settings = [`listener ${port} 127.0.0.1`, 'allow_anonymous true', 'persistence true', `persistence_location ${dir}/`, `user ${os.userInfo().username}`, 'log_dest none'];
  fs.writeFileSync(conf, [...settings, ''].join('\n'));
  let child: ChildProcess | undefined;
  const broker: Broker = {
    url: `mqtt://127.0.0.1:${port}`,
    port,
    async start() {
      child = spawn('mosquitto', ['-c', conf], { stdio: 'ignore', env: { ...process.env, PATH: `${process.env.PATH}:/usr/sbin` } });
      const deadline = Date.now() + 10_000;
      while (!(await listening(port))) {
        if (child.exitCode !== null || Date.now() > deadline) throw new Error(`mosquitto did not start on ${port}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    async stop() {
      const c = child;
      if (!c || c.exitCode !== null) return;
      await new Promise((resolve) => {
        c.once('exit', resolve);
        c.kill('SIGTERM');
      });
      if (!fs.existsSync(path.join(dir, 'mosquitto.db'))) throw new Error(`mosquitto saved no sessions in ${dir} when it stopped`);
    },
    async remove() {
      await broker.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
  await broker.start();
  return broker;
}

function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1', () => {
      socket.destroy();
      resolve(true);
    });
    socket.on('error', () => resolve(false));
  });
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

/** Waits until `done()` holds, or fails after `ms` with `describe()`. */
export async function eventually(done: () => boolean, ms: number, describe: () => string): Promise<void> {
  const deadline = Date.now() + ms;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`not within ${ms} ms: ${describe()}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
