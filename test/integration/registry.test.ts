import http from 'node:http';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { TenantEntity } from '../../src/management/tenants/tenant.entity';
import { handWrittenCases, loadSchemas, schemaCases, validShellDescriptors, validSubmodelDescriptors } from '../support/descriptor-corpus';
import { assignRole, graphql } from '../support/grants';
import { newServiceAccount } from '../support/identity';
import { TestServer, b64, json, sampleShell, startTestServer } from '../support/server';

/**
 * Registries and discovery over REST (and GraphQL where only it reaches): the tenant's implicit services,
 * derived from its shells and submodels, and explicit instances with data of their own.
 */

let server: TestServer;
let tenant: TenantEntity;
let api: string;

type Headers = Record<string, string>;
const send = (url: string, method: string, body?: unknown, headers: Headers = {}) =>
  fetch(url, {
    method,
    headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
const assetId = (name: string, value: string) => Buffer.from(JSON.stringify({ name, value })).toString('base64url');
const ids = async (res: Response | Promise<Response>) => {
  const r = await res;
  const body = await json(r);
  expect(r.status, JSON.stringify(body)).toBe(200);
  return body.result as string[];
};
const messageOf = async (res: Response) => (await json(res) as { messages: { text: string }[] }).messages.map((m) => m.text).join(' | ');
/** `{tenant_url}/{instance}/api/v3.0` of the tenant (or another). */
const instanceApi = (name: string, t: TenantEntity = tenant) => `${server.url}/tenants/${t.name}/${name}/api/v3.0`;

const semanticRef = (value: string) => ({ type: 'ExternalReference', keys: [{ type: 'GlobalReference', value }] });
const submodel = (id: string, semantic: string) => ({ modelType: 'Submodel', id, idShort: 'Sm', semanticId: semanticRef(semantic), submodelElements: [{ modelType: 'Property', idShort: 'P', valueType: 'xs:string', value: 'x' }] });
const smRef = (id: string) => ({ type: 'ModelReference', keys: [{ type: 'Submodel', value: id }] });

const S1 = 'urn:reg:shell:1';
const S2 = 'urn:reg:shell:2';
const S3 = 'urn:reg:shell:3';
const SM1 = 'urn:reg:sm:1';
const SM2 = 'urn:reg:sm:2';

beforeAll(async () => {
  server = await startTestServer(inject('databaseUrl'));
  tenant = await server.createTenant();
  api = server.api(tenant.name);
  for (const sm of [submodel(SM1, 'urn:sem:one'), submodel(SM2, 'urn:sem:two')]) expect((await send(`${api}/submodels`, 'POST', sm)).status).toBe(201);
  const shells = [
    sampleShell(S1, {
      assetInformation: { assetKind: 'Instance', assetType: 'urn:type:pump', globalAssetId: 'urn:asset:1', specificAssetIds: [{ name: 'serial', value: '1' }] },
      // The third submodel is not stored here: its descriptor is left out.
      submodels: [smRef(SM1), smRef(SM2), smRef('urn:reg:sm:elsewhere')],
    }),
    sampleShell(S2, { assetInformation: { assetKind: 'Type', globalAssetId: 'urn:asset:2', specificAssetIds: [{ name: 'serial', value: '2' }] } }),
    sampleShell(S3, { assetInformation: { assetKind: 'Instance', globalAssetId: 'urn:asset:3', specificAssetIds: [{ name: 'serial', value: '1' }] } }),
  ];
  for (const shell of shells) expect((await send(`${api}/shells`, 'POST', shell)).status).toBe(201);
});
afterAll(() => server?.close());

describe('implicit discovery', () => {
  it('looks shells up by asset ids (all must match; globalAssetId names the global asset id), kind and type', async () => {
    expect(await ids(fetch(`${api}/lookup/shells?assetIds=${assetId('serial', '1')}`))).toEqual([S1, S3]);
    expect(await ids(fetch(`${api}/lookup/shells?assetIds=${assetId('serial', '1')}&assetIds=${assetId('globalAssetId', 'urn:asset:1')}`))).toEqual([S1]);
    expect(await ids(fetch(`${api}/lookup/shells?assetIds=${assetId('globalAssetId', 'urn:asset:3')}`))).toEqual([S3]);
    expect(await ids(fetch(`${api}/lookup/shells?assetIds=${assetId('serial', 'none')}`))).toEqual([]);
    expect(await ids(fetch(`${api}/lookup/shells?assetKind=Type`))).toEqual([S2]);
    expect(await ids(fetch(`${api}/lookup/shells?assetType=${b64('urn:type:pump')}`))).toEqual([S1]);
    expect(await ids(fetch(`${api}/lookup/shells`))).toEqual([S1, S2, S3]);
  });

  it('pages with limit and cursor', async () => {
    const first = await json(fetch(`${api}/lookup/shells?limit=2`));
    expect(first.result).toEqual([S1, S2]);
    expect(first.paging_metadata.cursor).toBeTruthy();
    const second = await json(fetch(`${api}/lookup/shells?limit=2&cursor=${first.paging_metadata.cursor}`));
    expect(second).toEqual({ paging_metadata: {}, result: [S3] });
  });

  it("gives a shell's asset links: its global asset id and specific asset ids", async () => {
    const res = await fetch(`${api}/lookup/shells/${b64(S1)}`);
    expect(res.status).toBe(200);
    expect(await json(res)).toEqual([{ name: 'globalAssetId', value: 'urn:asset:1' }, { name: 'serial', value: '1' }]);
    expect((await fetch(`${api}/lookup/shells/${b64('urn:reg:none')}`)).status).toBe(404);
  });

  it('searches by asset links in the body (POST /lookup/shellsByAssetLink), paged', async () => {
    const url = `${api}/lookup/shellsByAssetLink`;
    expect(await ids(send(url, 'POST', [{ name: 'serial', value: '1' }]))).toEqual([S1, S3]);
    expect(await ids(send(url, 'POST', [{ name: 'serial', value: '1' }, { name: 'globalAssetId', value: 'urn:asset:3' }]))).toEqual([S3]);
    const page = await json(send(`${url}?limit=1`, 'POST', [{ name: 'serial', value: '1' }]));
    expect(page.result).toEqual([S1]);
    expect(await ids(send(`${url}?limit=1&cursor=${page.paging_metadata.cursor}`, 'POST', [{ name: 'serial', value: '1' }]))).toEqual([S3]);
    for (const [body, text] of [
      [{ name: 'serial', value: '1' }, /JSON array/],
      [[{ name: 'x'.repeat(65), value: '1' }], /\[0\]\.name: must be 1 to 64/],
      [[{ name: 'serial', value: 'v'.repeat(2049) }], /\[0\]\.value: must be 1 to 2048/],
      [[{ name: 'serial' }], /\[0\]\.value: is required/],
      [[{ name: '', value: '1' }], /\[0\]\.name/],
      [[{ name: 'serial', value: 1 }], /\[0\]\.value: must be a string/],
      [[{ name: 'serial', value: '1', semanticId: {} }], /\[0\]\.semanticId/],
      [['serial'], /\[0\]/],
    ] as const) {
      const res = await send(url, 'POST', body);
      expect(res.status, JSON.stringify(body).slice(0, 80)).toBe(400);
      expect(await messageOf(res)).toMatch(text);
    }
  });

  it('answers bad input with 400: a bare asset id, a bad kind, limit or cursor', async () => {
    for (const query of [
      'assetIds=serial',
      `assetIds=${b64('serial')}`,
      `assetIds=${b64('{"name":"serial"}')}`,
      'assetKind=Bogus',
      'limit=0',
      'limit=251',
      'limit=x',
      'cursor=bogus',
      `cursor=${b64('{"list":"shells","after":1}')}`,
      `assetType=${'%00'}`,
    ]) {
      const res = await fetch(`${api}/lookup/shells?${query}`);
      expect(res.status, query).toBe(400);
      expect((await json(res)).messages[0].code).toBe('400');
    }
    expect((await fetch(`${api}/lookup/shells/${'x'.repeat(3000)}`)).status).toBe(400);
    // Identifiers over 2048 characters, in any path.
    const long = b64(`urn:${'x'.repeat(2045)}`);
    for (const path of [`/lookup/shells/${long}`, `/shell-descriptors/${long}`, `/shell-descriptors/${long}/submodel-descriptors`, `/shell-descriptors/${b64(S1)}/submodel-descriptors/${long}`, `/submodel-descriptors/${long}`]) {
      const res = await fetch(`${api}${path}`);
      expect(res.status, path).toBe(400);
      expect(await messageOf(res)).toMatch(/at most 2048 characters/);
    }
  });
});

describe('implicit AAS and submodel registries', () => {
  it('describes each shell with its endpoint in this repository and the submodels it references that the tenant stores', async () => {
    const res = await fetch(`${api}/shell-descriptors/${b64(S1)}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('etag')).toMatch(/^"d-/);
    const descriptor = await json(res);
    expect(descriptor).toMatchObject({ id: S1, idShort: 'Sample', assetKind: 'Instance', assetType: 'urn:type:pump', globalAssetId: 'urn:asset:1' });
    expect(descriptor.specificAssetIds).toEqual([{ name: 'serial', value: '1' }]);
    expect(descriptor.endpoints).toEqual([
      { interface: 'AAS-3.0', protocolInformation: { href: `${api}/shells/${b64(S1)}`, endpointProtocol: 'HTTP', endpointProtocolVersion: ['1.1'] } },
    ]);
    expect(descriptor.submodelDescriptors.map((d: { id: string }) => d.id)).toEqual([SM1, SM2]);
    expect(descriptor.submodelDescriptors[0]).toEqual({
      idShort: 'Sm',
      id: SM1,
      semanticId: semanticRef('urn:sem:one'),
      endpoints: [{ interface: 'SUBMODEL-3.0', protocolInformation: { href: `${api}/submodels/${b64(SM1)}`, endpointProtocol: 'HTTP', endpointProtocolVersion: ['1.1'] } }],
    });
    // The endpoint answers: it is this tenant's repository.
    expect((await fetch(descriptor.endpoints[0].protocolInformation.href)).status).toBe(200);
    expect((await fetch(descriptor.submodelDescriptors[0].endpoints[0].protocolInformation.href)).status).toBe(200);
    expect((await fetch(`${api}/shell-descriptors/${b64('urn:reg:none')}`)).status).toBe(404);
  });

  it('lists shell descriptors, filtered by asset kind, type and ids, paged', async () => {
    const list = await json(fetch(`${api}/shell-descriptors`));
    expect(list.result.map((d: { id: string }) => d.id)).toEqual([S1, S2, S3]);
    expect(list.result[1].submodelDescriptors).toBeUndefined();
    const ofList = async (query: string) => (await json(fetch(`${api}/shell-descriptors?${query}`))).result.map((d: { id: string }) => d.id);
    expect(await ofList('assetKind=Type')).toEqual([S2]);
    expect(await ofList(`assetType=${b64('urn:type:pump')}`)).toEqual([S1]);
    expect(await ofList(`assetIds=${assetId('serial', '1')}`)).toEqual([S1, S3]);
    const first = await json(fetch(`${api}/shell-descriptors?limit=1`));
    expect(first.result.map((d: { id: string }) => d.id)).toEqual([S1]);
    expect(await ofList(`limit=5&cursor=${first.paging_metadata.cursor}`)).toEqual([S2, S3]);
    for (const query of ['limit=0', 'cursor=zz', 'assetIds=serial', 'assetKind=instance']) expect((await fetch(`${api}/shell-descriptors?${query}`)).status, query).toBe(400);
    // No submodel semanticId filter on the implicit AAS registry (its operation does not declare one): a 400 naming
    // the parameter and the filters it has.
    const refused = await fetch(`${api}/shell-descriptors?submodelSemanticId=${b64('urn:sem:one')}`);
    expect(refused.status).toBe(400);
    expect(await messageOf(refused)).toMatch(/^Unknown query parameter 'submodelSemanticId': GET \/shell-descriptors accepts limit, cursor, assetKind, assetType, assetIds\.$/);
  });

  it("serves a shell descriptor's submodel descriptors, paged, one by one, and by semanticId", async () => {
    const base = `${api}/shell-descriptors/${b64(S1)}/submodel-descriptors`;
    const page = await json(fetch(`${base}?limit=1`));
    expect(page.result.map((d: { id: string }) => d.id)).toEqual([SM1]);
    const rest = await json(fetch(`${base}?cursor=${page.paging_metadata.cursor}`));
    expect(rest.result.map((d: { id: string }) => d.id)).toEqual([SM2]);
    expect((await json(fetch(`${base}?semanticId=${b64('urn:sem:two')}`))).result.map((d: { id: string }) => d.id)).toEqual([SM2]);
    const one = await fetch(`${base}/${b64(SM2)}`);
    expect(one.status).toBe(200);
    // Part of the shell descriptor: its entity tag.
    expect(one.headers.get('etag')).toBe((await fetch(`${api}/shell-descriptors/${b64(S1)}`)).headers.get('etag'));
    expect((await json(one)).id).toBe(SM2);
    // Referenced but not stored here, or not referenced: 404.
    expect((await fetch(`${base}/${b64('urn:reg:sm:elsewhere')}`)).status).toBe(404);
    expect((await fetch(`${api}/shell-descriptors/${b64(S2)}/submodel-descriptors/${b64(SM1)}`)).status).toBe(404);
    expect(await json(fetch(`${api}/shell-descriptors/${b64(S2)}/submodel-descriptors`))).toEqual({ paging_metadata: {}, result: [] });
  });

  it('is a submodel registry of every stored submodel, filtered by semanticId as /submodels is', async () => {
    const all = await json(fetch(`${api}/submodel-descriptors`));
    expect(all.result.map((d: { id: string }) => d.id)).toEqual([SM1, SM2]);
    expect(all.result[0].submodelElements).toBeUndefined();
    const bySemantic = async (encoded: string) => (await json(fetch(`${api}/submodel-descriptors?semanticId=${encoded}`))).result.map((d: { id: string }) => d.id);
    expect(await bySemantic(b64(JSON.stringify(semanticRef('urn:sem:one'))))).toEqual([SM1]);
    expect(await bySemantic(b64('urn:sem:two'))).toEqual([SM2]);
    expect(await bySemantic(b64('urn:sem:none'))).toEqual([]);
    const one = await fetch(`${api}/submodel-descriptors/${b64(SM1)}`);
    expect(one.status).toBe(200);
    expect(one.headers.get('etag')).toMatch(/^"d-/);
    expect((await json(one)).endpoints[0].protocolInformation.href).toBe(`${api}/submodels/${b64(SM1)}`);
    expect((await fetch(`${api}/submodel-descriptors/${b64('urn:reg:none')}`)).status).toBe(404);
    const page = await json(fetch(`${api}/submodel-descriptors?limit=1`));
    expect(page.paging_metadata.cursor).toBeTruthy();
    for (const query of ['limit=300', 'cursor=%20', `semanticId=${'%00'}`]) expect((await fetch(`${api}/submodel-descriptors?${query}`)).status, query).toBe(400);
  });

  it('reflects a change of the repository in the very next request', async () => {
    const other = await server.createTenant();
    const otherApi = server.api(other.name);
    const id = 'urn:reg:live';
    expect((await send(`${otherApi}/submodels`, 'POST', submodel('urn:reg:live:sm', 'urn:sem:live'))).status).toBe(201);
    expect((await send(`${otherApi}/shells`, 'POST', sampleShell(id, { submodels: [smRef('urn:reg:live:sm')] }))).status).toBe(201);
    const before = await fetch(`${otherApi}/shell-descriptors/${b64(id)}`);
    const etag = before.headers.get('etag');
    expect((await json(before)).submodelDescriptors).toHaveLength(1);

    const changed = sampleShell(id, { idShort: 'Changed', assetInformation: { assetKind: 'Instance', globalAssetId: 'urn:reg:live:new' }, submodels: [smRef('urn:reg:live:sm')] });
    expect((await send(`${otherApi}/shells/${b64(id)}`, 'PUT', changed)).status).toBe(204);
    expect(await ids(fetch(`${otherApi}/lookup/shells?assetIds=${assetId('globalAssetId', 'urn:reg:live:new')}`))).toEqual([id]);
    expect(await ids(fetch(`${otherApi}/lookup/shells?assetIds=${assetId('globalAssetId', `${id}#asset`)}`))).toEqual([]);
    const after = await fetch(`${otherApi}/shell-descriptors/${b64(id)}`);
    expect(after.headers.get('etag')).not.toBe(etag);
    expect(await json(after)).toMatchObject({ idShort: 'Changed', globalAssetId: 'urn:reg:live:new' });

    expect((await send(`${otherApi}/submodels/${b64('urn:reg:live:sm')}`, 'DELETE')).status).toBe(204);
    expect((await json(fetch(`${otherApi}/shell-descriptors/${b64(id)}`))).submodelDescriptors).toBeUndefined();
    expect((await fetch(`${otherApi}/submodel-descriptors/${b64('urn:reg:live:sm')}`)).status).toBe(404);
    expect((await send(`${otherApi}/shells/${b64(id)}`, 'DELETE')).status).toBe(204);
    expect((await fetch(`${otherApi}/shell-descriptors/${b64(id)}`)).status).toBe(404);
    expect(await ids(fetch(`${otherApi}/lookup/shells`))).toEqual([]);
  });

  it('refuses writes with 405 and a Result that says the implicit services are read-only and where to write', async () => {
    const descriptor = { id: 'urn:reg:new' };
    for (const [method, path, body, where] of [
      ['POST', '/shell-descriptors', descriptor, /repository.*explicit AAS registry/],
      ['DELETE', `/shell-descriptors/${b64(S1)}`, undefined, /read-only/],
      ['POST', `/shell-descriptors/${b64(S1)}/submodel-descriptors`, descriptor, /read-only/],
      ['DELETE', `/shell-descriptors/${b64(S1)}/submodel-descriptors/${b64(SM1)}`, undefined, /read-only/],
      ['POST', '/submodel-descriptors', descriptor, /read-only/],
      ['DELETE', `/submodel-descriptors/${b64(SM1)}`, undefined, /read-only/],
      ['POST', `/lookup/shells/${b64(S1)}`, [{ name: 'a', value: 'b' }], /explicit discovery instance/],
      ['DELETE', `/lookup/shells/${b64(S1)}`, undefined, /discovery service are read-only/],
    ] as const) {
      const res = await send(`${api}${path}`, method, body);
      expect(res.status, `${method} ${path}`).toBe(405);
      // One descriptor also takes a PUT of what is derived.
      expect(res.headers.get('allow')).toBe(/descriptors\/[^/]+$/.test(path) ? 'GET, HEAD, PUT' : 'GET, HEAD');
      expect(await messageOf(res)).toMatch(where);
    }
    // A PUT of a descriptor other than the derived one: 409, saying where descriptors of one's own live.
    for (const path of [`/shell-descriptors/${b64(S1)}`, `/shell-descriptors/${b64(S1)}/submodel-descriptors/${b64(SM1)}`, `/submodel-descriptors/${b64(SM1)}`]) {
      const res = await send(`${api}${path}`, 'PUT', descriptor);
      expect(res.status, `PUT ${path}`).toBe(409);
      expect(await messageOf(res)).toMatch(/derives this descriptor.*explicit AAS registry instance/);
    }
    expect((await fetch(`${api}/shell-descriptors/${b64(S1)}`)).status).toBe(200);
  });

  it("describes the tenant's profiles: the repositories and the implicit registries' read profiles", async () => {
    const { profiles } = await json(fetch(`${api}/description`));
    expect(profiles).toEqual(
      expect.arrayContaining([
        'https://admin-shell.io/aas/API/3/0/AssetAdministrationShellRepositoryServiceSpecification/SSP-001',
        'https://admin-shell.io/aas/API/3/0/AssetAdministrationShellRegistryServiceSpecification/SSP-002',
        'https://admin-shell.io/aas/API/3/0/SubmodelRegistryServiceSpecification/SSP-002',
      ]),
    );
    expect(profiles.some((p: string) => p.includes('Discovery'))).toBe(false);
  });
});

describe('explicit AAS registry instances', () => {
  let reg: string;
  beforeAll(async () => {
    await server.services.registryInstances.create(tenant, { name: 'reg-a', kind: 'aas-registry' });
    await server.services.registryInstances.create(tenant, { name: 'reg-b', kind: 'aas-registry' });
    await server.services.registryInstances.create(tenant, { name: 'disco', kind: 'discovery' });
    reg = instanceApi('reg-a');
  });

  const descriptor = (id: string, extra: Record<string, unknown> = {}) => ({
    id,
    idShort: 'Motor',
    assetKind: 'Instance',
    globalAssetId: `${id}#asset`,
    specificAssetIds: [{ name: 'serial', value: id.slice(-1) }],
    endpoints: [{ interface: 'AAS-3.0', protocolInformation: { href: `https://elsewhere.example/shells/${b64(id)}` } }],
    ...extra,
  });
  const smDescriptor = (id: string, semantic: string) => ({
    id,
    semanticId: semanticRef(semantic),
    endpoints: [{ interface: 'SUBMODEL-3.0', protocolInformation: { href: `https://elsewhere.example/submodels/${b64(id)}` } }],
  });

  it('creates (201, Location, ETag), reads, replaces under If-Match (412 when stale) and deletes shell descriptors', async () => {
    const id = 'urn:reg:desc:1';
    const created = await send(`${reg}/shell-descriptors`, 'POST', descriptor(id));
    expect(created.status).toBe(201);
    expect(created.headers.get('location')).toBe(`${reg}/shell-descriptors/${b64(id)}`);
    const etag = created.headers.get('etag')!;
    expect(etag).toBeTruthy();
    expect(await json(created)).toEqual(descriptor(id));

    const got = await fetch(created.headers.get('location')!);
    expect(got.status).toBe(200);
    expect(got.headers.get('etag')).toBe(etag);
    expect(await json(got)).toEqual(descriptor(id));

    const again = await send(`${reg}/shell-descriptors`, 'POST', descriptor(id, { idShort: 'Other' }));
    expect(again.status).toBe(409);
    const changed = descriptor(id, { idShort: 'Changed' });
    expect((await send(`${reg}/shell-descriptors/${b64(id)}`, 'PUT', changed, { 'if-match': '"stale"' })).status).toBe(412);
    const put = await send(`${reg}/shell-descriptors/${b64(id)}`, 'PUT', changed, { 'if-match': etag });
    expect(put.status).toBe(204);
    expect(put.headers.get('etag')).not.toBe(etag);
    expect((await json(fetch(`${reg}/shell-descriptors/${b64(id)}`))).idShort).toBe('Changed');
    expect((await send(`${reg}/shell-descriptors/${b64(id)}`, 'PUT', descriptor('urn:reg:desc:other'))).status).toBe(400);
    expect((await send(`${reg}/shell-descriptors/${b64('urn:reg:absent')}`, 'PUT', descriptor('urn:reg:absent'))).status).toBe(404);

    expect((await send(`${reg}/shell-descriptors/${b64(id)}`, 'DELETE', undefined, { 'if-match': etag })).status).toBe(412);
    expect((await send(`${reg}/shell-descriptors/${b64(id)}`, 'DELETE', undefined, { 'if-match': put.headers.get('etag')! })).status).toBe(204);
    expect((await fetch(`${reg}/shell-descriptors/${b64(id)}`)).status).toBe(404);
    expect((await send(`${reg}/shell-descriptors/${b64(id)}`, 'DELETE')).status).toBe(404);
  });

  it('keeps submodel descriptors under their shell descriptor: create, list, read, replace, delete, filter by semanticId', async () => {
    const aas = 'urn:reg:desc:sm';
    expect((await send(`${reg}/shell-descriptors`, 'POST', descriptor(aas))).status).toBe(201);
    const base = `${reg}/shell-descriptors/${b64(aas)}/submodel-descriptors`;
    const created = await send(base, 'POST', smDescriptor('urn:reg:d:sm1', 'urn:sem:a'));
    expect(created.status).toBe(201);
    expect(created.headers.get('location')).toBe(`${base}/${b64('urn:reg:d:sm1')}`);
    expect((await send(base, 'POST', smDescriptor('urn:reg:d:sm2', 'urn:sem:b'))).status).toBe(201);
    expect((await send(base, 'POST', smDescriptor('urn:reg:d:sm2', 'urn:sem:b'))).status).toBe(409);

    const page = await json(fetch(`${base}?limit=1`));
    expect(page.result.map((d: { id: string }) => d.id)).toEqual(['urn:reg:d:sm1']);
    expect((await json(fetch(`${base}?cursor=${page.paging_metadata.cursor}`))).result.map((d: { id: string }) => d.id)).toEqual(['urn:reg:d:sm2']);
    expect((await json(fetch(`${base}?semanticId=${b64('urn:sem:b')}`))).result.map((d: { id: string }) => d.id)).toEqual(['urn:reg:d:sm2']);
    expect((await json(fetch(`${base}?semanticId=${b64(JSON.stringify(semanticRef('urn:sem:a')))}`))).result.map((d: { id: string }) => d.id)).toEqual(['urn:reg:d:sm1']);
    // The registry's shell descriptors by a submodel descriptor's semanticId.
    const bySubmodel = await json(fetch(`${reg}/shell-descriptors?submodelSemanticId=${b64('urn:sem:b')}`));
    expect(bySubmodel.result.map((d: { id: string }) => d.id)).toEqual([aas]);
    expect((await json(fetch(`${reg}/shell-descriptors?submodelSemanticId=${b64('urn:sem:none')}`))).result).toEqual([]);

    const one = await fetch(`${base}/${b64('urn:reg:d:sm1')}`);
    expect(one.status).toBe(200);
    expect(await json(one)).toEqual(smDescriptor('urn:reg:d:sm1', 'urn:sem:a'));
    const etag = one.headers.get('etag')!;
    expect((await send(`${base}/${b64('urn:reg:d:sm1')}`, 'PUT', smDescriptor('urn:reg:d:sm1', 'urn:sem:c'), { 'if-match': '"nope"' })).status).toBe(412);
    expect((await send(`${base}/${b64('urn:reg:d:sm1')}`, 'PUT', smDescriptor('urn:reg:d:sm1', 'urn:sem:c'), { 'if-match': etag })).status).toBe(204);
    expect((await json(fetch(`${base}/${b64('urn:reg:d:sm1')}`))).semanticId).toEqual(semanticRef('urn:sem:c'));
    expect((await send(`${base}/${b64('urn:reg:d:sm1')}`, 'PUT', smDescriptor('urn:reg:d:other', 'urn:sem:c'))).status).toBe(400);
    expect((await send(`${base}/${b64('urn:reg:d:sm1')}`, 'DELETE')).status).toBe(204);
    expect((await fetch(`${base}/${b64('urn:reg:d:sm1')}`)).status).toBe(404);
    expect((await json(fetch(`${reg}/shell-descriptors/${b64(aas)}`))).submodelDescriptors.map((d: { id: string }) => d.id)).toEqual(['urn:reg:d:sm2']);
    expect((await send(`${reg}/shell-descriptors/${b64('urn:reg:absent')}/submodel-descriptors`, 'POST', smDescriptor('urn:x', 'urn:y'))).status).toBe(404);
  });

  it('filters and pages shell descriptors', async () => {
    const inst = instanceApi('reg-b');
    for (const n of [1, 2, 3]) {
      const extra = n === 2 ? { assetKind: 'Type', assetType: 'urn:type:t' } : {};
      expect((await send(`${inst}/shell-descriptors`, 'POST', descriptor(`urn:reg:page:${n}`, extra))).status).toBe(201);
    }
    const idsOf = async (query: string) => (await json(fetch(`${inst}/shell-descriptors?${query}`))).result.map((d: { id: string }) => d.id);
    expect(await idsOf('')).toEqual(['urn:reg:page:1', 'urn:reg:page:2', 'urn:reg:page:3']);
    expect(await idsOf('assetKind=Type')).toEqual(['urn:reg:page:2']);
    expect(await idsOf(`assetType=${b64('urn:type:t')}`)).toEqual(['urn:reg:page:2']);
    expect(await idsOf(`assetIds=${assetId('serial', '3')}`)).toEqual(['urn:reg:page:3']);
    expect(await idsOf(`assetIds=${assetId('globalAssetId', 'urn:reg:page:1#asset')}`)).toEqual(['urn:reg:page:1']);
    const first = await json(fetch(`${inst}/shell-descriptors?limit=2`));
    expect(first.result).toHaveLength(2);
    expect(await idsOf(`limit=2&cursor=${first.paging_metadata.cursor}`)).toEqual(['urn:reg:page:3']);
    for (const query of ['limit=0', 'limit=1000', 'cursor=abc', 'assetIds=serial']) expect((await fetch(`${inst}/shell-descriptors?${query}`)).status, query).toBe(400);
  });

  it('refuses invalid descriptors with 400 naming the path, never 500', async () => {
    const schemas = loadSchemas();
    const cases = [
      ...handWrittenCases('shell'),
      ...schemaCases(schemas, 'shell').invalid.filter((_, i) => i % 7 === 0),
    ];
    expect(cases.length).toBeGreaterThan(10);
    for (const { label, doc, path } of cases) {
      const res = await fetch(`${reg}/shell-descriptors`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(doc) });
      // A body that is not an object is refused by the body reader, also with 400.
      expect(res.status, label).toBe(400);
      const text = await messageOf(res);
      if (doc !== null && typeof doc === 'object' && !Array.isArray(doc)) expect(text.includes(path) || path === '$', `${label}: ${text.slice(0, 300)}`).toBe(true);
    }
    const aas = 'urn:reg:invalid:sm';
    expect((await send(`${reg}/shell-descriptors`, 'POST', descriptor(aas))).status).toBe(201);
    for (const { label, doc, path } of handWrittenCases('submodel').filter((c) => c.doc !== null && typeof c.doc === 'object' && !Array.isArray(c.doc)).slice(0, 12)) {
      const res = await send(`${reg}/shell-descriptors/${b64(aas)}/submodel-descriptors`, 'POST', doc);
      expect(res.status, label).toBe(400);
      expect(await messageOf(res), label).toContain(path);
    }
    // The generated valid ones are accepted as they are.
    for (const { label, doc } of validShellDescriptors(5, 4)) {
      const res = await send(`${reg}/shell-descriptors`, 'POST', doc);
      expect(res.status, label).toBe(201);
      expect(await json(res)).toEqual(doc);
    }
    for (const { label, doc } of validSubmodelDescriptors(5, 3)) expect((await send(`${reg}/shell-descriptors/${b64(aas)}/submodel-descriptors`, 'POST', doc)).status, label).toBe(201);
  });

  it('refuses ids over 2048 characters with 400, in the body and in the path', async () => {
    const long = `urn:${'x'.repeat(2045)}`;
    const res = await send(`${reg}/shell-descriptors`, 'POST', descriptor(long));
    expect(res.status).toBe(400);
    expect(await messageOf(res)).toMatch(/\$\.id/);
    expect((await fetch(`${reg}/shell-descriptors/${b64(long)}`)).status).toBe(400);
    expect((await send(`${reg}/shell-descriptors/${b64(long)}`, 'DELETE')).status).toBe(400);
    expect((await fetch(`${reg}/shell-descriptors/${b64('urn:reg:desc:sm')}/submodel-descriptors/${b64(long)}`)).status).toBe(400);
    expect((await fetch(`${reg}/shell-descriptors/not*base64`)).status).toBe(400);
  });

  it("isolates instances: A's descriptors are not in B, nor in another tenant's instance of the same name", async () => {
    const id = 'urn:reg:isolated';
    expect((await send(`${reg}/shell-descriptors`, 'POST', descriptor(id))).status).toBe(201);
    expect((await fetch(`${instanceApi('reg-b')}/shell-descriptors/${b64(id)}`)).status).toBe(404);
    expect((await json(fetch(`${instanceApi('reg-b')}/shell-descriptors?assetIds=${assetId('globalAssetId', `${id}#asset`)}`))).result).toEqual([]);
    const other = await server.createTenant();
    await server.services.registryInstances.create(other, { name: 'reg-a', kind: 'aas-registry' });
    expect((await fetch(`${instanceApi('reg-a', other)}/shell-descriptors/${b64(id)}`)).status).toBe(404);
    expect((await json(fetch(`${instanceApi('reg-a', other)}/shell-descriptors`))).result).toEqual([]);
    // The same id may be registered in both.
    expect((await send(`${instanceApi('reg-a', other)}/shell-descriptors`, 'POST', descriptor(id))).status).toBe(201);
    // Nor do explicit descriptors show in the implicit registry.
    expect((await fetch(`${api}/shell-descriptors/${b64(id)}`)).status).toBe(404);
  });

  it('answers 404 with a Result for an unknown instance, an instance of the other kind, and any submodel registry path', async () => {
    const unknown = await fetch(`${instanceApi('no-such')}/shell-descriptors`);
    expect(unknown.status).toBe(404);
    expect(await messageOf(unknown)).toMatch(/no instance named 'no-such'/);
    const wrongKind = await fetch(`${instanceApi('disco')}/shell-descriptors`);
    expect(wrongKind.status).toBe(404);
    expect(await messageOf(wrongKind)).toMatch(/discovery service, not an AAS registry/);
    expect((await fetch(`${reg}/lookup/shells`)).status).toBe(404);
    for (const [method, path] of [
      ['GET', '/submodel-descriptors'],
      ['POST', '/submodel-descriptors'],
      ['GET', `/submodel-descriptors/${b64(SM1)}`],
      ['DELETE', `/submodel-descriptors/${b64(SM1)}`],
    ] as const) {
      const res = await send(`${reg}${path}`, method, method === 'POST' ? {} : undefined);
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(await messageOf(res)).toMatch(/no explicit submodel registry.*implicit submodel registry/);
    }
    // The instance routes never shadow the tenant's own fixed paths.
    expect((await fetch(`${api}/shells/${b64(S1)}`)).status).toBe(200);
    expect((await fetch(`${server.url}/tenants/${tenant.name}/sphere/api/v1.0/files`)).status).toBe(200);
    expect((await fetch(`${server.url}/tenants/${tenant.name}/api/api/v3.0/shell-descriptors`)).status).toBe(404);
  });

  it("describes an instance with its kind's full profile", async () => {
    expect(await json(fetch(`${reg}/description`))).toEqual({ profiles: ['https://admin-shell.io/aas/API/3/0/AssetAdministrationShellRegistryServiceSpecification/SSP-001'] });
    expect(await json(fetch(`${instanceApi('disco')}/description`))).toEqual({ profiles: ['https://admin-shell.io/aas/API/3/0/DiscoveryServiceSpecification/SSP-001'] });
    expect((await fetch(`${instanceApi('no-such')}/description`)).status).toBe(404);
  });
});

describe('explicit discovery instances', () => {
  let disco: string;
  beforeAll(async () => {
    await server.services.registryInstances.create(tenant, { name: 'disco-1', kind: 'discovery' });
    await server.services.registryInstances.create(tenant, { name: 'disco-2', kind: 'discovery' });
    disco = instanceApi('disco-1');
  });

  it('links shells to asset ids (201; 409 when linked already), looks them up, unlinks', async () => {
    const aas = 'urn:reg:linked:1';
    const links = [{ name: 'serial', value: 'A-1' }, { name: 'globalAssetId', value: 'urn:asset:A' }];
    const created = await send(`${disco}/lookup/shells/${b64(aas)}`, 'POST', links);
    expect(created.status).toBe(201);
    expect(await json(created)).toEqual(links);
    expect((await send(`${disco}/lookup/shells/${b64(aas)}`, 'POST', links)).status).toBe(409);
    expect((await send(`${disco}/lookup/shells/${b64('urn:reg:linked:2')}`, 'POST', [{ name: 'serial', value: 'A-1' }])).status).toBe(201);

    expect(await json(fetch(`${disco}/lookup/shells/${b64(aas)}`))).toEqual(links);
    expect(await ids(fetch(`${disco}/lookup/shells?assetIds=${assetId('serial', 'A-1')}`))).toEqual([aas, 'urn:reg:linked:2']);
    expect(await ids(fetch(`${disco}/lookup/shells?assetIds=${assetId('serial', 'A-1')}&assetIds=${assetId('globalAssetId', 'urn:asset:A')}`))).toEqual([aas]);
    const page = await json(fetch(`${disco}/lookup/shells?limit=1`));
    expect(page.result).toEqual([aas]);
    expect(await ids(fetch(`${disco}/lookup/shells?cursor=${page.paging_metadata.cursor}`))).toEqual(['urn:reg:linked:2']);
    expect(await ids(send(`${disco}/lookup/shellsByAssetLink`, 'POST', [{ name: 'globalAssetId', value: 'urn:asset:A' }]))).toEqual([aas]);
    // The implicit discovery does not see them, nor does another instance.
    expect(await ids(fetch(`${api}/lookup/shells?assetIds=${assetId('serial', 'A-1')}`))).toEqual([]);
    expect(await ids(fetch(`${instanceApi('disco-2')}/lookup/shells?assetIds=${assetId('serial', 'A-1')}`))).toEqual([]);
    expect((await fetch(`${instanceApi('disco-2')}/lookup/shells/${b64(aas)}`)).status).toBe(404);

    expect((await send(`${disco}/lookup/shells/${b64(aas)}`, 'DELETE')).status).toBe(204);
    expect((await fetch(`${disco}/lookup/shells/${b64(aas)}`)).status).toBe(404);
    expect((await send(`${disco}/lookup/shells/${b64(aas)}`, 'DELETE')).status).toBe(404);
    expect(await ids(fetch(`${disco}/lookup/shells?assetIds=${assetId('globalAssetId', 'urn:asset:A')}`))).toEqual([]);
  });

  it("filters by assetKind and assetType as the implicit discovery does: by the tenant's shells of the linked ids", async () => {
    await server.services.registryInstances.create(tenant, { name: 'disco-kind', kind: 'discovery' });
    const at = instanceApi('disco-kind');
    for (const [aas, value] of [[S1, 'k-1'], [S2, 'k-2'], [S3, 'k-3'], ['urn:reg:not-in-tenant', 'k-4']]) {
      expect((await send(`${at}/lookup/shells/${b64(aas)}`, 'POST', [{ name: 'line', value }])).status).toBe(201);
    }
    expect(await ids(fetch(`${at}/lookup/shells`))).toEqual([S1, S2, S3, 'urn:reg:not-in-tenant']);
    expect(await ids(fetch(`${at}/lookup/shells?assetKind=Instance`))).toEqual([S1, S3]);
    expect(await ids(fetch(`${at}/lookup/shells?assetKind=Type`))).toEqual([S2]);
    expect(await ids(fetch(`${at}/lookup/shells?assetKind=NotApplicable`))).toEqual([]);
    expect(await ids(fetch(`${at}/lookup/shells?assetType=${b64('urn:type:pump')}`))).toEqual([S1]);
    expect(await ids(fetch(`${at}/lookup/shells?assetKind=Instance&assetIds=${assetId('line', 'k-3')}`))).toEqual([S3]);
    expect(await ids(fetch(`${at}/lookup/shells?assetKind=Type&assetIds=${assetId('line', 'k-3')}`))).toEqual([]);
    const page = await json(fetch(`${at}/lookup/shells?assetKind=Instance&limit=1`));
    expect(page.result).toEqual([S1]);
    expect(await ids(fetch(`${at}/lookup/shells?assetKind=Instance&cursor=${page.paging_metadata.cursor}`))).toEqual([S3]);
  });

  it('answers bad input with 400', async () => {
    const url = `${disco}/lookup/shells/${b64('urn:reg:bad')}`;
    for (const body of [{ name: 'a', value: 'b' }, [], [{ name: 'a' }], [{ value: 'b' }], ['a'], [{ name: 'a', value: 'b', bogus: 1 }]]) {
      expect((await send(url, 'POST', body)).status, JSON.stringify(body)).toBe(400);
    }
    expect((await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '[{"name":' })).status).toBe(400);
    expect((await fetch(`${disco}/lookup/shells?assetIds=A-1`)).status).toBe(400);
    const kind = await fetch(`${disco}/lookup/shells?assetKind=instance`);
    expect(kind.status).toBe(400);
    expect((await fetch(`${disco}/lookup/shells?assetType=%%%`)).status).toBe(400);
    expect(await messageOf(await fetch(`${disco}/lookup/shells?assetClass=Instance`))).toMatch(/^Unknown query parameter 'assetClass': GET \/lookup\/shells accepts assetIds, limit, cursor, assetKind, assetType\.$/);
    expect((await send(`${disco}/lookup/shells/${b64(`urn:${'y'.repeat(2045)}`)}`, 'POST', [{ name: 'a', value: 'b' }])).status).toBe(400);
    expect((await send(`${disco}/lookup/shellsByAssetLink`, 'POST', [{ name: 'a' }])).status).toBe(400);
    expect((await send(`${disco}/shell-descriptors`, 'POST', { id: 'urn:x' })).status).toBe(404);
  });
});

describe('access', () => {
  let closed: TenantEntity;
  let reader: string;
  let contributor: string;
  let stranger: string;
  beforeAll(async () => {
    closed = await server.createTenant({ showcase: false });
    await server.services.registryInstances.create(closed, { name: 'reg', kind: 'aas-registry' });
    await server.services.registryInstances.create(closed, { name: 'disco', kind: 'discovery' });
    const withRole = async (organizationId: string, role: 'reader' | 'contributor', tenantId: string) => {
      const account = await newServiceAccount(server, organizationId);
      await assignRole(server, organizationId, { type: 'service-account', id: account.id }, role, tenantId);
      return account.token();
    };
    reader = await withRole(closed.organizationId, 'reader', closed.id);
    contributor = await withRole(closed.organizationId, 'contributor', closed.id);
    const elsewhere = await server.createTenant({ showcase: false });
    stranger = await withRole(elsewhere.organizationId, 'contributor', elsewhere.id);
  });

  it('lets readers read, contributors write; no token 401, another tenant 404', async () => {
    const as = (token?: string): Headers => (token ? { authorization: `Bearer ${token}` } : {});
    const reg = instanceApi('reg', closed);
    const disco = instanceApi('disco', closed);
    const implicit = server.api(closed.name);
    expect((await send(`${reg}/shell-descriptors`, 'POST', { id: 'urn:acc:1' }, as(contributor))).status).toBe(201);
    expect((await send(`${disco}/lookup/shells/${b64('urn:acc:1')}`, 'POST', [{ name: 'a', value: 'b' }], as(contributor))).status).toBe(201);

    const reads = [
      `${reg}/shell-descriptors`,
      `${reg}/shell-descriptors/${b64('urn:acc:1')}`,
      `${reg}/description`,
      `${disco}/lookup/shells`,
      `${disco}/lookup/shells/${b64('urn:acc:1')}`,
      `${implicit}/lookup/shells`,
      `${implicit}/shell-descriptors`,
      `${implicit}/submodel-descriptors`,
    ];
    for (const url of reads) expect((await fetch(url, { headers: as(reader) })).status, url).toBe(200);
    expect((await send(`${implicit}/lookup/shellsByAssetLink`, 'POST', [{ name: 'a', value: 'b' }], as(reader))).status).toBe(200);
    const writes: [string, string, unknown][] = [
      ['POST', `${reg}/shell-descriptors`, { id: 'urn:acc:2' }],
      ['PUT', `${reg}/shell-descriptors/${b64('urn:acc:1')}`, { id: 'urn:acc:1' }],
      ['DELETE', `${reg}/shell-descriptors/${b64('urn:acc:1')}`, undefined],
      ['POST', `${reg}/shell-descriptors/${b64('urn:acc:1')}/submodel-descriptors`, { id: 'urn:acc:sm', endpoints: [{ interface: 'SUBMODEL-3.0', protocolInformation: { href: 'https://x' } }] }],
      ['POST', `${disco}/lookup/shells/${b64('urn:acc:2')}`, [{ name: 'a', value: 'b' }]],
      ['DELETE', `${disco}/lookup/shells/${b64('urn:acc:1')}`, undefined],
    ];
    for (const [method, url, body] of writes) expect((await send(url, method, body, as(reader))).status, `${method} ${url}`).toBe(403);
    for (const [token, status] of [[undefined, 401], [stranger, 404]] as const) {
      for (const url of reads) expect((await fetch(url, { headers: as(token) })).status, url).toBe(status);
      for (const [method, url, body] of writes) expect((await send(url, method, body, as(token))).status, `${method} ${url}`).toBe(status);
    }
    // Nothing changed.
    expect((await fetch(`${reg}/shell-descriptors/${b64('urn:acc:1')}`, { headers: as(reader) })).status).toBe(200);
    expect((await send(`${reg}/shell-descriptors/${b64('urn:acc:1')}`, 'DELETE', undefined, as(contributor))).status).toBe(204);
  });
});

describe('access through the organization', () => {
  it('lets organization-wide roles cascade into the tenant: readers read, contributors write, in instances too', async () => {
    const closed = await server.createTenant({ showcase: false });
    await server.services.registryInstances.create(closed, { name: 'org-reg', kind: 'aas-registry' });
    const withOrgRole = async (role: 'reader' | 'contributor') => {
      const account = await newServiceAccount(server, closed.organizationId);
      await assignRole(server, closed.organizationId, { type: 'service-account', id: account.id }, role, null);
      return { authorization: `Bearer ${await account.token()}` };
    };
    const reader = await withOrgRole('reader');
    const contributor = await withOrgRole('contributor');
    const reg = instanceApi('org-reg', closed);
    expect((await send(`${reg}/shell-descriptors`, 'POST', { id: 'urn:org:1' }, reader)).status).toBe(403);
    expect((await send(`${reg}/shell-descriptors`, 'POST', { id: 'urn:org:1' }, contributor)).status).toBe(201);
    expect(await ids(send(`${server.api(closed.name)}/lookup/shells`, 'GET', undefined, reader))).toEqual([]);
    const listed = await json(send(`${reg}/shell-descriptors`, 'GET', undefined, reader));
    expect(listed.result.map((d: { id: string }) => d.id)).toEqual(['urn:org:1']);
  });
});

describe('GraphQL', () => {
  it('gives shells and submodels their implicit descriptors as fields', async () => {
    const { body } = await graphql(
      server,
      null,
      `query ($tenant: String!) {
        shells(tenant: $tenant, limit: 10) { result { id descriptor { id assetKind etag json submodelDescriptors { id semanticId { keys { value } } } } } }
        submodels(tenant: $tenant) { result { id descriptor { id idShort etag json } } }
      }`,
      { tenant: tenant.name },
    );
    expect(body.errors).toBeUndefined();
    const first = body.data.shells.result[0];
    expect(first.descriptor).toMatchObject({ id: S1, assetKind: 'Instance', submodelDescriptors: [{ id: SM1, semanticId: { keys: [{ value: 'urn:sem:one' }] } }, { id: SM2 }] });
    const rest = await json(fetch(`${api}/shell-descriptors/${b64(S1)}`));
    expect(first.descriptor.json).toEqual(rest);
    expect(body.data.submodels.result[0].descriptor).toMatchObject({ id: SM1, idShort: 'Sm' });
    expect(body.data.submodels.result[0].descriptor.json.endpoints[0].protocolInformation.href).toBe(`${api}/submodels/${b64(SM1)}`);
  });

  it('reads and writes explicit instances; an instance has no submodel registry without aasId', async () => {
    await server.services.registryInstances.create(tenant, { name: 'gql-reg', kind: 'aas-registry' });
    const created = await graphql(server, null, `mutation ($t: String!) { createShellDescriptor(tenant: $t, instance: "gql-reg", descriptor: { id: "urn:gql:1", assetKind: "Type" }) { id assetKind etag } }`, { t: tenant.name });
    expect(created.body.data.createShellDescriptor).toMatchObject({ id: 'urn:gql:1', assetKind: 'Type' });
    const listed = await graphql(server, null, `query ($t: String!) { shellDescriptors(tenant: $t, instance: "gql-reg", filter: { assetKind: Type }) { result { id } } }`, { t: tenant.name });
    expect(listed.body.data.shellDescriptors.result).toEqual([{ id: 'urn:gql:1' }]);
    const refused = await graphql(server, null, `query ($t: String!) { submodelDescriptors(tenant: $t, instance: "gql-reg") { result { id } } }`, { t: tenant.name });
    expect(refused.body.errors[0].extensions.code).toBe('BAD_REQUEST');
    expect(refused.body.errors[0].message).toMatch(/no explicit submodel registry/);
    const implicitWrite = await graphql(server, null, `mutation ($t: String!) { createShellDescriptor(tenant: $t, descriptor: { id: "urn:gql:2" }) { id } }`, { t: tenant.name });
    expect(implicitWrite.body.errors[0].message).toMatch(/instance/);
  });
});

describe('host-based tenant URLs (TENANT_HOST_SUFFIX)', () => {
  it('serves instances at /{instanceName}/api/v3.0 on the tenant host', async () => {
    const hosted = await startTestServer(inject('databaseUrl'), { tenantHostSuffix: 'tenants.test' });
    try {
      const t = await hosted.createTenant();
      await hosted.services.registryInstances.create(t, { name: 'hreg', kind: 'aas-registry' });
      const { port } = new URL(hosted.url);
      const get = (path: string) =>
        new Promise<{ status: number; body: string }>((resolve, reject) => {
          http
            .get({ host: '127.0.0.1', port, path, headers: { host: `${t.name}.tenants.test:${port}` } }, (res) => {
              let text = '';
              res.on('data', (c) => (text += c)).on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
            })
            .on('error', reject);
        });
      expect(await get('/hreg/api/v3.0/shell-descriptors')).toEqual({ status: 200, body: JSON.stringify({ paging_metadata: {}, result: [] }) });
      expect((await get('/hreg/api/v3.0/description')).status).toBe(200);
      expect((await get('/api/v3.0/shell-descriptors')).status).toBe(200);
      expect((await get('/hreg/api/v3.0/submodel-descriptors')).status).toBe(404);
      expect((await get('/nope/api/v3.0/shell-descriptors')).status).toBe(404);
    } finally {
      await hosted.close();
    }
  });
});
