import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { TenantEntity } from '../../src/management/tenants/tenant.entity';
import { assignRole, graphql } from '../support/grants';
import { newServiceAccount } from '../support/identity';
import { Rnd, seededRandom } from '../support/seeded-random';
import { TestServer, b64, json, sampleShell, startTestServer } from '../support/server';

/**
 * The AAS Query Language over registries (AAS API V3.1 `POST /query/shell-descriptors` and
 * `POST /query/submodel-descriptors`, roots `$aasdesc` and `$smdesc`): explicit AAS registry instances (stored
 * descriptors) and the tenant's implicit registries (descriptors derived from its shells and submodels). Every
 * query's answer is compared with the id list written by hand from the data below, in order.
 */

let server: TestServer;
let tenant: TenantEntity;
let api: string;
let reg: string;

type Json = Record<string, unknown>;
type Headers = Record<string, string>;

const post = (url: string, body: unknown, headers: Headers = {}) =>
  fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: typeof body === 'string' ? body : JSON.stringify(body) });
const messageOf = async (res: Response) => ((await json(res)) as { messages: { text: string }[] }).messages.map((m) => m.text).join(' | ');
const instanceApi = (name: string, t: TenantEntity = tenant) => `${server.url}/tenants/${t.name}/${name}/api/v3.0`;

const ref = (value: string) => ({ type: 'ExternalReference', keys: [{ type: 'GlobalReference', value }] });
const smRef = (id: string) => ({ type: 'ModelReference', keys: [{ type: 'Submodel', value: id }] });
const endpoint = (iface: string, href: string) => ({ interface: iface, protocolInformation: { href } });

// Query building blocks.
const f = (field: string) => ({ $field: field });
const s = (value: string) => ({ $strVal: value });
const eq = (field: string, value: string) => ({ $eq: [f(field), s(value)] });
const q = (condition: unknown, extra: Json = {}) => ({ $condition: condition, ...extra });

// --- the explicit registry "qreg" ---

const D = (n: string) => `urn:qd:${n}`;
const DSM = (n: string) => `urn:qd:sm:${n}`;
const smDescriptor = (id: string, extra: Json, href: string) => ({ id, ...extra, endpoints: [endpoint('SUBMODEL-3.0', href)] });
const SHARED = smDescriptor(DSM('shared'), { semanticId: ref('urn:sem:name') }, 'https://c.example/sm/shared');
const DESCRIPTORS: Json[] = [
  {
    id: D('1'),
    idShort: 'Pump1',
    assetKind: 'Instance',
    assetType: 'urn:type:pump',
    globalAssetId: 'urn:asset:1',
    specificAssetIds: [
      { name: 'serial', value: '100', externalSubjectId: ref('urn:company:a') },
      { name: 'supplier', value: 'acme' },
    ],
    endpoints: [endpoint('AAS-3.0', 'https://a.example/shells/1')],
    submodelDescriptors: [
      smDescriptor(DSM('tech1'), { idShort: 'TechnicalData', semanticId: ref('urn:sem:tech') }, 'https://a.example/sm/tech1'),
      smDescriptor(DSM('name1'), { idShort: 'Nameplate', semanticId: ref('urn:sem:name') }, 'https://b.example/sm/name1'),
    ],
  },
  {
    id: D('2'),
    idShort: 'Pump2',
    assetKind: 'Type',
    assetType: 'urn:type:pump',
    specificAssetIds: [{ name: 'serial', value: '200' }],
    endpoints: [endpoint('AAS-3.1', 'https://b.example/shells/2'), endpoint('AAS-3.0', 'https://a.example/shells/2')],
    submodelDescriptors: [smDescriptor(DSM('tech2'), { idShort: 'TechnicalData', semanticId: ref('urn:sem:tech') }, 'https://b.example/sm/tech2')],
  },
  {
    id: D('3'),
    idShort: 'Motor3',
    assetKind: 'Instance',
    globalAssetId: 'urn:asset:3',
    // "serial" and "100" both occur, but not in one specific asset id.
    specificAssetIds: [
      { name: 'serial', value: 'acme' },
      { name: 'supplier', value: '100' },
    ],
    endpoints: [endpoint('AAS-3.0', 'https://a.example/shells/3')],
    submodelDescriptors: [SHARED],
  },
  { id: D('4'), assetKind: 'NotApplicable', submodelDescriptors: [SHARED] },
];

// --- the implicit registry: the tenant's shells and submodels ---

