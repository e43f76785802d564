import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { TenantEntity } from '../../src/management/tenants/tenant.entity';
import { sendFile } from '../support/file-suite';
import { assignRole, graphql } from '../support/grants';
import { newServiceAccount } from '../support/identity';
import { TestServer, json, startTestServer } from '../support/server';

/**
 * Filter queries (platform spec, "Filter queries (shell properties displayName, idShort, aas-id)" and the file
 * filter query API): prefix and contains matches on shells (idShort, id, displayName in any language), submodels
 * (idShort, id) and files (displayName), over REST and GraphQL. Exact result sets over a seeded tenant: matches are
 * case-sensitive, `%` and `_` in the input are literal, a filtered list's cursor continues the filtered list, and
 * another tenant's data never appears.
 */

let server: TestServer;
let tenant: TenantEntity;
let other: TenantEntity;
let reader: string;
let contributor: string;

const LONG = `urn:f:long:${'x'.repeat(300)}`;

const shell = (id: string, idShort: string, displayName?: [string, string][], assetKind = 'Instance') => ({
  modelType: 'AssetAdministrationShell',
  id,
  idShort,
  ...(displayName ? { displayName: displayName.map(([language, text]) => ({ language, text })) } : {}),
  assetInformation: { assetKind, globalAssetId: `${id}#asset` },
});

/** The seeded shells of `tenant`, in insertion order. */
const SHELLS = [
  shell('urn:f:pump:1', 'Pump_1', [['en', 'Water pump'], ['de', 'Wasserpumpe']]),
  shell('urn:f:pump:2', 'Pump12', [['en', 'Oil pump 100%'], ['fr', 'Pompe à huile']], 'Type'),
  shell('urn:f:valve%1', 'Valve', [['en', 'Valve'], ['de', 'Ventil']]),
  shell('urn:f:PUMP:3', 'pump3'),
  shell(`${LONG}:a`, 'Long_A'),
  shell(`${LONG}:b`, 'LongB', [['ja', 'ポンプ']]),
  shell('urn:f:under_score', 'Under_Score', [['en', 'Under_score 50%']]),
];
/** Shell ids by short name, for readable expectations. */
const S = {
  pump1: 'urn:f:pump:1',
  pump2: 'urn:f:pump:2',
  valve: 'urn:f:valve%1',
  pump3: 'urn:f:PUMP:3',
  longA: `${LONG}:a`,
  longB: `${LONG}:b`,
  under: 'urn:f:under_score',
};

const SUBMODELS = [
  { modelType: 'Submodel', id: 'urn:f:sm:temp', idShort: 'Temp_1' },
  { modelType: 'Submodel', id: 'urn:f:sm:temp2', idShort: 'Temp21' },
  { modelType: 'Submodel', id: 'urn:f:sm:100%', idShort: 'Other' },
  { modelType: 'Submodel', id: 'urn:f:SM:temp3', idShort: 'temp3' },
];

const api = (t: TenantEntity = tenant) => server.api(t.name);
const auth = (token: string | null = reader): Record<string, string> => (token ? { authorization: `Bearer ${token}` } : {});
const q = (params: Record<string, string>) => new URLSearchParams(params).toString();

async function post(url: string, body: unknown, token = contributor): Promise<void> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...auth(token) }, body: JSON.stringify(body) });
  expect(res.status, await res.clone().text()).toBe(201);
}

/** GET a list; 200 expected; the whole body. */
async function list(path: string, params: Record<string, string>, t: TenantEntity = tenant) {
  const res = await fetch(`${api(t)}${path}?${q(params)}`, { headers: auth(t === tenant ? reader : null) });
  expect(res.status, `${path}?${q(params)}: ${await res.clone().text()}`).toBe(200);
  return json(res);
}

const shellIds = async (params: Record<string, string>, t?: TenantEntity): Promise<string[]> =>
  (await list('/shells', params, t)).result.map((s: { id: string }) => s.id);

