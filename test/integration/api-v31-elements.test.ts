import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { TenantEntity } from '../../src/management/tenants/tenant.entity';
import { TestServer, b64, json, sendJson, startTestServer } from '../support/server';

/**
 * Element-level routes (`…/submodel-elements[/{idShortPath}]`) in the version of their path: writes verified with
 * that version's constraints (each difference of the table in docs/aas-versions.md, both ways, through both bases),
 * V3.1 writes stored as written and recorded in the submodel's needed version, V3.0 writes keeping the V3.1 parts
 * they did not touch; reads mapped down through V3.0 with `X-AAS-Version-Mapped: 3.1->3.0`, list items addressed
 * by the index they are stored at.
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

const ref = (value: string) => ({ type: 'ExternalReference', keys: [{ type: 'GlobalReference', value }] });
const property = (idShort: string, value = '1') => ({ modelType: 'Property', idShort, valueType: 'xs:int', value });
const relationships = (idShort: string) => ({
  modelType: 'SubmodelElementList',
  idShort,
  typeValueListElement: 'RelationshipElement',
  value: [
    { modelType: 'RelationshipElement', first: ref('urn:a') },
    { modelType: 'RelationshipElement', first: ref('urn:b'), second: ref('urn:c') },
    { modelType: 'RelationshipElement', first: ref('urn:d'), second: ref('urn:e') },
  ],
});
const ints = (idShort: string) => ({ modelType: 'SubmodelElementList', idShort, typeValueListElement: 'Property', valueTypeListElement: 'xs:int' });

let count = 0;
/** A new submodel stored through `base` (V3.0 content unless `elements` say otherwise); its base64url id. */
async function newSubmodel(elements: unknown[] = [], base = v30): Promise<{ id: string; url: string }> {
  const id = `urn:v31:el:${++count}`;
  const res = await send(`${base}/submodels`, 'POST', { modelType: 'Submodel', id, idShort: 'Data', ...(elements.length ? { submodelElements: elements } : {}) });
  expect(res.status, await res.clone().text()).toBe(201);
  return { id, url: `/submodels/${b64(id)}` };
}

async function neededVersion(id: string): Promise<string> {
  const rows = await server.dataSource.query(`SELECT aas_version FROM submodels WHERE tenant_id = $1 AND id = $2`, [tenant.id, id]);
  return rows[0].aas_version;
}

/** A 4xx answered with the AAS Result object. */
async function expectRefused(res: Response, status = 400): Promise<string> {
  expect(res.status).toBe(status);
  const body = await json(res);
  expect(body.messages?.[0]?.text, JSON.stringify(body)).toEqual(expect.any(String));
  return body.messages.map((m: { text: string }) => m.text).join('\n');
}

const long = (n: number) => 'x'.repeat(n);

/** What only V3.1 allows in a new element, posted where it goes (`into`: a container of the submodel, else its top). */
const V31_ONLY: { what: string; element: Record<string, unknown>; into?: 'List' }[] = [
  { what: 'AASd-002: a hyphen in an idShort', element: property('Max-Temperature') },
  { what: 'AASd-120 removed: an idShort on a list item', element: property('Item'), into: 'List' },
  { what: 'AASd-090 removed: any category of a data element', element: { ...property('Categorized'), category: 'CUSTOM' } },
  { what: 'AASd-014: a co-managed Entity with an asset id', element: { modelType: 'Entity', idShort: 'CoManaged', entityType: 'CoManagedEntity', globalAssetId: 'urn:asset' } },
  { what: 'Entity/entityType optional', element: { modelType: 'Entity', idShort: 'Station' } },
  { what: 'File/contentType optional', element: { modelType: 'File', idShort: 'Manual', value: 'https://example.invalid/manual.pdf' } },
  { what: 'Blob/contentType optional', element: { modelType: 'Blob', idShort: 'Data', value: 'AAEC' } },
  { what: 'RelationshipElement/second optional', element: { modelType: 'RelationshipElement', idShort: 'Open', first: ref('urn:a') } },
  { what: 'AnnotatedRelationshipElement/first optional', element: { modelType: 'AnnotatedRelationshipElement', idShort: 'Half', second: ref('urn:b') } },
  { what: 'ContentType of 101 to 128 characters', element: { modelType: 'File', idShort: 'Typed', contentType: `application/${long(100)}` } },
  { what: 'a path of 2,001 to 2,048 characters', element: { modelType: 'File', idShort: 'Far', contentType: 'text/plain', value: `https://example.invalid/${long(2000)}` } },
];

