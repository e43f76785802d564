import { Writable } from 'node:stream';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { TestServer, b64, sampleShell, startTestServer } from '../support/server';
import { TestIssuer, startTestIssuer } from '../support/tokens';

/** The request log an operator reads: why each refused request was refused, on which tenant, as whom. */
let issuer: TestIssuer;
let server: TestServer;
let tenant: string;
const lines: Record<string, unknown>[] = [];
let raw = '';

beforeAll(async () => {
  issuer = await startTestIssuer();
  const sink = new Writable({
    write(chunk, _encoding, done) {
      raw += chunk;
      for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  server = await startTestServer(
    inject('databaseUrl'),
    {},
    pino({ level: 'debug' }, sink),
  );
  tenant = (await server.createTenant({ showcase: false, trust: issuer })).name;
});
afterAll(async () => {
  await server?.close();
  await issuer?.close();
});

const requestLine = (id: string | null) => lines.find((line) => line.msg === 'request' && line.requestId === id);

describe('the request log', () => {
  it('gives the reason, tenant and subject of every refused request, and never the token', async () => {
    const reader = issuer.sign({ roles: ['reader'] }, { subject: 'alice' });
    const stranger = issuer.sign({ roles: [] }, { subject: 'bob' });
    const expired = issuer.sign({ roles: ['reader'] }, { subject: 'carol', expiresIn: -120 });
    const api = server.api(tenant);
    const sent = [
      { res: await fetch(`${api}/shells`, { headers: { authorization: `Bearer ${expired}` } }), status: 401, subject: undefined, reason: /expired/ },
      { res: await fetch(`${api}/shells`, { method: 'POST', headers: { authorization: `Bearer ${reader}`, 'content-type': 'application/json' }, body: JSON.stringify(sampleShell('urn:log:1')) }), status: 403, subject: 'alice', reason: /contributor/ },
      { res: await fetch(`${api}/shells`, { headers: { authorization: `Bearer ${stranger}` } }), status: 404, subject: 'bob', reason: /not found/ },
      { res: await fetch(`${api}/shells?limit=0`, { headers: { authorization: `Bearer ${reader}` } }), status: 400, subject: 'alice', reason: /limit/ },
      // A read by id of no shell, answered before Koa (rest-facade/hot-reads.ts).
      { res: await fetch(`${api}/shells/${b64('urn:log:absent')}`, { headers: { authorization: `Bearer ${reader}` } }), status: 404, subject: 'alice', reason: /Shell 'urn:log:absent' not found/ },
    ];
    for (const { res, status, subject, reason } of sent) {
      expect(res.status).toBe(status);
      const line = requestLine(res.headers.get('x-request-id'));
      expect(line).toMatchObject({ status, tenant, level: 30 });
      expect(line!.reason).toMatch(reason);
      expect(line!.subject).toBe(subject);
    }
    // A GraphQL document refused before it runs: the reason is the first error's message.
    const graphql = await fetch(`${server.url}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: '{ nope }' }) });
    expect(graphql.status).toBe(400);
    expect(requestLine(graphql.headers.get('x-request-id'))!.reason).toMatch(/nope/);
    for (const token of [reader, stranger, expired]) expect(raw).not.toContain(token);
  });

  it('says at debug level, with the request id, why a token was refused, which the 401 does not say', async () => {
    const foreign = issuer.sign({ roles: ['reader'] }, { issuer: 'https://elsewhere.example.com', subject: 'dave' });
    const res = await fetch(`${server.api(tenant)}/shells`, { headers: { authorization: `Bearer ${foreign}` } });
    expect(res.status).toBe(401);
    expect(await res.text()).not.toContain('elsewhere');
    const requestId = res.headers.get('x-request-id');
    const refused = lines.find((line) => line.msg === 'bearer token refused' && line.requestId === requestId);
    expect(refused).toMatchObject({ level: 20 });
    expect(refused!.reason).toContain('https://elsewhere.example.com is not trusted');
    expect(requestLine(requestId)).toMatchObject({ level: 30, status: 401, tenant, reason: 'The bearer token is not valid.' });
    expect(requestLine(requestId)!.subject).toBeUndefined();
    expect(raw).not.toContain(foreign);
  });
});
