import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { newUser } from '../../support/identity';
import { managementClient, newOrganization } from '../../support/management';
import { TestServer, b64, sampleShell, startTestServer } from '../../support/server';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer(inject('databaseUrl'));
});
afterAll(() => server?.close());

const unique = (prefix = 'tn') => `${prefix}-${Math.random().toString(36).slice(2, 10)}`;

describe('tenants', () => {
  it('create, get, list, PUT, PATCH with If-Match; the tenant API works at its URL', async () => {
    const { owner, organization } = await newOrganization(server);
    const name = unique();
    const created = await owner.call('POST', `/organizations/${organization.id}/tenants`, { name, friendlyName: 'Plant 1', tag: 'prod' });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name, friendlyName: 'Plant 1', tag: 'prod', showcase: false, organizationId: organization.id, url: `${server.url}/tenants/${name}` });
    const id = created.body.id;
    expect(created.headers.get('location')).toBe(`${server.url}/api/v1/organizations/${organization.id}/tenants/${id}`);
    const shells = await fetch(`${created.body.url}/api/v3.0/shells`, { headers: { authorization: `Bearer ${owner.token}` } });
    expect(shells.status).toBe(200);

    expect((await owner.call('GET', `/organizations/${organization.id}/tenants`)).body.result.map((t: { id: string }) => t.id)).toEqual([id]);
    const got = await owner.call('GET', `/organizations/${organization.id}/tenants/${id}`);
    const etag = got.headers.get('etag')!;
    expect((await owner.call('PATCH', `/organizations/${organization.id}/tenants/${id}`, { tag: 'test' }, { 'if-match': '"1-1"' })).status).toBe(412);
    const patched = await owner.call('PATCH', `/organizations/${organization.id}/tenants/${id}`, { tag: 'test' }, { 'if-match': etag });
    expect(patched.body).toMatchObject({ tag: 'test', friendlyName: 'Plant 1' });
    const put = await owner.call('PUT', `/organizations/${organization.id}/tenants/${id}`, { name, showcase: true }, { 'if-match': patched.headers.get('etag')! });
    expect(put.body).toMatchObject({ tag: null, friendlyName: null, showcase: true });
    // showcase: no token needed any more, at once (the tenant cache was evicted)
    expect((await fetch(`${server.api(name)}/shells`)).status).toBe(200);
    expect((await owner.call('PATCH', `/organizations/${organization.id}/tenants/${id}`, { showcase: false })).body.showcase).toBe(false);
    expect((await fetch(`${server.api(name)}/shells`)).status).toBe(401);
  });

  it('switches change events on and off (off by default; PUT without it turns them off), and writes events only while on', async () => {
    const { owner, organization } = await newOrganization(server);
    const name = unique();
    const created = await owner.call('POST', `/organizations/${organization.id}/tenants`, { name, showcase: true });
    expect(created.body.eventsEnabled).toBe(false);
    const id = created.body.id;
    const outbox = async () => Number((await server.dataSource.query('SELECT count(*) AS n FROM outbox WHERE tenant_id = $1', [id]))[0].n);
    const post = (shellId: string) => fetch(`${server.api(name)}/shells`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(sampleShell(shellId)) });
    expect((await post('urn:tenants:events:0')).status).toBe(201);
    expect(await outbox()).toBe(0);
    expect((await owner.call('PATCH', `/organizations/${organization.id}/tenants/${id}`, { eventsEnabled: true })).body.eventsEnabled).toBe(true);
    // At once in this process: the tenant cache was evicted.
    expect((await post('urn:tenants:events:1')).status).toBe(201);
    expect(await outbox()).toBe(1);
    expect((await owner.call('PUT', `/organizations/${organization.id}/tenants/${id}`, { name, showcase: true })).body.eventsEnabled).toBe(false);
    expect((await post('urn:tenants:events:2')).status).toBe(201);
    expect(await outbox()).toBe(1);
    expect((await owner.call('PATCH', `/organizations/${organization.id}/tenants/${id}`, { eventsEnabled: 'yes' })).status).toBe(400);
    const viaGraphql = await fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: { authorization: `Bearer ${owner.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ query: `mutation { updateTenant(organizationId: "${organization.id}", tenantId: "${id}", input: { eventsEnabled: true }) { eventsEnabled } }` }),
    });
    expect(((await viaGraphql.json()) as { data: { updateTenant: { eventsEnabled: boolean } } }).data.updateTenant.eventsEnabled).toBe(true);
  });

  it('delete removes the tenant with its data; If-Match; the name is free again', async () => {
    const { owner, organization } = await newOrganization(server);
    const name = unique();
    const created = await owner.call('POST', `/organizations/${organization.id}/tenants`, { name, showcase: true });
    const shell = sampleShell('urn:tenant-delete:1');
    expect((await fetch(`${server.api(name)}/shells`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(shell) })).status).toBe(201);
    expect((await owner.call('DELETE', `/organizations/${organization.id}/tenants/${created.body.id}`, undefined, { 'if-match': '"0-0"' })).status).toBe(412);
    expect((await owner.call('DELETE', `/organizations/${organization.id}/tenants/${created.body.id}`, undefined, { 'if-match': created.headers.get('etag')! })).status).toBe(204);
    expect((await fetch(`${server.api(name)}/shells/${b64('urn:tenant-delete:1')}`, { headers: { authorization: `Bearer ${owner.token}` } })).status).toBe(404);
    expect((await owner.call('GET', `/organizations/${organization.id}/tenants/${created.body.id}`)).status).toBe(404);
    const [{ count }] = await server.dataSource.query('SELECT count(*)::int AS count FROM shells WHERE tenant_id = $1', [created.body.id]);
    expect(count).toBe(0);
    const again = await owner.call('POST', `/organizations/${organization.id}/tenants`, { name, showcase: true });
    expect(again.status).toBe(201);
    // the new tenant of the same name starts empty
    expect((await fetch(`${server.api(name)}/shells/${b64('urn:tenant-delete:1')}`)).status).toBe(404);
  });

  it('bad input: names that are no DNS label, taken names, renames, wrong types, unknown fields', async () => {
    const { owner, organization } = await newOrganization(server);
    const path = `/organizations/${organization.id}/tenants`;
    for (const body of [{}, { name: '' }, { name: 'Upper' }, { name: '-dash' }, { name: 'dash-' }, { name: 'a'.repeat(64) }, { name: 'a_b' }, { name: unique(), showcase: 'yes' }, { name: unique(), friendlyName: 'x'.repeat(201) }, { name: unique(), color: 'red' }]) {
      const res = await owner.call('POST', path, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.messages[0].text).toBeTruthy();
    }
    const name = unique();
    const created = await owner.call('POST', path, { name });
    expect((await owner.call('POST', path, { name })).status).toBe(409);
    const other = await newOrganization(server);
    expect((await other.owner.call('POST', `/organizations/${other.organization.id}/tenants`, { name })).status).toBe(409);
    expect((await owner.call('PUT', `${path}/${created.body.id}`, { name: unique() })).status).toBe(400);
    expect((await owner.call('PATCH', `${path}/${created.body.id}`, { name: unique() })).status).toBe(400);
    expect((await owner.call('PATCH', `${path}/${created.body.id}`, { name })).status).toBe(200);
    expect((await owner.call('GET', `${path}/not-a-uuid`)).status).toBe(404);
    // another organization's tenant through this organization's path
    const foreign = await other.owner.call('POST', `/organizations/${other.organization.id}/tenants`, { name: unique() });
    expect((await owner.call('GET', `${path}/${foreign.body.id}`)).status).toBe(404);
    expect((await owner.call('DELETE', `${path}/${foreign.body.id}`)).status).toBe(404);
  });

  it('a tenant-level member sees only its tenants; non-owners cannot create, change or delete', async () => {
    const { owner, organization } = await newOrganization(server);
    const a = (await owner.call('POST', `/organizations/${organization.id}/tenants`, { name: unique() })).body;
    await owner.call('POST', `/organizations/${organization.id}/tenants`, { name: unique() });
    const user = await newUser(server);
    const client = managementClient(server, await user.token());
    const inv = await owner.call('POST', `/organizations/${organization.id}/users/invite`, { accountId: user.id });
    await client.call('POST', `/invitations/${inv.body.id}/accept`);
    await owner.call('POST', `/organizations/${organization.id}/cloud/${a.id}/role-assignments`, { role: 'contributor', principalType: 'user', principalId: user.id });
    expect((await client.call('GET', `/organizations/${organization.id}/tenants`)).body.result.map((t: { id: string }) => t.id)).toEqual([a.id]);
    expect((await client.call('GET', `/organizations/${organization.id}/tenants/${a.id}`)).status).toBe(200);
    expect((await client.call('POST', `/organizations/${organization.id}/tenants`, { name: unique() })).status).toBe(403);
    expect((await client.call('PATCH', `/organizations/${organization.id}/tenants/${a.id}`, { tag: 'x' })).status).toBe(403);
    expect((await client.call('DELETE', `/organizations/${organization.id}/tenants/${a.id}`)).status).toBe(403);
  });
});
