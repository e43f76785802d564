import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { TenantEntity } from '../../src/management/tenants/tenant.entity';
import { assignRole, graphql } from '../support/grants';
import { newServiceAccount } from '../support/identity';
import { TestServer, json, startTestServer } from '../support/server';
import { LOAD_SLACK_MS } from '../support/timing';

/**
 * The AAS Query Language endpoints (POST {tenant_url}/api/v3.0/query/shells, /query/submodels,
 * /query/concept-descriptions) and their GraphQL fields (the `query` argument of shells, submodels,
 * conceptDescriptions; queryIds) over a small data set: exact answers, paging, `$select: "id"`, bad queries,
 * tenant isolation and roles. The translation's semantics are tested at length in query-sql.test.ts.
 */

let server: TestServer;
let tenant: TenantEntity;
let other: TenantEntity;
let api: string;

type Json = Record<string, unknown>;
type Headers = Record<string, string>;

const ref = (value: string) => ({ type: 'ExternalReference', keys: [{ type: 'GlobalReference', value }] });
const prop = (idShort: string, valueType: string, value: string) => ({ modelType: 'Property', idShort, valueType, value });
const S = (n: string) => `urn:qr:shell:${n}`;
const SM = (n: string) => `urn:qr:sm:${n}`;
const CD = (n: string) => `urn:qr:cd:${n}`;

const shell = (n: string, idShort: string, assetKind: string, serial?: string): Json => ({
  modelType: 'AssetAdministrationShell',
  id: S(n),
  idShort,
  assetInformation: { assetKind, globalAssetId: `urn:qr:asset:${n}`, ...(serial ? { specificAssetIds: [{ name: 'serial', value: serial }] } : {}) },
});
const submodel = (n: string, idShort: string, semanticId: string, elements: Json[]): Json => ({
  modelType: 'Submodel',
  id: SM(n),
  idShort,
  semanticId: ref(semanticId),
  submodelElements: elements,
});
const conceptDescription = (n: string, idShort: string): Json => ({ modelType: 'ConceptDescription', id: CD(n), idShort });

const SHELLS = [shell('1', 'Pump1', 'Instance', '100'), shell('2', 'Pump2', 'Type', '200'), shell('3', 'Motor3', 'Instance'), shell('4', 'Valve4', 'Instance')];
const SUBMODELS = [
  submodel('1', 'Nameplate', 'urn:sem:nameplate', [prop('ManufacturerName', 'xs:string', 'ACME'), prop('Year', 'xs:int', '2020')]),
  submodel('2', 'Nameplate', 'urn:sem:nameplate', [prop('ManufacturerName', 'xs:string', 'Other'), prop('Year', 'xs:int', '2024')]),
  submodel('3', 'TechnicalData', 'urn:sem:tech', [prop('MaxTemperature', 'xs:double', '80.5')]),
];
const CDS = [conceptDescription('1', 'Temperature'), conceptDescription('2', 'Pressure'), conceptDescription('3', 'TemperatureMax')];

/** The other tenant: the same idShorts, one of the same ids. Never part of the first tenant's answers. */
const OTHER_SHELLS = [{ ...shell('1', 'PumpOther', 'Instance', '100') }, shell('9', 'Pump9', 'Instance', '100')];
const OTHER_SUBMODELS = [submodel('9', 'Nameplate', 'urn:sem:nameplate', [prop('ManufacturerName', 'xs:string', 'ACME')])];
const OTHER_CDS = [conceptDescription('9', 'Temperature')];

const field = (f: string) => ({ $field: f });
const str = (s: string) => ({ $strVal: s });
const eq = (f: string, s: string) => ({ $condition: { $eq: [field(f), str(s)] } });
const ALL = { $condition: { $boolean: true } };

type Target = 'shells' | 'submodels' | 'concept-descriptions';

interface PostOptions {
  limit?: string | number;
  cursor?: string;
  headers?: Headers;
  /** The body as sent, instead of JSON of `body`. */
  raw?: string;
}