/** Follows the cursors of a filtered list, `limit` items a page: the ids of every page. */
async function pages(path: string, params: Record<string, string>, limit: number, idOf: (item: any) => string): Promise<string[][]> {
  const seen: string[][] = [];
  let cursor: string | undefined;
  do {
    const body = await list(path, { ...params, limit: String(limit), ...(cursor ? { cursor } : {}) });
    seen.push(body.result.map(idOf));
    cursor = body.paging_metadata.cursor;
  } while (cursor && seen.length < 20);
  return seen;
}

/** A 400 AAS Result. */
async function expect400(url: string, token: string | null = reader): Promise<void> {
  const res = await fetch(url, { headers: auth(token) });
  const body = await json(res);
  expect(res.status, url).toBe(400);
  expect(body.messages[0]).toMatchObject({ code: '400', messageType: 'Error' });
}

beforeAll(async () => {
  server = await startTestServer(inject('databaseUrl'));
  tenant = await server.createTenant({ showcase: false });
  const withRole = async (role: 'reader' | 'contributor') => {
    const account = await newServiceAccount(server, tenant.organizationId);
    await assignRole(server, tenant.organizationId, { type: 'service-account', id: account.id }, role, tenant.id);
    return account.token();
  };
  reader = await withRole('reader');
  contributor = await withRole('contributor');
  for (const s of SHELLS) await post(`${api()}/shells`, s);
  for (const sm of SUBMODELS) await post(`${api()}/submodels`, sm);
  // Another tenant with look-alikes of every kind: none may appear in the first tenant's lists.
  other = await server.createTenant();
  await post(`${api(other)}/shells`, shell('urn:f:pump:other', 'Pump_other', [['en', 'Water pump']]), '');
  await post(`${api(other)}/submodels`, { modelType: 'Submodel', id: 'urn:f:sm:temp-other', idShort: 'Temp_other' }, '');
});
afterAll(() => server?.close());

