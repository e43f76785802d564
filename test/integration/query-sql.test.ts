import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { TenantEntity } from '../../src/management/tenants/tenant.entity';
import { parseQuery } from '../../src/aas/query/parse';
import { toSql } from '../../src/aas/query/sql';
import type { QueryTarget } from '../../src/aas/query/ast';
import { cond, createDataSet, f, n, op, runQuery, s, sorted } from '../support/query-json';
import { ACCEPTED_PATTERNS } from '../support/query-patterns';
import { TestServer, startTestServer } from '../support/server';

/**
 * The AAS Query Language translated to SQL (src/aas/query/sql.ts) over a generated data set: each query's
 * answer is compared with the id set written by hand from the data below.
 */

let server: TestServer;
let tenant: TenantEntity;
let other: TenantEntity;

type Json = Record<string, unknown>;

const ref = (...values: string[]) => ({ type: 'ExternalReference', keys: values.map((value) => ({ type: 'GlobalReference', value })) });
const model = (id: string) => ({ type: 'ModelReference', keys: [{ type: 'Submodel', value: id }] });
const prop = (idShort: string | undefined, value: string, valueType = 'xs:string', semanticId?: string): Json => ({
  modelType: 'Property',
  ...(idShort ? { idShort } : {}),
  ...(semanticId ? { semanticId: ref(semanticId) } : {}),
  valueType,
  value,
});
const collection = (idShort: string | undefined, value: Json[]): Json => ({ modelType: 'SubmodelElementCollection', ...(idShort ? { idShort } : {}), value });
const list = (idShort: string, value: Json[]): Json => ({ modelType: 'SubmodelElementList', idShort, typeValueListElement: 'SubmodelElementCollection', value });

const WIDTH = '0173-1#02-BAF016#006';
const S = (n: string) => `urn:q:shell:${n}`;
const SM = (n: string) => `urn:q:sm:${n}`;
const CD = (n: string) => `urn:q:cd:${n}`;

function shell(n: string, idShort: string, assetKind: string, extra: { assetType?: string; ids?: [string, string][]; submodels?: string[] } = {}): Json {
  return {
    modelType: 'AssetAdministrationShell',
    id: S(n),
    idShort,
    assetInformation: {
      assetKind,
      globalAssetId: `urn:asset:${n}`,
      ...(extra.assetType ? { assetType: extra.assetType } : {}),
      ...(extra.ids ? { specificAssetIds: extra.ids.map(([name, value]) => ({ name, value })) } : {}),
    },
    ...(extra.submodels ? { submodels: extra.submodels.map((s) => model(SM(s))) } : {}),
  };
}

function technicalData(n: string, semanticKeys: string[], classifications: [string, string][], properties: Json[], more: Json[] = []): Json {
  return {
    modelType: 'Submodel',
    id: SM(n),
    idShort: 'TechnicalData',
    semanticId: ref(...semanticKeys),
    submodelElements: [
      ...(classifications.length
        ? [list('ProductClassifications', classifications.map(([id, system]) => collection(undefined, [prop('ProductClassId', id), prop('ClassificationSystem', system)])))]
        : []),
      collection('TechnicalProperties', properties),
      ...more,
    ],
  };
}

