import type autocannon from 'autocannon';
import pg from 'pg';
import type { CannedResponse } from './bare-server';
import type { Row, Target } from './run';

/**
 * The large-submodel part of `npm run bench`: one submodel of 10,000 elements, read whole, read one element
 * by a deep idShortPath, and one Property's value patched, beside the same patch on a 10-element submodel.
 *
 * The big submodel, "OperationalData", is 100 collections `Coll00` .. `Coll99` of 100 elements each
 * (the collection itself counted):
 *   - `Prop0` .. `Prop79`: Properties, value types rotating xs:string, xs:int, xs:double, xs:boolean,
 *     xs:dateTime, each with an ECLASS-style semanticId;
 *   - `Text0` .. `Text4`: MultiLanguageProperties (en, de);
 *   - `Range0` .. `Range3`: Ranges of xs:double;
 *   - `Sub`: a nested collection of `Prop0` .. `Prop8`, Properties as above.
 * 100 x (1 + 80 + 5 + 4 + 1 + 9) = 10,000 elements. The deep path is `Coll42.Sub.Prop7`, an xs:double.
 * The small submodel has the same path and nothing else: `Coll42` > `Sub` > `Prop0` .. `Prop7` (10 elements).
 * The patches alternate the value between two numbers of the stored text's length, so the document keeps
 * its size; the run checks it did.
 */

/** What run.ts lends: its server, its measuring and its baseline. */
export interface BenchKit {
  server: Target;
  /** `/tenants/default/api/v3.0` */
  apiPath: string;
  measure(name: string, target: Target, request: autocannon.Request): Promise<Row>;
  startBareServer(canned: CannedResponse): Promise<Target>;
  canned(res: Response): Promise<CannedResponse>;
  printTable(rows: Row[], ratio: { header: string; of: (row: Row) => string }): void;
  /** The server's database, for (e). */
  databaseUrl?: string;
}

const COLLECTIONS = 100;
const DEEP_PATH = 'Coll42.Sub.Prop7';
const PATCH_VALUES = [21.5, 22.5];
const VALUE_TYPES = ['xs:string', 'xs:int', 'xs:double', 'xs:boolean', 'xs:dateTime'] as const;

type Json = Record<string, unknown>;

const globalRef = (value: string) => ({ type: 'ExternalReference', keys: [{ type: 'GlobalReference', value }] });
const irdi = (n: number) => `0173-1#02-AA${String(n % 100_000).padStart(5, '0')}#005`;

function sampleValue(valueType: (typeof VALUE_TYPES)[number], n: number): string {
  switch (valueType) {
    case 'xs:string':
      return `Value ${n} of the operating record`;
    case 'xs:int':
      return String((n * 37) % 10_000);
    case 'xs:double':
      // Always dd.d, the same length as the patched values.
      return `${10 + (n % 90)}.${n % 10}`;
    case 'xs:boolean':
      return n % 2 ? 'true' : 'false';
    case 'xs:dateTime':
      return `2024-${String((n % 12) + 1).padStart(2, '0')}-${String((n % 28) + 1).padStart(2, '0')}T08:${String(n % 60).padStart(2, '0')}:00Z`;
  }
}

function property(idShort: string, i: number, n: number): Json {
  const valueType = VALUE_TYPES[i % VALUE_TYPES.length];
  return { modelType: 'Property', idShort, semanticId: globalRef(irdi(n)), valueType, value: sampleValue(valueType, n) };
}

const collection = (idShort: string, value: Json[]): Json => ({ modelType: 'SubmodelElementCollection', idShort, value });