function post(target: Target, body: unknown, options: PostOptions = {}, base = api): Promise<Response> {
  const params = new URLSearchParams();
  if (options.limit !== undefined) params.set('limit', String(options.limit));
  if (options.cursor !== undefined) params.set('cursor', options.cursor);
  const query = params.size ? `?${params}` : '';
  return fetch(`${base}/query/${target}${query}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...options.headers },
    body: options.raw ?? JSON.stringify(body),
  });
}

/** The answer of a query that succeeds. */
async function answer(target: Target, body: unknown, options: PostOptions = {}, base = api) {
  const res = await post(target, body, options, base);
  const parsed = await json(res);
  expect(res.status, JSON.stringify(parsed).slice(0, 500)).toBe(200);
  return parsed as { paging_metadata: { cursor?: string; resultType?: string }; result: unknown[] };
}

const idsOf = async (target: Target, body: unknown, options: PostOptions = {}) => (await answer(target, body, options)).result.map((item) => (item as Json).id);

/** A refused request: its status and the texts of its Result. */
async function refusal(res: Response | Promise<Response>) {
  const r = await res;
  const body = await json(r);
  expect(body.messages?.length, JSON.stringify(body)).toBeGreaterThan(0);
  for (const m of body.messages) expect(m).toMatchObject({ messageType: 'Error', code: expect.any(String), text: expect.any(String) });
  return { status: r.status, text: (body.messages as { text: string }[]).map((m) => m.text).join(' | ') };
}

async function seed(t: TenantEntity, shells: Json[], submodels: Json[], cds: Json[]) {
  const base = server.api(t.name);
  const create = async (path: string, doc: Json) => expect((await fetch(`${base}/${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(doc) })).status).toBe(201);
  for (const doc of shells) await create('shells', doc);
  for (const doc of submodels) await create('submodels', doc);
  for (const doc of cds) await create('concept-descriptions', doc);
}

beforeAll(async () => {
  server = await startTestServer(inject('databaseUrl'));
  tenant = await server.createTenant();
  other = await server.createTenant();
  api = server.api(tenant.name);
  // Interleaved with the other tenant's writes, so its rows sit between ours in insertion order.
  await seed(other, OTHER_SHELLS.slice(0, 1), [], []);
  await seed(tenant, SHELLS.slice(0, 2), SUBMODELS.slice(0, 1), CDS.slice(0, 2));
  await seed(other, OTHER_SHELLS.slice(1), OTHER_SUBMODELS, OTHER_CDS);
  await seed(tenant, SHELLS.slice(2), SUBMODELS.slice(1), CDS.slice(2));
});
afterAll(() => server?.close());

describe('POST /query/shells', () => {
  it('answers the shells a query selects, whole, in insertion order, with V3.1 paging metadata', async () => {
    const res = await answer('shells', eq('$aas#idShort', 'Pump1'));
    expect(res).toEqual({ paging_metadata: { resultType: 'AssetAdministrationShell' }, result: [SHELLS[0]] });
  });

  it('gives exact answers for conditions on the shell and its asset information', async () => {
    expect(await idsOf('shells', { $condition: { '$starts-with': [field('$aas#idShort'), str('Pump')] } })).toEqual([S('1'), S('2')]);
    expect(await idsOf('shells', eq('$aas#assetInformation.assetKind', 'Instance'))).toEqual([S('1'), S('3'), S('4')]);
    expect(await idsOf('shells', eq('$aas#assetInformation.specificAssetIds[].value', '100'))).toEqual([S('1')]);
    expect(
      await idsOf('shells', {
        $condition: { $and: [{ $eq: [field('$aas#assetInformation.assetKind'), str('Instance')] }, { $not: { '$starts-with': [field('$aas#idShort'), str('Pump')] } }] },
      }),
    ).toEqual([S('3'), S('4')]);
    expect(await idsOf('shells', { $condition: { $or: [{ $eq: [field('$aas#id'), str(S('4'))] }, { $eq: [field('$aas#idShort'), str('Pump2')] }] } })).toEqual([S('2'), S('4')]);
    expect(await idsOf('shells', ALL)).toEqual(SHELLS.map((s) => s.id));
    expect(await idsOf('shells', { $condition: { $boolean: false } })).toEqual([]);
    expect(await idsOf('shells', eq('$aas#idShort', 'PumpOther'))).toEqual([]);
  });
});

