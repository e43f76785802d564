import http from 'node:http';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { aasRepositoryRoutes } from '../../rest-facade/aas-repository';
import { conceptDescriptionRoutes } from '../../rest-facade/concept-description-repository';
import { RouteSpec } from '../../rest-facade/route';
import { submodelRepositoryRoutes } from '../../rest-facade/submodel-repository';
import { TestServer, b64, sampleShell, startTestServer } from '../support/server';

/**
 * A bounded fuzz of every route of the façade's tables and of /graphql with malformed input (seeded, so a failure
 * replays: FUZZ_SEED=n). For every request: no 5xx (but the 501 of an Operation's invoke routes, which is the
 * answer by design), a Result object on every 4xx of the REST API, no answer slower than 2 s; and /health/live
 * answering within a second throughout, probed in parallel the whole time.
 */
const SEED = Number(process.env.FUZZ_SEED ?? 20261122);
const REQUESTS = 4_000;
const MAX_MS = 2_000;
const MB = 1024 * 1024;

/** mulberry32: small, fast, and the same sequence for the same seed. */
function prng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return { next, pick: <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)], int: (n: number) => Math.floor(next() * n) };
}
const rnd = prng(SEED);

const AAS = 'urn:fuzz:aas';
const SM = 'urn:fuzz:sm';
const CD = 'urn:fuzz:cd';
const prop = (idShort: string, value = '5') => ({ modelType: 'Property', idShort, valueType: 'xs:int', value });
const SUBMODEL = {
  modelType: 'Submodel',
  id: SM,
  idShort: 'Fuzz',
  submodelElements: [
    prop('P'),
    { modelType: 'SubmodelElementCollection', idShort: 'C', value: [prop('x')] },
    { modelType: 'SubmodelElementList', idShort: 'L', typeValueListElement: 'Property', valueTypeListElement: 'xs:int', value: [{ modelType: 'Property', valueType: 'xs:int', value: '1' }] },
    { modelType: 'MultiLanguageProperty', idShort: 'M', value: [{ language: 'en', text: 'hi' }] },
    { modelType: 'Blob', idShort: 'B', contentType: 'application/octet-stream', value: 'AAEC' },
    { modelType: 'Operation', idShort: 'Op' },
    { modelType: 'Entity', idShort: 'E', entityType: 'CoManagedEntity', statements: [prop('s')] },
  ],
};
const SHELL = sampleShell(AAS, { submodels: [{ type: 'ModelReference', keys: [{ type: 'Submodel', value: SM }] }] });
const CONCEPT = { modelType: 'ConceptDescription', id: CD, idShort: 'Cd' };

// --- Generators of malformed pieces

