import http from 'node:http';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { TestServer, b64, json, sampleShell, startTestServer } from '../support/server';
import { TestIssuer, startTestIssuer } from '../support/tokens';

/**
 * Request admission: who the caller is, and its right to the route, are settled before a body is read; what a body
 * may cost follows its route; expensive work takes a share of the pool, and a caller over its share gets 429.
 *
 * "Before a body is read" is proved without timing: a request declares a 60 MB body and sends only its first
 * kilobytes. A server that reads bodies before it knows the caller cannot answer it (it waits for the rest); one
 * that admits first answers while the client is still sending.
 */

const MB = 1024 * 1024;
let server: TestServer;
let issuer: TestIssuer;
/** A tenant that is not in showcase mode, trusting the test issuer (roles from the token), and a second one. */
let closed: string;
let other: string;

beforeAll(async () => {
  issuer = await startTestIssuer();
  server = await startTestServer(inject('databaseUrl'), {
    bodyValueLimit: 50_000,
    // Small shares, so that a few requests fill them; a short wait for a connection, so that a starved pool shows
    // as 503 at once instead of after the default 5 s.
    work: { perCaller: 2, perTenant: 3, poolReserve: 3 },
    dbConnectTimeoutMs: 1_500,
    queryTimeoutMs: 30_000,
  });
  closed = (await server.createTenant({ showcase: false, trust: issuer })).name;
  other = (await server.createTenant({ showcase: false, trust: issuer })).name;
});
afterAll(async () => {
  await server?.close();
  await issuer?.close();
});

const bearer = (roles: string[], subject = 'alice') => ({ authorization: `Bearer ${issuer.sign({ roles }, { subject })}` });

/** A flat JSON body of about `bytes`: `{"x":[{},{},...]}`, one object per 3 bytes. */
function flatBody(bytes: number): Buffer {
  const count = Math.floor((bytes - 8) / 3);
  return Buffer.from(`{"x":[${'{},'.repeat(count)}{}]}`);
}

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
  /** How many bytes of the body the client had sent when the answer came. */
  sent: number;
}

/**
 * POSTs a request that declares `declared` bytes of body and sends only `first`, then waits for the answer (the rest
 * is never sent; the connection is closed once the answer is in). No answer within 15 s: the server waits for the
 * body it has not got, which is the fault.
 */
function partialPost(url: string, headers: Record<string, string>, declared: number, first: Buffer): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers, 'content-length': String(declared) } });
    const timer = setTimeout(() => {
      req.destroy();
      reject(new Error(`no answer to ${url} while its body was incomplete: the server waits to read it`));
    }, 15_000);
    req.on('response', (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => (body += chunk));
      res.on('end', () => {
        clearTimeout(timer);
        req.destroy();
        resolve({ status: res.statusCode!, headers: res.headers, body, sent: first.length });
      });
    });
    req.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    req.write(first);
  });
}

function expectResult(answer: Answer, status: number, text?: RegExp, what = '') {
  expect(answer.status, `${what} ${answer.body.slice(0, 300)}`).toBe(status);
  const body = JSON.parse(answer.body);
  expect(body.messages[0]).toMatchObject({ code: String(status), messageType: 'Error' });
  if (text) expect(body.messages[0].text).toMatch(text);
}

const DECLARED = 60 * MB;
const FIRST = flatBody(64 * 1024).subarray(0, 64 * 1024);

