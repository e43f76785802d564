import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { TenantEntity } from '../../src/management/tenants/tenant.entity';
import { SEARCH_INDEXES, TECHNICAL_DATA as TD, TECHNICAL_DATA_2 as TD2 } from '../../src/aas/search/indexes';
import { SearchService } from '../../src/aas/search/search.service';
import { FILL_SUBMODEL_IDS } from '../../migrations/1764800000000-ShellSubmodelIds';
import { SEARCH_INDEX_NAMES } from '../../rest-facade/openapi/search-operation';
import { assignRole, graphql } from '../support/grants';
import { newServiceAccount } from '../support/identity';
import { seededRandom } from '../support/seeded-random';
import { TestServer, b64, json, startTestServer } from '../support/server';
import { Classification, Json, prop, ref, smc, technicalData } from '../support/technical-data';

/**
 * POST {tenant_url}/api/v3.0/search and GraphQL `search`: shells found through the Technical Data submodels
 * (IDTA 02003-1-2) they reference, by the indexes shell-classifications and technical-properties, in the full form
 * (AAS Query Language) and the simple form. The submodels follow the template's structure and semanticIds; every
 * answer is compared with the set written by hand from the data below.
 */

let server: TestServer;
let tenant: TenantEntity;
let api: string;

// Property semanticIds of the test (IRDI-shaped, invented here; the template leaves TechnicalProperties open).
const MAX_PRESSURE = '0173-1#02-AAB001#001';
const PUMP_TYPE = '0173-1#02-AAB002#001';
const MADE = '0173-1#02-AAB003#001';
const ATEX = '0173-1#02-AAB004#001';

const smRef = (id: string) => ({ type: 'ModelReference', keys: [{ type: 'Submodel', value: id }] });

/** A Technical Data 2.0 submodel (IDTA 02003-2-0): ProductClassifications and TechnicalPropertyAreas are lists of collections. */
function technicalData2(id: string, classifications: Classification[], properties: Json[]): Json {
  const list = (idShort: string, semanticId: string, value: Json[]): Json => ({
    modelType: 'SubmodelElementList',
    idShort,
    semanticId: ref(semanticId),
    typeValueListElement: 'SubmodelElementCollection',
    value,
  });
  const item = (semanticId: string, value: Json[]): Json => ({ modelType: 'SubmodelElementCollection', semanticId: ref(semanticId), value });
  return {
    modelType: 'Submodel',
    id,
    idShort: 'TechnicalData',
    semanticId: ref(TD2.submodel),
    submodelElements: [
      list(
        'ProductClassifications',
        TD2.productClassifications,
        classifications.map(([system, version, classId]) =>
          item('0173-1#02-ABK162#002/0173-1#01-AHX839#002', [
            prop('ClassificationSystem', TD2.classificationSystem, system),
            prop('ClassificationSystemVersion', TD2.classificationSystemVersion, version),
            prop('ProductClassId', TD2.productClassId, classId),
          ]),
        ),
      ),
      list('TechnicalPropertyAreas', TD2.technicalPropertyAreas, [item('0173-1#02-ABL358#002/0173-1#01-AHX773#002', properties)]),
    ],
  };
}

const DIAMETER = '0173-1#02-AAC895#009';
const pressure = (bar: string) => prop('MaxPressure', MAX_PRESSURE, bar, 'xs:double');
const pumpType = (type: string) => prop('PumpType', PUMP_TYPE, type);
const ECLASS13: Classification = ['ECLASS', '13.0', '36-41-01-01'];
const ECLASS12: Classification = ['ECLASS', '12.0', '36-41-01-01'];
const ETIM: Classification = ['ETIM', '9.0', 'EC000123'];

const S = (n: string) => `urn:search:shell:${n}`;
const SM = (n: string) => `urn:search:sm:${n}`;