/** The data set: five shells, four submodels, three concept descriptions. */
const SHELLS = [
  shell('1', 'Pump1', 'Instance', { assetType: 'Pump', ids: [['supplierId', 'aas-1'], ['customerId', 'aas-2']], submodels: ['tech1', 'name1'] }),
  shell('2', 'Pump2', 'Type', { assetType: 'Pump', ids: [['supplierId', 'aas-2']], submodels: ['tech2'] }),
  shell('3', 'Motor_3', 'Instance', { assetType: 'Motor', submodels: ['tech3'] }),
  shell('4%_x', 'Motor4', 'Instance', { ids: [['customerId', 'aas-1']] }),
  shell('5', 'valve5', 'Type'),
];
const SUBMODELS = [
  technicalData(
    'tech1',
    ['urn:sem:tech'],
    [
      ['27-37-09-05', 'ECLASS'],
      ['99-99', 'Other'],
    ],
    [
      prop('Width', '80', 'xs:double', WIDTH),
      prop('MaxPressure', '16', 'xs:int', 'urn:sem:maxp'),
      prop('Made', '2024-03-01T10:00:00Z', 'xs:dateTime'),
      prop('Start', '08:30:00', 'xs:time'),
      prop('Flag', 'true', 'xs:boolean'),
      prop('Code', 'FF', 'xs:hexBinary'),
      prop('Note', 'abc'),
    ],
    [{ modelType: 'MultiLanguageProperty', idShort: 'Name', value: [{ language: 'en', text: 'Pump' }, { language: 'de', text: 'Pumpe' }] }],
  ),
  technicalData(
    'tech2',
    ['urn:sem:tech'],
    [
      ['27-37-09-05', 'Other'],
      ['11-11', 'ECLASS'],
    ],
    [
      prop('Width', '120', 'xs:double', WIDTH),
      prop('MaxPressure', '10', 'xs:int', 'urn:sem:maxp'),
      prop('Made', '2023-12-31T23:00:00-02:00', 'xs:dateTime'),
      prop('Start', '18:00:00', 'xs:time'),
      prop('Flag', 'false', 'xs:boolean'),
      prop('Code', '0a', 'xs:hexBinary'),
      prop('Note', 'x%y'),
    ],
  ),
  // Values that do not cast: every typed comparison on them is a type error, never an SQL error.
  technicalData(
    'tech3',
    ['urn:sem:other', 'urn:sem:tech'],
    [],
    [
      prop('Width', 'n/a', 'xs:string', WIDTH),
      prop('MaxPressure', '25', 'xs:int', 'urn:sem:maxp'),
      prop('Made', '2023-02-29T10:00:00Z'),
      prop('Flag', 'maybe'),
      prop('Code', 'zz'),
    ],
  ),
  {
    modelType: 'Submodel',
    id: SM('name1'),
    idShort: 'Nameplate',
    semanticId: ref('urn:sem:nameplate'),
    submodelElements: [prop('ManufacturerName', 'ACME'), prop('Width', '150', 'xs:double', WIDTH), prop('Small', '5', 'xs:int')],
  },
];
const CONCEPT_DESCRIPTIONS = [
  { modelType: 'ConceptDescription', id: CD('1'), idShort: 'MaxPressure' },
  { modelType: 'ConceptDescription', id: CD('2'), idShort: 'Width' },
  { modelType: 'ConceptDescription', id: CD('3'), idShort: 'MaxTemp' },
];

beforeAll(async () => {
  server = await startTestServer(inject('databaseUrl'));
  tenant = await server.createTenant();
  other = await server.createTenant();
  await createDataSet(server, tenant, { shells: SHELLS, submodels: SUBMODELS, conceptDescriptions: CONCEPT_DESCRIPTIONS });
  // The other tenant holds objects every query below would match.
  await server.services.shells.create(other, shell('other', 'Pump1', 'Type', { assetType: 'Pump', ids: [['supplierId', 'aas-1']] }));
  await server.services.submodels.create(other, { ...SUBMODELS[0], id: SM('other') });
  await server.services.conceptDescriptions.create(other, { modelType: 'ConceptDescription', id: CD('other'), idShort: 'MaxPressure' });
});
afterAll(() => server?.close());

const run = (target: QueryTarget, query: unknown, tenantId = tenant.id) => runQuery(server.dataSource, tenantId, target, query);

const sid = '$aas#assetInformation.specificAssetIds[]';
const tp = (name: string) => `$sme.TechnicalProperties.${name}#value`;
const pc = '$sme.ProductClassifications[]';