const deep = (n: number) => `${'['.repeat(n)}1${']'.repeat(n)}`;
const BAD_IDS = ['%%%', '****', b64('a\u0000b'), b64('x'.repeat(100_000)), b64('\uFFFF'.repeat(3000)), 'AAAA=', '_', b64(SM).slice(0, -1), encodeURIComponent('é')];
const GOOD_IDS: Record<string, string> = { aasIdentifier: b64(AAS), submodelIdentifier: b64(SM), cdIdentifier: b64(CD) };
const PATHS = ['P', 'C.x', 'L%5B0%5D', 'Op', 'M', 'B', 'E.s', '..', 'a%5B', `${'a.'.repeat(3000)}a`, 'x'.repeat(20_000), '%5B0%5D'.repeat(2000), 'P%00', 'L%5B99999999999%5D'];
const QUERIES = [
  '', 'limit=0', 'limit=-1', 'limit=251', 'limit=1e9', 'limit=abc', 'limit=1&limit=2', 'cursor=garbage', `cursor=${b64('["shells",5]')}`,
  `cursor=${b64('["submodel-elements","0:P"]')}`, 'level=wide', 'level=core&level=deep', 'extent=all', 'extent=withBlobValue', 'unknown=1',
  `idShort=${'x'.repeat(10_000)}`, `semanticId=${b64('{"type":1}')}`, 'assetIds=%%%', `assetIds=${b64('[]')}`, 'kind=Nope', 'cursor=',
];
const BODIES: { label: string; body: string | Buffer; headers?: Record<string, string> }[] = [
  { label: 'not JSON', body: 'garbage' },
  { label: 'truncated', body: '{"modelType":"Submodel","id":' },
  { label: 'array', body: '[]' },
  { label: 'string', body: '"x"' },
  { label: 'number', body: '42' },
  { label: 'null', body: 'null' },
  { label: 'deep arrays', body: deep(5_000) },
  { label: 'deep objects', body: `${'{"a":'.repeat(5_000)}1${'}'.repeat(5_000)}` },
  { label: 'big string', body: JSON.stringify({ modelType: 'Submodel', id: 'x'.repeat(500_000) }) },
  { label: 'no content type', body: '{}', headers: { 'content-type': '' } },
  { label: 'latin1', body: '{}', headers: { 'content-type': 'application/json; charset=latin1' } },
  { label: 'bad gzip', body: 'not gzip', headers: { 'content-encoding': 'gzip' } },
  { label: 'gzip bomb', body: gzipSync(Buffer.alloc(3 * MB, ' ')), headers: { 'content-encoding': 'gzip' } },
  { label: '__proto__', body: '{"__proto__":{"polluted":true}}' },
];
const HEADERS: Record<string, string>[] = [
  {}, { 'if-match': 'garbage' }, { 'if-match': `"${'x'.repeat(8000)}"` }, { authorization: 'Bearer garbage' }, { authorization: `Bearer ${'a'.repeat(12_000)}` },
  { authorization: 'Basic Zm9vOmJhcg==' }, { 'x-request-id': '<script>' },
];
const METHODS_FETCH_REFUSES = ['TRACE', 'CONNECT'];
const ODD_METHODS = ['TRACE', 'PROPFIND', 'LOCK', 'OPTIONS', 'HEAD', 'MKCOL'];

/** A valid body for a route, mutated in one place so the route logic past the first check is reached. */
function mutatedBody(route: RouteSpec): string {
  const base: unknown = route.path.startsWith('/shells') && !route.path.includes('/submodel') ? SHELL
    : route.path.startsWith('/concept-descriptions') ? CONCEPT
      : route.path.includes('submodel-elements') ? prop('P')
        : SUBMODEL;
  const copy = JSON.parse(JSON.stringify(base)) as Record<string, unknown>;
  const keys = Object.keys(copy);
  const key = rnd.pick(keys);
  copy[key] = rnd.pick([42, null, [], {}, 'x'.repeat(3000), true, [{}], { modelType: 'Property' }]);
  return JSON.stringify(copy);
}

function urlOf(route: RouteSpec, tenant: string, malformed: boolean): string {
  let path = route.path;
  for (const name of ['aasIdentifier', 'submodelIdentifier', 'cdIdentifier']) {
    path = path.replace(`:${name}`, malformed && rnd.next() < 0.4 ? rnd.pick(BAD_IDS) : GOOD_IDS[name]);
  }
  path = path.replace(':idShortPath', rnd.pick(PATHS));
  const query = malformed ? rnd.pick(QUERIES) : '';
  return `/tenants/${tenant}/api/v3.0${path}${query ? `?${query}` : ''}`;
}

interface Sent {
  method: string;
  path: string;
  body?: string | Buffer;
  headers: Record<string, string>;
  /** Whether a 501 is this route's designed answer (invoking an Operation). */
  invoke: boolean;
  rest: boolean;
}

