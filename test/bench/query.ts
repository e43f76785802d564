import autocannon from 'autocannon';
import pg from 'pg';
import { parseQuery } from '../../src/aas/query/parse';
import { toSql } from '../../src/aas/query/sql';
import { keysetQuery } from '../../src/aas/store/identifiable-store';
import { Classification, Json, prop, technicalData } from '../support/technical-data';
import type { CannedResponse } from './bare-server';
import type { Row, Target } from './run';

/**
 * The AAS Query Language at scale (`BENCH_ONLY=query`): 100,000 Technical Data submodels (QUERY_BENCH_SUBMODELS)
 * in the default tenant, posted through the REST API, then `POST /query/submodels?limit=100` with
 *   - equality on a semanticId-addressed property, `$match` of `$sme#semanticId $eq` MaxPressure's semanticId and
 *     `$sme#value $eq`: 16 bar (few submodels) and 10 bar (a quarter of them);
 *   - a range on the same property, `$ge 16` and `$lt 17` (few);
 *   - `$regex` on the submodel's idShort (`^TechnicalData_0012`: 100 submodels) and on a string property addressed
 *     by path (`$sme.GeneralInformation.ManufacturerArticleNumber#value`, `^A-0012`: 100 submodels),
 * each answering documents and, with `$select: "id"`, identifiers. The answers are checked against the sets the
 * generator implies before anything is timed. Beside the figures, the EXPLAIN (ANALYZE, BUFFERS) of the statement the
 * query service runs for each (the same translation: parseQuery, toSql, keysetQuery; QueryService.page), with a
 * PASS/FAIL line: an index on submodel_elements or submodels, and no sequential scan of submodel_elements.
 * Measured right after the load (the server of this machine runs no autovacuum; PGlite never does) and after
 * `VACUUM ANALYZE` of submodels and submodel_elements.
 *
 * Submodel `n` (a generator seeded by n, so the run can compute its answers): idShort `TechnicalData_{n:6}`,
 * ManufacturerName one of 20, ManufacturerArticleNumber `A-{n:6}`, one or two ProductClassifications (ECLASS, ETIM),
 * TechnicalProperties of 10..20 Properties with ECLASS-style semanticIds (MaxPressure always, xs:double in bar: 10
 * for a quarter, else 0.5..1000.0 in steps of 0.1; the others drawn from a catalogue of xs:double, xs:int,
 * xs:string, xs:boolean and xs:date properties), FurtherInformation with ValidDate. About 31 element rows each.
 */

export interface QueryBenchKit {
  server: Target;
  /** `/tenants/default/api/v3.0` */
  apiPath: string;
  measure(name: string, target: Target, request: autocannon.Request, connections?: number): Promise<Row>;
  startBareServer(canned: CannedResponse): Promise<Target>;
  canned(res: Response): Promise<CannedResponse>;
  printTable(rows: Row[], ratio: { header: string; of: (row: Row) => string }): void;
  /** Where the server's database answers (benchDatabaseUrl). */
  databaseUrl: string;
}

const SUBMODELS = Number(process.env.QUERY_BENCH_SUBMODELS ?? 100_000);
if (!Number.isInteger(SUBMODELS) || SUBMODELS < 1 || SUBMODELS > 999_999) throw new Error(`QUERY_BENCH_SUBMODELS takes 1..999999, got '${process.env.QUERY_BENCH_SUBMODELS}'`);
const LOAD_CONNECTIONS = 16;
const CONNECTIONS = 10;
const LIMIT = 100;

/** MaxPressure's semanticId (ECLASS-style IRDI; the bench's own, distinct from other parts' semanticIds). */
const MAX_PRESSURE = '0173-1#02-BAA120#008';
const COMMON_PRESSURE = 10;