describe('bodies are read only after the caller is known', () => {
  it('answers an unauthenticated POST /api/v1/organizations 401, not 400 for its body', async () => {
    const res = await fetch(`${server.url}/api/v1/organizations`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"zzz":1}' });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expect((await json(res)).messages[0].code).toBe('401');
  });

  it('answers unauthenticated 60 MB flat bodies 401 before reading them (tenant API, Management API)', async () => {
    for (const path of ['/shells', '/submodels', '/query/submodels', '/search', `/shells/${b64('urn:x')}/submodel-refs`]) {
      const answer = await partialPost(`${server.api(closed)}${path}`, {}, DECLARED, FIRST);
      expectResult(answer, 401, undefined, path);
      expect(answer.headers['www-authenticate']).toMatch(/^Bearer/);
    }
    expectResult(await partialPost(`${server.url}/api/v1/organizations`, {}, DECLARED, FIRST), 401);
    // A token the server refuses is refused as early.
    expectResult(await partialPost(`${server.api(closed)}/shells`, { authorization: `Bearer ${issuer.forge({ roles: ['contributor'] })}` }, DECLARED, FIRST), 401);
  });

  it.each([
    ['kept alive', ''],
    // The client asks for the connection to close after the answer: the answer goes with a FIN, and what the client
    // still sends is read (a server that closed the socket at once would reset it under the client, whose send then
    // fails with EPIPE and whose unread answer is lost).
    ['closed after the answer', 'Connection: close\r\n'],
  ])('gives a client that sends all of a refused body before it reads the answer its answer, the connection %s', async (_, connection) => {
    // 60 MB: the client, busy sending, reads nothing until it has sent everything.
    const body = flatBody(60 * MB);
    const target = new URL(`${server.api(closed)}/shells`);
    const received = await new Promise<string>((resolve, reject) => {
      const socket = net.connect({ host: target.hostname, port: Number(target.port), allowHalfOpen: true });
      const chunks: Buffer[] = [];
      socket.pause();
      socket.on('data', (chunk: Buffer) => chunks.push(chunk));
      socket.on('end', () => {
        socket.destroy();
        resolve(Buffer.concat(chunks).toString('latin1'));
      });
      socket.on('error', (err) => reject(new Error(`the connection failed before the answer was read: ${err.message}`)));
      socket.write(`POST ${target.pathname} HTTP/1.1\r\nHost: ${target.host}\r\n${connection}Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`);
      socket.write(body, (err) => {
        if (err) return reject(new Error(`sending failed: ${err.message}`));
        socket.resume();
        socket.end();
      });
    });
    expect(received).toMatch(/^HTTP\/1\.1 401 /);
    expect(received).toContain('"messageType":"Error"');
    expect(/\r\nconnection: close\r\n/i.test(received)).toBe(connection !== '');
  });

  it('answers a refused token on /graphql before reading its body, as a GraphQL error', async () => {
    const answer = await partialPost(`${server.url}/graphql`, { authorization: 'Bearer not-a-token' }, DECLARED, Buffer.from(`{"query":"{ __typename }","variables":{"x":[${'{},'.repeat(20_000)}`));
    expect(answer.status).toBe(401);
    expect(JSON.parse(answer.body).errors[0].extensions.code).toBe('UNAUTHENTICATED');
  });

  it('refuses a caller without the right to the route (403) or to the tenant (404) before reading its body', async () => {
    expectResult(await partialPost(`${server.api(closed)}/shells`, bearer(['reader']), DECLARED, FIRST), 403, /contributor/);
    expectResult(await partialPost(`${server.api('no-such-tenant')}/submodels`, bearer(['contributor']), DECLARED, FIRST), 404);
    // A token of the issuer without any role in the tenant: 404, the tenant's existence is not told.
    expectResult(await partialPost(`${server.api(closed)}/shells`, bearer([]), DECLARED, FIRST), 404);
  });

  it('holds a body to what its route needs: a shell is no 60 MB document (413 before reading)', async () => {
    expectResult(await partialPost(`${server.api(closed)}/shells`, bearer(['contributor']), DECLARED, FIRST), 413, /larger than/);
    expectResult(await partialPost(`${server.api(closed)}/query/shells`, bearer(['reader']), DECLARED, FIRST), 413);
    // Without a token, a GraphQL request can only reach showcase tenants: the smaller limit too.
    expectResult(await partialPost(`${server.url}/graphql`, {}, DECLARED, FIRST), 413);
  });

  it('refuses a flat body by its values while reading it, before parsing it, on a route that takes large documents', async () => {
    // Sent in chunks without a declared length: the count of values refuses it once it passes BODY_VALUE_LIMIT.
    const res = await fetch(`${server.api(closed)}/submodels`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...bearer(['contributor']) },
      body: new Blob([flatBody(4 * MB)]).stream(),
      duplex: 'half',
    } as RequestInit);
    expect(res.status).toBe(413);
    expect((await json(res)).messages[0].text).toMatch(/more than 50000 values/);
    // A real document of that route still passes.
    const ok = await fetch(`${server.api(closed)}/submodels`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...bearer(['contributor']) },
      body: JSON.stringify({ modelType: 'Submodel', id: 'urn:admission:sm', idShort: 'sm' }),
    });
    expect(ok.status).toBe(201);
  });

  it('still reads the bodies of callers it admits, and answers them as before', async () => {
    const res = await fetch(`${server.api(closed)}/shells`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...bearer(['contributor']) },
      body: JSON.stringify(sampleShell('urn:admission:shell')),
    });
    expect(res.status).toBe(201);
    const bad = await fetch(`${server.api(closed)}/shells`, { method: 'POST', headers: { 'content-type': 'application/json', ...bearer(['contributor']) }, body: '{"zzz":1}' });
    expect(bad.status).toBe(400);
  });
});