describe('shell filters over REST (GET /shells)', () => {
  it('matches idShort by prefix and contains, case-sensitively, with _ and % literal', async () => {
    expect(await shellIds({ idShortStartsWith: 'Pump' })).toEqual([S.pump1, S.pump2]);
    // An unescaped `_` would match any character: Pump12 too.
    expect(await shellIds({ idShortStartsWith: 'Pump_' })).toEqual([S.pump1]);
    expect(await shellIds({ idShortStartsWith: 'pump' })).toEqual([S.pump3]);
    expect(await shellIds({ idShortContains: 'ump' })).toEqual([S.pump1, S.pump2, S.pump3]);
    expect(await shellIds({ idShortContains: '_' })).toEqual([S.pump1, S.longA, S.under]);
    expect(await shellIds({ idShortContains: '%' })).toEqual([]);
    expect(await shellIds({ idShortStartsWith: 'Pump_1' })).toEqual([S.pump1]);
    expect(await shellIds({ idShortStartsWith: 'Pump_12' })).toEqual([]);
  });

  it('keeps the standard idShort (exact) as it was, and combines it with the others', async () => {
    expect(await shellIds({ idShort: 'Pump_1' })).toEqual([S.pump1]);
    expect(await shellIds({ idShort: 'Pump' })).toEqual([]);
    expect(await shellIds({ idShort: 'Pump_1', idShortStartsWith: 'Pump' })).toEqual([S.pump1]);
    expect(await shellIds({ idShort: 'Pump_1', idShortStartsWith: 'Valve' })).toEqual([]);
  });

  it('matches the id by prefix and contains, also past the 256 characters the prefix index holds', async () => {
    expect(await shellIds({ idStartsWith: 'urn:f:pump:' })).toEqual([S.pump1, S.pump2]);
    expect(await shellIds({ idStartsWith: 'urn:f:PUMP' })).toEqual([S.pump3]);
    expect(await shellIds({ idStartsWith: 'urn:f:' })).toEqual(SHELLS.map((s) => s.id));
    expect(await shellIds({ idContains: '%' })).toEqual([S.valve]);
    expect(await shellIds({ idContains: '_' })).toEqual([S.under]);
    expect(await shellIds({ idContains: 'valve%' })).toEqual([S.valve]);
    expect(await shellIds({ idContains: 'valve_' })).toEqual([]);
    expect(await shellIds({ idStartsWith: LONG })).toEqual([S.longA, S.longB]);
    expect(await shellIds({ idStartsWith: `${LONG}:` })).toEqual([S.longA, S.longB]);
    expect(await shellIds({ idStartsWith: `${LONG}:b` })).toEqual([S.longB]);
    expect(await shellIds({ idStartsWith: `${LONG}:c` })).toEqual([]);
    // The whole id is a prefix of itself; one character more is not.
    expect(await shellIds({ idStartsWith: `${LONG}:a` })).toEqual([S.longA]);
    expect(await shellIds({ idStartsWith: `${LONG}:ax` })).toEqual([]);
    expect(await shellIds({ idContains: 'x:b' })).toEqual([S.longB]);
  });

  it('matches displayName texts of every language: exact, prefix, contains', async () => {
    expect(await shellIds({ displayName: 'Wasserpumpe' })).toEqual([S.pump1]);
    expect(await shellIds({ displayName: 'Water pump' })).toEqual([S.pump1]);
    expect(await shellIds({ displayName: 'Water' })).toEqual([]);
    expect(await shellIds({ displayName: 'ポンプ' })).toEqual([S.longB]);
    expect(await shellIds({ displayNameStartsWith: 'Water' })).toEqual([S.pump1]);
    expect(await shellIds({ displayNameStartsWith: 'water' })).toEqual([]);
    expect(await shellIds({ displayNameStartsWith: 'Pompe à' })).toEqual([S.pump2]);
    expect(await shellIds({ displayNameStartsWith: 'V' })).toEqual([S.valve]);
    expect(await shellIds({ displayNameStartsWith: 'ポン' })).toEqual([S.longB]);
    expect(await shellIds({ displayNameContains: 'pump' })).toEqual([S.pump1, S.pump2]);
    expect(await shellIds({ displayNameContains: 'pumpe' })).toEqual([S.pump1]);
    expect(await shellIds({ displayNameContains: 'il' })).toEqual([S.pump2, S.valve]);
    expect(await shellIds({ displayNameContains: '0%' })).toEqual([S.pump2, S.under]);
    expect(await shellIds({ displayNameContains: '%' })).toEqual([S.pump2, S.under]);
    // Literal `_`: unescaped, `r_s` would also match "Water pump" ('r p').
    expect(await shellIds({ displayNameContains: 'r_s' })).toEqual([S.under]);
    expect(await shellIds({ displayNameStartsWith: 'Under_' })).toEqual([S.under]);
    expect(await shellIds({ displayNameStartsWith: 'Under%' })).toEqual([]);
    // Longer than any displayName text (128 characters): nothing, and no error.
    expect(await shellIds({ displayNameStartsWith: `Water pump${'!'.repeat(200)}` })).toEqual([]);
    expect(await shellIds({ displayName: 'W'.repeat(500) })).toEqual([]);
  });

  it('follows a change of the displayName (the column is written with the document)', async () => {
    const id = 'urn:f:renamed';
    await post(`${api()}/shells`, shell(id, 'Renamed', [['en', 'Before']]));
    expect(await shellIds({ displayNameStartsWith: 'Befo' })).toEqual([id]);
    const res = await fetch(`${api()}/shells/${Buffer.from(id).toString('base64url')}`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json', ...auth(contributor) },
      body: JSON.stringify(shell(id, 'Renamed', [['en', 'After'], ['de', 'Danach']])),
    });
    expect(res.status).toBe(204);
    expect(await shellIds({ displayNameStartsWith: 'Befo' })).toEqual([]);
    expect(await shellIds({ displayNameStartsWith: 'Dana' })).toEqual([id]);
    const deleted = await fetch(`${api()}/shells/${Buffer.from(id).toString('base64url')}`, { method: 'DELETE', headers: auth(contributor) });
    expect(deleted.status).toBe(204);
    expect(await shellIds({ displayNameStartsWith: 'Dana' })).toEqual([]);
  });

  it('combines filters (all must hold), with assetKind and on $reference', async () => {
    expect(await shellIds({ idShortStartsWith: 'Pump', displayNameContains: 'Oil' })).toEqual([S.pump2]);
    expect(await shellIds({ idShortStartsWith: 'Pump', assetKind: 'Instance' })).toEqual([S.pump1]);
    expect(await shellIds({ idStartsWith: 'urn:f:pump', displayNameStartsWith: 'Ventil' })).toEqual([]);
    expect(await shellIds({ idContains: 'pump', idShortContains: '1', displayName: 'Water pump' })).toEqual([S.pump1]);
    const refs = await list('/shells/$reference', { idShortContains: '_' });
    expect(refs.result.map((r: { keys: { value: string }[] }) => r.keys[0].value)).toEqual([S.pump1, S.longA, S.under]);
  });

  it('pages a filtered list: its cursor continues the filtered list', async () => {
    expect(await pages('/shells', { idShortContains: '_' }, 1, (s) => s.id)).toEqual([[S.pump1], [S.longA], [S.under]]);
    expect(await pages('/shells', { displayNameContains: 'p' }, 2, (s) => s.id)).toEqual([[S.pump1, S.pump2]]);
    expect(await pages('/shells', { idStartsWith: 'urn:f:' }, 3, (s) => s.id)).toEqual([SHELLS.slice(0, 3), SHELLS.slice(3, 6), SHELLS.slice(6)].map((p) => p.map((s) => s.id)));
    const refs = await pages('/shells/$reference', { displayNameStartsWith: 'V' }, 1, (r) => r.keys[0].value);
    expect(refs).toEqual([[S.valve]]);
  });

  it("never shows another tenant's shells, and the other tenant sees only its own", async () => {
    expect(await shellIds({ idShortStartsWith: 'Pump_' })).toEqual([S.pump1]);
    expect(await shellIds({ displayName: 'Water pump' })).toEqual([S.pump1]);
    expect(await shellIds({ idContains: 'other' })).toEqual([]);
    expect(await shellIds({ displayName: 'Water pump' }, other)).toEqual(['urn:f:pump:other']);
    expect(await shellIds({ idShortStartsWith: 'Pump' }, other)).toEqual(['urn:f:pump:other']);
  });

  it('answers bad values with a 400 Result', async () => {
    const base = `${api()}/shells`;
    for (const name of ['idShortStartsWith', 'idShortContains', 'idStartsWith', 'idContains', 'displayName', 'displayNameStartsWith', 'displayNameContains']) {
      await expect400(`${base}?${name}=`);
      await expect400(`${base}?${q({ [name]: 'x'.repeat(2001) })}`);
      await expect400(`${base}?${name}=a&${name}=b`);
      await expect400(`${base}/$reference?${name}=`);
    }
    // 2,000 characters are fine.
    expect(await shellIds({ idStartsWith: 'u'.repeat(2000) })).toEqual([]);
  });

  it('needs the reader role: no token 401', async () => {
    const res = await fetch(`${api()}/shells?idShortStartsWith=Pump`);
    expect(res.status).toBe(401);
    expect((await json(res)).messages[0]).toMatchObject({ code: '401' });
  });
});

