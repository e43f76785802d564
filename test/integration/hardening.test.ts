import http from 'node:http';
import net from 'node:net';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { DOCUMENT_PARSERS } from '../../src/aas/model/parse';
import { MAX_COST } from '../../src/graphql/limits';
import { databaseRelay } from '../support/db-relay';
import { databaseToSilence } from '../support/fresh-database';
import { newUser } from '../support/identity';
import { TestServer, b64, json, sampleShell, startTestServer } from '../support/server';
import { LOAD_SLACK_MS, PATIENCE_MS, eventually, timed } from '../support/timing';

/**
 * What a probe of the server found: one small request that froze it or ate its memory, errors that were 500s,
 * requests that held connections. Each case is the attack as it was sent, and what must happen instead.
 */

const MB = 1024 * 1024;
let server: TestServer;
let tenant: string;
let api: string;

beforeAll(async () => {
  // A small body limit (and so a small response budget, twice that) keeps the large cases fast.
  server = await startTestServer(inject('databaseUrl'), { bodyLimitBytes: 2 * MB, responseLimitBytes: 4 * MB });
  tenant = (await server.createTenant()).name;
  api = server.api(tenant);
});
afterAll(() => server?.close());

const gql = (body: unknown) =>
  fetch(`${server.url}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: typeof body === 'string' ? body : JSON.stringify(body), signal: AbortSignal.timeout(10_000) });

const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${api}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });

async function expectResult(res: Response, status: number, text?: RegExp) {
  expect(res.status).toBe(status);
  const body = await json(res);
  expect(body.messages[0]).toMatchObject({ code: String(status), correlationId: res.headers.get('x-request-id') });
  if (text) expect(body.messages[0].text).toMatch(text);
  return body;
}

/** A raw request with any method (fetch refuses TRACE and CONNECT). */
function raw(method: string, url: string): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method }, (res) => {
      let body = '';
      res.on('data', (chunk) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** `/health/live` latencies (ms) measured every 10 ms while `work` runs. */
async function healthDuring(work: () => Promise<unknown>, url = server.url): Promise<number[]> {
  const latencies: number[] = [];
  let done = false;
  const probe = (async () => {
    while (!done) {
      const started = performance.now();
      const res = await fetch(`${url}/health/live`, { signal: AbortSignal.timeout(5_000) });
      expect(res.status).toBe(200);
      latencies.push(performance.now() - started);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  })();
  try {
    await work();
  } finally {
    done = true;
    await probe;
  }
  return latencies;
}

/** A submodel of about `bytes` of JSON: collections of string Properties. */
function bigSubmodel(id: string, bytes: number): Record<string, unknown> {
  const property = (i: number) => ({ modelType: 'Property', idShort: `P${i}`, valueType: 'xs:string', value: `value ${i} `.padEnd(60, '.') });
  const perCollection = 100;
  const collections = Math.ceil(bytes / (perCollection * 110));
  return {
    modelType: 'Submodel',
    id,
    idShort: 'Big',
    submodelElements: Array.from({ length: collections }, (_, c) => ({
      modelType: 'SubmodelElementCollection',
      idShort: `C${c}`,
      value: Array.from({ length: perCollection }, (_, i) => property(i)),
    })),
  };
}

describe('GraphQL cost', () => {
  it('answers a doubling fragment chain (2^30 selections in 1.2 KB) at once, and stalls nobody', async () => {
    const fragments = Array.from({ length: 30 }, (_, i) => `fragment F${i} on Query { ...F${i + 1} ...F${i + 1} }`);
    const query = ['query { ...F0 }', ...fragments, 'fragment F30 on Query { __typename }'].join('\n');
    expect(query.length).toBeLessThan(1400);
    let elapsed = 0;
    const health = await healthDuring(async () => {
      const started = performance.now();
      const res = await gql({ query });
      elapsed = performance.now() - started;
      expect(res.status).toBe(400);
      expect((await json(res)).errors[0].message).toMatch(/more than 20 root fields/);
    });
    // Expanded, the chain would take hours; refused, it takes milliseconds and what a loaded machine adds.
    expect(elapsed).toBeLessThan(1_000 + LOAD_SLACK_MS);
    expect(Math.max(...health)).toBeLessThan(1_000 + LOAD_SLACK_MS);
  });

  it('refuses aliases of large pages by their estimated cost, before anything runs', async () => {
    const aliases = Array.from({ length: 5 }, (_, i) => `a${i}: submodels(tenant: "${tenant}", limit: 250) { result { json } }`).join(' ');
    const res = await gql({ query: `{ ${aliases} }` });
    expect(res.status).toBe(400);
    expect((await json(res)).errors[0].message).toMatch(new RegExp(`at most ${MAX_COST} are allowed`));
    // A limit in a variable counts with its value: the same page asked for 10 items at a time passes.
    const small = await gql({ query: `query($n: Int) { a: submodels(tenant: "${tenant}", limit: $n) { result { id } } }`, variables: { n: 10 } });
    expect((await json(small)).errors).toBeUndefined();
    const big = await gql({ query: `query($n: Int) { ${aliases.replace(/limit: 250/g, 'limit: $n')} }`, variables: { n: 250 } });
    expect(big.status).toBe(400);
  });

  it('refuses selections nested thousands deep, in the text or through a chain of fragments, with 400', async () => {
    const deepText = await gql({ query: `{ ${'a { '.repeat(5000)}b${' }'.repeat(5000)} }` });
    expect(deepText.status).toBe(400);
    // 120 fragments, each selecting one field deeper and spreading the next there: 120 levels once expanded.
    const chain = Array.from(
      { length: 120 },
      (_, i) => `fragment F${i} on SubmodelElementCollection { idShort value { ... on SubmodelElementCollection { ${i < 119 ? `...F${i + 1}` : 'idShort'} } } }`,
    );
    const res = await gql({ query: `{ submodel(tenant: "x", id: "y") { submodelElements { ... on SubmodelElementCollection { ...F0 } } } } ${chain.join(' ')}` });
    expect(res.status).toBe(400);
    expect((await json(res)).errors[0].message).toMatch(/deeper than 64 levels/);
  });

  it('refuses subscriptions and persisted-query extensions as client errors, not internal ones', async () => {
    for (const body of [
      { query: 'subscription { x }' },
      { query: '{ __typename }', extensions: { persistedQuery: 5 } },
      { query: '{ __typename }', extensions: { persistedQuery: { version: 1, sha256Hash: 'x' } } },
    ]) {
      const answer = await json(gql(body));
      expect(answer.errors[0].extensions.code).not.toBe('INTERNAL_SERVER_ERROR');
    }
    // A valid subscription over HTTP: 400, pointing at the WebSocket.
    const res = await gql({ query: `subscription { changeEvents(tenant: "${tenant}") { id } }` });
    expect(res.status).toBe(400);
    expect((await json(res)).errors[0]).toMatchObject({ extensions: { code: 'BAD_REQUEST' }, message: expect.stringMatching(/WebSocket/) });
  });

  it('answers the introspection query the playground sends', async () => {
    const { getIntrospectionQuery } = await import('graphql');
    expect((await json(gql({ query: getIntrospectionQuery() }))).errors).toBeUndefined();
  });
});

describe('the response budget', () => {
  const ids = ['urn:budget:1', 'urn:budget:2', 'urn:budget:3'];
  beforeAll(async () => {
    for (const id of ids) expect((await post('/submodels', bigSubmodel(id, 1.5 * MB))).status).toBe(201);
  });

  it('refuses a page whose documents exceed it, with a clear 400, and serves smaller pages', async () => {
    const body = await expectResult(await fetch(`${api}/submodels?limit=3`), 400, /RESPONSE_LIMIT/);
    expect(body.messages[0].text).toMatch(/fewer items/);
    const page = await json(fetch(`${api}/submodels?limit=2`));
    expect(page.result.map((s: { id: string }) => s.id)).toEqual(ids.slice(0, 2));
    expect(page.paging_metadata.cursor).toBeTruthy();
  });

  it('is shared by all the aliases of one GraphQL request', async () => {
    const aliases = ids.map((id, i) => `a${i}: submodel(tenant: "${tenant}", id: "${id}") { json }`).join(' ');
    const res = await json(gql({ query: `{ ${aliases} }` }));
    expect(res.errors.map((e: { extensions: { code: string } }) => e.extensions.code)).toContain('RESPONSE_TOO_LARGE');
  });

  it('counts a document each time the answer repeats it', async () => {
    const aliases = Array.from({ length: 4 }, (_, i) => `j${i}: json`).join(' ');
    const res = await json(gql({ query: `{ submodel(tenant: "${tenant}", id: "${ids[0]}") { ${aliases} } }` }));
    expect(res.data).toBeUndefined();
    expect(res.errors[0].extensions.code).toBe('RESPONSE_TOO_LARGE');
  });
});

describe('large and long input', () => {
  it('bounds the decompressed body by the body limit, on REST and GraphQL', async () => {
    const bomb = gzipSync(Buffer.alloc(3 * MB, ' '));
    expect(bomb.length).toBeLessThan(10_000);
    const headers = { 'content-type': 'application/json', 'content-encoding': 'gzip' };
    await expectResult(await fetch(`${api}/submodels`, { method: 'POST', headers, body: bomb }), 413);
    const graphql = await fetch(`${server.url}/graphql`, { method: 'POST', headers, body: bomb });
    expect(graphql.status).toBe(413);
  });

  it('refuses a compressed nesting bomb (60 MB of [) with 400 before parsing it, on GraphQL, tenant routes and the Management API', async () => {
    const bomb = (prefix: string) => gzipSync(Buffer.concat([Buffer.from(prefix), Buffer.alloc(60 * MB, '[')]), { level: 9 });
    const headers = { 'content-type': 'application/json', 'content-encoding': 'gzip' };
    const graphql = await fetch(`${server.url}/graphql`, { method: 'POST', headers, body: bomb('{"query":"query($v: JSON) { __typename }","variables":{"v":') });
    await expectResult(graphql, 400, /nests deeper than 232 levels/);
    await expectResult(await fetch(`${api}/submodels`, { method: 'POST', headers, body: bomb('{"modelType":"Submodel","id":"urn:bomb","submodelElements":') }), 400, /deeper than 232/);
    await expectResult(await fetch(`${server.url}/api/v1/accounts`, { method: 'POST', headers, body: bomb('{"email":"bomb@example.com","displayName":') }), 400, /deeper than 232/);
    // A JSON array is no GraphQL request (batches are off): refused at its first byte.
    await expectResult(await gql(`[${'{},'.repeat(100_000)}{}]`), 400, /must be a JSON object/);
  });

  it('answers 415 to a compressed body at the identity service, whose endpoints read bodies uncompressed', async () => {
    const res = await fetch(`${server.url}/oidc/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'content-encoding': 'gzip' },
      body: gzipSync('grant_type=client_credentials&client_id=x&client_secret=y'),
    });
    expect(res.status).toBe(415);
    expect(await res.json()).toMatchObject({ error: 'invalid_request' });
    const garbage = await fetch(`${server.url}/oidc/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', 'content-encoding': 'x'.repeat(4096) }, body: 'a=b' });
    expect(garbage.status).toBe(400);
  });

  it('refuses over-long identifiers, idShortPaths and filters with 400, at once', async () => {
    const huge = 'x'.repeat(1.5 * MB);
    const cases = [
      { query: 'query($id: String!) { shell(tenant: $t, id: $id) { id } }', variables: { id: huge } },
      { query: 'query($p: String!) { submodelElement(tenant: $t, submodelId: "urn:x", idShortPath: $p) { idShortPath } }', variables: { p: huge } },
      { query: 'query($f: ShellFilterInput) { shells(tenant: $t, filter: $f) { result { id } } }', variables: { f: { idShort: huge } } },
      { query: `{ shell(tenant: $t, id: "${'y'.repeat(2049)}") { id } }`, variables: {} },
    ];
    for (const { query, variables } of cases) {
      const started = performance.now();
      const res = await gql({ query: query.replace('query(', 'query($t: String!, ').replace('{ shell(tenant: $t', 'query($t: String!) { shell(tenant: $t'), variables: { t: tenant, ...variables } });
      expect(performance.now() - started).toBeLessThan(2_000 + LOAD_SLACK_MS);
      expect(res.status).toBe(400);
      expect(JSON.stringify(await json(res)).length).toBeLessThan(5_000);
    }
    // REST: an id longer than an AAS Identifier may be (2,048 characters since V3.1).
    await expectResult(await fetch(`${api}/shells/${b64('z'.repeat(2049))}`), 400, /at most 2048 characters/);
    await expectResult(await fetch(`${api}/shells/${b64('z'.repeat(2048))}`), 404);
  });

  it('answers 400 to JSON nested 5,000 deep in a $value PATCH and in GraphQL variables', async () => {
    const deep = `${'['.repeat(5000)}1${']'.repeat(5000)}`;
    expect((await post('/submodels', { modelType: 'Submodel', id: 'urn:deep', submodelElements: [{ modelType: 'Property', idShort: 'P', valueType: 'xs:string' }] })).status).toBe(201);
    const patch = await fetch(`${api}/submodels/${b64('urn:deep')}/submodel-elements/P/$value`, { method: 'PATCH', headers: { 'content-type': 'application/json' }, body: deep });
    await expectResult(patch, 400, /deeper than 232/);
    const variables = `{"query":"mutation($v: JSON) { patchSubmodelElementValue(tenant: \\"${tenant}\\", submodelId: \\"urn:deep\\", idShortPath: \\"P\\", value: $v) { etag } }","variables":{"v":${deep}}}`;
    const res = await gql(variables);
    expect(res.status).toBe(400);
  });

  it('verifies a large document off the event loop: the health check keeps answering', async () => {
    // Verifying 12 MB in the event loop blocked it for over a second; in the worker thread, the loop only
    // parses and serializes (tens of milliseconds each), and every other step that walks the whole document (its
    // element rows, its size, its answer) takes turns. The bound is 600 ms, or half of what verifying the same
    // document takes in this process (measured here, on the same machine at the same moment) when that is longer:
    // verified in the event loop, it would stall the health check for all of it. The server runs in this process,
    // so the stall is read off its event loop as well as off the health check's answers: a probe waiting between two
    // checks would miss a stall that began meanwhile.
    const large = await startTestServer(inject('databaseUrl'), { bodyLimitBytes: 16 * MB });
    try {
      const name = (await large.createTenant()).name;
      const doc = bigSubmodel('urn:large', 12 * MB);
      const text = JSON.stringify(doc);
      expect(text.length).toBeGreaterThan(10 * MB);
      const send = (body: string) => fetch(`${large.api(name)}/submodels`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      const parsed = JSON.parse(text);
      // A busy machine can stall the loop once for reasons of its own (another process, a collection): a stall over
      // the bound is measured again, with the same document under another id, and only a second one fails. Verified
      // in the loop, every attempt would stall for all of the verification.
      const attempts: string[] = [];
      let within = false;
      for (let attempt = 0; attempt < 2 && !within; attempt++) {
        const body = attempt === 0 ? text : JSON.stringify({ ...doc, id: `urn:large:${attempt}` });
        const loop = monitorEventLoopDelay({ resolution: 10 });
        loop.enable();
        const latencies = await healthDuring(async () => expect((await send(body)).status).toBe(201), large.url);
        loop.disable();
        const verifying = await timed(() => DOCUMENT_PARSERS.Submodel(parsed));
        const [health, held] = [Math.max(...latencies), loop.max / 1e6];
        const stall = Math.max(health, held);
        const bound = Math.max(600, verifying.ms / 2);
        attempts.push(`/health/live at most ${Math.round(health)} ms and the event loop held at most ${Math.round(held)} ms while it was stored; verifying it here took ${Math.round(verifying.ms)} ms (bound ${Math.round(bound)} ms)`);
        console.info(`large document: ${attempts.at(-1)}`);
        within = stall < bound;
      }
      expect(within, attempts.join('; ')).toBe(true);
      expect(await json(fetch(`${large.api(name)}/submodels/${b64('urn:large')}`))).toEqual(doc);
    } finally {
      await large.close();
    }
  }, 240_000);
});

describe('methods', () => {
  it('answers unsupported methods with 501 or 405 and a Result, never 500', async () => {
    for (const method of ['TRACE', 'PROPFIND', 'LOCK']) {
      for (const path of [`${api}/shells`, `${api}/shells/${b64('urn:x')}`, `${server.url}/graphql`, `${server.url}/nowhere`]) {
        const res = await raw(method, path);
        expect([405, 501]).toContain(res.status);
        const body = JSON.parse(res.body);
        expect(body.messages[0].code).toBe(String(res.status));
        if (res.status === 405) expect(res.headers.allow).toBeTruthy();
      }
    }
    const patch = await raw('PATCH', `${api}/shells`);
    expect(patch.status).toBe(405);
    expect(patch.headers.allow).toMatch(/GET/);
    expect(JSON.parse(patch.body).messages[0].code).toBe('405');
  });
});

describe('requests the HTTP parser refuses', () => {
  it('answer with a Result too: a URL over 16 KB is 431, a GraphQL body in broken gzip is 400', async () => {
    const long = await fetch(`${api}/shells/${'A'.repeat(20_000)}`);
    await expectResult(long, 431);
    const head = await raw('HEAD', `${api}/shells/${'A'.repeat(20_000)}`);
    expect(head.status).toBe(431);
    expect(head.body).toBe('');
    const gzip = await fetch(`${server.url}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' }, body: 'not gzip' });
    await expectResult(gzip, 400, /cannot be read/);
  });

  it('answer a GET or HEAD followed by a body without a length once, and close: no second answer, no stray bytes', async () => {
    const { port, pathname } = new URL(api);
    for (const [method, path] of [['HEAD', `${pathname}/shells`], ['GET', `${pathname}/shells`], ['HEAD', `${pathname}/query/shells`]]) {
      // The body is parsed as a second request, which is not HTTP. Before the fix, the refusal of it was written
      // ahead of the answer to the first, or after it onto a connection the client had reused.
      const bytes = await new Promise<string>((resolve, reject) => {
        const socket = net.connect(Number(port), '127.0.0.1', () =>
          socket.write(`${method} ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n\r\n{"id":"a","id":"b"}`));
        let answer = '';
        socket.on('data', (chunk) => (answer += chunk));
        socket.on('error', reject);
        socket.on('close', () => resolve(answer));
        setTimeout(() => socket.destroy(), 5_000);
      });
      const answers = bytes.match(/^HTTP\/1\.1 \d{3}/gm) ?? [];
      expect(answers, `${method} ${path}: ${bytes}`).toHaveLength(1);
      expect(bytes).toMatch(/^HTTP\/1\.1 (200|405) /);
      expect(bytes).toMatch(/\r\nConnection: close\r\n/i);
      const [head, body] = bytes.split('\r\n\r\n');
      const length = Number(/content-length: (\d+)/i.exec(head)?.[1] ?? 0);
      expect(Buffer.byteLength(body)).toBe(method === 'HEAD' ? 0 : length);
    }
  });
});