const S = (n: string) => `urn:qi:${n}`;
const SM = (n: string) => `urn:qi:sm:${n}`;
/** Long and not ASCII: its base64 has a line break in PostgreSQL's encode(), which the derived href must not have. */
const S2 = `${S('2')}/ä-${'x'.repeat(80)}`;
const submodel = (id: string, idShort: string, semantic?: string) => ({
  modelType: 'Submodel',
  id,
  idShort,
  ...(semantic ? { semanticId: ref(semantic) } : {}),
  submodelElements: [{ modelType: 'Property', idShort: 'P', valueType: 'xs:string', value: 'x' }],
});
const SUBMODELS = [submodel(SM('tech1'), 'TechnicalData', 'urn:sem:tech'), submodel(SM('name1'), 'Nameplate', 'urn:sem:name'), submodel(SM('tech2'), 'TechnicalData', 'urn:sem:tech'), submodel(SM('orphan'), 'Orphan')];
const SHELLS = [
  sampleShell(S('1'), {
    idShort: 'Pump1',
    assetInformation: {
      assetKind: 'Instance',
      assetType: 'urn:type:pump',
      globalAssetId: 'urn:asset:i1',
      specificAssetIds: [
        { name: 'serial', value: '100', externalSubjectId: ref('urn:company:a') },
        { name: 'supplier', value: 'acme' },
      ],
    },
    // The third is not stored: its descriptor is left out.
    submodels: [smRef(SM('tech1')), smRef(SM('name1')), smRef(SM('elsewhere'))],
  }),
  sampleShell(S2, { idShort: 'Pump2', assetInformation: { assetKind: 'Type', assetType: 'urn:type:pump', specificAssetIds: [{ name: 'serial', value: '200' }] }, submodels: [smRef(SM('tech2'))] }),
  sampleShell(S('3'), {
    idShort: 'Motor3',
    assetInformation: {
      assetKind: 'Instance',
      globalAssetId: 'urn:asset:i3',
      specificAssetIds: [
        { name: 'serial', value: 'acme' },
        { name: 'supplier', value: '100' },
      ],
    },
  }),
];

/** The ids of a query's answer (200 expected), in order. */
async function ids(url: string, query: unknown, headers: Headers = {}): Promise<string[]> {
  const res = await post(url, query, headers);
  const body = await json(res);
  expect(res.status, JSON.stringify(body).slice(0, 500)).toBe(200);
  return (body.result as Json[]).map((d) => d.id as string);
}

async function seed(t: TenantEntity, instance: string, descriptors: Json[]): Promise<void> {
  await server.services.registryInstances.create(t, { name: instance, kind: 'aas-registry' });
  for (const d of descriptors) expect((await post(`${instanceApi(instance, t)}/shell-descriptors`, d)).status).toBe(201);
}

beforeAll(async () => {
  server = await startTestServer(inject('databaseUrl'));
  tenant = await server.createTenant();
  api = server.api(tenant.name);
  reg = instanceApi('qreg');
  await seed(tenant, 'qreg', DESCRIPTORS);
  // A second instance of the same tenant, with a descriptor of an id qreg has too.
  await seed(tenant, 'qreg-b', [{ id: D('1'), idShort: 'Elsewhere', assetKind: 'Instance' }, { id: D('9'), idShort: 'Pump9', assetKind: 'Instance' }]);
  await server.services.registryInstances.create(tenant, { name: 'qdisco', kind: 'discovery' });
  for (const sm of SUBMODELS) expect((await post(`${api}/submodels`, sm)).status).toBe(201);
  for (const shell of SHELLS) expect((await post(`${api}/shells`, shell)).status).toBe(201);
});
afterAll(() => server?.close());