describe('shell filters in GraphQL', () => {
  const SHELLS_QUERY = `query($tenant: String!, $filter: ShellFilterInput, $limit: Int, $cursor: String) {
    shells(tenant: $tenant, filter: $filter, limit: $limit, cursor: $cursor) { result { id idShort } pagingMetadata { cursor } } }`;
  const shells = (filter: Record<string, unknown>, extra: Record<string, unknown> = {}, token: string | null = reader, t = tenant) =>
    graphql(server, token, SHELLS_QUERY, { tenant: t.name, filter, ...extra });
  const ids = async (filter: Record<string, unknown>) => {
    const { body } = await shells(filter);
    expect(body.errors, JSON.stringify(body.errors)).toBeUndefined();
    return body.data.shells.result.map((s: { id: string }) => s.id);
  };

  it('takes the same filters as arguments', async () => {
    expect(await ids({ idShortStartsWith: 'Pump_' })).toEqual([S.pump1]);
    expect(await ids({ idShortContains: '_' })).toEqual([S.pump1, S.longA, S.under]);
    expect(await ids({ idStartsWith: 'urn:f:pump:' })).toEqual([S.pump1, S.pump2]);
    expect(await ids({ idContains: '%' })).toEqual([S.valve]);
    expect(await ids({ displayName: 'Ventil' })).toEqual([S.valve]);
    expect(await ids({ displayNameStartsWith: 'Wasser' })).toEqual([S.pump1]);
    expect(await ids({ displayNameContains: ' 50%' })).toEqual([S.under]);
    expect(await ids({ displayNameContains: 'pump', assetKind: 'Type' })).toEqual([S.pump2]);
    expect(await ids({ idShortStartsWith: null, displayNameContains: null })).toEqual(SHELLS.map((s) => s.id));
  });

  it('pages a filtered list with its cursor', async () => {
    const first = await shells({ idShortContains: '_' }, { limit: 2 });
    expect(first.body.data.shells.result.map((s: { id: string }) => s.id)).toEqual([S.pump1, S.longA]);
    const second = await shells({ idShortContains: '_' }, { limit: 2, cursor: first.body.data.shells.pagingMetadata.cursor });
    expect(second.body.data.shells.result.map((s: { id: string }) => s.id)).toEqual([S.under]);
    expect(second.body.data.shells.pagingMetadata.cursor).toBeNull();
  });

  it('answers bad values with BAD_REQUEST, an unauthenticated caller with an error, another tenant with its own shells', async () => {
    for (const filter of [{ idShortStartsWith: '' }, { displayName: '' }, { idContains: 'x'.repeat(2001) }, { displayNameContains: 'a\u0000' }]) {
      const { body } = await shells(filter);
      expect(body.errors?.[0].extensions.code, JSON.stringify(filter)).toBe('BAD_REQUEST');
      expect(body.data?.shells ?? null).toBeNull();
    }
    const anonymous = await shells({ idShortStartsWith: 'Pump' }, {}, null);
    expect(anonymous.body.errors?.[0].extensions.code).toBe('UNAUTHENTICATED');
    const mine = await shells({ displayName: 'Water pump' }, {}, null, other);
    expect(mine.body.data.shells.result.map((s: { id: string }) => s.id)).toEqual(['urn:f:pump:other']);
  });
});

