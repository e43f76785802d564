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

async function tenantOf(owner: ManagementClient, organizationId: string, name = `t-${Math.random().toString(36).slice(2, 10)}`) {
  const res = await owner.call('POST', `/organizations/${organizationId}/tenants`, { name });
  expect(res.status).toBe(201);
  return res.body as { id: string; name: string };
}

describe('roles', () => {
  it('lists organization roles and cloud roles separately', async () => {
    const { owner, organization } = await newOrganization(server);
    const org = await owner.call('GET', `/organizations/${organization.id}/roles`);
    expect(org.body.paging_metadata).toEqual({});
    expect(org.body.result.map((r: { name: string }) => r.name)).toEqual(['reader', 'contributor', 'organization-owner']);
    const cloud = await owner.call('GET', `/organizations/${organization.id}/cloud/roles`);
    expect(cloud.body.result.map((r: { name: string }) => r.name)).toEqual(['reader', 'contributor']);
    expect(cloud.body.result.every((r: { scope: string; description: string }) => r.scope === 'cloud' && r.description)).toBe(true);
    expect((await managementClient(server, await (await newUser(server)).token()).call('GET', `/organizations/${organization.id}/roles`)).status).toBe(404);
  });
});

describe('role assignments', () => {
  it('organization-wide: a reader reads every tenant; revoked, the access is gone at once', async () => {
    const { owner, organization } = await newOrganization(server);
    const tenant = await tenantOf(owner, organization.id);
    const { user, client } = await joinedMember(server, owner, organization.id);
    const shells = () => fetch(`${server.api(tenant.name)}/shells`, { headers: { authorization: `Bearer ${client.token}` } });
    expect((await shells()).status).toBe(404);
    const created = await owner.call('POST', `/organizations/${organization.id}/role-assignments`, { role: 'reader', principalType: 'user', principalId: user.id });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ organizationId: organization.id, tenantId: null, role: 'reader', principalType: 'user', principalId: user.id });
    expect(created.headers.get('location')).toContain(`/role-assignments/${created.body.id}`);
    expect((await shells()).status).toBe(200);
    // reader may not write there, nor administer
    const write = await fetch(`${server.api(tenant.name)}/shells`, {
      method: 'POST',
      headers: { authorization: `Bearer ${client.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ id: 'urn:x', idShort: 'x', modelType: 'AssetAdministrationShell', assetInformation: { assetKind: 'Instance', globalAssetId: 'urn:a' } }),
    });
    expect(write.status).toBe(403);
    expect((await client.call('POST', `/organizations/${organization.id}/tenants`, { name: 'nope-nope' })).status).toBe(403);
    expect((await client.call('GET', `/organizations/${organization.id}/role-assignments`)).status).toBe(200);

    expect((await owner.call('POST', `/organizations/${organization.id}/role-assignments`, { role: 'reader', principalType: 'user', principalId: user.id })).status).toBe(409);
    const list = await owner.call('GET', `/organizations/${organization.id}/role-assignments`);
    expect(list.body.result.map((a: { role: string }) => a.role)).toEqual(['organization-owner', 'reader']);
    expect((await owner.call('DELETE', `/organizations/${organization.id}/role-assignments/${created.body.id}`)).status).toBe(204);
    expect((await shells()).status).toBe(404);
    expect((await owner.call('DELETE', `/organizations/${organization.id}/role-assignments/${created.body.id}`)).status).toBe(404);
  });

  it('per tenant: a contributor writes that tenant only; the tenant must be of the organization', async () => {
    const { owner, organization } = await newOrganization(server);
    const a = await tenantOf(owner, organization.id);
    const b = await tenantOf(owner, organization.id);
    const other = await newOrganization(server);
    const foreign = await tenantOf(other.owner, other.organization.id);
    const sa = await newServiceAccount(server, organization.id);
    const created = await owner.call('POST', `/organizations/${organization.id}/cloud/${a.id}/role-assignments`, { role: 'contributor', principalType: 'service-account', principalId: sa.id });
    expect(created.status).toBe(201);
    expect(created.body.tenantId).toBe(a.id);
    const token = await sa.token();
    expect((await fetch(`${server.api(a.name)}/shells`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
    expect((await fetch(`${server.api(b.name)}/shells`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(404);
    expect((await owner.call('GET', `/organizations/${organization.id}/cloud/${a.id}/role-assignments`)).body.result.map((x: { id: string }) => x.id)).toEqual([created.body.id]);
    expect((await owner.call('GET', `/organizations/${organization.id}/role-assignments`)).body.result.some((x: { id: string }) => x.id === created.body.id)).toBe(false);
    // organization-owner is no cloud role; another organization's tenant is not found
    expect((await owner.call('POST', `/organizations/${organization.id}/cloud/${a.id}/role-assignments`, { role: 'organization-owner', principalType: 'service-account', principalId: sa.id })).status).toBe(400);
    expect((await owner.call('POST', `/organizations/${organization.id}/cloud/${foreign.id}/role-assignments`, { role: 'reader', principalType: 'service-account', principalId: sa.id })).status).toBe(404);
    expect((await owner.call('GET', `/organizations/${organization.id}/cloud/${foreign.id}/role-assignments`)).status).toBe(404);
    // deleting it through the other tenant's path: not found there
    expect((await owner.call('DELETE', `/organizations/${organization.id}/cloud/${b.id}/role-assignments/${created.body.id}`)).status).toBe(404);
    expect((await owner.call('DELETE', `/organizations/${organization.id}/role-assignments/${created.body.id}`)).status).toBe(404);
    expect((await owner.call('DELETE', `/organizations/${organization.id}/cloud/${a.id}/role-assignments/${created.body.id}`)).status).toBe(204);
  });

  it('rules: nobody grants themselves (nor a group they are in); the last owner cannot be revoked; a second owner can take over', async () => {
    const { owner, organization, user } = await newOrganization(server);
    expect((await owner.call('POST', `/organizations/${organization.id}/role-assignments`, { role: 'reader', principalType: 'user', principalId: user.id })).status).toBe(403);
    const group = await server.dataSource.manager.save(server.dataSource.manager.create(UserGroupEntity, { organizationId: organization.id, name: 'group@mine' }));
    await server.dataSource.manager.insert(GroupMemberEntity, { groupId: group.id, principalType: 'user', principalId: user.id });
    expect((await owner.call('POST', `/organizations/${organization.id}/role-assignments`, { role: 'contributor', principalType: 'group', principalId: group.id })).status).toBe(403);

    const ownerAssignment = (await owner.call('GET', `/organizations/${organization.id}/role-assignments`)).body.result[0];
    expect(ownerAssignment.role).toBe('organization-owner');
    expect((await owner.call('DELETE', `/organizations/${organization.id}/role-assignments/${ownerAssignment.id}`)).status).toBe(409);

    const second = await joinedMember(server, owner, organization.id);
    expect((await owner.call('POST', `/organizations/${organization.id}/role-assignments`, { role: 'organization-owner', principalType: 'user', principalId: second.user.id })).status).toBe(201);
    // the second owner may now revoke the first (not itself: it would be the last)
    expect((await second.client.call('DELETE', `/organizations/${organization.id}/role-assignments/${ownerAssignment.id}`)).status).toBe(204);
    expect((await owner.call('GET', `/organizations/${organization.id}/role-assignments`)).status).toBe(404);
  });

  it('only owners grant or revoke; contributors and readers are 403, strangers 404', async () => {
    const { owner, organization } = await newOrganization(server);
    const contributor = await joinedMember(server, owner, organization.id);
    await owner.call('POST', `/organizations/${organization.id}/role-assignments`, { role: 'contributor', principalType: 'user', principalId: contributor.user.id });
    const target = await joinedMember(server, owner, organization.id);
    for (const role of ['reader', 'organization-owner']) {
      expect((await contributor.client.call('POST', `/organizations/${organization.id}/role-assignments`, { role, principalType: 'user', principalId: target.user.id })).status).toBe(403);
    }
    const stranger = managementClient(server, await (await newUser(server)).token());
    expect((await stranger.call('POST', `/organizations/${organization.id}/role-assignments`, { role: 'reader', principalType: 'user', principalId: target.user.id })).status).toBe(404);
    expect((await stranger.call('GET', `/organizations/${organization.id}/role-assignments`)).status).toBe(404);
  });

  it('bad input: unknown role or type, bad ids, a principal of another organization, unknown fields', async () => {
    const { owner, organization } = await newOrganization(server);
    const other = await newOrganization(server);
    const outsider = await newServiceAccount(server, other.organization.id);
    const path = `/organizations/${organization.id}/role-assignments`;
    const cases: [unknown, number][] = [
      [{ role: 'admin', principalType: 'user', principalId: NIL }, 400],
      [{ role: 'reader', principalType: 'robot', principalId: NIL }, 400],
      [{ role: 'reader', principalType: 'user', principalId: 'x' }, 400],
      [{ role: 'reader', principalType: 'user' }, 400],
      [{ role: 'reader', principalType: 'user', principalId: NIL }, 400],
      [{ role: 'reader', principalType: 'service-account', principalId: outsider.id }, 400],
      [{ role: 'reader', principalType: 'user', principalId: NIL, tenantId: NIL }, 400],
      ['[]', 400],
    ];
    for (const [body, status] of cases) {
      const res = await owner.call('POST', path, body);
      expect(res.status, JSON.stringify(body)).toBe(status);
      expect(res.body.messages.length).toBeGreaterThan(0);
    }
    expect((await owner.call('GET', `${path}?limit=0`)).status).toBe(400);
    expect((await owner.call('DELETE', `${path}/not-a-uuid`)).status).toBe(404);
    expect((await owner.call('POST', `/organizations/${organization.id}/cloud/not-a-uuid/role-assignments`, { role: 'reader', principalType: 'user', principalId: NIL })).status).toBe(404);
  });
});
