import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { OrganizationUserEntity } from '../../../src/management/users/organization-user.entity';
import { assignRole, clientWithRole, graphql } from '../../support/grants';
import { newServiceAccount, newUser } from '../../support/identity';
import { ManagementClient, managementClient, newOrganization } from '../../support/management';
import { TestServer, startTestServer } from '../../support/server';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer(inject('databaseUrl'));
});
afterAll(() => server?.close());

const UNKNOWN = '00000000-0000-4000-8000-000000000000';

async function newGroup(owner: ManagementClient, organizationId: string, body: unknown = { name: `group@${randomBytes(3).toString('hex')}` }) {
  const res = await owner.call('POST', `/organizations/${organizationId}/user-groups`, body);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res;
}

/** A user of the organization (as an accepted invitation makes one), without any role. */
async function orgUser(organizationId: string, displayName = 'Ann') {
  const user = await newUser(server, { displayName });
  await server.dataSource.manager.insert(OrganizationUserEntity, { organizationId, accountId: user.id });
  return user;
}

describe('user groups', () => {
  it('create, get, list, rename with PUT and PATCH and If-Match, delete', async () => {
    const { owner, organization } = await newOrganization(server);
    const base = `/organizations/${organization.id}/user-groups`;
    const created = await newGroup(owner, organization.id, { name: 'group@engineers', description: 'builders' });
    const group = created.body;
    expect(group).toMatchObject({ name: 'group@engineers', description: 'builders' });
    expect(created.headers.get('location')).toBe(`${server.url}/api/v1${base}/${group.id}`);
    const etag = created.headers.get('etag')!;
    expect((await owner.call('GET', `${base}/${group.id}`)).body).toEqual(group);
    expect((await owner.call('GET', base)).body).toEqual({ paging_metadata: {}, result: [group] });

    expect((await owner.call('PUT', `${base}/${group.id}`, { name: 'group@builders' }, { 'if-match': '"1-7"' })).status).toBe(412);
    const put = await owner.call('PUT', `${base}/${group.id}`, { name: 'group@builders' }, { 'if-match': etag });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ name: 'group@builders', description: null });
    const patch = await owner.call('PATCH', `${base}/${group.id}`, { name: 'group@makers' }, { 'if-match': put.headers.get('etag')! });
    expect(patch.body.name).toBe('group@makers');
    // Names are unique in the organization (renaming onto another group's name too), not across organizations.
    expect((await owner.call('POST', base, { name: 'group@makers' })).status).toBe(409);
    await newGroup(owner, organization.id, { name: 'group@other' });
    expect((await owner.call('PATCH', `${base}/${group.id}`, { name: 'group@other' })).status).toBe(409);
    const elsewhere = await newOrganization(server);
    await newGroup(elsewhere.owner, elsewhere.organization.id, { name: 'group@makers' });

    expect((await owner.call('DELETE', `${base}/${group.id}`, undefined, { 'if-match': etag })).status).toBe(412);
    expect((await owner.call('DELETE', `${base}/${group.id}`)).status).toBe(204);
    expect((await owner.call('GET', `${base}/${group.id}`)).status).toBe(404);
    const list = await owner.call('GET', `${base}?limit=1`);
    expect(list.body.result.map((g: { name: string }) => g.name)).toEqual(['group@other']);
  });

  it('bad input is 400, unknown ids 404', async () => {
    const { owner, organization } = await newOrganization(server);
    const base = `/organizations/${organization.id}/user-groups`;
    const bad = [{}, { name: '' }, { name: 'engineers' }, { name: 'group@' }, { name: 'Group@x' }, { name: `group@${'x'.repeat(200)}` }, { name: 5 }, { name: 'group@a', extra: 1 }, { name: 'group@a', description: 'x'.repeat(2001) }, []];
    for (const body of bad) expect((await owner.call('POST', base, body)).status, JSON.stringify(body)).toBe(400);
    const { id } = (await newGroup(owner, organization.id)).body;
    for (const body of [{ name: null }, { name: '' }, { name: 'nope' }]) expect((await owner.call('PATCH', `${base}/${id}`, body)).status, JSON.stringify(body)).toBe(400);
    expect((await owner.call('PUT', `${base}/${id}`, {})).status).toBe(400);
    const member = await newServiceAccount(server, organization.id);
    const badMembers = [
      {},
      { members: [] },
      { members: Array.from({ length: 101 }, () => ({ type: 'service-account', id: member.id })) },
      { members: [{ type: 'robot', id: member.id }] },
      { members: [{ type: 'service-account', id: 'not-a-uuid' }] },
      { members: [{ type: 'service-account' }] },
      { members: [{ type: 'user', id: member.id }] },
      { members: [{ type: 'service-account', id: UNKNOWN }] },
      { members: 'all' },
    ];
    for (const body of badMembers) expect((await owner.call('POST', `${base}/${id}/members`, body)).status, JSON.stringify(body).slice(0, 80)).toBe(400);
    // The message names the id that is no member of the organization.
    const named = await owner.call('POST', `${base}/${id}/members`, { members: [{ type: 'service-account', id: member.id }, { type: 'service-account', id: UNKNOWN }] });
    expect(named.body.messages.map((m: { text: string }) => m.text).join(' ')).toContain(UNKNOWN);
    // A service account of another organization is not one of this organization.
    const elsewhere = await newOrganization(server);
    const foreign = await newServiceAccount(server, elsewhere.organization.id);
    expect((await owner.call('POST', `${base}/${id}/members`, { members: [{ type: 'service-account', id: foreign.id }] })).status).toBe(400);
    expect((await owner.call('POST', `${base}/${id}/members`, { members: [{ type: 'user', id: elsewhere.user.id }] })).status).toBe(400);
    expect((await owner.call('GET', `${base}/${id}/members`)).body.result).toEqual([]);

    for (const other of ['nope', UNKNOWN]) {
      expect((await owner.call('GET', `${base}/${other}`)).status).toBe(404);
      expect((await owner.call('PATCH', `${base}/${other}`, { name: 'group@x' })).status).toBe(404);
      expect((await owner.call('DELETE', `${base}/${other}`)).status).toBe(404);
      expect((await owner.call('GET', `${base}/${other}/members`)).status).toBe(404);
      expect((await owner.call('POST', `${base}/${other}/members`, { members: [{ type: 'service-account', id: member.id }] })).status).toBe(404);
      expect((await owner.call('DELETE', `${base}/${id}/members/${other}`)).status).toBe(404);
    }
    expect((await owner.call('GET', `${base}?limit=300`)).status).toBe(400);
    expect((await owner.call('GET', `${base}/${id}/members?cursor=x`)).status).toBe(400);
  });

  it('members: users and service accounts of the organization, idempotent, paged; nobody adds itself', async () => {
    const { owner, organization, user } = await newOrganization(server);
    const base = `/organizations/${organization.id}/user-groups`;
    const { id } = (await newGroup(owner, organization.id)).body;
    const ann = await orgUser(organization.id, 'Ann');
    const robot = await newServiceAccount(server, organization.id);
    const members = [
      { type: 'user', id: ann.id },
      { type: 'service-account', id: robot.id },
    ];
    const added = await owner.call('POST', `${base}/${id}/members`, { members });
    expect(added.status).toBe(201);
    expect(added.body.members).toEqual([
      { type: 'user', id: ann.id, email: ann.email, displayName: 'Ann', name: null, addedAt: expect.any(String) },
      { type: 'service-account', id: robot.id, email: null, displayName: null, name: expect.stringMatching(/^test-/), addedAt: expect.any(String) },
    ]);
    const again = await owner.call('POST', `${base}/${id}/members`, { members: [members[1], members[1]] });
    expect(again.status).toBe(201);
    expect(again.body.members).toEqual([added.body.members[1]]);

    const first = await owner.call('GET', `${base}/${id}/members?limit=1`);
    expect(first.body.result).toEqual([added.body.members[0]]);
    const second = await owner.call('GET', `${base}/${id}/members?limit=1&cursor=${first.body.paging_metadata.cursor}`);
    expect(second.body).toEqual({ paging_metadata: {}, result: [added.body.members[1]] });

    const self = await owner.call('POST', `${base}/${id}/members`, { members: [{ type: 'user', id: user.id }] });
    expect(self.status).toBe(403);
    expect(self.body.messages[0].text).toMatch(/itself/);

    expect((await owner.call('DELETE', `${base}/${id}/members/${robot.id}`)).status).toBe(204);
    expect((await owner.call('DELETE', `${base}/${id}/members/${robot.id}`)).status).toBe(404);
    expect((await owner.call('GET', `${base}/${id}/members`)).body.result.map((m: { id: string }) => m.id)).toEqual([ann.id]);

    // GraphQL names the same operations.
    const { body } = await graphql(server, owner.token, 'query($o: ID!, $g: ID!) { userGroupMembers(organizationId: $o, groupId: $g) { result { type id email } } }', {
      o: organization.id,
      g: id,
    });
    expect(body.data.userGroupMembers.result).toEqual([{ type: 'user', id: ann.id, email: ann.email }]);
  });

  it("a group's reader role reads the organization's tenants for its members, until the member is removed", async () => {
    const { owner, organization } = await newOrganization(server);
    const tenant = await server.services.tenants.create({ organizationId: organization.id, name: `g-${randomBytes(5).toString('hex')}`, showcase: false });
    const { id } = (await newGroup(owner, organization.id)).body;
    await assignRole(server, organization.id, { type: 'group', id }, 'reader');
    const robot = await newServiceAccount(server, organization.id);
    const read = async () => (await fetch(`${server.api(tenant.name)}/shells`, { headers: { authorization: `Bearer ${await robot.token()}` } })).status;
    expect(await read()).toBe(404);
    expect((await owner.call('POST', `/organizations/${organization.id}/user-groups/${id}/members`, { members: [{ type: 'service-account', id: robot.id }] })).status).toBe(201);
    expect(await read()).toBe(200);
    expect((await owner.call('DELETE', `/organizations/${organization.id}/user-groups/${id}/members/${robot.id}`)).status).toBe(204);
    expect(await read()).toBe(404);
  });

  it('removing a member or deleting a group is refused (409) when it takes the last owner; delete takes assignments along', async () => {
    const { owner, organization, user } = await newOrganization(server);
    const base = `/organizations/${organization.id}/user-groups`;
    const { id } = (await newGroup(owner, organization.id)).body;
    const manager = server.dataSource.manager;
    // The creator is owner only through the group.
    await assignRole(server, organization.id, { type: 'group', id }, 'organization-owner');
    await manager.query(`INSERT INTO group_members (group_id, principal_type, principal_id) VALUES ($1, 'user', $2)`, [id, user.id]);
    await manager.query(`DELETE FROM role_assignments WHERE principal_type = 'user' AND principal_id = $1`, [user.id]);

    const removal = await owner.call('DELETE', `${base}/${id}/members/${user.id}`);
    expect(removal.status).toBe(409);
    expect(removal.body.messages[0].text).toMatch(/organization-owner/);
    expect((await owner.call('DELETE', `${base}/${id}`)).status).toBe(409);
    expect((await owner.call('GET', `${base}/${id}/members`)).body.result.map((m: { id: string }) => m.id)).toEqual([user.id]);

    // With a direct owner again, the group goes, and its assignments and members with it.
    await assignRole(server, organization.id, { type: 'user', id: user.id }, 'organization-owner');
    expect((await owner.call('DELETE', `${base}/${id}`)).status).toBe(204);
    expect(await manager.query('SELECT id FROM role_assignments WHERE principal_id = $1', [id])).toEqual([]);
    expect(await manager.query('SELECT principal_id FROM group_members WHERE group_id = $1', [id])).toEqual([]);
  });

  it('who may: strangers 404, readers read but do not write (403), no token 401', async () => {
    const { owner, organization } = await newOrganization(server);
    const base = `/organizations/${organization.id}/user-groups`;
    const { id } = (await newGroup(owner, organization.id)).body;
    const robot = await newServiceAccount(server, organization.id);
    expect((await owner.call('POST', `${base}/${id}/members`, { members: [{ type: 'service-account', id: robot.id }] })).status).toBe(201);
    const stranger = managementClient(server, await (await newUser(server)).token());
    const reader = await clientWithRole(server, organization.id, 'reader');
    const anonymous = managementClient(server, null);
    const writes: [string, string, unknown?][] = [
      ['POST', base, { name: 'group@x' }],
      ['PUT', `${base}/${id}`, { name: 'group@x' }],
      ['PATCH', `${base}/${id}`, { name: 'group@x' }],
      ['DELETE', `${base}/${id}`],
      ['POST', `${base}/${id}/members`, { members: [{ type: 'service-account', id: robot.id }] }],
      ['DELETE', `${base}/${id}/members/${robot.id}`],
    ];
    const reads: [string, string][] = [
      ['GET', base],
      ['GET', `${base}/${id}`],
      ['GET', `${base}/${id}/members`],
    ];
    for (const [method, path, body] of [...writes, ...reads]) {
      expect((await stranger.call(method, path, body)).status, `${method} ${path}`).toBe(404);
      expect((await anonymous.call(method, path, body)).status, `${method} ${path}`).toBe(401);
    }
    for (const [method, path, body] of writes) expect((await reader.call(method, path, body)).status, `${method} ${path}`).toBe(403);
    for (const [method, path] of reads) expect((await reader.call(method, path)).status, `${method} ${path}`).toBe(200);
  });
});