describe('POST /query/submodels', () => {
  it('answers whole submodels for conditions on the submodel', async () => {
    expect((await answer('submodels', eq('$sm#semanticId', 'urn:sem:tech'))).result).toEqual([SUBMODELS[2]]);
    expect(await idsOf('submodels', eq('$sm#idShort', 'Nameplate'))).toEqual([SM('1'), SM('2')]);
    expect(await idsOf('submodels', { $condition: { $ne: [field('$sm#idShort'), str('Nameplate')] } })).toEqual([SM('3')]);
    const all = await answer('submodels', ALL);
    expect(all.paging_metadata).toEqual({ resultType: 'Submodel' });
    expect(all.result).toEqual(SUBMODELS);
  });

  it('answers whole submodels for conditions on their elements', async () => {
    expect((await answer('submodels', eq('$sme.ManufacturerName#value', 'ACME'))).result).toEqual([SUBMODELS[0]]);
    expect(await idsOf('submodels', eq('$sme#idShort', 'MaxTemperature'))).toEqual([SM('3')]);
    expect(await idsOf('submodels', { $condition: { $gt: [field('$sme.Year#value'), { $numVal: 2021 }] } })).toEqual([SM('2')]);
    expect(
      await idsOf('submodels', { $condition: { $and: [{ $eq: [field('$sm#idShort'), str('Nameplate')] }, { $eq: [field('$sme.ManufacturerName#value'), str('Other')] }] } }),
    ).toEqual([SM('2')]);
  });
});

describe('POST /query/concept-descriptions', () => {
  it('answers whole concept descriptions', async () => {
    expect(await answer('concept-descriptions', eq('$cd#idShort', 'Pressure'))).toEqual({ paging_metadata: { resultType: 'ConceptDescription' }, result: [CDS[1]] });
    expect(await idsOf('concept-descriptions', { $condition: { '$starts-with': [field('$cd#idShort'), str('Temperature')] } })).toEqual([CD('1'), CD('3')]);
    expect(await idsOf('concept-descriptions', { $condition: { $regex: [field('$cd#id'), str('^urn:qr:cd:[13]$')] } })).toEqual([CD('1'), CD('3')]);
    expect(await idsOf('concept-descriptions', { $condition: { $ne: [field('$cd#idShort'), str('Pressure')] } })).toEqual([CD('1'), CD('3')]);
  });
});

describe('$select: "id"', () => {
  it('answers identifiers, with the result type Identifier', async () => {
    expect(await answer('shells', { $select: 'id', ...eq('$aas#assetInformation.assetKind', 'Instance') })).toEqual({
      paging_metadata: { resultType: 'Identifier' },
      result: [S('1'), S('3'), S('4')],
    });
    expect((await answer('submodels', { $select: 'id', ...eq('$sm#idShort', 'Nameplate') })).result).toEqual([SM('1'), SM('2')]);
    expect((await answer('concept-descriptions', { $select: 'id', ...ALL })).result).toEqual(CDS.map((c) => c.id));
  });
});