const SUBMODELS = [
  technicalData(SM('td1'), 'ACME', [ECLASS13, ETIM], [pressure('10'), pumpType('Centrifugal'), prop('Made', MADE, '2024-03-01T10:00:00Z', 'xs:dateTime')]),
  // MaxPressure nested in a section, as the template allows.
  technicalData(SM('td2'), 'ACME', [ECLASS13], [pumpType('Centrifugal'), smc('MainSection', 'https://admin-shell.io/ZVEI/TechnicalData/MainSection/1/1', [pressure('16')])]),
  technicalData(SM('td2b'), 'ACME', [], [pressure('20')]),
  technicalData(SM('td3'), 'Other', [ETIM], [pressure('25'), pumpType('Diaphragm'), prop('Made', MADE, '2023-01-01T00:00:00Z', 'xs:dateTime'), prop('Atex', ATEX, 'true', 'xs:boolean')]),
  // Not a number: no typed comparison holds for it.
  technicalData(SM('td4'), 'ACME', [ECLASS12], [prop('MaxPressure', MAX_PRESSURE, 'n/a')]),
  // Not a Technical Data submodel, although it has the property.
  { modelType: 'Submodel', id: SM('nameplate5'), idShort: 'Nameplate', semanticId: ref('https://admin-shell.io/zvei/nameplate/2/0/Nameplate'), submodelElements: [pressure('30'), pumpType('Centrifugal')] },
  // Version 2.0: its first item is ECLASS 27-27-40-01, its second IEC CDD with the class id 36-41-01-01.
  technicalData2(SM('td20'), [['ECLASS', '15.0', '27-27-40-01'], ['IEC CDD', '60947-5-2:2007', '36-41-01-01']], [prop('diameter', DIAMETER, '30', 'xs:double')]),
  // A Technical Data submodel no shell references.
  technicalData(SM('orphan'), 'ACME', [ECLASS13], [pressure('40')]),
];

const shell = (n: string, submodels: string[]): Json => ({
  modelType: 'AssetAdministrationShell',
  id: S(n),
  idShort: `Pump${n}`,
  assetInformation: { assetKind: 'Instance', globalAssetId: `urn:search:asset:${n}` },
  ...(submodels.length ? { submodels: submodels.map((s) => smRef(SM(s))) } : {}),
});

const SHELLS = [
  shell('1', ['td1']),
  shell('2', ['td2', 'td2b']),
  shell('3', ['td3']),
  shell('4', ['td4']),
  shell('5', ['nameplate5']),
  shell('6', []),
  // References a Technical Data submodel this tenant does not store.
  shell('7', ['missing']),
  shell('9', ['td20']),
];