/** What neither version allows. */
const NEITHER: { what: string; element: Record<string, unknown> }[] = [
  { what: 'an idShort ending with a hyphen', element: property('Temp-') },
  { what: 'a self-managed Entity without an asset id', element: { modelType: 'Entity', idShort: 'Self', entityType: 'SelfManagedEntity' } },
  { what: 'a ContentType of 129 characters', element: { modelType: 'File', idShort: 'TooTyped', contentType: `application/${long(117)}` } },
  { what: 'a property the metamodel does not know', element: { ...property('Odd'), colour: 'blue' } },
  { what: 'no modelType', element: { idShort: 'Nothing' } },
];

describe('element writes are verified in the version of their path', () => {
  for (const { what, element, into } of V31_ONLY) {
    it(`${what}: refused as new content through V3.0, stored as written through V3.1, the submodel then needing V3.1`, async () => {
      for (const shell of [false, true]) {
        const sm = await newSubmodel([ints('List')]);
        let path = sm.url;
        if (shell) {
          // The same through the shell's base (`/shells/{id}/submodels/{id}/…`).
          const shellId = `urn:v31:el:shell:${++count}`;
          const created = await send(`${v30}/shells`, 'POST', {
            modelType: 'AssetAdministrationShell',
            id: shellId,
            assetInformation: { assetKind: 'Instance', globalAssetId: `${shellId}#asset` },
            submodels: [{ type: 'ModelReference', keys: [{ type: 'Submodel', value: sm.id }] }],
          });
          expect(created.status).toBe(201);
          path = `/shells/${b64(shellId)}${sm.url}`;
        }
        const at = `${path}/submodel-elements${into ? `/${into}` : ''}`;
        await expectRefused(await send(`${v30}${at}`, 'POST', element));
        expect(await neededVersion(sm.id)).toBe('3.0');
        const created = await send(`${v31}${at}`, 'POST', element);
        expect(created.status, await created.clone().text()).toBe(201);
        expect(await json(created)).toEqual(element);
        expect(await neededVersion(sm.id)).toBe('3.1');
        const stored = await json(fetch(`${v31}${sm.url}?extent=withBlobValue`));
        expect(into ? stored.submodelElements[0].value : stored.submodelElements.slice(1)).toEqual([element]);
        // Through V3.0 the submodel is V3.1 content now: marked.
        expect((await fetch(`${v30}${sm.url}`)).headers.get('x-aas-version-mapped')).toBe('3.1->3.0');
      }
    });
  }

  for (const { what, element } of NEITHER) {
    it(`${what}: refused through both (400 with the Result object), nothing stored`, async () => {
      const sm = await newSubmodel();
      await expectRefused(await send(`${v30}${sm.url}/submodel-elements`, 'POST', element));
      await expectRefused(await send(`${v31}${sm.url}/submodel-elements`, 'POST', element));
      expect((await json(fetch(`${v31}${sm.url}`))).submodelElements).toBeUndefined();
      expect(await neededVersion(sm.id)).toBe('3.0');
    });
  }

  it('bad bodies through both bases: not JSON, not an object, a wrong element for the path, on every kind of element write', async () => {
    const sm = await newSubmodel([property('Speed')]);
    for (const base of [v30, v31]) {
      const el = `${base}${sm.url}/submodel-elements/Speed`;
      const notJson = await fetch(el, { method: 'PUT', body: '{', headers: { 'content-type': 'application/json' } });
      await expectRefused(notJson);
      await expectRefused(await send(el, 'PUT', [1]));
      expect(await expectRefused(await send(el, 'PUT', property('Other')))).toMatch(/differs from the path/);
      await expectRefused(await send(el, 'PATCH', { modelType: 'Entity', idShort: 'Speed' }));
      await expectRefused(await send(`${el}/$metadata`, 'PATCH', { idShort: 'Speed', category: 'CUSTOM', colour: 'blue' }));
      await expectRefused(await send(`${el}/$value`, 'PATCH', 'not a number'));
      await expectRefused(await send(`${base}${sm.url}/submodel-elements/Nowhere`, 'PUT', property('Nowhere')), 404);
    }
    expect(await json(fetch(`${v31}${sm.url}/submodel-elements/Speed`))).toEqual(property('Speed'));
  });

  it('PUT, PATCH and PATCH $metadata: V3.1 takes what only V3.1 allows over an existing element, V3.0 refuses it', async () => {
    const sm = await newSubmodel([property('Speed'), { modelType: 'Entity', idShort: 'Station', entityType: 'CoManagedEntity' }]);
    const speed = `${sm.url}/submodel-elements/Speed`;
    const station = `${sm.url}/submodel-elements/Station`;
    const categorized = { ...property('Speed'), category: 'CUSTOM' };
    await expectRefused(await send(`${v30}${speed}`, 'PUT', categorized));
    await expectRefused(await send(`${v30}${speed}`, 'PATCH', categorized));
    await expectRefused(await send(`${v30}${speed}/$metadata`, 'PATCH', { modelType: 'Property', idShort: 'Speed', valueType: 'xs:int', category: 'CUSTOM' }));
    await expectRefused(await send(`${v30}${station}`, 'PUT', { modelType: 'Entity', idShort: 'Station' }));
    expect(await neededVersion(sm.id)).toBe('3.0');

    expect((await send(`${v31}${speed}/$metadata`, 'PATCH', { modelType: 'Property', idShort: 'Speed', valueType: 'xs:int', category: 'CUSTOM' })).status).toBe(204);
    expect(await json(fetch(`${v31}${speed}`))).toEqual(categorized);
    expect(await neededVersion(sm.id)).toBe('3.1');
    expect((await send(`${v31}${speed}`, 'PATCH', { ...categorized, category: 'OTHER', value: '2' })).status).toBe(204);
    expect(await json(fetch(`${v31}${speed}`))).toEqual({ ...categorized, category: 'OTHER', value: '2' });
    const entity = { modelType: 'Entity', idShort: 'Station', globalAssetId: 'urn:station' };
    expect((await send(`${v31}${station}`, 'PUT', entity)).status).toBe(204);
    expect(await json(fetch(`${v31}${station}`))).toEqual(entity);
    // A V3.0 value write to an element with what only V3.1 allows goes through (it introduces nothing) and keeps it.
    expect((await send(`${v30}${speed}/$value`, 'PATCH', 3)).status).toBe(204);
    expect(await json(fetch(`${v31}${speed}`))).toEqual({ ...categorized, category: 'OTHER', value: '3' });
  });

  it('$value through V3.1 keeps what V3.0 lacks: a File without contentType stays without', async () => {
    const file = { modelType: 'File', idShort: 'Manual', value: 'https://example.invalid/a.pdf' };
    const sm = await newSubmodel([file], v31);
    expect(await neededVersion(sm.id)).toBe('3.1');
    const at = `${sm.url}/submodel-elements/Manual`;
    const written = await send(`${v31}${at}/$value`, 'PATCH', { value: 'https://example.invalid/b.pdf' });
    expect(written.status, await written.clone().text()).toBe(204);
    expect(await json(fetch(`${v31}${at}`))).toEqual({ ...file, value: 'https://example.invalid/b.pdf' });
    expect((await send(`${v30}${at}/$value`, 'PATCH', { contentType: 'application/octet-stream', value: 'https://example.invalid/c.pdf' })).status).toBe(204);
    expect(await json(fetch(`${v31}${at}`))).toEqual({ ...file, value: 'https://example.invalid/c.pdf' });
  });

  it('a V3.1 element write of V3.0 content leaves the needed version at 3.0; V3.0 writes never raise it', async () => {
    const sm = await newSubmodel([property('Speed')]);
    expect((await send(`${v31}${sm.url}/submodel-elements`, 'POST', property('Torque'))).status).toBe(201);
    expect((await send(`${v31}${sm.url}/submodel-elements/Speed`, 'PUT', property('Speed', '5'))).status).toBe(204);
    expect((await send(`${v31}${sm.url}/submodel-elements/Speed/$value`, 'PATCH', 6)).status).toBe(204);
    expect(await neededVersion(sm.id)).toBe('3.0');
    expect((await fetch(`${v30}${sm.url}`)).headers.get('x-aas-version-mapped')).toBeNull();
  });
});