function bigCollection(c: number): Json {
  const n = c * 100;
  const props = Array.from({ length: 80 }, (_, i) => property(`Prop${i}`, i, n + i));
  const texts = Array.from({ length: 5 }, (_, i) => ({
    modelType: 'MultiLanguageProperty',
    idShort: `Text${i}`,
    value: [
      { language: 'en', text: `Operating note ${i} of unit ${c}` },
      { language: 'de', text: `Betriebshinweis ${i} der Einheit ${c}` },
    ],
  }));
  const ranges = Array.from({ length: 4 }, (_, i) => ({ modelType: 'Range', idShort: `Range${i}`, valueType: 'xs:double', min: `${i}.5`, max: `${i + 10}.5` }));
  const sub = collection('Sub', Array.from({ length: 9 }, (_, i) => property(`Prop${i}`, i, n + 80 + i)));
  return collection(`Coll${String(c).padStart(2, '0')}`, [...props, ...texts, ...ranges, sub]);
}

const submodel = (id: string, idShort: string, elements: Json[]): Json => ({
  modelType: 'Submodel',
  id,
  idShort,
  kind: 'Instance',
  semanticId: globalRef('https://bench.example.com/sm/OperationalData/1/0'),
  submodelElements: elements,
});

export const bigSubmodel = (run: string): Json =>
  submodel(`https://bench.example.com/ids/sm/${run}/big`, 'OperationalData', Array.from({ length: COLLECTIONS }, (_, c) => bigCollection(c)));

export const smallSubmodel = (run: string): Json =>
  submodel(`https://bench.example.com/ids/sm/${run}/small`, 'OperationalDataSmall', [
    collection('Coll42', [collection('Sub', Array.from({ length: 8 }, (_, i) => property(`Prop${i}`, i, 4280 + i)))]),
  ]);

/** Elements in a tree, the collections themselves counted. */
function countElements(elements: unknown): number {
  if (!Array.isArray(elements)) return 0;
  return (elements as Json[]).reduce((sum, e) => sum + 1 + (e.modelType === 'SubmodelElementCollection' ? countElements(e.value) : 0), 0);
}

async function expectStatus(res: Response, status: number, what: string): Promise<Response> {
  if (res.status !== status) throw new Error(`${what}: ${res.status}, expected ${status}: ${(await res.text()).slice(0, 500)}`);
  return res;
}

