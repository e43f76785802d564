import { gunzipSync } from 'node:zlib';
import type autocannon from 'autocannon';
import mqtt from 'mqtt';
import { benchManagement } from './identity';
import type { Row, Target } from './run';

/**
 * The change-event part of `npm run bench` (`BENCH_ONLY=events`; the server runs with MQTT_URL, default the local
 * Mosquitto): writes per second with events off and on, and the time from a write to its event at an MQTT
 * subscriber.
 *
 * Two tenants of their own, one with events off and one with them on, each with the same 1,000 submodels of 20
 * Properties. The write is a PUT of one submodel (rotating over the 1,000, values changing), the same on both. The
 * latency is measured twice: 200 writes one after another on an idle server, and while the events-on write load
 * runs; each from the write's answer to the subscriber's receipt of its event, and from the event's `time` (its
 * transaction's start, the server's clock on this same machine) to the receipt.
 */
export interface EventsBenchKit {
  server: Target;
  measure(name: string, target: Target, request: autocannon.Request): Promise<Row>;
  printTable(rows: Row[], ratio: { header: string; of: (row: Row) => string }): void;
}

const SUBMODELS = 1_000;
const PROPERTIES = 20;
export const BENCH_MQTT_URL = process.env.BENCH_MQTT_URL ?? 'mqtt://127.0.0.1:1883';

const submodel = (id: string, round: number) => ({
  modelType: 'Submodel',
  id,
  idShort: 'Bench',
  submodelElements: Array.from({ length: PROPERTIES }, (_, i) => ({ modelType: 'Property', idShort: `P${i}`, valueType: 'xs:double', value: String(round + i / 10) })),
});

const idOf = (run: string, n: number) => `urn:bench:events:${run}:${n}`;
const b64 = (id: string) => Buffer.from(id).toString('base64url');

async function provision(url: string, run: string): Promise<{ off: string; on: string }> {
  const { call, organizationId } = await benchManagement(url);
  const off = (await call('POST', `/organizations/${organizationId}/tenants`, { name: `bench-events-off-${run}`, showcase: true })) as { name: string };
  const on = (await call('POST', `/organizations/${organizationId}/tenants`, { name: `bench-events-on-${run}`, showcase: true, eventsEnabled: true })) as { name: string };
  return { off: off.name, on: on.name };
}

async function load(api: string, run: string): Promise<void> {
  for (let n = 0; n < SUBMODELS; n += 50) {
    await Promise.all(
      Array.from({ length: 50 }, (_, i) => n + i).map(async (k) => {
        const res = await fetch(`${api}/submodels`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(submodel(idOf(run, k), 0)) });
        if (res.status !== 201) throw new Error(`loading submodel ${k}: ${res.status} ${await res.text()}`);
      }),
    );
  }
}

/** PUTs rotating over the 1,000 submodels, each with new values. */
function writes(apiPath: string, run: string): autocannon.Request {
  let n = 0;
  return {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    setupRequest: (req) => {
      const k = n++ % SUBMODELS;
      return { ...req, path: `${apiPath}/submodels/${b64(idOf(run, k))}`, body: JSON.stringify(submodel(idOf(run, k), n)) };
    },
  } as autocannon.Request;
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))];

