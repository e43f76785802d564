import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { freePort } from '../support/free-port';
import { freshDatabase } from '../support/fresh-database';
import { Broker, startBroker } from '../support/mqtt';
import { ServerProcess, killAll, startServerProcess, stopServerProcess } from '../support/server-process';

/** Each case starts a server process that compiles the whole server on the fly; on a busy machine that takes a while. */
const PROCESS_TIMEOUT_MS = 240_000;

/**
 * A start with nothing wrong says nothing alarming: the events publisher and the push worker begin once the server
 * listens, so their first rounds do not time out waiting for a database connection while the start-up holds the
 * event loop, and the MQTT broker is not called unreachable when it answers. What stays wrong is still said.
 */
const dirs: string[] = [];
let broker: Broker | undefined;
afterAll(async () => {
  killAll();
  await broker?.remove();
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
});

const tempDir = () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'asset-platform-quiet-'));
  dirs.push(dir);
  return dir;
};

/** The log lines at warn level or above (pino: 40 warn, 50 error, 60 fatal). */
const warnings = (proc: ServerProcess) => proc.lines().filter((l) => Number(l.level) >= 40);

/** What a start may warn about on its own: the first start's one-time password and the showcase tenant. */
const EXPECTED = [/^first start: created the first organization/, /SHOWCASE MODE/];
const unexpected = (proc: ServerProcess) => warnings(proc).filter((l) => !EXPECTED.some((re) => re.test(String(l.msg))));

/** Lets the background work run a few rounds after the server became ready (the push worker polls every second). */
const settle = () => new Promise((resolve) => setTimeout(resolve, 8_000));

describe('start-up noise', () => {
  it('a first and a second start with a reachable MQTT broker log no warning about the broker, events or pushes', async () => {
    broker = await startBroker();
    const dir = tempDir();
    const env = () => ({ MQTT_URL: broker!.url });
    for (const start of ['first', 'second']) {
      const proc = await startServerProcess(dir, { env });
      try {
        await settle();
        expect(unexpected(proc), `${start} start:\n${proc.output()}`).toEqual([]);
      } finally {
        await stopServerProcess(proc, 'SIGTERM');
      }
    }
  }, PROCESS_TIMEOUT_MS * 2);

  it.skipIf(!process.env.DATABASE_URL)('a first start on a PostgreSQL server logs no warning about events or pushes', async () => {
    const database = await freshDatabase('quiet');
    try {
      const proc = await startServerProcess(tempDir(), { env: () => ({ DATABASE_URL: database.url }) });
      try {
        await settle();
        expect(unexpected(proc), proc.output()).toEqual([]);
      } finally {
        await stopServerProcess(proc, 'SIGTERM');
      }
    } finally {
      await database.drop();
    }
  }, PROCESS_TIMEOUT_MS);

  it('a broker that stays unreachable is still warned about, once', async () => {
    const port = await freePort();
    const proc = await startServerProcess(tempDir(), { env: () => ({ MQTT_URL: `mqtt://127.0.0.1:${port}` }) });
    try {
      await vi.waitFor(() => expect(warnings(proc).some((l) => String(l.msg).startsWith('MQTT broker unreachable'))).toBe(true), { timeout: 30_000, interval: 250 });
      await settle();
      expect(warnings(proc).filter((l) => String(l.msg).startsWith('MQTT broker'))).toHaveLength(1);
    } finally {
      await stopServerProcess(proc, 'SIGTERM');
    }
  }, PROCESS_TIMEOUT_MS);
});