/** The catalogue TechnicalProperties draw from besides MaxPressure: idShort, semanticId, value type, value maker. */
type Draw = () => number;
const CATALOGUE: [string, string, string, (r: Draw) => string][] = [
  ['MinPressure', '0173-1#02-BAA121#005', 'xs:double', (r) => (r() * 10).toFixed(1)],
  ['NominalFlowRate', '0173-1#02-BAB302#004', 'xs:double', (r) => (r() * 500).toFixed(2)],
  ['MaxFlowRate', '0173-1#02-BAB303#004', 'xs:double', (r) => (r() * 900).toFixed(2)],
  ['MaxFluidTemperature', '0173-1#02-BAC104#006', 'xs:int', (r) => String(Math.floor(r() * 200) - 20)],
  ['MinFluidTemperature', '0173-1#02-BAC105#006', 'xs:int', (r) => String(Math.floor(r() * 40) - 40)],
  ['Weight', '0173-1#02-AAS627#003', 'xs:double', (r) => (r() * 250).toFixed(3)],
  ['RatedPower', '0173-1#02-BAE410#007', 'xs:double', (r) => (r() * 15000).toFixed(0)],
  ['RatedVoltage', '0173-1#02-BAE411#007', 'xs:int', (r) => String([24, 110, 230, 400, 690][Math.floor(r() * 5)])],
  ['RatedSpeed', '0173-1#02-BAE412#004', 'xs:int', (r) => String(Math.floor(r() * 3600))],
  ['Efficiency', '0173-1#02-BAF213#002', 'xs:double', (r) => (0.4 + r() * 0.55).toFixed(3)],
  ['ProtectionClass', '0173-1#02-BAG301#003', 'xs:string', (r) => ['IP44', 'IP54', 'IP55', 'IP65', 'IP67', 'IP68'][Math.floor(r() * 6)]],
  ['HousingMaterial', '0173-1#02-BAG302#003', 'xs:string', (r) => ['cast iron', 'stainless steel 1.4301', 'stainless steel 1.4408', 'bronze', 'PVDF', 'PP'][Math.floor(r() * 6)]],
  ['SealType', '0173-1#02-BAG303#002', 'xs:string', (r) => ['mechanical seal', 'packing', 'magnetic drive', 'lip seal'][Math.floor(r() * 4)]],
  ['ExplosionProtected', '0173-1#02-BAH001#001', 'xs:boolean', (r) => (r() < 0.2 ? 'true' : 'false')],
  ['SelfPriming', '0173-1#02-BAH002#001', 'xs:boolean', (r) => (r() < 0.5 ? 'true' : 'false')],
  ['NPSHRequired', '0173-1#02-BAH110#003', 'xs:double', (r) => (r() * 12).toFixed(2)],
  ['Head', '0173-1#02-BAH111#003', 'xs:double', (r) => (r() * 300).toFixed(1)],
  ['InletDiameter', '0173-1#02-BAH112#004', 'xs:int', (r) => String([25, 32, 40, 50, 65, 80, 100, 125, 150][Math.floor(r() * 9)])],
  ['OutletDiameter', '0173-1#02-BAH113#004', 'xs:int', (r) => String([25, 32, 40, 50, 65, 80, 100][Math.floor(r() * 7)])],
  ['NoiseLevel', '0173-1#02-BAH120#002', 'xs:double', (r) => (40 + r() * 50).toFixed(1)],
  ['CertificationDate', '0173-1#02-BAH130#001', 'xs:date', (r) => `20${10 + Math.floor(r() * 15)}-0${1 + Math.floor(r() * 9)}-1${Math.floor(r() * 9)}`],
  ['ModelYear', '0173-1#02-BAH131#001', 'xs:int', (r) => String(2005 + Math.floor(r() * 20))],
  ['Colour', '0173-1#02-BAH132#001', 'xs:string', (r) => ['RAL 5015', 'RAL 7035', 'RAL 3000', 'RAL 6018'][Math.floor(r() * 4)]],
];
const MANUFACTURERS = ['ACME', 'Borealis Pumps', 'Cerulean Fluidics', 'Dornier Hydraulik', 'Elbe Pumpenwerk', 'Fjord Flow', 'Gantry Systems', 'Helix Motion', 'Isar Technik', 'Jura Valves', 'Kestrel', 'Lumen Process', 'Main Aggregate', 'Nordwind', 'Oder Fluid', 'Pioneer Pumps', 'Quell GmbH', 'Rhein Rotor', 'Saale Systems', 'Tauber Technik'];
const CLASSIFICATIONS: Classification[] = [
  ['ECLASS', '13.0', '36-41-01-01'],
  ['ECLASS', '13.0', '36-41-01-02'],
  ['ETIM', '9.0', 'EC000123'],
];

