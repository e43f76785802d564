import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { graphql as graphqlCall, tenantRoleTokens } from '../support/grants';
import { semanticKey } from '../../src/aas/semantics/semantic-key';
import { resolveStatement } from '../../src/aas/semantics/semantic.service';
import { onCitus } from '../../src/db/citus';
import { writeXmlEnvironment } from '../../src/aas/xml/writer';
import { packageWriter } from '../support/package-writer';
import { TestServer, b64, json, startTestServer } from '../support/server';

/**
 * The semantic connector (`{tenant_url}/sphere/api/v1.0/semantics/...`, docs/semantic-connector.md): resolving ids
 * from concept descriptions and imported dictionaries, equivalence (IRDI revisions, the ECLASS IRI form, isCaseOf,
 * declared sets) where ids are matched (usages, the submodels' semanticId filter), exact matching by default, bad
 * input, access and tenant isolation, and the GraphQL `meaning` fields.
 */

const CSV = fs.readFileSync(path.join(__dirname, '../fixtures/semantics/eclass-pr-example.csv'), 'utf8');
const IEC61360 = 'https://admin-shell.io/DataSpecificationTemplates/DataSpecificationIec61360/3/0';
const MAKER = '0173-1#02-AAO677#002';
const MAKER_001 = '0173-1#02-AAO677#001';
const MAKER_IRI = 'https://api.eclass-cdp.com/0173-1-02-AAO677-002';
const OTHER = '0173-1#02-AAO678#002';

let server: TestServer;
let tenant: string;
const packages = packageWriter('semantics-');

beforeAll(async () => {
  server = await startTestServer(inject('databaseUrl'));
}, 120_000);
afterAll(async () => {
  await server?.close();
});