describe('POST /query/shell-descriptors on an explicit AAS registry', () => {
  const cases: [string, unknown, string[]][] = [
    ['idShort $eq', eq('$aasdesc#idShort', 'Pump1'), [D('1')]],
    ['idShort $starts-with', { '$starts-with': [f('$aasdesc#idShort'), s('Pump')] }, [D('1'), D('2')]],
    ['idShort $regex', { $regex: [f('$aasdesc#idShort'), s('^Motor\\d$')] }, [D('3')]],
    ['id $contains (LIKE wildcards are literal)', { $contains: [f('$aasdesc#id'), s('qd:_')] }, []],
    ['assetKind', eq('$aasdesc#assetKind', 'Instance'), [D('1'), D('3')]],
    ['assetType', eq('$aasdesc#assetType', 'urn:type:pump'), [D('1'), D('2')]],
    ['globalAssetId $ne: descriptors without one are no answer', { $ne: [f('$aasdesc#globalAssetId'), s('urn:asset:1')] }, [D('3')]],
    ['$not of a missing attribute is no answer either', { $not: eq('$aasdesc#idShort', 'Pump1') }, [D('2'), D('3')]],
    ['endpoints[].interface', eq('$aasdesc#endpoints[].interface', 'AAS-3.1'), [D('2')]],
    ['endpoints[0].interface', eq('$aasdesc#endpoints[0].interface', 'AAS-3.0'), [D('1'), D('3')]],
    ['endpoints[].protocolinformation.href', { '$starts-with': [f('$aasdesc#endpoints[].protocolinformation.href'), s('https://b.example/')] }, [D('2')]],
    [
      'specificAssetIds[] with $match: name and value of one asset id',
      { $match: [eq('$aasdesc#specificAssetIds[].name', 'serial'), eq('$aasdesc#specificAssetIds[].value', '100')] },
      [D('1')],
    ],
    [
      'specificAssetIds[] without $match: any asset ids',
      { $and: [eq('$aasdesc#specificAssetIds[].name', 'serial'), eq('$aasdesc#specificAssetIds[].value', '100')] },
      [D('1'), D('3')],
    ],
    ['specificAssetIds[].externalSubjectId (a Reference stands for its first key)', eq('$aasdesc#specificAssetIds[].externalSubjectId', 'urn:company:a'), [D('1')]],
    ['submodelDescriptors[].semanticId', eq('$aasdesc#submodelDescriptors[].semanticId', 'urn:sem:name'), [D('1'), D('3'), D('4')]],
    ['submodelDescriptors[].semanticId.keys[0].value', eq('$aasdesc#submodelDescriptors[].semanticId.keys[0].value', 'urn:sem:tech'), [D('1'), D('2')]],
    ['submodelDescriptors[].idShort', eq('$aasdesc#submodelDescriptors[].idShort', 'Nameplate'), [D('1')]],
    [
      'submodelDescriptors[] with $match: the same submodel descriptor',
      {
        $match: [
          eq('$aasdesc#submodelDescriptors[].semanticId', 'urn:sem:tech'),
          { '$starts-with': [f('$aasdesc#submodelDescriptors[].endpoints[].protocolinformation.href'), s('https://b.example/')] },
        ],
      },
      [D('2')],
    ],
    [
      'submodelDescriptors[] without $match',
      {
        $and: [
          eq('$aasdesc#submodelDescriptors[].semanticId', 'urn:sem:tech'),
          { '$starts-with': [f('$aasdesc#submodelDescriptors[].endpoints[].protocolinformation.href'), s('https://b.example/')] },
        ],
      },
      [D('1'), D('2')],
    ],
    ['$or', { $or: [eq('$aasdesc#idShort', 'Motor3'), eq('$aasdesc#assetKind', 'NotApplicable')] }, [D('3'), D('4')]],
    ['a type error is no answer, never an error', { $gt: [f('$aasdesc#idShort'), { $numVal: 3 }] }, []],
    ['a constant that does not cast is a type error', { $eq: [f('$aasdesc#idShort'), { $numCast: s('abc') }] }, []],
    ['... under $not too', { $not: { $eq: [f('$aasdesc#endpoints[].interface'), { $numCast: s('abc') }] } }, []],
    ['$boolean true: all', { $boolean: true }, [D('1'), D('2'), D('3'), D('4')]],
  ];
  for (const [name, condition, expected] of cases) {
    it(name, async () => {
      expect(await ids(`${reg}/query/shell-descriptors`, q(condition))).toEqual(expected);
    });
  }

  it('answers the stored descriptors as GET does, with paging_metadata.resultType', async () => {
    const res = await post(`${reg}/query/shell-descriptors`, q(eq('$aasdesc#idShort', 'Pump1')));
    expect(await json(res)).toEqual({ paging_metadata: { resultType: 'AssetAdministrationShellDescriptor' }, result: [DESCRIPTORS[0]] });
  });

  it('$select "id" answers ids', async () => {
    const res = await post(`${reg}/query/shell-descriptors`, q(eq('$aasdesc#assetType', 'urn:type:pump'), { $select: 'id' }));
    expect(await json(res)).toEqual({ paging_metadata: { resultType: 'Identifier' }, result: [D('1'), D('2')] });
  });

  it('pages with limit and cursor (keyset, registration order)', async () => {
    const url = `${reg}/query/shell-descriptors`;
    const first = await json(post(`${url}?limit=3`, q({ $boolean: true }, { $select: 'id' })));
    expect(first.result).toEqual([D('1'), D('2'), D('3')]);
    expect(first.paging_metadata.cursor).toBeTruthy();
    const second = await json(post(`${url}?limit=3&cursor=${first.paging_metadata.cursor}`, q({ $boolean: true }, { $select: 'id' })));
    expect(second).toEqual({ paging_metadata: { resultType: 'Identifier' }, result: [D('4')] });
    // The condition applies on every page.
    const narrow = await json(post(`${url}?limit=1`, q(eq('$aasdesc#assetKind', 'Instance'))));
    expect(narrow.result.map((d: Json) => d.id)).toEqual([D('1')]);
    expect(await ids(`${url}?limit=1&cursor=${narrow.paging_metadata.cursor}`, q(eq('$aasdesc#assetKind', 'Instance')))).toEqual([D('3')]);
  });

  it('isolates instances: the other instance of the tenant has its own descriptors', async () => {
    expect(await ids(`${instanceApi('qreg-b')}/query/shell-descriptors`, q({ '$starts-with': [f('$aasdesc#idShort'), s('')] }))).toEqual([D('1'), D('9')]);
    expect(await ids(`${instanceApi('qreg-b')}/query/shell-descriptors`, q(eq('$aasdesc#idShort', 'Pump1')))).toEqual([]);
  });
});