export async function benchEvents(kit: EventsBenchKit, run: string): Promise<Row[]> {
  const { server } = kit;
  const tenants = await provision(server.url, run);
  const apiPath = (tenant: string) => `/tenants/${tenant}/api/v3.0`;
  await load(`${server.url}${apiPath(tenants.off)}`, run);
  await load(`${server.url}${apiPath(tenants.on)}`, run);

  // Every event of the events-on tenant, with its receipt time.
  const subscriber = mqtt.connect(BENCH_MQTT_URL, { protocolVersion: 5 });
  await new Promise<void>((resolve, reject) => {
    subscriber.once('connect', () => resolve());
    subscriber.once('error', reject);
  });
  const received = new Map<string, { at: number; wall: number; time: number }[]>();
  let count = 0;
  /** From an event's time to its receipt, for the events received while `underLoad` holds. */
  const loaded: number[] = [];
  let underLoad = false;
  subscriber.on('message', (_topic, payload) => {
    const at = performance.now();
    const wall = Date.now();
    const envelope = JSON.parse(gunzipSync(payload).toString('utf8')) as { subject: string; objectversion: number; time: string };
    const key = `${envelope.subject}@${envelope.objectversion}`;
    received.set(key, [...(received.get(key) ?? []), { at, wall, time: Date.parse(envelope.time) }]);
    if (underLoad) loaded.push(wall - Date.parse(envelope.time));
    count++;
  });
  await subscriber.subscribeAsync(`sm-repository/${tenants.on}/submodels/+`, { qos: 1 });
  // The creates' events arrive first.
  const deadline = Date.now() + 60_000;
  while (count < SUBMODELS && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));

  const rows: Row[] = [];
  rows.push(await kit.measure('PUT /submodels/{id}, 20 properties, events off', server, writes(apiPath(tenants.off), run)));
  const before = count;
  underLoad = true;
  rows.push(await kit.measure('PUT /submodels/{id}, 20 properties, events on (MQTT)', server, writes(apiPath(tenants.on), run)));
  underLoad = false;
  const onRow = rows[1];
  kit.printTable(rows, { header: 'vs events off', of: (r) => (r.reqPerSec / rows[0].reqPerSec).toFixed(2) });

  // Everything written under load arrives: wait for the backlog, and say how long it took.
  const loadEnd = performance.now();
  const backlogDeadline = Date.now() + 120_000;
  let settled = count;
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, 500));
    if (count === settled || Date.now() > backlogDeadline) break;
    settled = count;
  }
  const l = loaded.sort((x, y) => x - y);
  console.log(`\nwrite → MQTT subscriber during the events-on load, from the event's time: p50 ${percentile(l, 50)} ms, p99 ${percentile(l, 99)} ms (${l.length} events)`);
  console.log(`events received during and after the events-on load: ${count - before} (the load's writes, warm-up included, were answered ${onRow.reqPerSec.toFixed(0)}/s); the last arrived ${((performance.now() - loadEnd) / 1000 - 0.5).toFixed(1)} s after the load ended`);

  // Latency, idle: one write at a time.
  const idle: { answer: number; commit: number }[] = [];
  for (let i = 0; i < 200; i++) {
    const k = i % SUBMODELS;
    const res = await fetch(`${server.url}${apiPath(tenants.on)}/submodels/${b64(idOf(run, k))}`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(submodel(idOf(run, k), 1_000_000 + i)),
    });
    const answered = performance.now();
    if (res.status !== 204) throw new Error(`PUT: ${res.status}`);
    const version = Number(/-(\d+)"$/.exec(res.headers.get('etag') ?? '')?.[1] ?? NaN);
    const key = `${idOf(run, k)}@${version}`;
    const until = Date.now() + 10_000;
    while (!received.has(key) && Date.now() < until) await new Promise((resolve) => setImmediate(resolve));
    const got = received.get(key)?.[0];
    if (!got) throw new Error(`no event for ${key} within 10 s (etag ${res.headers.get('etag')})`);
    idle.push({ answer: got.at - answered, commit: got.wall - got.time });
  }
  const a = idle.map((x) => x.answer).sort((x, y) => x - y);
  const c = idle.map((x) => x.commit).sort((x, y) => x - y);
  console.log(`\nwrite → MQTT subscriber, idle server, 200 writes one at a time:`);
  console.log(`  from the write's answer: p50 ${percentile(a, 50).toFixed(2)} ms, p99 ${percentile(a, 99).toFixed(2)} ms, max ${a.at(-1)!.toFixed(2)} ms`);
  console.log(`  from the event's time (its transaction's start): p50 ${percentile(c, 50).toFixed(0)} ms, p99 ${percentile(c, 99).toFixed(0)} ms (ms resolution)`);
  await subscriber.endAsync(true);
  return rows;
}
