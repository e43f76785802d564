import { randomBytes, randomUUID } from 'node:crypto';
import http from 'node:http';
import net from 'node:net';
import jwt from 'jsonwebtoken';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { hashSecret } from '../../src/auth/secret-hash';
import { AccountEntity } from '../../src/management/accounts/account.entity';
import { OrganizationEntity } from '../../src/management/organizations/organization.entity';
import { RoleAssignmentEntity } from '../../src/management/role-assignments/role-assignment.entity';
import { ServiceAccountSecretEntity } from '../../src/management/service-accounts/service-account-secret.entity';
import { ServiceAccountEntity } from '../../src/management/service-accounts/service-account.entity';
import { TenantEntity } from '../../src/management/tenants/tenant.entity';
import { OrganizationUserEntity } from '../../src/management/users/organization-user.entity';
import { clientCredentials, clientCredentialsToken, consoleAuthorizationUrl, newServiceAccount, newUser, openLoginPage, tokenRequest, userLogin, userToken } from '../support/identity';
import { databaseRelay } from '../support/db-relay';
import { TestServer, json, startTestServer, testAuth } from '../support/server';

const databaseUrl = () => inject('databaseUrl');
const baseAuth = testAuth;

let server: TestServer;
let tenant: TenantEntity;
/** Servers started by a test, closed at the end. */
const extra: TestServer[] = [];

beforeAll(async () => {
  // Many failing requests from one address here: the limit has its own servers below.
  server = await startTestServer(databaseUrl(), { auth: { ...baseAuth, failureLimit: 1000 } });
  tenant = await server.createTenant({ showcase: false });
});
afterAll(async () => {
  await Promise.all(extra.map((s) => s.close()));
  await server?.close();
});

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const decode = (token: string) => jwt.decode(token, { complete: true }) as { header: jwt.JwtHeader; payload: jwt.JwtPayload };
const unique = (prefix: string) => `${prefix}-${randomBytes(5).toString('hex')}@example.com`;

async function startExtra(overrides: Parameters<typeof startTestServer>[1] = {}): Promise<TestServer> {
  const started = await startTestServer(databaseUrl(), overrides);
  extra.push(started);
  return started;
}

/** A service account of the tenant's organization with these secrets (created here, as the Management API will). */
async function serviceAccount(organizationId: string, secrets: { expiresAt?: Date | null }[] = [{}]): Promise<{ id: string; secrets: string[] }> {
  const manager = server.dataSource.manager;
  const account = await manager.save(manager.create(ServiceAccountEntity, { organizationId, name: `sa-${randomBytes(3).toString('hex')}` }));
  const values: string[] = [];
  for (const s of secrets) {
    const value = randomBytes(32).toString('base64url');
    values.push(value);
    await manager.insert(ServiceAccountSecretEntity, { serviceAccountId: account.id, hash: await hashSecret(value), hint: value.slice(0, 4), expiresAt: s.expiresAt ?? null });
  }
  return { id: account.id, secrets: values };
}

async function assign(principalType: 'user' | 'service-account', principalId: string, role: 'reader' | 'contributor' | 'organization-owner', organizationId: string, tenantId: string | null) {
  const saved = await server.dataSource.manager.save(
    server.dataSource.manager.create(RoleAssignmentEntity, { organizationId, tenantId, role, principalType, principalId, createdBy: 'test' }),
  );
  return saved.id;
}


describe('discovery and keys', () => {
  it('serves the discovery document and the JWKS under {manage_url}/oidc', async () => {
    const res = await fetch(`${server.url}/oidc/.well-known/openid-configuration`);
    expect(res.status).toBe(200);
    const discovery = await json(res);
    expect(discovery).toMatchObject({
      issuer: `${server.url}/oidc`,
      token_endpoint: `${server.url}/oidc/token`,
      authorization_endpoint: `${server.url}/oidc/auth`,
      jwks_uri: `${server.url}/oidc/jwks`,
      code_challenge_methods_supported: ['S256'],
    });
    expect(discovery.grant_types_supported).toEqual(expect.arrayContaining(['client_credentials', 'authorization_code']));
    expect(discovery.token_endpoint_auth_methods_supported).toEqual(expect.arrayContaining(['client_secret_basic', 'client_secret_post']));
    const oauth = await fetch(`${server.url}/oidc/.well-known/oauth-authorization-server`);
    expect(oauth.status).toBe(200);

    const jwks = await json(fetch(`${server.url}/oidc/jwks`));
    expect(jwks.keys.length).toBeGreaterThanOrEqual(1);
    expect(jwks.keys.map((k: { kid: string }) => k.kid)).toContain(server.services.identity.publishedKids()[0]);
    for (const key of jwks.keys) {
      expect(key).toMatchObject({ kty: 'RSA', alg: 'RS256', use: 'sig' });
      // Public parts only.
      for (const secret of ['d', 'p', 'q', 'dp', 'dq', 'qi']) expect(key[secret]).toBeUndefined();
    }
  });
});