const send = (body: unknown, query = '', headers: Record<string, string> = {}, base = () => api) =>
  fetch(`${base()}/search${query}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });

/** The answer of a search: shell id -> ids of the submodels that matched; the shells' documents checked against their ids. */
async function search(body: unknown, query = ''): Promise<Record<string, string[]>> {
  const res = await send(body, query);
  const answer = await json(res);
  expect(res.status, JSON.stringify(answer)).toBe(200);
  expect(answer.paging_metadata).toEqual({});
  const hits = answer.result as { shell: Json; submodelIds: string[] }[];
  return Object.fromEntries(hits.map((hit) => [hit.shell.id as string, hit.submodelIds]));
}

async function status(body: unknown, query = ''): Promise<[number, string]> {
  const res = await send(body, query);
  const answer = await json(res);
  return [res.status, (answer.messages ?? []).map((m: { text: string }) => m.text).join(' | ')];
}

const tp = (semanticId: string, op: string, value: unknown, extra: Json = {}) => ({ index: 'technical-properties', semanticId, op, value, ...extra });
const f = (field: string) => ({ $field: field });
const element = (semanticId: string, op: string, value: Json) => ({ $match: [{ $eq: [f('$sme#semanticId'), { $strVal: semanticId }] }, { [op]: [f('$sme#value'), value] }] });

beforeAll(async () => {
  server = await startTestServer(inject('databaseUrl'));
  tenant = await server.createTenant();
  api = server.api(tenant.name);
  for (const s of SUBMODELS) await server.services.submodels.create(tenant, s);
  for (const s of SHELLS) await server.services.shells.create(tenant, s);
  // Another tenant holds shells every search below would find.
  const other = await server.createTenant();
  for (const s of SUBMODELS) await server.services.submodels.create(other, s);
  await server.services.shells.create(other, { ...shell('x', ['td1', 'td2', 'td3', 'td4']), id: 'urn:search:other' });
});
afterAll(() => server?.close());

describe('technical-properties, simple form', () => {
  it('compares numbers as numbers (a value that is not a number is no match)', async () => {
    expect(await search(tp(MAX_PRESSURE, '>=', 16))).toEqual({ [S('2')]: [SM('td2'), SM('td2b')], [S('3')]: [SM('td3')] });
    expect(await search(tp(MAX_PRESSURE, '=', 16))).toEqual({ [S('2')]: [SM('td2')] });
    expect(await search(tp(MAX_PRESSURE, '=', '16.0', { type: 'number' }))).toEqual({ [S('2')]: [SM('td2')] });
    expect(await search(tp(MAX_PRESSURE, '>', 16))).toEqual({ [S('2')]: [SM('td2b')], [S('3')]: [SM('td3')] });
    expect(await search(tp(MAX_PRESSURE, '<', 12))).toEqual({ [S('1')]: [SM('td1')] });
    expect(await search(tp(MAX_PRESSURE, '<=', 10))).toEqual({ [S('1')]: [SM('td1')] });
    expect(await search(tp(MAX_PRESSURE, '!=', 16))).toEqual({ [S('1')]: [SM('td1')], [S('2')]: [SM('td2b')], [S('3')]: [SM('td3')] });
    expect(await search(tp(MAX_PRESSURE, 'between', [10, 16]))).toEqual({ [S('1')]: [SM('td1')], [S('2')]: [SM('td2')] });
    expect(await search(tp(MAX_PRESSURE, 'between', [17, 24]))).toEqual({ [S('2')]: [SM('td2b')] });
    expect(await search(tp(MAX_PRESSURE, '>', 100))).toEqual({});
  });

  it('compares strings, date-times and booleans by their type', async () => {
    expect(await search(tp(PUMP_TYPE, '=', 'Centrifugal'))).toEqual({ [S('1')]: [SM('td1')], [S('2')]: [SM('td2')] });
    expect(await search(tp(PUMP_TYPE, 'starts-with', 'Dia'))).toEqual({ [S('3')]: [SM('td3')] });
    expect(await search(tp(PUMP_TYPE, 'contains', 'ifug'))).toEqual({ [S('1')]: [SM('td1')], [S('2')]: [SM('td2')] });
    // A number given as a string compares as text: "16.0" is not "16", "n/a" is a text like any other.
    expect(await search(tp(MAX_PRESSURE, '=', '16.0'))).toEqual({});
    expect(await search(tp(MAX_PRESSURE, '=', 'n/a'))).toEqual({ [S('4')]: [SM('td4')] });
    expect(await search(tp(MADE, '>', '2024-01-01T00:00:00Z', { type: 'dateTime' }))).toEqual({ [S('1')]: [SM('td1')] });
    // Offsets count: 22:00 at -02:00 is midnight UTC, 23:30 at -01:00 is half past.
    expect(await search(tp(MADE, 'between', ['2022-12-31T22:00:00-02:00', '2023-06-01T00:00:00Z'], { type: 'dateTime' }))).toEqual({ [S('3')]: [SM('td3')] });
    expect(await search(tp(MADE, 'between', ['2022-12-31T23:30:00-01:00', '2023-06-01T00:00:00Z'], { type: 'dateTime' }))).toEqual({});
    expect(await search(tp(ATEX, '=', true))).toEqual({ [S('3')]: [SM('td3')] });
    expect(await search(tp(ATEX, '=', false))).toEqual({});
  });

  it('reads Technical Data 2.0 submodels too', async () => {
    expect(await search(tp(DIAMETER, '=', 30))).toEqual({ [S('9')]: [SM('td20')] });
  });

  it('finds elements of the template by their semanticIds too (GeneralInformation)', async () => {
    expect(await search(tp(TD.manufacturerName, '=', 'Other'))).toEqual({ [S('3')]: [SM('td3')] });
  });

  it('ANDs several conditions on one submodel', async () => {
    const both = { index: 'technical-properties', conditions: [{ semanticId: MAX_PRESSURE, op: '>=', value: 16 }, { semanticId: PUMP_TYPE, op: '=', value: 'Centrifugal' }] };
    expect(await search(both)).toEqual({ [S('2')]: [SM('td2')] });
    const none = { index: 'technical-properties', conditions: [{ semanticId: MAX_PRESSURE, op: '>=', value: 20 }, { semanticId: PUMP_TYPE, op: '=', value: 'Centrifugal' }] };
    expect(await search(none)).toEqual({});
  });
});

describe('shell-classifications, simple form', () => {
  it('finds shells by classification system, version and class id', async () => {
    const cls = (c: Json) => search({ index: 'shell-classifications', ...c });
    // Shell 9 (2.0) has ECLASS in one item and 36-41-01-01 in another: not found.
    expect(await cls({ system: 'ECLASS', classId: '36-41-01-01' })).toEqual({ [S('1')]: [SM('td1')], [S('2')]: [SM('td2')], [S('4')]: [SM('td4')] });
    expect(await cls({ system: 'ECLASS', version: '13.0', classId: '36-41-01-01' })).toEqual({ [S('1')]: [SM('td1')], [S('2')]: [SM('td2')] });
    expect(await cls({ system: 'ETIM' })).toEqual({ [S('1')]: [SM('td1')], [S('3')]: [SM('td3')] });
    expect(await cls({ classId: 'EC000123' })).toEqual({ [S('1')]: [SM('td1')], [S('3')]: [SM('td3')] });
    expect(await cls({ system: 'ECLASS', classId: 'EC000999' })).toEqual({});
    // Version 2.0: the members hold for one item of the list.
    expect(await cls({ system: 'ECLASS', version: '15.0' })).toEqual({ [S('9')]: [SM('td20')] });
    expect(await cls({ system: 'IEC CDD', classId: '36-41-01-01' })).toEqual({ [S('9')]: [SM('td20')] });
    expect(await cls({ classId: '27-27-40-01' })).toEqual({ [S('9')]: [SM('td20')] });
    expect(await cls({ system: 'ECLASS', classId: '36-41-01-01', version: '15.0' })).toEqual({});
    // Classified both ways: ECLASS and ETIM.
    expect(await cls({ conditions: [{ system: 'ECLASS' }, { system: 'ETIM', classId: 'EC000123' }] })).toEqual({ [S('1')]: [SM('td1')] });
  });
});

describe('full form (AAS Query Language)', () => {
  it('evaluates $sm and $sme conditions on the Technical Data submodels', async () => {
    const full = (condition: Json, index = 'technical-properties') => search({ index, query: { $condition: condition } });
    expect(await full(element(MAX_PRESSURE, '$ge', { $numVal: 16 }))).toEqual({ [S('2')]: [SM('td2'), SM('td2b')], [S('3')]: [SM('td3')] });
    // Every Technical Data submodel: the Nameplate of shell 5 is not one, nor is the submodel shell 7 misses.
    expect(await full({ $eq: [f('$sm#idShort'), { $strVal: 'TechnicalData' }] })).toEqual({
      [S('1')]: [SM('td1')],
      [S('2')]: [SM('td2'), SM('td2b')],
      [S('3')]: [SM('td3')],
      [S('4')]: [SM('td4')],
      [S('9')]: [SM('td20')],
    });
    expect(await full({ $boolean: true }, 'shell-classifications')).toEqual(await full({ $eq: [f('$sm#idShort'), { $strVal: 'TechnicalData' }] }));
    const classified = { $and: [element(TD.productClassificationSystem, '$eq', { $strVal: 'ETIM' }), element(MAX_PRESSURE, '$gt', { $numVal: 20 })] };
    expect(await full(classified, 'shell-classifications')).toEqual({ [S('3')]: [SM('td3')] });
    expect(await full({ $or: [element(MAX_PRESSURE, '$lt', { $numVal: 11 }), element(PUMP_TYPE, '$eq', { $strVal: 'Diaphragm' })] })).toEqual({
      [S('1')]: [SM('td1')],
      [S('3')]: [SM('td3')],
    });
    // No element with a number >= 0: "n/a" of shell 4, and shell 9's submodel has no MaxPressure at all.
    expect(await full({ $not: element(MAX_PRESSURE, '$ge', { $numVal: 0 }) })).toEqual({ [S('4')]: [SM('td4')], [S('9')]: [SM('td20')] });
  });

  it('answers ids with $select: "id" (full form) or select: "id" (simple form)', async () => {
    const full = await json(send({ index: 'technical-properties', query: { $select: 'id', $condition: element(MAX_PRESSURE, '$ge', { $numVal: 16 }) } }));
    expect(full).toEqual({ paging_metadata: {}, result: [S('2'), S('3')] });
    const simple = await json(send({ ...tp(MAX_PRESSURE, '>=', 16), select: 'id' }));
    expect(simple).toEqual({ paging_metadata: {}, result: [S('2'), S('3')] });
  });
});

describe('paging', () => {
  it('pages in insertion order of the shells with limit and cursor', async () => {
    const first = await json(send(tp(MAX_PRESSURE, '>=', 0), '?limit=2'));
    expect(first.result.map((hit: { shell: Json }) => hit.shell.id)).toEqual([S('1'), S('2')]);
    expect(first.paging_metadata.cursor).toBeTruthy();
    const second = await json(send(tp(MAX_PRESSURE, '>=', 0), `?limit=2&cursor=${first.paging_metadata.cursor}`));
    expect(second.result.map((hit: { shell: Json }) => hit.shell.id)).toEqual([S('3')]);
    expect(second.paging_metadata).toEqual({});
    // A cursor of another index, or of another list, is refused.
    expect((await status({ index: 'shell-classifications', system: 'ETIM' }, `?cursor=${first.paging_metadata.cursor}`))[0]).toBe(400);
    expect((await status(tp(MAX_PRESSURE, '>=', 0), `?cursor=${b64('["shells",1]')}`))[0]).toBe(400);
  });

  it('follows changes of the shells at once: a new submodel reference is found, a removed one no longer', async () => {
    const tenantOf = tenant;
    await server.services.shells.addSubmodelRef(tenantOf, S('6'), smRef(SM('orphan')));
    expect(await search(tp(MAX_PRESSURE, '>=', 40))).toEqual({ [S('6')]: [SM('orphan')] });
    await server.services.shells.removeSubmodelRef(tenantOf, S('6'), SM('orphan'));
    expect(await search(tp(MAX_PRESSURE, '>=', 40))).toEqual({});
  });
});

describe('the two plans', () => {
  it('answer the same pages: from the few matching submodels (the tests above) and by scanning the shells', async () => {
    const scanning = new SearchService(server.dataSource, server.services.shells, { timeoutMs: 5_000, fewSubmodels: 0 });
    const requests = [
      { index: 'technical-properties', condition: { semanticId: MAX_PRESSURE, op: '>=', value: 16 } },
      { index: 'technical-properties', condition: { semanticId: MAX_PRESSURE, op: '>=', value: 0 } },
      { index: 'technical-properties', conditions: [{ semanticId: PUMP_TYPE, op: '=', value: 'Centrifugal' }], select: 'id' },
      { index: 'shell-classifications', condition: { system: 'ECLASS' } },
      { index: 'technical-properties', query: { $condition: { $not: element(MAX_PRESSURE, '$ge', { $numVal: 0 }) } } },
      { index: 'technical-properties', condition: { semanticId: MAX_PRESSURE, op: '>', value: 100 } },
    ];
    const pages = async (service: SearchService, request: (typeof requests)[number]) => {
      const out: { id: string; submodelIds: string[]; shell?: string }[][] = [];
      let cursor: string | undefined;
      do {
        const page = await service.search(tenant, request, 1, cursor);
        out.push(page.items.map((hit) => ({ id: hit.id, submodelIds: hit.submodelIds, shell: hit.shell?.id as string | undefined })));
        cursor = page.cursor;
      } while (cursor);
      return out;
    };
    for (const request of requests) {
      const fromCandidates = await pages(server.services.search, request);
      expect(fromCandidates.flat().length, JSON.stringify(request)).toBeGreaterThanOrEqual(request.condition?.value === 100 ? 0 : 1);
      expect(await pages(scanning, request), JSON.stringify(request)).toEqual(fromCandidates);
    }
  });
});

describe('the submodel_ids column', () => {
  it('holds what the migration fills in for existing shells: the referenced submodel ids, in order', async () => {
    await server.services.shells.create(tenant, shell('8', ['td3', 'td1']));
    const read = async () =>
      (await server.dataSource.query(`SELECT id, submodel_ids FROM shells WHERE tenant_id = $1 ORDER BY seq`, [tenant.id])) as { id: string; submodel_ids: string[] }[];
    const written = await read();
    expect(written.find((row) => row.id === S('8'))!.submodel_ids).toEqual([SM('td3'), SM('td1')]);
    expect(written.find((row) => row.id === S('6'))!.submodel_ids).toEqual([]);
    await server.dataSource.query(`UPDATE shells SET submodel_ids = '{}' WHERE tenant_id = $1`, [tenant.id]);
    await server.dataSource.query(`${FILL_SUBMODEL_IDS} AND tenant_id = $1`, [tenant.id]);
    expect(await read()).toEqual(written);
    await server.services.shells.delete(tenant, S('8'));
  });
});

describe('OpenAPI', () => {
  it('describes POST /search in the tenant document, with the indexes the server has', async () => {
    expect(SEARCH_INDEX_NAMES).toEqual(SEARCH_INDEXES.map((index) => index.name));
    const doc = await json(fetch(`${api}/openapi.json`));
    const operation = doc.paths['/search'].post;
    expect(operation.operationId).toBe('Search');
    expect(Object.keys(operation.responses)).toEqual(expect.arrayContaining(['200', '400', '401', '404']));
  });
});

describe('GraphQL', () => {
  it('answers search with shells and the submodels that matched', async () => {
    const { status: code, body } = await graphql(
      server,
      null,
      `query($tenant: String!, $condition: JSONObject) { search(tenant: $tenant, index: "technical-properties", condition: $condition, limit: 1) {
        result { id submodelIds shell { id idShort etag } } pagingMetadata { cursor } } }`,
      { tenant: tenant.name, condition: { semanticId: MAX_PRESSURE, op: '>=', value: 16 } },
    );
    expect(code).toBe(200);
    expect(body.errors).toBeUndefined();
    expect(body.data.search.result).toEqual([{ id: S('2'), submodelIds: [SM('td2'), SM('td2b')], shell: { id: S('2'), idShort: 'Pump2', etag: expect.any(String) } }]);
    expect(body.data.search.pagingMetadata.cursor).toBeTruthy();
    const listed = await graphql(server, null, `query($tenant: String!) { searchIndexes(tenant: $tenant) { name members submodelSemanticIds } }`, { tenant: tenant.name });
    expect(listed.body.data.searchIndexes).toEqual([
      { name: 'shell-classifications', members: ['system', 'version', 'classId'], submodelSemanticIds: [TD.submodel, TD2.submodel] },
      { name: 'technical-properties', members: ['semanticId', 'op', 'value', 'type'], submodelSemanticIds: [TD.submodel, TD2.submodel] },
    ]);
    const bad = await graphql(server, null, `query($tenant: String!) { search(tenant: $tenant, index: "nope", conditions: [{}]) { result { id } } }`, { tenant: tenant.name });
    expect(bad.body.errors[0].extensions.code).toBe('BAD_REQUEST');
  });
});

describe('bad requests', () => {
  it('are 400 with a Result naming the problem, never 500', async () => {
    const cases: [string, unknown, string, RegExp][] = [
      ['unknown index', { index: 'nope', semanticId: MAX_PRESSURE, op: '=', value: 1 }, '', /unknown index "nope"/],
      ['index missing', { semanticId: MAX_PRESSURE, op: '=', value: 1 }, '', /index/],
      ['index not a string', { index: 7, system: 'ECLASS' }, '', /index/],
      ['no condition', { index: 'technical-properties' }, '', /expected "query"/],
      ['unknown op', tp(MAX_PRESSURE, '~', 1), '', /\/op: expected one of/],
      ['op missing', { index: 'technical-properties', semanticId: MAX_PRESSURE, value: 1 }, '', /"op" is missing/],
      ['value missing', { index: 'technical-properties', semanticId: MAX_PRESSURE, op: '=' }, '', /"value" is missing/],
      ['semanticId missing', { index: 'technical-properties', op: '=', value: 1 }, '', /"semanticId" is missing/],
      ['value an object', tp(MAX_PRESSURE, '=', { a: 1 }), '', /\/value: expected a number, a string or a boolean/],
      ['not a number for type number', tp(MAX_PRESSURE, '=', 'abc', { type: 'number' }), '', /expected a number/],
      ['unknown type', tp(MAX_PRESSURE, '=', 1, { type: 'decimal' }), '', /\/type: expected one of/],
      ['bad date-time', tp(MADE, '>', '2024-02-30T00:00:00Z', { type: 'dateTime' }), '', /RFC 3339/],
      ['between with one value', tp(MAX_PRESSURE, 'between', [1]), '', /between/],
      ['between of two types', tp(MAX_PRESSURE, 'between', [1, 'x']), '', /one type/],
      ['contains with a number', tp(PUMP_TYPE, 'contains', 5), '', /expected a string/],
      ['unknown member', { ...tp(MAX_PRESSURE, '=', 1), classId: 'x' }, '', /unknown member "classId"/],
      ['classification without members', { index: 'shell-classifications', conditions: [{}] }, '', /at least one of/],
      ['classification member not a string', { index: 'shell-classifications', system: 5 }, '', /\/system: expected a non-empty string/],
      ['empty conditions', { index: 'shell-classifications', conditions: [] }, '', /expected "query"/],
      ['conditions not objects', { index: 'shell-classifications', conditions: ['ECLASS'] }, '', /\/conditions\/0: expected an object/],
      ['bad select', { ...tp(MAX_PRESSURE, '=', 1), select: 'ids' }, '', /\/select/],
      ['invalid query language', { index: 'technical-properties', query: { $condition: { $foo: [] } } }, '', /Invalid search: query/],
      ['query without $condition', { index: 'technical-properties', query: {} }, '', /Invalid search: query/],
      ['$aas field', { index: 'technical-properties', query: { $condition: { $eq: [f('$aas#idShort'), { $strVal: 'Pump1' }] } } }, '', /addresses the index's submodels/],
      ['$cd field', { index: 'shell-classifications', query: { $condition: { $eq: [f('$cd#idShort'), { $strVal: 'x' }] } } }, '', /addresses the index's submodels/],
      ['full and simple form', { ...tp(MAX_PRESSURE, '=', 1), query: { $condition: { $boolean: true } } }, '', /full form/],
      ['limit 0', tp(MAX_PRESSURE, '=', 1), '?limit=0', /limit/],
      ['limit 251', tp(MAX_PRESSURE, '=', 1), '?limit=251', /limit/],
      ['bad cursor', tp(MAX_PRESSURE, '=', 1), '?cursor=%%%', /cursor/],
      ['body an array', [tp(MAX_PRESSURE, '=', 1)], '', /object/],
      ['NUL in a value', tp(PUMP_TYPE, '=', 'a\u0000b'), '', /NUL/],
    ];
    for (const [name, body, query, message] of cases) {
      const [code, text] = await status(body, query);
      expect(code, `${name}: ${text}`).toBe(400);
      expect(text, name).toMatch(message);
    }
    const raw = (body: string) => fetch(`${api}/search`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    expect((await raw('{"index": "technical')).status).toBe(400);
    const huge = await raw(`{"index": "technical-properties", "semanticId": "${MAX_PRESSURE}", "op": ">", "value": 1e400}`);
    expect(huge.status).toBe(400);
    expect((await json(huge)).messages[0].text).toMatch(/out of range/);
  });
});

describe('no 500', () => {
  it('answers 200 or 400 (a Result) to 400 seeded mutations of valid searches', async () => {
    const { next: rnd, pick } = seededRandom(20261123);
    const VALUES: unknown[] = [null, 0, -1, 1e308, -1e-308, 16, '', '$x', 'a\u0000', 'x'.repeat(3000), [], {}, [1], [1, 2, 3], ['a', 'b'], [true, false], true, 'ECLASS',
      '2024-13-01T00:00:00Z', '2024-01-01T00:00:00Z', '1e999', ' 16 ', 'NaN', { $numVal: 1 }, { $field: '$aas#id' }, { a: { b: { c: [] } } }];
    const CONDITIONS: unknown[] = [
      { $eq: [f('$sme#value'), { $numVal: 1 }] },
      { $regex: [f('$sme#value'), { $strVal: '(a+)+$' }] },
      { $match: [{ $eq: [f('$sme.X[]#value'), { $strVal: 'a' }] }, { $gt: [f('$sme.Y[]#value'), { $numVal: 2 }] }] },
      { $and: [] },
      { $not: { $boolean: false } },
      { $eq: [{ $numCast: f('$sme#value') }, { $hexVal: '16#FF' }] },
      { $lt: [{ $dateTimeCast: f('$sme#value') }, { $dateTimeVal: '2024-02-30T00:00:00Z' }] },
      { $eq: [f('$sm#semanticId.keys[99].value'), { $strVal: 'x' }] },
    ];
    const valid = (): Json =>
      pick([
        () => tp(MAX_PRESSURE, pick(['=', '>=', 'between', 'contains', '!=']), pick([16, 'x', [1, 2], true])),
        () => ({ index: 'shell-classifications', system: 'ECLASS', version: '13.0', classId: '36-41-01-01' }),
        () => ({ index: 'technical-properties', conditions: [{ semanticId: MAX_PRESSURE, op: '<', value: 3 }, { semanticId: PUMP_TYPE, op: '=', value: 'x' }], select: 'id' }),
        () => ({ index: pick(['technical-properties', 'shell-classifications']), query: { $select: 'id', $condition: pick(CONDITIONS) } }),
      ])();
    const mutate = (body: Json): Json => {
      const out: Json = structuredClone(body);
      const keys = Object.keys(out);
      switch (Math.floor(rnd() * 5)) {
        case 0:
          out[pick(keys)] = pick(VALUES);
          break;
        case 1:
          delete out[pick(keys)];
          break;
        case 2:
          out[pick(['extra', 'index', 'select', 'conditions', 'query', 'type', 'op'])] = pick(VALUES);
          break;
        case 3:
          if (Array.isArray(out.conditions)) (out.conditions as Json[])[0] = { ...(out.conditions as Json[])[0], [pick(['op', 'value', 'semanticId', 'system', 'type', 'zz'])]: pick(VALUES) };
          else out.value = pick(VALUES);
          break;
        default:
          if (out.query && typeof out.query === 'object') (out.query as Json).$condition = pick([...CONDITIONS, ...VALUES]);
          else out.type = pick(['number', 'string', 'dateTime', 'boolean', 'hex', 7]);
      }
      return out;
    };
    const failures: string[] = [];
    for (let i = 0; i < 400; i++) {
      const body = i % 10 === 0 ? valid() : mutate(valid());
      const query = i % 7 === 0 ? pick(['?limit=1', '?limit=-1', '?limit=abc', '?cursor=x', '?limit=250', '?limit=1&limit=2']) : '';
      const res = await send(body, query);
      const answer = await json(res);
      const ok = res.status === 200 ? Array.isArray(answer.result) : res.status === 400 && Array.isArray(answer.messages) && answer.messages.length > 0;
      if (!ok) failures.push(`${res.status} ${JSON.stringify(body).slice(0, 300)}${query}: ${JSON.stringify(answer).slice(0, 300)}`);
    }
    expect(failures).toEqual([]);
  });
});

describe('access', () => {
  let closed: TenantEntity;
  let reader: string;
  let stranger: string;
  beforeAll(async () => {
    closed = await server.createTenant({ showcase: false });
    await server.services.submodels.create(closed, SUBMODELS[0]);
    await server.services.shells.create(closed, shell('1', ['td1']));
    const account = await newServiceAccount(server, closed.organizationId);
    await assignRole(server, closed.organizationId, { type: 'service-account', id: account.id }, 'reader', closed.id);
    reader = await account.token();
    const elsewhere = await server.createTenant({ showcase: false });
    const outsider = await newServiceAccount(server, elsewhere.organizationId);
    await assignRole(server, elsewhere.organizationId, { type: 'service-account', id: outsider.id }, 'contributor', elsewhere.id);
    stranger = await outsider.token();
  });

  it('lets readers search; no token 401; another organization 404', async () => {
    const closedApi = () => server.api(closed.name);
    const body = { ...tp(MAX_PRESSURE, '>=', 0), select: 'id' };
    const asReader = await send(body, '', { authorization: `Bearer ${reader}` }, closedApi);
    expect(await json(asReader)).toEqual({ paging_metadata: {}, result: [S('1')] });
    expect((await send(body, '', {}, closedApi)).status).toBe(401);
    expect((await send(body, '', { authorization: `Bearer ${stranger}` }, closedApi)).status).toBe(404);
    const indexes = `query($tenant: String!) { searchIndexes(tenant: $tenant) { name } }`;
    expect((await graphql(server, reader, indexes, { tenant: closed.name })).body.data.searchIndexes).toHaveLength(2);
    expect((await graphql(server, null, indexes, { tenant: closed.name })).body.errors[0].extensions.code).toBe('UNAUTHENTICATED');
  });
});
