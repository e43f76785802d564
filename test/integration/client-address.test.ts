import { randomBytes, randomUUID } from 'node:crypto';
import http from 'node:http';
import { Writable } from 'node:stream';
import pino from 'pino';
import { afterAll, describe, expect, inject, it } from 'vitest';
import type { Config } from '../../src/config';
import { Answer, ForwardingProxy, requestFrom, startForwardingProxy, tokenRequestFrom } from '../support/forwarding-proxy';
import { openLoginPage } from '../support/identity';
import { TestServer, startTestServer } from '../support/server';

/**
 * Who the client is (TRUST_PROXY): the address the failure limits of the identity service, the connection cap and
 * the request log count by, and whether X-Forwarded-Proto/-Host are believed.
 */

const started: { close(): Promise<void> }[] = [];
afterAll(async () => {
  for (const s of started.reverse()) await s.close();
});

/** A server with these settings; its request log lines are collected in `lines`. */
async function serve(overrides: Partial<Config> = {}): Promise<TestServer & { lines: Record<string, unknown>[] }> {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  const server = await startTestServer(inject('databaseUrl'), overrides, pino({ level: 'info' }, sink));
  started.push(server);
  return Object.assign(server, { lines });
}

async function proxyTo(server: TestServer, options: Parameters<typeof startForwardingProxy>[1] = {}): Promise<ForwardingProxy> {
  const proxy = await startForwardingProxy(server.url, options);
  started.push(proxy);
  return proxy;
}

/** A failed client authentication (an unknown client id each time, so only the address limit can apply). */
const badSecret = (from: string, url: string, headers: Record<string, string> = {}) =>
  tokenRequestFrom(from, url, { grant_type: 'client_credentials', client_id: randomUUID(), client_secret: 'wrong' }, headers);

const randomAddress = () => `203.0.113.${1 + (randomBytes(1)[0] % 250)}`;

const requestLine = (lines: Record<string, unknown>[], id: unknown) => lines.find((line) => line.msg === 'request' && line.requestId === id);

describe('without TRUST_PROXY (the default)', () => {
  it('limits failed client authentications by the connection address, whatever X-Forwarded-For says', async () => {
    const server = await serve();
    for (let i = 0; i < 5; i++) {
      const res = await badSecret('127.0.0.1', server.url, { 'x-forwarded-for': randomAddress() });
      expect(res.status).toBe(401);
    }
    for (let i = 0; i < 3; i++) {
      const res = await badSecret('127.0.0.1', server.url, { 'x-forwarded-for': randomAddress() });
      expect(res.status).toBe(429);
      expect(JSON.parse(res.body)).toMatchObject({ error: 'too_many_requests' });
    }
  });

  it('limits failed logins by the connection address, whatever X-Forwarded-For says', async () => {
    const server = await serve();
    const { page, cookies } = await openLoginPage(server);
    const login = (email: string) =>
      requestFrom('127.0.0.1', `${page}/login`, {
        method: 'POST',
        headers: { cookie: cookies, 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': randomAddress() },
        body: new URLSearchParams({ email, password: 'not the password' }).toString(),
      });
    // Another email each time: only the limit per address can stop them.
    for (let i = 0; i < 5; i++) expect((await login(`nobody-${i}-${randomBytes(3).toString('hex')}@example.com`)).status).toBe(401);
    expect((await login(`nobody-x-${randomBytes(3).toString('hex')}@example.com`)).status).toBe(429);
  });

  it('does not let a client lock another address out by naming it in X-Forwarded-For', async () => {
    const server = await serve();
    for (let i = 0; i < 6; i++) await badSecret('127.0.0.2', server.url, { 'x-forwarded-for': '127.0.0.3' });
    expect((await badSecret('127.0.0.2', server.url)).status).toBe(429);
    // The address it named has failed nothing.
    expect((await badSecret('127.0.0.3', server.url)).status).toBe(401);
  });

  it('ignores X-Forwarded-Proto and -Host: the identity service names its own endpoints, the log the connection address', async () => {
    const server = await serve();
    const res = await requestFrom('127.0.0.2', `${server.url}/oidc/.well-known/openid-configuration`, {
      headers: { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'evil.example', 'x-forwarded-for': '198.51.100.7' },
    });
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body).token_endpoint).toBe(`${server.url}/oidc/token`);
    const health = await requestFrom('127.0.0.2', `${server.url}/health/live`, { headers: { 'x-forwarded-for': '198.51.100.7' } });
    expect(requestLine(server.lines, health.headers['x-request-id'])).toMatchObject({ client: '127.0.0.2' });
  });
});