describe('client credentials', () => {
  it('issues a JWT for a service account that the tenant API accepts once it holds a role', async () => {
    const sa = await serviceAccount(tenant.organizationId);
    const res = await clientCredentials(server, sa.id, sa.secrets[0]);
    expect(res).toMatchObject({ token_type: 'Bearer', expires_in: baseAuth.tokenTtlSec, ext_expires_in: baseAuth.tokenTtlSec, scope: 'api_access' });
    const { header, payload } = decode(res.access_token);
    expect(header).toMatchObject({ alg: 'RS256', kid: server.services.identity.publishedKids()[0] });
    expect(payload).toMatchObject({ iss: `${server.url}/oidc`, aud: baseAuth.audience, sub: sa.id, client_id: sa.id, principal_type: 'service-account' });
    expect(payload.exp! - payload.iat!).toBe(baseAuth.tokenTtlSec);

    // A valid token, but no role yet: the tenant is not there for it.
    expect((await fetch(`${server.api(tenant.name)}/shells`, { headers: bearer(res.access_token) })).status).toBe(404);
    await assign('service-account', sa.id, 'reader', tenant.organizationId, tenant.id);
    expect((await fetch(`${server.api(tenant.name)}/shells`, { headers: bearer(res.access_token) })).status).toBe(200);
    expect((await fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...bearer(res.access_token) },
      body: JSON.stringify({ query: `{ tenant(tenant: "${tenant.name}") { name } }` }),
    }).then(json)).data).toEqual({ tenant: { name: tenant.name } });
  });

  it('takes the secret in Basic auth too, and an empty scope', async () => {
    const sa = await serviceAccount(tenant.organizationId);
    const basic = await clientCredentials(server, sa.id, sa.secrets[0], { basic: true });
    expect(decode(basic.access_token).payload.sub).toBe(sa.id);
    const unscoped = await clientCredentials(server, sa.id, sa.secrets[0], { scope: '' });
    expect(decode(unscoped.access_token).payload).toMatchObject({ sub: sa.id, principal_type: 'service-account' });
  });

  it('refuses a wrong secret with 401 invalid_client', async () => {
    const sa = await serviceAccount(tenant.organizationId);
    const res = await tokenRequest(server, { grant_type: 'client_credentials', client_id: sa.id, client_secret: 'wrong' });
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ error: 'invalid_client' });
    const basic = await tokenRequest(server, { grant_type: 'client_credentials' }, { authorization: `Basic ${Buffer.from(`${sa.id}:wrong`).toString('base64')}` });
    expect(basic.status).toBe(401);
    expect(basic.headers.get('www-authenticate')).toMatch(/^Basic/);
  });

  it('accepts each of two secrets, refuses an expired one', async () => {
    const sa = await serviceAccount(tenant.organizationId, [{}, { expiresAt: new Date(Date.now() + 3600_000) }, { expiresAt: new Date(Date.now() - 1000) }]);
    expect(decode(await clientCredentialsToken(server, sa.id, sa.secrets[0])).payload.sub).toBe(sa.id);
    expect(decode(await clientCredentialsToken(server, sa.id, sa.secrets[1])).payload.sub).toBe(sa.id);
    const expired = await tokenRequest(server, { grant_type: 'client_credentials', client_id: sa.id, client_secret: sa.secrets[2] });
    expect(expired.status).toBe(401);
    expect(await expired.json()).toMatchObject({ error: 'invalid_client' });
  });

  it('refuses scopes other than api_access', async () => {
    const sa = await serviceAccount(tenant.organizationId);
    const res = await tokenRequest(server, { grant_type: 'client_credentials', client_id: sa.id, client_secret: sa.secrets[0], scope: 'api_access admin' });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: 'invalid_scope' });
  });

  it('answers bad requests with OAuth errors, never 500', async () => {
    const sa = await serviceAccount(tenant.organizationId);
    const cases: [Record<string, string>, number, string][] = [
      [{}, 400, 'invalid_request'],
      [{ client_id: sa.id, client_secret: sa.secrets[0] }, 400, 'invalid_request'],
      [{ grant_type: 'password', client_id: sa.id, client_secret: sa.secrets[0], username: 'x', password: 'y' }, 400, 'unsupported_grant_type'],
      [{ grant_type: 'client_credentials' }, 400, 'invalid_request'],
      [{ grant_type: 'client_credentials', client_id: randomUUID(), client_secret: 'x' }, 401, 'invalid_client'],
      [{ grant_type: 'client_credentials', client_id: 'not-a-uuid', client_secret: 'x' }, 401, 'invalid_client'],
      [{ grant_type: 'client_credentials', client_id: sa.id.toUpperCase(), client_secret: sa.secrets[0] }, 401, 'invalid_client'],
      [{ grant_type: 'client_credentials', client_id: sa.id }, 401, 'invalid_client'],
      [{ grant_type: 'client_credentials', client_id: sa.id, client_secret: 'x'.repeat(5000) }, 401, 'invalid_client'],
      [{ grant_type: 'client_credentials', client_id: sa.id, client_secret: sa.secrets[0], resource: 'https://elsewhere.example.com' }, 400, 'invalid_target'],
      [{ grant_type: 'client_credentials', client_id: sa.id, client_secret: sa.secrets[0], resource: 'not a uri' }, 400, 'invalid_target'],
      [{ grant_type: 'authorization_code', client_id: 'console', code: 'nope', redirect_uri: 'https://x', code_verifier: 'x'.repeat(43) }, 400, 'invalid_grant'],
      [{ grant_type: 'authorization_code', client_id: sa.id, client_secret: sa.secrets[0], code: 'nope' }, 400, 'invalid_request'],
      [{ grant_type: 'authorization_code', client_id: sa.id, client_secret: sa.secrets[0], code: 'nope', redirect_uri: 'https://x', code_verifier: 'x'.repeat(43) }, 400, 'invalid_request'],
      [{ grant_type: 'client_credentials', client_id: 'console' }, 400, 'invalid_request'],
    ];
    for (const [form, status, error] of cases) {
      const res = await tokenRequest(server, form);
      const body = await res.json();
      expect({ form, status: res.status, body }).toMatchObject({ form, status, body: { error } });
    }
    // Not a form, a JSON body, a GET, an unknown path below /oidc.
    const asJson = await fetch(`${server.url}/oidc/token`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"grant_type":"client_credentials"}' });
    expect(asJson.status).toBe(400);
    const broken = await fetch(`${server.url}/oidc/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: '%%%&&=' });
    expect(broken.status).toBeLessThan(500);
    expect((await fetch(`${server.url}/oidc/token`)).status).toBe(404);
    expect((await fetch(`${server.url}/oidc/nothing-here`)).status).toBe(404);
    expect((await fetch(`${server.url}/oidc`)).status).toBe(404);
  });

  it('is the only way a secret is used: neither the secret nor its hash is logged', async () => {
    const lines: string[] = [];
    const pino = (await import('pino')).default;
    const logged = await startTestServer(databaseUrl(), { logLevel: 'debug' }, pino({ level: 'debug' }, { write: (line: string) => void lines.push(line) }));
    extra.push(logged);
    const sa = await serviceAccount(tenant.organizationId);
    await clientCredentialsToken(logged, sa.id, sa.secrets[0]);
    await tokenRequest(logged, { grant_type: 'client_credentials', client_id: sa.id, client_secret: `${sa.secrets[0]}x` });
    await fetch(`${logged.url}/oidc/token?client_secret=${sa.secrets[0]}`, { method: 'POST' });
    const all = lines.join('\n');
    expect(all).toContain('/oidc/token');
    expect(all).not.toContain(sa.secrets[0]);
    expect(all).not.toContain('scrypt$');
  });
});

describe('an unreachable database', () => {
  it('makes the token endpoint answer 503 with Retry-After, the JWKS still served, and recovers', async () => {
    const db = databaseRelay(databaseUrl());
    const viaRelay = await startTestServer(await db.start());
    try {
      const sa = await serviceAccount(tenant.organizationId);
      expect(decode(await clientCredentialsToken(viaRelay, sa.id, sa.secrets[0])).payload.sub).toBe(sa.id);
      await db.stop();
      const res = await tokenRequest(viaRelay, { grant_type: 'client_credentials', client_id: sa.id, client_secret: sa.secrets[0] });
      expect(res.status).toBe(503);
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(await res.json()).toMatchObject({ error: 'temporarily_unavailable' });
      expect((await fetch(`${viaRelay.url}/oidc/jwks`)).status).toBe(200);
      await db.start();
      let status = 0;
      for (let i = 0; i < 50 && status !== 200; i++) {
        status = (await tokenRequest(viaRelay, { grant_type: 'client_credentials', client_id: sa.id, client_secret: sa.secrets[0] })).status;
        if (status !== 200) await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(status).toBe(200);
    } finally {
      await viaRelay.close().catch(() => undefined);
      await db.stop().catch(() => undefined);
    }
  });
});

describe('failed client authentications', () => {
  it('answers 429 with Retry-After after 5 bad secrets of one client, before checking the secret', async () => {
    const limited = await startExtra();
    const sa = await serviceAccount(tenant.organizationId);
    for (let i = 0; i < 5; i++) {
      const res = await tokenRequest(limited, { grant_type: 'client_credentials', client_id: sa.id, client_secret: `wrong-${i}` });
      expect(res.status).toBe(401);
    }
    for (const secret of ['wrong', sa.secrets[0]]) {
      const res = await tokenRequest(limited, { grant_type: 'client_credentials', client_id: sa.id, client_secret: secret });
      expect(res.status).toBe(429);
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(Number(res.headers.get('retry-after'))).toBeLessThanOrEqual(60);
      expect(res.headers.get('content-type')).toMatch(/json/);
      expect(await res.json()).toMatchObject({ error: 'too_many_requests' });
    }
  });

  it('answers 429 to an address after 5 failed client authentications, whichever the clients', async () => {
    const limited = await startExtra();
    for (let i = 0; i < 5; i++) {
      const res = await tokenRequest(limited, { grant_type: 'client_credentials', client_id: randomUUID(), client_secret: 'x' });
      expect(res.status).toBe(401);
    }
    const sa = await serviceAccount(tenant.organizationId);
    const res = await tokenRequest(limited, { grant_type: 'client_credentials', client_id: sa.id, client_secret: sa.secrets[0] });
    expect(res.status).toBe(429);
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await res.json()).toMatchObject({ error: 'too_many_requests' });
  });
});

describe('interactive login (authorization code + PKCE)', () => {
  async function account(options: { mustChangePassword?: boolean } = {}) {
    const email = unique('user');
    const password = randomBytes(12).toString('base64url');
    if (options.mustChangePassword) {
      const manager = server.dataSource.manager;
      const saved = await manager.save(manager.create(AccountEntity, { email, displayName: null, passwordHash: await hashSecret(password), mustChangePassword: true }));
      return { id: saved.id, email, password };
    }
    const created = await server.services.accounts.signUp({ email, password, displayName: 'Test user' });
    return { id: created.id, email, password };
  }

  it('logs a registered user in; the token names the account and is accepted once it holds a role', async () => {
    const user = await account();
    const flow = await userLogin(server, user.email, user.password);
    const { header, payload } = decode(flow.accessToken);
    expect(header.alg).toBe('RS256');
    expect(payload).toMatchObject({ iss: `${server.url}/oidc`, aud: baseAuth.audience, sub: user.id, principal_type: 'user', client_id: 'console' });
    expect(flow.tokens).toMatchObject({ token_type: 'Bearer', expires_in: baseAuth.tokenTtlSec, ext_expires_in: baseAuth.tokenTtlSec });
    expect(decode(flow.idToken!).payload).toMatchObject({ sub: user.id, aud: 'console' });

    expect((await fetch(`${server.api(tenant.name)}/shells`, { headers: bearer(flow.accessToken) })).status).toBe(404);
    await assign('user', user.id, 'contributor', tenant.organizationId, null);
    expect((await fetch(`${server.api(tenant.name)}/shells`, { headers: bearer(flow.accessToken) })).status).toBe(200);

    // The GraphQL playground's client too.
    const graphiql = await userToken(server, user.email, user.password, { clientId: 'graphiql' });
    expect(decode(graphiql).payload).toMatchObject({ sub: user.id, client_id: 'graphiql', principal_type: 'user' });
  });

  it('makes an account with a one-time password choose its own before it continues', async () => {
    const user = await account({ mustChangePassword: true });
    await expect(userToken(server, user.email, user.password)).rejects.toThrow(/new password/);
    // Too short: the page says so and asks again.
    await expect(userToken(server, user.email, user.password, { newPassword: 'short' })).rejects.toThrow();
    const newPassword = randomBytes(16).toString('base64url');
    const token = await userToken(server, user.email, user.password, { newPassword });
    expect(decode(token).payload.sub).toBe(user.id);
    // From now on: the new password, no change asked; the one-time password is gone.
    expect(decode(await userToken(server, user.email, newPassword)).payload.sub).toBe(user.id);
    await expect(userToken(server, user.email, user.password)).rejects.toThrow(/login refused: 401/);
    const stored = await server.dataSource.manager.findOneByOrFail(AccountEntity, { id: user.id });
    expect(stored.mustChangePassword).toBe(false);
  });

  it('refuses a wrong password on the login page, and PKCE is required', async () => {
    const user = await account();
    await expect(userToken(server, user.email, 'not the password')).rejects.toThrow(/login refused: 401/);
    await expect(userToken(server, unique('nobody'), 'not the password')).rejects.toThrow(/login refused: 401/);

    // Without a code challenge, the console's authorization request is refused (redirected back with an error).
    const url = new URL(`${server.url}/oidc/auth`);
    const redirectUri = server.services.identity.clients[0].redirect_uris[0];
    url.search = new URLSearchParams({ client_id: 'console', response_type: 'code', redirect_uri: redirectUri, scope: 'openid api_access' }).toString();
    const res = await fetch(url, { redirect: 'manual' });
    expect(res.status).toBe(303);
    expect(new URL(res.headers.get('location')!).searchParams.get('error')).toBe('invalid_request');
  });

  it('shows a page of its own, with the fields email and password, and bad requests are 4xx pages', async () => {
    const url = consoleAuthorizationUrl(server);
    const redirectUri = server.services.identity.clients[0].redirect_uris[0];
    const res = await fetch(url, { redirect: 'manual' });
    expect(res.status).toBe(303);
    const page = new URL(res.headers.get('location')!, url).toString();
    expect(page).toMatch(/\/oidc\/interaction\//);
    const cookies = res.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ');
    const html = await fetch(page, { headers: { cookie: cookies } });
    expect(html.status).toBe(200);
    expect(html.headers.get('content-security-policy')).toContain("default-src 'none'");
    const text = await html.text();
    expect(text).toContain('name="email"');
    expect(text).toContain('name="password"');
    expect(text).toContain('type="submit"');
    expect(text).not.toMatch(/https?:\/\/(?!127\.0\.0\.1)/);

    // Without the interaction cookie, an unknown page, a wrong method, a form of another type, an empty login.
    expect((await fetch(page)).status).toBe(400);
    expect((await fetch(`${page}/nothing`, { headers: { cookie: cookies } })).status).toBe(404);
    expect((await fetch(`${page}/a/b`, { headers: { cookie: cookies } })).status).toBe(404);
    expect((await fetch(`${page}/login`, { headers: { cookie: cookies } })).status).toBe(405);
    expect((await fetch(`${page}/login`, { method: 'POST', headers: { cookie: cookies, 'content-type': 'application/json' }, body: '{}' })).status).toBe(415);
    expect((await fetch(`${page}/login`, { method: 'POST', headers: { cookie: cookies, 'content-type': 'application/x-www-form-urlencoded' }, body: '' })).status).toBe(400);
    expect((await fetch(`${page}/password`, { method: 'POST', headers: { cookie: cookies, 'content-type': 'application/x-www-form-urlencoded' }, body: 'newPassword=abcdefghijklmnop' })).status).toBe(400);
    expect((await fetch(`${server.url}/oidc/interaction/`, { headers: { cookie: cookies } })).status).toBe(404);

    // The authorization endpoint: an unknown client, a redirect URI not registered, no parameters.
    const badRequests: Record<string, string>[] = [
      { client_id: 'nobody', response_type: 'code', redirect_uri: redirectUri },
      { client_id: 'console', response_type: 'code', redirect_uri: 'https://evil.example.com/cb' },
      {},
      { client_id: randomUUID(), response_type: 'code' },
    ];
    for (const params of badRequests) {
      const bad = new URL(`${server.url}/oidc/auth`);
      bad.search = new URLSearchParams(params).toString();
      const answer = await fetch(bad, { redirect: 'manual', headers: { accept: 'text/html' } });
      expect(answer.status).toBe(400);
      expect(await answer.text()).not.toContain('fonts.googleapis');
    }
  });

  it('lets newcomers sign up on the login page when sign-up is on', async () => {
    const { page, cookies } = await openLoginPage(server);
    expect(await (await fetch(page, { headers: { cookie: cookies } })).text()).toContain('/signup');
    expect((await fetch(`${page}/signup`, { headers: { cookie: cookies } })).status).toBe(200);
    const form = (body: Record<string, string>) =>
      fetch(`${page}/signup`, { method: 'POST', redirect: 'manual', headers: { cookie: cookies, 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(body).toString() });
    expect((await form({ email: 'not-an-email', password: 'long enough password' })).status).toBe(400);
    expect((await form({ email: unique('short'), password: 'short' })).status).toBe(400);
    const email = unique('newcomer');
    const created = await form({ email, password: 'a long enough password', displayName: 'Newcomer' });
    expect(created.status).toBe(303);
    const account = await server.services.accounts.byEmail(email);
    expect(account).toMatchObject({ email, displayName: 'Newcomer', mustChangePassword: false });
    // The same email again is a conflict (checked through the service, as the page's flow is finished).
    await expect(server.services.accounts.signUp({ email: email.toUpperCase(), password: 'another long password' })).rejects.toMatchObject({ extensions: { code: 'CONFLICT' } });
    expect(decode(await userToken(server, email, 'a long enough password')).payload.sub).toBe(account!.id);
  });

  it('has no sign-up when it is switched off', async () => {
    const closed = await startExtra({ auth: { ...baseAuth, signupEnabled: false } });
    await expect(closed.services.accounts.signUp({ email: unique('closed'), password: 'a long enough password' })).rejects.toMatchObject({ extensions: { code: 'FORBIDDEN' } });
    const { page, cookies } = await openLoginPage(closed);
    expect(await (await fetch(page, { headers: { cookie: cookies } })).text()).not.toContain('/signup');
    expect((await fetch(`${page}/signup`, { headers: { cookie: cookies } })).status).toBe(404);
    const post = await fetch(`${page}/signup`, { method: 'POST', headers: { cookie: cookies, 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ email: unique('closed'), password: 'a long enough password' }).toString() });
    expect(post.status).toBe(404);
  });

  it('refuses a login for a while after repeated failures', async () => {
    const limited = await startExtra();
    const email = unique('limited');
    await limited.services.accounts.signUp({ email, password: 'the right password' });
    for (let i = 0; i < 5; i++) await expect(userToken(limited, email, `wrong password ${i}`)).rejects.toThrow(/401/);
    await expect(userToken(limited, email, 'the right password')).rejects.toThrow(/429/);
  });
});

describe('test support', () => {
  it('makes users and service accounts with real tokens', async () => {
    const user = await newUser(server);
    expect(decode(await user.token()).payload).toMatchObject({ sub: user.id, principal_type: 'user' });
    const sa = await newServiceAccount(server, tenant.organizationId);
    expect(decode(await sa.token()).payload).toMatchObject({ sub: sa.id, principal_type: 'service-account' });
  });
});

describe('behind a proxy', () => {
  it('works below a path prefix of MANAGE_URL that the proxy strips', async () => {
    let target = '';
    const proxy = http.createServer((req, res) => {
      const path = req.url!.startsWith('/manage/') ? req.url!.slice('/manage'.length) : req.url!;
      const upstream = http.request(`${target}${path}`, { method: req.method, headers: req.headers }, (answer) => {
        res.writeHead(answer.statusCode!, answer.headers);
        answer.pipe(res);
      });
      req.pipe(upstream);
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    const proxied = `http://127.0.0.1:${(proxy.address() as net.AddressInfo).port}/manage`;
    try {
      const behind = await startExtra({ manageUrl: proxied });
      target = behind.url;
      const discovery = await json(fetch(`${proxied}/oidc/.well-known/openid-configuration`));
      expect(discovery).toMatchObject({ issuer: `${proxied}/oidc`, token_endpoint: `${proxied}/oidc/token`, authorization_endpoint: `${proxied}/oidc/auth` });
      const user = await newUser(behind);
      const token = await userToken({ url: proxied, services: behind.services }, user.email, user.password);
      expect(decode(token).payload).toMatchObject({ iss: `${proxied}/oidc`, sub: user.id });
      // The tenant API of the server behind the proxy accepts it (same issuer).
      await assign('user', user.id, 'reader', tenant.organizationId, tenant.id);
      expect((await fetch(`${behind.api(tenant.name)}/shells`, { headers: bearer(token) })).status).toBe(200);
    } finally {
      proxy.closeAllConnections();
      await new Promise((resolve) => proxy.close(resolve));
    }
  });
});

