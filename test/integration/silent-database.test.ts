import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config';
import { DatabaseRelay, databaseRelay } from '../support/db-relay';
import { FreshDatabase, databaseToSilence } from '../support/fresh-database';
import { newUser } from '../support/identity';
import { TestServer, b64, sampleShell, startTestServer } from '../support/server';
import { LOAD_SLACK_MS } from '../support/timing';

/**
 * A database that falls silent (a partition: nothing answers, nothing is closed) under a crowd of requests of every
 * kind, some under way when it happens, some starting while it lasts: each is answered 503 with Retry-After and a
 * Result within DB_ANSWER_TIMEOUT_MS + DB_CONNECT_TIMEOUT_MS of its start, or of the silence if it started before;
 * once the server's connections are known to be gone, within DB_CONNECT_TIMEOUT_MS (docs/operations.md, "when the
 * database does not answer"). A request waits for the database once: one whose tenant look-up failed in the hot-read
 * path is not made to wait again by its route (a list waited three connect timeouts so, a read by id two). The
 * bound for a request that waited for the pool and met the silence on the connection it then got is checked on its
 * own in answer-watch.test.ts.
 */

// Bounds longer than the slack a loaded machine needs (test/support/timing.ts), so that a second wait shows.
const bounds = { dbConnectTimeoutMs: 4_000, dbAnswerTimeoutMs: 4_000 };
const bound = bounds.dbConnectTimeoutMs + bounds.dbAnswerTimeoutMs;
let target: FreshDatabase;
let db: DatabaseRelay;
let server: TestServer;

beforeAll(async () => {
  target = await databaseToSilence('silent');
  db = databaseRelay(target.url);
  // Room for every expensive request of the crowd (one client address): the bound is under test, not the shares. In
  // all, expensive work may take the whole pool (10): the crowd runs at most 6 such requests at once and the probes 2.
  const work = { ...loadConfig({}).work, perCaller: 1_000, perTenant: 1_000, poolReserve: 0 };
  const url = await db.start();
  // The server's first connections wait the short connect timeout under test; a loaded machine (on the embedded
  // database, one session shared by the server's connections) may take longer to hand one out: start again then.
  for (let attempt = 1; ; attempt++) {
    try {
      server = await startTestServer(url, { ...bounds, work });
      break;
    } catch (err) {
      if (attempt === 3) throw err;
    }
  }
});
afterAll(async () => {
  db?.resume(); // a failure during the partition must not leave the shutdown waiting for it
  await server?.close().catch(() => undefined);
  await db?.stop().catch(() => undefined);
  await target?.drop();
});

interface Answer {
  what: string;
  /** ms since the crowd began */
  start: number;
  end: number;
  status: number;
  retryAfter: string | null;
  /** A REST answer's Result text, or a GraphQL answer's first error code. */
  result?: string;
}