/** mulberry32: a small seeded generator, so that submodel n is the same in every run and its answers known. */
function generator(seed: number): Draw {
  let a = (seed * 2654435761) >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const pad = (n: number) => String(n).padStart(6, '0');
const submodelId = (run: string, n: number) => `urn:bench:query:${run}:sm:${pad(n)}`;

/** MaxPressure of submodel n, in bar (the first draw of its generator). */
function maxPressure(n: number, r = generator(n)): number {
  return r() < 0.25 ? COMMON_PRESSURE : (5 + Math.floor(r() * 9996)) / 10;
}

export function sampleTechnicalData(run: string, n: number): Json {
  const r = generator(n);
  const pressure = maxPressure(n, r);
  const count = 9 + Math.floor(r() * 11);
  const picked = [...CATALOGUE].sort(() => r() - 0.5).slice(0, count);
  const properties = [prop('MaxPressure', MAX_PRESSURE, String(pressure), 'xs:double'), ...picked.map(([idShort, semanticId, valueType, value]) => prop(idShort, semanticId, value(r), valueType))];
  const classifications = CLASSIFICATIONS.filter(() => r() < 0.6).slice(0, 2);
  if (!classifications.length) classifications.push(CLASSIFICATIONS[0]);
  return technicalData(submodelId(run, n), MANUFACTURERS[Math.floor(r() * MANUFACTURERS.length)], classifications, properties, {
    idShort: `TechnicalData_${pad(n)}`,
    articleNumber: `A-${pad(n)}`,
    orderCode: `O-${pad(n)}-${Math.floor(r() * 100)}`,
    designation: `Centrifugal pump ${Math.floor(r() * 900) + 100}`,
    validDate: `2024-0${1 + Math.floor(r() * 9)}-15`,
  });
}

const f = (field: string) => ({ $field: field });
const s = (value: string) => ({ $strVal: value });
const num = (value: number) => ({ $numVal: value });
const isPressure = { $eq: [f('$sme#semanticId'), s(MAX_PRESSURE)] };

interface BenchQuery {
  name: string;
  condition: Json;
  /** Which submodels answer it. */
  matches: (n: number) => boolean;
}

const QUERIES: BenchQuery[] = [
  { name: 'eq 16 bar (few)', condition: { $match: [isPressure, { $eq: [f('$sme#value'), num(16)] }] }, matches: (n) => maxPressure(n) === 16 },
  { name: `eq ${COMMON_PRESSURE} bar (1/4)`, condition: { $match: [isPressure, { $eq: [f('$sme#value'), num(COMMON_PRESSURE)] }] }, matches: (n) => maxPressure(n) === COMMON_PRESSURE },
  {
    name: 'range [16, 17) bar',
    condition: { $match: [isPressure, { $ge: [f('$sme#value'), num(16)] }, { $lt: [f('$sme#value'), num(17)] }] },
    matches: (n) => maxPressure(n) >= 16 && maxPressure(n) < 17,
  },
  { name: '$sm#idShort $regex', condition: { $regex: [f('$sm#idShort'), s('^TechnicalData_0012')] }, matches: (n) => pad(n).startsWith('0012') },
  {
    name: '$sme.<path>#value $regex',
    condition: { $regex: [f('$sme.GeneralInformation.ManufacturerArticleNumber#value'), s('^A-0012')] },
    matches: (n) => pad(n).startsWith('0012'),
  },
];

/** The statement QueryService.page runs for a first page (its parameters: tenant, limit + 1, the condition's). */
function pageStatement(body: Json, tenantId: string): { sql: string; params: unknown[] } {
  const keyset = keysetQuery('query:submodels', [['d.tenant_id = ?', tenantId]], [], LIMIT, undefined);
  const condition = toSql(parseQuery(body), 'submodels', { doc: 'd.doc', firstParam: keyset.params.length + 1, row: 'd' });
  return {
    sql: `SELECT d.seq, d.id FROM ${condition.table} d WHERE ${keyset.where} AND (${condition.where}) ORDER BY d.seq LIMIT ${keyset.limitParam}`,
    params: [...keyset.params, ...condition.params],
  };
}

async function explain(db: pg.Client, statement: { sql: string; params: unknown[] }): Promise<string> {
  const rows = (await db.query(`EXPLAIN (ANALYZE, BUFFERS) ${statement.sql}`, statement.params)).rows as { 'QUERY PLAN': string }[];
  return rows.map((r) => r['QUERY PLAN']).join('\n');
}

/** The index scans a plan names, and the tables it reads sequentially. */
const indexesOf = (plan: string) => [...new Set([...plan.matchAll(/(?:Bitmap Index|Index(?: Only)?) Scan(?: Backward)? (?:using|on) (\w+)/g)].map((m) => m[1]))];
const seqScansOf = (plan: string) => [...new Set([...plan.matchAll(/Seq Scan on (\w+)/g)].map((m) => m[1]))];
/** The lines of a plan that say how rows were found: scans, conditions, rows removed, loops and the time. */
const planSummary = (plan: string) =>
  plan
    .split('\n')
    .filter((line) => /Scan|Cond|Filter|Rows Removed|Join|Loop|Limit|Execution Time/.test(line))
    .map((line) => `    ${line}`)
    .join('\n');
const INDEXED_TABLE = /^submodel/;
/** Pages a plan may read per row it answers (plus a fixed allowance): beyond it, an index is walked, not searched. */
const PAGES_PER_ROW = 20;
const PAGES_ALLOWANCE = 200;

/**
 * PASS: an index on submodel_elements or submodels, no sequential scan of submodel_elements, and at most
 * PAGES_PER_ROW pages (shared buffers hit or read, the plan's top node) per row answered, plus PAGES_ALLOWANCE:
 * a plan that reads a whole index (an Index Cond on the tenant alone, the rest a filter) fails although it names one.
 */
function verdict(plan: string): { pass: boolean; line: string } {
  const indexes = indexesOf(plan);
  const seq = seqScansOf(plan);
  // `rows=7` (PostgreSQL 15), `rows=7.00` (18, the embedded one).
  const rows = Math.round(Number(/rows=([\d.]+) loops=\d+\)/.exec(plan)?.[1] ?? 0));
  const top = /Buffers: shared((?: \w+=\d+)+)/.exec(plan)?.[1] ?? '';
  const pages = [...top.matchAll(/(?:hit|read)=(\d+)/g)].reduce((sum, m) => sum + Number(m[1]), 0);
  const bound = PAGES_PER_ROW * (rows + 1) + PAGES_ALLOWANCE;
  const pass = indexes.some((name) => INDEXED_TABLE.test(name)) && !seq.includes('submodel_elements') && pages <= bound;
  const removed = [...plan.matchAll(/Rows Removed by (?:Filter|Index Recheck): (\d+)/g)].reduce((sum, m) => sum + Number(m[1]), 0);
  const time = /Execution Time: ([\d.]+) ms/.exec(plan)?.[1] ?? '?';
  return {
    pass,
    line: `indexes ${indexes.join(', ') || 'none'}; seq scans ${seq.join(', ') || 'none'}; ${rows} rows, ${pages} pages read (at most ${bound}); rows removed by filters ${removed}; ${time} ms`,
  };
}