describe('browser clients', () => {
  it('gives the GraphQL playground a login: the callback page, the issuer and client in its script', async () => {
    const callback = await fetch(`${server.url}/graphiql/callback?code=x&state=y`);
    expect(callback.status).toBe(200);
    expect(await callback.text()).toContain('id="login"');
    const script = await (await fetch(`${server.url}/graphiql/console.js`)).text();
    expect(script).toContain(JSON.stringify(server.services.identity.loginFor('graphiql')));
    expect(server.services.identity.loginFor('graphiql')).toEqual({ issuer: `${server.url}/oidc`, clientId: 'graphiql', redirectUri: `${server.url}/graphiql/callback` });
  });

  it('lets the browser clients call the token endpoint from their own origin only', async () => {
    const form = { grant_type: 'authorization_code', client_id: 'graphiql', code: 'nope', redirect_uri: `${server.url}/graphiql/callback`, code_verifier: 'x'.repeat(43) };
    const own = await tokenRequest(server, form, { origin: server.url });
    expect(own.headers.get('access-control-allow-origin')).toBe(server.url);
    expect(await own.json()).toMatchObject({ error: 'invalid_grant' });
    const foreign = await tokenRequest(server, form, { origin: 'https://evil.example.com' });
    expect(foreign.status).toBe(400);
    expect(foreign.headers.get('access-control-allow-origin')).toBeNull();
  });

  it("lets a page of the server's own origin (the REST console) get a service account's token, and no other origin", async () => {
    const tenant = await server.createTenant();
    const account = await newServiceAccount(server, tenant.organizationId);
    const form = { grant_type: 'client_credentials', scope: 'api_access', client_id: account.id, client_secret: account.secret };
    const own = await tokenRequest(server, form, { origin: server.url });
    expect(own.status).toBe(200);
    expect(own.headers.get('access-control-allow-origin')).toBe(server.url);
    const foreign = await tokenRequest(server, form, { origin: 'https://evil.example.com' });
    expect(foreign.status).toBe(400);
    expect(foreign.headers.get('access-control-allow-origin')).toBeNull();
  });
});

