import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { newServiceAccount, newUser } from '../../support/identity';
import { managementClient, newOrganization } from '../../support/management';
import { TestServer, startTestServer } from '../../support/server';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer(inject('databaseUrl'));
});
afterAll(() => server?.close());

describe('organizations', () => {
  it('creates one: the creator is its single user and organization-owner; get, list, PUT and PATCH with ETags', async () => {
    const { owner, organization, user } = await newOrganization(server, 'Acme');
    expect(organization).toMatchObject({ name: 'Acme', platform: false });
    const got = await owner.call('GET', `/organizations/${organization.id}`);
    expect(got.status).toBe(200);
    const etag = got.headers.get('etag')!;
    expect(etag).toMatch(/^"\d+-1"$/);
    const list = await owner.call('GET', '/organizations');
    expect(list.body.result.map((o: { id: string }) => o.id)).toEqual([organization.id]);
    expect(list.body.paging_metadata).toEqual({});

    const stale = await owner.call('PUT', `/organizations/${organization.id}`, { name: 'Acme Ltd' }, { 'if-match': '"1-9"' });
    expect(stale.status).toBe(412);
    expect(stale.body.messages[0].messageType).toBe('Error');
    const put = await owner.call('PUT', `/organizations/${organization.id}`, { name: 'Acme Ltd' }, { 'if-match': etag });
    expect(put.status).toBe(200);
    expect(put.body.name).toBe('Acme Ltd');
    expect(put.headers.get('etag')).not.toBe(etag);
    const patch = await owner.call('PATCH', `/organizations/${organization.id}`, {}, { 'if-match': put.headers.get('etag')! });
    expect(patch.status).toBe(200);
    expect(patch.body.name).toBe('Acme Ltd');
    void user;
  });

  it('bad input: no name, empty name, wrong types, unknown fields, not JSON, bad ids, bad paging', async () => {
    const { owner, organization } = await newOrganization(server);
    for (const body of [{}, { name: '' }, { name: '   ' }, { name: 5 }, { name: 'x'.repeat(201) }, { name: 'a', extra: 1 }, [], 'null']) {
      const res = await owner.call('POST', '/organizations', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.messages.length).toBeGreaterThan(0);
    }
    expect((await owner.call('POST', '/organizations', '{"name":')).status).toBe(400);
    expect((await owner.call('PUT', `/organizations/${organization.id}`, {})).status).toBe(400);
    for (const name of ['', '  ', 7]) expect((await owner.call('PATCH', `/organizations/${organization.id}`, { name })).status, JSON.stringify(name)).toBe(400);
    expect((await owner.call('GET', `/organizations/${organization.id}`)).body.name).toBe('test organization');
    expect((await owner.call('GET', '/organizations/not-a-uuid')).status).toBe(404);
    expect((await owner.call('GET', '/organizations/00000000-0000-4000-8000-000000000000')).status).toBe(404);
    expect((await owner.call('GET', '/organizations?limit=0')).status).toBe(400);
    expect((await owner.call('GET', '/organizations?limit=251')).status).toBe(400);
    expect((await owner.call('GET', '/organizations?limit=abc')).status).toBe(400);
    expect((await owner.call('GET', '/organizations?cursor=bogus')).status).toBe(400);
  });

  it('pages with limit and cursor', async () => {
    const user = await newUser(server);
    const client = managementClient(server, await user.token());
    for (const name of ['a', 'b', 'c']) expect((await client.call('POST', '/organizations', { name })).status).toBe(201);
    const first = await client.call('GET', '/organizations?limit=2');
    expect(first.body.result.map((o: { name: string }) => o.name)).toEqual(['a', 'b']);
    const second = await client.call('GET', `/organizations?limit=2&cursor=${first.body.paging_metadata.cursor}`);
    expect(second.body.result.map((o: { name: string }) => o.name)).toEqual(['c']);
    expect(second.body.paging_metadata).toEqual({});
  });

  it('who may: strangers get 404, no token 401, service accounts cannot create, non-owners cannot change', async () => {
    const { organization } = await newOrganization(server);
    const stranger = managementClient(server, await (await newUser(server)).token());
    expect((await stranger.call('GET', `/organizations/${organization.id}`)).status).toBe(404);
    expect((await stranger.call('PATCH', `/organizations/${organization.id}`, { name: 'mine' })).status).toBe(404);
    expect((await managementClient(server, null).call('GET', `/organizations/${organization.id}`)).status).toBe(401);
    expect((await managementClient(server, null).call('POST', '/organizations', { name: 'x' })).status).toBe(401);
    const sa = await newServiceAccount(server, organization.id);
    expect((await managementClient(server, await sa.token()).call('POST', '/organizations', { name: 'x' })).status).toBe(403);
  });
});
