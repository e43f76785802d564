import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import type { TenantEntity } from '../../src/management/tenants/tenant.entity';
import { loadConfig } from '../../src/config';
import { parseQuery } from '../../src/aas/query/parse';
import { toSql } from '../../src/aas/query/sql';
import { TestServer, json, startTestServer } from '../support/server';

/**
 * Queries with many conditions on submodel elements: a conjunction of more than a few is evaluated in one pass over a
 * submodel's element rows instead of one semi-join each (whose join orders PostgreSQL would search: over a minute of
 * planning for 200 of them on the embedded database, which no timeout interrupts), with the same answers; and a
 * query that reads more `$sme` fields than QUERY_MAX_ELEMENT_CONDITIONS allows is refused before the database is asked.
 */

let server: TestServer;
let tenant: TenantEntity;
let api: string;

type Json = Record<string, unknown>;
const ref = (value: string) => ({ type: 'ExternalReference', keys: [{ type: 'GlobalReference', value }] });
const prop = (idShort: string, value: string, valueType = 'xs:string', semanticId?: string): Json => ({
  modelType: 'Property',
  idShort,
  valueType,
  value,
  ...(semanticId ? { semanticId: ref(semanticId) } : {}),
});
const collection = (idShort: string, value: Json[]): Json => ({ modelType: 'SubmodelElementCollection', idShort, value });
const SM = (n: number) => `urn:qec:sm:${n}`;

/** Submodel n: c0..c7 with x = `v{i}` (x of c{n} is `other`), numbers, dates, a semanticId on c1.x, a nested c0. */
function submodel(n: number): Json {
  return {
    modelType: 'Submodel',
    id: SM(n),
    idShort: `S${n}`,
    submodelElements: [
      ...Array.from({ length: 8 }, (_, i) =>
        collection(`c${i}`, [prop('x', i === n ? 'other' : `v${i}`, 'xs:string', i === 1 ? `urn:qec:sem:${n % 2}` : undefined), prop('n', String(n * 10 + i), 'xs:int')]),
      ),
      collection('deep', [collection('c0', [prop('x', `deep${n}`)])]),
      prop('when', `2026-0${(n % 9) + 1}-01T00:00:00Z`, 'xs:dateTime'),
    ],
  };
}
const SUBMODELS = Array.from({ length: 10 }, (_, n) => submodel(n));

const f = (field: string) => ({ $field: field });
const s = (value: string) => ({ $strVal: value });
const eq = (field: string, value: string) => ({ $eq: [f(field), s(value)] });
/** `$sme.c{i}.x#value == v{i}` for i in `range`. */
const xs = (range: number[]) => range.map((i) => eq(`$sme.c${i}.x#value`, `v${i}`));
const upTo = (n: number) => Array.from({ length: n }, (_, i) => i);

