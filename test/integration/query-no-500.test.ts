import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { QueryTarget } from '../../src/aas/query/ast';
import { QUERY_LIMITS, parseQuery } from '../../src/aas/query/parse';
import { toSql } from '../../src/aas/query/sql';
import { MAX_JSON_DEPTH, nestsDeeperThan } from '../../src/common/json-depth';
import { AppError, statusOfCode } from '../../src/graphql/errors';
import type { TenantEntity } from '../../src/management/tenants/tenant.entity';
import { ALL_CDS, ALL_SHELLS, ALL_SUBMODELS, CONCEPT_DESCRIPTIONS, SHELLS, SUBMODELS } from '../support/query-corpus';
import { createDataSet, runQuery } from '../support/query-json';
import { ACCEPTED_PATTERNS } from '../support/query-patterns';
import { Rnd, seededRandom } from '../support/seeded-random';
import { TestServer, startTestServer } from '../support/server';

/**
 * A property test of the query language: random VALID queries generated from the grammar (every root and
 * attribute, every operator and cast, literals of every type including odd ones, nesting up to depth 4) run
 * through parseQuery + toSql + the database and must never raise: type errors are no result, never an SQL
 * error; and a condition and its `$not` never both hold for an object. Random INVALID queries (schema
 * violations, wrong types, huge nesting, bad regexes, limits) must be refused with a 400 `AppError` that has a
 * message, never anything else.
 *
 * Deterministic: query i is generated from seed + i (QUERY_SEED overrides the seed); a failure names the seed
 * and the queries.
 */

const SEED = Number(process.env.QUERY_SEED ?? 20261123);
const VALID = 300;
const INVALID = 300;

let server: TestServer;
let tenant: TenantEntity;

beforeAll(async () => {
  server = await startTestServer(inject('databaseUrl'));
  tenant = await server.createTenant();
  await createDataSet(server, tenant, { shells: SHELLS, submodels: SUBMODELS, conceptDescriptions: CONCEPT_DESCRIPTIONS });
});
afterAll(() => server?.close());

// --- a seeded generator -------------------------------------------------------------------------------------

type Gen = Rnd;
type Json = Record<string, unknown>;

const ROOTS_OF: Record<'shells' | 'submodels' | 'conceptDescriptions', string[]> = {
  shells: ['$aas'],
  submodels: ['$sm', '$sme'],
  conceptDescriptions: ['$cd'],
};

/** An index: `[]`, a small position, or a large one (still within the parser's limit). */
const index = (g: Gen) => (g.chance(0.5) ? '[]' : g.chance(0.9) ? `[${g.int(3)}]` : `[${g.pick([999, 1_000_000])}]`);
const REFERENCE = (g: Gen, prefix: string) => g.pick([prefix, `${prefix}.type`, `${prefix}.keys${index(g)}.type`, `${prefix}.keys${index(g)}.value`]);

function aasAttribute(g: Gen, list?: 'specificAssetIds' | 'submodels'): string {
  const sid = () => {
    const at = `assetInformation.specificAssetIds${list ? '[]' : index(g)}`;
    return g.pick([`${at}.name`, `${at}.value`, REFERENCE(g, `${at}.externalSubjectId`)]);
  };
  const submodels = () => {
    const at = `submodels${list ? '[]' : index(g)}`;
    return g.pick([`${at}.type`, `${at}.keys${index(g)}.type`, `${at}.keys${index(g)}.value`]);
  };
  if (list === 'specificAssetIds') return sid();
  if (list === 'submodels') return submodels();
  return g.pick([
    () => 'idShort',
    () => 'id',
    () => 'assetInformation.assetKind',
    () => 'assetInformation.assetType',
    () => 'assetInformation.globalAssetId',
    sid,
    submodels,
  ])();
}

const ID_SHORTS = ['TechnicalProperties', 'Width', 'Voltage', 'Documents', 'DocumentVersion', 'SMLLanguages', 'Markings', 'Codes', 'Names', 'X-1', 'a_b', 'Z'];