function restRequest(routes: RouteSpec[], tenant: string): Sent {
  const route = rnd.pick(routes);
  const r = rnd.next();
  const headers: Record<string, string> = { 'content-type': 'application/json', ...rnd.pick(HEADERS) };
  const invoke = /\/invoke/.test(route.path);
  if (r < 0.1) return { method: rnd.pick(ODD_METHODS), path: urlOf(route, tenant, false), headers, invoke, rest: true };
  const sent: Sent = { method: route.method, path: urlOf(route, tenant, r < 0.6), headers, invoke, rest: true };
  if (route.body || rnd.next() < 0.2) {
    if (rnd.next() < 0.5) sent.body = mutatedBody(route);
    else {
      const bad = rnd.pick(BODIES);
      sent.body = bad.body;
      Object.assign(sent.headers, bad.headers);
    }
  }
  if (sent.headers['content-type'] === '') delete sent.headers['content-type'];
  return sent;
}

function graphqlRequest(tenant: string): Sent {
  const fragments = ['query { ...F0 }', ...Array.from({ length: 30 }, (_, i) => `fragment F${i} on Query { ...F${i + 1} ...F${i + 1} }`), 'fragment F30 on Query { __typename }'].join('\n');
  const aliases = Array.from({ length: 20 }, (_, i) => `a${i}: submodels(tenant: "${tenant}", limit: 250) { result { json } }`).join(' ');
  const documents: { query?: unknown; variables?: unknown }[] = [
    { query: fragments },
    { query: `{ ${aliases} }` },
    { query: '{ nope }' },
    { query: '{'.repeat(5000) },
    { query: 42 },
    { query: `query($v: JSON) { patchSubmodelElementValue(tenant: "${tenant}", submodelId: "${SM}", idShortPath: "P", value: $v) { etag } }`, variables: { v: 'DEEP' } },
    { query: `query($id: String!) { shell(tenant: "${tenant}", id: $id) { id } }`, variables: { id: 'x'.repeat(1.5 * MB) } },
    { query: `query($p: String!) { submodelElement(tenant: "${tenant}", submodelId: "${SM}", idShortPath: $p) { idShortPath } }`, variables: { p: '.'.repeat(100_000) } },
    { query: `query($n: Int) { submodels(tenant: "${tenant}", limit: $n) { result { id } } }`, variables: { n: 'many' } },
    { query: `{ submodel(tenant: "${tenant}", id: "${SM}") { ${Array.from({ length: 1500 }, (_, i) => `j${i}: json`).join(' ')} } }` },
    { query: `mutation { createShell(tenant: "${tenant}", shell: { modelType: "AssetAdministrationShell" }) { id } }` },
  ];
  const r = rnd.next();
  if (r < 0.1) return { method: 'GET', path: `/graphql?query=${encodeURIComponent(rnd.pick(['{ nope }', fragments.slice(0, 2000)]))}`, headers: { accept: 'application/json' }, invoke: false, rest: false };
  if (r < 0.15) return { method: rnd.pick(ODD_METHODS), path: '/graphql', headers: {}, invoke: false, rest: false };
  if (r < 0.25) return { method: 'POST', path: '/graphql', body: JSON.stringify([{ query: '{ __typename }' }, { query: '{ nope }' }]), headers: { 'content-type': 'application/json' }, invoke: false, rest: false };
  if (r < 0.35) {
    const bad = rnd.pick(BODIES);
    return { method: 'POST', path: '/graphql', body: bad.body, headers: { 'content-type': 'application/json', ...bad.headers }, invoke: false, rest: false };
  }
  const body = JSON.stringify(rnd.pick(documents)).replace('"DEEP"', deep(5_000));
  return { method: 'POST', path: '/graphql', body, headers: { 'content-type': 'application/json', ...rnd.pick(HEADERS) }, invoke: false, rest: false };
}