/** Conjunctions of element conditions (and a few around them), each answered by the folded and the unfolded SQL. */
const QUERIES: [string, Json][] = [
  ['eight values', { $and: xs(upTo(8)) }],
  ['five values', { $and: xs([0, 2, 4, 6, 7]) }],
  ['values and a number', { $and: [...xs([1, 2, 3, 4, 5]), { $gt: [f('$sme.c6.n#value'), { $numVal: 40 }] }] }],
  ['values, numbers between', { $and: [...xs([1, 2, 3]), { $ge: [f('$sme.c0.n#value'), { $numVal: 30 }] }, { $le: [f('$sme.c7.n#value'), { $numVal: 77 }] }] }],
  ['a semanticId and idShorts', { $and: [...xs([0, 2, 3, 4]), eq('$sme.c1.x#semanticId', 'urn:qec:sem:1'), eq('$sme.c5#idShort', 'c5')] }],
  ['a dateTime', { $and: [...xs([0, 1, 2, 3]), { $lt: [f('$sme.when#value'), { $dateTimeVal: '2026-05-01T00:00:00Z' }] }] }],
  ['starts-with and regex', { $and: [...xs([0, 1, 2]), { '$starts-with': [f('$sme.c3.x#value'), s('v')] }, { $regex: [f('$sme.c4.x#value'), s('^v4$')] }] }],
  ['a type error among them', { $and: [...xs([0, 1, 2, 3, 4]), { $gt: [f('$sme.c5.x#value'), { $numVal: 1 }] }] }],
  ['a nested element of the same idShort', { $and: [...xs([1, 2, 3, 4]), eq('$sme.c0.x#value', 'deep3')] }],
  ['with submodel conditions', { $and: [...xs([0, 1, 2, 3, 4]), { $ne: [f('$sm#idShort'), s('S2')] }] }],
  ['inside an $or', { $or: [{ $and: xs(upTo(8)) }, eq('$sm#idShort', 'S1')] }],
  ['under a $not', { $not: { $and: xs(upTo(8)) } }],
  ['under two $nots', { $not: { $not: { $and: xs(upTo(8)) } } }],
  ['next to a $match', { $and: [...xs([1, 2, 3, 4, 5]), { $match: [eq('$sme.c0.x#value', 'v0'), { $gt: [f('$sme.c0.n#value'), { $numVal: 20 }] }] }] }],
  ['a constant false', { $and: [...xs(upTo(6)), { $boolean: false }] }],
  ['a value no element has', { $and: [...xs(upTo(6)), eq('$sme.c9.x#value', 'v9')] }],
];

/** The ids of the tenant's submodels the condition holds for, with conjunctions folded above `foldAbove` element conditions. */
async function ids(condition: Json, foldAbove: number): Promise<string[]> {
  const sql = toSql(parseQuery({ $condition: condition }), 'submodels', { doc: 'd.doc', row: 'd', tenant: '$1', firstParam: 2, foldElementsAbove: foldAbove });
  const rows: { id: string }[] = await server.dataSource.query(`SELECT d.id FROM submodels d WHERE d.tenant_id = $1 AND (${sql.where}) ORDER BY d.id COLLATE "C"`, [tenant.id, ...sql.params]);
  return rows.map((row) => row.id);
}