describe('submodel filters', () => {
  const ids = async (params: Record<string, string>) => (await list('/submodels', params)).result.map((s: { id: string }) => s.id);

  it('matches idShort and id by prefix and contains over REST, literally and case-sensitively', async () => {
    expect(await ids({ idShortStartsWith: 'Temp' })).toEqual(['urn:f:sm:temp', 'urn:f:sm:temp2']);
    expect(await ids({ idShortStartsWith: 'Temp_' })).toEqual(['urn:f:sm:temp']);
    expect(await ids({ idShortContains: 'emp' })).toEqual(['urn:f:sm:temp', 'urn:f:sm:temp2', 'urn:f:SM:temp3']);
    expect(await ids({ idStartsWith: 'urn:f:sm:temp' })).toEqual(['urn:f:sm:temp', 'urn:f:sm:temp2']);
    expect(await ids({ idContains: '%' })).toEqual(['urn:f:sm:100%']);
    expect(await ids({ idContains: '_' })).toEqual([]);
    expect(await ids({ idShort: 'Temp21', idStartsWith: 'urn:f:sm:' })).toEqual(['urn:f:sm:temp2']);
    const elsewhere = await list('/submodels', { idShortStartsWith: 'Temp' }, other);
    expect(elsewhere.result.map((s: { id: string }) => s.id)).toEqual(['urn:f:sm:temp-other']);
    const metadata = await list('/submodels/$metadata', { idShortContains: '_' });
    expect(metadata.result.map((s: { id: string }) => s.id)).toEqual(['urn:f:sm:temp']);
    expect(await pages('/submodels', { idShortContains: 'emp' }, 2, (s) => s.id)).toEqual([['urn:f:sm:temp', 'urn:f:sm:temp2'], ['urn:f:SM:temp3']]);
  });

  it('takes the same filters in GraphQL', async () => {
    const { body } = await graphql(
      server,
      reader,
      `query($tenant: String!, $filter: SubmodelFilterInput) { submodels(tenant: $tenant, filter: $filter) { result { id } } }`,
      { tenant: tenant.name, filter: { idStartsWith: 'urn:f:sm:', idShortContains: '1' } },
    );
    expect(body.errors).toBeUndefined();
    expect(body.data.submodels.result.map((s: { id: string }) => s.id)).toEqual(['urn:f:sm:temp', 'urn:f:sm:temp2']);
  });

  it('answers bad values with a 400 Result', async () => {
    for (const name of ['idShortStartsWith', 'idShortContains', 'idStartsWith', 'idContains']) {
      await expect400(`${api()}/submodels?${name}=`);
      await expect400(`${api()}/submodels?${q({ [name]: 'y'.repeat(2001) })}`);
      await expect400(`${api()}/submodels/$metadata?${name}=`);
    }
  });
});