describe('paging', () => {
  async function walk(target: Target, body: unknown): Promise<unknown[][]> {
    const pages: unknown[][] = [];
    let cursor: string | undefined;
    do {
      const page = await answer(target, body, { limit: 1, ...(cursor ? { cursor } : {}) });
      pages.push(page.result);
      cursor = page.paging_metadata.cursor;
    } while (cursor && pages.length < 10);
    return pages;
  }

  it('walks every answer one at a time (limit 1), the last page without a cursor', async () => {
    expect(await walk('shells', ALL)).toEqual(SHELLS.map((s) => [s]));
    expect(await walk('shells', { $select: 'id', ...ALL })).toEqual(SHELLS.map((s) => [s.id]));
    expect(await walk('submodels', eq('$sm#idShort', 'Nameplate'))).toEqual([[SUBMODELS[0]], [SUBMODELS[1]]]);
    expect(await walk('concept-descriptions', { $select: 'id', ...ALL })).toEqual(CDS.map((c) => [c.id]));
  });

  it('continues from a cursor; objects and ids share cursors', async () => {
    const first = await answer('shells', ALL, { limit: 2 });
    expect(first.result).toEqual(SHELLS.slice(0, 2));
    const cursor = first.paging_metadata.cursor!;
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(await answer('shells', ALL, { limit: 2, cursor })).toEqual({ paging_metadata: { resultType: 'AssetAdministrationShell' }, result: SHELLS.slice(2) });
    expect((await answer('shells', { $select: 'id', ...ALL }, { cursor })).result).toEqual([S('3'), S('4')]);
    // A full page with nothing after it has no cursor.
    expect((await answer('shells', ALL, { limit: 4 })).paging_metadata).toEqual({ resultType: 'AssetAdministrationShell' });
  });

  it('refuses limits outside 1..250 and cursors it did not issue for this list with 400', async () => {
    for (const limit of [0, 251, -1, 'abc', '1.5']) {
      const r = await refusal(post('shells', ALL, { limit }));
      expect([r.status, r.text], String(limit)).toEqual([400, expect.stringMatching(/limit/)]);
    }
    const listCursor = (await json(fetch(`${api}/shells?limit=1`))).paging_metadata.cursor as string;
    const submodelCursor = (await answer('submodels', ALL, { limit: 1 })).paging_metadata.cursor!;
    for (const cursor of ['garbage', 'eyJ4Ijp9', listCursor, submodelCursor]) {
      const r = await refusal(post('shells', ALL, { cursor }));
      expect([r.status, r.text], cursor).toEqual([400, expect.stringMatching(/cursor/)]);
    }
  });
});

describe('bad queries', () => {
  const cases: [string, Target, unknown, RegExp][] = [
    ['a comparison with one operand', 'shells', { $condition: { $eq: [field('$aas#idShort')] } }, /Invalid query/],
    ['an unknown member', 'shells', { ...ALL, $where: 1 }, /unknown member "\$where"/],
    ['no $condition', 'shells', {}, /Invalid query.*\$condition/],
    ['an unknown operator', 'shells', { $condition: { $like: [field('$aas#idShort'), str('x')] } }, /\/\$condition: expected exactly one of .*\(got "\$like"\)/],
    ['a bad $select', 'shells', { $select: 'idShort', ...ALL }, /\$select.*"id"/],
    ['an unknown field', 'shells', eq('$aas#colour', 'red'), /\/\$condition\/\$eq\/0\/\$field: expected a field identifier .*\(got "\$aas#colour"\)/],
    ['an $sme field in a shells query', 'shells', eq('$sme.ManufacturerName#value', 'ACME'), /address submodels, but the query is over shells/],
    ['a $cd field in a submodels query', 'submodels', eq('$cd#idShort', 'x'), /address conceptDescriptions, but the query is over submodels/],
    ['an $aas field in a concept descriptions query', 'concept-descriptions', eq('$aas#idShort', 'x'), /address shells/],
    ['a $regex pattern JavaScript refuses', 'shells', { $condition: { $regex: [field('$aas#idShort'), str('a**')] } }, /does not compile/],
    // Accepted by the parser, refused by PostgreSQL (2201B): still the client's query, so 400.
    ['a $regex pattern PostgreSQL refuses', 'shells', { $condition: { $regex: [field('$aas#idShort'), str('[a[.]')] } }, /cannot be evaluated.*brackets.*2201B/],
    ['a $regex pattern PostgreSQL refuses, over submodels', 'submodels', { $condition: { $regex: [field('$sm#idShort'), str('[a[.]')] } }, /cannot be evaluated.*brackets/],
    ['a $regex pattern PostgreSQL refuses, over concept descriptions', 'concept-descriptions', { $condition: { $regex: [field('$cd#id'), str('x[a[=]')] } }, /cannot be evaluated.*brackets/],
  ];
  for (const [name, target, body, text] of cases) {
    it(`answers 400 with a Result naming the problem: ${name}`, async () => {
      const r = await refusal(post(target, body));
      expect(r, r.text).toEqual({ status: 400, text: expect.stringMatching(text) });
    });
  }

  it('refuses bodies that are not a JSON object: 400, or 415 for another media type', async () => {
    const raw = async (body: string, headers: Headers = {}) => refusal(post('shells', undefined, { raw: body, headers }));
    for (const body of ['{"$condition": ', 'not json', '[]', '"text"', '42', 'null']) expect((await raw(body)).status, body).toBe(400);
    expect((await refusal(fetch(`${api}/query/shells`, { method: 'POST' }))).status).toBe(400);
    expect((await raw(JSON.stringify(ALL), { 'content-type': 'text/plain' })).status).toBe(415);
    expect((await raw(JSON.stringify(ALL), { 'content-type': 'application/xml' })).status).toBe(415);
    // GET is not how queries are sent.
    expect((await fetch(`${api}/query/shells`)).status).toBe(405);
  });
});