const post = (body: unknown) => fetch(`${api}/query/submodels`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

beforeAll(async () => {
  server = await startTestServer(inject('databaseUrl'), { queryMaxElementConditions: 32 });
  tenant = await server.createTenant();
  api = server.api(tenant.name);
  for (const sm of SUBMODELS) await server.services.submodels.create(tenant, sm);
});

afterAll(async () => {
  await server?.close();
});

describe('a conjunction of many element conditions', () => {
  it.each(QUERIES)('%s: the same answer folded as unfolded', async (_, condition) => {
    const unfolded = await ids(condition, Number.MAX_SAFE_INTEGER);
    expect(await ids(condition, 0)).toEqual(unfolded);
    expect(await ids(condition, 1)).toEqual(unfolded);
  });

  it('the data set tells the forms apart: most queries match some submodels and not others', async () => {
    const counts = await Promise.all(QUERIES.map(async ([, condition]) => (await ids(condition, Number.MAX_SAFE_INTEGER)).length));
    expect(counts.filter((n) => n > 0 && n < SUBMODELS.length).length).toBeGreaterThanOrEqual(10);
  });

  it('is one EXISTS and one pass over the element rows beyond the bound, one EXISTS each below it', () => {
    const where = (n: number) => toSql(parseQuery({ $condition: { $and: xs(upTo(n)) } }), 'submodels', { doc: 'd.doc', row: 'd', tenant: '$1', firstParam: 2 }).where;
    const count = (text: string, what: string) => text.split(what).length - 1;
    const many = where(200);
    expect(count(many, 'EXISTS')).toBe(1);
    expect(count(many, 'bool_or(')).toBe(199);
    expect(count(many, 'FROM submodel_elements')).toBe(2);
    expect(count(where(4), 'EXISTS')).toBe(4);
    expect(count(where(4), 'bool_or(')).toBe(0);
  });
});

describe('QUERY_MAX_ELEMENT_CONDITIONS', () => {
  it('defaults to 32 on the embedded database and to no bound on PostgreSQL', () => {
    expect(loadConfig({}).queryMaxElementConditions).toBe(32);
    expect(loadConfig({ DATABASE_URL: 'postgres://u@127.0.0.1:5432/db' }).queryMaxElementConditions).toBe(0);
    expect(loadConfig({ DATABASE_URL: 'postgres://u@127.0.0.1:5432/db', QUERY_MAX_ELEMENT_CONDITIONS: '50' }).queryMaxElementConditions).toBe(50);
  });

  it('refuses a query with more element fields with 400 naming the bound, before the database is asked, and serves reads beside it', async () => {
    // Every statement the server sends, through a query runner or the data source.
    const sent: string[] = [];
    const createQueryRunner = server.dataSource.createQueryRunner.bind(server.dataSource);
    const runners = vi.spyOn(server.dataSource, 'createQueryRunner').mockImplementation((...args) => {
      const runner = createQueryRunner(...args);
      const query = runner.query.bind(runner);
      runner.query = ((sql: string, ...rest: unknown[]) => (sent.push(sql), (query as (...a: unknown[]) => unknown)(sql, ...rest))) as typeof runner.query;
      return runner;
    });
    const queries = vi.spyOn(server.dataSource, 'query');
    const elementStatements = () => [...sent, ...queries.mock.calls.map(([sql]) => String(sql))].filter((sql) => /submodel_elements/.test(sql));
    try {
      // The spies see a query's statement: one of 8 conditions is answered from the database.
      const allowed = await post({ $condition: { $and: xs(upTo(8)) } });
      expect(allowed.status).toBe(200);
      await allowed.arrayBuffer();
      expect(elementStatements().length).toBeGreaterThan(0);
      sent.length = 0;
      queries.mockClear();

      const refused = await Promise.all(Array.from({ length: 8 }, () => post({ $condition: { $and: xs(Array.from({ length: 200 }, (_, i) => i % 8)) } })));
      const beside = await fetch(`${api}/submodels/${Buffer.from(SM(3)).toString('base64url')}`);
      for (const r of refused) {
        expect(r.status).toBe(400);
        const body = await json(r);
        expect(body.messages[0].text).toMatch(/200 submodel element fields.*more than the 32.*QUERY_MAX_ELEMENT_CONDITIONS/);
      }
      expect(beside.status).toBe(200);
      await beside.arrayBuffer();
      // Refused first, before the rest of the request is worked out: with a cursor that is no cursor, the answer is
      // still the bound's.
      const withCursor = await fetch(`${api}/query/submodels?cursor=bm90LWEtY3Vyc29y`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ $condition: { $and: xs(Array.from({ length: 200 }, (_, i) => i % 8)) } }),
      });
      expect(withCursor.status).toBe(400);
      expect((await json(withCursor)).messages[0].text).toMatch(/QUERY_MAX_ELEMENT_CONDITIONS/);
      // No statement of the refused queries reached the database.
      expect(elementStatements()).toEqual([]);
    } finally {
      runners.mockRestore();
      queries.mockRestore();
    }
  });

  it('counts every $sme field, in every branch, and answers a query at the bound', async () => {
    const at = await post({ $condition: { $and: xs(upTo(8).flatMap((i) => [i, i, i, i])) } });
    expect(at.status, JSON.stringify(await json(at))).toBe(200);
    const over = await post({ $condition: { $or: [{ $and: xs(upTo(8).flatMap((i) => [i, i, i, i])) }, { $not: eq('$sme.c0.x#value', 'v0') }] } });
    expect(over.status).toBe(400);
    expect((await json(over)).messages[0].text).toMatch(/33 submodel element fields/);
  });
});