/** An `$sme` idShortPath of 0..3 segments (`first` fixes the first one: the list a `$match` binds). */
function smePath(g: Gen, first?: string | null): string {
  if (first === null) return '';
  const length = first ? 1 + g.int(3) : g.int(4);
  const segments: string[] = [];
  for (let i = 0; i < length; i++) {
    const idShort = i === 0 && first ? first : g.pick(ID_SHORTS);
    let indexes = '';
    for (let k = g.chance(0.6) ? g.int(3) : 0; k > 0; k--) indexes += index(g);
    segments.push(idShort + indexes);
  }
  return segments.length ? `.${segments.join('.')}` : '';
}

const smeAttribute = (g: Gen) => g.pick([() => 'idShort', () => 'value', () => 'value', () => 'valueType', () => 'language', () => REFERENCE(g, 'semanticId')])();

/** The field families of a `$match`: fields of one family address the same first list. */
interface Family {
  field(g: Gen): string;
}

function field(g: Gen, target: keyof typeof ROOTS_OF): string {
  const root = g.pick(ROOTS_OF[target]);
  switch (root) {
    case '$aas':
      return `$aas#${aasAttribute(g)}`;
    case '$sm':
      return `$sm#${g.pick(['idShort', 'id', REFERENCE(g, 'semanticId')])}`;
    case '$sme':
      return `$sme${smePath(g)}#${smeAttribute(g)}`;
    default:
      return `$cd#${g.pick(['idShort', 'id'])}`;
  }
}

/** A family for a `$match` over `target`, and fields that reach no list (any `$match` may hold those). */
function family(g: Gen, target: keyof typeof ROOTS_OF): Family {
  const plain = (): string => {
    if (target === 'shells') return `$aas#${g.pick(['idShort', 'id', 'assetInformation.assetKind', 'assetInformation.assetType', 'assetInformation.globalAssetId'])}`;
    if (target === 'submodels') return `$sm#${g.pick(['idShort', 'id', 'semanticId', 'semanticId.type', 'semanticId.keys[0].value'])}`;
    return `$cd#${g.pick(['idShort', 'id'])}`;
  };
  if (target === 'shells') {
    const list = g.pick(['specificAssetIds', 'submodels'] as const);
    return { field: (h) => (h.chance(0.2) ? plain() : `$aas#${aasAttribute(h, list)}`) };
  }
  if (target === 'submodels') {
    const first = g.chance(0.3) ? null : g.pick(ID_SHORTS);
    return { field: (h) => (h.chance(0.2) ? plain() : `$sme${smePath(h, first)}#${smeAttribute(h)}`) };
  }
  return { field: () => plain() };
}

const ODD_STRINGS = [
  '',
  ' ',
  "'",
  '"',
  '\\',
  '%',
  '_',
  '%_\\%',
  'ä€😀',
  '\u00e9\u0301',
  "'; DROP TABLE shells; --",
  'NULL',
  '16#FF',
  '2024-02-29T00:00:00Z',
  '2023-02-29T00:00:00Z',
  '12:00',
  '25:61',
  'true',
  'TRUE ',
  ' 42 ',
  '-0',
  '1e400',
  'NaN',
  'Infinity',
  '\n\t\r',
  'x'.repeat(2000),
  '{"a":1}',
  '[]',
  'Width',
  'urn:c:sm:td1',
  'a\u2028b',
];

const NUMBERS = [0, -0, 1, -1, 3.14, 100, 230, 1e308, -1e308, 5e-324, 2 ** 53 + 1, 1e21, 1e-7, 123456789012345678901234567890];

function dateTime(g: Gen): string {
  const year = g.pick([1, 2, 1970, 2000, 2023, 2024, 9999]);
  const month = 1 + g.int(12);
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  const days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1];
  const day = g.chance(0.3) ? days : 1 + g.int(days);
  const pad = (v: number, w = 2) => String(v).padStart(w, '0');
  const time = `${pad(g.int(24))}:${pad(g.int(60))}:${pad(g.int(60))}${g.chance(0.3) ? `.${pad(g.int(1000), 3)}` : ''}`;
  const zone = g.pick(['Z', 'z', '+00:00', '-14:00', '+14:00', '+05:30']);
  return `${pad(year, 4)}-${pad(month)}-${pad(day)}${g.pick(['T', 't'])}${time}${zone}`;
}

