import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { TenantEntity } from '../../src/management/tenants/tenant.entity';
import { TestServer, b64, json, sampleShell, sendJson, startTestServer } from '../support/server';

/**
 * The whole-document changes that are not a PUT of the document, in the version of their path: `PATCH` of a
 * submodel, its `$metadata` and `$value`; the asset information, submodel references and thumbnail of a shell;
 * attachments of File and Blob elements; concept descriptions. Each difference of the constraint table in
 * docs/aas-versions.md is accepted through V3.1 (stored as written, the document's recorded version raised, a V3.0
 * reader then served it marked `X-AAS-Version-Mapped: 3.1->3.0`) and refused through V3.0 with the AAS Result 400
 * (nothing stored); through V3.0 the V3.1 parts a change did not touch stay.
 */

let server: TestServer;
let tenant: TenantEntity;
let v30: string;
let v31: string;

beforeAll(async () => {
  server = await startTestServer(inject('databaseUrl'));
  tenant = await server.createTenant();
  v30 = server.api(tenant.name);
  v31 = v30.replace(/\/api\/v3\.0$/, '/api/v3.1');
});
afterAll(() => server?.close());

const send = sendJson;

const long = (n: number) => 'x'.repeat(n);
const ref = (value: string) => ({ type: 'ExternalReference', keys: [{ type: 'GlobalReference', value }] });
const smRef = (id: string) => ({ type: 'ModelReference', keys: [{ type: 'Submodel', value: id }] });
const property = (idShort: string, value = '1') => ({ modelType: 'Property', idShort, valueType: 'xs:int', value });
/** A text of 2,001 to 2,048 characters: an Identifier (or path) only V3.1 allows. */
const longId = (prefix: string) => `${prefix}${long(2020 - prefix.length)}`;
/** A content type of 101 to 128 characters: only V3.1 allows it. */
const LONG_TYPE = `application/${long(110)}`;

let count = 0;

type Table = 'submodels' | 'shells' | 'concept_descriptions';
async function recorded(table: Table, id: string): Promise<string | undefined> {
  const rows = await server.dataSource.query(`SELECT aas_version FROM ${table} WHERE tenant_id = $1 AND id = $2`, [tenant.id, id]);
  return rows[0]?.aas_version;
}

/** A 4xx answered with the AAS Result object; its messages. */
async function expectRefused(res: Response, status = 400): Promise<string> {
  const body = await res.clone().text();
  expect(res.status, body).toBe(status);
  const result = JSON.parse(body);
  expect(result.messages?.[0]?.text, body).toEqual(expect.any(String));
  return result.messages.map((m: { text: string }) => m.text).join('\n');
}

async function expectDone(res: Response, status = 204): Promise<void> {
  expect(res.status, await res.clone().text()).toBe(status);
}

/** A V3.0 reader of `url` is told it sees V3.1 content (or not). */
async function markedFor30(url: string): Promise<boolean> {
  const res = await fetch(url);
  expect(res.status).toBe(200);
  return res.headers.get('x-aas-version-mapped') === '3.1->3.0';
}

/** A new V3.0 submodel with `elements`: its id and path. */
async function newSubmodel(elements: unknown[] = [], base = v30): Promise<{ id: string; url: string }> {
  const id = `urn:v31:patch:sm:${++count}`;
  const res = await send(`${base}/submodels`, 'POST', { modelType: 'Submodel', id, idShort: 'Data', ...(elements.length ? { submodelElements: elements } : {}) });
  expect(res.status, await res.clone().text()).toBe(201);
  return { id, url: `/submodels/${b64(id)}` };
}

async function newShell(extra: Record<string, unknown> = {}, base = v30): Promise<{ id: string; url: string }> {
  const id = `urn:v31:patch:shell:${++count}`;
  const res = await send(`${base}/shells`, 'POST', sampleShell(id, extra));
  expect(res.status, await res.clone().text()).toBe(201);
  return { id, url: `/shells/${b64(id)}` };
}

const ints = (idShort: string) => ({ modelType: 'SubmodelElementList', idShort, typeValueListElement: 'Property', valueTypeListElement: 'xs:int' });

/**
 * What only V3.1 allows, as the body of `PATCH /submodels/{id}` (level core: the attributes sent replace the
 * submodel's), given the submodel `{ id, idShort: 'Data' }`.
 */