/** [name, target, query, expected ids] */
const CASES: [string, QueryTarget, unknown, string[]][] = [
  // $aas
  ['$eq on idShort', 'shells', op('$eq', f('$aas#idShort'), s('Pump1')), [S('1')]],
  ['$eq on assetKind', 'shells', op('$eq', f('$aas#assetInformation.assetKind'), s('Type')), [S('2'), S('5')]],
  ['$ne on idShort', 'shells', op('$ne', f('$aas#idShort'), s('Pump1')), [S('2'), S('3'), S('4%_x'), S('5')]],
  ['$starts-with', 'shells', op('$starts-with', f('$aas#idShort'), s('Motor')), [S('3'), S('4%_x')]],
  ['$contains escapes LIKE wildcards', 'shells', op('$contains', f('$aas#id'), s('%_')), [S('4%_x')]],
  ['$ends-with escapes _', 'shells', op('$ends-with', f('$aas#idShort'), s('_3')), [S('3')]],
  ['$regex', 'shells', op('$regex', f('$aas#idShort'), s('^[A-Z][a-z]+[0-9]$')), [S('1'), S('2'), S('4%_x')]],
  ['$gt on strings compares code points', 'shells', op('$gt', f('$aas#idShort'), s('P')), [S('1'), S('2'), S('5')]],
  ['$match: same specificAssetId (supplierId, aas-1)', 'shells', cond({ $match: [{ $eq: [f(`${sid}.name`), s('supplierId')] }, { $eq: [f(`${sid}.value`), s('aas-1')] }] }), [S('1')]],
  ['$match: same specificAssetId (supplierId, aas-2)', 'shells', cond({ $match: [{ $eq: [f(`${sid}.name`), s('supplierId')] }, { $eq: [f(`${sid}.value`), s('aas-2')] }] }), [S('2')]],
  ['$and: any specificAssetIds (supplierId, aas-2)', 'shells', cond({ $and: [{ $eq: [f(`${sid}.name`), s('supplierId')] }, { $eq: [f(`${sid}.value`), s('aas-2')] }] }), [S('1'), S('2')]],
  [
    '$or of two $match (the spec example)',
    'shells',
    cond({
      $or: [
        { $match: [{ $eq: [f(`${sid}.name`), s('supplierId')] }, { $eq: [f(`${sid}.value`), s('aas-1')] }] },
        { $match: [{ $eq: [f(`${sid}.name`), s('customerId')] }, { $eq: [f(`${sid}.value`), s('aas-2')] }] },
      ],
    }),
    [S('1')],
  ],
  ['specific index [0]', 'shells', op('$eq', f('$aas#assetInformation.specificAssetIds[0].value'), s('aas-2')), [S('2')]],
  ['submodel references', 'shells', op('$eq', f('$aas#submodels[].keys[].value'), s(SM('tech1'))), [S('1')]],
  ['$not excludes objects without the field', 'shells', cond({ $not: { $eq: [f('$aas#assetInformation.assetType'), s('Pump')] } }), [S('3')]],
  ['literal type mismatch is no result', 'shells', op('$eq', n(13), s('13')), []],
  ['$not of a type error is no result either', 'shells', cond({ $not: { $eq: [n(13), s('13')] } }), []],
  ['a field that does not cast to the literal type', 'shells', op('$eq', f('$aas#assetInformation.assetKind'), n(17)), []],
  ['$boolean true sees the tenant only', 'shells', cond({ $or: [{ $boolean: true }, { $eq: [f('$aas#idShort'), s('x')] }] }), SHELLS.map((x) => x.id as string)],
  // $sm
  ['$sm#idShort', 'submodels', op('$eq', f('$sm#idShort'), s('TechnicalData')), [SM('tech1'), SM('tech2'), SM('tech3')]],
  ['$sm#semanticId is the first key', 'submodels', op('$eq', f('$sm#semanticId'), s('urn:sem:tech')), [SM('tech1'), SM('tech2')]],
  ['$sm#semanticId.keys[] any key', 'submodels', op('$eq', f('$sm#semanticId.keys[].value'), s('urn:sem:tech')), [SM('tech1'), SM('tech2'), SM('tech3')]],
  ['$sm#id $ends-with', 'submodels', op('$ends-with', f('$sm#id'), s('name1')), [SM('name1')]],
  // $sme
  [
    '$match: one ProductClassification with both values',
    'submodels',
    cond({ $match: [{ $eq: [f(`${pc}.ProductClassId#value`), s('27-37-09-05')] }, { $eq: [f(`${pc}.ClassificationSystem#value`), s('ECLASS')] }] }),
    [SM('tech1')],
  ],
  [
    '$and: the values in any ProductClassifications',
    'submodels',
    cond({ $and: [{ $eq: [f(`${pc}.ProductClassId#value`), s('27-37-09-05')] }, { $eq: [f(`${pc}.ClassificationSystem#value`), s('ECLASS')] }] }),
    [SM('tech1'), SM('tech2')],
  ],
  [
    '$match with $sm and $sme (the spec motor starter example)',
    'submodels',
    cond({ $match: [{ $eq: [f('$sm#idShort'), s('TechnicalData')] }, { $eq: [f('$sme#semanticId'), s(WIDTH)] }, { $lt: [f('$sme#value'), n(100)] }] }),
    [SM('tech1')],
  ],
  ['$match: the same element has the semanticId and the value', 'submodels', cond({ $match: [{ $eq: [f('$sme#semanticId'), s(WIDTH)] }, { $lt: [f('$sme#value'), n(100)] }] }), [SM('tech1')]],
  [
    '$and: some element has the semanticId, some the value',
    'submodels',
    cond({ $and: [{ $eq: [f('$sme#semanticId'), s(WIDTH)] }, { $lt: [f('$sme#value'), n(100)] }] }),
    [SM('tech1'), SM('tech2'), SM('tech3'), SM('name1')],
  ],
  ['numeric comparison', 'submodels', op('$gt', f(tp('MaxPressure')), n(2)), [SM('tech1'), SM('tech2'), SM('tech3')]],
  ['string comparison of the same values', 'submodels', op('$gt', f(tp('MaxPressure')), s('2')), [SM('tech3')]],
  ['$ge numeric', 'submodels', op('$ge', f(tp('MaxPressure')), n(16)), [SM('tech1'), SM('tech3')]],
  ['$le numeric', 'submodels', op('$le', f(tp('MaxPressure')), n(16)), [SM('tech1'), SM('tech2')]],
  ['$numCast of a string literal', 'submodels', op('$lt', { $numCast: s('15') }, f(tp('MaxPressure'))), [SM('tech1'), SM('tech3')]],
  ['$strCast of a field', 'submodels', op('$eq', { $strCast: f(tp('MaxPressure')) }, s('16')), [SM('tech1')]],
  ['$numCast of both fields; n/a is a type error', 'submodels', op('$lt', { $numCast: f(tp('MaxPressure')) }, { $numCast: f(tp('Width')) }), [SM('tech1'), SM('tech2')]],
  ['dateTime with offsets; invalid days excluded', 'submodels', op('$gt', { $dateTimeCast: f(tp('Made')) }, { $dateTimeVal: '2024-01-01T00:30:00Z' }), [SM('tech1'), SM('tech2')]],
  ['dateTime $lt: nothing earlier', 'submodels', op('$lt', { $dateTimeCast: f(tp('Made')) }, { $dateTimeVal: '2024-01-01T00:30:00Z' }), []],
  ['$dateTimeCast of a literal without offset is UTC', 'submodels', op('$eq', { $dateTimeCast: s('2024-03-01T10:00:00') }, { $dateTimeCast: f(tp('Made')) }), [SM('tech1')]],
  ['time', 'submodels', op('$lt', f(tp('Start')), { $timeVal: '12:00' }), [SM('tech1')]],
  ['boolean true', 'submodels', op('$eq', f(tp('Flag')), { $boolean: true }), [SM('tech1')]],
  ['boolean false', 'submodels', op('$eq', f(tp('Flag')), { $boolean: false }), [SM('tech2')]],
  ['$not of boolean true: type errors and absent fields excluded', 'submodels', cond({ $not: { $eq: [f(tp('Flag')), { $boolean: true }] } }), [SM('tech2')]],
  ['hex $eq ignores case and leading zeros', 'submodels', op('$eq', f(tp('Code')), { $hexVal: '16#0A' }), [SM('tech2')]],
  ['hex $gt', 'submodels', op('$gt', { $hexCast: f(tp('Code')) }, { $hexVal: '16#F' }), [SM('tech1')]],
  ['$regex on any element value', 'submodels', op('$regex', f('$sme#value'), s('^x%')), [SM('tech2')]],
  // Anchored patterns also take the index of the values' first characters: the literal start '2023-' (the '1' may be absent).
  ['$regex with an optional character after the literal start', 'submodels', op('$regex', f(tp('Made')), s('^2023-1?2')), [SM('tech2')]],
  ['$regex with a literal start, then any', 'submodels', op('$regex', f(tp('Made')), s('^2023.*Z$')), [SM('tech3')]],
  ['$not of an anchored $regex', 'submodels', cond({ $not: { $regex: [f(tp('Made')), s('^2023')] } }), [SM('tech1')]],
  ['$starts-with with LIKE wildcards on an element value', 'submodels', op('$starts-with', f(tp('Note')), s('x%')), [SM('tech2')]],
  ['$contains %', 'submodels', op('$contains', f(tp('Note')), s('%')), [SM('tech2')]],
  ['MultiLanguageProperty language', 'submodels', op('$eq', f('$sme.Name#language'), s('de')), [SM('tech1')]],
  ['valueType anywhere', 'submodels', op('$eq', f('$sme#valueType'), s('xs:hexBinary')), [SM('tech1'), SM('tech2')]],
  ['list index', 'submodels', op('$eq', f('$sme.ProductClassifications[1].ProductClassId#value'), s('11-11')), [SM('tech2')]],
  ['$dayOfWeek of a literal (2024-01-01 is a Monday)', 'submodels', cond({ $and: [{ $eq: [{ $dayOfWeek: '2024-01-01T00:00:00Z' }, n(1)] }, { $eq: [f('$sm#idShort'), s('Nameplate')] }] }), [SM('name1')]],
  // $cd
  ['$cd#idShort $starts-with', 'conceptDescriptions', op('$starts-with', f('$cd#idShort'), s('Max')), [CD('1'), CD('3')]],
  ['$cd#id', 'conceptDescriptions', op('$eq', f('$cd#id'), s(CD('2'))), [CD('2')]],
];