describe('file filters', () => {
  const locations = () => [`${server.url}/tenants/${tenant.name}/sphere/api/v1.0/files`, `${server.url}/tenants/${tenant.name}/api/v3.0/files`];
  const tfps: Record<string, string> = {};

  beforeAll(async () => {
    const seed: [string, string, string, { key: string; value: string }[]][] = [
      ['manual100', 'Manual 100%', '03-02', [{ key: 'lang', value: 'en' }, { key: 'batch', value: '7' }]],
      ['manualEn', 'Manual_EN', '03-02', [{ key: 'lang', value: 'en' }]],
      ['manualDe', 'manual de', '03-02', [{ key: 'lang', value: 'de' }, { key: 'batch', value: '7' }]],
      ['sheet', 'Datasheet', '02-01', [{ key: 'batch', value: '7' }]],
    ];
    for (const [name, displayName, classification, attributes] of seed) {
      const res = await sendFile(locations()[0], Buffer.from(name), {
        name: `${name}.txt`,
        type: 'text/plain',
        fields: { displayName, classification, attributes: JSON.stringify(attributes) },
        headers: auth(contributor),
      });
      expect(res.status).toBe(201);
      tfps[name] = (await json(res)).tfp;
    }
    const elsewhere = await sendFile(`${server.url}/tenants/${other.name}/sphere/api/v1.0/files`, Buffer.from('x'), { fields: { displayName: 'Manual other' } });
    expect(elsewhere.status).toBe(201);
  });

  const names = async (location: string, params: Record<string, string>): Promise<string[]> => {
    const res = await fetch(`${location}?${q(params)}`, { headers: auth() });
    expect(res.status, `${location}?${q(params)}: ${await res.clone().text()}`).toBe(200);
    const byTfp = Object.fromEntries(Object.entries(tfps).map(([name, tfp]) => [tfp, name]));
    return (await json(res)).result.map((f: { tfp: string }) => byTfp[f.tfp] ?? f.tfp);
  };

  it('filters by displayName (exact, prefix, contains), classification and attributes at both locations', async () => {
    for (const location of locations()) {
      expect(await names(location, { displayName: 'Manual_EN' })).toEqual(['manualEn']);
      expect(await names(location, { displayName: 'Manual' })).toEqual([]);
      expect(await names(location, { displayNameStartsWith: 'Manual' })).toEqual(['manual100', 'manualEn']);
      expect(await names(location, { displayNameStartsWith: 'Manual_' })).toEqual(['manualEn']);
      expect(await names(location, { displayNameStartsWith: 'manual' })).toEqual(['manualDe']);
      expect(await names(location, { displayNameContains: 'anual' })).toEqual(['manual100', 'manualEn', 'manualDe']);
      expect(await names(location, { displayNameContains: '0%' })).toEqual(['manual100']);
      expect(await names(location, { displayNameContains: '%' })).toEqual(['manual100']);
      expect(await names(location, { displayNameContains: 'l_' })).toEqual(['manualEn']);
      expect(await names(location, { classification: '03-02' })).toEqual(['manual100', 'manualEn', 'manualDe']);
      expect(await names(location, { classification: '02-01', displayNameContains: 'sheet' })).toEqual(['sheet']);
      expect(await names(location, { 'attribute.lang': 'en' })).toEqual(['manual100', 'manualEn']);
      expect(await names(location, { 'attribute.lang': 'en', 'attribute.batch': '7' })).toEqual(['manual100']);
      expect(await names(location, { 'attribute.batch': '7', displayNameStartsWith: 'Manual' })).toEqual(['manual100']);
      expect(await names(location, { 'attribute.lang': 'fr' })).toEqual([]);
      expect(await names(location, { fileName: 'manualEn.txt' })).toEqual(['manualEn']);
      expect(await names(location, { fileName: 'manualEn', contentType: 'text/plain' })).toEqual([]);
      expect(await names(location, { contentType: 'text/*', displayNameStartsWith: 'Data' })).toEqual(['sheet']);
      expect(await names(location, { contentType: 'image/*', displayNameStartsWith: 'Data' })).toEqual([]);
    }
  });

  it('pages a filtered file list', async () => {
    const [location] = locations();
    const first = await json(await fetch(`${location}?${q({ displayNameContains: 'anual', limit: '2' })}`, { headers: auth() }));
    expect(first.result.map((f: { tfp: string }) => f.tfp)).toEqual([tfps.manual100, tfps.manualEn]);
    const second = await json(await fetch(`${location}?${q({ displayNameContains: 'anual', limit: '2', cursor: first.paging_metadata.cursor })}`, { headers: auth() }));
    expect(second.result.map((f: { tfp: string }) => f.tfp)).toEqual([tfps.manualDe]);
    expect(second.paging_metadata).toEqual({});
  });

  it('takes the same filters in GraphQL', async () => {
    const run = (filter: Record<string, unknown>) =>
      graphql(server, reader, `query($tenant: String!, $filter: FileFilterInput) { files(tenant: $tenant, filter: $filter) { result { tfp } } }`, {
        tenant: tenant.name,
        filter,
      });
    const tfpsOf = (body: any) => body.data.files.result.map((f: { tfp: string }) => f.tfp);
    expect(tfpsOf((await run({ displayNameStartsWith: 'Manual_' })).body)).toEqual([tfps.manualEn]);
    expect(tfpsOf((await run({ displayNameContains: '100%', classification: '03-02' })).body)).toEqual([tfps.manual100]);
    expect(tfpsOf((await run({ attributes: [{ key: 'batch', value: '7' }, { key: 'lang', value: 'de' }] })).body)).toEqual([tfps.manualDe]);
    expect(tfpsOf((await run({ fileName: 'sheet.txt', contentType: 'text/plain', displayName: 'Datasheet' })).body)).toEqual([tfps.sheet]);
    for (const filter of [{ classification: '99-99' }, { displayNameStartsWith: '' }, { attributes: [{ key: '', value: 'x' }] }]) {
      expect((await run(filter)).body.errors?.[0].extensions.code, JSON.stringify(filter)).toBe('BAD_REQUEST');
    }
  });

  it('answers bad values with a 400 Result, and shows no other tenant its files', async () => {
    for (const location of locations()) {
      await expect400(`${location}?classification=99-99`);
      await expect400(`${location}?classification=`);
      await expect400(`${location}?displayNameStartsWith=`);
      await expect400(`${location}?displayNameContains=`);
      await expect400(`${location}?${q({ displayNameContains: 'z'.repeat(2049) })}`);
      await expect400(`${location}?${q({ displayName: 'z'.repeat(2049) })}`);
      await expect400(`${location}?${q({ 'attribute.k': 'z'.repeat(2049) })}`);
      await expect400(`${location}?displayNameStartsWith=a&displayNameStartsWith=b`);
      expect(await names(location, { displayNameStartsWith: 'Manual o' })).toEqual([]);
      expect((await fetch(`${location}?displayNameStartsWith=Manual`)).status).toBe(401);
    }
  });
});

