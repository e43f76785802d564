import http from 'node:http';
import { gzipSync } from 'node:zlib';
import autocannon from 'autocannon';
import { measured, rssBytes } from './files';
import { benchManagement, benchToken } from './identity';
import type { Row, Target } from './run';

/**
 * What one heavy request does to everyone else: `/health/live` latency while a 50 MB submodel is POSTed (its
 * verification runs in a worker thread), GET by id throughput while a client retries a GraphQL document of
 * fragments that double 30 times (refused at validation), and `/health/live` latency and the server's RSS while
 * three compressed nesting bombs at a time are sent; `/health/live` and RSS while three clients send 60 MB flat
 * bodies, with and without a token, to a tenant that needs one; GET by id of the default tenant while 24 expensive
 * queries at a time run on another. Each against the same measurement without the load, in the same run.
 */
export interface HardeningContext {
  server: Target;
  apiPath: string;
  measure(name: string, target: Target, request: autocannon.Request): Promise<Row>;
  /** GET /shells/{id} over rotating ids, as measured without load in the same run. */
  byId: { row: Row; request: () => autocannon.Request };
}

const PROBE_EVERY_MS = 10;
/** How long three 60 MB flat bodies at a time are sent, round after round. */
const FLAT_MS = 5_000;
/** How long RSS is watched after the flat bodies stop: its return to within 10% of its level before, and where it is then. */
const SETTLE_MS = 10_000;
/** `{"x":[{},{},...]}` of about 60 MB: one object per 3 bytes. */
const flatBody = () => Buffer.from(`{"x":[${'{},'.repeat(20 * 1024 * 1024 - 3)}{}]}`);
/** The expensive query of the starvation line: 200 `$eq` conditions on `$sme.cN.x#value`, all to be true at once. */
const EXPENSIVE_QUERY = JSON.stringify({
  $condition: { $and: Array.from({ length: 200 }, (_, i) => ({ $eq: [{ $field: `$sme.c${i}.x#value` }, { $strVal: `v${i}` }] })) },
});
/** How many such queries at a time, for how long, against how many submodels (20 elements each) on their tenant. */
const QUERIES_AT_ONCE = 24;
const QUERY_SUBMODELS = 500;
/** How long three nesting bombs at a time are sent, round after round. */
const BOMBS_MS = 5_000;
/** 60 MB of `[` after `prefix`, in about 61 KB of gzip. */
const nestingBomb = (prefix: string) => gzipSync(Buffer.concat([Buffer.from(prefix), Buffer.alloc(60 * 1024 * 1024, '[')]), { level: 9 });
const BIG_BYTES = 50 * 1024 * 1024;
/** Bounds the big POST: the embedded database took 22 s for it on the 2-core machine. */
const POST_TIMEOUT_MS = 120_000;
const FRAGMENT_QUERY = [
  'query { ...F0 }',
  ...Array.from({ length: 30 }, (_, i) => `fragment F${i} on Query { ...F${i + 1} ...F${i + 1} }`),
  'fragment F30 on Query { __typename }',
].join('\n');

interface Latencies {
  count: number;
  p50: number;
  p99: number;
  max: number;
  failures: number;
}

function summary(ms: number[], failures: number): Latencies {
  const sorted = [...ms].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
  return { count: sorted.length, p50: at(0.5), p99: at(0.99), max: sorted[sorted.length - 1] ?? NaN, failures };
}

/** Probes /health/live one request at a time, every 10 ms, until `until` settles. */
async function probeHealth(url: string, until: Promise<unknown>): Promise<Latencies> {
  let done = false;
  void until.finally(() => (done = true));
  const ms: number[] = [];
  let failures = 0;
  while (!done) {
    const started = performance.now();
    const ok = await fetch(`${url}/health/live`, { signal: AbortSignal.timeout(10_000) }).then((res) => res.status === 200, () => false);
    ms.push(performance.now() - started);
    if (!ok) failures++;
    await new Promise((resolve) => setTimeout(resolve, PROBE_EVERY_MS));
  }
  return summary(ms, failures);
}