describe('accounts', () => {
  it('validates sign-ups', async () => {
    const accounts = server.services.accounts;
    await expect(accounts.signUp({ email: 'no email', password: 'a long enough password' })).rejects.toMatchObject({ extensions: { code: 'BAD_REQUEST' } });
    await expect(accounts.signUp({ email: '', password: 'a long enough password' })).rejects.toMatchObject({ extensions: { code: 'BAD_REQUEST' } });
    await expect(accounts.signUp({ email: unique('pw'), password: '11 chars!!!' })).rejects.toMatchObject({ extensions: { code: 'BAD_REQUEST' } });
    await expect(accounts.signUp({ email: unique('pw'), password: 'x'.repeat(2000) })).rejects.toMatchObject({ extensions: { code: 'BAD_REQUEST' } });
    await expect(accounts.signUp({ email: `${'x'.repeat(320)}@example.com`, password: 'a long enough password' })).rejects.toMatchObject({ extensions: { code: 'BAD_REQUEST' } });
    const email = unique('dup');
    const created = await accounts.signUp({ email, password: 'a long enough password' });
    expect(created).toMatchObject({ email, mustChangePassword: false });
    expect((created as { passwordHash?: string }).passwordHash).toBeUndefined();
    await expect(accounts.signUp({ email, password: 'a long enough password' })).rejects.toMatchObject({ extensions: { code: 'CONFLICT' } });
    expect(await accounts.verifyLogin(email, 'a long enough password')).toMatchObject({ id: created.id });
    expect(await accounts.verifyLogin(email, 'wrong')).toBeUndefined();
    expect(await accounts.byId('not-a-uuid')).toBeNull();
    await expect(accounts.changePassword(created.id, 'a long enough password')).rejects.toMatchObject({ extensions: { code: 'BAD_REQUEST' } });
    await expect(accounts.changePassword(created.id, 'another long password', { currentPassword: 'wrong' })).rejects.toMatchObject({ extensions: { code: 'BAD_REQUEST' } });
    await accounts.changePassword(created.id, 'another long password', { currentPassword: 'a long enough password' });
    expect(await accounts.verifyLogin(email, 'another long password')).toBeDefined();
  });
});