describe('slow clients', () => {
  let slow: TestServer;
  beforeAll(async () => {
    slow = await startTestServer(inject('databaseUrl'), { headersTimeoutMs: 1_000, requestTimeoutMs: 2_000, maxConnectionsPerClient: 4 });
  });
  afterAll(() => slow?.close());

  /** Opens a connection and sends `head`, then one byte per 200 ms; resolves when the server ends it, with its answer. */
  function trickle(head: string): Promise<{ ms: number; answer: string }> {
    const { port } = new URL(slow.url);
    return new Promise((resolve) => {
      const started = performance.now();
      const socket = net.connect(Number(port), '127.0.0.1', () => socket.write(head));
      let answer = '';
      const timer = setInterval(() => socket.writable && socket.write('x'), 200);
      socket.on('data', (chunk) => (answer += chunk));
      socket.on('error', () => undefined);
      socket.on('close', () => {
        clearInterval(timer);
        resolve({ ms: performance.now() - started, answer });
      });
    });
  }

  it('closes a connection that trickles its headers or its body', async () => {
    const [headers, body] = await Promise.all([
      trickle('GET /health/live HTTP/1.1\r\nHost: x\r\nX-Slow: '),
      trickle(`POST /tenants/x/api/v3.0/shells HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{`),
    ]);
    // Not closed, a trickle goes on for as long as the test lets it.
    expect(headers.ms).toBeLessThan(4_000 + LOAD_SLACK_MS);
    expect(body.ms).toBeLessThan(5_000 + LOAD_SLACK_MS);
    expect(`${headers.answer}${body.answer}`).not.toMatch(/ 200 /);
  });

  it('caps the open connections of one client address', async () => {
    const { port } = new URL(slow.url);
    const sockets = await Promise.all(
      Array.from({ length: 6 }, () => new Promise<net.Socket>((resolve) => {
        const socket = net.connect(Number(port), '127.0.0.1', () => resolve(socket));
        socket.on('error', () => undefined);
      })),
    );
    const refused = () => sockets.filter((s) => s.destroyed || s.readyState !== 'open').length;
    await eventually(() => refused() >= 2, () => `${refused()} of 6 connections refused`);
    // Time for a third to be refused, were it to be.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(refused()).toBe(2);
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect((await fetch(`${slow.url}/health/live`)).status).toBe(200);
  });
});