/** Measures (a)-(d); returns the rows (for run.ts's failure check). */
export async function benchSubmodels(kit: BenchKit, run: string): Promise<Row[]> {
  const { server, apiPath, measure } = kit;
  const post = async (doc: Json) => {
    const started = Date.now();
    const body = JSON.stringify(doc);
    await expectStatus(await fetch(`${server.url}${apiPath}/submodels`, { method: 'POST', headers: { 'content-type': 'application/json' }, body }), 201, `POST submodel ${String(doc.id)}`);
    return { path: `${apiPath}/submodels/${Buffer.from(doc.id as string).toString('base64url')}`, bytes: body.length, ms: Date.now() - started };
  };
  const big = await post(bigSubmodel(run));
  const small = await post(smallSubmodel(run));
  console.log(`\nloaded a submodel of ${countElements(bigSubmodel(run).submodelElements)} elements (${big.bytes} bytes) in ${(big.ms / 1000).toFixed(1)} s; the small one has ${countElements(smallSubmodel(run).submodelElements)}`);

  const get = (path: string) => fetch(`${server.url}${path}`);
  const wholePath = big.path;
  const deepPath = `${big.path}/submodel-elements/${DEEP_PATH}`;
  const patchPath = (base: string) => `${base}/submodel-elements/${DEEP_PATH}/$value`;

  // The answers are what they should be before they are measured.
  const whole = await kit.canned(await expectStatus(await get(wholePath), 200, 'GET the big submodel'));
  const wholeBody = Buffer.from(whole.body, 'base64');
  const wholeCount = countElements((JSON.parse(wholeBody.toString('utf8')) as Json).submodelElements);
  if (wholeCount !== 10_000) throw new Error(`GET the big submodel: ${wholeCount} elements, not 10000`);
  const deep = await kit.canned(await expectStatus(await get(deepPath), 200, `GET ${DEEP_PATH}`));
  const deepBody = Buffer.from(deep.body, 'base64');
  const deepElement = JSON.parse(deepBody.toString('utf8')) as Json;
  if (deepElement.idShort !== 'Prop7' || deepElement.valueType !== 'xs:double') throw new Error(`GET ${DEEP_PATH}: ${deepBody.toString('utf8')}`);
  for (const base of [big.path, small.path]) {
    const body = JSON.stringify(PATCH_VALUES[0]);
    await expectStatus(await fetch(`${server.url}${patchPath(base)}`, { method: 'PATCH', headers: { 'content-type': 'application/json' }, body }), 204, `PATCH ${patchPath(base)}`);
    const after = (await (await expectStatus(await get(`${base}/submodel-elements/${DEEP_PATH}`), 200, 'GET after PATCH')).json()) as Json;
    if (after.value !== String(PATCH_VALUES[0])) throw new Error(`PATCH ${patchPath(base)} did not take: value ${String(after.value)}`);
  }

  /** PATCHes that alternate between the two values: the document neither grows nor stays byte-identical. */
  const patching = (base: string): autocannon.Request => {
    let next = 0;
    return {
      method: 'PATCH',
      path: patchPath(base),
      headers: { 'content-type': 'application/json' },
      setupRequest: (req) => ({ ...req, body: JSON.stringify(PATCH_VALUES[next++ % PATCH_VALUES.length]) }),
    };
  };

  const a = await measure('(a) GET submodel, 10,000 elements', server, { method: 'GET', path: wholePath });
  const bareA = await measure('    bare node:http, same bytes as (a)', await kit.startBareServer(whole), { method: 'GET', path: wholePath });
  const b = await measure(`(b) GET element ${DEEP_PATH}`, server, { method: 'GET', path: deepPath });
  const bareB = await measure('    bare node:http, same bytes as (b)', await kit.startBareServer(deep), { method: 'GET', path: deepPath });
  const c = await measure('(c) PATCH $value, 10,000 elements', server, patching(big.path));
  const d = await measure('(d) PATCH $value, 10 elements', server, patching(small.path));

  const sizeAfter = (await (await expectStatus(await get(wholePath), 200, 'GET the big submodel after the PATCHes')).arrayBuffer()).byteLength;
  if (sizeAfter !== wholeBody.length) throw new Error(`the big submodel changed size under the PATCHes: ${wholeBody.length} -> ${sizeAfter} bytes`);

  const ratios = new Map<Row, string>([
    [a, `${(a.reqPerSec / bareA.reqPerSec).toFixed(3)} of bare`],
    [b, `${(b.reqPerSec / bareB.reqPerSec).toFixed(3)} of bare`],
    [c, `${(c.reqPerSec / d.reqPerSec).toFixed(3)} of (d)`],
  ]);
  const rows = [a, bareA, b, bareB, c, d];
  kit.printTable(rows, { header: 'ratio', of: (row) => ratios.get(row) ?? '' });
  console.log(`CPU µs/req: the server's process alone${process.env.DATABASE_URL ? ' (PostgreSQL\'s own work not included)' : ', the embedded database included'}.`);
  const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
  console.log(`\n(a) GET whole submodel: ${pct(a.reqPerSec / bareA.reqPerSec)} of bare req/s; p50 ${(a.p50 / bareA.p50).toFixed(1)}x bare's`);
  console.log(`(b) GET ${DEEP_PATH}: ${pct(b.reqPerSec / bareB.reqPerSec)} of bare req/s; p50 ${(b.p50 / bareB.p50).toFixed(1)}x bare's`);
  console.log(`(c)/(d) PATCH $value, 10,000 vs 10 elements: ${(c.reqPerSec / d.reqPerSec).toFixed(3)} of the throughput (${(d.reqPerSec / c.reqPerSec).toFixed(1)}x slower); p50 ${(c.p50 / d.p50).toFixed(1)}x`);
  console.log(`(responses: (a) ${wholeBody.length} bytes, (b) ${deepBody.length} bytes; the big submodel's size is unchanged after the PATCHes)`);
  if (kit.databaseUrl) await foreignKeyCost(kit, kit.databaseUrl, run);
  return rows;
}