const hex = (g: Gen) => `16#${Array.from({ length: 1 + (g.chance(0.1) ? 70 : g.int(8)) }, () => '0123456789ABCDEF'[g.int(16)]).join('')}`;

/** A literal of any type, as the JSON schema allows it. */
function literal(g: Gen): Json {
  return g.pick<() => Json>([
    () => ({ $strVal: g.pick(ODD_STRINGS) }),
    () => ({ $numVal: g.pick(NUMBERS) }),
    () => ({ $hexVal: hex(g) }),
    () => ({ $dateTimeVal: dateTime(g) }),
    () => ({ $timeVal: `${String(g.int(24)).padStart(2, '0')}:${String(g.int(60)).padStart(2, '0')}${g.chance(0.5) ? `:${String(g.int(60)).padStart(2, '0')}` : ''}` }),
    () => ({ $boolean: g.chance(0.5) }),
    () => ({ [g.pick(['$dayOfWeek', '$dayOfMonth', '$month', '$year'])]: dateTime(g) }),
  ])();
}

const CASTS = ['$strCast', '$numCast', '$hexCast', '$boolCast', '$dateTimeCast', '$timeCast'];

/** A Value operand: a field, a literal, or casts of either. */
function value(g: Gen, fieldOf: () => string, depth = 0): Json {
  if (depth < 2 && g.chance(0.3)) return { [g.pick(CASTS)]: value(g, fieldOf, depth + 1) };
  return g.chance(0.5) ? { $field: fieldOf() } : literal(g);
}

/** A stringValue operand: a field, a string, or `$strCast` of any Value. */
function stringValue(g: Gen, fieldOf: () => string): Json {
  return g.pick<() => Json>([() => ({ $field: fieldOf() }), () => ({ $strVal: g.pick(ODD_STRINGS) }), () => ({ $strCast: value(g, fieldOf, 1) })])();
}

function comparison(g: Gen, fieldOf: () => string): Json {
  const op = g.pick(['$eq', '$ne', '$gt', '$ge', '$lt', '$le', '$contains', '$starts-with', '$ends-with', '$regex']);
  if (op === '$regex') {
    const pattern = { $strVal: g.pick([...ACCEPTED_PATTERNS, '^$', '.', 'a|b', '[%_]', '^urn:', '\\d+', '(?:x)?y*']) };
    return { $regex: [stringValue(g, fieldOf), g.chance(0.2) ? { $strCast: pattern } : pattern] };
  }
  if (op.startsWith('$') && ['$contains', '$starts-with', '$ends-with'].includes(op)) return { [op]: [stringValue(g, fieldOf), stringValue(g, fieldOf)] };
  return { [op]: [value(g, fieldOf), value(g, fieldOf)] };
}

function matchExpression(g: Gen, target: keyof typeof ROOTS_OF, depth: number): Json {
  const fam = family(g, target);
  const items: Json[] = [];
  for (let i = 1 + g.int(3); i > 0; i--) {
    items.push(depth < 4 && g.chance(0.15) ? matchExpression(g, target, depth + 1) : comparison(g, () => fam.field(g)));
  }
  return { $match: items };
}

function logical(g: Gen, target: keyof typeof ROOTS_OF, depth: number): Json {
  const leaf = depth >= 4 || g.chance(0.35);
  if (leaf) return g.chance(0.05) ? { $boolean: g.chance(0.5) } : comparison(g, () => field(g, target));
  return g.pick<() => Json>([
    () => ({ [g.pick(['$and', '$or'])]: Array.from({ length: 2 + g.int(2) }, () => logical(g, target, depth + 1)) }),
    () => ({ $not: logical(g, target, depth + 1) }),
    () => matchExpression(g, target, depth + 1),
  ])();
}