describe('a database that goes away', () => {
  it('answers 503 with a Result and Retry-After while it is down, and recovers by itself', async () => {
    const db = databaseRelay(inject('databaseUrl'));
    const viaRelay = await startTestServer(await db.start());
    try {
      const name = (await viaRelay.createTenant()).name;
      const shells = `${viaRelay.api(name)}/shells`;
      expect((await post('/shells', sampleShell('urn:up'))).status).toBe(201); // the shared server is unaffected
      expect((await fetch(shells)).status).toBe(200);
      await db.stop();
      for (const res of [await fetch(shells), await fetch(`${shells}/${b64('urn:up')}`)]) {
        await expectResult(res, 503, /database is unavailable/);
        expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
      }
      const graphql = await json(
        fetch(`${viaRelay.url}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: `{ shells(tenant: "${name}") { result { id } } }` }) }),
      );
      expect(graphql.errors[0].extensions.code).toBe('SERVICE_UNAVAILABLE');
      expect((await fetch(`${viaRelay.url}/health/ready`)).status).toBe(503);
      await db.start();
      let status = 0;
      await eventually(async () => (status = (await fetch(shells)).status) === 200, () => `status ${status}`, PATIENCE_MS, 100);
    } finally {
      await viaRelay.close().catch(() => undefined);
      await db.stop().catch(() => undefined);
    }
  });

  it('answers 503 with Retry-After within its bound while the database is silent (a partition), and recovers by itself', async () => {
    const target = await databaseToSilence('partition');
    const db = databaseRelay(target.url);
    // Short bounds keep the test short: a request waits at most DB_ANSWER_TIMEOUT_MS + DB_CONNECT_TIMEOUT_MS. The
    // connect timeout also bounds the server's start on a fresh database, which a loaded machine took over 1 s for.
    const bounds = { dbConnectTimeoutMs: 3_000, dbAnswerTimeoutMs: 1_000 };
    const bound = bounds.dbConnectTimeoutMs + bounds.dbAnswerTimeoutMs;
    const viaRelay = await startTestServer(await db.start(), bounds);
    try {
      const name = (await viaRelay.createTenant()).name;
      const shells = `${viaRelay.api(name)}/shells`;
      const user = await newUser(viaRelay);
      const me = { headers: { authorization: `Bearer ${await user.token()}` } };
      expect((await fetch(`${shells}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(sampleShell('urn:cached')) })).status).toBe(201);
      expect((await fetch(`${shells}/${b64('urn:cached')}`)).status).toBe(200); // now in the read cache
      expect((await fetch(`${viaRelay.url}/api/v1/me`, me)).status).toBe(200);
      // Each answer is timed; a request that hangs fails the test (rather than its timeout) a little past the bound.
      const timed = async (what: string, url: string, init: RequestInit = {}) => {
        const started = performance.now();
        const res = await fetch(url, { ...init, signal: AbortSignal.timeout(bound + 2 * LOAD_SLACK_MS) });
        return { what, res, ms: performance.now() - started };
      };
      const during = () => [
        timed('ready', `${viaRelay.url}/health/ready`),
        timed('read', `${shells}/${b64('urn:never-read')}`),
        timed('list', `${shells}?limit=5`),
        timed('write', shells, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(sampleShell('urn:during')) }),
        timed('me', `${viaRelay.url}/api/v1/me`, me),
      ];

      db.silence();
      // Twice: first on connections that fell silent under a statement, then on connections newly asked for.
      for (const round of [await Promise.all(during()), await Promise.all(during())]) {
        for (const { what, res, ms } of round) {
          expect({ what, status: res.status, withinBound: ms < bound + LOAD_SLACK_MS }).toEqual({ what, status: 503, withinBound: true });
          expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
          if (what !== 'ready') await expectResult(res, 503, /database is unavailable/);
        }
      }
      // The LISTEN connection has fallen silent too: the read cache is off, so not even the cached shell is served.
      const cached = await fetch(`${shells}/${b64('urn:cached')}`);
      expect(cached.status).toBe(503);

      db.resume();
      let status = 0;
      await eventually(async () => (status = (await fetch(`${viaRelay.url}/health/ready`)).status) === 200, () => `ready: ${status}`, PATIENCE_MS, 100);
      expect((await fetch(`${shells}/${b64('urn:cached')}`)).status).toBe(200);
      expect((await fetch(`${shells}/${b64('urn:during')}`)).status).toBe(404); // the refused write left nothing
      expect((await fetch(shells, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(sampleShell('urn:after')) })).status).toBe(201);
      expect((await fetch(`${viaRelay.url}/api/v1/me`, me)).status).toBe(200);
    } finally {
      db.resume(); // a failure during the partition must not leave the server's shutdown waiting for it
      await viaRelay.close().catch(() => undefined);
      await db.stop().catch(() => undefined);
      await target.drop();
    }
  });
});