describe('POST /query/submodel-descriptors on an explicit AAS registry', () => {
  const cases: [string, unknown, string[]][] = [
    ['semanticId', eq('$smdesc#semanticId', 'urn:sem:tech'), [DSM('tech1'), DSM('tech2')]],
    ['semanticId.keys[].value', eq('$smdesc#semanticId.keys[].value', 'urn:sem:name'), [DSM('name1'), DSM('shared'), DSM('shared')]],
    ['idShort', eq('$smdesc#idShort', 'Nameplate'), [DSM('name1')]],
    ['id', eq('$smdesc#id', DSM('tech2')), [DSM('tech2')]],
    ['endpoints[].interface', eq('$smdesc#endpoints[].interface', 'SUBMODEL-3.0'), [DSM('tech1'), DSM('name1'), DSM('tech2'), DSM('shared'), DSM('shared')]],
    ['endpoints[0].protocolinformation.href', { $contains: [f('$smdesc#endpoints[0].protocolinformation.href'), s('b.example')] }, [DSM('name1'), DSM('tech2')]],
    ['$not', { $not: eq('$smdesc#semanticId', 'urn:sem:tech') }, [DSM('name1'), DSM('shared'), DSM('shared')]],
    ['a constant that does not cast', { $or: [eq('$smdesc#idShort', 'Nameplate'), { $lt: [f('$smdesc#id'), { $dateTimeCast: s('soon') }] }] }, [DSM('name1')]],
  ];
  for (const [name, condition, expected] of cases) {
    it(name, async () => {
      expect(await ids(`${reg}/query/submodel-descriptors`, q(condition))).toEqual(expected);
    });
  }

  it('answers each registration (the shared one under two shell descriptors twice), as stored', async () => {
    const body = await json(post(`${reg}/query/submodel-descriptors`, q(eq('$smdesc#id', DSM('shared')))));
    expect(body).toEqual({ paging_metadata: { resultType: 'SubmodelDescriptor' }, result: [SHARED, SHARED] });
  });

  it('pages across shell descriptors; $select "id"', async () => {
    const url = `${reg}/query/submodel-descriptors`;
    const all = [DSM('tech1'), DSM('name1'), DSM('tech2'), DSM('shared'), DSM('shared')];
    const seen: string[] = [];
    let cursor: string | undefined;
    for (let n = 0; n < 5; n++) {
      const body = await json(post(`${url}?limit=2${cursor ? `&cursor=${cursor}` : ''}`, q({ $boolean: true }, { $select: 'id' })));
      expect(body.paging_metadata.resultType).toBe('Identifier');
      seen.push(...body.result);
      cursor = body.paging_metadata.cursor;
      if (!cursor) break;
    }
    expect(seen).toEqual(all);
    expect(cursor).toBeUndefined();
  });
});