/** Sends with node:http (fetch refuses some methods), bounded by a client timeout so a frozen server fails the test. */
function send(base: string, sent: Sent): Promise<{ status: number; body: string; ms: number }> {
  const started = performance.now();
  return new Promise((resolve) => {
    const req = http.request(`${base}${sent.path}`, { method: sent.method, headers: sent.headers, timeout: 5_000 }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8'), ms: performance.now() - started }));
      res.on('error', () => resolve({ status: -1, body: 'response error', ms: performance.now() - started }));
    });
    req.on('timeout', () => req.destroy(new Error('client timeout')));
    req.on('error', (err) => resolve({ status: -1, body: err.message, ms: performance.now() - started }));
    req.end(sent.body);
  });
}

let server: TestServer;
let tenant: string;

beforeAll(async () => {
  server = await startTestServer(inject('databaseUrl'), { bodyLimitBytes: 2 * MB });
  tenant = (await server.createTenant()).name;
  const api = server.api(tenant);
  for (const [path, doc] of [['/submodels', SUBMODEL], ['/shells', SHELL], ['/concept-descriptions', CONCEPT]] as const) {
    const res = await fetch(`${api}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(doc) });
    expect(res.status).toBe(201);
  }
});
afterAll(() => server?.close());

describe(`fuzz (seed ${SEED})`, () => {
  it('never answers 5xx, never takes 2 s, and the health check answers throughout', async () => {
    const routes = [...aasRepositoryRoutes, ...submodelRepositoryRoutes, ...conceptDescriptionRoutes];
    const problems: string[] = [];
    let health = { count: 0, maxMs: 0, failures: 0 };
    let done = false;
    const probe = (async () => {
      while (!done) {
        const res = await send(server.url, { method: 'GET', path: '/health/live', headers: {}, invoke: false, rest: false });
        health = { count: health.count + 1, maxMs: Math.max(health.maxMs, res.ms), failures: health.failures + (res.status === 200 && res.ms < 1_000 ? 0 : 1) };
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    })();
    const seen = new Map<number, number>();
    const started = performance.now();
    try {
      // Four clients at a time, each request drawn from the REST routes (80%) or /graphql (20%).
      const clients = Array.from({ length: 4 }, async () => {
        for (let i = 0; i < REQUESTS / 4; i++) {
          const sent = rnd.next() < 0.8 ? restRequest(routes, tenant) : graphqlRequest(tenant);
          if (METHODS_FETCH_REFUSES.includes(sent.method) && sent.method === 'CONNECT') continue;
          const res = await send(server.url, sent);
          seen.set(res.status, (seen.get(res.status) ?? 0) + 1);
          const where = `${sent.method} ${sent.path.slice(0, 120)} [${String(sent.body ?? '').slice(0, 60)}]`;
          if (res.status < 0 || (res.status >= 500 && !(res.status === 501 && (sent.invoke || ODD_METHODS.includes(sent.method))))) {
            problems.push(`${where}: ${res.status} ${res.body.slice(0, 200)}`);
          }
          if (res.ms > MAX_MS) problems.push(`${where}: took ${Math.round(res.ms)} ms`);
          if (sent.rest && res.status >= 400 && sent.method !== 'HEAD') {
            try {
              const message = (JSON.parse(res.body) as { messages: { code: string; text: string }[] }).messages[0];
              if (message.code !== String(res.status) || !message.text) problems.push(`${where}: malformed Result ${res.body.slice(0, 200)}`);
            } catch {
              problems.push(`${where}: ${res.status} without a Result: ${res.body.slice(0, 200)}`);
            }
          }
        }
      });
      await Promise.all(clients);
    } finally {
      done = true;
      await probe;
    }
    const summary = `seed ${SEED}: ${REQUESTS} requests in ${Math.round(performance.now() - started)} ms, statuses ${JSON.stringify(Object.fromEntries(seen))}; health ${health.count} probes, max ${Math.round(health.maxMs)} ms`;
    console.log(summary);
    expect(health.failures, summary).toBe(0);
    expect(health.count).toBeGreaterThan(10);
    expect(problems.slice(0, 50), summary).toEqual([]);
  }, 180_000);
});
