import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { GroupMemberEntity } from '../../../src/management/user-groups/group-member.entity';
import { UserGroupEntity } from '../../../src/management/user-groups/user-group.entity';
import { newServiceAccount, newUser } from '../../support/identity';
import { ManagementClient, joinedMember, managementClient, newOrganization } from '../../support/management';
import { TestServer, startTestServer } from '../../support/server';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer(inject('databaseUrl'));
});
afterAll(() => server?.close());

const NIL = '00000000-0000-4000-8000-000000000000';

async function tenantOf(owner: ManagementClient, organizationId: string) {
  const res = await owner.call('POST', `/organizations/${organizationId}/tenants`, { name: `pr-${Math.random().toString(36).slice(2, 10)}` });
  expect(res.status).toBe(201);
  return res.body as { id: string; name: string };
}

async function graphql(token: string, query: string, variables: Record<string, unknown>) {
  const res = await fetch(`${server.url}/graphql`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ query, variables }),
  });
  return (await res.json()) as { data?: any; errors?: { message: string; extensions: { code: string } }[] };
}

const QUERY = `query ($o: ID!, $t: String!, $p: ID!) { principalRoles(organizationId: $o, principalType: $t, principalId: $p) {
  principalType principalId organizationId
  organizationRoles { role source via assignmentId groupId groupName identityProviderId }
  tenants { id name roles { role source via assignmentId groupId groupName } } } }`;

/** An organization with two tenants; a user in a group holding reader organization-wide and contributor on `a` itself; a service account contributor on `b`. */
async function setUp() {
  const { owner, organization, user: ownerUser } = await newOrganization(server, 'Principal Roles Org');
  const a = await tenantOf(owner, organization.id);
  const b = await tenantOf(owner, organization.id);
  const { user, client } = await joinedMember(server, owner, organization.id);
  const manager = server.dataSource.manager;
  const group = await manager.save(manager.create(UserGroupEntity, { organizationId: organization.id, name: 'group@readers' }));
  await manager.insert(GroupMemberEntity, { groupId: group.id, principalType: 'user', principalId: user.id });
  const sa = await newServiceAccount(server, organization.id);
  const assign = async (path: string, body: object) => {
    const res = await owner.call('POST', `/organizations/${organization.id}${path}`, body);
    expect(res.status).toBe(201);
    return res.body.id as string;
  };
  const groupReader = await assign('/role-assignments', { role: 'reader', principalType: 'group', principalId: group.id });
  const userOnA = await assign(`/cloud/${a.id}/role-assignments`, { role: 'contributor', principalType: 'user', principalId: user.id });
  const saOnB = await assign(`/cloud/${b.id}/role-assignments`, { role: 'contributor', principalType: 'service-account', principalId: sa.id });
  return { owner, ownerUser, organization, a, b, user, client, group, sa, groupReader, userOnA, saOnB };
}