describe('the implicit registries: descriptors derived from shells and submodels', () => {
  const shellCases: () => [string, unknown, string[]][] = () => [
    ['idShort', { '$starts-with': [f('$aasdesc#idShort'), s('Pump')] }, [S('1'), S2]],
    ['id', eq('$aasdesc#id', S2), [S2]],
    ['assetKind', eq('$aasdesc#assetKind', 'Type'), [S2]],
    ['assetType', eq('$aasdesc#assetType', 'urn:type:pump'), [S('1'), S2]],
    ['globalAssetId', eq('$aasdesc#globalAssetId', 'urn:asset:i1'), [S('1')]],
    ['specificAssetIds[] with $match', { $match: [eq('$aasdesc#specificAssetIds[].name', 'serial'), eq('$aasdesc#specificAssetIds[].value', '100')] }, [S('1')]],
    ['specificAssetIds[] without $match', { $and: [eq('$aasdesc#specificAssetIds[].name', 'serial'), eq('$aasdesc#specificAssetIds[].value', '100')] }, [S('1'), S('3')]],
    ['specificAssetIds[].externalSubjectId.keys[0].value', eq('$aasdesc#specificAssetIds[].externalSubjectId.keys[0].value', 'urn:company:a'), [S('1')]],
    ['endpoints[].interface (derived)', eq('$aasdesc#endpoints[].interface', 'AAS-3.0'), [S('1'), S2, S('3')]],
    ['a constant that does not cast', { $or: [eq('$aasdesc#idShort', 'Motor3'), { $eq: [f('$aasdesc#submodelDescriptors[].idShort'), { $boolCast: s('maybe') }] }] }, [S('3')]],
    ['endpoints[].protocolinformation.href (derived)', eq('$aasdesc#endpoints[0].protocolinformation.href', `${api}/shells/${b64(S2)}`), [S2]],
    ['submodelDescriptors[].semanticId (derived from the stored submodels)', eq('$aasdesc#submodelDescriptors[].semanticId', 'urn:sem:name'), [S('1')]],
    ['submodelDescriptors[].idShort', eq('$aasdesc#submodelDescriptors[].idShort', 'TechnicalData'), [S('1'), S2]],
    ['submodelDescriptors[1].id (in reference order)', eq('$aasdesc#submodelDescriptors[1].id', SM('name1')), [S('1')]],
    ['submodelDescriptors[]: a reference to a submodel not stored is no descriptor', eq('$aasdesc#submodelDescriptors[].id', SM('elsewhere')), []],
    [
      'submodelDescriptors[].endpoints[].protocolinformation.href',
      eq('$aasdesc#submodelDescriptors[].endpoints[].protocolinformation.href', `${api}/submodels/${b64(SM('tech2'))}`),
      [S2],
    ],
    [
      'submodelDescriptors[] with $match',
      { $match: [eq('$aasdesc#submodelDescriptors[].idShort', 'Nameplate'), eq('$aasdesc#submodelDescriptors[].semanticId', 'urn:sem:tech')] },
      [],
    ],
    ['$boolean true: all', { $boolean: true }, [S('1'), S2, S('3')]],
  ];
  it('POST /query/shell-descriptors: exact answers', async () => {
    for (const [name, condition, expected] of shellCases()) expect(await ids(`${api}/query/shell-descriptors`, q(condition)), name).toEqual(expected);
  });

  it('answers the descriptors GET /shell-descriptors/{id} answers, endpoints the same as the derived ones queried', async () => {
    const body = await json(post(`${api}/query/shell-descriptors`, q({ $boolean: true })));
    expect(body.paging_metadata).toEqual({ resultType: 'AssetAdministrationShellDescriptor' });
    for (const d of body.result as Json[]) {
      expect(d).toEqual(await json(fetch(`${api}/shell-descriptors/${b64(d.id as string)}`)));
      // The href the builder writes is the one the query derives in SQL.
      const href = (d.endpoints as { protocolInformation: { href: string } }[])[0].protocolInformation.href;
      expect(await ids(`${api}/query/shell-descriptors`, q(eq('$aasdesc#endpoints[].protocolinformation.href', href)))).toEqual([d.id]);
    }
    expect((body.result as Json[])[0].submodelDescriptors).toHaveLength(2);
  });

  it('POST /query/submodel-descriptors: exact answers over the submodel heads', async () => {
    const cases: [unknown, string[]][] = [
      [eq('$smdesc#semanticId', 'urn:sem:tech'), [SM('tech1'), SM('tech2')]],
      [eq('$smdesc#semanticId.type', 'ExternalReference'), [SM('tech1'), SM('name1'), SM('tech2')]],
      [eq('$smdesc#idShort', 'Orphan'), [SM('orphan')]],
      [{ $ne: [f('$smdesc#id'), s(SM('orphan'))] }, [SM('tech1'), SM('name1'), SM('tech2')]],
      [eq('$smdesc#endpoints[].interface', 'SUBMODEL-3.0'), [SM('tech1'), SM('name1'), SM('tech2'), SM('orphan')]],
      [eq('$smdesc#endpoints[].protocolinformation.href', `${api}/submodels/${b64(SM('name1'))}`), [SM('name1')]],
    ];
    for (const [condition, expected] of cases) expect(await ids(`${api}/query/submodel-descriptors`, q(condition)), JSON.stringify(condition)).toEqual(expected);
    const body = await json(post(`${api}/query/submodel-descriptors`, q(eq('$smdesc#idShort', 'Nameplate'))));
    expect(body).toEqual({ paging_metadata: { resultType: 'SubmodelDescriptor' }, result: [await json(fetch(`${api}/submodel-descriptors/${b64(SM('name1'))}`))] });
  });

  it('pages, and $select "id" answers ids', async () => {
    const first = await json(post(`${api}/query/shell-descriptors?limit=2`, q({ $boolean: true }, { $select: 'id' })));
    expect(first.result).toEqual([S('1'), S2]);
    const second = await json(post(`${api}/query/shell-descriptors?limit=2&cursor=${first.paging_metadata.cursor}`, q({ $boolean: true }, { $select: 'id' })));
    expect(second).toEqual({ paging_metadata: { resultType: 'Identifier' }, result: [S('3')] });
    const sms = await json(post(`${api}/query/submodel-descriptors?limit=3`, q({ $boolean: true }, { $select: 'id' })));
    expect(sms.result).toEqual([SM('tech1'), SM('name1'), SM('tech2')]);
    expect(await ids(`${api}/query/submodel-descriptors?limit=3&cursor=${sms.paging_metadata.cursor}`, q({ $boolean: true }))).toEqual([SM('orphan')]);
  });

  it('follows the repository: a changed shell is found by its new attributes', async () => {
    const id = S('changing');
    expect((await post(`${api}/shells`, sampleShell(id, { idShort: 'Before' }))).status).toBe(201);
    expect(await ids(`${api}/query/shell-descriptors`, q(eq('$aasdesc#idShort', 'Before')))).toEqual([id]);
    const put = await fetch(`${api}/shells/${b64(id)}`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify(sampleShell(id, { idShort: 'After' })) });
    expect(put.status).toBe(204);
    expect(await ids(`${api}/query/shell-descriptors`, q(eq('$aasdesc#idShort', 'Before')))).toEqual([]);
    expect(await ids(`${api}/query/shell-descriptors`, q(eq('$aasdesc#idShort', 'After')))).toEqual([id]);
    expect((await fetch(`${api}/shells/${b64(id)}`, { method: 'DELETE' })).status).toBe(204);
  });
});

