import jwt from 'jsonwebtoken';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { KEY_SET_MAX_AGE_MS, UNKNOWN_KID_REFRESH_MS } from '../../src/auth/signing-keys';
import { TestServer, json, sampleShell, startTestServer } from '../support/server';
import { TestIssuer, startTestIssuer } from '../support/tokens';

let issuer: TestIssuer;
let server: TestServer;
let secure: string;
let showcase: string;
let secureName: string;

beforeAll(async () => {
  issuer = await startTestIssuer();
  server = await startTestServer(inject('databaseUrl'), {});
  secureName = (await server.createTenant({ showcase: false, trust: issuer })).name;
  secure = server.api(secureName);
  showcase = server.api((await server.createTenant({ showcase: true })).name);
});
afterAll(async () => {
  await server?.close();
  await issuer?.close();
});

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const postShell = (api: string, id: string, headers: Record<string, string>) =>
  fetch(`${api}/shells`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(sampleShell(id)) });

async function expectResult(res: Response, status: number) {
  expect(res.status).toBe(status);
  const body = await json(res);
  expect(body.messages[0]).toMatchObject({ code: String(status), messageType: 'Error' });
  return body;
}

describe('tenant API access', () => {
  it('needs a bearer token on a tenant that is not in showcase mode', async () => {
    const res = await fetch(`${secure}/shells`);
    await expectResult(res, 401);
    expect(res.headers.get('www-authenticate')).toMatch(/^Bearer/);
  });

  it('rejects tokens that do not verify', async () => {
    const rejected = [
      'Basic dXNlcjpwYXNz',
      'Bearer',
      'Bearer not-a-jwt',
      `Bearer ${issuer.forge({ roles: ['contributor'] })}`,
      `Bearer ${issuer.sign({ roles: ['contributor'] }, { expiresIn: -120 })}`,
      `Bearer ${issuer.sign({ roles: ['contributor'] }, { audience: 'someone-else' })}`,
      `Bearer ${issuer.sign({ roles: ['contributor'] }, { issuer: 'https://evil.example.com' })}`,
      // Algorithm confusion: HMAC-signed with a guessable secret must never verify.
      `Bearer ${jwt.sign({ roles: ['contributor'], sub: 'x' }, 'secret', { algorithm: 'HS256', issuer: issuer.issuer, audience: issuer.audience })}`,
      `Bearer ${jwt.sign({ roles: ['contributor'], sub: 'x' }, '', { algorithm: 'none', issuer: issuer.issuer, audience: issuer.audience } as jwt.SignOptions)}`,
      `Bearer ${issuer.sign({ roles: ['contributor'] }, { keyid: 'unknown-kid' })}`,
      // A token that never expires is not accepted.
      `Bearer ${issuer.sign({ roles: ['contributor'] }, { expiresIn: undefined })}`,
    ];
    for (const authorization of rejected) {
      await expectResult(await fetch(`${secure}/shells`, { headers: { authorization } }), 401);
    }
  });

  it('lets a reader read but not write', async () => {
    const reader = bearer(issuer.sign({ roles: ['reader'] }));
    expect((await fetch(`${secure}/shells`, { headers: reader })).status).toBe(200);
    await expectResult(await postShell(secure, 'urn:auth:reader', reader), 403);
    expect((await fetch(`${secure}/shells`, { headers: reader }).then(json)).result).toEqual([]);
  });

  it('lets a contributor write', async () => {
    const contributor = bearer(issuer.sign({ roles: ['contributor'] }));
    expect((await postShell(secure, 'urn:auth:contributor', contributor)).status).toBe(201);
    const list = await fetch(`${secure}/shells`, { headers: contributor }).then(json);
    expect(list.result.map((s: { id: string }) => s.id)).toEqual(['urn:auth:contributor']);
  });

  it('answers 404, not 403, to a caller without any role on the tenant, as for a tenant that does not exist', async () => {
    const nobody = bearer(issuer.sign({ roles: ['something-else'] }));
    await expectResult(await fetch(`${secure}/shells`, { headers: nobody }), 404);
    const contributor = bearer(issuer.sign({ roles: ['contributor'] }));
    await expectResult(await fetch(`${server.api('no-such-tenant')}/shells`, { headers: contributor }), 404);
    await expectResult(await fetch(`${server.api('Not_A_Valid_Name')}/shells`, { headers: contributor }), 404);
  });

  it('tells anonymous callers nothing about which tenants exist', async () => {
    await expectResult(await fetch(`${server.api('no-such-tenant')}/shells`), 401);
    await expectResult(await fetch(`${secure}/shells`), 401);
  });

  it('needs no token on a showcase tenant, and ignores whatever Authorization header comes along', async () => {
    expect((await postShell(showcase, 'urn:auth:showcase', {})).status).toBe(201);
    expect((await fetch(`${showcase}/shells`)).status).toBe(200);
    expect((await fetch(`${showcase}/shells`, { headers: { authorization: 'Basic dXNlcjpwYXNz' } })).status).toBe(200);
    expect((await fetch(`${showcase}/shells`, { headers: bearer(issuer.forge()) })).status).toBe(200);
  });

  it('applies the same rule to GraphQL', async () => {
    const gql = (query: string, headers: Record<string, string> = {}) =>
      fetch(`${server.url}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify({ query }) }).then(json);
    const read = `{ shells(tenant: "${secureName}") { result { id } } }`;
    const write = `mutation { deleteShell(tenant: "${secureName}", id: "urn:auth:contributor") }`;
    expect((await gql(read)).errors[0].extensions.code).toBe('UNAUTHENTICATED');
    expect((await gql(read, { authorization: 'Basic dXNlcjpwYXNz' })).errors[0].extensions.code).toBe('UNAUTHENTICATED');
    const reader = bearer(issuer.sign({ roles: ['reader'] }));
    expect((await gql(read, reader)).data.shells.result).toEqual([{ id: 'urn:auth:contributor' }]);
    expect((await gql(write, reader)).errors[0].extensions.code).toBe('FORBIDDEN');
    const contributor = bearer(issuer.sign({ roles: ['contributor'] }));
    expect((await gql(write, contributor)).data.deleteShell).toBe(true);
  });
});

describe('the issuer\'s keys', () => {
  /** A server that has not fetched `keys`' key set yet, and a tenant on it that needs a token. */
  async function freshServer(keys: TestIssuer) {
    const fresh = await startTestServer(inject('databaseUrl'), {});
    const api = fresh.api((await fresh.createTenant({ showcase: false, trust: keys })).name);
    return { fresh, status: async (token: string) => (await fetch(`${api}/shells`, { headers: bearer(token) })).status };
  }
  /** Moves the clock of the server (in this process) and of the token signer forward; it stands still meanwhile. */
  const later = (ms: number) => vi.setSystemTime(Date.now() + ms);
  afterEach(() => {
    vi.useRealTimers();
  });

  it('are not locked away from real users by tokens with random kids', async () => {
    // A server that has not seen the issuer's real key yet: the flood comes first.
    const { fresh, status } = await freshServer(issuer);
    try {
      const before = issuer.jwksRequests();
      // 200 tokens with random kids, 20 at a time (one client address holds a bounded number of connections).
      const statuses: number[] = [];
      for (let batch = 0; batch < 10; batch++) {
        statuses.push(...(await Promise.all(Array.from({ length: 20 }, (_, i) => status(issuer.sign({ roles: ['reader'] }, { keyid: `random-${batch}-${i}` }))))));
      }
      expect(statuses.every((s) => s === 401)).toBe(true);
      expect(await status(issuer.sign({ roles: ['reader'] }))).toBe(200);
      expect(issuer.jwksRequests() - before).toBeLessThanOrEqual(2);
    } finally {
      await fresh.close();
    }
  });

  it('include a key rotated in at the issuer once the refresh interval has passed', async () => {
    const own = await startTestIssuer();
    const { fresh, status } = await freshServer(own);
    try {
      expect(await status(own.sign({ roles: ['reader'] }))).toBe(200);
      const signRotated = own.rotate();
      const before = own.jwksRequests();
      // The key set was fetched just now: no fetch again before the interval has passed, and no waiting.
      expect(await status(signRotated({ roles: ['reader'] }))).toBe(401);
      expect(own.jwksRequests()).toBe(before);
      later(UNKNOWN_KID_REFRESH_MS);
      expect(await status(signRotated({ roles: ['reader'] }))).toBe(200);
      expect(await status(own.sign({ roles: ['reader'] }))).toBe(200);
      expect(own.jwksRequests()).toBe(before + 1);
    } finally {
      await fresh.close();
      await own.close();
    }
  });

  it('are kept while the issuer\'s key endpoint fails', async () => {
    const own = await startTestIssuer();
    const { fresh, status } = await freshServer(own);
    try {
      expect(await status(own.sign({ roles: ['reader'] }))).toBe(200);
      own.failJwks(true);
      const before = own.jwksRequests();
      // The key set is due for a refresh, which fails: the known key still verifies, before and after.
      later(KEY_SET_MAX_AGE_MS + 1_000);
      expect(await status(own.sign({ roles: ['reader'] }))).toBe(200);
      for (let i = 0; i < 50 && own.jwksRequests() === before; i++) await new Promise((resolve) => setTimeout(resolve, 20));
      expect(own.jwksRequests()).toBe(before + 1);
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(await status(own.sign({ roles: ['reader'] }))).toBe(200);
      expect(await status(own.sign({ roles: ['reader'] }, { keyid: 'unknown-kid' }))).toBe(401);
      // The next interval tries again, and still keeps the key.
      later(UNKNOWN_KID_REFRESH_MS);
      expect(await status(own.sign({ roles: ['reader'] }, { keyid: 'unknown-kid' }))).toBe(401);
      expect(own.jwksRequests()).toBe(before + 2);
      expect(await status(own.sign({ roles: ['reader'] }))).toBe(200);
    } finally {
      await fresh.close();
      await own.close();
    }
  });
});

describe('401 answers', () => {
  it('tell an anonymous caller neither the issuer, the audience nor where the keys are', async () => {
    const { host } = new URL(issuer.jwksUri);
    const refused = [
      issuer.sign({ roles: ['reader'] }, { issuer: 'https://evil.example.com' }),
      issuer.sign({ roles: ['reader'] }, { audience: 'someone-else' }),
      issuer.sign({ roles: ['reader'] }, { keyid: 'no-such-kid' }),
      issuer.forge({ roles: ['reader'] }),
      issuer.sign({ roles: ['reader'] }, { expiresIn: -120 }),
    ];
    for (const token of refused) {
      const res = await fetch(`${secure}/shells`, { headers: bearer(token) });
      const text = JSON.stringify(await expectResult(res, 401));
      for (const secret of [issuer.issuer, issuer.audience, host, 'expected', 'jwks']) expect(text).not.toContain(secret);
    }
    const expired = await json(fetch(`${secure}/shells`, { headers: bearer(refused[4]) }));
    expect(expired.messages[0].text).toMatch(/expired/);
  });
});