describe('statement timeout', () => {
  // PostgreSQL only: the embedded database (PGlite, single-threaded WebAssembly) has no timer interrupts, so
  // statement_timeout never fires there (README, "Query language").
  it.skipIf(!process.env.DATABASE_URL)('stops a query that runs longer than QUERY_TIMEOUT_MS with 400, and the server keeps answering', async () => {
    const slow = await startTestServer(inject('databaseUrl'), { queryTimeoutMs: 200 });
    try {
      const t = await slow.createTenant();
      const base = slow.api(t.name);
      // 3,000 asset ids compared with each other: nine million pairs, seconds of work.
      const many = Array.from({ length: 3000 }, (_, i) => ({ name: `n${i}`, value: `v${i}` }));
      const doc = { ...shell('big', 'Big', 'Instance'), assetInformation: { assetKind: 'Instance', globalAssetId: 'urn:qr:big', specificAssetIds: many } };
      expect((await fetch(`${base}/shells`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(doc) })).status).toBe(201);
      const pairs = { $condition: { $eq: [field('$aas#assetInformation.specificAssetIds[].name'), field('$aas#assetInformation.specificAssetIds[].value')] } };
      const started = Date.now();
      const r = await refusal(post('shells', pairs, {}, base));
      expect(r).toEqual({ status: 400, text: expect.stringMatching(/longer than 200 ms \(QUERY_TIMEOUT_MS\)/) });
      // Refused at its timeout, and not after the seconds its work would take: the load slack on top (test/support/timing.ts).
      expect(Date.now() - started).toBeLessThan(200 + LOAD_SLACK_MS);
      expect((await answer('shells', { $select: 'id', ...eq('$aas#idShort', 'Big') }, {}, base)).result).toEqual([S('big')]);
    } finally {
      await slow.close();
    }
  });
});