const PATCH_V31_ONLY: { what: string; body: (id: string) => Record<string, unknown> }[] = [
  { what: 'AASd-002: a hyphen in the idShort', body: (id) => ({ modelType: 'Submodel', id, idShort: 'Max-Data' }) },
  { what: 'AASd-002: a hyphen in an element idShort', body: (id) => ({ modelType: 'Submodel', id, submodelElements: [property('Max-Temperature')] }) },
  {
    what: 'AASd-120 removed: an idShort on a list item',
    body: (id) => ({ modelType: 'Submodel', id, submodelElements: [{ ...ints('List'), value: [{ ...property('Item'), idShort: 'Item' }] }] }),
  },
  { what: 'AASd-090 removed: any category of a data element', body: (id) => ({ modelType: 'Submodel', id, submodelElements: [{ ...property('Speed'), category: 'CUSTOM' }] }) },
  {
    what: 'AASd-014: a co-managed Entity with an asset id',
    body: (id) => ({ modelType: 'Submodel', id, submodelElements: [{ modelType: 'Entity', idShort: 'Station', entityType: 'CoManagedEntity', globalAssetId: 'urn:asset' }] }),
  },
  { what: 'Entity/entityType optional', body: (id) => ({ modelType: 'Submodel', id, submodelElements: [{ modelType: 'Entity', idShort: 'Station' }] }) },
  { what: 'File/contentType optional', body: (id) => ({ modelType: 'Submodel', id, submodelElements: [{ modelType: 'File', idShort: 'Manual', value: 'https://example.invalid/m.pdf' }] }) },
  { what: 'Blob/contentType optional', body: (id) => ({ modelType: 'Submodel', id, submodelElements: [{ modelType: 'Blob', idShort: 'Bytes', value: 'AAEC' }] }) },
  { what: 'RelationshipElement/second optional', body: (id) => ({ modelType: 'Submodel', id, submodelElements: [{ modelType: 'RelationshipElement', idShort: 'Open', first: ref('urn:a') }] }) },
  {
    what: 'AnnotatedRelationshipElement/first optional',
    body: (id) => ({ modelType: 'Submodel', id, submodelElements: [{ modelType: 'AnnotatedRelationshipElement', idShort: 'Half', second: ref('urn:b') }] }),
  },
  { what: 'an Identifier of 2,001 to 2,048 characters (a semanticId key)', body: (id) => ({ modelType: 'Submodel', id, semanticId: ref(longId('urn:sem:')) }) },
  { what: 'a ContentType of 101 to 128 characters', body: (id) => ({ modelType: 'Submodel', id, submodelElements: [{ modelType: 'File', idShort: 'Typed', contentType: LONG_TYPE }] }) },
];

/** What neither version allows in a PATCH body. */
const PATCH_NEITHER: { what: string; body: (id: string) => Record<string, unknown> }[] = [
  { what: 'an idShort ending with a hyphen', body: (id) => ({ modelType: 'Submodel', id, idShort: 'Data-' }) },
  { what: 'an Identifier of 2,049 characters', body: (id) => ({ modelType: 'Submodel', id, semanticId: ref(`urn:${long(2045)}`) }) },
  { what: 'a self-managed Entity without an asset id', body: (id) => ({ modelType: 'Submodel', id, submodelElements: [{ modelType: 'Entity', idShort: 'S', entityType: 'SelfManagedEntity' }] }) },
];