function validQuery(seed: number): { target: QueryTarget; query: Json } {
  const g = seededRandom(seed);
  const target = g.pick(['shells', 'submodels', 'conceptDescriptions'] as const);
  const query: Json = { $condition: logical(g, target, 0) };
  if (g.chance(0.2)) query.$select = 'id';
  return { target, query };
}

// --- invalid queries ----------------------------------------------------------------------------------------

const BAD_REGEXES = ['(', '[a', 'a{2,1}', '\\b', '\\1', '(?<n>x)', 'a{300}', '(a+){2}', '[[:alpha:]]', '*', 'x'.repeat(300), '\\', '(?i)x'];
const BAD_FIELDS = [
  '$aas#description',
  '$aas#displayName[].language',
  '$aas#submodels',
  '$foo#id',
  '$aas.Path#id',
  '$cd#value',
  '$sm#value',
  '$sme.1abc#value',
  '$sme.a-#value',
  '$sme.X[-1]#value',
  '$sme.X[9999999]#value',
  `$sme.${'a'.repeat(200)}#value`,
  '$sme#',
  'aas#id',
  '$aas#id ',
  '$sme.X..Y#value',
  '$aas#assetInformation.specificAssetIds.name',
  '$sme#keys[0].value',
];

function invalidQuery(seed: number): { target: QueryTarget; query: unknown; kind: string } {
  const g = seededRandom(seed);
  const ok = () => ({ $eq: [{ $field: '$aas#idShort' }, { $strVal: 'x' }] });
  const shells = (kind: string, query: unknown) => ({ target: 'shells' as QueryTarget, query, kind });
  const condition = (kind: string, c: unknown) => shells(kind, { $condition: c });
  const nest = (depth: number, wrap: (c: Json) => Json) => {
    let c: Json = ok();
    for (let i = 0; i < depth; i++) c = wrap(c);
    return c;
  };
  return g.pick<() => { target: QueryTarget; query: unknown; kind: string }>([
    () => shells('not an object', g.pick([null, 'x', 42, true, [], [ok()]])),
    () => shells('no $condition', { $select: 'id' }),
    () => shells('an extra member', { $condition: ok(), $limit: 10 }),
    () => shells('a $select other than id', { $select: g.pick(['idShort', 'ID', '', '*']), $condition: ok() }),
    () => condition('an unknown operator', { [g.pick(['$foo', '$in', 'eq', '$EQ', '$like'])]: [{ $field: '$aas#id' }, { $strVal: 'x' }] }),
    () => condition('one operand', { [g.pick(['$eq', '$lt', '$contains'])]: [{ $field: '$aas#id' }] }),
    () => condition('three operands', { $eq: [{ $field: '$aas#id' }, { $strVal: 'x' }, { $strVal: 'y' }] }),
    () => condition('an operand that is not an object', { $eq: [{ $field: '$aas#id' }, g.pick(['x', 1, null, true, []])] }),
    () => condition('two operators in one object', { ...ok(), $ne: [{ $field: '$aas#id' }, { $strVal: 'x' }] }),
    () => condition('two members in one operand', { $eq: [{ $field: '$aas#id', $strVal: 'x' }, { $strVal: 'x' }] }),
    () => condition('$and with one item', { [g.pick(['$and', '$or'])]: [ok()] }),
    () => condition('$not of a list', { $not: [ok()] }),
    () => condition('an empty $match', { $match: [] }),
    () => condition('a bad field', { $eq: [{ $field: g.pick(BAD_FIELDS) }, { $strVal: 'x' }] }),
    () => condition('$strVal starting with $', { $eq: [{ $field: '$aas#id' }, { $strVal: `$${g.pick(ODD_STRINGS)}` }] }),
    () => condition('$numVal as a string', { $eq: [{ $field: '$aas#id' }, { $numVal: g.pick(['1', '', 'NaN']) }] }),
    () => condition('a bad $hexVal', { $eq: [{ $field: '$aas#id' }, { $hexVal: g.pick(['16#ff', 'FF', '16#', '16#G1', '0x1F']) }] }),
    () =>
      condition('a bad $dateTimeVal', {
        $eq: [{ $field: '$aas#id' }, { $dateTimeVal: g.pick(['2023-02-29T00:00:00Z', '2024-13-01T00:00:00Z', 'now', '2024-01-01', '2024-01-01T24:00:00Z', '0000-01-01T00:00:00Z']) }],
      }),
    () => condition('a bad $timeVal', { $eq: [{ $field: '$aas#id' }, { $timeVal: g.pick(['1:00', '12', '12:00:00.5', 'noon', '12:00:00Z']) }] }),
    () => condition('a $boolean that is not boolean', { $eq: [{ $field: '$aas#id' }, { $boolean: g.pick(['true', 1, null]) }] }),
    () => condition('a bad date part', { $eq: [{ [g.pick(['$dayOfWeek', '$year'])]: g.pick(['2024-02-30T00:00:00Z', 'today', 5]) }, { $numVal: 1 }] }),
    () => condition('a number in a string operation', { [g.pick(['$contains', '$starts-with', '$regex'])]: [{ $field: '$aas#id' }, { $numVal: 1 }] }),
    () => condition('a bad regex', { $regex: [{ $field: '$aas#id' }, { $strVal: g.pick(BAD_REGEXES) }] }),
    () => condition('a regex from a field', { $regex: [{ $field: '$aas#id' }, { $field: '$aas#idShort' }] }),
    () => condition('roots of two kinds', { $or: [ok(), { $eq: [{ $field: g.pick(['$sm#id', '$cd#id', '$sme#value']) }, { $strVal: 'x' }] }] }),
    () =>
      condition('$match over different lists', {
        $match: [
          { $eq: [{ $field: '$aas#assetInformation.specificAssetIds[].name' }, { $strVal: 'x' }] },
          { $eq: [{ $field: '$aas#submodels[].keys[].value' }, { $strVal: 'x' }] },
        ],
      }),
    () => condition('a logical expression inside $match', { $match: [{ [g.pick(['$and', '$or'])]: [ok(), ok()] }] }),
    () => condition('$not inside $match', { $match: [{ $not: ok() }] }),
    () => condition('huge nesting of $not', nest(5_000 + g.int(50_000), (c) => ({ $not: c }))),
    () => condition('huge nesting of $and', nest(5_000 + g.int(50_000), (c) => ({ $and: [c, ok()] }))),
    () => condition('huge nesting of casts', { $eq: [nest(5_000 + g.int(50_000), (c) => ({ $strCast: c })), { $strVal: 'x' }] }),
    () => ({ target: 'submodels' as QueryTarget, query: { $condition: ok() }, kind: 'a query over another kind of object' }),
  ])();
}