describe('AAS Query Language over SQL', () => {
  it('has enough cases', () => expect(CASES.length).toBeGreaterThanOrEqual(30));
  for (const [name, target, query, expected] of CASES) {
    it(`${target}: ${name}`, async () => {
      expect(await run(target, query)).toEqual(sorted(expected));
    });
  }

  it('another tenant sees only its own objects', async () => {
    expect(await run('shells', op('$eq', f('$aas#idShort'), s('Pump1')), other.id)).toEqual([S('other')]);
    expect(await run('submodels', op('$eq', f('$sm#idShort'), s('TechnicalData')), other.id)).toEqual([SM('other')]);
    expect(await run('conceptDescriptions', cond({ $boolean: true }), other.id)).toEqual([CD('other')]);
  });

  it('every $regex pattern the parser accepts runs in PostgreSQL', async () => {
    for (const pattern of ACCEPTED_PATTERNS) expect(await run('submodels', op('$regex', f('$sme#value'), s(pattern)))).toBeInstanceOf(Array);
  });

  it('an anchored pattern on an element value adds the range of its literal start, which the value index serves', () => {
    const prefixOf = (pattern: string, operator = '$regex') => {
      const { where, params } = toSql(parseQuery(op(operator, f(tp('Note')), s(pattern))), 'submodels');
      const like = /left\(e\d+\.v_text, 256\) LIKE \$(\d+)::text/.exec(where);
      return like ? params[Number(like[1]) - 1] : undefined;
    };
    expect(prefixOf('^A-0012')).toBe('A-0012%');
    expect(prefixOf('^2023-1?2')).toBe('2023-%');
    expect(prefixOf('^ab+c')).toBe('ab%');
    expect(prefixOf('^a_b%c.d')).toBe('a\\_b\\%c%');
    expect(prefixOf('x%', '$starts-with')).toBe('x\\%%');
    // Nothing to tell: not anchored, an alternation, a class first.
    expect(prefixOf('A-0012')).toBeUndefined();
    expect(prefixOf('^a|^b')).toBeUndefined();
    expect(prefixOf('^[ab]c')).toBeUndefined();
  });

  it('a query over another kind of object is refused', () => {
    expect(() => toSql(parseQuery(op('$eq', f('$aas#id'), s('x'))), 'submodels')).toThrow(/address shells/);
  });

  it('every client value is a parameter', () => {
    const sql = toSql(parseQuery(cond({ $match: [{ $eq: [f(`${pc}.ProductClassId#value`), s("'; DROP TABLE x; --")] }] })), 'submodels');
    expect(sql.where).not.toContain('DROP');
    expect(sql.where).not.toContain('ProductClass');
    expect(sql.params).toContain("'; DROP TABLE x; --");
  });

  it('decides a $match with a false or type-error conjunct as FALSE itself, so no subquery carries a constant (Citus cannot plan one)', () => {
    const typeError = { $eq: [n(1), s('x')] };
    const inner = { $match: [{ $eq: [f('$sme.A#value'), s('x')] }, typeError] };
    const query = parseQuery(cond({ $not: { $match: [inner, { $eq: [f('$sme.B#value'), s('y')] }] } }));
    const { where, params } = toSql(query, 'submodels', { doc: 'm.doc', row: 'm', tenant: '$1', firstParam: 2 });
    expect(where).toBe('TRUE');
    expect(params).toEqual([]);
    // Beside a live condition, the constant goes and the live one stays, with its parameters only.
    const mixed = toSql(parseQuery(cond({ $or: [inner, { $eq: [f('$sm#idShort'), s('z')] }] })), 'submodels', { doc: 'm.doc', row: 'm', tenant: '$1', firstParam: 2 });
    expect(mixed.where).not.toMatch(/EXISTS|FALSE|NULL/);
    expect(mixed.params).toEqual(['z']);
  });

  it("joins element rows on the caller's tenant parameter when given, so that every table of the statement names the tenant", () => {
    const query = parseQuery(
      cond({ $and: [{ $match: [{ $eq: [f(`${pc}.ProductClassId#value`), s('x')] }, { $eq: [f(`${pc}.ClassificationSystem#value`), s('y')] }] }, { $eq: [f('$sme.Serial#value'), s('1')] }] }),
    );
    const { where } = toSql(query, 'submodels', { doc: 'm.doc', row: 'm', tenant: '$1', firstParam: 2 });
    const joins = where.match(/\be\d+\.tenant_id = \S+/g) ?? [];
    expect(joins.length).toBeGreaterThan(0);
    expect(new Set(joins.map((j) => j.replace(/^e\d+/, 'e')))).toEqual(new Set(['e.tenant_id = $1']));
    // Without it, on the row's own tenant_id (statements with no tenant parameter of their own).
    expect(toSql(query, 'submodels', { doc: 'm.doc', row: 'm', firstParam: 2 }).where).toContain('.tenant_id = m.tenant_id');
  });
});