async function post(url: string, body: Json): Promise<{ status: number; json: { result?: unknown[]; paging_metadata?: { cursor?: string } } }> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: res.status, json: (await res.json()) as { result?: unknown[]; paging_metadata?: { cursor?: string } } };
}

/** Posts the submodels with many connections, then the ones that failed one at a time. */
async function load(kit: QueryBenchKit, run: string, db: pg.Client, tenantId: string): Promise<string> {
  const started = Date.now();
  let next = 0;
  const result = await autocannon({
    url: kit.server.url,
    connections: LOAD_CONNECTIONS,
    amount: SUBMODELS,
    timeout: 60,
    requests: [{ method: 'POST', path: `${kit.apiPath}/submodels`, headers: { 'content-type': 'application/json' }, setupRequest: (req) => ({ ...req, body: JSON.stringify(sampleTechnicalData(run, next++)) }) }],
  });
  const created = result.statusCodeStats['201']?.count ?? 0;
  let note = '';
  if (created < SUBMODELS) {
    const stored = new Set(
      ((await db.query('SELECT id FROM submodels WHERE tenant_id = $1 AND id LIKE $2', [tenantId, `urn:bench:query:${run}:%`])).rows as { id: string }[]).map((r) => r.id),
    );
    const missing = Array.from({ length: SUBMODELS }, (_, n) => n).filter((n) => !stored.has(submodelId(run, n)));
    note = `; ${missing.length} POSTs failed (status codes ${JSON.stringify(result.statusCodeStats)}), posted again one at a time`;
    for (const n of missing) {
      const res = await fetch(`${kit.server.url}${kit.apiPath}/submodels`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(sampleTechnicalData(run, n)) });
      if (res.status !== 201) throw new Error(`loading: POST submodel ${n}: ${res.status} ${(await res.text()).slice(0, 300)}`);
    }
  }
  const seconds = (Date.now() - started) / 1000;
  const rows = Number((await db.query('SELECT count(*) AS n FROM submodel_elements WHERE tenant_id = $1', [tenantId])).rows[0].n);
  const bytes = JSON.stringify(sampleTechnicalData(run, 0)).length;
  return `loaded ${SUBMODELS} submodels in ${seconds.toFixed(1)} s (${(SUBMODELS / seconds).toFixed(0)}/s, ${LOAD_CONNECTIONS} connections, ~${bytes} bytes each); the tenant has ${rows} element rows${note}`;
}