describe('bad queries: 400 with a Result, never 500', () => {
  const bad: [string, unknown, RegExp][] = [
    ['an empty object', {}, /\$condition/],
    ['an array', [], /must be a JSON object/],
    ['a field of a shell', q(eq('$aas#idShort', 'x')), /"\$aas#idShort".*\$aasdesc fields only.*POST \/query\/shells/],
    ['a field of a submodel', q(eq('$sm#idShort', 'x')), /"\$sm#idShort"/],
    ['an element field', q(eq('$sme.P#value', 'x')), /"\$sme\.P#value"/],
    ['a submodel descriptor field in a shell descriptor query', q(eq('$smdesc#idShort', 'x')), /"\$smdesc#idShort".*POST \/query\/submodel-descriptors/],
    ['an attribute descriptors do not have', q(eq('$aasdesc#displayName', 'x')), /displayName/],
    ['an unknown root', q(eq('$desc#id', 'x')), /field identifier|root/],
    ['a regex PostgreSQL cannot take', q({ $regex: [f('$aasdesc#idShort'), s('\\bx')] }), /escape/],
    ['a huge list index', q(eq('$aasdesc#endpoints[99999999].interface', 'x')), /too large/],
    ['an unknown operator', q({ $like: [f('$aasdesc#idShort'), s('x')] }), /Invalid query/],
    ['$select other than id', q({ $boolean: true }, { $select: 'idShort' }), /\$select/],
  ];
  for (const [name, body, text] of bad) {
    it(`${name}: explicit and implicit`, async () => {
      for (const base of [reg, api]) {
        const res = await post(`${base}/query/shell-descriptors`, body);
        expect(res.status, `${base}: ${name}`).toBe(400);
        expect(await messageOf(res)).toMatch(text);
      }
    });
  }

  it('a $aasdesc field in a submodel descriptor query; $aas and $cd there too', async () => {
    for (const base of [reg, api]) {
      for (const [field, text] of [
        ['$aasdesc#idShort', /"\$aasdesc#idShort".*\$smdesc fields only.*POST \/query\/shell-descriptors/],
        ['$aas#id', /"\$aas#id"/],
        ['$cd#id', /"\$cd#id".*concept-descriptions/],
      ] as const) {
        const res = await post(`${base}/query/submodel-descriptors`, q(eq(field, 'x')));
        expect(res.status).toBe(400);
        expect(await messageOf(res)).toMatch(text);
      }
    }
  });

  it('a deeply nested condition', async () => {
    // Written as text: JSON.stringify of it would overflow the test's own stack.
    for (const depth of [2_000, 20_000]) {
      const body = `{"$condition": ${'{"$not": '.repeat(depth)}${JSON.stringify(eq('$aasdesc#id', 'x'))}${'}'.repeat(depth)}}`;
      for (const base of [reg, api]) {
        const res = await post(`${base}/query/shell-descriptors`, body);
        expect(res.status, `${depth}`).toBe(400);
        expect(await messageOf(res)).toMatch(/nest/);
      }
    }
  });

  it('bad limit, bad or foreign cursor, no JSON', async () => {
    const everything = q({ $boolean: true });
    const foreign = (await json(post(`${reg}/query/shell-descriptors?limit=1`, everything))).paging_metadata.cursor;
    const listCursor = (await json(fetch(`${reg}/shell-descriptors?limit=1`))).paging_metadata.cursor;
    for (const base of [reg, api]) {
      for (const path of ['/query/shell-descriptors', '/query/submodel-descriptors']) {
        for (const query of ['limit=0', 'limit=251', 'limit=x', 'cursor=nonsense', `cursor=${listCursor}`, ...(base === api || path.endsWith('submodel-descriptors') ? [`cursor=${foreign}`] : [])]) {
          const res = await post(`${base}${path}?${query}`, everything);
          expect(res.status, `${base}${path}?${query}`).toBe(400);
          expect((await json(res)).messages[0].messageType).toBe('Error');
        }
        expect((await post(`${base}${path}`, '{"$condition": ')).status).toBe(400);
      }
    }
  });
});

describe('instances and tenants', () => {
  it('an unknown instance, or a discovery instance, is 404', async () => {
    for (const name of ['no-such-registry', 'qdisco']) {
      for (const path of ['/query/shell-descriptors', '/query/submodel-descriptors']) {
        const res = await post(`${instanceApi(name)}${path}`, q({ $boolean: true }));
        expect(res.status, `${name}${path}`).toBe(404);
        expect(await messageOf(res)).toMatch(name === 'qdisco' ? /discovery service, not an AAS registry/ : /no instance named/);
      }
    }
  });

  it("isolates tenants: another tenant's instance of the same name and its repository answer only their own", async () => {
    const other = await server.createTenant();
    await seed(other, 'qreg', [{ id: D('1'), idShort: 'Pump1', assetKind: 'Type' }]);
    expect((await post(`${server.api(other.name)}/shells`, sampleShell(S('1'), { idShort: 'Pump1' }))).status).toBe(201);
    expect(await ids(`${instanceApi('qreg', other)}/query/shell-descriptors`, q({ $boolean: true }))).toEqual([D('1')]);
    expect(await ids(`${instanceApi('qreg', other)}/query/shell-descriptors`, q(eq('$aasdesc#assetKind', 'Instance')))).toEqual([]);
    expect(await ids(`${instanceApi('qreg', other)}/query/submodel-descriptors`, q({ $boolean: true }))).toEqual([]);
    expect(await ids(`${server.api(other.name)}/query/shell-descriptors`, q({ $boolean: true }))).toEqual([S('1')]);
    expect(await ids(`${server.api(other.name)}/query/submodel-descriptors`, q({ $boolean: true }))).toEqual([]);
    // And this tenant's answers are unchanged.
    expect(await ids(`${reg}/query/shell-descriptors`, q(eq('$aasdesc#idShort', 'Pump1')))).toEqual([D('1')]);
  });

  it('access: a reader queries; no token 401; a caller of another tenant 404', async () => {
    const closed = await server.createTenant({ showcase: false });
    await server.services.registryInstances.create(closed, { name: 'qreg', kind: 'aas-registry' });
    const withRole = async (organizationId: string, role: 'reader' | 'contributor', tenantId: string) => {
      const account = await newServiceAccount(server, organizationId);
      await assignRole(server, organizationId, { type: 'service-account', id: account.id }, role, tenantId);
      return { authorization: `Bearer ${await account.token()}` };
    };
    const contributor = await withRole(closed.organizationId, 'contributor', closed.id);
    const reader = await withRole(closed.organizationId, 'reader', closed.id);
    const elsewhere = await server.createTenant({ showcase: false });
    const stranger = await withRole(elsewhere.organizationId, 'contributor', elsewhere.id);
    expect((await post(`${instanceApi('qreg', closed)}/shell-descriptors`, { id: 'urn:closed:1', idShort: 'Closed' }, contributor)).status).toBe(201);
    expect((await post(`${server.api(closed.name)}/shells`, sampleShell('urn:closed:shell'), contributor)).status).toBe(201);
    const urls = [
      [`${instanceApi('qreg', closed)}/query/shell-descriptors`, ['urn:closed:1']],
      [`${instanceApi('qreg', closed)}/query/submodel-descriptors`, []],
      [`${server.api(closed.name)}/query/shell-descriptors`, ['urn:closed:shell']],
      [`${server.api(closed.name)}/query/submodel-descriptors`, []],
    ] as const;
    for (const [url, expected] of urls) {
      expect(await ids(url, q({ $boolean: true }), reader), url).toEqual(expected);
      expect((await post(url, q({ $boolean: true }))).status, url).toBe(401);
      expect((await post(url, q({ $boolean: true }), stranger)).status, url).toBe(404);
    }
  });
});