describe('signing keys', () => {
  it('survive a restart: another server on the same database verifies the tokens and publishes the keys', async () => {
    const sa = await serviceAccount(tenant.organizationId);
    await assign('service-account', sa.id, 'reader', tenant.organizationId, tenant.id);
    const token = await clientCredentialsToken(server, sa.id, sa.secrets[0]);
    // The same deployment (same manage URL, so the same issuer), started anew.
    const second = await startExtra({ manageUrl: server.url });
    expect((await fetch(`${second.api(tenant.name)}/shells`, { headers: bearer(token) })).status).toBe(200);
    const kids = (await json(fetch(`${second.url}/oidc/jwks`))).keys.map((k: { kid: string }) => k.kid);
    expect(kids).toContain(decode(token).header.kid);
    // And it signs with the same key.
    expect(decode(await clientCredentialsToken(second, sa.id, sa.secrets[0])).header.kid).toBe(decode(token).header.kid);
  });

  it('verifies its own tokens with RS256 whatever AUTH_ALGORITHMS allows external issuers, and refuses forgeries', async () => {
    const esOnly = await startExtra({ auth: { ...baseAuth, algorithms: ['ES256'] } });
    const sa = await serviceAccount(tenant.organizationId);
    await assign('service-account', sa.id, 'reader', tenant.organizationId, tenant.id);
    const token = await clientCredentialsToken(esOnly, sa.id, sa.secrets[0]);
    expect((await fetch(`${esOnly.api(tenant.name)}/shells`, { headers: bearer(token) })).status).toBe(200);

    // Forgeries with our issuer: HMAC with the published public key, no signature, a foreign key under our kid,
    // another principal type, a subject that is no uuid.
    const { payload, header } = decode(token);
    const claims = { ...payload };
    delete claims.iat;
    delete claims.exp;
    const jwk = (await json(fetch(`${server.url}/oidc/jwks`))).keys.find((k: { kid: string }) => k.kid === header.kid);
    const publicPem = (await import('node:crypto')).createPublicKey({ key: jwk, format: 'jwk' }).export({ type: 'spki', format: 'pem' });
    const { privateKey: foreign } = (await import('node:crypto')).generateKeyPairSync('rsa', { modulusLength: 2048 });
    const forgeries = [
      jwt.sign(claims, publicPem, { algorithm: 'HS256', keyid: header.kid, expiresIn: 300 }),
      jwt.sign(claims, '', { algorithm: 'none', expiresIn: 300 } as jwt.SignOptions),
      jwt.sign(claims, foreign, { algorithm: 'RS256', keyid: header.kid, expiresIn: 300 }),
    ];
    for (const forged of forgeries) expect((await fetch(`${esOnly.api(tenant.name)}/shells`, { headers: bearer(forged) })).status).toBe(401);
  });

  it('rotate: owners of the platform organization only; old tokens stay valid, new ones use the new key, the JWKS has both', async () => {
    const sa = await serviceAccount(tenant.organizationId);
    await assign('service-account', sa.id, 'reader', tenant.organizationId, tenant.id);
    const before = await clientCredentialsToken(server, sa.id, sa.secrets[0]);
    const oldKid = decode(before).header.kid!;
    const replica = await startExtra({ manageUrl: server.url });

    // An owner of the platform organization, logged in.
    const platform = await server.dataSource.manager.findOneByOrFail(OrganizationEntity, { platform: true });
    const email = unique('platform-owner');
    const owner = await server.services.accounts.signUp({ email, password: 'platform owner password' });
    await server.dataSource.manager.insert(OrganizationUserEntity, { organizationId: platform.id, accountId: owner.id });
    const assignment = await assign('user', owner.id, 'organization-owner', platform.id, null);
    try {
      const ownerToken = await userToken(server, email, 'platform owner password');
      const rotate = (headers: Record<string, string>) => fetch(`${server.url}/api/v1/identity/signing-keys/rotate`, { method: 'POST', headers });

      expect((await rotate({})).status).toBe(401);
      // A caller holding no role in the platform organization does not see the operation.
      expect((await rotate(bearer(before))).status).toBe(404);
      const res = await rotate(bearer(ownerToken));
      expect(res.status).toBe(200);
      const body = await json(res);
      expect(body).toMatchObject({ retiredKid: oldKid });
      expect(body.kid).not.toBe(oldKid);
      expect(Date.parse(body.retiredKeyPublishedUntil)).toBeGreaterThan(Date.now() + baseAuth.tokenTtlSec * 1000);

      const after = await clientCredentialsToken(server, sa.id, sa.secrets[0]);
      expect(decode(after).header.kid).toBe(body.kid);
      for (const token of [before, after]) {
        expect((await fetch(`${server.api(tenant.name)}/shells`, { headers: bearer(token) })).status).toBe(200);
      }
      const kids = (await json(fetch(`${server.url}/oidc/jwks`))).keys.map((k: { kid: string }) => k.kid);
      expect(kids[0]).toBe(body.kid);
      expect(kids).toContain(oldKid);

      // Another replica has not re-read the keys yet: a token with the new kid makes it do so at once.
      expect((await fetch(`${replica.api(tenant.name)}/shells`, { headers: bearer(after) })).status).toBe(200);
      expect((await fetch(`${replica.api(tenant.name)}/shells`, { headers: bearer(before) })).status).toBe(200);
      expect(decode(await clientCredentialsToken(replica, sa.id, sa.secrets[0])).header.kid).toBe(body.kid);

      // The GraphQL mutation, the same rule.
      const gql = (headers: Record<string, string>) =>
        fetch(`${server.url}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify({ query: 'mutation { rotateSigningKey { kid retiredKid } }' }) }).then(json);
      expect((await gql(bearer(after))).errors[0].extensions.code).toBe('NOT_FOUND');
      const rotated = await gql(bearer(ownerToken));
      expect(rotated.data.rotateSigningKey.retiredKid).toBe(body.kid);
      // Both earlier tokens still verify.
      expect((await fetch(`${server.api(tenant.name)}/shells`, { headers: bearer(before) })).status).toBe(200);
      expect((await fetch(`${server.api(tenant.name)}/shells`, { headers: bearer(after) })).status).toBe(200);
    } finally {
      await server.dataSource.manager.delete(RoleAssignmentEntity, { id: assignment });
      await server.dataSource.manager.delete(OrganizationUserEntity, { organizationId: platform.id, accountId: owner.id });
    }
  });
});