/** An AASX upload whose multipart body never ends: it holds its share of expensive work until closed. */
interface HeldUpload {
  /** The answer's status, once one came (an upload refused for want of a share). */
  status?: number;
  close(): void;
}

function heldUpload(tenant: string, headers: Record<string, string>): HeldUpload {
  const boundary = 'held-upload';
  const req = http.request(`${server.api(tenant)}/upload`, {
    method: 'POST',
    headers: { ...headers, 'content-type': `multipart/form-data; boundary=${boundary}`, 'content-length': String(10 * MB) },
  });
  const held: HeldUpload = { close: () => req.destroy() };
  req.on('response', (res) => {
    res.resume();
    held.status = res.statusCode;
  });
  req.on('error', () => undefined);
  req.write(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="env.json"\r\nContent-Type: application/json\r\n\r\n{"assetAdministrationShells":[`);
  return held;
}

/**
 * Uploads held by these callers, each holding a share; `refused` is asked until it answers 429. An upload that lost
 * the race for a share to a probe (and was answered) is started again.
 */
async function whileHeld(tenant: string, callers: string[], refused: () => Promise<Response>, then: (over: Response) => Promise<void>): Promise<void> {
  const held = callers.map((caller) => heldUpload(tenant, bearer(['contributor'], caller)));
  try {
    let over: Response | undefined;
    // A probe right after a restart would take the share the restarted upload is about to ask for: a few turns' pause.
    let pause = 5;
    await eventually(async () => {
      held.forEach((upload, i) => {
        if (upload.status === undefined) return;
        held[i] = heldUpload(tenant, bearer(['contributor'], callers[i]));
        pause = 5;
      });
      if (pause-- > 0) return false;
      over = await refused();
      return over.status === 429;
    });
    await then(over!);
  } finally {
    for (const upload of held) upload.close();
  }
}

const query = (tenant: string, headers: Record<string, string>) =>
  fetch(`${server.api(tenant)}/query/submodels`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ $condition: { $eq: [{ $field: '$sm#idShort' }, { $strVal: 'sm' }] } }),
  });

/** Waits until `check` holds, polling; expensive shares are given back when a connection closes. */
async function eventually(check: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 100; i++) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error('condition never held');
}

describe('no reader can starve the pool: shares of expensive work', () => {
  it('answers a caller over its share 429 with Retry-After, while others and cheap requests go on', async () => {
    const alice = bearer(['contributor'], 'alice');
    // Two uploads of alice wait for their bodies: her two shares are taken.
    await whileHeld(closed, ['alice', 'alice'], () => query(closed, alice), async (over) => {
      expect(over.headers.get('retry-after')).toMatch(/^\d+$/);
      expect((await json(over)).messages[0]).toMatchObject({ code: '429', messageType: 'Error', text: expect.stringMatching(/this caller/) });
      // The same refusal over GraphQL.
      const viaGraphql = await fetch(`${server.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...alice },
        body: JSON.stringify({ query: 'query($t: String!) { queryIds(tenant: $t, target: submodels, query: {}) { result } }', variables: { t: closed } }),
      });
      expect(viaGraphql.status).toBe(429);
      expect(viaGraphql.headers.get('retry-after')).toMatch(/^\d+$/);
      expect((await json(viaGraphql)).errors[0].extensions.code).toBe('TOO_MANY_REQUESTS');
      // Another caller takes the tenant's third share.
      expect((await query(closed, bearer(['reader'], 'bob'))).status).toBe(200);
      // Cheap requests of the same caller are not counted.
      expect((await fetch(`${server.api(closed)}/shells`, { headers: alice })).status).toBe(200);
      expect((await fetch(`${server.api(other)}/submodels`, { headers: alice })).status).toBe(200);
    });
    // Shares are given back when the connection closes.
    await eventually(async () => (await query(closed, alice)).status === 200);
  });

  it('a tenant over its share answers 429; another tenant is not affected', async () => {
    const frank = bearer(['reader'], 'frank');
    await whileHeld(closed, ['carol', 'dave', 'erin'], () => query(closed, frank), async (over) => {
      expect((await json(over)).messages[0].text).toMatch(/on tenant/);
      expect((await query(other, frank)).status).toBe(200);
    });
  });

  // A lock held by a transaction of the test makes queries wait with their connections, as slow queries do. The
  // embedded database serves one transaction at a time, so there a held lock stops everything: PostgreSQL only.
  it.skipIf(!process.env.DATABASE_URL)('24 expensive queries that wait on the database do not take the pool: another tenant reads on', async () => {
    const shell = sampleShell('urn:admission:other-shell');
    expect((await fetch(`${server.api(other)}/shells`, { method: 'POST', headers: { 'content-type': 'application/json', ...bearer(['contributor']) }, body: JSON.stringify(shell) })).status).toBe(201);
    const runner = server.dataSource.createQueryRunner();
    await runner.connect();
    await runner.startTransaction();
    const callers = ['q1', 'q2', 'q3', 'q4', 'q5', 'q6'];
    let queries: Promise<Response>[] = [];
    try {
      await runner.query('LOCK TABLE submodels IN ACCESS EXCLUSIVE MODE');
      queries = Array.from({ length: 24 }, (_, i) => query(closed, bearer(['reader'], callers[i % callers.length])));
      const refused = queries.map((q) => q.then((res) => res.status === 429));
      // What is refused is refused at once; what was admitted waits on the lock.
      await Promise.race([Promise.all(refused.slice(0, 3)), new Promise((resolve) => setTimeout(resolve, 1_000))]);
      const read = await fetch(`${server.api(other)}/shells/${b64(shell.id as string)}`, { headers: bearer(['reader'], 'zoe') });
      expect(read.status).toBe(200);
      const list = await fetch(`${server.api(other)}/shells`, { headers: bearer(['reader'], 'zoe') });
      expect(list.status).toBe(200);
    } finally {
      await runner.commitTransaction();
      await runner.release();
    }
    const statuses = await Promise.all(queries.map((q) => q.then((res) => res.status)));
    expect(statuses.filter((s) => s === 200).length).toBe(3);
    expect(statuses.filter((s) => s === 429).length).toBe(21);
  });
});