/** Every page of the identifiers a query answers. */
async function allIds(url: string, condition: Json): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | undefined;
  do {
    const res = await post(`${url}?limit=250${cursor ? `&cursor=${cursor}` : ''}`, { $select: 'id', $condition: condition });
    if (res.status !== 200) throw new Error(`query ${JSON.stringify(condition)}: ${res.status} ${JSON.stringify(res.json).slice(0, 300)}`);
    ids.push(...(res.json.result as string[]));
    cursor = res.json.paging_metadata?.cursor;
  } while (cursor);
  return ids;
}

/** The answers agree with the generator: all of them for few matches, the first page's for many. */
async function check(url: string, run: string, query: BenchQuery): Promise<number> {
  const expected = Array.from({ length: SUBMODELS }, (_, n) => n).filter(query.matches).map((n) => submodelId(run, n));
  if (expected.length > 1_000) {
    const page = await post(`${url}?limit=${LIMIT}`, { $select: 'id', $condition: query.condition });
    const ids = page.json.result as string[];
    const wanted = new Set(expected);
    if (page.status !== 200 || ids.length !== LIMIT || !ids.every((id) => wanted.has(id))) throw new Error(`query ${query.name}: the first page is not ${LIMIT} of the expected ${expected.length}`);
    return expected.length;
  }
  const ids = (await allIds(url, query.condition)).sort();
  if (JSON.stringify(ids) !== JSON.stringify(expected)) throw new Error(`query ${query.name}: ${ids.length} ids answered, ${expected.length} expected`);
  return expected.length;
}