describe('GraphQL', () => {
  const gql = (query: string, variables: Json, token: string | null = null) => graphql(server, token, query, variables);
  const codeOf = (body: { errors?: { extensions?: { code?: string } }[] }) => body.errors?.[0]?.extensions?.code;

  it('takes a query on shells, submodels and conceptDescriptions, paged like the lists', async () => {
    const shells = await gql(
      `query($t: String!, $q: JSON) { shells(tenant: $t, query: $q, limit: 2) { result { id idShort } pagingMetadata { cursor } } }`,
      { t: tenant.name, q: eq('$aas#assetInformation.assetKind', 'Instance') },
    );
    expect(shells.body.errors).toBeUndefined();
    expect(shells.body.data.shells.result).toEqual([{ id: S('1'), idShort: 'Pump1' }, { id: S('3'), idShort: 'Motor3' }]);
    const next = await gql(
      `query($t: String!, $q: JSON, $c: String) { shells(tenant: $t, query: $q, limit: 2, cursor: $c) { result { id } pagingMetadata { cursor } } }`,
      { t: tenant.name, q: eq('$aas#assetInformation.assetKind', 'Instance'), c: shells.body.data.shells.pagingMetadata.cursor },
    );
    expect(next.body.data.shells).toEqual({ result: [{ id: S('4') }], pagingMetadata: { cursor: null } });

    const submodels = await gql(`query($t: String!, $q: JSON) { submodels(tenant: $t, query: $q) { result { id json } } }`, {
      t: tenant.name,
      q: eq('$sm#semanticId', 'urn:sem:tech'),
    });
    expect(submodels.body.errors).toBeUndefined();
    expect(submodels.body.data.submodels.result).toEqual([{ id: SM('3'), json: SUBMODELS[2] }]);
    const cds = await gql(`query($t: String!, $q: JSON) { conceptDescriptions(tenant: $t, query: $q) { result { id } } }`, {
      t: tenant.name,
      q: { $condition: { '$ends-with': [field('$cd#idShort'), str('Max')] } },
    });
    expect(cds.body.data.conceptDescriptions.result).toEqual([{ id: CD('3') }]);
  });

  it('answers identifiers with queryIds', async () => {
    const res = await gql(
      `query($t: String!, $a: JSON!, $b: JSON!, $c: JSON!) {
        a: queryIds(tenant: $t, target: shells, query: $a) { result pagingMetadata { cursor } }
        b: queryIds(tenant: $t, target: submodels, query: $b, limit: 1) { result pagingMetadata { cursor } }
        c: queryIds(tenant: $t, target: conceptDescriptions, query: $c) { result }
      }`,
      { t: tenant.name, a: { $condition: { '$starts-with': [field('$aas#idShort'), str('Pump')] } }, b: ALL, c: { $select: 'id', ...eq('$cd#idShort', 'Pressure') } },
    );
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.a).toEqual({ result: [S('1'), S('2')], pagingMetadata: { cursor: null } });
    expect(res.body.data.b.result).toEqual([SM('1')]);
    expect(res.body.data.b.pagingMetadata.cursor).toEqual(expect.any(String));
    expect(res.body.data.c).toEqual({ result: [CD('2')] });
  });

  it('refuses bad queries, and filter and query together, with BAD_REQUEST', async () => {
    const list = `query($t: String!, $q: JSON, $f: ShellFilterInput) { shells(tenant: $t, query: $q, filter: $f) { result { id } } }`;
    const cases: [unknown, Json | null, RegExp][] = [
      [eq('$sme.X#value', 'x'), null, /address submodels, but the query is over shells/],
      [{ $condition: { $regex: [field('$aas#idShort'), str('[a[.]')] } }, null, /cannot be evaluated/],
      [ALL, { idShort: 'Pump1' }, /either `filter` or `query`/],
      [{ $condition: 'yes' }, null, /Invalid query/],
      ['a string', null, /Invalid query.*object/],
    ];
    for (const [q, f, text] of cases) {
      const res = await gql(list, { t: tenant.name, q, f });
      expect(codeOf(res.body), JSON.stringify(res.body)).toBe('BAD_REQUEST');
      expect(res.body.errors[0].message).toMatch(text);
    }
    // An empty filter is no filter; `$select` does not change what a list answers (the client selects the fields).
    const res = await gql(list, { t: tenant.name, q: eq('$aas#idShort', 'Pump2'), f: {} });
    expect(res.body.data.shells.result).toEqual([{ id: S('2') }]);
    const selected = await gql(list, { t: tenant.name, q: { $select: 'id', ...eq('$aas#idShort', 'Pump2') } });
    expect(selected.body.data.shells.result).toEqual([{ id: S('2') }]);
    // An unknown target is refused by the schema.
    const bad = await gql(`query($t: String!, $q: JSON!) { queryIds(tenant: $t, target: descriptors, query: $q) { result } }`, { t: tenant.name, q: ALL });
    expect(codeOf(bad.body)).toBe('GRAPHQL_VALIDATION_FAILED');
  });
});