describe('the OpenAPI tenant document', () => {
  it('documents every filter on the lists that take it', async () => {
    const doc = await json(fetch(`${api()}/openapi.json`));
    const names = (path: string) => doc.paths[path].get.parameters.map((p: { name?: string; $ref?: string }) => p.name ?? p.$ref);
    const idFilters = ['idShortStartsWith', 'idShortContains', 'idStartsWith', 'idContains'];
    const shellFilters = [...idFilters, 'displayName', 'displayNameStartsWith', 'displayNameContains'];
    for (const path of ['/shells', '/shells/$reference']) expect(names(path)).toEqual(expect.arrayContaining(shellFilters));
    for (const path of ['/submodels', '/submodels/$metadata', '/submodels/$value', '/submodels/$reference', '/submodels/$path']) {
      expect(names(path)).toEqual(expect.arrayContaining(idFilters));
      expect(names(path)).not.toContain('displayNameStartsWith');
    }
    const files = doc.paths['/sphere/api/v1.0/files'].get.parameters.map((p: { name?: string }) => p.name);
    expect(files).toEqual(expect.arrayContaining(['displayName', 'displayNameStartsWith', 'displayNameContains', 'classification', 'attribute']));
  });
});

describe('indexes', () => {
  /**
   * The plan of `SELECT seq FROM <table> WHERE <condition>` with bitmap scans only and no tenant condition: the tables
   * here are tiny, and a sequential scan or the tenant's other indexes would win; this asks which index can take the
   * condition itself.
   */
  async function plan(table: string, condition: string): Promise<string> {
    return server.dataSource.transaction(async (manager) => {
      await manager.query('SET LOCAL enable_seqscan = off');
      await manager.query('SET LOCAL enable_indexscan = off');
      await manager.query('SET LOCAL enable_indexonlyscan = off');
      const rows: { 'QUERY PLAN': string }[] = await manager.query(`EXPLAIN SELECT seq FROM ${table} WHERE ${condition}`);
      return rows.map((row) => row['QUERY PLAN']).join('\n');
    });
  }

  it('serve the prefix conditions the services build (LIKE with escaped wildcards, the displayName prefix GIN)', async () => {
    // With the C collation (the embedded database), the plain idShort index serves prefixes as well.
    expect(await plan('shells', "id_short LIKE 'Pump\\_%'")).toMatch(/Bitmap Index Scan on shells_id_short(_pattern)? .*\n.*Index Cond: .*id_short ~?>=~? 'Pump_'/);
    expect(await plan('shells', "left(id, 256) LIKE 'urn:f:pump:%'")).toMatch(/Bitmap Index Scan on shells_id_prefix .*\n.*Index Cond: .*left"?\(id, 256\) ~>=~ 'urn:f:pump:'/);
    expect(await plan('shells', "aas_text_prefixes(display_names) @> ARRAY['Wasser'::text]")).toMatch(/Bitmap Index Scan on shells_display_name_prefixes/);
    expect(await plan('submodels', "id_short LIKE 'Temp\\_%'")).toMatch(/Bitmap Index Scan on submodels_id_short(_pattern)? .*\n.*Index Cond: .*id_short ~?>=~? 'Temp_'/);
    expect(await plan('submodels', "left(id, 256) LIKE 'urn:f:sm:%'")).toMatch(/Bitmap Index Scan on submodels_id_prefix /);
    expect(await plan('files', "left(metadata->>'displayName', 256) LIKE 'Manual%'")).toMatch(/Bitmap Index Scan on files_display_name_prefix /);
  });
});