// --- the properties -----------------------------------------------------------------------------------------

const ALL: Record<string, Set<string>> = {
  shells: new Set(ALL_SHELLS),
  submodels: new Set(ALL_SUBMODELS),
  conceptDescriptions: new Set(ALL_CDS),
};

function show(query: unknown): string {
  let text: string;
  try {
    text = JSON.stringify(query) ?? String(query);
  } catch {
    return '<nested too deeply to print>';
  }
  return text.length > 600 ? `${text.slice(0, 600)}...` : text;
}

/**
 * A bug this test found: a comparison whose second operand is a constant that does not cast (or a hex literal
 * longer than the SQL translation compares) was dropped after the first operand's parameters were added, and
 * PostgreSQL refused the statement ("bind message supplies N parameters, but prepared statement requires M", or
 * "could not determine data type of parameter $n" when the orphan is not the last one). Its own test below.
 */
const ORPHANED_PARAMETER = /bind message supplies \d+ parameters, but prepared statement "" requires \d+|could not determine data type of parameter \$\d+/;

interface Outcome {
  i: number;
  target: QueryTarget;
  query: Json;
  error?: Error;
  problem?: string;
}

let outcomes: Promise<Outcome[]> | undefined;

/** Runs the valid queries once (both properties read the outcomes): each query and its `$not`. */
function validOutcomes(): Promise<Outcome[]> {
  outcomes ??= (async () => {
    const list: Outcome[] = [];
    for (let i = 0; i < VALID; i++) {
      const { target, query } = validQuery(SEED + i);
      try {
        const ids = await runQuery(server.dataSource, tenant.id, target, query);
        const negated = await runQuery(server.dataSource, tenant.id, target, { $condition: { $not: query.$condition } });
        const both = ids.filter((id) => negated.includes(id));
        const stray = [...ids, ...negated].filter((id) => !ALL[target].has(id));
        list.push({ i, target, query, ...(both.length || stray.length ? { problem: `both C and $not C: [${both}]; not in the data set: [${stray}]` } : {}) });
      } catch (e) {
        list.push({ i, target, query, error: e as Error });
      }
    }
    return list;
  })();
  return outcomes;
}

