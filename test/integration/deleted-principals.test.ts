import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { TenantEntity } from '../../src/management/tenants/tenant.entity';
import { OrganizationUserEntity } from '../../src/management/users/organization-user.entity';
import { assignRole, graphql } from '../support/grants';
import { TestUser, newServiceAccount, newUser, userToken } from '../support/identity';
import { managementClient, newOrganization } from '../support/management';
import { TestServer, b64, sampleShell, startTestServer } from '../support/server';

/**
 * A valid token whose principal is gone (a deleted service account, a deleted identity account, a user removed from
 * its last organization since the token was issued) authenticates nowhere: 401 with a Result on REST (the
 * Management API, /me, the tenant API and its hot reads), UNAUTHENTICATED on GraphQL. Roles are read on every
 * request, with the principal's existence in the same query: the next request after the change is refused.
 */

let server: TestServer;
let organizationId: string;
let tenant: TenantEntity;
const shellId = `urn:deleted-principals:${randomBytes(4).toString('hex')}`;

beforeAll(async () => {
  server = await startTestServer(inject('databaseUrl'));
  const { owner, organization } = await newOrganization(server);
  organizationId = organization.id;
  tenant = await server.services.tenants.create({ organizationId, name: `dp-${randomBytes(5).toString('hex')}`, showcase: false, eventsEnabled: false });
  const created = await fetch(`${server.api(tenant.name)}/shells`, {
    method: 'POST',
    headers: { authorization: `Bearer ${owner.token}`, 'content-type': 'application/json' },
    body: JSON.stringify(sampleShell(shellId)),
  });
  expect(created.status).toBe(201);
});
afterAll(() => server?.close());

const get = (url: string, token: string) => fetch(url, { headers: { authorization: `Bearer ${token}` } });

/** The tenant API (a page, and the shell by id, answered from the read cache once read), /me and the Management API. */
async function answers(token: string): Promise<Record<string, Response>> {
  const api = server.api(tenant.name);
  return {
    me: await get(`${server.url}/api/v1/me`, token),
    rootMe: await get(`${server.url}/me`, token),
    organizations: await get(`${server.url}/api/v1/organizations`, token),
    shells: await get(`${api}/shells`, token),
    shell: await get(`${api}/shells/${b64(shellId)}`, token),
  };
}

async function expectAccepted(token: string): Promise<void> {
  const all = await answers(token);
  for (const [what, res] of Object.entries(all)) expect(res.status, what).toBe(200);
  // Twice: the second read of the shell is a hot read (rest-facade/hot-reads.ts).
  expect((await get(`${server.api(tenant.name)}/shells/${b64(shellId)}`, token)).status).toBe(200);
}

async function expectRefusedEverywhere(token: string): Promise<void> {
  const all = await answers(token);
  for (const [what, res] of Object.entries(all)) {
    expect(res.status, what).toBe(401);
    expect(res.headers.get('www-authenticate'), what).toMatch(/^Bearer/);
    const body = await res.json();
    expect(body, what).toMatchObject({ messages: [{ code: '401', messageType: 'Error', text: expect.stringMatching(/no longer valid/) }] });
  }
  const viaGraphql = await graphql(server, token, '{ me { principal { id } } }');
  expect(viaGraphql.body.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
  expect(viaGraphql.body.data ?? null).toBeNull();
  const tenantField = await graphql(server, token, 'query($t: String!) { shells(tenant: $t, limit: 1) { result { id } } }', { t: tenant.name });
  expect(tenantField.body.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
}

/** A user of the organization (accepted an invitation) with `role` organization-wide. */
async function memberOf(orgId: string, user: TestUser, role: 'reader' | 'contributor' = 'reader'): Promise<void> {
  await server.dataSource.manager.insert(OrganizationUserEntity, { organizationId: orgId, accountId: user.id });
  await assignRole(server, orgId, { type: 'user', id: user.id }, role);
}

describe('a token whose principal is gone', () => {
  it('of a deleted service account: 401 everywhere', async () => {
    const sa = await newServiceAccount(server, organizationId);
    await assignRole(server, organizationId, { type: 'service-account', id: sa.id }, 'reader', tenant.id);
    const token = await sa.token();
    await expectAccepted(token);
    expect(await server.services.serviceAccounts.delete(organizationId, sa.id, null)).toBe(true);
    await expectRefusedEverywhere(token);
  });

  it('of a deleted identity account: 401 everywhere', async () => {
    const user = await newUser(server);
    await memberOf(organizationId, user);
    const token = await user.token();
    await expectAccepted(token);
    await server.dataSource.query('DELETE FROM accounts WHERE id = $1', [user.id]);
    await expectRefusedEverywhere(token);
  });

  it('of a user removed from its last organization: 401 everywhere; a new login is a newcomer\'s', async () => {
    const user = await newUser(server);
    const other = await newOrganization(server, 'another organization');
    await memberOf(organizationId, user);
    await memberOf(other.organization.id, user);
    const token = await user.token();
    await expectAccepted(token);
    // Out of one organization, still in another: the token still counts.
    await server.services.users.remove(other.organization.id, user.id);
    await expectAccepted(token);
    await server.services.users.remove(organizationId, user.id);
    await expectRefusedEverywhere(token);
    // Logged in again, the account is one without an organization: it may look at itself and create one.
    // (A token of the same second as the removal is refused too: iat counts whole seconds.)
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    const again = managementClient(server, await userToken(server, user.email, user.password));
    const me = await again.call('GET', '/me');
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ principal: { id: user.id }, organizations: [], tenants: [] });
    expect((await get(`${server.api(tenant.name)}/shells`, again.token)).status).toBe(404);
    expect((await again.call('POST', '/organizations', { name: 'a new start' })).status).toBe(201);
  });

  it('of a user that never had an organization is no such token: a newcomer\'s works', async () => {
    const user = await newUser(server);
    const newcomer = managementClient(server, await user.token());
    expect((await newcomer.call('GET', '/me')).status).toBe(200);
    expect((await newcomer.call('POST', '/organizations', { name: 'first' })).status).toBe(201);
  });
});
