import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { RESERVED_INSTANCE_NAMES } from '../../../src/aas/registry/instance.service';
import type { TenantEntity } from '../../../src/management/tenants/tenant.entity';
import { assignRole, clientWithRole, graphql } from '../../support/grants';
import { newUser } from '../../support/identity';
import { ManagementClient, managementClient, newOrganization } from '../../support/management';
import { TestServer, startTestServer } from '../../support/server';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer(inject('databaseUrl'));
});
afterAll(() => server?.close());

const unique = (prefix = 'ri') => `${prefix}-${Math.random().toString(36).slice(2, 10)}`;

/** An organization with its owner and one tenant, and the path of that tenant's instances. */
async function ownerWithTenant() {
  const { owner, organization, user } = await newOrganization(server);
  const created = await owner.call('POST', `/organizations/${organization.id}/tenants`, { name: unique('rt') });
  expect(created.status).toBe(201);
  const tenant = created.body as { id: string; name: string; url: string };
  return { owner, organization, user, tenant, path: `/organizations/${organization.id}/tenants/${tenant.id}/registry-instances` };
}

const tenantEntity = async (name: string) => (await server.services.tenants.byName(name)) as TenantEntity;

const descriptorCount = async (instanceId: string) =>
  (await server.dataSource.query('SELECT count(*)::int AS count FROM shell_descriptors WHERE instance_id = $1', [instanceId]))[0].count as number;