describe('principalRoles', () => {
  it('a user: directly on a tenant, through a group organization-wide, cascading to every tenant', async () => {
    const s = await setUp();
    const res = await s.owner.call('GET', `/organizations/${s.organization.id}/principals/user/${s.user.id}/roles`);
    expect(res.status).toBe(200);
    const viaGroup = { role: 'reader', assignmentId: s.groupReader, groupId: s.group.id, groupName: 'group@readers' };
    expect(res.body).toEqual({
      principalType: 'user',
      principalId: s.user.id,
      organizationId: s.organization.id,
      organizationRoles: [{ ...viaGroup, source: 'group' }],
      tenants: [
        { id: s.a.id, name: s.a.name, roles: [{ role: 'contributor', source: 'direct', assignmentId: s.userOnA }, { ...viaGroup, source: 'organization', via: 'group' }] },
        { id: s.b.id, name: s.b.name, roles: [{ ...viaGroup, source: 'organization', via: 'group' }] },
      ],
    });

    // GraphQL answers the same, nulls included
    const gql = await graphql(s.owner.token, QUERY, { o: s.organization.id, t: 'user', p: s.user.id });
    expect(gql.errors).toBeUndefined();
    expect(gql.data.principalRoles.organizationRoles).toEqual([{ ...viaGroup, source: 'group', via: null, identityProviderId: null }]);
    expect(gql.data.principalRoles.tenants.map((t: { id: string }) => t.id)).toEqual([s.a.id, s.b.id]);

    // the same roles as the user's own /me shows
    const me = await s.client.call('GET', '/me');
    expect(me.body.organizations[0].roles).toEqual(res.body.organizationRoles);
    expect(me.body.tenants.map((t: { id: string; roles: unknown[] }) => ({ id: t.id, roles: t.roles }))).toEqual(res.body.tenants.map((t: { id: string; roles: unknown[] }) => ({ id: t.id, roles: t.roles })));
  });

  it('a group: the roles assigned to it (direct), cascading; a service account: its tenant role only; the owner', async () => {
    const s = await setUp();
    const group = await s.owner.call('GET', `/organizations/${s.organization.id}/principals/group/${s.group.id}/roles`);
    expect(group.status).toBe(200);
    expect(group.body.organizationRoles).toEqual([{ role: 'reader', source: 'direct', assignmentId: s.groupReader }]);
    expect(group.body.tenants).toEqual([
      { id: s.a.id, name: s.a.name, roles: [{ role: 'reader', source: 'organization', via: 'direct', assignmentId: s.groupReader }] },
      { id: s.b.id, name: s.b.name, roles: [{ role: 'reader', source: 'organization', via: 'direct', assignmentId: s.groupReader }] },
    ]);

    const sa = await s.owner.call('GET', `/organizations/${s.organization.id}/principals/service-account/${s.sa.id}/roles`);
    expect(sa.status).toBe(200);
    expect(sa.body).toMatchObject({ principalType: 'service-account', principalId: s.sa.id, organizationRoles: [] });
    expect(sa.body.tenants).toEqual([{ id: s.b.id, name: s.b.name, roles: [{ role: 'contributor', source: 'direct', assignmentId: s.saOnB }] }]);

    const owner = await s.owner.call('GET', `/organizations/${s.organization.id}/principals/user/${s.ownerUser.id}/roles`);
    expect(owner.body.organizationRoles).toEqual([expect.objectContaining({ role: 'organization-owner', source: 'direct' })]);
    expect(owner.body.tenants.map((t: { roles: unknown[] }) => t.roles)).toEqual([
      [expect.objectContaining({ role: 'contributor', source: 'organization', via: 'direct' })],
      [expect.objectContaining({ role: 'contributor', source: 'organization', via: 'direct' })],
    ]);

    // a user of the organization without any role: none, not an error
    const { user: plain } = await joinedMember(server, s.owner, s.organization.id);
    const none = await s.owner.call('GET', `/organizations/${s.organization.id}/principals/user/${plain.id}/roles`);
    expect(none.status).toBe(200);
    expect(none.body).toMatchObject({ organizationRoles: [], tenants: [] });
  });

  it("a user whose earlier tokens were revoked still shows its roles (no token is involved)", async () => {
    const s = await setUp();
    await server.dataSource.query('UPDATE accounts SET tokens_revoked_at = now() WHERE id = $1', [s.user.id]);
    const res = await s.owner.call('GET', `/organizations/${s.organization.id}/principals/user/${s.user.id}/roles`);
    expect(res.status).toBe(200);
    expect(res.body.organizationRoles).toEqual([expect.objectContaining({ role: 'reader', source: 'group' })]);
  });

  it('unknown principals answer 404 as the user, service account and group queries do; a bad type 400', async () => {
    const s = await setUp();
    const org = `/organizations/${s.organization.id}`;
    for (const [type, own] of [
      ['user', `${org}/users/${NIL}`],
      ['service-account', `${org}/service-accounts/${NIL}`],
      ['group', `${org}/user-groups/${NIL}`],
    ]) {
      const res = await s.owner.call('GET', `${org}/principals/${type}/${NIL}/roles`);
      expect(res.status).toBe(404);
      expect(res.body.messages[0].text).toBe((await s.owner.call('GET', own)).body.messages[0].text);
    }
    expect((await s.owner.call('GET', `${org}/principals/user/not-a-uuid/roles`)).status).toBe(404);
    // a principal of another organization is unknown here; ids of one kind are not found as another
    const other = await newOrganization(server);
    const foreign = await newServiceAccount(server, other.organization.id);
    expect((await s.owner.call('GET', `${org}/principals/service-account/${foreign.id}/roles`)).status).toBe(404);
    expect((await s.owner.call('GET', `${org}/principals/group/${s.sa.id}/roles`)).status).toBe(404);
    expect((await s.owner.call('GET', `${org}/principals/user/${s.group.id}/roles`)).status).toBe(404);

    const bad = await s.owner.call('GET', `${org}/principals/robot/${s.sa.id}/roles`);
    expect(bad.status).toBe(400);
    expect(bad.body.messages[0].text).toContain('principalType must be user, service-account or group');
    expect((await s.owner.call('GET', `${org}/principals/user/${s.user.id}/roles?limit=5`)).status).toBe(400);

    const gql = await graphql(s.owner.token, QUERY, { o: s.organization.id, t: 'group', p: NIL });
    expect(gql.errors?.[0].extensions.code).toBe('NOT_FOUND');
  });

  it('who reads role assignments may ask: organization readers yes; tenant-only members 403; outsiders 404; no token 401', async () => {
    const s = await setUp();
    const path = `/organizations/${s.organization.id}/principals/service-account/${s.sa.id}/roles`;
    // the user reads organization-wide (through its group)
    expect((await s.client.call('GET', path)).status).toBe(200);
    expect((await s.client.call('GET', `/organizations/${s.organization.id}/role-assignments`)).status).toBe(200);
    // the service account holds a tenant role only: it may not read role assignments, nor this
    const saClient = managementClient(server, await s.sa.token());
    expect((await saClient.call('GET', `/organizations/${s.organization.id}/role-assignments`)).status).toBe(403);
    expect((await saClient.call('GET', path)).status).toBe(403);
    // an outsider learns nothing, not even that the organization exists
    const outsider = managementClient(server, await (await newUser(server)).token());
    expect((await outsider.call('GET', `/organizations/${s.organization.id}/role-assignments`)).status).toBe(404);
    expect((await outsider.call('GET', path)).status).toBe(404);
    expect((await outsider.call('GET', `/organizations/${NIL}/principals/user/${s.user.id}/roles`)).status).toBe(404);
    expect((await managementClient(server, null).call('GET', path)).status).toBe(401);
  });
});
