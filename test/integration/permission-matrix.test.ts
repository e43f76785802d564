import { createPrivateKey, createPublicKey } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { GroupMemberEntity } from '../../src/management/user-groups/group-member.entity';
import { UserGroupEntity } from '../../src/management/user-groups/user-group.entity';
import { newServiceAccount, newUser } from '../support/identity';
import { managementClient, newOrganization } from '../support/management';
import { TestServer, sampleShell, startTestServer } from '../support/server';
import { TestIssuer, startTestIssuer } from '../support/tokens';

/**
 * The permission matrix of issue 8: callers × actions, with the expected status in every cell. Roles come from
 * role assignments made through the Management API (direct, per tenant, through a group), and tokens from the
 * built-in identity service; the bad tokens are forged or altered the ways attackers try.
 */

type Caller =
  | 'owner'
  | 'org contributor'
  | 'org reader'
  | 'tenant contributor'
  | 'tenant reader'
  | 'group member'
  | 'service account'
  | 'stranger'
  | 'no token'
  | 'expired token'
  | 'untrusted issuer'
  | 'wrong audience'
  | 'alg none'
  | 'HS256 with public key';

type Action = 'management write' | 'management read' | 'tenant read' | 'tenant write' | 'GraphQL tenant read' | 'other organization';

/** Expected statuses. Members without the owner role are refused management writes (403); who holds no role is told nothing (404); bad tokens are 401. */
const EXPECTED: Record<Caller, Record<Action, number>> = {
  owner: { 'management write': 201, 'management read': 200, 'tenant read': 200, 'tenant write': 201, 'GraphQL tenant read': 200, 'other organization': 404 },
  'org contributor': { 'management write': 403, 'management read': 200, 'tenant read': 200, 'tenant write': 201, 'GraphQL tenant read': 200, 'other organization': 404 },
  'org reader': { 'management write': 403, 'management read': 200, 'tenant read': 200, 'tenant write': 403, 'GraphQL tenant read': 200, 'other organization': 404 },
  'tenant contributor': { 'management write': 403, 'management read': 403, 'tenant read': 200, 'tenant write': 201, 'GraphQL tenant read': 200, 'other organization': 404 },
  'tenant reader': { 'management write': 403, 'management read': 403, 'tenant read': 200, 'tenant write': 403, 'GraphQL tenant read': 200, 'other organization': 404 },
  'group member': { 'management write': 403, 'management read': 403, 'tenant read': 200, 'tenant write': 201, 'GraphQL tenant read': 200, 'other organization': 404 },
  'service account': { 'management write': 403, 'management read': 200, 'tenant read': 200, 'tenant write': 201, 'GraphQL tenant read': 200, 'other organization': 404 },
  stranger: { 'management write': 404, 'management read': 404, 'tenant read': 404, 'tenant write': 404, 'GraphQL tenant read': 404, 'other organization': 404 },
  'no token': { 'management write': 401, 'management read': 401, 'tenant read': 401, 'tenant write': 401, 'GraphQL tenant read': 401, 'other organization': 401 },
  'expired token': { 'management write': 401, 'management read': 401, 'tenant read': 401, 'tenant write': 401, 'GraphQL tenant read': 401, 'other organization': 401 },
  'untrusted issuer': { 'management write': 401, 'management read': 401, 'tenant read': 401, 'tenant write': 401, 'GraphQL tenant read': 401, 'other organization': 401 },
  'wrong audience': { 'management write': 401, 'management read': 401, 'tenant read': 401, 'tenant write': 401, 'GraphQL tenant read': 401, 'other organization': 401 },
  'alg none': { 'management write': 401, 'management read': 401, 'tenant read': 401, 'tenant write': 401, 'GraphQL tenant read': 401, 'other organization': 401 },
  'HS256 with public key': { 'management write': 401, 'management read': 401, 'tenant read': 401, 'tenant write': 401, 'GraphQL tenant read': 401, 'other organization': 401 },
};

const GRAPHQL_STATUS: Record<string, number> = { UNAUTHENTICATED: 401, FORBIDDEN: 403, NOT_FOUND: 404 };

let server: TestServer;
let untrusted: TestIssuer;
const tokens = new Map<Caller, string | null>();
let organizationId: string;
let tenantName: string;
let otherTenantName: string;
let shellCounter = 0;

