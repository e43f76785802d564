import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { clientWithRole } from '../../support/grants';
import { newUser } from '../../support/identity';
import { managementClient, newOrganization } from '../../support/management';
import { TestServer, startTestServer, testAuth } from '../../support/server';
import { TestIssuer, startTestIssuer } from '../../support/tokens';

let server: TestServer;
let issuer: TestIssuer;
beforeAll(async () => {
  server = await startTestServer(inject('databaseUrl'));
  issuer = await startTestIssuer();
});
afterAll(async () => {
  await server?.close();
  await issuer?.close();
});

const UNKNOWN = '00000000-0000-4000-8000-000000000000';
const trustOf = (extra: Record<string, unknown> = {}) => ({ issuer: issuer.issuer, audience: issuer.audience, jwksUri: issuer.jwksUri, ...extra });
const newTenant = (organizationId: string) => server.services.tenants.create({ organizationId, name: `f-${randomBytes(5).toString('hex')}`, showcase: false });
const read = async (tenant: string, token: string) => (await fetch(`${server.api(tenant)}/shells`, { headers: { authorization: `Bearer ${token}` } })).status;

describe('identity providers', () => {
  it("a trust made through the API admits the issuer's tokens at once, and its deletion refuses them at once", async () => {
    const { owner, organization } = await newOrganization(server);
    const tenant = await newTenant(organization.id);
    // A token of another audience, so that no trust of another test admits it.
    const audience = `aud-${randomBytes(4).toString('hex')}`;
    const token = issuer.sign({ roles: ['reader'] }, { audience });
    expect([401, 404]).toContain(await read(tenant.name, token));

    const created = await owner.call('POST', `/organizations/${organization.id}/identity-providers`, trustOf({ audience }));
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ issuer: issuer.issuer, audience, jwksUri: issuer.jwksUri, rolesClaim: 'roles', tenantId: null });
    expect(await read(tenant.name, token)).toBe(200);
    // Readers do not write.
    const writer = issuer.sign({ roles: ['reader'] }, { audience });
    expect((await fetch(`${server.api(tenant.name)}/shells`, { method: 'POST', headers: { authorization: `Bearer ${writer}`, 'content-type': 'application/json' }, body: '{}' })).status).toBe(403);

    // A different roles claim: the same token has no roles there any more.
    const moved = await owner.call('PATCH', `/organizations/${organization.id}/identity-providers/${created.body.id}`, { rolesClaim: 'realm_access.roles' });
    expect(moved.status).toBe(200);
    expect([401, 404]).toContain(await read(tenant.name, token));
    expect(await read(tenant.name, issuer.sign({ realm_access: { roles: ['reader'] } }, { audience }))).toBe(200);

    expect((await owner.call('DELETE', `/organizations/${organization.id}/identity-providers/${created.body.id}`)).status).toBe(204);
    expect([401, 404]).toContain(await read(tenant.name, issuer.sign({ realm_access: { roles: ['reader'] } }, { audience })));
  });

  it('a trust for one tenant grants roles there only', async () => {
    const { owner, organization } = await newOrganization(server);
    const [one, other] = [await newTenant(organization.id), await newTenant(organization.id)];
    const audience = `aud-${randomBytes(4).toString('hex')}`;
    const created = await owner.call('POST', `/organizations/${organization.id}/identity-providers`, trustOf({ audience, tenantId: one.id }));
    expect(created.status).toBe(201);
    expect(created.body.tenantId).toBe(one.id);
    const token = issuer.sign({ roles: ['reader'] }, { audience });
    expect(await read(one.name, token)).toBe(200);
    expect(await read(other.name, token)).toBe(404);
    // A trust of one tenant grants no organization role: the Management API does not open.
    expect((await managementClient(server, token).call('GET', `/organizations/${organization.id}/identity-providers`)).status).toBe(403);
  });

  it('get, list, PUT and PATCH with If-Match, delete', async () => {
    const { owner, organization } = await newOrganization(server);
    const base = `/organizations/${organization.id}/identity-providers`;
    const tenant = await newTenant(organization.id);
    const created = await owner.call('POST', base, trustOf({ audience: 'api://one', rolesClaim: 'realm_access.roles' }));
    const id = created.body.id;
    const etag = created.headers.get('etag')!;
    expect(created.headers.get('location')).toBe(`${server.url}/api/v1${base}/${id}`);
    expect((await owner.call('GET', `${base}/${id}`)).body).toEqual(created.body);
    expect((await owner.call('GET', base)).body).toEqual({ paging_metadata: {}, result: [created.body] });

    const replacement = trustOf({ audience: 'api://two', tenantId: tenant.id });
    expect((await owner.call('PUT', `${base}/${id}`, replacement, { 'if-match': '"1-5"' })).status).toBe(412);
    const put = await owner.call('PUT', `${base}/${id}`, replacement, { 'if-match': etag });
    expect(put.status).toBe(200);
    // PUT replaces: the roles claim not given is the default again.
    expect(put.body).toMatchObject({ audience: 'api://two', rolesClaim: 'roles', tenantId: tenant.id });
    const patch = await owner.call('PATCH', `${base}/${id}`, { tenantId: null }, { 'if-match': put.headers.get('etag')! });
    expect(patch.status).toBe(200);
    expect(patch.body).toMatchObject({ audience: 'api://two', tenantId: null });

    expect((await owner.call('DELETE', `${base}/${id}`, undefined, { 'if-match': etag })).status).toBe(412);
    expect((await owner.call('DELETE', `${base}/${id}`, undefined, { 'if-match': patch.headers.get('etag')! })).status).toBe(204);
    expect((await owner.call('GET', `${base}/${id}`)).status).toBe(404);
  });

  it('bad input is 400; a tenant of another organization or unknown ids 404', async () => {
    const { owner, organization } = await newOrganization(server);
    const base = `/organizations/${organization.id}/identity-providers`;
    const bad = [
      {},
      { audience: 'a', jwksUri: issuer.jwksUri },
      trustOf({ issuer: 'not a url' }),
      trustOf({ issuer: 'ftp://issuer.example' }),
      trustOf({ issuer: '/relative' }),
      trustOf({ issuer: ` ${issuer.issuer}` }),
      trustOf({ jwksUri: 'file:///etc/passwd' }),
      trustOf({ jwksUri: 'javascript:alert(1)' }),
      trustOf({ issuer: `https://x.example/${'a'.repeat(2000)}` }),
      trustOf({ audience: '' }),
      trustOf({ audience: 'a'.repeat(501) }),
      trustOf({ rolesClaim: '' }),
      trustOf({ rolesClaim: 'roles.' }),
      trustOf({ rolesClaim: '.roles' }),
      trustOf({ rolesClaim: 'realm access.roles' }),
      trustOf({ rolesClaim: 'roles[0]' }),
      trustOf({ tenantId: 'nope' }),
      trustOf({ extra: 1 }),
      trustOf({ issuer: 5 }),
      [],
    ];
    for (const body of bad) {
      const res = await owner.call('POST', base, body);
      expect([400, 404], JSON.stringify(body).slice(0, 100)).toContain(res.status);
      if (!(typeof body === 'object' && 'tenantId' in body)) expect(res.status, JSON.stringify(body).slice(0, 100)).toBe(400);
    }
    const elsewhere = await newOrganization(server);
    const foreignTenant = await newTenant(elsewhere.organization.id);
    expect((await owner.call('POST', base, trustOf({ tenantId: foreignTenant.id }))).status).toBe(404);
    expect((await owner.call('POST', base, trustOf({ tenantId: UNKNOWN }))).status).toBe(404);
    expect((await owner.call('GET', base)).body.result).toEqual([]);

    const { id } = (await owner.call('POST', base, trustOf({ audience: 'x' }))).body;
    for (const body of [{ issuer: null }, { audience: null }, { rolesClaim: null }, { jwksUri: 'nope' }]) {
      expect((await owner.call('PATCH', `${base}/${id}`, body)).status, JSON.stringify(body)).toBe(400);
    }
    expect((await owner.call('PATCH', `${base}/${id}`, { tenantId: foreignTenant.id })).status).toBe(404);
    expect((await owner.call('PUT', `${base}/${id}`, { issuer: issuer.issuer })).status).toBe(400);
    for (const other of ['nope', UNKNOWN]) {
      expect((await owner.call('GET', `${base}/${other}`)).status).toBe(404);
      expect((await owner.call('PUT', `${base}/${other}`, trustOf())).status).toBe(404);
      expect((await owner.call('DELETE', `${base}/${other}`)).status).toBe(404);
    }
    const theirs = (await elsewhere.owner.call('POST', `/organizations/${elsewhere.organization.id}/identity-providers`, trustOf({ audience: 'x' }))).body.id;
    expect((await owner.call('GET', `${base}/${theirs}`)).status).toBe(404);
    expect((await owner.call('DELETE', `${base}/${theirs}`)).status).toBe(404);
    expect((await owner.call('GET', `${base}?limit=0`)).status).toBe(400);
  });

  it('a browser sign-in for the admin console: signInClientId and signInName through POST, PUT and PATCH', async () => {
    const { owner, organization } = await newOrganization(server);
    const base = `/organizations/${organization.id}/identity-providers`;
    const created = await owner.call('POST', base, trustOf({ audience: 'sign-in', signInClientId: 'admin-console', signInName: 'Example SSO' }));
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ signInClientId: 'admin-console', signInName: 'Example SSO' });
    const id = created.body.id;
    // PATCH changes what it is given; null clears the name (the console shows the issuer's host then).
    const renamed = await owner.call('PATCH', `${base}/${id}`, { signInName: null }, { 'if-match': created.headers.get('etag')! });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ signInClientId: 'admin-console', signInName: null, audience: 'sign-in' });
    // PUT replaces: the sign-in fields not given are gone.
    const put = await owner.call('PUT', `${base}/${id}`, trustOf({ audience: 'sign-in' }));
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ signInClientId: null, signInName: null });
    const again = await owner.call('PATCH', `${base}/${id}`, { signInClientId: 'console-2' });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ signInClientId: 'console-2', signInName: null });
    expect((await owner.call('PATCH', `${base}/${id}`, { signInClientId: null })).body.signInClientId).toBeNull();
    // Without them at creation: none.
    expect((await owner.call('POST', base, trustOf({ audience: 'plain' }))).body).toMatchObject({ signInClientId: null, signInName: null });
    // GraphQL says the same.
    const res = await fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: { authorization: `Bearer ${owner.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        query: 'mutation($o: ID!, $i: ID!) { updateIdentityProvider(organizationId: $o, identityProviderId: $i, input: { signInName: "Via GraphQL" }) { signInClientId signInName } }',
        variables: { o: organization.id, i: id },
      }),
    });
    expect(await res.json()).toEqual({ data: { updateIdentityProvider: { signInClientId: null, signInName: 'Via GraphQL' } } });
  });

  it('bad sign-in fields are 400 and change nothing', async () => {
    const { owner, organization } = await newOrganization(server);
    const base = `/organizations/${organization.id}/identity-providers`;
    const bad = [
      { signInClientId: '' },
      { signInClientId: '   ' },
      { signInClientId: ' padded' },
      { signInClientId: 'a'.repeat(201) },
      { signInClientId: 'line\nbreak' },
      { signInClientId: 5 },
      { signInClientId: ['x'] },
      { signInName: '' },
      { signInName: 'a'.repeat(101) },
      { signInName: 'tab\there' },
      { signInName: 'trailing ' },
      { signInName: true },
    ];
    for (const extra of bad) {
      const res = await owner.call('POST', base, trustOf({ audience: 'bad', signInClientId: 'ok', ...extra }));
      expect(res.status, JSON.stringify(extra)).toBe(400);
      if (typeof Object.values(extra)[0] === 'string') expect(res.body.messages[0].text, JSON.stringify(extra)).toMatch(/signIn(ClientId|Name)/);
    }
    expect((await owner.call('GET', base)).body.result).toEqual([]);
    // The longest allowed are taken.
    const longest = await owner.call('POST', base, trustOf({ audience: 'bad', signInClientId: 'c'.repeat(200), signInName: 'n'.repeat(100) }));
    expect(longest.status).toBe(201);
    for (const extra of bad) {
      expect((await owner.call('PATCH', `${base}/${longest.body.id}`, extra)).status, JSON.stringify(extra)).toBe(400);
      expect((await owner.call('PUT', `${base}/${longest.body.id}`, trustOf({ audience: 'bad', ...extra }))).status, JSON.stringify(extra)).toBe(400);
    }
    expect((await owner.call('GET', `${base}/${longest.body.id}`)).body).toEqual(longest.body);
    // Test servers share a database: the console's sign-in page of other tests is not to list it.
    expect((await owner.call('DELETE', `${base}/${longest.body.id}`)).status).toBe(204);
  });

  it("the organization's sign-in page of the admin console lists its providers with a sign-in client id at once, and no longer once deleted or turned off; no other page lists them", async () => {
    const { owner, organization } = await newOrganization(server);
    const base = `/organizations/${organization.id}/identity-providers`;
    const providers = async (organizationId: string | null = organization.id) => {
      const res = await fetch(`${server.url}/admin/config.js${organizationId ? `?organization=${organizationId}` : ''}`);
      const text = await res.text();
      return JSON.parse(/^window\.ADMIN_CONFIG = (.*);\n$/s.exec(text)![1]).providers as { id: string; issuer: string; clientId: string; name: string }[];
    };
    const csp = async (organizationId: string | null = organization.id) =>
      (await fetch(`${server.url}/admin${organizationId ? `?organization=${organizationId}` : ''}`)).headers.get('content-security-policy')!;
    // Distinct issuers (the same host and port, another path), so that other tests' providers do not interfere.
    const issuerUrl = `${issuer.issuer}/${randomBytes(4).toString('hex')}`;
    const otherIssuer = `http://localhost:${new URL(issuer.issuer).port}/${randomBytes(4).toString('hex')}`;
    const named = await owner.call('POST', base, trustOf({ issuer: issuerUrl, audience: 'console', signInClientId: 'console-a', signInName: 'Factory SSO' }));
    const unnamed = await owner.call('POST', base, trustOf({ issuer: otherIssuer, audience: 'console', signInClientId: 'console-b' }));
    const without = await owner.call('POST', base, trustOf({ audience: 'console' }));
    const listed = await providers();
    expect(listed).toContainEqual({ id: named.body.id, issuer: issuerUrl, clientId: 'console-a', name: 'Factory SSO' });
    // No name: the issuer's host.
    expect(listed).toContainEqual({ id: unnamed.body.id, issuer: otherIssuer, clientId: 'console-b', name: new URL(otherIssuer).host });
    expect(listed.map((p) => p.id)).not.toContain(without.body.id);
    // The browser may reach their origins (discovery and token endpoint) from the console's page.
    expect(await csp()).toMatch(new RegExp(`connect-src [^;]*${new URL(otherIssuer).origin.replace(/[.]/g, '\\.')}`));
    // The console's plain page and another organization's page offer none of them: no organization puts a button
    // on the page the users of another one sign in at.
    const other = await newOrganization(server);
    for (const page of [null, other.organization.id]) {
      expect((await providers(page)).map((p) => p.id), String(page)).toEqual([]);
      expect(await csp(page)).not.toContain(new URL(otherIssuer).origin);
    }
    // Back from a provider at the fixed /admin/callback: the sign-in's state names the organization, so the page may
    // exchange the code at its provider; another path with that state gets nothing.
    const callback = await fetch(`${server.url}/admin/callback?code=c&state=${organization.id}.abc`);
    expect(callback.headers.get('content-security-policy')).toContain(new URL(otherIssuer).origin);
    expect((await fetch(`${server.url}/admin/org?state=${organization.id}.abc`)).headers.get('content-security-policy')).not.toContain(new URL(otherIssuer).origin);
    // What is not an organization id is no organization: the plain page, not an error.
    expect(await providers('not-a-uuid')).toEqual([]);
    expect((await fetch(`${server.url}/admin?organization=%27%3E%3Cscript%3E`)).status).toBe(200);
    expect(await (await fetch(`${server.url}/admin?organization=%27%3E%3Cscript%3E`)).text()).toContain('<script src="/admin/config.js"></script>');

    // Turned off, deleted: gone on the next page load.
    await owner.call('PATCH', `${base}/${named.body.id}`, { signInClientId: null });
    await owner.call('DELETE', `${base}/${unnamed.body.id}`);
    const after = (await providers()).map((p) => p.id);
    expect(after).not.toContain(named.body.id);
    expect(after).not.toContain(unnamed.body.id);
    expect(await csp()).not.toContain(new URL(otherIssuer).origin);
  });

  it("the admin console's page still loads, with the built-in sign-in only, when the identity providers cannot be read", async () => {
    const federation = server.services.federation;
    const original = federation.signInProviders;
    federation.signInProviders = () => Promise.reject(new Error('database unavailable'));
    const organizationId = randomUUID();
    try {
      expect((await fetch(`${server.url}/admin?organization=${organizationId}`)).status).toBe(200);
      const config = await fetch(`${server.url}/admin/config.js?organization=${organizationId}`);
      expect(config.status).toBe(200);
      expect(await config.text()).toContain('"providers":[]');
    } finally {
      federation.signInProviders = original;
    }
  });

  it('who may: strangers 404, readers read but do not write (403), no token 401', async () => {
    const { owner, organization } = await newOrganization(server);
    const base = `/organizations/${organization.id}/identity-providers`;
    const { id } = (await owner.call('POST', base, trustOf({ audience: 'who' }))).body;
    const stranger = managementClient(server, await (await newUser(server)).token());
    const reader = await clientWithRole(server, organization.id, 'reader');
    const anonymous = managementClient(server, null);
    const writes: [string, string, unknown?][] = [
      ['POST', base, trustOf()],
      ['PUT', `${base}/${id}`, trustOf()],
      ['PATCH', `${base}/${id}`, { audience: 'x' }],
      ['DELETE', `${base}/${id}`],
    ];
    const reads: [string, string][] = [
      ['GET', base],
      ['GET', `${base}/${id}`],
    ];
    for (const [method, path, body] of [...writes, ...reads]) {
      expect((await stranger.call(method, path, body)).status, `${method} ${path}`).toBe(404);
      expect((await anonymous.call(method, path, body)).status, `${method} ${path}`).toBe(401);
    }
    for (const [method, path, body] of writes) expect((await reader.call(method, path, body)).status, `${method} ${path}`).toBe(403);
    for (const [method, path] of reads) expect((await reader.call(method, path)).status, `${method} ${path}`).toBe(200);
  });
});