describe('registry instances (Management API)', () => {
  it('creates both kinds (201, Location, ETag, url below the tenant URL), gets and lists them', async () => {
    const { owner, organization, tenant, path } = await ownerWithTenant();
    const discovery = await owner.call('POST', path, { name: 'plant-discovery', kind: 'discovery' });
    expect(discovery.status, JSON.stringify(discovery.body)).toBe(201);
    expect(discovery.body).toMatchObject({ name: 'plant-discovery', kind: 'discovery', tenantId: tenant.id, url: `${tenant.url}/plant-discovery/api/v3.0` });
    expect(discovery.body).not.toHaveProperty('etag');
    expect(discovery.headers.get('location')).toBe(`${server.url}/api/v1${path}/${discovery.body.id}`);
    expect(discovery.headers.get('etag')).toMatch(/^".+"$/);
    const registry = await owner.call('POST', path, { name: 'registry1', kind: 'aas-registry' });
    expect(registry.status).toBe(201);
    expect(registry.body).toMatchObject({ name: 'registry1', kind: 'aas-registry', url: `${server.url}/tenants/${tenant.name}/registry1/api/v3.0` });
    // Each serves its kind at its url, and only that.
    const auth = { headers: { authorization: `Bearer ${owner.token}` } };
    expect((await fetch(`${discovery.body.url}/lookup/shells`, auth)).status).toBe(200);
    expect((await fetch(`${registry.body.url}/shell-descriptors`, auth)).status).toBe(200);
    expect((await fetch(`${discovery.body.url}/shell-descriptors`, auth)).status).toBe(404);
    expect((await fetch(`${registry.body.url}/lookup/shells`, auth)).status).toBe(404);

    const got = await owner.call('GET', new URL(discovery.headers.get('location')!).pathname.replace('/api/v1', ''));
    expect(got.status).toBe(200);
    expect(got.body).toEqual(discovery.body);
    expect(got.headers.get('etag')).toBe(discovery.headers.get('etag'));

    const list = await owner.call('GET', path);
    expect(list.status).toBe(200);
    expect(list.body).toEqual({ paging_metadata: {}, result: [discovery.body, registry.body] });
    // Another tenant of the organization has none.
    const other = await owner.call('POST', `/organizations/${organization.id}/tenants`, { name: unique('rt') });
    expect((await owner.call('GET', `/organizations/${organization.id}/tenants/${other.body.id}/registry-instances`)).body.result).toEqual([]);
  });

  it('pages with limit and cursor; a bad limit or cursor is 400', async () => {
    const { owner, path } = await ownerWithTenant();
    const names = ['p1', 'p2', 'p3', 'p4', 'p5'];
    for (const [i, name] of names.entries()) expect((await owner.call('POST', path, { name, kind: i % 2 ? 'discovery' : 'aas-registry' })).status).toBe(201);
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await owner.call('GET', `${path}?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      expect(page.status).toBe(200);
      expect(page.body.result.length).toBeLessThanOrEqual(2);
      seen.push(...page.body.result.map((i: { name: string }) => i.name));
      cursor = page.body.paging_metadata.cursor;
      pages++;
    } while (cursor);
    expect(seen).toEqual(names);
    expect(pages).toBe(3);
    for (const query of ['limit=0', 'limit=251', 'limit=-1', 'limit=x', 'cursor=nonsense', 'cursor=']) {
      const res = await owner.call('GET', `${path}?${query}`);
      expect(res.status, query).toBe(400);
      expect(res.body.messages[0].text).toBeTruthy();
    }
    // A cursor another list issued is refused too.
    const tenantsPath = path.replace(/\/tenants\/.*/, '/tenants');
    await owner.call('POST', tenantsPath, { name: unique('rt') });
    const foreignCursor = (await owner.call('GET', `${tenantsPath}?limit=1`)).body.paging_metadata.cursor;
    expect(foreignCursor).toBeTruthy();
    expect((await owner.call('GET', `${path}?cursor=${encodeURIComponent(foreignCursor)}`)).status).toBe(400);
  });

  it('delete removes the instance with its data; If-Match is honoured (412); the name is free again', async () => {
    const { owner, tenant, path } = await ownerWithTenant();
    const created = await owner.call('POST', path, { name: 'reg', kind: 'aas-registry' });
    const tenantRow = await tenantEntity(tenant.name);
    const instance = await server.services.registryInstances.resolve(tenantRow, 'reg', 'aas-registry');
    expect(instance.id).toBe(created.body.id);
    await server.services.shellDescriptors.create(tenantRow, instance, { id: 'urn:x', endpoints: [{ interface: 'AAS-3.0', protocolInformation: { href: 'http://x' } }] });
    expect(await descriptorCount(instance.id)).toBe(1);
    // The instance serves at the url the Management API gave.
    const auth = { headers: { authorization: `Bearer ${owner.token}` } };
    const served = await fetch(`${created.body.url}/shell-descriptors`, auth);
    expect(served.status).toBe(200);
    expect(((await served.json()) as { result: { id: string }[] }).result.map((d) => d.id)).toEqual(['urn:x']);

    const url = `${path}/${created.body.id}`;
    for (const stale of ['"0-0"', 'W/"nonsense"', '"x"']) {
      const res = await owner.call('DELETE', url, undefined, { 'if-match': stale });
      expect(res.status, stale).toBe(412);
      expect(res.body.messages[0].text).toBeTruthy();
    }
    expect(await descriptorCount(instance.id)).toBe(1);
    expect((await owner.call('DELETE', url, undefined, { 'if-match': created.headers.get('etag')! })).status).toBe(204);
    expect(await descriptorCount(instance.id)).toBe(0);
    expect((await fetch(`${created.body.url}/shell-descriptors`, auth)).status).toBe(404);
    expect((await owner.call('GET', url)).status).toBe(404);
    expect((await owner.call('DELETE', url)).status).toBe(404);
    expect((await owner.call('GET', path)).body.result).toEqual([]);

    // Without If-Match a delete needs no tag; the name can be taken again, by either kind.
    const again = await owner.call('POST', path, { name: 'reg', kind: 'discovery' });
    expect(again.status).toBe(201);
    expect(again.body.id).not.toBe(created.body.id);
    expect((await owner.call('DELETE', `${path}/${again.body.id}`, undefined, { 'if-match': '*' })).status).toBe(204);
  });

  it('bad input: reserved names, names that are no path segment, bad kinds, wrong types, unknown fields (400); duplicates (409)', async () => {
    const { owner, organization, path } = await ownerWithTenant();
    for (const name of ['api', 'sphere', 'graphql', 'console', 'lookup', 'shell-descriptors', 'description']) {
      expect(RESERVED_INSTANCE_NAMES.has(name)).toBe(true);
      const res = await owner.call('POST', path, { name, kind: 'discovery' });
      expect(res.status, name).toBe(400);
      expect(res.body.messages[0].text).toMatch(/reserved/);
    }
    const bad: unknown[] = [
      { name: 'Upper', kind: 'discovery' },
      { name: 'a'.repeat(64), kind: 'discovery' },
      { name: '', kind: 'discovery' },
      { name: 'a/b', kind: 'discovery' },
      { name: 'a_b', kind: 'discovery' },
      { name: '-dash', kind: 'discovery' },
      { name: 'dash-', kind: 'discovery' },
      { name: 'a b', kind: 'discovery' },
      { name: 'ok-name', kind: 'submodel-registry' },
      { name: 'ok-name', kind: 'Discovery' },
      { name: 'ok-name', kind: '' },
      { name: 'ok-name' },
      { kind: 'discovery' },
      { name: 7, kind: 'discovery' },
      { name: 'ok-name', kind: ['discovery'] },
      { name: 'ok-name', kind: 'discovery', color: 'red' },
      {},
      [],
      'not json',
      '{"name": "ok-name"',
    ];
    for (const body of bad) {
      const res = await owner.call('POST', path, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.messages[0].text).toBeTruthy();
    }
    // 63 characters are fine.
    expect((await owner.call('POST', path, { name: 'a'.repeat(63), kind: 'discovery' })).status).toBe(201);
    expect((await owner.call('GET', path)).body.result.map((i: { name: string }) => i.name)).toEqual(['a'.repeat(63)]);

    // One name per tenant, whatever the kind; the same name in another tenant (of any organization) is fine.
    expect((await owner.call('POST', path, { name: 'twice', kind: 'discovery' })).status).toBe(201);
    for (const kind of ['discovery', 'aas-registry']) {
      const res = await owner.call('POST', path, { name: 'twice', kind });
      expect(res.status, kind).toBe(409);
      expect(res.body.messages[0].text).toMatch(/twice/);
    }
    const second = await owner.call('POST', `/organizations/${organization.id}/tenants`, { name: unique('rt') });
    expect((await owner.call('POST', `/organizations/${organization.id}/tenants/${second.body.id}/registry-instances`, { name: 'twice', kind: 'aas-registry' })).status).toBe(201);
    const elsewhere = await ownerWithTenant();
    expect((await elsewhere.owner.call('POST', elsewhere.path, { name: 'twice', kind: 'discovery' })).status).toBe(201);

    // Ids that are no instance's.
    for (const id of ['not-a-uuid', '00000000-0000-0000-0000-000000000000', 'x'.repeat(300)]) {
      expect((await owner.call('GET', `${path}/${id}`)).status, id).toBe(404);
      expect((await owner.call('DELETE', `${path}/${id}`)).status, id).toBe(404);
    }
    for (const tenantId of ['not-a-uuid', '00000000-0000-0000-0000-000000000000']) {
      const other = `/organizations/${organization.id}/tenants/${tenantId}/registry-instances`;
      expect((await owner.call('GET', other)).status).toBe(404);
      expect((await owner.call('POST', other, { name: 'fine', kind: 'discovery' })).status).toBe(404);
    }
  });

  it('authorization: readers and tenant members read, only owners write (403), strangers and other organizations 404, no token 401', async () => {
    const { owner, organization, tenant, path } = await ownerWithTenant();
    const created = await owner.call('POST', path, { name: 'guarded', kind: 'discovery' });
    const one = `${path}/${created.body.id}`;

    // Organization-wide reader and contributor: read, not write.
    for (const role of ['reader', 'contributor'] as const) {
      const client = await clientWithRole(server, organization.id, role);
      expect((await client.call('GET', path)).body.result.map((i: { id: string }) => i.id), role).toEqual([created.body.id]);
      expect((await client.call('GET', one)).status, role).toBe(200);
      expect((await client.call('POST', path, { name: unique(), kind: 'discovery' })).status, role).toBe(403);
      expect((await client.call('DELETE', one)).status, role).toBe(403);
    }

    // A tenant-level reader sees this tenant's instances, not another tenant's; writes are 403.
    const hidden = await owner.call('POST', `/organizations/${organization.id}/tenants`, { name: unique('rt') });
    const hiddenPath = `/organizations/${organization.id}/tenants/${hidden.body.id}/registry-instances`;
    await owner.call('POST', hiddenPath, { name: 'hidden', kind: 'aas-registry' });
    const member = await newUser(server);
    await assignRole(server, organization.id, { type: 'user', id: member.id }, 'reader', tenant.id);
    const memberClient = managementClient(server, await member.token());
    expect((await memberClient.call('GET', path)).status).toBe(200);
    expect((await memberClient.call('GET', one)).status).toBe(200);
    expect((await memberClient.call('GET', hiddenPath)).status).toBe(404);
    expect((await memberClient.call('POST', path, { name: unique(), kind: 'discovery' })).status).toBe(403);
    expect((await memberClient.call('DELETE', one)).status).toBe(403);

    // Someone with no role in the organization: 404 for everything in it, as for an organization that does not exist.
    const stranger = await newOrganization(server);
    const attempts: [ManagementClient, string, string, unknown?][] = [
      [stranger.owner, 'GET', path],
      [stranger.owner, 'GET', one],
      [stranger.owner, 'POST', path, { name: unique(), kind: 'discovery' }],
      [stranger.owner, 'DELETE', one],
    ];
    for (const [client, method, url, body] of attempts) expect((await client.call(method, url, body)).status, `${method} ${url}`).toBe(404);

    // The owner of another organization cannot reach this tenant through its own organization's path, nor this owner that one's.
    const foreignPath = `/organizations/${stranger.organization.id}/tenants/${tenant.id}/registry-instances`;
    expect((await stranger.owner.call('GET', foreignPath)).status).toBe(404);
    expect((await stranger.owner.call('POST', foreignPath, { name: unique(), kind: 'discovery' })).status).toBe(404);
    expect((await stranger.owner.call('DELETE', `${foreignPath}/${created.body.id}`)).status).toBe(404);
    const theirs = await stranger.owner.call('POST', `/organizations/${stranger.organization.id}/tenants`, { name: unique('rt') });
    const crossPath = `/organizations/${organization.id}/tenants/${theirs.body.id}/registry-instances`;
    expect((await owner.call('GET', crossPath)).status).toBe(404);
    expect((await owner.call('POST', crossPath, { name: unique(), kind: 'discovery' })).status).toBe(404);
    // An instance of this tenant addressed through another tenant of the same organization: 404.
    expect((await owner.call('GET', `${hiddenPath}/${created.body.id}`)).status).toBe(404);
    expect((await owner.call('DELETE', `${hiddenPath}/${created.body.id}`)).status).toBe(404);

    // No token, or a bad one: 401, whether the organization exists or not.
    for (const token of [null, 'not-a-token']) {
      const anonymous = managementClient(server, token);
      for (const url of [path, one, '/organizations/00000000-0000-0000-0000-000000000000/tenants/00000000-0000-0000-0000-000000000000/registry-instances']) {
        expect((await anonymous.call('GET', url)).status, url).toBe(401);
      }
      expect((await anonymous.call('POST', path, { name: unique(), kind: 'discovery' })).status).toBe(401);
      expect((await anonymous.call('DELETE', one)).status).toBe(401);
    }
    expect((await owner.call('GET', one)).status).toBe(200);
  });

  it('the Management API document describes the routes, the body and the answers', async () => {
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    const doc: any = await (await fetch(`${server.url}/api/v1/openapi.json`)).json();
    const list = '/api/v1/organizations/{organizationId}/tenants/{tenantId}/registry-instances';
    expect(Object.keys(doc.paths[list]).sort()).toEqual(['get', 'post']);
    expect(Object.keys(doc.paths[`${list}/{instanceId}`]).sort()).toEqual(['delete', 'get']);
    expect(doc.paths[list].post.requestBody.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/RegistryInstanceInput' });
    expect(doc.components.schemas.RegistryInstanceInput).toMatchObject({ type: 'object', required: ['name', 'kind'], additionalProperties: false });
    expect(doc.paths[list].get.parameters.map((p: { name: string }) => p.name)).toEqual(['organizationId', 'tenantId', 'limit', 'cursor']);
    expect(doc.paths[`${list}/{instanceId}`].delete.parameters.map((p: { name: string }) => p.name)).toContain('If-Match');
    expect(Object.keys(doc.paths[`${list}/{instanceId}`].delete.responses)).toEqual(expect.arrayContaining(['204', '401', '403', '404', '412']));
    expect(Object.keys(doc.paths[list].post.responses)).toEqual(expect.arrayContaining(['400', '401', '403', '404', '409']));
    const answer = doc.paths[list].post.responses['201'].content['application/json'].schema;
    const shown = answer.$ref ? doc.components.schemas[answer.$ref.split('/').pop()] : answer;
    expect(Object.keys(shown.properties).sort()).toEqual(['createdAt', 'id', 'kind', 'name', 'tenantId', 'updatedAt', 'url']);
  });
});

describe('registry instances (GraphQL)', () => {
  const FIELDS = 'id tenantId name kind url etag createdAt updatedAt';
  const CREATE = `mutation($o: ID!, $t: ID!, $input: RegistryInstanceInput!) { createRegistryInstance(organizationId: $o, tenantId: $t, input: $input) { ${FIELDS} } }`;
  const LIST = `query($o: ID!, $t: ID!, $limit: Int, $cursor: String) { registryInstances(organizationId: $o, tenantId: $t, limit: $limit, cursor: $cursor) { result { ${FIELDS} } pagingMetadata { cursor } } }`;
  const GET = `query($o: ID!, $t: ID!, $i: ID!) { registryInstance(organizationId: $o, tenantId: $t, instanceId: $i) { ${FIELDS} } }`;
  const DELETE = 'mutation($o: ID!, $t: ID!, $i: ID!, $ifMatch: String) { deleteRegistryInstance(organizationId: $o, tenantId: $t, instanceId: $i, ifMatch: $ifMatch) }';
  const codeOf = (body: { errors?: { extensions?: { code?: string } }[] }) => body.errors?.[0]?.extensions?.code;

  it('create, list with paging, get, delete with its data and If-Match', async () => {
    const { owner, organization, tenant } = await ownerWithTenant();
    const vars = { o: organization.id, t: tenant.id };
    const a = await graphql(server, owner.token, CREATE, { ...vars, input: { name: 'gq-discovery', kind: 'discovery' } });
    expect(a.body.errors).toBeUndefined();
    const created = a.body.data.createRegistryInstance;
    expect(created).toMatchObject({ name: 'gq-discovery', kind: 'discovery', tenantId: tenant.id, url: `${tenant.url}/gq-discovery/api/v3.0` });
    expect(created.etag).toMatch(/^".+"$/);
    const b = (await graphql(server, owner.token, CREATE, { ...vars, input: { name: 'gq-registry', kind: 'aas-registry' } })).body.data.createRegistryInstance;

    const first = (await graphql(server, owner.token, LIST, { ...vars, limit: 1 })).body.data.registryInstances;
    expect(first.result).toEqual([created]);
    expect(first.pagingMetadata.cursor).toBeTruthy();
    const second = (await graphql(server, owner.token, LIST, { ...vars, limit: 1, cursor: first.pagingMetadata.cursor })).body.data.registryInstances;
    expect(second).toEqual({ result: [b], pagingMetadata: { cursor: null } });
    expect((await graphql(server, owner.token, GET, { ...vars, i: b.id })).body.data.registryInstance).toEqual(b);

    const tenantRow = await tenantEntity(tenant.name);
    const instance = await server.services.registryInstances.resolve(tenantRow, 'gq-registry', 'aas-registry');
    await server.services.shellDescriptors.create(tenantRow, instance, { id: 'urn:x', endpoints: [{ interface: 'AAS-3.0', protocolInformation: { href: 'http://x' } }] });
    expect(await descriptorCount(b.id)).toBe(1);
    expect(codeOf((await graphql(server, owner.token, DELETE, { ...vars, i: b.id, ifMatch: '"0-0"' })).body)).toBe('PRECONDITION_FAILED');
    const deleted = await graphql(server, owner.token, DELETE, { ...vars, i: b.id, ifMatch: b.etag });
    expect(deleted.body).toEqual({ data: { deleteRegistryInstance: true } });
    expect(await descriptorCount(b.id)).toBe(0);
    expect(codeOf((await graphql(server, owner.token, GET, { ...vars, i: b.id })).body)).toBe('NOT_FOUND');
  });

  it('errors carry the codes the REST statuses come from', async () => {
    const { owner, organization, tenant } = await ownerWithTenant();
    const vars = { o: organization.id, t: tenant.id };
    const create = async (token: string | null, input: unknown, v: Record<string, unknown> = vars) => codeOf((await graphql(server, token, CREATE, { ...v, input })).body);
    expect(await create(owner.token, { name: 'api', kind: 'discovery' })).toBe('BAD_REQUEST');
    expect(await create(owner.token, { name: 'sphere', kind: 'aas-registry' })).toBe('BAD_REQUEST');
    expect(await create(owner.token, { name: 'Upper', kind: 'discovery' })).toBe('BAD_REQUEST');
    expect(await create(owner.token, { name: 'fine', kind: 'submodel-registry' })).toBe('BAD_REQUEST');
    expect(await create(owner.token, { name: 'fine' })).toBe('BAD_USER_INPUT');
    expect(await create(owner.token, { name: 'fine', kind: 'discovery' })).toBeUndefined();
    expect(await create(owner.token, { name: 'fine', kind: 'aas-registry' })).toBe('CONFLICT');
    expect(await create(null, { name: 'anon', kind: 'discovery' })).toBe('UNAUTHENTICATED');
    const reader = await clientWithRole(server, organization.id, 'reader');
    expect(await create(reader.token, { name: 'by-reader', kind: 'discovery' })).toBe('FORBIDDEN');
    expect((await graphql(server, reader.token, LIST, vars)).body.data.registryInstances.result.map((i: { name: string }) => i.name)).toEqual(['fine']);
    const stranger = await newOrganization(server);
    expect(codeOf((await graphql(server, stranger.owner.token, LIST, vars)).body)).toBe('NOT_FOUND');
    expect(await create(stranger.owner.token, { name: 'theirs', kind: 'discovery' }, { o: stranger.organization.id, t: tenant.id })).toBe('NOT_FOUND');
    expect(codeOf((await graphql(server, owner.token, LIST, { ...vars, limit: 251 })).body)).toBe('BAD_REQUEST');
    expect(codeOf((await graphql(server, owner.token, LIST, { ...vars, cursor: 'nonsense' })).body)).toBe('BAD_REQUEST');
  });
});