describe('PATCH /submodels/{id} is verified in the version of its path', () => {
  for (const { what, body } of PATCH_V31_ONLY) {
    it(`${what}: refused through V3.0, stored through V3.1, the submodel then needing V3.1`, async () => {
      const sm = await newSubmodel([property('Old')]);
      const before = await json(fetch(`${v31}${sm.url}`));
      await expectRefused(await send(`${v30}${sm.url}`, 'PATCH', body(sm.id)));
      expect(await json(fetch(`${v31}${sm.url}`))).toEqual(before);
      expect(await recorded('submodels', sm.id)).toBe('3.0');
      expect(await markedFor30(`${v30}${sm.url}`)).toBe(false);

      await expectDone(await send(`${v31}${sm.url}`, 'PATCH', body(sm.id)));
      expect(await json(fetch(`${v31}${sm.url}?extent=withBlobValue`))).toEqual({ ...before, ...body(sm.id) });
      expect(await recorded('submodels', sm.id)).toBe('3.1');
      expect(await markedFor30(`${v30}${sm.url}`)).toBe(true);
    });
  }

  for (const { what, body } of PATCH_NEITHER) {
    it(`${what}: refused through both`, async () => {
      const sm = await newSubmodel();
      await expectRefused(await send(`${v30}${sm.url}`, 'PATCH', body(sm.id)));
      await expectRefused(await send(`${v31}${sm.url}`, 'PATCH', body(sm.id)));
      expect((await json(fetch(`${v31}${sm.url}`))).idShort).toBe('Data');
      expect(await recorded('submodels', sm.id)).toBe('3.0');
    });
  }

  it('through a shell too (`/shells/{id}/submodels/{id}`)', async () => {
    const sm = await newSubmodel();
    const shell = await newShell({ submodels: [smRef(sm.id)] });
    const url = `${shell.url}${sm.url}`;
    await expectRefused(await send(`${v30}${url}`, 'PATCH', { modelType: 'Submodel', id: sm.id, idShort: 'Max-Data' }));
    await expectDone(await send(`${v31}${url}`, 'PATCH', { modelType: 'Submodel', id: sm.id, idShort: 'Max-Data' }));
    expect((await json(fetch(`${v30}${url}`))).idShort).toBe('Max-Data');
    expect(await recorded('submodels', sm.id)).toBe('3.1');
  });

  it('a V3.0 PATCH of a V3.1 submodel keeps the V3.1 parts it did not touch; a V3.1 PATCH works on them as stored', async () => {
    const station = { modelType: 'Entity', idShort: 'Station' };
    const open = { modelType: 'RelationshipElement', idShort: 'Open', first: ref('urn:a') };
    const sm = await newSubmodel([station, open, property('Speed')], v31);
    const seen = await json(fetch(`${v30}${sm.url}`));
    expect(seen.submodelElements.map((e: { idShort: string }) => e.idShort)).toEqual(['Station', 'Speed']);
    expect(seen.submodelElements[0].entityType).toBe('CoManagedEntity');
    // Sent back as seen, with one change: the Entity keeps having no entityType, the relationship V3.0 did not see stays.
    await expectDone(await send(`${v30}${sm.url}`, 'PATCH', { ...seen, submodelElements: [seen.submodelElements[0], property('Speed', '9')] }));
    expect((await json(fetch(`${v31}${sm.url}`))).submodelElements).toEqual([station, open, property('Speed', '9')]);
    expect(await recorded('submodels', sm.id)).toBe('3.1');
    // What V3.0 cannot read at all is refused (400 naming it) through V3.0 only.
    await expectRefused(await send(`${v30}${sm.url}`, 'PATCH', { modelType: 'Submodel', id: sm.id, submodelElements: [station] }));
    await expectDone(await send(`${v31}${sm.url}`, 'PATCH', { modelType: 'Submodel', id: sm.id, idShort: 'Renamed' }));
    expect(await json(fetch(`${v31}${sm.url}`))).toEqual({ modelType: 'Submodel', id: sm.id, idShort: 'Renamed', submodelElements: [station, open, property('Speed', '9')] });
  });

  it('a V3.1 PATCH that leaves only V3.0 content records 3.0 again (the whole document is written)', async () => {
    const sm = await newSubmodel([{ modelType: 'Entity', idShort: 'Station' }], v31);
    expect(await recorded('submodels', sm.id)).toBe('3.1');
    await expectDone(await send(`${v31}${sm.url}`, 'PATCH', { modelType: 'Submodel', id: sm.id, submodelElements: [property('Speed')] }));
    expect(await recorded('submodels', sm.id)).toBe('3.0');
    expect(await markedFor30(`${v30}${sm.url}`)).toBe(false);
  });
});