/** A valid submodel of about `bytes` of JSON: collections of 100 string Properties each. */
function bigSubmodel(id: string, bytes: number): string {
  const property = (i: number) => ({ modelType: 'Property', idShort: `P${i}`, valueType: 'xs:string', value: `value ${i} `.padEnd(60, '.') });
  const collection = (c: number) => ({ modelType: 'SubmodelElementCollection', idShort: `C${c}`, value: Array.from({ length: 100 }, (_, i) => property(i)) });
  const perCollection = JSON.stringify(collection(0)).length + 1;
  const count = Math.ceil(bytes / perCollection);
  return JSON.stringify({ modelType: 'Submodel', id, idShort: 'Big', submodelElements: Array.from({ length: count }, (_, c) => collection(c)) });
}

const MiB = 1024 * 1024;

/**
 * The server's RSS after a load stopped, sampled every 500 ms for `SETTLE_MS`: when it was first within 10% of
 * `before` (if it was), and where it is at the end. The process is left to itself (no forced collection): what it
 * gives back by itself is what counts.
 */
async function rssReturn(pid: number, before: number): Promise<{ withinAfterS?: number; endMiB: number }> {
  const started = performance.now();
  let withinAfterS: number | undefined;
  for (;;) {
    const now = rssBytes(pid);
    const seconds = (performance.now() - started) / 1000;
    if (withinAfterS === undefined && now <= before * 1.1) withinAfterS = seconds;
    if (seconds * 1000 >= SETTLE_MS) return { withinAfterS, endMiB: now / MiB };
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

const line = (name: string, l: Latencies) =>
  `  ${name.padEnd(34)} ${String(l.count).padStart(6)} probes  p50 ${l.p50.toFixed(1).padStart(7)} ms  p99 ${l.p99.toFixed(1).padStart(7)} ms  max ${l.max.toFixed(1).padStart(7)} ms  failed ${l.failures}`;

/** Runs `work` while one client sends `query` to /graphql back to back, each bounded by a 5 s timeout. */
async function withGraphqlLoop(url: string, query: string, work: () => Promise<Row>) {
  let loop = true;
  const attempts = { count: 0, statuses: new Map<string, number>(), maxMs: 0 };
  const sending = (async () => {
    while (loop) {
      const started = performance.now();
      const status = await fetch(`${url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query }),
        signal: AbortSignal.timeout(5_000),
      }).then((res) => String(res.status), (err: Error) => (err.name === 'TimeoutError' ? 'timeout' : 'error'));
      attempts.count++;
      attempts.maxMs = Math.max(attempts.maxMs, performance.now() - started);
      attempts.statuses.set(status, (attempts.statuses.get(status) ?? 0) + 1);
    }
  })();
  try {
    return { row: await work(), attempts };
  } finally {
    loop = false;
    await sending;
  }
}

export async function benchHardening(ctx: HardeningContext, run: string): Promise<Row[]> {
  const { server, apiPath } = ctx;
  console.log('\nhardening: what one heavy request does to the others');

  // 1. /health/live while a 50 MB submodel is POSTed, against the same probe with nothing else running.
  const text = bigSubmodel(`urn:bench:${run}:big`, BIG_BYTES);
  const bytes = Buffer.byteLength(text);
  // Within 10% of 50 MiB, and under the server's default BODY_LIMIT of 64 MB: else the line measures something else.
  if (Math.abs(bytes - BIG_BYTES) > 0.1 * BIG_BYTES) throw new Error(`the big submodel is ${bytes} bytes, not about ${BIG_BYTES}`);
  const idle = await probeHealth(server.url, new Promise((resolve) => setTimeout(resolve, 3_000)));
  const postStarted = performance.now();
  let postMs = NaN;
  // The POST's own time, taken when it settles (not when the probe loop notices).
  const posting = fetch(`${server.url}${apiPath}/submodels`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: text, signal: AbortSignal.timeout(POST_TIMEOUT_MS) })
    .then((res) => (void res.body?.cancel(), res.status), (err: Error) => (err.name === 'TimeoutError' ? `timeout after ${POST_TIMEOUT_MS / 1000} s` : `failed: ${err.message}`))
    .finally(() => (postMs = performance.now() - postStarted));
  const during = await probeHealth(server.url, posting);
  const posted = await posting;
  console.log(line('/health/live, idle', idle));
  console.log(line(`/health/live, ${(bytes / 1024 / 1024).toFixed(1)} MiB POST running`, during));
  console.log(`  the POST answered ${posted} after ${(postMs / 1000).toFixed(1)} s; p99 during it is ${(during.p99 / idle.p99).toFixed(1)} x idle`);
  const missed = [during.failures ? `${during.failures} probes failed` : '', posted === 201 ? '' : `the POST answered ${posted}, not 201`].filter(Boolean);
  const healthOk = during.p99 < 100 && !missed.length;
  console.log(`goal /health/live p99 < 100 ms during a 50 MB POST: ${during.p99.toFixed(1)} ms ${healthOk ? 'PASS' : 'FAIL'}${missed.length ? ` (${missed.join('; ')})` : ''}`);
  // The POST is a request like the others: when it fails, the run fails (the probe's latency is the goal's business).
  const postRow: Row = { name: 'POST 50 MB submodel', reqPerSec: 1000 / postMs, p50: postMs, p99: postMs, cpuUs: NaN, failures: posted === 201 ? 0 : 1 };

  // 2. GET by id while one client retries the doubling fragment chain in a loop; the baseline is the same loop
  // of a trivial document (`{ __typename }`), since any client sending GraphQL back to back takes its share.
  const trivial = await withGraphqlLoop(server.url, '{ __typename }', () => ctx.measure('GET /shells/{id}, trivial GraphQL loop', server, ctx.byId.request()));
  const fragment = await withGraphqlLoop(server.url, FRAGMENT_QUERY, () => ctx.measure('GET /shells/{id}, fragment loop', server, ctx.byId.request()));
  for (const [name, loop] of [['trivial', trivial], ['fragment', fragment]] as const) {
    console.log(
      `  ${name} documents sent: ${loop.attempts.count}, statuses ${JSON.stringify(Object.fromEntries(loop.attempts.statuses))}, slowest ${loop.attempts.maxMs.toFixed(0)} ms; ` +
        `GET by id ${(loop.row.reqPerSec / ctx.byId.row.reqPerSec).toFixed(3)} x without a loop (${loop.row.failures} GETs failed)`,
    );
  }
  const ratio = fragment.row.reqPerSec / trivial.row.reqPerSec;
  console.log(`  GET /shells/{id} with the fragment loop: ${ratio.toFixed(3)} x with the trivial loop`);
  // The attack froze the server for minutes with one request; refused at validation, it must be answered at once.
  const loopOk = fragment.attempts.maxMs < 1_000 && !fragment.attempts.statuses.has('timeout') && !fragment.attempts.statuses.has('error');
  console.log(`goal every fragment document answered within 1 s: slowest ${fragment.attempts.maxMs.toFixed(0)} ms ${loopOk ? 'PASS' : 'FAIL'}`);
  const underLoad = fragment.row;

  // 3. /health/live and RSS while three nesting bombs (60 MB of `[` in 61 KB of gzip) are sent at a time, round
  // after round: as a GraphQL variable, to a tenant route and to the Management API (no token needed for any).
  const bombs = [
    ['/graphql', nestingBomb('{"query":"query($v: JSON) { __typename }","variables":{"v":')],
    [`${apiPath}/submodels`, nestingBomb('{"modelType":"Submodel","id":"urn:bench:bomb","submodelElements":')],
    ['/api/v1/accounts', nestingBomb('{"email":"bomb@example.com","displayName":')],
  ] as const;
  const statuses = new Map<string, number>();
  let rounds = 0;
  const bombing = measured(server.pid, async () => {
    const until = performance.now() + BOMBS_MS;
    while (performance.now() < until) {
      await Promise.all(
        bombs.map(([path, body]) =>
          fetch(`${server.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' }, body, signal: AbortSignal.timeout(30_000) })
            .then((res) => (void res.body?.cancel(), String(res.status)), (err: Error) => (err.name === 'TimeoutError' ? 'timeout' : 'error'))
            .then((status) => void statuses.set(status, (statuses.get(status) ?? 0) + 1)),
        ),
      );
      rounds++;
    }
  });
  const bombed = await probeHealth(server.url, bombing);
  const { peakMiB } = await bombing;
  console.log(line('/health/live, 3 nesting bombs at a time', bombed));
  console.log(`  ${rounds} rounds of 3 bombs (${(bombs[0][1].length / 1024).toFixed(0)} KB of gzip each), statuses ${JSON.stringify(Object.fromEntries(statuses))}; server RSS peak +${peakMiB.toFixed(0)} MB`);
  const refused = statuses.get('400') === rounds * bombs.length;
  const bombsOk = bombed.p99 < 100 && peakMiB < 100 && !bombed.failures && refused;
  console.log(
    `goal /health/live p99 < 100 ms and RSS growth < 100 MB while three nesting bombs run: p99 ${bombed.p99.toFixed(1)} ms, max ${bombed.max.toFixed(1)} ms, ` +
      `RSS +${peakMiB.toFixed(0)} MB ${bombsOk ? 'PASS' : 'FAIL'}${refused ? '' : ' (not every bomb answered 400)'}`,
  );
  const bombRow: Row = { name: '3 nesting bombs at a time', reqPerSec: (rounds * bombs.length * 1000) / BOMBS_MS, p50: NaN, p99: NaN, cpuUs: NaN, failures: refused ? 0 : 1 };
  const admission = await benchAdmission(ctx, run);
  return [postRow, trivial.row, underLoad, bombRow, ...admission];
}

/** Sends `body` to `path` as POST and settles with the status (or `timeout`/`error`) and the time to the answer. */
async function post(url: string, headers: Record<string, string>, body: Buffer | string): Promise<{ status: string; ms: number }> {
  const started = performance.now();
  const status = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body, signal: AbortSignal.timeout(60_000) }).then(
    (res) => (void res.body?.cancel(), String(res.status)),
    (err: Error) => (err.name === 'TimeoutError' ? 'timeout' : 'error'),
  );
  return { status, ms: performance.now() - started };
}

/**
 * Sends `body` with node:http and settles once the whole body is sent and the answer is in: the status and the time
 * to the answer's headers (a server that answers before reading the body answers while the client still sends; fetch
 * would only report the answer after sending all of it).
 */
function postEarly(url: string, headers: Record<string, string>, body: Buffer): Promise<{ status: string; ms: number }> {
  return new Promise((resolve) => {
    const started = performance.now();
    let answer: { status: string; ms: number } | undefined;
    let sent = false;
    const settle = () => answer && sent && resolve(answer);
    // A socket of its own (agent: false): one that answered early must not go back to a pool while the body is still
    // being written into it; its reset then reaches the request's handler below, and the socket's own is a no-op.
    const req = http.request(url, { method: 'POST', agent: false, headers: { 'content-type': 'application/json', ...headers, 'content-length': String(body.length) } }, (res) => {
      answer = { status: String(res.statusCode), ms: performance.now() - started };
      res.resume();
      settle();
    });
    req.setTimeout(60_000, () => req.destroy(new Error('timeout')));
    req.on('socket', (socket) => socket.on('error', () => undefined));
    req.on('error', (err) => {
      answer ??= { status: err.message === 'timeout' ? 'timeout' : `error ${(err as NodeJS.ErrnoException).code ?? err.message}`, ms: performance.now() - started };
      sent = true;
      settle();
    });
    req.end(body, () => {
      sent = true;
      settle();
    });
  });
}

const count = (statuses: Map<string, number>, status: string) => void statuses.set(status, (statuses.get(status) ?? 0) + 1);

/**
 * 4. Request admission: /health/live and RSS while three clients send 60 MB flat bodies round after round to a tenant
 * that needs a token (without one: 401 before the body is read; with one: 413 while it is read, by its size or its
 * values). 5. Shares of expensive work: GET by id of the default tenant while 24 expensive queries at a time run on
 * that tenant, against GET by id without them (the first row of the run).
 */
export async function benchAdmission(ctx: HardeningContext, run: string): Promise<Row[]> {
  const { server } = ctx;
  console.log('\nadmission: flat bodies with and without a token, expensive queries beside GET by id');
  const management = await benchManagement(server.url);
  const token = await benchToken(server.url);
  const tenant = `tb-${run}`.toLowerCase().replace(/[^a-z0-9-]/g, '-').slice(0, 40);
  await management.call('POST', `/organizations/${management.organizationId}/tenants`, { name: tenant, showcase: false });
  const api = `${server.url}/tenants/${tenant}/api/v3.0`;
  const bearer = { authorization: `Bearer ${token}` };

  const flat = flatBody();
  const clients: [string, Record<string, string>, string][] = [
    [`${api}/shells`, {}, '401'],
    [`${api}/submodels`, {}, '401'],
    [`${api}/submodels`, bearer, '413'],
  ];
  const statuses = new Map<string, number>();
  let slowest401 = 0;
  let rounds = 0;
  // RSS before, at its peak during, and after: once the server is idle again (the preparation above done). The
  // same probe of /health/live without the bodies first, for the ratio.
  await new Promise((resolve) => setTimeout(resolve, 2_000));
  const idle = await probeHealth(server.url, new Promise((resolve) => setTimeout(resolve, 3_000)));
  const rssBefore = rssBytes(server.pid);
  const flooding = measured(server.pid, async () => {
    const until = performance.now() + FLAT_MS;
    while (performance.now() < until) {
      // Each client with and without a token in turn: three bodies at a time.
      await Promise.all(
        clients.map(async (_, k) => {
          const [url, headers] = clients[(k + rounds) % clients.length];
          const answer = await postEarly(url, headers, flat);
          count(statuses, answer.status);
          if (answer.status === '401') slowest401 = Math.max(slowest401, answer.ms);
        }),
      );
      rounds++;
    }
  });
  const flooded = await probeHealth(server.url, flooding);
  const { peakMiB } = await flooding;
  const settled = await rssReturn(server.pid, rssBefore);
  console.log(line('/health/live, idle', idle));
  console.log(line('/health/live, 3 x 60 MB flat bodies', flooded));
  console.log(`  p99 during the flat bodies is ${(flooded.p99 / idle.p99).toFixed(1)} x idle`);
  console.log(`  ${rounds} rounds of 3 flat bodies of ${(flat.length / 1024 / 1024).toFixed(0)} MB, statuses ${JSON.stringify(Object.fromEntries(statuses))}; slowest 401 ${slowest401.toFixed(0)} ms (to its headers); server RSS peak +${peakMiB.toFixed(0)} MB`);
  console.log(
    `  server RSS ${(rssBefore / MiB).toFixed(0)} MB before, ${(rssBefore / MiB + peakMiB).toFixed(0)} MB at the peak, ${settled.endMiB.toFixed(0)} MB ` +
      `${SETTLE_MS / 1000} s after the last body (${((settled.endMiB * MiB) / rssBefore).toFixed(2)} x before)`,
  );
  console.log(
    `goal RSS back within 10% of its level before once the flat bodies stop: ` +
      `${settled.withinAfterS !== undefined ? `within ${settled.withinAfterS.toFixed(1)} s PASS` : `not within ${SETTLE_MS / 1000} s FAIL`}`,
  );
  const expected = (statuses.get('401') ?? 0) + (statuses.get('413') ?? 0) === rounds * clients.length;
  const flatOk = flooded.p99 < 100 && peakMiB < 200 && !flooded.failures && expected;
  console.log(
    `goal /health/live p99 < 100 ms and RSS growth < 200 MB while three clients send 60 MB flat bodies with and without a token: p99 ${flooded.p99.toFixed(1)} ms, ` +
      `RSS +${peakMiB.toFixed(0)} MB ${flatOk ? 'PASS' : 'FAIL'}${expected ? '' : ' (not every body answered 401 or 413)'}`,
  );
  const flatRow: Row = { name: '3 x 60 MB flat bodies at a time', reqPerSec: (rounds * clients.length * 1000) / FLAT_MS, p50: NaN, p99: NaN, cpuUs: NaN, failures: expected ? 0 : 1 };

  // Submodels for the queries to look through: 20 Properties c0..c19 with collections x.
  const element = (i: number) => ({ modelType: 'SubmodelElementCollection', idShort: `c${i}`, value: [{ modelType: 'Property', idShort: 'x', valueType: 'xs:string', value: `v${i}` }] });
  for (let start = 0; start < QUERY_SUBMODELS; start += 25) {
    await Promise.all(
      Array.from({ length: Math.min(25, QUERY_SUBMODELS - start) }, (_, k) =>
        post(`${api}/submodels`, bearer, JSON.stringify({ modelType: 'Submodel', id: `urn:bench:${run}:q:${start + k}`, idShort: 'q', submodelElements: Array.from({ length: 20 }, (_, i) => element(i)) })),
      ),
    );
  }
  const queryStatuses = new Map<string, number>();
  let querying = true;
  // Each client sends its next query as soon as the last is answered; one answered 429 waits its Retry-After (2 s).
  const queries = Array.from({ length: QUERIES_AT_ONCE }, async () => {
    while (querying) {
      const { status } = await post(`${api}/query/submodels`, bearer, EXPENSIVE_QUERY);
      count(queryStatuses, status);
      if (status === '429') await new Promise((resolve) => setTimeout(resolve, 2_000));
    }
  });
  let starved: Row;
  try {
    starved = await ctx.measure(`GET /shells/{id}, ${QUERIES_AT_ONCE} queries on another tenant`, server, ctx.byId.request());
  } finally {
    querying = false;
    await Promise.all(queries);
  }
  console.log(
    `  ${QUERIES_AT_ONCE} clients sent expensive queries back to back: statuses ${JSON.stringify(Object.fromEntries(queryStatuses))}; ` +
      `GET by id ${(starved.reqPerSec / ctx.byId.row.reqPerSec).toFixed(3)} x without them`,
  );
  // 400: a query stopped by QUERY_TIMEOUT_MS, as documented; 429: over its share.
  const queryFailures = [...queryStatuses.keys()].filter((s) => s !== '200' && s !== '400' && s !== '429');
  const starveOk = starved.p99 < 50 && starved.failures === 0 && !queryFailures.length;
  console.log(
    `goal GET /shells/{id} of another tenant p99 < 50 ms and 0 errors while ${QUERIES_AT_ONCE} expensive queries run: p99 ${starved.p99.toFixed(1)} ms, ` +
      `${starved.failures} errors ${starveOk ? 'PASS' : 'FAIL'}${queryFailures.length ? ` (queries answered ${queryFailures.join(', ')})` : ''}`,
  );
  return [flatRow, starved];
}