describe('a database that falls silent under a crowd of requests', () => {
  it('answers every request 503 with Retry-After within the bound of its start, or of the silence when it began before', async () => {
    const name = (await server.createTenant()).name;
    const api = server.api(name);
    const me = { authorization: `Bearer ${await (await newUser(server)).token()}` };
    const json = { 'content-type': 'application/json' };
    expect((await fetch(`${api}/shells`, { method: 'POST', headers: json, body: JSON.stringify(sampleShell('urn:there')) })).status).toBe(201);
    let n = 0;
    const kinds: [string, () => [string, RequestInit?]][] = [
      ['ready', () => [`${server.url}/health/ready`]],
      ['read', () => [`${api}/shells/${b64(`urn:missing-${n++}`)}`]],
      ['list', () => [`${api}/shells?limit=5`]],
      ['write', () => [`${api}/shells`, { method: 'POST', headers: json, body: JSON.stringify(sampleShell(`urn:written-${n++}`)) }]],
      ['me', () => [`${server.url}/api/v1/me`, { headers: me }]],
      ['graphql', () => [`${server.url}/graphql`, { method: 'POST', headers: json, body: JSON.stringify({ query: `{ shells(tenant: "${name}") { result { id } } }` }) }]],
      ['query', () => [`${api}/query/shells`, { method: 'POST', headers: json, body: JSON.stringify({ $condition: { $eq: [{ $field: '$aas#idShort' }, { $strVal: 'Sample' }] } }) }]],
      ['serialization', () => [`${api}/serialization?aasIds=${b64('urn:there')}&includeConceptDescriptions=false`]],
    ];
    const began = performance.now();
    const answers: Answer[] = [];
    let silentAt = Infinity;
    let stopAt = Infinity;
    const send = async (what: string, [url, init]: [string, RequestInit?]) => {
      const start = performance.now() - began;
      // A request that hangs fails the test (rather than its timeout), well past the bound.
      const res = await fetch(url, { ...init, signal: AbortSignal.timeout(3 * bound + LOAD_SLACK_MS) });
      const text = await res.text();
      const answer: Answer = { what, start, end: performance.now() - began, status: res.status, retryAfter: res.headers.get('retry-after') };
      if (what === 'graphql') answer.result = JSON.parse(text).errors?.[0]?.extensions?.code;
      else if (res.status === 503 && what !== 'ready') answer.result = JSON.parse(text).messages?.[0]?.text;
      answers.push(answer);
    };
    // 24 clients, three of each kind, each sending one request after the other; the database falls silent after a
    // second of it, and they go on for the bound (by then every connection the server had is known to be gone) and a
    // connect timeout more.
    const clients = Array.from({ length: 24 }, async (_, c) => {
      const [what, request] = kinds[c % kinds.length];
      while (performance.now() - began < stopAt) await send(what, request());
    });
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    db.silence();
    silentAt = performance.now() - began;
    const gone = silentAt + bound;
    stopAt = gone + bounds.dbConnectTimeoutMs + 1_000;
    // Once every connection is known to be gone: one request of each kind more (sent 600 ms after, counted from 500 ms
    // after: a timer may fire a little early by performance.now()).
    await new Promise((resolve) => setTimeout(resolve, gone + 600 - (performance.now() - began)));
    const probes = kinds.map(([what, request]) => send(what, request()));
    await Promise.all([...clients, ...probes]);

    const during = answers.filter((a) => a.end > silentAt + 50); // answered after the silence began (50 ms: what was on its way)
    expect(during.length).toBeGreaterThan(24);
    const late = during.filter((a) => a.end - Math.max(a.start, silentAt) > bound + LOAD_SLACK_MS);
    expect(late, 'answered past the bound').toEqual([]);
    const afterGone = during.filter((a) => a.start > gone + 500);
    expect(new Set(afterGone.map((a) => a.what))).toEqual(new Set(kinds.map(([what]) => what)));
    expect(afterGone.length).toBeGreaterThan(kinds.length);
    const waitedTwice = afterGone.filter((a) => a.end - a.start > bounds.dbConnectTimeoutMs + LOAD_SLACK_MS);
    expect(waitedTwice, 'answered past the connect timeout once the connections were gone').toEqual([]);
    const startedSilent = during.filter((a) => a.start > silentAt);
    expect(new Set(startedSilent.map((a) => a.what))).toEqual(new Set(kinds.map(([what]) => what)));
    for (const a of startedSilent) {
      if (a.what === 'graphql') {
        // GraphQL answers its errors in the body, each with its code.
        expect({ what: a.what, code: a.result }).toEqual({ what: a.what, code: 'SERVICE_UNAVAILABLE' });
        continue;
      }
      expect({ what: a.what, status: a.status }).toEqual({ what: a.what, status: 503 });
      expect(Number(a.retryAfter)).toBeGreaterThan(0);
      if (a.what !== 'ready') expect(a.result).toMatch(/database is unavailable/);
    }

    db.resume();
    let status = 0;
    for (let i = 0; i < 200 && status !== 200; i++) {
      status = (await fetch(`${server.url}/health/ready`)).status;
      if (status !== 200) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(status).toBe(200);
    expect((await fetch(`${api}/shells/${b64('urn:there')}`)).status).toBe(200);
  });
});
