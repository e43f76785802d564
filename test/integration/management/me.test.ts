import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { GroupMemberEntity } from '../../../src/management/user-groups/group-member.entity';
import { UserGroupEntity } from '../../../src/management/user-groups/user-group.entity';
import { newServiceAccount, newUser } from '../../support/identity';
import { managementClient, newOrganization } from '../../support/management';
import { TestServer, startTestServer } from '../../support/server';
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

describe('GET /me', () => {
  it("a user: its organizations and tenants, each role with its source (direct, group, organization cascade)", async () => {
    const { owner, organization, user } = await newOrganization(server, 'Me Org');
    const t1 = (await owner.call('POST', `/organizations/${organization.id}/tenants`, { name: `me-${Date.now()}` })).body;
    const me = await owner.call('GET', '/me');
    expect(me.status).toBe(200);
    expect(me.body.principal).toMatchObject({ type: 'user', id: user.id, email: user.email });
    expect(me.body.organizations).toEqual([{ id: organization.id, name: 'Me Org', roles: [expect.objectContaining({ role: 'organization-owner', source: 'direct' })] }]);
    expect(me.body.tenants).toEqual([
      expect.objectContaining({ id: t1.id, name: t1.name, url: t1.url, roles: [expect.objectContaining({ role: 'contributor', source: 'organization', via: 'direct' })] }),
    ]);
    // also at /api/v1/me, identical
    const root = await fetch(`${server.url}/api/v1/me`, { headers: { authorization: `Bearer ${owner.token}` } });
    expect(await root.json()).toEqual(me.body);

    // a service account in a group holding reader on one tenant
    const sa = await newServiceAccount(server, organization.id);
    const group = await server.dataSource.manager.save(server.dataSource.manager.create(UserGroupEntity, { organizationId: organization.id, name: 'group@readers' }));
    await server.dataSource.manager.insert(GroupMemberEntity, { groupId: group.id, principalType: 'service-account', principalId: sa.id });
    expect((await owner.call('POST', `/organizations/${organization.id}/cloud/${t1.id}/role-assignments`, { role: 'reader', principalType: 'group', principalId: group.id })).status).toBe(201);
    const saMe = await managementClient(server, await sa.token()).call('GET', '/me');
    expect(saMe.body.principal).toMatchObject({ type: 'service-account', id: sa.id });
    expect(saMe.body.organizations).toEqual([{ id: organization.id, name: 'Me Org', roles: [] }]);
    expect(saMe.body.tenants).toEqual([expect.objectContaining({ id: t1.id, roles: [expect.objectContaining({ role: 'reader', source: 'group', groupId: group.id, groupName: 'group@readers' })] })]);
  });

  it('a new user has none; a federated caller sees what its token grants (federation); no token 401', async () => {
    const fresh = await newUser(server);
    const me = await managementClient(server, await fresh.token()).call('GET', '/me');
    expect(me.body).toMatchObject({ principal: { type: 'user', id: fresh.id }, organizations: [], tenants: [] });

    const tenant = await server.createTenant({ showcase: false, trust: issuer });
    const token = issuer.sign({ roles: ['contributor'] }, { subject: 'ext-1' });
    const fed = await managementClient(server, token).call('GET', '/me');
    expect(fed.status).toBe(200);
    expect(fed.body.principal).toMatchObject({ type: 'federated', id: 'ext-1', issuer: issuer.issuer });
    expect(fed.body.organizations).toEqual([{ id: tenant.organizationId, name: 'test', roles: [expect.objectContaining({ role: 'contributor', source: 'federation' })] }]);
    expect(fed.body.tenants).toEqual([expect.objectContaining({ id: tenant.id, roles: [expect.objectContaining({ role: 'contributor', source: 'organization', via: 'federation' })] })]);

    expect((await managementClient(server, null).call('GET', '/me')).status).toBe(401);
    expect((await managementClient(server, 'not.a.token').call('GET', '/me')).status).toBe(401);
  });
});