describe('the rest of a refused body is read at a bounded pace', () => {
  let paced: TestServer;
  let tenant: string;
  const RATE = 2 * MB;
  beforeAll(async () => {
    paced = await startTestServer(inject('databaseUrl'), { refusedBodyRate: RATE });
    tenant = (await paced.createTenant({ showcase: false, trust: issuer })).name;
  });
  afterAll(async () => {
    await paced?.close();
  });

  it('answers at once, then takes what the client still sends no faster than REFUSED_BODY_RATE', async () => {
    // 128 MB without a token, sent as fast as the connection takes it, the answer read as it comes. Read at the
    // client's pace, all of it is taken within a second or so (128 MB in two seconds before the pace was bounded);
    // at 2 MB/s, two seconds after the answer the client can have handed the kernel only what the two sides' socket
    // buffers hold (at most 4 + 32 MB with Linux's defaults; 8 MB were taken in all here) and 4 MB more.
    const DECLARED_BYTES = 128 * MB;
    const piece = flatBody(64 * 1024);
    const target = new URL(`${paced.api(tenant)}/shells`);
    const socket = net.connect({ host: target.hostname, port: Number(target.port) });
    socket.on('error', () => undefined);
    let handed = 0;
    let answer = '';
    const answered = new Promise<void>((resolve) => {
      socket.on('data', (chunk: Buffer) => {
        answer += chunk.toString('latin1');
        if (answer.includes('\r\n\r\n')) resolve();
      });
    });
    socket.write(`POST ${target.pathname} HTTP/1.1\r\nHost: ${target.host}\r\nContent-Type: application/json\r\nContent-Length: ${DECLARED_BYTES}\r\n\r\n`);
    let sending = true;
    const send = async () => {
      for (let sent = 0; sending && sent < DECLARED_BYTES; sent += piece.length) {
        const more = socket.write(piece, () => (handed += piece.length));
        if (!more) await new Promise((resolve) => socket.once('drain', resolve).once('close', resolve));
      }
    };
    const sent = send();
    await answered;
    expect(answer).toMatch(/^HTTP\/1\.1 401 /);
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    const afterTwoSeconds = handed;
    sending = false;
    socket.destroy();
    await sent.catch(() => undefined);
    expect(afterTwoSeconds, `${(afterTwoSeconds / MB).toFixed(1)} MB taken two seconds after the answer`).toBeLessThan(48 * MB);
  });
});