export async function benchQuery(kit: QueryBenchKit, run: string): Promise<Row[]> {
  console.log(`\nquery language: POST /query/submodels?limit=${LIMIT} over ${SUBMODELS} Technical Data submodels, ${CONNECTIONS} connections`);
  const db = new pg.Client({ connectionString: kit.databaseUrl });
  await db.connect();
  const path = `${kit.apiPath}/query/submodels?limit=${LIMIT}`;
  const url = `${kit.server.url}${kit.apiPath}/query/submodels`;
  const request = (body: Json): autocannon.Request => ({ method: 'POST', path, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const rows: Row[] = [];
  const plans = new Map<string, { before: string; after: string }>();
  let bare: Row;
  try {
    const tenantId = (await db.query(`SELECT id FROM tenants WHERE name = 'default'`)).rows[0]?.id as string | undefined;
    if (!tenantId) throw new Error('no default tenant in the bench database');
    console.log(`  ${await load(kit, run, db, tenantId)}`);
    for (const query of QUERIES) console.log(`  ${query.name}: ${await check(url, run, query)} submodels match`);

    for (const query of QUERIES) plans.set(query.name, { before: await explain(db, pageStatement({ $condition: query.condition }, tenantId)), after: '' });
    for (const query of QUERIES) rows.push(await kit.measure(`${query.name}, before ANALYZE`, kit.server, request({ $condition: query.condition }), CONNECTIONS));

    const started = Date.now();
    await db.query('VACUUM ANALYZE submodels');
    await db.query('VACUUM ANALYZE submodel_elements');
    console.log(`  VACUUM ANALYZE submodels, submodel_elements: ${((Date.now() - started) / 1000).toFixed(1)} s`);
    for (const query of QUERIES) plans.get(query.name)!.after = await explain(db, pageStatement({ $condition: query.condition }, tenantId));
    for (const query of QUERIES) {
      rows.push(await kit.measure(query.name, kit.server, request({ $condition: query.condition }), CONNECTIONS));
      rows.push(await kit.measure(`${query.name}, $select id`, kit.server, request({ $select: 'id', $condition: query.condition }), CONNECTIONS));
    }
    // The baseline answers the bytes of the range query's documents (up to 100 submodels).
    const range = QUERIES[2];
    const canned = await kit.canned(await fetch(`${url}?limit=${LIMIT}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ $condition: range.condition }) }));
    console.log(`  (the range query's answer: ${Buffer.from(canned.body, 'base64').length} bytes)`);
    bare = await kit.measure('bare node:http, bytes of the range', await kit.startBareServer(canned), { method: 'GET', path }, CONNECTIONS);
    rows.push(bare);
  } finally {
    await db.end();
  }

  kit.printTable(rows, { header: 'vs bare', of: (r) => (r.reqPerSec / bare.reqPerSec).toFixed(3) });
  const failed: string[] = [];
  for (const query of QUERIES) {
    const { before, after } = plans.get(query.name)!;
    const statement = pageStatement({ $condition: query.condition }, '<tenant>');
    const a = verdict(after);
    const b = verdict(before);
    if (!a.pass) failed.push(query.name);
    console.log(`\n${query.name}: ${statement.sql}\n  params ${JSON.stringify(statement.params)}`);
    console.log(`  ${a.pass ? 'PASS' : 'FAIL'} after ANALYZE: ${a.line}\n${planSummary(after)}`);
    console.log(`  ${b.pass ? 'PASS' : 'FAIL'} right after the load: ${b.line}\n${planSummary(before)}`);
  }
  console.log(`\nquery plans: ${failed.length ? `FAIL (${failed.join('; ')}: no index on submodel_elements or submodels, a sequential scan of submodel_elements, or more than ${PAGES_PER_ROW} pages read per row answered + ${PAGES_ALLOWANCE})` : `PASS (each reads an index, none scans submodel_elements sequentially, none reads more than ${PAGES_PER_ROW} pages per row answered + ${PAGES_ALLOWANCE})`}`);
  return rows;
}