describe('PATCH /submodels/{id}/$metadata and /$value are verified in the version of their path', () => {
  it('$metadata: a hyphen in the idShort, a 2,020-character semanticId key', async () => {
    for (const metadata of [{ idShort: 'Max-Data' }, { idShort: 'Data', semanticId: ref(longId('urn:sem:')) }]) {
      const sm = await newSubmodel([property('Speed')]);
      const body = { modelType: 'Submodel', id: sm.id, ...metadata };
      // Neither takes an idShort ending with a hyphen.
      await expectRefused(await send(`${v30}${sm.url}/$metadata`, 'PATCH', { ...body, idShort: 'Data-' }));
      await expectRefused(await send(`${v31}${sm.url}/$metadata`, 'PATCH', { ...body, idShort: 'Data-' }));
      await expectRefused(await send(`${v30}${sm.url}/$metadata`, 'PATCH', body));
      expect(await recorded('submodels', sm.id)).toBe('3.0');
      await expectDone(await send(`${v31}${sm.url}/$metadata`, 'PATCH', body));
      // Its elements stay.
      expect(await json(fetch(`${v31}${sm.url}`))).toEqual({ ...body, submodelElements: [property('Speed')] });
      expect(await recorded('submodels', sm.id)).toBe('3.1');
      expect(await markedFor30(`${v30}${sm.url}/$metadata`)).toBe(true);
      await expectRefused(await send(`${v31}${sm.url}/$metadata`, 'PATCH', { ...body, idShort: 'Data-' }));
    }
  });

  it('$metadata through V3.0 of a V3.1 submodel keeps its elements as stored', async () => {
    const station = { modelType: 'Entity', idShort: 'Station' };
    const sm = await newSubmodel([station], v31);
    await expectDone(await send(`${v30}${sm.url}/$metadata`, 'PATCH', { modelType: 'Submodel', id: sm.id, idShort: 'Renamed' }));
    expect(await json(fetch(`${v31}${sm.url}`))).toEqual({ modelType: 'Submodel', id: sm.id, idShort: 'Renamed', submodelElements: [station] });
    expect(await recorded('submodels', sm.id)).toBe('3.1');
  });

  it('$value: a File path of 2,020 characters, a content type of 110', async () => {
    const file = { modelType: 'File', idShort: 'Manual', contentType: 'text/plain', value: 'https://example.invalid/a.txt' };
    for (const value of [{ contentType: 'text/plain', value: `https://example.invalid/${long(1996)}` }, { contentType: LONG_TYPE, value: 'https://example.invalid/a.txt' }]) {
      const sm = await newSubmodel([file]);
      await expectRefused(await send(`${v30}${sm.url}/$value`, 'PATCH', { Manual: value }));
      expect(await recorded('submodels', sm.id)).toBe('3.0');
      await expectDone(await send(`${v31}${sm.url}/$value`, 'PATCH', { Manual: value }));
      expect((await json(fetch(`${v31}${sm.url}`))).submodelElements).toEqual([{ ...file, ...value }]);
      expect(await recorded('submodels', sm.id)).toBe('3.1');
      expect(await markedFor30(`${v30}${sm.url}/$value`)).toBe(true);
    }
  });

  it('$value through either version keeps what V3.0 lacks: a File without contentType stays without', async () => {
    const file = { modelType: 'File', idShort: 'Manual', value: 'https://example.invalid/a.pdf' };
    const sm = await newSubmodel([file, property('Speed')], v31);
    await expectDone(await send(`${v31}${sm.url}/$value`, 'PATCH', { Manual: { value: 'https://example.invalid/b.pdf' }, Speed: 2 }));
    expect((await json(fetch(`${v31}${sm.url}`))).submodelElements).toEqual([{ ...file, value: 'https://example.invalid/b.pdf' }, property('Speed', '2')]);
    await expectDone(await send(`${v30}${sm.url}/$value`, 'PATCH', { Manual: { contentType: 'application/octet-stream', value: 'https://example.invalid/c.pdf' }, Speed: 3 }));
    expect((await json(fetch(`${v31}${sm.url}`))).submodelElements).toEqual([{ ...file, value: 'https://example.invalid/c.pdf' }, property('Speed', '3')]);
    expect(await recorded('submodels', sm.id)).toBe('3.1');
  });

  it('GraphQL: patchSubmodel, patchSubmodelMetadata and patchSubmodelValue take aasVersion (V3.0 without it)', async () => {
    const sm = await newSubmodel([property('Speed')]);
    const gql = (query: string, variables: Record<string, unknown>) =>
      json(fetch(`${server.url}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query, variables: { t: tenant.name, id: sm.id, ...variables } }) }));
    const patch = `mutation($t: String!, $id: String!, $b: JSONObject!, $v: AasVersion) { patchSubmodel(tenant: $t, id: $id, submodel: $b, aasVersion: $v) { json } }`;
    const body = { modelType: 'Submodel', id: sm.id, idShort: 'Max-Data' };
    const refused = await gql(patch, { b: body });
    expect(refused.errors?.[0]?.extensions?.code).toBeDefined();
    const done = await gql(patch, { b: body, v: 'V3_1' });
    expect(done.errors).toBeUndefined();
    expect(done.data.patchSubmodel.json.idShort).toBe('Max-Data');
    const metadata = `mutation($t: String!, $id: String!, $b: JSONObject!, $v: AasVersion) { patchSubmodelMetadata(tenant: $t, id: $id, metadata: $b, aasVersion: $v) { json } }`;
    const longSemantic = { ...body, semanticId: ref(longId('urn:sem:')) };
    expect((await gql(metadata, { b: longSemantic })).errors?.[0]).toBeDefined();
    expect((await gql(metadata, { b: longSemantic, v: 'V3_1' })).errors).toBeUndefined();
    const value = `mutation($t: String!, $id: String!, $b: JSON, $v: AasVersion) { patchSubmodelValue(tenant: $t, id: $id, value: $b, aasVersion: $v) { etag } }`;
    expect((await gql(value, { b: { Speed: 4 }, v: 'V3_1' })).errors).toBeUndefined();
    expect(await recorded('submodels', sm.id)).toBe('3.1');
  });
});

describe("a shell's asset information and submodel references are verified in the version of their path", () => {
  const INFO_V31_ONLY: { what: string; info: Record<string, unknown> }[] = [
    { what: 'AssetKind Role', info: { assetKind: 'Role', globalAssetId: 'urn:asset:role' } },
    { what: 'a globalAssetId of 2,020 characters', info: { assetKind: 'Instance', globalAssetId: longId('urn:asset:') } },
    { what: 'an assetType of 2,020 characters', info: { assetKind: 'Type', globalAssetId: 'urn:asset:t', assetType: longId('urn:type:') } },
    { what: 'a specific asset id of 2,020 characters', info: { assetKind: 'Instance', specificAssetIds: [{ name: 'serial', value: longId('urn:serial:') }] } },
    { what: 'a thumbnail content type of 110 characters', info: { assetKind: 'Instance', globalAssetId: 'urn:asset:th', defaultThumbnail: { path: 'https://example.invalid/t.png', contentType: LONG_TYPE } } },
  ];

  for (const { what, info } of INFO_V31_ONLY) {
    it(`PUT asset-information, ${what}: refused through V3.0, stored through V3.1, the shell then needing V3.1`, async () => {
      const shell = await newShell();
      const at = `${shell.url}/asset-information`;
      const before = await json(fetch(`${v31}${at}`));
      await expectRefused(await send(`${v30}${at}`, 'PUT', info));
      expect(await json(fetch(`${v31}${at}`))).toEqual(before);
      expect(await recorded('shells', shell.id)).toBe('3.0');
      await expectDone(await send(`${v31}${at}`, 'PUT', info));
      expect(await json(fetch(`${v31}${at}`))).toEqual(info);
      expect(await recorded('shells', shell.id)).toBe('3.1');
      expect(await markedFor30(`${v30}${shell.url}`)).toBe(true);
      expect(await markedFor30(`${v30}${at}`)).toBe(true);
    });
  }

  it('PUT asset-information: neither takes an unknown literal or a 2,049-character globalAssetId', async () => {
    const shell = await newShell();
    for (const info of [{ assetKind: 'Owner', globalAssetId: 'urn:a' }, { assetKind: 'Instance', globalAssetId: `urn:${long(2045)}` }]) {
      await expectRefused(await send(`${v30}${shell.url}/asset-information`, 'PUT', info));
      await expectRefused(await send(`${v31}${shell.url}/asset-information`, 'PUT', info));
    }
    expect(await recorded('shells', shell.id)).toBe('3.0');
  });

  it('PUT asset-information through V3.0 of a Role shell: written back as seen keeps Role; through V3.1 Role is written as sent', async () => {
    const shell = await newShell({ assetInformation: { assetKind: 'Role', globalAssetId: 'urn:asset:r' } }, v31);
    const at = `${shell.url}/asset-information`;
    const seen = await fetch(`${v30}${at}`);
    expect(seen.headers.get('x-aas-version-mapped')).toBe('3.1->3.0');
    const info = await json(seen);
    expect(info.assetKind).toBe('NotApplicable');
    await expectDone(await send(`${v30}${at}`, 'PUT', { ...info, globalAssetId: 'urn:asset:r2' }));
    expect(await json(fetch(`${v31}${at}`))).toEqual({ assetKind: 'Role', globalAssetId: 'urn:asset:r2' });
    await expectDone(await send(`${v30}${at}`, 'PUT', { ...info, assetKind: 'Instance' }));
    expect((await json(fetch(`${v31}${at}`))).assetKind).toBe('Instance');
    expect(await recorded('shells', shell.id)).toBe('3.0');
    await expectDone(await send(`${v31}${at}`, 'PUT', { assetKind: 'Role', globalAssetId: 'urn:asset:r3' }));
    expect(await json(fetch(`${v31}${at}`))).toEqual({ assetKind: 'Role', globalAssetId: 'urn:asset:r3' });
    expect(await recorded('shells', shell.id)).toBe('3.1');
  });

  it('POST submodel-refs: a reference to a submodel with a 2,020-character id only through V3.1', async () => {
    const shell = await newShell();
    const smId = longId('urn:sm:');
    await expectRefused(await send(`${v30}${shell.url}/submodel-refs`, 'POST', smRef(smId)));
    expect((await json(fetch(`${v31}${shell.url}/submodel-refs`))).result).toEqual([]);
    expect(await recorded('shells', shell.id)).toBe('3.0');
    const added = await send(`${v31}${shell.url}/submodel-refs`, 'POST', smRef(smId));
    await expectDone(added, 201);
    expect(added.headers.get('location')).toBe(`${v31}${shell.url}/submodel-refs/${b64(smId)}`);
    expect((await json(fetch(`${v31}${shell.url}/submodel-refs`))).result).toEqual([smRef(smId)]);
    expect(await recorded('shells', shell.id)).toBe('3.1');
    expect(await markedFor30(`${v30}${shell.url}`)).toBe(true);
    // Neither takes a 2,049-character one.
    await expectRefused(await send(`${v31}${shell.url}/submodel-refs`, 'POST', smRef(`urn:${long(2045)}`)));
    // Removed through V3.1, the shell needs V3.0 again.
    await expectDone(await send(`${v31}${shell.url}/submodel-refs/${b64(smId)}`, 'DELETE'));
    expect(await recorded('shells', shell.id)).toBe('3.0');
  });

  it('GraphQL: replaceAssetInformation and addSubmodelRef take aasVersion (V3.0 without it)', async () => {
    const shell = await newShell();
    const gql = (query: string, variables: Record<string, unknown>) =>
      json(fetch(`${server.url}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query, variables: { t: tenant.name, id: shell.id, ...variables } }) }));
    const info = `mutation($t: String!, $id: String!, $b: JSONObject!, $v: AasVersion) { replaceAssetInformation(tenant: $t, id: $id, assetInformation: $b, aasVersion: $v) { etag } }`;
    const role = { assetKind: 'Role', globalAssetId: 'urn:asset:g' };
    expect((await gql(info, { b: role })).errors?.[0]).toBeDefined();
    expect((await gql(info, { b: role, v: 'V3_1' })).errors).toBeUndefined();
    const add = `mutation($t: String!, $id: String!, $b: JSONObject!, $v: AasVersion) { addSubmodelRef(tenant: $t, id: $id, reference: $b, aasVersion: $v) { json } }`;
    const far = smRef(longId('urn:sm:g:'));
    expect((await gql(add, { b: far })).errors?.[0]).toBeDefined();
    expect((await gql(add, { b: far, v: 'V3_1' })).errors).toBeUndefined();
    const stored = await json(fetch(`${v31}${shell.url}`));
    expect(stored.assetInformation).toEqual(role);
    expect(stored.submodels).toEqual([far]);
    expect(await recorded('shells', shell.id)).toBe('3.1');
  });

  it('submodel-refs through V3.0 of a Role shell keep Role', async () => {
    const shell = await newShell({ assetInformation: { assetKind: 'Role', globalAssetId: 'urn:asset:r' } }, v31);
    await expectDone(await send(`${v30}${shell.url}/submodel-refs`, 'POST', smRef('urn:sm:a')), 201);
    await expectDone(await send(`${v30}${shell.url}/submodel-refs/${b64('urn:sm:a')}`, 'DELETE'));
    await expectDone(await send(`${v31}${shell.url}/submodel-refs`, 'POST', smRef('urn:sm:b')), 201);
    const stored = await json(fetch(`${v31}${shell.url}`));
    expect(stored.assetInformation.assetKind).toBe('Role');
    expect(stored.submodels).toEqual([smRef('urn:sm:b')]);
    expect(await recorded('shells', shell.id)).toBe('3.1');
  });
});