describe('a V3.0 element write keeps the V3.1 parts it did not touch', () => {
  it('an Entity without entityType written back with the type V3.0 was shown keeps having none; a changed type is written', async () => {
    const sm = await newSubmodel([{ modelType: 'Entity', idShort: 'Station', statements: [property('Speed')] }], v31);
    const at = `${sm.url}/submodel-elements/Station`;
    const seen = await fetch(`${v30}${at}`);
    expect(seen.headers.get('x-aas-version-mapped')).toBe('3.1->3.0');
    const entity = await json(seen);
    expect(entity.entityType).toBe('CoManagedEntity');
    expect((await send(`${v30}${at}`, 'PUT', { ...entity, description: [{ language: 'en', text: 'Station' }] })).status).toBe(204);
    const stored = await json(fetch(`${v31}${at}`));
    expect(stored.entityType).toBeUndefined();
    expect(stored.description).toEqual([{ language: 'en', text: 'Station' }]);
    expect((await send(`${v30}${at}`, 'PATCH', { ...entity, entityType: 'SelfManagedEntity', globalAssetId: 'urn:s' })).status).toBe(204);
    expect((await json(fetch(`${v31}${at}`))).entityType).toBe('SelfManagedEntity');
  });

  it('a collection written back through V3.0 keeps the relationship without an end it did not see, and the list its hidden item', async () => {
    const open = { modelType: 'RelationshipElement', idShort: 'Open', first: ref('urn:a') };
    const sm = await newSubmodel([{ modelType: 'SubmodelElementCollection', idShort: 'Coll', value: [property('A'), open, property('B')] }, relationships('Links')], v31);
    const coll = `${sm.url}/submodel-elements/Coll`;
    const seen = await json(fetch(`${v30}${coll}`));
    expect(seen.value.map((e: { idShort: string }) => e.idShort)).toEqual(['A', 'B']);
    expect((await send(`${v30}${coll}`, 'PUT', { ...seen, value: [property('A', '7'), property('B')] })).status).toBe(204);
    expect((await json(fetch(`${v31}${coll}`))).value).toEqual([property('A', '7'), open, property('B')]);
    const links = `${sm.url}/submodel-elements/Links`;
    const list = await json(fetch(`${v30}${links}`));
    expect(list.value).toHaveLength(2);
    expect((await send(`${v30}${links}/$metadata`, 'PATCH', { modelType: 'SubmodelElementList', idShort: 'Links', typeValueListElement: 'RelationshipElement', category: 'PARAMETER' })).status).toBe(204);
    expect(await json(fetch(`${v31}${links}`))).toEqual({ ...relationships('Links'), category: 'PARAMETER' });
  });
});