const ELEMENTS_KEY = 'submodel_elements_submodel_fkey';
const KEY_ROUNDS = 5;
/** The mechanism the foreign key replaced: a statement-level trigger on submodels that deletes their rows. */
const TRIGGER = [
  `CREATE FUNCTION bench_delete_element_rows() RETURNS trigger LANGUAGE plpgsql AS $fn$
    BEGIN
      DELETE FROM submodel_elements e USING gone WHERE e.tenant_id = gone.tenant_id AND e.submodel_seq = gone.seq;
      RETURN NULL;
    END $fn$`,
  `CREATE TRIGGER bench_delete_element_rows AFTER DELETE ON submodels
    REFERENCING OLD TABLE AS gone FOR EACH STATEMENT EXECUTE FUNCTION bench_delete_element_rows()`,
];

/**
 * (e) What the element rows' foreign key to their submodel costs (it deletes them with their submodel; a distributed
 * database refuses the trigger that did so before): POST and DELETE of a 10,000-element submodel, one at a time, in
 * rounds that alternate the key with the trigger, swapped in for the measurement (the key is back at the end).
 */
async function foreignKeyCost(kit: BenchKit, databaseUrl: string, run: string): Promise<void> {
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  const times = { with: { post: [] as number[], del: [] as number[] }, without: { post: [] as number[], del: [] as number[] } };
  try {
    for (let round = 0; round < KEY_ROUNDS * 2; round++) {
      const keyed = round % 2 === 0;
      if (!keyed) {
        await db.query(`ALTER TABLE submodel_elements DROP CONSTRAINT ${ELEMENTS_KEY}`);
        for (const statement of TRIGGER) await db.query(statement);
      }
      try {
        const doc = { ...bigSubmodel(run), id: `urn:bench:keys:${run}:${round}` };
        const body = JSON.stringify(doc);
        const path = `${kit.apiPath}/submodels/${Buffer.from(doc.id).toString('base64url')}`;
        let started = performance.now();
        await expectStatus(await fetch(`${kit.server.url}${kit.apiPath}/submodels`, { method: 'POST', headers: { 'content-type': 'application/json' }, body }), 201, 'POST for (e)');
        times[keyed ? 'with' : 'without'].post.push(performance.now() - started);
        started = performance.now();
        await expectStatus(await fetch(`${kit.server.url}${path}`, { method: 'DELETE' }), 204, 'DELETE for (e)');
        times[keyed ? 'with' : 'without'].del.push(performance.now() - started);
      } finally {
        if (!keyed) {
          await db.query('DROP TRIGGER bench_delete_element_rows ON submodels');
          await db.query('DROP FUNCTION bench_delete_element_rows()');
          await db.query(`ALTER TABLE submodel_elements ADD CONSTRAINT ${ELEMENTS_KEY}
            FOREIGN KEY (tenant_id, submodel_seq) REFERENCES submodels (tenant_id, seq) ON DELETE CASCADE`);
        }
      }
    }
  } finally {
    await db.end();
  }
  const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)];
  const line = (what: string, key: 'post' | 'del') => {
    const [withKey, without] = [median(times.with[key]), median(times.without[key])];
    console.log(`  ${what}: ${withKey.toFixed(0)} ms with the key, ${without.toFixed(0)} ms with the trigger: ${(withKey / without).toFixed(2)}x`);
  };
  console.log(`\n(e) the element rows' foreign key to their submodel, 10,000 elements, median of ${KEY_ROUNDS} alternating rounds:`);
  line('POST submodel', 'post');
  line('DELETE submodel', 'del');
}