describe('isolation and access', () => {
  let closed: TenantEntity;
  let reader: string;
  let stranger: string;
  const as = (token?: string): Headers => (token ? { authorization: `Bearer ${token}` } : {});

  beforeAll(async () => {
    closed = await server.createTenant({ showcase: false });
    const withRole = async (t: TenantEntity, role: 'reader' | 'contributor') => {
      const account = await newServiceAccount(server, t.organizationId);
      await assignRole(server, t.organizationId, { type: 'service-account', id: account.id }, role, t.id);
      return account.token();
    };
    reader = await withRole(closed, 'reader');
    stranger = await withRole(await server.createTenant({ showcase: false }), 'contributor');
    await server.services.shells.create(closed, shell('c1', 'Closed1', 'Instance'));
    await server.services.submodels.create(closed, submodel('c1', 'Closed', 'urn:sem:closed', [prop('P', 'xs:string', 'x')]));
    await server.services.conceptDescriptions.create(closed, conceptDescription('c1', 'Closed'));
  });

  it("never answers another tenant's objects", async () => {
    const otherApi = server.api(other.name);
    expect((await answer('shells', { $select: 'id', ...ALL }, {}, otherApi)).result).toEqual([S('1'), S('9')]);
    expect((await answer('shells', eq('$aas#id', S('1')), {}, otherApi)).result).toEqual([OTHER_SHELLS[0]]);
    expect((await answer('shells', eq('$aas#id', S('1')))).result).toEqual([SHELLS[0]]);
    expect(await idsOf('shells', eq('$aas#idShort', 'Pump9'))).toEqual([]);
    expect(await idsOf('submodels', eq('$sm#idShort', 'Nameplate'))).toEqual([SM('1'), SM('2')]);
    expect(await idsOf('concept-descriptions', eq('$cd#idShort', 'Temperature'))).toEqual([CD('1')]);
  });

  it('lets readers query; no token is 401, a caller without a role in the tenant 404, an unknown tenant 404', async () => {
    const closedApi = server.api(closed.name);
    const expected: [Target, string][] = [['shells', S('c1')], ['submodels', SM('c1')], ['concept-descriptions', CD('c1')]];
    for (const [target, id] of expected) {
      expect((await answer(target, ALL, { headers: as(reader) }, closedApi)).result.map((d) => (d as Json).id)).toEqual([id]);
      expect((await answer(target, { $select: 'id', ...ALL }, { headers: as(reader) }, closedApi)).result).toEqual([id]);
      for (const body of [ALL, { $select: 'id', ...ALL }]) {
        expect((await refusal(post(target, body, {}, closedApi))).status, target).toBe(401);
        expect((await refusal(post(target, body, { headers: as(stranger) }, closedApi))).status, target).toBe(404);
      }
      expect((await refusal(post(target, ALL, { headers: as(reader) }, server.api('no-such-tenant')))).status).toBe(404);
    }
    const q = `query($t: String!, $q: JSON!) { queryIds(tenant: $t, target: shells, query: $q) { result } }`;
    expect((await graphql(server, reader, q, { t: closed.name, q: ALL })).body.data.queryIds.result).toEqual([S('c1')]);
    expect((await graphql(server, null, q, { t: closed.name, q: ALL })).body.errors[0].extensions.code).toBe('UNAUTHENTICATED');
    expect((await graphql(server, stranger, q, { t: closed.name, q: ALL })).body.errors[0].extensions.code).toBe('NOT_FOUND');
    const list = `query($t: String!, $q: JSON!) { shells(tenant: $t, query: $q) { result { id } } }`;
    expect((await graphql(server, reader, list, { t: closed.name, q: ALL })).body.data.shells.result).toEqual([{ id: S('c1') }]);
    expect((await graphql(server, stranger, list, { t: closed.name, q: ALL })).body.errors[0].extensions.code).toBe('NOT_FOUND');
  });
});