describe('element reads through V3.0 are mapped down and marked; through V3.1 as stored', () => {
  const ELEMENTS = [
    property('Speed'),
    { modelType: 'Entity', idShort: 'Station' },
    { modelType: 'File', idShort: 'Manual', value: 'https://example.invalid/manual.pdf' },
    { modelType: 'RelationshipElement', idShort: 'Open', first: ref('urn:a') },
    relationships('Links'),
  ];

  it('GET /submodel-elements (paged), its $metadata, $value and $path', async () => {
    const sm = await newSubmodel(ELEMENTS, v31);
    const list = `${sm.url}/submodel-elements`;
    const through31 = await fetch(`${v31}${list}`);
    expect(through31.headers.get('x-aas-version-mapped')).toBeNull();
    expect((await json(through31)).result).toEqual(ELEMENTS);
    const through30 = await fetch(`${v30}${list}`);
    expect(through30.headers.get('x-aas-version-mapped')).toBe('3.1->3.0');
    const seen = (await json(through30)).result;
    expect(seen.map((e: { idShort: string }) => e.idShort)).toEqual(['Speed', 'Station', 'Manual', 'Links']);
    expect(seen[1].entityType).toBe('CoManagedEntity');
    expect(seen[2].contentType).toBe('application/octet-stream');
    expect(seen[3].value).toHaveLength(2);
    // Paged: the header on the page that holds no mapped element too (the submodel is V3.1 content).
    const first = await fetch(`${v30}${list}?limit=1`);
    expect(first.headers.get('x-aas-version-mapped')).toBe('3.1->3.0');
    expect((await json(first)).result).toEqual([property('Speed')]);

    const metadata = await fetch(`${v30}${list}/$metadata`);
    expect(metadata.headers.get('x-aas-version-mapped')).toBe('3.1->3.0');
    expect((await json(metadata)).result.map((e: { idShort: string }) => e.idShort)).toEqual(['Speed', 'Station', 'Manual', 'Links']);
    expect((await fetch(`${v31}${list}/$metadata`)).headers.get('x-aas-version-mapped')).toBeNull();
    const value = await fetch(`${v30}${list}/$value`);
    expect(value.headers.get('x-aas-version-mapped')).toBe('3.1->3.0');
    expect(Object.keys(await json(value))).not.toContain('Open');

    // Paths: V3.0 addresses a list's items by the index they are stored at; the hidden item keeps its index.
    const paths30 = await fetch(`${v30}${list}/$path`);
    expect(paths30.headers.get('x-aas-version-mapped')).toBe('3.1->3.0');
    expect((await json(paths30)).result).toEqual(['Speed', 'Station', 'Manual', 'Links', 'Links[1]', 'Links[2]']);
    expect((await json(fetch(`${v31}${list}/$path`))).result).toEqual(['Speed', 'Station', 'Manual', 'Open', 'Links', 'Links[0]', 'Links[1]', 'Links[2]']);
    const smPaths = await fetch(`${v30}${sm.url}/$path`);
    expect(smPaths.headers.get('x-aas-version-mapped')).toBe('3.1->3.0');
    expect(await json(smPaths)).toEqual(['Speed', 'Station', 'Manual', 'Links', 'Links[1]', 'Links[2]']);
    expect(await json(fetch(`${v30}${list}/Links/$path`))).toEqual(['Links', 'Links[1]', 'Links[2]']);
    expect(await json(fetch(`${v31}${list}/Links/$path`))).toEqual(['Links', 'Links[0]', 'Links[1]', 'Links[2]']);
    // The paths V3.0 was given are the ones it can read; the hidden item is 404 through V3.0 only.
    expect((await json(fetch(`${v30}${list}/Links[1]`))).first).toEqual(ref('urn:b'));
    expect((await json(fetch(`${v30}${list}/Links[2]`))).first).toEqual(ref('urn:d'));
    await expectRefused(await fetch(`${v30}${list}/Links[0]`), 404);
    await expectRefused(await fetch(`${v30}${list}/Open`), 404);
    // Nor can V3.0 write, add to or remove what it does not see; V3.1 can.
    await expectRefused(await send(`${v30}${list}/Links[0]`, 'DELETE'), 404);
    await expectRefused(await send(`${v30}${list}/Open`, 'PUT', { ...ELEMENTS[3], second: ref('urn:z') }), 404);
    await expectRefused(await send(`${v30}${list}/Open`, 'DELETE'), 404);
    expect((await send(`${v31}${list}/Open`, 'DELETE')).status).toBe(204);
    expect(await json(fetch(`${v31}${list}/Links[0]`))).toEqual(ELEMENTS[4].value![0]);
  });

  it('one element and its $metadata, $value, $path: mapped and marked through V3.0, as stored through V3.1', async () => {
    const sm = await newSubmodel(ELEMENTS, v31);
    const station = `${sm.url}/submodel-elements/Station`;
    for (const suffix of ['', '/$metadata', '/$path']) {
      const through30 = await fetch(`${v30}${station}${suffix}`);
      expect(through30.status).toBe(200);
      expect(through30.headers.get('x-aas-version-mapped')).toBe('3.1->3.0');
      expect((await fetch(`${v31}${station}${suffix}`)).headers.get('x-aas-version-mapped')).toBeNull();
    }
    expect((await json(fetch(`${v30}${station}`))).entityType).toBe('CoManagedEntity');
    expect((await json(fetch(`${v31}${station}`))).entityType).toBeUndefined();
    const manual = await fetch(`${v30}${sm.url}/submodel-elements/Manual/$value`);
    expect(manual.headers.get('x-aas-version-mapped')).toBe('3.1->3.0');
    // A V3.0 element in a V3.1 submodel is answered unmarked: nothing of it was mapped.
    const speed = await fetch(`${v30}${sm.url}/submodel-elements/Speed`);
    expect(speed.headers.get('x-aas-version-mapped')).toBeNull();
  });
});

describe('GraphQL element mutations take aasVersion', () => {
  it('createSubmodelElement with aasVersion V3_1 stores what only V3.1 allows; without it (V3.0) it is refused', async () => {
    const sm = await newSubmodel();
    const mutation = `mutation($t: String!, $id: String!, $e: JSONObject!, $v: AasVersion) {
      createSubmodelElement(tenant: $t, submodelId: $id, element: $e, aasVersion: $v) { idShortPath element { json } } }`;
    const gql = (v?: string) =>
      json(fetch(`${server.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query: mutation, variables: { t: tenant.name, id: sm.id, e: { modelType: 'Entity', idShort: 'Station' }, v } }),
      }));
    const refused = await gql();
    expect(refused.errors?.[0]?.extensions?.code).toBeDefined();
    expect(refused.data).toBeNull();
    const created = await gql('V3_1');
    expect(created.errors).toBeUndefined();
    // Answered as written, not mapped down, though /graphql speaks V3.0 by default.
    expect(created.data.createSubmodelElement.element.json).toEqual({ modelType: 'Entity', idShort: 'Station' });
    expect(await neededVersion(sm.id)).toBe('3.1');
  });
});