describe('GraphQL: the query argument of shellDescriptors and submodelDescriptors', () => {
  it('queries an instance and the implicit registry', async () => {
    const { body } = await graphql(
      server,
      null,
      `query ($t: String!, $q: JSON!, $sq: JSON!) {
        explicit: shellDescriptors(tenant: $t, instance: "qreg", query: $q) { result { id assetKind } pagingMetadata { cursor } }
        implicit: shellDescriptors(tenant: $t, query: $q) { result { id submodelDescriptors { id } } }
        sms: submodelDescriptors(tenant: $t, instance: "qreg", query: $sq, limit: 1) { result { id etag } pagingMetadata { cursor } }
      }`,
      { t: tenant.name, q: q(eq('$aasdesc#idShort', 'Pump1')), sq: q(eq('$smdesc#semanticId', 'urn:sem:tech')) },
    );
    expect(body.errors).toBeUndefined();
    expect(body.data.explicit).toEqual({ result: [{ id: D('1'), assetKind: 'Instance' }], pagingMetadata: { cursor: null } });
    expect(body.data.implicit.result).toEqual([{ id: S('1'), submodelDescriptors: [{ id: SM('tech1') }, { id: SM('name1') }] }]);
    expect(body.data.sms.result.map((d: Json) => d.id)).toEqual([DSM('tech1')]);
    expect(body.data.sms.pagingMetadata.cursor).toBeTruthy();
  });

  it('refuses a query beside filter or aasId, and a bad query, with BAD_REQUEST', async () => {
    for (const [text, message] of [
      [`shellDescriptors(tenant: $t, query: $q, filter: { assetKind: Type }) { result { id } }`, /query or filter/],
      [`submodelDescriptors(tenant: $t, instance: "qreg", aasId: "urn:qd:1", query: $q) { result { id } }`, /query or aasId/],
      [`submodelDescriptors(tenant: $t, query: $q) { result { id } }`, /Invalid query/],
    ] as const) {
      const query = /Invalid/.test(message.source) ? { condition: true } : q({ $boolean: true });
      const { body } = await graphql(server, null, `query ($t: String!, $q: JSON) { ${text} }`, { t: tenant.name, q: query });
      expect(body.errors?.[0]?.extensions?.code, text).toBe('BAD_REQUEST');
      expect(body.errors[0].message).toMatch(message);
    }
  });
});

describe('OpenAPI', () => {
  it('the tenant and instance documents describe both operations, and answers have the documented members', async () => {
    for (const [docUrl, base] of [
      [`${api}/openapi.json`, api],
      [`${reg}/openapi.json`, reg],
    ]) {
      const doc = await json(fetch(docUrl));
      for (const [path, operationId, type] of [
        ['/query/shell-descriptors', 'QueryAssetAdministrationShellDescriptors', 'AssetAdministrationShellDescriptor'],
        ['/query/submodel-descriptors', 'QuerySubmodelDescriptors', 'SubmodelDescriptor'],
      ]) {
        const op = doc.paths[path].post;
        expect(op.operationId, docUrl).toBe(operationId);
        expect(op.requestBody.content['application/json'].schema.required).toEqual(['$condition']);
        const schema = op.responses['200'].content['application/json'].schema;
        expect(schema.properties.paging_metadata.properties.resultType.enum).toEqual([type, 'Identifier']);
        expect(schema.properties.result.items.oneOf[0]).toEqual({ $ref: `#/components/schemas/${type}` });
        expect(doc.components.schemas[type]).toBeDefined();
        for (const status of ['400', '401', '403', '404']) expect(op.responses[status], status).toBeDefined();
        const answer = await json(post(`${base}${path}?limit=1`, q({ $boolean: true })));
        expect(Object.keys(answer).sort()).toEqual(['paging_metadata', 'result']);
        expect(Object.keys(answer.paging_metadata).every((k) => k in schema.properties.paging_metadata.properties)).toBe(true);
        expect(answer.paging_metadata.resultType).toBe(type);
      }
    }
  });
});