describe('JWKS URLs on private networks (FEDERATION_PRIVATE_NETWORKS off, as in production)', () => {
  it('are refused when set (400 saying why) and never fetched when stored anyway', async () => {
    const guarded = await startTestServer(inject('databaseUrl'), { auth: { ...testAuth, federationPrivateNetworks: false } });
    try {
      const { owner, organization } = await newOrganization(guarded);
      const path = `/organizations/${organization.id}/identity-providers`;
      for (const jwksUri of [
        issuer.jwksUri, // http, loopback
        'https://127.0.0.1/jwks',
        'https://localhost/jwks',
        'https://[::1]/jwks',
        'https://[::ffff:10.0.0.1]/jwks',
        'https://[::127.0.0.1]/jwks',
        'https://[2002:7f00:1::]/jwks',
        'https://[64:ff9b::7f00:1]/jwks',
        'https://[fd00::1]/jwks',
        'https://169.254.169.254/latest/meta-data',
        'https://10.1.2.3/jwks',
        'https://192.168.1.1/jwks',
        'https://no-such-host.invalid/jwks',
      ]) {
        const res = await owner.call('POST', path, trustOf({ jwksUri }));
        expect(res.status, jwksUri).toBe(400);
        expect(res.body.messages[0].text).toMatch(/jwksUri/);
      }
      // A trust already stored with such a URL (made before, or by SQL): its keys are not fetched, its tokens refused.
      const tenant = await guarded.createTenant({ showcase: false });
      await guarded.trust(issuer, tenant.organizationId);
      const before = issuer.jwksRequests();
      expect((await fetch(`${guarded.api(tenant.name)}/shells`, { headers: { authorization: `Bearer ${issuer.sign({ roles: ['reader'] })}` } })).status).toBe(401);
      expect(issuer.jwksRequests()).toBe(before);
    } finally {
      await guarded.close();
    }
  });
});