describe('TRUST_PROXY=1, behind a proxy', () => {
  it('limits each client behind the proxy by its own address, which a client cannot choose', async () => {
    const server = await serve({ trustProxy: { hops: 1 } });
    const proxy = await proxyTo(server);
    for (let i = 0; i < 5; i++) expect((await badSecret('127.0.0.2', proxy.url)).status).toBe(401);
    expect((await badSecret('127.0.0.2', proxy.url)).status).toBe(429);
    // Naming another address changes nothing: the proxy appends the real one, and that is the one believed.
    expect((await badSecret('127.0.0.2', proxy.url, { 'x-forwarded-for': '127.0.0.9' })).status).toBe(429);
    // Another client of the same proxy is not limited.
    expect((await badSecret('127.0.0.3', proxy.url)).status).toBe(401);
  });

  it('believes the proxy about the client address, the scheme and the host', async () => {
    const server = await serve({ trustProxy: { hops: 1 } });
    const proxy = await proxyTo(server, { proto: 'https', host: 'idp.example' });
    const res = await requestFrom('127.0.0.2', `${proxy.url}/oidc/.well-known/openid-configuration`);
    expect(JSON.parse(res.body).token_endpoint).toBe('https://idp.example/oidc/token');
    const health = await requestFrom('127.0.0.2', `${proxy.url}/health/live`, { headers: { 'x-forwarded-for': '198.51.100.7' } });
    expect(requestLine(server.lines, health.headers['x-request-id'])).toMatchObject({ client: '127.0.0.2' });
  });

  it('caps the open requests of each client behind the proxy, not the proxy', async () => {
    const server = await serve({ trustProxy: { hops: 1 }, maxConnectionsPerClient: 2 });
    const proxy = await proxyTo(server);
    // Two uploads of 127.0.0.2 that do not finish: its requests in flight.
    const slow = Array.from({ length: 2 }, () => startSlowUpload('127.0.0.2', `${proxy.url}/graphql`));
    try {
      await Promise.all(slow.map((s) => s.headersSent));
      // (Polled: the proxy relays the two uploads at its own pace.)
      let refused: Answer | undefined;
      await expect.poll(async () => (refused = await requestFrom('127.0.0.2', `${proxy.url}/health/live`)).status, { timeout: 5_000 }).toBe(429);
      expect(refused!.headers['retry-after']).toBe('1');
      expect(JSON.parse(refused!.body)).toMatchObject({ messages: [{ code: '429', messageType: 'Error', text: expect.stringMatching(/Too many open requests/) }] });
      // Other clients of the same proxy are served.
      expect((await requestFrom('127.0.0.3', `${proxy.url}/health/live`)).status).toBe(200);
    } finally {
      for (const s of slow) s.abort();
    }
    // Once its requests are over, the client is served again.
    await expect.poll(async () => (await requestFrom('127.0.0.2', `${proxy.url}/health/live`)).status, { timeout: 5_000 }).toBe(200);
  });
});

describe('TRUST_PROXY with the proxy address', () => {
  it('believes forwarded headers from that address only', async () => {
    const server = await serve({ trustProxy: { addresses: ['127.0.0.1'] } });
    const proxy = await proxyTo(server, { localAddress: '127.0.0.1', host: 'idp.example' });
    // Through the proxy: the client's own address.
    for (let i = 0; i < 5; i++) expect((await badSecret('127.0.0.2', proxy.url)).status).toBe(401);
    expect((await badSecret('127.0.0.2', proxy.url)).status).toBe(429);
    expect((await badSecret('127.0.0.3', proxy.url)).status).toBe(401);
    // A direct client (127.0.0.4, no proxy) naming 127.0.0.3 is counted as itself, and its X-Forwarded-Host is not believed.
    for (let i = 0; i < 6; i++) await badSecret('127.0.0.4', server.url, { 'x-forwarded-for': '127.0.0.3' });
    expect((await badSecret('127.0.0.4', server.url)).status).toBe(429);
    expect((await badSecret('127.0.0.3', proxy.url)).status).toBe(401);
    const direct = await requestFrom('127.0.0.4', `${server.url}/oidc/.well-known/openid-configuration`, { headers: { 'x-forwarded-host': 'evil.example' } });
    expect(JSON.parse(direct.body).token_endpoint).toBe(`${server.url}/oidc/token`);
    const proxied = await requestFrom('127.0.0.2', `${proxy.url}/oidc/.well-known/openid-configuration`);
    expect(JSON.parse(proxied.body).token_endpoint).toBe('http://idp.example/oidc/token');
  });
});


/** A POST from `from` whose body never comes: in flight until aborted. `headersSent` resolves once it is on its way. */
function startSlowUpload(from: string, url: string): { headersSent: Promise<void>; abort(): void } {
  const controller = new AbortController();
  const headersSent = new Promise<void>((resolve) => {
    const req = http.request(url, { method: 'POST', headers: { 'content-type': 'application/json', 'content-length': '100000' }, localAddress: from, agent: false, signal: controller.signal });
    req.on('error', () => undefined);
    req.write('{', () => resolve());
  });
  return { headersSent, abort: () => controller.abort() };
}