beforeAll(async () => {
  server = await startTestServer(inject('databaseUrl'));
  untrusted = await startTestIssuer();
  const { owner, organization } = await newOrganization(server, 'matrix');
  organizationId = organization.id;
  const tenant = (await owner.call('POST', `/organizations/${organizationId}/tenants`, { name: `matrix-${Date.now().toString(36)}` })).body;
  tenantName = tenant.name;
  const other = await newOrganization(server, 'other');
  otherTenantName = (await other.owner.call('POST', `/organizations/${other.organization.id}/tenants`, { name: `matrix-other-${Date.now().toString(36)}` })).body.name;

  /** A user who joined the organization and got `role` (organization-wide, or on the tenant). */
  const joined = async (role: string | null, scope: 'organization' | 'tenant') => {
    const user = await newUser(server);
    const client = managementClient(server, await user.token());
    const invitation = await owner.call('POST', `/organizations/${organizationId}/users/invite`, { accountId: user.id });
    expect((await client.call('POST', `/invitations/${invitation.body.id}/accept`)).status).toBe(200);
    if (role) {
      const path = scope === 'organization' ? `/organizations/${organizationId}/role-assignments` : `/organizations/${organizationId}/cloud/${tenant.id}/role-assignments`;
      expect((await owner.call('POST', path, { role, principalType: 'user', principalId: user.id })).status).toBe(201);
    }
    return { user, token: client.token };
  };

  tokens.set('owner', owner.token);
  tokens.set('org contributor', (await joined('contributor', 'organization')).token);
  tokens.set('org reader', (await joined('reader', 'organization')).token);
  tokens.set('tenant contributor', (await joined('contributor', 'tenant')).token);
  tokens.set('tenant reader', (await joined('reader', 'tenant')).token);

  // A member of a group that holds contributor on the tenant.
  const grouped = await joined(null, 'tenant');
  const group = await server.dataSource.manager.save(server.dataSource.manager.create(UserGroupEntity, { organizationId, name: 'group@matrix' }));
  await server.dataSource.manager.insert(GroupMemberEntity, { groupId: group.id, principalType: 'user', principalId: grouped.user.id });
  expect((await owner.call('POST', `/organizations/${organizationId}/cloud/${tenant.id}/role-assignments`, { role: 'contributor', principalType: 'group', principalId: group.id })).status).toBe(201);
  tokens.set('group member', grouped.token);

  // A service account with contributor organization-wide (client credentials).
  const sa = await newServiceAccount(server, organizationId);
  expect((await owner.call('POST', `/organizations/${organizationId}/role-assignments`, { role: 'contributor', principalType: 'service-account', principalId: sa.id })).status).toBe(201);
  tokens.set('service account', await sa.token());

  tokens.set('stranger', await (await newUser(server)).token());
  tokens.set('no token', null);

  // Bad tokens: built from a real token of the built-in issuer, re-signed or altered.
  const real = jwt.decode(owner.token, { complete: true }) as { header: jwt.JwtHeader; payload: jwt.JwtPayload };
  const claims = { ...real.payload };
  delete claims.exp;
  delete claims.iat;
  const [key] = await server.dataSource.query('SELECT kid, private_jwk FROM signing_keys WHERE kid = $1', [real.header.kid]);
  const privateKey = createPrivateKey({ key: key.private_jwk, format: 'jwk' });
  const publicPem = createPublicKey(privateKey).export({ type: 'spki', format: 'pem' });
  const now = Math.floor(Date.now() / 1000);
  tokens.set('expired token', jwt.sign({ ...claims, iat: now - 7200, exp: now - 3600 }, privateKey, { algorithm: 'RS256', keyid: key.kid }));
  tokens.set('wrong audience', jwt.sign({ ...claims, aud: 'someone-else' }, privateKey, { algorithm: 'RS256', keyid: key.kid, expiresIn: 300 }));
  tokens.set('alg none', jwt.sign(claims, '', { algorithm: 'none', expiresIn: 300 } as jwt.SignOptions));
  tokens.set('HS256 with public key', jwt.sign(claims, publicPem, { algorithm: 'HS256', keyid: key.kid, expiresIn: 300 }));
  // A well-formed token of an issuer nobody trusts, naming the owner.
  tokens.set('untrusted issuer', untrusted.sign({ roles: ['contributor'] }, { subject: real.payload.sub! }));
  // The re-signed bad tokens really are only bad for the reason named: the same claims, signed right, work.
  const control = jwt.sign(claims, privateKey, { algorithm: 'RS256', keyid: key.kid, expiresIn: 300 });
  expect((await fetch(`${server.api(tenantName)}/shells`, { headers: { authorization: `Bearer ${control}` } })).status).toBe(200);
});
afterAll(async () => {
  await server?.close();
  await untrusted?.close();
});

async function perform(action: Action, token: string | null): Promise<number> {
  const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
  const mgmt = managementClient(server, token);
  switch (action) {
    case 'management write':
      return (await mgmt.call('POST', `/organizations/${organizationId}/tenants`, { name: `mw-${Date.now().toString(36)}-${shellCounter++}` })).status;
    case 'management read':
      return (await mgmt.call('GET', `/organizations/${organizationId}/role-assignments`)).status;
    case 'tenant read':
      return (await fetch(`${server.api(tenantName)}/shells`, { headers })).status;
    case 'tenant write':
      return (
        await fetch(`${server.api(tenantName)}/shells`, {
          method: 'POST',
          headers: { ...headers, 'content-type': 'application/json' },
          body: JSON.stringify(sampleShell(`urn:matrix:${shellCounter++}:${Date.now()}`)),
        })
      ).status;
    case 'GraphQL tenant read': {
      const res = await fetch(`${server.url}/graphql`, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json' },
        body: JSON.stringify({ query: `{ shells(tenant: "${tenantName}") { result { id } } }` }),
      });
      const body = (await res.json()) as { errors?: { extensions?: { code?: string } }[] };
      return body.errors ? GRAPHQL_STATUS[body.errors[0].extensions?.code ?? ''] ?? 500 : 200;
    }
    case 'other organization':
      return (await fetch(`${server.api(otherTenantName)}/shells`, { headers })).status;
  }
}

describe('permission matrix: callers × actions', () => {
  for (const caller of Object.keys(EXPECTED) as Caller[]) {
    it(caller, async () => {
      const token = tokens.get(caller) ?? null;
      const got: Record<string, number> = {};
      for (const action of Object.keys(EXPECTED[caller]) as Action[]) got[action] = await perform(action, token);
      expect(got).toEqual(EXPECTED[caller]);
    });
  }
});
