import { Writable } from 'node:stream';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { loadConfig } from '../../src/config';
import { TestServer, sampleShell, startTestServer } from '../support/server';
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
    { auth: { ...loadConfig({}).auth, issuer: issuer.issuer, jwksUri: issuer.jwksUri, audience: issuer.audience } },
    pino({ level: 'info' }, sink),
  );
  tenant = (await server.createTenant({ showcase: false })).name;
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
    ];
    for (const { res, status, subject, reason } of sent) {
      expect(res.status).toBe(status);
      const line = requestLine(res.headers.get('x-request-id'));
      expect(line).toMatchObject({ status, tenant, level: 30 });
      expect(line!.reason).toMatch(reason);
      expect(line!.subject).toBe(subject);
    }
    // GraphQL refusals carry the tenants they asked for.
    const graphql = await fetch(`${server.url}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: '{ nope }' }) });
    expect(graphql.status).toBe(400);
    expect(requestLine(graphql.headers.get('x-request-id'))!.reason).toMatch(/nope/);
    for (const token of [reader, stranger, expired]) expect(raw).not.toContain(token);
  });
});