describe('random descriptor queries: never a 500, C and $not C never both hold', () => {
  /** Seeded: the same queries every run. */
  type Gen = Rnd;
  const AASDESC = [
    'idShort', 'id', 'assetKind', 'assetType', 'globalAssetId', 'specificAssetIds[].name', 'specificAssetIds[].value',
    'specificAssetIds[].externalSubjectId', 'specificAssetIds[].externalSubjectId.keys[].value', 'endpoints[].interface',
    'endpoints[].protocolinformation.href', 'submodelDescriptors[].semanticId', 'submodelDescriptors[].semanticId.type',
    'submodelDescriptors[].semanticId.keys[].type', 'submodelDescriptors[].idShort', 'submodelDescriptors[].id',
    'submodelDescriptors[].endpoints[].interface', 'submodelDescriptors[].endpoints[].protocolinformation.href',
  ];
  const SMDESC = ['semanticId', 'semanticId.type', 'semanticId.keys[].value', 'idShort', 'id', 'endpoints[].interface', 'endpoints[].protocolinformation.href'];
  const TEXTS = ['Pump1', 'Motor3', 'Instance', 'Type', 'serial', '100', 'acme', 'urn:sem:tech', 'AAS-3.0', 'SUBMODEL-3.0', 'https://', '', 'x%_', '1e2', 'true', '2024-01-01T00:00:00Z', '10:30'];
  const field = (g: Gen, root: '$aasdesc' | '$smdesc') =>
    `${root}#${g.pick(root === '$aasdesc' ? AASDESC : SMDESC).replace(/\[\]/g, () => g.pick(['[]', '[]', '[0]', '[1]']))}`;
  const literal = (g: Gen): unknown =>
    g.pick([
      () => s(g.pick(TEXTS)),
      () => ({ $numVal: g.pick([0, 1, 100, -2.5, 1e20]) }),
      () => ({ $boolean: g.next() < 0.5 }),
      () => ({ $dateTimeVal: '2024-02-29T10:00:00Z' }),
      () => ({ $timeVal: '10:30' }),
      () => ({ $hexVal: '16#FF' }),
    ])();
  const CASTS = ['$strCast', '$numCast', '$boolCast', '$dateTimeCast', '$timeCast', '$hexCast'];
  const operand = (g: Gen, root: '$aasdesc' | '$smdesc'): unknown => {
    const base = g.next() < 0.6 ? f(field(g, root)) : literal(g);
    return g.next() < 0.25 ? { [g.pick(CASTS)]: base } : base;
  };
  const comparison = (g: Gen, root: '$aasdesc' | '$smdesc'): unknown => {
    const op = g.pick(['$eq', '$ne', '$gt', '$ge', '$lt', '$le', '$contains', '$starts-with', '$ends-with', '$regex']);
    if (op === '$regex') return { $regex: [f(field(g, root)), s(g.pick(['^P', 'a.c', '[0-9]+$', '^$']))] };
    return { [op]: [f(field(g, root)), operand(g, root)] };
  };
  const condition = (g: Gen, root: '$aasdesc' | '$smdesc', depth: number): unknown => {
    const r = g.next();
    if (depth > 2 || r < 0.45) return comparison(g, root);
    if (r < 0.6) return { $not: condition(g, root, depth + 1) };
    if (r < 0.75) return { $match: [comparison(g, root), comparison(g, root)] };
    if (r < 0.8) return { $boolean: g.next() < 0.5 };
    return { [g.next() < 0.5 ? '$and' : '$or']: [condition(g, root, depth + 1), condition(g, root, depth + 1)] };
  };

  it('explicit and implicit, shell and submodel descriptors', async () => {
    const statuses: Record<number, number> = {};
    for (let seed = 1; seed <= 120; seed++) {
      const g = seededRandom(seed);
      const root = seed % 2 ? '$aasdesc' : '$smdesc';
      const path = root === '$aasdesc' ? '/query/shell-descriptors' : '/query/submodel-descriptors';
      const c = condition(g, root, 0);
      for (const base of [reg, api]) {
        const res = await post(`${base}${path}?limit=250`, q(c, { $select: 'id' }));
        const body = await json(res);
        statuses[res.status] = (statuses[res.status] ?? 0) + 1;
        expect([200, 400], `${res.status} ${base}${path} ${JSON.stringify(c)}: ${JSON.stringify(body).slice(0, 300)}`).toContain(res.status);
        if (res.status !== 200) continue;
        const negated = await json(post(`${base}${path}?limit=250`, q({ $not: c }, { $select: 'id' })));
        const both = (body.result as string[]).filter((id) => (negated.result as string[]).includes(id));
        expect(both, JSON.stringify(c)).toEqual([]);
      }
    }
    // Most generated queries are valid ones ($match over two lists is the usual 400).
    expect(statuses[200]).toBeGreaterThan(150);
  });
});