const api = (t: string) => `${server.url}/tenants/${t}/api/v3.0`;
const sem = (t: string) => `${server.url}/tenants/${t}/sphere/api/v1.0/semantics`;
const as = (token?: string): Record<string, string> => (token ? { authorization: `Bearer ${token}` } : {});
const postJson = (url: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: typeof body === 'string' ? body : JSON.stringify(body) });
/** A GraphQL answer's body: `data` and `errors`. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const graphql = async (...args: Parameters<typeof graphqlCall>): Promise<any> => (await graphqlCall(...args)).body;
const globalRef = (value: string) => ({ type: 'ExternalReference', keys: [{ type: 'GlobalReference', value }] });

function upload(url: string, content: string, fileName: string, headers: Record<string, string> = {}) {
  const form = new FormData();
  const type = fileName.endsWith('.csv') ? 'text/csv' : fileName.endsWith('.json') ? 'application/json' : fileName.endsWith('.xml') ? 'application/xml' : 'application/octet-stream';
  form.append('file', new Blob([content], { type }), fileName);
  return fetch(url, { method: 'POST', headers, body: form });
}

function conceptDescription(id: string, name: string, extra: Record<string, unknown> = {}) {
  return {
    modelType: 'ConceptDescription',
    id,
    embeddedDataSpecifications: [
      {
        dataSpecification: globalRef(IEC61360),
        dataSpecificationContent: {
          modelType: 'DataSpecificationIec61360',
          preferredName: [{ language: 'en', text: name }],
          definition: [{ language: 'en', text: `Definition of ${name}` }],
          unit: 'V',
          dataType: 'REAL_MEASURE',
          valueList: { valueReferencePairs: [{ value: 'low', valueId: globalRef('urn:value:low') }] },
        },
      },
    ],
    ...extra,
  };
}

const property = (idShort: string, semanticId: string) => ({ modelType: 'Property', idShort, valueType: 'xs:string', value: 'x', semanticId: globalRef(semanticId) });
const submodel = (id: string, semanticId: string, elements: unknown[]) => ({ modelType: 'Submodel', id, idShort: 'S', semanticId: globalRef(semanticId), submodelElements: elements });

async function seed(t: string) {
  for (const cd of [
    conceptDescription(MAKER, 'Manufacturer name'),
    conceptDescription('urn:local:voltage', 'Local voltage', { isCaseOf: [globalRef('0173-1#02-AAB325#008')] }),
  ]) {
    expect((await postJson(`${api(t)}/concept-descriptions`, cd)).status).toBe(201);
  }
  const submodels = [
    submodel('urn:sm:1', MAKER, [property('Maker', MAKER)]),
    submodel('urn:sm:2', MAKER_001, [property('Maker', MAKER_001)]),
    submodel('urn:sm:3', MAKER_IRI, [property('Maker', MAKER_IRI)]),
    submodel('urn:sm:4', OTHER, [property('Other', OTHER)]),
    submodel('urn:sm:5', 'urn:sm:kind', [property('Vendor', 'urn:vendor:maker'), property('Voltage', 'urn:local:voltage')]),
  ];
  for (const sm of submodels) expect((await postJson(`${api(t)}/submodels`, sm)).status).toBe(201);
  const shell = { modelType: 'AssetAdministrationShell', id: 'urn:shell:2', assetInformation: { assetKind: 'Instance', globalAssetId: 'urn:asset:2' }, submodels: [{ type: 'ModelReference', keys: [{ type: 'Submodel', value: 'urn:sm:2' }] }] };
  expect((await postJson(`${api(t)}/shells`, shell)).status).toBe(201);
}

const usages = async (t: string, id: string, matching?: string) => {
  const res = await fetch(`${sem(t)}/usages?semanticId=${b64(id)}${matching ? `&matching=${matching}` : ''}`);
  expect(res.status).toBe(200);
  return ((await json(res)).result as { submodelId: string; idShortPath: string | null }[]).map((u) => `${u.submodelId}${u.idShortPath ? `/${u.idShortPath}` : ''}`);
};

describe('equivalence keys', () => {
  it('are the same in TypeScript and in the database (semantic_norm), over every kind of spelling', async () => {
    const ids = [
      MAKER, MAKER_001, '0173-1#02-AAO677', ' 0173-1#02-aao677#002\n', MAKER_IRI, 'http://API.eclass-cdp.com/0173-1-02-aao677-2/', 'https://api.eclass-cdp.com/0173-1-02-AAO677',
      'https://api.eclass-cdp.com/0173-1-02-AAO677-0002', 'https://api.eclass-cdp.com/0173-1-02-AAO67', 'https://api.eclass-cdp.com/0173-1-02-AAO677-002?x',
      '0112/2///61360_4#AAE001#001', '0112/2///61360_4#aae001', '0112/2///61360_4#AAE001#', '0173-1#02-AAO677#002#003', '0173-1 #02-AAO677#002',
      '0173-1#02-AAO677\t#002', '0173-1#01-ACK991#016', '017-1#02-AAO677#002', '0173-1##002', '0173-1#', 'urn:x#1', 'https://admin-shell.io/zvei/nameplate/2/0/Nameplate',
      'HTTPS://Admin-Shell.io/X', '\t urn:padded \r\n', '0173-1#02-ÄÖÜ677#001', '0173-1#02-straße#001', '0173-1#02-AAO677#002\u00a0', '\u00a0 0173-1#02-AAO677#002',
      '', ' ', 'ı0173-1#02-AAO677#002', '0173/1///02#AAO677#002', '0173/1///02#aao677', '0173/1///02#AAO677#', '0173/1///2#AAO677#002', '0173/1///#02-AAO677#002',
      'urn:irdi:0173-1#02-AAO677#002', 'URN:IRDI:0173/1///02#AAO677#001', 'urn:irdi:not-an-irdi', 'urn:irdi:', 'urn:irdi:https://api.eclass-cdp.com/0173-1-02-AAO677-002',
      ' urn:irdi:0112/2///61360_4#AAE001#001 ', 'urn:irdix:0173-1#02-AAO677#002',
    ];
    const rows: { k: string }[] = await server.dataSource.query('SELECT semantic_norm(x) AS k FROM unnest($1::text[]) WITH ORDINALITY AS u(x, n) ORDER BY n', [ids]);
    expect(ids.map(semanticKey)).toEqual(rows.map((r) => r.k));
    expect([MAKER, MAKER_001, MAKER_IRI].map(semanticKey)).toEqual(['irdi:0173-1#02-AAO677', 'irdi:0173-1#02-AAO677', 'irdi:0173-1#02-AAO677']);
    expect(semanticKey('0112/2///61360_4#AAE001#001')).toBe('irdi:0112/2///61360_4#AAE001');
    expect(['0173/1///02#AAO677#001', 'urn:irdi:0173-1#02-AAO677#002'].map(semanticKey)).toEqual(['irdi:0173-1#02-AAO677', 'irdi:0173-1#02-AAO677']);
    expect(semanticKey('urn:irdi:not-an-irdi')).toBe('urn:irdi:not-an-irdi');
    expect(semanticKey(OTHER)).not.toBe(semanticKey(MAKER));
  });
});

describe('semantic connector', () => {
  beforeAll(async () => {
    tenant = (await server.createTenant()).name;
    await seed(tenant);
  }, 60_000);

  it('finds only exact usages by default, and other revisions and the IRI form of an ECLASS IRDI with equivalence', async () => {
    expect(await usages(tenant, MAKER_001)).toEqual(['urn:sm:2', 'urn:sm:2/Maker']);
    expect(await usages(tenant, MAKER_001, 'exact')).toEqual(['urn:sm:2', 'urn:sm:2/Maker']);
    expect(await usages(tenant, MAKER_001, 'equivalent')).toEqual(['urn:sm:1', 'urn:sm:1/Maker', 'urn:sm:2', 'urn:sm:2/Maker', 'urn:sm:3', 'urn:sm:3/Maker']);
    expect(await usages(tenant, MAKER_IRI, 'equivalent')).toEqual(['urn:sm:1', 'urn:sm:1/Maker', 'urn:sm:2', 'urn:sm:2/Maker', 'urn:sm:3', 'urn:sm:3/Maker']);
    // Another concept of the same shape is never equivalent.
    expect(await usages(tenant, OTHER, 'equivalent')).toEqual(['urn:sm:4', 'urn:sm:4/Other']);
  });

  it('pages usages with the cursor, and finds the shells whose submodels use an id', async () => {
    const first = await json(fetch(`${sem(tenant)}/usages?semanticId=${b64(MAKER)}&matching=equivalent&limit=4`));
    expect(first.result).toHaveLength(4);
    const second = await json(fetch(`${sem(tenant)}/usages?semanticId=${b64(MAKER)}&matching=equivalent&limit=4&cursor=${first.paging_metadata.cursor}`));
    expect(second.result.map((u: { submodelId: string }) => u.submodelId)).toEqual(['urn:sm:3', 'urn:sm:3']);
    expect(second.paging_metadata).toEqual({});
    expect((await json(fetch(`${sem(tenant)}/usages/shells?semanticId=${b64(MAKER)}`))).result).toEqual([]);
    expect((await json(fetch(`${sem(tenant)}/usages/shells?semanticId=${b64(MAKER)}&matching=equivalent`))).result).toEqual(['urn:shell:2']);
  });

  it('applies equivalence to the semanticId filter of GET /submodels only when asked', async () => {
    const ids = async (query: string) => ((await json(fetch(`${api(tenant)}/submodels?${query}`))).result as { id: string }[]).map((s) => s.id);
    expect(await ids(`semanticId=${b64(MAKER)}`)).toEqual(['urn:sm:1']);
    expect(await ids(`semanticId=${b64(MAKER)}&semanticIdMatching=exact`)).toEqual(['urn:sm:1']);
    expect(await ids(`semanticId=${b64(MAKER)}&semanticIdMatching=equivalent`)).toEqual(['urn:sm:1', 'urn:sm:2', 'urn:sm:3']);
    const reference = b64(JSON.stringify(globalRef(MAKER_001)));
    expect(await ids(`semanticId=${reference}&semanticIdMatching=equivalent`)).toEqual(['urn:sm:1', 'urn:sm:2', 'urn:sm:3']);
    expect((await fetch(`${api(tenant)}/submodels?semanticId=${b64(MAKER)}&semanticIdMatching=loose`)).status).toBe(400);
    // The same filter on the list's other forms.
    const listed = async (form: string, matching: string) => (await json(fetch(`${api(tenant)}/submodels/${form}?semanticId=${b64(MAKER)}&semanticIdMatching=${matching}`))).result as unknown[];
    expect(((await listed('$metadata', 'equivalent')) as { id: string }[]).map((s) => s.id)).toEqual(['urn:sm:1', 'urn:sm:2', 'urn:sm:3']);
    expect(((await listed('$reference', 'equivalent')) as { keys: { value: string }[] }[]).map((r) => r.keys[0].value)).toEqual(['urn:sm:1', 'urn:sm:2', 'urn:sm:3']);
    expect(((await listed('$reference', 'exact')) as { keys: { value: string }[] }[]).map((r) => r.keys[0].value)).toEqual(['urn:sm:1']);
    expect(await listed('$value', 'equivalent')).toHaveLength(3);
    expect(await listed('$path', 'equivalent')).toHaveLength(3);
    expect(await listed('$path', 'exact')).toHaveLength(1);
  });

  it('applies equivalence to $eq on semanticId in the query language only when asked', async () => {
    const ids = async (target: string, condition: unknown, matching?: string) => {
      const res = await postJson(`${api(tenant)}/query/${target}${matching ? `?semanticIdMatching=${matching}` : ''}`, { $select: 'id', $condition: condition });
      const body = await json(res);
      expect(res.status, JSON.stringify(body)).toBe(200);
      return body.result;
    };
    const onElements = { $eq: [{ $field: '$sme#semanticId' }, { $strVal: MAKER_001 }] };
    expect(await ids('submodels', onElements)).toEqual(['urn:sm:2']);
    expect(await ids('submodels', onElements, 'exact')).toEqual(['urn:sm:2']);
    expect(await ids('submodels', onElements, 'equivalent')).toEqual(['urn:sm:1', 'urn:sm:2', 'urn:sm:3']);
    const onSubmodels = { $eq: [{ $strVal: MAKER_IRI }, { $field: '$sm#semanticId' }] };
    expect(await ids('submodels', onSubmodels)).toEqual(['urn:sm:3']);
    expect(await ids('submodels', onSubmodels, 'equivalent')).toEqual(['urn:sm:1', 'urn:sm:2', 'urn:sm:3']);
    // In $match, and under $not: the same element, two-valued as without equivalence.
    const matched = { $match: [{ $eq: [{ $field: '$sme#semanticId' }, { $strVal: MAKER }] }, { $eq: [{ $field: '$sme#idShort' }, { $strVal: 'Maker' }] }] };
    expect(await ids('submodels', matched, 'equivalent')).toEqual(['urn:sm:1', 'urn:sm:2', 'urn:sm:3']);
    expect(await ids('submodels', { $not: { $eq: [{ $field: '$sm#semanticId' }, { $strVal: MAKER }] } }, 'equivalent')).toEqual(['urn:sm:4', 'urn:sm:5']);
    expect((await postJson(`${api(tenant)}/query/submodels?semanticIdMatching=near`, { $condition: onElements })).status).toBe(400);
  });

  it('applies equivalence to the search indexes only when asked', async () => {
    const t = (await server.createTenant()).name;
    const technical = { ...submodel('urn:td:1', 'https://admin-shell.io/ZVEI/TechnicalData/Submodel/1/2', [{ ...property('RatedVoltage', '0173-1#02-AAB325#008'), valueType: 'xs:double', value: '230' }]) };
    expect((await postJson(`${api(t)}/submodels`, technical)).status).toBe(201);
    const shell = { modelType: 'AssetAdministrationShell', id: 'urn:shell:td', assetInformation: { assetKind: 'Instance', globalAssetId: 'urn:asset:td' }, submodels: [{ type: 'ModelReference', keys: [{ type: 'Submodel', value: 'urn:td:1' }] }] };
    expect((await postJson(`${api(t)}/shells`, shell)).status).toBe(201);
    const search = async (semanticId: string, matching?: string) => {
      const res = await postJson(`${server.url}/tenants/${t}/api/v3.0/search${matching ? `?semanticIdMatching=${matching}` : ''}`, { index: 'technical-properties', semanticId, op: '>', value: 200, select: 'id' });
      const body = await json(res);
      expect(res.status, JSON.stringify(body)).toBe(200);
      return body.result;
    };
    expect(await search('0173-1#02-AAB325#008')).toEqual(['urn:shell:td']);
    expect(await search('https://api.eclass-cdp.com/0173-1-02-AAB325-009')).toEqual([]);
    expect(await search('https://api.eclass-cdp.com/0173-1-02-AAB325-009', 'equivalent')).toEqual(['urn:shell:td']);
    expect(await search('0173-1#02-AAB326#008', 'equivalent')).toEqual([]);
  });

  it('resolves from concept descriptions and dictionaries, exactly or by equivalence', async () => {
    const t = (await server.createTenant()).name;
    await seed(t);
    const created = await upload(`${sem(t)}/dictionaries?name=ECLASS%20PR`, CSV, 'eClass14_0_PR_en.csv');
    expect(created.status).toBe(201);
    const dictionary = await json(created);
    expect(dictionary).toMatchObject({ name: 'ECLASS PR', format: 'eclass-csv', entryCount: 3 });
    expect(created.headers.get('location')).toBe(`${sem(t)}/dictionaries/${dictionary.id}`);

    const exact = (await json(fetch(`${sem(t)}/resolve?semanticId=${b64(MAKER)}`))).result[0];
    expect(exact).toMatchObject({ semanticId: MAKER, key: 'irdi:0173-1#02-AAO677', matching: 'exact' });
    expect(exact.conceptDescriptions).toEqual([
      {
        id: MAKER,
        idShort: null,
        meaning: {
          preferredName: [{ language: 'en', text: 'Manufacturer name' }],
          shortName: [],
          definition: [{ language: 'en', text: 'Definition of Manufacturer name' }],
          unit: 'V',
          unitId: null,
          symbol: null,
          dataType: 'REAL_MEASURE',
          valueList: [{ value: 'low', valueId: 'urn:value:low' }],
        },
      },
    ]);
    expect(exact.entries).toHaveLength(1);
    expect(exact.entries[0]).toMatchObject({ dictionaryId: dictionary.id, conceptId: MAKER, meaning: { preferredName: [{ language: 'en', text: 'Manufacturer name' }], dataType: 'STRING' } });

    // The other revision: nothing exactly, both with equivalence.
    expect((await json(fetch(`${sem(t)}/resolve?semanticId=${b64(MAKER_001)}`))).result[0]).toMatchObject({ conceptDescriptions: [], entries: [] });
    const equivalent = (await json(fetch(`${sem(t)}/resolve?semanticId=${b64(MAKER_IRI)}&matching=equivalent`))).result[0];
    expect(equivalent.conceptDescriptions.map((c: { id: string }) => c.id)).toEqual([MAKER]);
    expect(equivalent.entries.map((e: { conceptId: string }) => e.conceptId)).toEqual([MAKER]);

    // isCaseOf: the local concept is a case of the ECLASS rated voltage; its revision 007 finds both.
    const voltage = (await json(fetch(`${sem(t)}/resolve?semanticId=${b64('0173-1#02-AAB325#007')}&matching=equivalent`))).result[0];
    expect(voltage.conceptDescriptions.map((c: { id: string }) => c.id)).toEqual(['urn:local:voltage']);
    expect(voltage.entries.map((e: { conceptId: string; meaning: { unitId: string } }) => [e.conceptId, e.meaning.unitId])).toEqual([['0173-1#02-AAB325#008', '0173-1#05-AAA480#003']]);
    expect(await usages(t, '0173-1#02-AAB325#008', 'equivalent')).toEqual(['urn:sm:5/Voltage']);
    expect(await usages(t, '0173-1#02-AAB325#008')).toEqual([]);

    // A Reference: one resolution per key.
    const reference = { type: 'ModelReference', keys: [{ type: 'ConceptDescription', value: MAKER }, { type: 'ConceptDescription', value: 'urn:nothing' }] };
    const both = (await json(fetch(`${sem(t)}/resolve?semanticId=${b64(JSON.stringify(reference))}`))).result;
    expect(both.map((r: { semanticId: string; conceptDescriptions: unknown[] }) => [r.semanticId, r.conceptDescriptions.length])).toEqual([[MAKER, 1], ['urn:nothing', 0]]);
  });

  it('reaches equivalents up to four steps away, nearest first, and refuses a closure of more than 1,000 keys', async () => {
    const t = (await server.createTenant()).name;
    const declare = async (members: string[]) => expect((await postJson(`${sem(t)}/equivalence-sets`, { members })).status).toBe(201);
    // A chain of sets: urn:chain:0 - 1 - 2 - 3 - 4 - 5; from 0, five is five steps away.
    for (let n = 0; n < 5; n++) await declare([`urn:chain:${n}`, `urn:chain:${n + 1}`]);
    const keys = async (id: string) => (await json(fetch(`${sem(t)}/resolve?semanticId=${b64(id)}&matching=equivalent`))).result[0].equivalentKeys;
    expect(await keys('urn:chain:0')).toEqual(['urn:chain:0', 'urn:chain:1', 'urn:chain:2', 'urn:chain:3', 'urn:chain:4']);
    expect(await keys('urn:chain:2')).toEqual(['urn:chain:2', 'urn:chain:1', 'urn:chain:3', 'urn:chain:0', 'urn:chain:4', 'urn:chain:5']);
    // A Reference of two keys: each its own closure.
    const reference = { type: 'ExternalReference', keys: [{ type: 'GlobalReference', value: 'urn:chain:5' }, { type: 'GlobalReference', value: 'urn:alone' }] };
    const both = (await json(fetch(`${sem(t)}/resolve?semanticId=${b64(JSON.stringify(reference))}&matching=equivalent`))).result;
    expect(both.map((r: { equivalentKeys: string[] }) => r.equivalentKeys)).toEqual([['urn:chain:5', 'urn:chain:4', 'urn:chain:3', 'urn:chain:2', 'urn:chain:1'], ['urn:alone']]);
    // A hub in 11 sets of 100: 1,090 keys one step away.
    for (let set = 0; set < 11; set++) await declare(['urn:hub', ...Array.from({ length: 99 }, (_, n) => `urn:hub:${set}:${n}`)]);
    const wide = await fetch(`${sem(t)}/resolve?semanticId=${b64('urn:hub:0:0')}&matching=equivalent`);
    expect(wide.status).toBe(400);
    expect((await json(wide)).messages[0].text).toMatch(/more than 1000 ids/);
    expect((await fetch(`${api(t)}/submodels?semanticId=${b64('urn:hub')}&semanticIdMatching=equivalent`)).status).toBe(400);
    expect((await fetch(`${sem(t)}/resolve?semanticId=${b64('urn:hub:0:0')}`)).status).toBe(200);
  });

  it('declares equivalence sets, which equivalence uses and exact matching ignores', async () => {
    const t = (await server.createTenant()).name;
    await seed(t);
    expect(await usages(t, 'urn:vendor:maker', 'equivalent')).toEqual(['urn:sm:5/Vendor']);
    // The same list twice before and after the set: an answer by equivalence is never served from the read cache.
    const kinds = async () => ((await json(fetch(`${api(t)}/submodels?semanticId=${b64('urn:sm:kind')}&semanticIdMatching=equivalent`))).result as { id: string }[]).map((sm) => sm.id);
    expect(await kinds()).toEqual(['urn:sm:5']);
    expect(await kinds()).toEqual(['urn:sm:5']);
    const kind = await json(postJson(`${sem(t)}/equivalence-sets`, { members: ['urn:sm:kind', MAKER_IRI] }));
    expect(await kinds()).toEqual(['urn:sm:1', 'urn:sm:2', 'urn:sm:3', 'urn:sm:5']);
    expect((await fetch(`${sem(t)}/equivalence-sets/${kind.id}`, { method: 'DELETE' })).status).toBe(204);
    expect(await kinds()).toEqual(['urn:sm:5']);
    const created = await postJson(`${sem(t)}/equivalence-sets`, { name: 'maker', members: ['urn:vendor:maker', MAKER] });
    expect(created.status).toBe(201);
    const set = await json(created);
    expect(set).toMatchObject({ name: 'maker', members: ['urn:vendor:maker', MAKER] });
    expect(created.headers.get('location')).toBe(`${sem(t)}/equivalence-sets/${set.id}`);
    expect((await json(fetch(`${sem(t)}/equivalence-sets/${set.id}`))).members).toEqual(['urn:vendor:maker', MAKER]);
    expect((await json(fetch(`${sem(t)}/equivalence-sets`))).result).toHaveLength(1);
    // The set joins the vendor id to the IRDI, and through it to its revisions and IRI form.
    expect(await usages(t, 'urn:vendor:maker', 'equivalent')).toEqual(['urn:sm:1', 'urn:sm:1/Maker', 'urn:sm:2', 'urn:sm:2/Maker', 'urn:sm:3', 'urn:sm:3/Maker', 'urn:sm:5/Vendor']);
    expect(await usages(t, 'urn:vendor:maker')).toEqual(['urn:sm:5/Vendor']);
    expect((await fetch(`${sem(t)}/equivalence-sets/${set.id}`, { method: 'DELETE' })).status).toBe(204);
    expect((await fetch(`${sem(t)}/equivalence-sets/${set.id}`)).status).toBe(404);
    expect(await usages(t, 'urn:vendor:maker', 'equivalent')).toEqual(['urn:sm:5/Vendor']);
  });

  it('imports, lists, searches and deletes dictionaries (CSV upload, AAS JSON through GraphQL)', async () => {
    const t = (await server.createTenant()).name;
    const csv = await json(upload(`${sem(t)}/dictionaries`, CSV, 'eClass14_0_PR_en.csv'));
    expect(csv).toMatchObject({ name: 'eClass14_0_PR_en.csv', format: 'eclass-csv', entryCount: 3 });
    const environment = { conceptDescriptions: [conceptDescription('0112/2///61360_4#AAE001#001', 'Rated frequency')] };
    const imported = await graphql(server, null, 'mutation($t: String!, $c: String!) { importSemanticDictionary(tenant: $t, name: "cdd", format: "aas-json", content: $c) { id entryCount format } }', { t, c: JSON.stringify(environment) });
    expect(imported.errors).toBeUndefined();
    expect(imported.data.importSemanticDictionary).toMatchObject({ entryCount: 1, format: 'aas-json' });
    const list = await json(fetch(`${sem(t)}/dictionaries?limit=1`));
    expect(list.result.map((d: { name: string }) => d.name)).toEqual(['eClass14_0_PR_en.csv']);
    const rest = await json(fetch(`${sem(t)}/dictionaries?limit=1&cursor=${list.paging_metadata.cursor}`));
    expect(rest.result.map((d: { name: string }) => d.name)).toEqual(['cdd']);

    // Search by name, definition and id, case-insensitive, paged.
    const rated = await json(fetch(`${sem(t)}/entries?text=RATED&limit=2`));
    expect(rated.result.map((e: { conceptId: string }) => e.conceptId)).toEqual(['0173-1#02-AAB325#008', '0173-1#02-AAB326#008']);
    const more = await json(fetch(`${sem(t)}/entries?text=RATED&limit=2&cursor=${rated.paging_metadata.cursor}`));
    expect(more.result.map((e: { conceptId: string; key: string }) => [e.conceptId, e.key])).toEqual([['0112/2///61360_4#AAE001#001', 'irdi:0112/2///61360_4#AAE001']]);
    expect(more.paging_metadata).toEqual({});
    expect((await json(fetch(`${sem(t)}/entries?text=judicial`))).result.map((e: { conceptId: string }) => e.conceptId)).toEqual([MAKER]);
    expect((await json(fetch(`${sem(t)}/entries?text=AAB326`))).result).toHaveLength(1);
    expect((await json(fetch(`${sem(t)}/entries?text=rated&dictionaryId=${csv.id}`))).result).toHaveLength(2);
    // The text is a text, not a pattern: `_` and `%` stand for themselves (the index serves a LIKE; they are escaped).
    const found = async (text: string) => (await json(fetch(`${sem(t)}/entries?text=${encodeURIComponent(text)}`))).result.map((e: { conceptId: string }) => e.conceptId);
    expect(await found('61360_4#aae')).toEqual(['0112/2///61360_4#AAE001#001']);
    expect(await found('a_e001')).toEqual([]);
    expect(await found('rated%current')).toEqual([]);
    expect(await found('\\')).toEqual([]);
    // Two characters (too short for a trigram) and one: found as well.
    expect(await found('#0')).toEqual(['0173-1#02-AAO677#002', '0173-1#02-AAB325#008', '0173-1#02-AAB326#008', '0112/2///61360_4#AAE001#001']);
    expect(await found('j')).toEqual([MAKER]);
    // The IEC CDD IRDI resolves across its revisions.
    const cdd = (await json(fetch(`${sem(t)}/resolve?semanticId=${b64('0112/2///61360_4#AAE001#002')}&matching=equivalent`))).result[0];
    expect(cdd.entries.map((e: { conceptId: string }) => e.conceptId)).toEqual(['0112/2///61360_4#AAE001#001']);

    expect((await fetch(`${sem(t)}/dictionaries/${csv.id}`, { method: 'DELETE' })).status).toBe(204);
    expect((await fetch(`${sem(t)}/dictionaries/${csv.id}`)).status).toBe(404);
    expect((await json(fetch(`${sem(t)}/entries?text=rated`))).result).toHaveLength(1);
  });

  it('imports the concept descriptions of AAS XML and AASX packages as dictionaries, with their isCaseOf', async () => {
    const t = (await server.createTenant()).name;
    const environment = {
      conceptDescriptions: [
        conceptDescription('urn:xml:voltage', 'XML voltage', { isCaseOf: [globalRef('0173-1#02-AAB325#008')] }),
        conceptDescription('0112/2///61360_4#AAE002#003', 'Rated power'),
      ],
    };
    const xml = writeXmlEnvironment(environment);
    const fromXml = await upload(`${sem(t)}/dictionaries?name=xml`, xml, 'cds.xml');
    expect(fromXml.status).toBe(201);
    expect(await json(fromXml)).toMatchObject({ format: 'aas-xml', entryCount: 2 });
    const file = await packages.write({ format: 'json', content: JSON.stringify({ conceptDescriptions: [conceptDescription('urn:aasx:frequency', 'AASX frequency')] }) });
    const form = new FormData();
    form.append('file', new Blob([fs.readFileSync(file)], { type: 'application/asset-administration-shell-package' }), 'cds.aasx');
    const fromAasx = await fetch(`${sem(t)}/dictionaries?name=aasx`, { method: 'POST', body: form });
    expect(fromAasx.status).toBe(201);
    expect(await json(fromAasx)).toMatchObject({ format: 'aasx', entryCount: 1 });
    // The XML entry's meaning as written, and its isCaseOf joins it to the ECLASS property's other revisions.
    const resolved = (await json(fetch(`${sem(t)}/resolve?semanticId=${b64('0173-1#02-AAB325#001')}&matching=equivalent`))).result[0];
    expect(resolved.entries.map((e: { conceptId: string; meaning: { preferredName: unknown } }) => [e.conceptId, e.meaning.preferredName])).toEqual([['urn:xml:voltage', [{ language: 'en', text: 'XML voltage' }]]]);
    const frequency = (await json(fetch(`${sem(t)}/entries?text=aasx%20FREQ`))).result;
    expect(frequency.map((e: { conceptId: string; dictionaryName: string }) => [e.conceptId, e.dictionaryName])).toEqual([['urn:aasx:frequency', 'aasx']]);
    // An AASX that is no package, XML of another namespace: 400, nothing stored.
    const broken = new FormData();
    broken.append('file', new Blob(['PK\u0003\u0004 not a zip'], { type: 'application/asset-administration-shell-package' }), 'x.aasx');
    expect((await fetch(`${sem(t)}/dictionaries`, { method: 'POST', body: broken })).status).toBe(400);
    expect((await upload(`${sem(t)}/dictionaries`, '<environment xmlns="urn:other"/>', 'x.xml')).status).toBe(400);
    expect((await json(fetch(`${sem(t)}/dictionaries`))).result).toHaveLength(2);
  });

  it('answers bad input with 400 and a Result, and stores nothing of a refused dictionary', async () => {
    const t = (await server.createTenant()).name;
    const refused = async (res: Response | Promise<Response>, status = 400, pattern?: RegExp) => {
      const r = await res;
      const body = await json(r);
      expect(r.status, JSON.stringify(body)).toBe(status);
      expect(body.messages[0].messageType).toBe('Error');
      if (pattern) expect(body.messages[0].text).toMatch(pattern);
    };
    await refused(fetch(`${sem(t)}/resolve`), 400, /semanticId/);
    await refused(fetch(`${sem(t)}/resolve?semanticId=%%%`));
    await refused(fetch(`${sem(t)}/resolve?semanticId=${b64('x')}&matching=fuzzy`));
    await refused(fetch(`${sem(t)}/resolve?semanticId=${b64('x')}&other=1`));
    await refused(fetch(`${sem(t)}/resolve?semanticId=${b64('x'.repeat(2001))}`), 400, /2000/);
    await refused(fetch(`${sem(t)}/resolve?semanticId=${b64(JSON.stringify({ keys: [] }))}`), 400, /keys/);
    await refused(fetch(`${sem(t)}/usages?semanticId=${b64('x')}&limit=0`));
    await refused(fetch(`${sem(t)}/usages?semanticId=${b64('x')}&cursor=abc`), 400, /cursor/);
    await refused(fetch(`${sem(t)}/usages`), 400, /semanticId/);
    await refused(fetch(`${sem(t)}/usages/shells?semanticId=${b64('x')}&limit=251`), 400, /limit/);
    await refused(fetch(`${sem(t)}/usages/shells?semanticId=${b64('x')}&matching=EXACT`), 400);
    await refused(fetch(`${sem(t)}/dictionaries?limit=x`), 400, /limit/);
    await refused(fetch(`${sem(t)}/equivalence-sets?cursor=`), 400, /cursor/);
    await refused(fetch(`${sem(t)}/dictionaries/not-a-uuid`, { method: 'DELETE' }), 404);
    await refused(fetch(`${sem(t)}/equivalence-sets/nope`, { method: 'DELETE' }), 404);
    await refused(fetch(`${sem(t)}/entries?text=${'x'.repeat(257)}`), 400, /256/);
    await refused(fetch(`${sem(t)}/entries`), 400, /text/);
    await refused(fetch(`${sem(t)}/entries?text=%20`), 400, /empty/);
    await refused(fetch(`${sem(t)}/entries?text=a&dictionaryId=nope`), 404);
    await refused(fetch(`${sem(t)}/dictionaries/not-a-uuid`), 404);
    await refused(fetch(`${sem(t)}/equivalence-sets/00000000-0000-4000-8000-000000000000`), 404);
    await refused(postJson(`${sem(t)}/equivalence-sets`, { members: ['a'] }), 400, /at least 2/);
    await refused(postJson(`${sem(t)}/equivalence-sets`, { members: 'a' }), 400, /members/);
    await refused(postJson(`${sem(t)}/equivalence-sets`, { members: ['a', 'a'] }), 400, /once/);
    await refused(postJson(`${sem(t)}/equivalence-sets`, { members: ['a', 7] }), 400, /members\/1/);
    await refused(postJson(`${sem(t)}/equivalence-sets`, { members: ['a', 'b'], extra: 1 }), 400, /extra/);
    await refused(postJson(`${sem(t)}/equivalence-sets`, '{'), 400);
    await refused(postJson(`${sem(t)}/equivalence-sets`, []), 400);
    // Dictionaries: the header without IrdiPR, a line of the wrong length, an empty id, not multipart, an unknown format.
    await refused(upload(`${sem(t)}/dictionaries`, 'Name;Definition\na;b\n', 'x.csv'), 400, /IrdiPR/);
    const broken = CSV.trimEnd() + '\n0173-1;AAA;AAA;001\n';
    await refused(upload(`${sem(t)}/dictionaries`, broken, 'x.csv'), 400, /line 5/);
    await refused(upload(`${sem(t)}/dictionaries`, 'IrdiPR;PreferredName\n;x\n', 'x.csv'), 400, /line 2/);
    await refused(upload(`${sem(t)}/dictionaries`, '{"conceptDescriptions": [{"modelType": "ConceptDescription"}]}', 'x.json'), 400, /id/);
    await refused(upload(`${sem(t)}/dictionaries`, 'not json', 'x.json'), 400);
    await refused(upload(`${sem(t)}/dictionaries?format=pdf`, CSV, 'x.csv'), 400, /format/);
    await refused(upload(`${sem(t)}/dictionaries`, '\u0001\u0002', 'x.bin'), 400, /format/);
    await refused(postJson(`${sem(t)}/dictionaries`, {}), 415);
    await refused(upload(`${sem(t)}/dictionaries?name=${'n'.repeat(129)}`, CSV, 'x.csv'), 400, /128/);
    expect((await json(fetch(`${sem(t)}/dictionaries`))).result).toEqual([]);
    expect((await json(fetch(`${sem(t)}/entries?text=rated`))).result).toEqual([]);
    const gql = await graphql(server, null, 'mutation($t: String!) { importSemanticDictionary(tenant: $t, name: "x", format: "aasx", content: "x") { id } }', { t });
    expect(gql.errors?.[0].extensions.code).toBe('BAD_REQUEST');
  });

  it('lets readers read, contributors write, and keeps tenants apart', async () => {
    const { tenant: t, reader, contributor, elsewhere, stranger } = await tenantRoleTokens(server);

    expect((await fetch(`${sem(t.name)}/dictionaries`)).status).toBe(401);
    expect((await upload(`${sem(t.name)}/dictionaries`, CSV, 'x.csv', as(reader))).status).toBe(403);
    expect((await postJson(`${sem(t.name)}/equivalence-sets`, { members: ['a', 'b'] }, as(reader))).status).toBe(403);
    const created = await upload(`${sem(t.name)}/dictionaries`, CSV, 'x.csv', as(contributor));
    expect(created.status).toBe(201);
    const { id } = await json(created);
    expect((await fetch(`${sem(t.name)}/dictionaries/${id}`, { headers: as(reader) })).status).toBe(200);
    expect((await fetch(`${sem(t.name)}/resolve?semanticId=${b64(MAKER)}`, { headers: as(reader) })).status).toBe(200);
    expect((await fetch(`${sem(t.name)}/dictionaries/${id}`, { method: 'DELETE', headers: as(reader) })).status).toBe(403);
    // Another tenant's caller sees nothing of it, not even that it exists.
    expect((await fetch(`${sem(t.name)}/dictionaries/${id}`, { headers: as(stranger) })).status).toBe(404);
    expect((await fetch(`${sem(elsewhere.name)}/dictionaries/${id}`, { headers: as(stranger) })).status).toBe(404);
    expect((await json(fetch(`${sem(elsewhere.name)}/entries?text=rated`, { headers: as(stranger) }))).result).toEqual([]);
    expect((await json(fetch(`${sem(elsewhere.name)}/resolve?semanticId=${b64(MAKER)}`, { headers: as(stranger) }))).result[0].entries).toEqual([]);
    expect((await fetch(`${sem(elsewhere.name)}/dictionaries/${id}`, { method: 'DELETE', headers: as(stranger) })).status).toBe(404);
    expect((await fetch(`${sem(t.name)}/dictionaries/${id}`, { method: 'DELETE', headers: as(contributor) })).status).toBe(204);
  });

  it('resolves the meaning of submodels and elements in GraphQL, batched', async () => {
    const t = (await server.createTenant()).name;
    await seed(t);
    const answer = await graphql(
      server,
      null,
      `query($t: String!, $id: String!) { submodel(tenant: $t, id: $id) {
         meaning { key conceptDescriptions { id meaning { preferredName { text } } } }
         submodelElements { idShort meaning(matching: equivalent) { semanticId conceptDescriptions { id } } } } }`,
      { t, id: 'urn:sm:2' },
    );
    expect(answer.errors).toBeUndefined();
    expect(answer.data.submodel.meaning).toEqual({ key: 'irdi:0173-1#02-AAO677', conceptDescriptions: [] });
    expect(answer.data.submodel.submodelElements).toEqual([{ idShort: 'Maker', meaning: { semanticId: MAKER_001, conceptDescriptions: [{ id: MAKER }] } }]);
    const usage = await graphql(server, null, 'query($t: String!, $s: String!) { semanticIdUsages(tenant: $t, semanticId: $s, matching: equivalent) { result { submodelId idShortPath } } }', { t, s: MAKER_IRI });
    expect(usage.data.semanticIdUsages.result).toHaveLength(6);
  });
});

describe('the resolve statement', () => {
  it('answers as a prepared statement with equivalence too; on PostgreSQL its generic plan serves after five executions', async () => {
    const created = await server.createTenant();
    await seed(created.name);
    const runner = server.dataSource.createQueryRunner();
    try {
      // As a named statement runs: prepared on one connection, executed with other ids each time.
      const citus = await onCitus(server.dataSource);
      await runner.query(`PREPARE semantics_test_resolve(uuid, text[], int) AS ${resolveStatement('equivalent')}`);
      const ids = ['0173-1#02-AAO677#001', 'urn:local:voltage', 'urn:vendor:maker', '0173-1#02-AAB325#008', 'urn:none:1', 'urn:none:2', 'urn:none:3', 'urn:none:4'];
      for (const id of ids) {
        const literal = (text: string) => `'${text.replace(/'/g, "''")}'`;
        const [row] = await runner.query(`EXECUTE semantics_test_resolve(${literal(created.id)}, ARRAY[${literal(semanticKey(id))}], 5001)`);
        if (id === ids[0]) expect(row.cds.map((cd: { id: string }) => cd.id)).toEqual([MAKER]);
      }
      const [plans] = await runner.query(`SELECT generic_plans, custom_plans FROM pg_prepared_statements WHERE name = 'semantics_test_resolve'`);
      // A custom plan for each execution would be planning work every time (the keys' count made it look cheaper). Not
      // on Citus, which plans a statement it sends to a worker at each execution, and the worker plans its text anew.
      if (!citus) expect(Number(plans.generic_plans)).toBeGreaterThan(0);
      await runner.query('DEALLOCATE semantics_test_resolve');
    } finally {
      await runner.release();
    }
  });
});