const describeOutcome = (o: Outcome) =>
  `#${o.i} (seed ${SEED + o.i}) ${o.target}: ${o.error ? `${o.error.constructor.name}: ${o.error.message}` : o.problem}; ${show(o.query)}`;

/** What the request layers let through: REST bodies and GraphQL variables nest at most MAX_JSON_DEPTH deep. */
/** The deepest a query may nest: a request body may nest deeper (MAX_JSON_DEPTH), a query not (QUERY_LIMITS). */
const QUERY_DEPTH = Math.min(MAX_JSON_DEPTH, QUERY_LIMITS.maxDepth);

function deepButAccepted(kind: '$not' | '$and' | 'cast'): Json {
  let c: Json = { $eq: [{ $field: '$cd#idShort' }, { $strVal: 'Width' }] };
  let query: Json = { $condition: c };
  for (;;) {
    const deeper = kind === '$not' ? { $not: c } : kind === '$and' ? { $and: [c, { $boolean: true }] } : { $eq: [{ $strCast: c.$eq ? (c.$eq as Json[])[0] : c }, { $strVal: 'Width' }] };
    if (nestsDeeperThan({ $condition: deeper }, QUERY_DEPTH)) return query;
    c = deeper;
    query = { $condition: c };
  }
}

describe(`query language: no 500 (seed ${SEED}; QUERY_SEED=<n> to change)`, () => {
  it(`${VALID} random valid queries run without error, and C and $not C never both hold`, async () => {
    const failures = (await validOutcomes()).filter((o) => o.problem || o.error);
    expect(failures.map(describeOutcome), `seed ${SEED}`).toEqual([]);
  });

  // A constant that does not cast, as second operand, once left the first operand's parameters in the
  // statement, which PostgreSQL refused ("bind message supplies N parameters ...").
  it('no valid query leaves parameters its SQL does not use', async () => {
    const orphaned = (await validOutcomes()).filter((o) => o.error && ORPHANED_PARAMETER.test(o.error.message));
    expect(orphaned.map(describeOutcome), `seed ${SEED}`).toEqual([]);
  });

  it('the deepest queries a request may carry run without error; a deep chain of casts is a 400', async () => {
    for (const kind of ['$not', '$and'] as const) {
      const query = deepButAccepted(kind);
      expect(nestsDeeperThan(query, QUERY_DEPTH - 3), kind).toBe(true);
      const ids = await runQuery(server.dataSource, tenant.id, 'conceptDescriptions', query);
      expect(ids.every((id) => ALL.conceptDescriptions.has(id)), kind).toBe(true);
      // One level more is a 400 naming the limit, never an error of the database or a stack overflow.
      const deeper = { $condition: { $not: (query as { $condition: Json }).$condition } };
      expect(nestsDeeperThan(deeper, QUERY_DEPTH), kind).toBe(true);
      expect(() => parseQuery(deeper), kind).toThrow(/nests at most/);
    }
    const casts = deepButAccepted('cast');
    expect(nestsDeeperThan(casts, QUERY_DEPTH - 3)).toBe(true);
    expect(() => parseQuery(casts)).toThrow(/casts nest at most 4 deep/);
  });

  it('a chain of 20 casts over a field is refused with 400 (the SQL text grew 7-fold per two casts: RangeError)', () => {
    let v: unknown = { $field: '$cd#id' };
    for (let i = 0; i < 20; i++) v = i % 2 ? { $strCast: v } : { $dateTimeCast: v };
    let error: unknown;
    try {
      const sql = toSql(parseQuery({ $condition: { $eq: [v, { $strVal: 'x' }] } }), 'conceptDescriptions');
      expect(sql.where.length).toBeLessThan(100_000);
    } catch (e) {
      error = e;
    }
    if (error !== undefined) expect(error).toBeInstanceOf(AppError);
  });

  // Before submodel elements had rows of their own, this was an SQL error ("JSON object does not contain key
  // submodelElements": the strict path over the document).
  it('$sme conditions over a tenant with a submodel without elements are no SQL error', async () => {
    const bare = await server.createTenant();
    await server.services.submodels.create(bare, { modelType: 'Submodel', id: 'urn:c:sm:empty', idShort: 'Empty' });
    await server.services.submodels.create(bare, SUBMODELS[0]);
    expect(await runQuery(server.dataSource, bare.id, 'submodels', { $condition: { $eq: [{ $field: '$sme#valueType' }, { $strVal: 'xs:int' }] } })).toEqual([SUBMODELS[0].id]);
    expect(await runQuery(server.dataSource, bare.id, 'submodels', { $condition: { $not: { $eq: [{ $field: '$sme#valueType' }, { $strVal: 'xs:int' }] } } })).toEqual([]);
  });

  // U+0000 is a valid JSON string character, but PostgreSQL text cannot hold it; the random strings leave it out.
  it('a string literal with U+0000 is answered or refused with 400 (it was an SQL error "invalid byte sequence for encoding UTF8: 0x00")', async () => {
    let error: unknown;
    try {
      await runQuery(server.dataSource, tenant.id, 'conceptDescriptions', { $condition: { $eq: [{ $field: '$cd#idShort' }, { $strVal: 'a\u0000b' }] } });
    } catch (e) {
      error = e;
    }
    if (error !== undefined) expect(error).toBeInstanceOf(AppError);
  });

  it('parseQuery refuses nesting far deeper than a request may carry with 400 (it was a RangeError, stack overflow)', () => {
    let c: Json = { $eq: [{ $field: '$cd#id' }, { $strVal: 'x' }] };
    for (let i = 0; i < 20_000; i++) c = { $not: c };
    expect(() => parseQuery({ $condition: c })).toThrow(AppError);
  });

  it(`${INVALID} random invalid queries are refused with 400 and a message`, () => {
    const failures: string[] = [];
    const kinds = new Set<string>();
    for (let i = 0; i < INVALID; i++) {
      const { target, query, kind } = invalidQuery(SEED + i);
      kinds.add(kind);
      // Nesting deeper than MAX_JSON_DEPTH never reaches parseQuery: the request layers answer 400 (REST body,
      // GraphQL variables). parseQuery's own behaviour on it is the test above.
      if (nestsDeeperThan(query, MAX_JSON_DEPTH)) continue;
      try {
        toSql(parseQuery(query), target);
        failures.push(`#${i} (seed ${SEED + i}) ${kind}: accepted; ${show(query)}`);
      } catch (e) {
        const ok =
          e instanceof AppError &&
          statusOfCode(e.extensions.code) === 400 &&
          typeof e.message === 'string' &&
          e.message.length > 0 &&
          Array.isArray(e.extensions.messages) &&
          (e.extensions.messages as unknown[]).length > 0;
        if (!ok) failures.push(`#${i} (seed ${SEED + i}) ${kind}: ${(e as Error)?.constructor?.name}: ${(e as Error)?.message}; ${show(query)}`);
      }
    }
    expect(failures, `seed ${SEED}`).toEqual([]);
    // The generator reaches (nearly) every kind of invalid query.
    expect(kinds.size).toBeGreaterThanOrEqual(28);
  });
});