function form(bytes: string, type: string, name = 'file.bin'): FormData {
  const data = new FormData();
  data.append('file', new Blob([bytes], { type }), name);
  return data;
}
const upload = (url: string, body: FormData) => fetch(url, { method: 'PUT', body });

describe('attachments and thumbnails are verified in the version of their path', () => {
  it('PUT of a File attachment with a content type of 110 characters: refused through V3.0, stored through V3.1', async () => {
    const sm = await newSubmodel([{ modelType: 'File', idShort: 'Manual', contentType: 'text/plain' }]);
    const at = `${sm.url}/submodel-elements/Manual`;
    await expectRefused(await upload(`${v30}${at}/attachment`, form('hello', LONG_TYPE)));
    expect(await json(fetch(`${v31}${at}`))).toEqual({ modelType: 'File', idShort: 'Manual', contentType: 'text/plain' });
    expect(await recorded('submodels', sm.id)).toBe('3.0');
    await expectDone(await upload(`${v31}${at}/attachment`, form('hello', LONG_TYPE)));
    expect((await json(fetch(`${v31}${at}`))).contentType).toBe(LONG_TYPE);
    expect(await recorded('submodels', sm.id)).toBe('3.1');
    expect(await markedFor30(`${v30}${at}`)).toBe(true);
    const download = await fetch(`${v31}${at}/attachment`);
    expect(download.status).toBe(200);
    expect(await download.text()).toBe('hello');
  });

  it('PUT of a Blob attachment with a content type of 110 characters, through a shell too', async () => {
    for (const scoped of [false, true]) {
      const sm = await newSubmodel([{ modelType: 'Blob', idShort: 'Bytes', contentType: 'application/octet-stream' }]);
      const shell = await newShell({ submodels: [smRef(sm.id)] });
      const at = `${scoped ? shell.url : ''}${sm.url}/submodel-elements/Bytes`;
      await expectRefused(await upload(`${v30}${at}/attachment`, form('abc', LONG_TYPE)));
      expect(await recorded('submodels', sm.id)).toBe('3.0');
      await expectDone(await upload(`${v31}${at}/attachment`, form('abc', LONG_TYPE)));
      expect(await json(fetch(`${v31}${at}?extent=withBlobValue`))).toEqual({ modelType: 'Blob', idShort: 'Bytes', contentType: LONG_TYPE, value: Buffer.from('abc').toString('base64') });
      expect(await recorded('submodels', sm.id)).toBe('3.1');
    }
  });

  it('a V3.1 element stays V3.1 under attachment writes of either version; a Blob without contentType downloads as octet-stream', async () => {
    const files = { modelType: 'SubmodelElementList', idShort: 'Files', typeValueListElement: 'File', value: [{ modelType: 'File', idShort: 'First', contentType: 'text/plain' }] };
    const sm = await newSubmodel([files, { modelType: 'Blob', idShort: 'Raw', value: 'AAEC' }], v31);
    // An idShort on a list item (AASd-120): a V3.0 upload does not introduce it, so it is taken.
    await expectDone(await upload(`${v30}${sm.url}/submodel-elements/Files[0]/attachment`, form('one', 'text/plain')));
    await expectDone(await upload(`${v31}${sm.url}/submodel-elements/Files[0]/attachment`, form('two', 'text/plain')));
    expect((await json(fetch(`${v31}${sm.url}/submodel-elements/Files[0]`))).idShort).toBe('First');
    for (const base of [v30, v31]) {
      const raw = await fetch(`${base}${sm.url}/submodel-elements/Raw/attachment`);
      expect(raw.status).toBe(200);
      expect(raw.headers.get('content-type')).toBe('application/octet-stream');
    }
    // A V3.0 delete of the Blob's value keeps it without contentType.
    await expectDone(await send(`${v30}${sm.url}/submodel-elements/Raw/attachment`, 'DELETE'));
    expect(await json(fetch(`${v31}${sm.url}/submodel-elements/Raw`))).toEqual({ modelType: 'Blob', idShort: 'Raw' });
    expect(await recorded('submodels', sm.id)).toBe('3.1');
  });

  it('PUT of a thumbnail with a content type of 110 characters: refused through V3.0, stored through V3.1', async () => {
    const shell = await newShell();
    const at = `${shell.url}/asset-information/thumbnail`;
    await expectRefused(await upload(`${v30}${at}`, form('png', LONG_TYPE, 't.png')));
    expect((await json(fetch(`${v31}${shell.url}/asset-information`))).defaultThumbnail).toBeUndefined();
    expect(await recorded('shells', shell.id)).toBe('3.0');
    await expectDone(await upload(`${v31}${at}`, form('png', LONG_TYPE, 't.png')));
    expect((await json(fetch(`${v31}${shell.url}/asset-information`))).defaultThumbnail.contentType).toBe(LONG_TYPE);
    expect(await recorded('shells', shell.id)).toBe('3.1');
    expect(await markedFor30(`${v30}${shell.url}`)).toBe(true);
    // Removed through V3.0 (nothing of V3.1 left), the shell needs V3.0 again.
    await expectDone(await send(`${v30}${at}`, 'DELETE'));
    expect(await recorded('shells', shell.id)).toBe('3.0');
  });

  it('a thumbnail through V3.0 of a Role shell keeps Role', async () => {
    const shell = await newShell({ assetInformation: { assetKind: 'Role', globalAssetId: 'urn:asset:r' } }, v31);
    await expectDone(await upload(`${v30}${shell.url}/asset-information/thumbnail`, form('png', 'image/png', 't.png')));
    const info = await json(fetch(`${v31}${shell.url}/asset-information`));
    expect(info.assetKind).toBe('Role');
    expect(info.defaultThumbnail.contentType).toBe('image/png');
  });
});

describe('concept descriptions are verified in the version of their path', () => {
  const CD_V31_ONLY: { what: string; cd: (id: string) => Record<string, unknown> }[] = [
    { what: 'a hyphen in the idShort', cd: (id) => ({ modelType: 'ConceptDescription', id, idShort: 'Max-Temperature' }) },
    { what: 'an isCaseOf key of 2,020 characters', cd: (id) => ({ modelType: 'ConceptDescription', id, isCaseOf: [ref(longId('urn:case:'))] }) },
  ];

  for (const { what, cd } of CD_V31_ONLY) {
    it(`POST and PUT, ${what}: refused through V3.0, stored through V3.1`, async () => {
      const id = `urn:v31:patch:cd:${++count}`;
      const url = `/concept-descriptions/${b64(id)}`;
      await expectRefused(await send(`${v30}/concept-descriptions`, 'POST', cd(id)));
      await expectDone(await send(`${v31}/concept-descriptions`, 'POST', cd(id)), 201);
      expect(await json(fetch(`${v30}${url}`))).toEqual(cd(id));
      expect(await recorded('concept_descriptions', id)).toBe('3.1');
      // A replacement: V3.0 takes it back unchanged (nothing introduced) but refuses it as new content.
      const plain = { modelType: 'ConceptDescription', id, idShort: 'Plain' };
      await expectDone(await send(`${v31}${url}`, 'PUT', plain));
      expect(await recorded('concept_descriptions', id)).toBe('3.0');
      await expectRefused(await send(`${v30}${url}`, 'PUT', cd(id)));
      expect(await json(fetch(`${v31}${url}`))).toEqual(plain);
      await expectDone(await send(`${v31}${url}`, 'PUT', cd(id)));
      expect(await recorded('concept_descriptions', id)).toBe('3.1');
      await expectDone(await send(`${v30}${url}`, 'PUT', cd(id)));
    });
  }

  it('a 2,020-character id only through V3.1; 2,049 through neither', async () => {
    const id = longId('urn:cd:');
    await expectRefused(await send(`${v30}/concept-descriptions`, 'POST', { modelType: 'ConceptDescription', id }));
    await expectDone(await send(`${v31}/concept-descriptions`, 'POST', { modelType: 'ConceptDescription', id }), 201);
    expect(await recorded('concept_descriptions', id)).toBe('3.1');
    expect((await fetch(`${v30}/concept-descriptions/${b64(id)}`)).status).toBe(200);
    const tooLong = `urn:${long(2045)}`;
    await expectRefused(await send(`${v31}/concept-descriptions`, 'POST', { modelType: 'ConceptDescription', id: tooLong }));
  });
});
