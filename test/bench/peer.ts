import http from 'node:http';
import autocannon from 'autocannon';
import type { CannedResponse } from './bare-server';
import type { Measure, MeasureOptions, Row, Target } from './run';
import { printColumns } from './table';

/**
 * `npm run bench -- --peer URL`: the same workloads on this server and on another AAS server (the peer; URL is its
 * AAS API root, where `/shells` and `/submodels` are, e.g. `http://localhost:8081` for Eclipse BaSyx Java), side by
 * side in one run. The peer is measured once; this server on PostgreSQL (when DATABASE_URL is set, in a fresh
 * database of its own) and then on the embedded database (in a fresh directory), each started anew.
 *
 * Every side gets the same 1,000 shells and 1,000 submodels of 20 Properties (PEER_BENCH_COUNT changes the count),
 * a submodel of 10,000 Properties (flat), one of 10 and 16 more of 10, posted through the AAS API (ids carry the run's token, so a
 * peer that keeps data between runs takes them as new). Then, with 16 connections (as wrk -t2 -c16), 1 s of warm-up
 * and 5 s measured per row:
 *   - reads: `GET /shells/{id}` and `GET /submodels/{id}` rotating over all (after one unmeasured pass over all, which
 *     fills our read cache), the first page `GET /shells?limit=100`, each beside a bare Node server answering this
 *     server's bytes;
 *   - element writes by idShortPath in the 10,000- and the 10-element submodel, without warm-up: PUT of one Property
 *     (its value alternating), PATCH of it (`level=core`), PATCH of its value alone (`…/$value`), POST of a new
 *     Property at the top level (a new idShort
 *     each request; a row stops after POST_CAP, so the 10-element submodel stays small), DELETE of the Properties
 *     that POST created (one request each, however long that takes); after each row the server is given time to
 *     finish what the run left in flight;
 *   - `GET` of one element (rotating over all 10,000) of a 10,000-element submodel posted right before, nothing in
 *     between (no warm-up, no ANALYZE);
 *   - PUT of one Property with the 16 connections spread over 16 submodels of 10 (each request the next one in turn);
 *   - `POST /submodels` of a submodel of one Property and `POST /shells` of a small shell (a new id each request);
 *     `DELETE /submodels/{id}` of 2,000 submodels of one Property posted for it (one request each);
 *   - cold reads: `GET /shells/{id}` and `GET /submodels/{id}` again, this server restarted with its read cache off
 *     (READ_CACHE_SIZE=0), after one unmeasured pass over all ids (the database's pages read in again); the peer keeps everything in memory and caches nothing, so its reads above are its cold ones.
 * A verb the peer answers with 501 or 405 is reported as not supported and skipped there; this server must support
 * all. Every answer is checked once before it is measured, any failed request fails the run, and the goals are
 * printed beside the figures, met or missed.
 */

const PROPERTIES = 20;
const PEER_CONNECTIONS = 16;
const PAGE = 100;
const WARMUP_S = 1;
const DURATION_S = 5;
/** A slow write waits behind 15 others: no request counts as timed out before this. */
const WRITE_TIMEOUT_S = 120;
/** Element POSTs per row at most: the 10-element submodel grows to 10 + POST_CAP at most while it is measured. */
const POST_CAP = 500;
const SIZES = [10_000, 10] as const;
/** `$value`: PATCH of the element's value alone (`…/$value`, the value-only body: a Property's value as a JSON string). */
const VERBS = ['PUT', 'PATCH', '$value', 'POST', 'DELETE'] as const;
type Verb = (typeof VERBS)[number];
type Size = (typeof SIZES)[number];

type Json = Record<string, unknown>;

/** One of our server's instances: stopped between the cached and the uncached half, and between databases. */
export interface OurServer extends Target {
  stop(): Promise<void>;
  /** Resolves when the server (and its database) has finished what the last load left in flight. */
  settle(): Promise<void>;
}

/** A database to run our server on: `open` makes it fresh, `start` starts a server on it with more environment. */
export interface OurDatabase {
  name: string;
  open(): Promise<{ start(env: NodeJS.ProcessEnv): Promise<OurServer> }>;
}

export interface PeerKit {
  measure: Measure;
  startBareServer(canned: CannedResponse): Promise<Target>;
  canned(res: Response): Promise<CannedResponse>;
  databases: OurDatabase[];
  /** `/tenants/default/api/v3.0` */
  apiPath: string;
}

export function peerShell(run: string, n: number): Json {
  return {
    modelType: 'AssetAdministrationShell',
    id: `urn:bench:${run}:peer:shell:${n}`,
    idShort: `PeerShell${n}`,
    assetInformation: { assetKind: 'Instance', globalAssetId: `urn:bench:${run}:peer:asset:${n}` },
    submodels: [{ type: 'ModelReference', keys: [{ type: 'Submodel', value: `urn:bench:${run}:peer:submodel:${n}` }] }],
  };
}

export function peerSubmodel(run: string, n: number): Json {
  return {
    modelType: 'Submodel',
    id: `urn:bench:${run}:peer:submodel:${n}`,
    idShort: `PeerSubmodel${n}`,
    semanticId: { type: 'ExternalReference', keys: [{ type: 'GlobalReference', value: 'https://admin-shell.io/idta/bench/1/0' }] },
    submodelElements: Array.from({ length: PROPERTIES }, (_, i) => ({
      modelType: 'Property',
      idShort: `Property${i}`,
      valueType: i % 2 ? 'xs:double' : 'xs:string',
      value: i % 2 ? `${(n * 7 + i) % 1000}.5` : `value ${n}-${i}`,
    })),
  };
}

const intProperty = (idShort: string, value: number): Json => ({ modelType: 'Property', idShort, valueType: 'xs:int', value: String(value) });

/** A submodel of `size` Properties `Property0` .. at its top level, nothing nested (937 KB for 10,000). */
export const flatSubmodel = (id: string, size: number): Json => ({
  modelType: 'Submodel',
  id,
  idShort: `Flat${size}`,
  submodelElements: Array.from({ length: size }, (_, i) => intProperty(`Property${i}`, i)),
});

const b64 = (id: string) => Buffer.from(id, 'utf8').toString('base64url');
const json = { 'content-type': 'application/json' };

/** Posts `count` documents to `url` with `connections` at once; fails on any answer but 201. */
async function load(url: string, docs: Json[]): Promise<void> {
  let next = 0;
  const result = await autocannon({
    url,
    connections: 8,
    amount: docs.length,
    requests: [{ method: 'POST', headers: json, setupRequest: (req) => ({ ...req, body: JSON.stringify(docs[next++]) }) }],
  });
  const created = result.statusCodeStats['201']?.count ?? 0;
  if (created !== docs.length) throw new Error(`POST ${url}: ${created} of ${docs.length} created (status codes ${JSON.stringify(result.statusCodeStats)})`);
}

/** One POST with node:http, its body written in 32 KB slices 2 ms apart: the status, or the error. */
function pacedPost(url: string, body: Buffer): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: 'POST', agent: false, headers: { ...json, 'content-length': String(body.length) } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode!, text: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    const slice = 32 * 1024;
    const write = (offset: number) => {
      if (offset >= body.length) return void req.end();
      req.write(body.subarray(offset, offset + slice));
      setTimeout(() => write(offset + slice), 2);
    };
    write(0);
  });
}

/**
 * POSTs one large document. The peer's HTTP router (uWSGI's) resets a POST of more than its 64 KB buffer when the
 * body arrives at once: the body is sent in slices, sent again after a reset, and a 409 after a reset is taken as
 * created when the document can be read back.
 */
async function postDocument(url: string, doc: Json): Promise<void> {
  const body = Buffer.from(JSON.stringify(doc));
  let reset = false;
  for (let attempt = 1; ; attempt++) {
    const answer = await pacedPost(url, body).catch((err: Error) => {
      if (attempt >= 10) throw new Error(`POST ${url} ${String(doc.id)}: ${err.message}, ${attempt} times`);
      return undefined;
    });
    if (answer === undefined) {
      reset = true;
      await new Promise((resolve) => setTimeout(resolve, 200));
      continue;
    }
    if (answer.status === 201) return;
    if (answer.status === 409 && reset && (await fetch(`${url}/${b64(doc.id as string)}`)).status === 200) return;
    throw new Error(`POST ${url} ${String(doc.id)}: ${answer.status} ${answer.text.slice(0, 500)}`);
  }
}

async function expectStatus(res: Response, statuses: number[], what: string): Promise<Response> {
  if (!statuses.includes(res.status)) throw new Error(`${what}: ${res.status}, expected ${statuses.join(' or ')}: ${(await res.text()).slice(0, 500)}`);
  return res;
}

/** The server must answer what it was given: compared on the members both keep (servers may add defaults). */
async function check(url: string, expected: Json, keys: string[] = ['id', 'idShort']): Promise<void> {
  const body = (await (await expectStatus(await fetch(url), [200], `GET ${url}`)).json()) as Json;
  for (const key of keys) {
    if (body[key] !== expected[key]) throw new Error(`GET ${url}: ${key} is ${JSON.stringify(body[key])}, not ${JSON.stringify(expected[key])}`);
  }
}

function rotating(paths: string[]): autocannon.Request {
  let next = 0;
  return { method: 'GET', setupRequest: (req) => ({ ...req, path: paths[next++ % paths.length] }) };
}

/** A server's root split into the target autocannon calls and the path its AAS API is under. */
function rootOf(url: string): { origin: string; base: string } {
  const parsed = new URL(url);
  return { origin: parsed.origin, base: parsed.pathname.replace(/\/$/, '') };
}

/** One server under test: where its API is, and how to wait for it to finish abandoned work. */
interface Side {
  name: string;
  origin: string;
  base: string;
  target: Target;
  settle(): Promise<void>;
  /**
   * Broken connections are failures on our side; on the peer's they are counted here and tolerated (its HTTP router
   * closes the connection after each 204, and a request sent on it as it closes is reset or lost).
   */
  brokenConnections?: Map<string, number>;
}

/** kit.measure, with the peer's broken connections taken out of its failures and counted. */
async function measureOn(kit: PeerKit, side: Side, key: string, request: autocannon.Request, how: MeasureOptions): Promise<Row> {
  const row = await kit.measure(`${key} (${side.name})`, side.target, request, PEER_CONNECTIONS, how);
  if (!side.brokenConnections || !row.connectionErrors) return row;
  side.brokenConnections.set(key, row.connectionErrors);
  return { ...row, failures: row.failures - row.connectionErrors };
}

/** A measured row, or the status with which a server refused the verb. */
type Outcome = Row | { unsupported: number };
type Results = Map<string, Outcome>;

const HOT = [
  { key: 'GET /shells/{id}', paths: (base: string, d: Data) => d.shells.map((s) => `${base}/shells/${b64(s.id as string)}`) },
  { key: 'GET /submodels/{id}', paths: (base: string, d: Data) => d.submodels.map((s) => `${base}/submodels/${b64(s.id as string)}`) },
  { key: `GET /shells?limit=${PAGE}`, paths: (base: string) => [`${base}/shells?limit=${PAGE}`] },
];
const verbName = (verb: Verb) => (verb === '$value' ? 'PATCH $value' : verb);
const elementKey = (verb: Verb, size: Size) => `${verbName(verb)} element, ${size.toLocaleString('en')} elements`;
/** Submodels of 10 Properties that the 16 connections of `SPREAD_PUT` write, one after another in turn. */
const SPREAD = 16;
const SPREAD_PUT = `PUT element, ${SPREAD} submodels of 10 in turn`;
const POST_SHELLS = 'POST /shells';
const DELETE_SUBMODELS = 'DELETE /submodels/{id}';
/** Submodels of one Property posted for `DELETE_SUBMODELS` to delete, one request each. */
const DOOMED = 2_000;
const AFTER_POST = 'GET element right after POST of 10,000';
const POST_SUBMODELS = 'POST /submodels (1 Property)';
const coldKey = (key: string) => `${key} cold`;

interface Data {
  shells: Json[];
  submodels: Json[];
}

const spreadIds = (run: string) => Array.from({ length: SPREAD }, (_, i) => `urn:bench:${run}:peer:spread:${i}`);

/** Loads the shells, submodels, the two flat submodels and the `SPREAD` ones; checks they read back. */
async function loadSide(side: Side, run: string, data: Data): Promise<void> {
  const api = `${side.origin}${side.base}`;
  const started = Date.now();
  await load(`${api}/submodels`, data.submodels);
  await load(`${api}/shells`, data.shells);
  for (const size of SIZES) {
    await postDocument(`${api}/submodels`, flatSubmodel(`urn:bench:${run}:peer:flat:${size}`, size));
  }
  await load(`${api}/submodels`, spreadIds(run).map((id) => flatSubmodel(id, 10)));
  await side.settle();
  console.log(`${side.name}: loaded ${data.shells.length} shells, ${data.submodels.length} submodels of ${PROPERTIES} Properties and submodels of 10,000 and 10 Properties in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  await check(`${api}/shells/${b64(data.shells[0].id as string)}`, data.shells[0]);
  await check(`${api}/submodels/${b64(data.submodels[0].id as string)}`, data.submodels[0]);
}

/** The reads of `HOT` (with `cold`, their names say so). */
async function measureReads(kit: PeerKit, side: Side, data: Data, results: Results, cold: boolean): Promise<Row[]> {
  const rows: Row[] = [];
  for (const read of cold ? HOT.slice(0, 2) : HOT) {
    const key = cold ? coldKey(read.key) : read.key;
    const paths = read.paths(side.base, data);
    await expectStatus(await fetch(`${side.origin}${paths[0]}`), [200], `GET ${paths[0]}`);
    // One unmeasured pass over all first: cold, it reads the database's pages in after the restart (cold is our read
    // cache off, not those); cached, it fills our read cache, which a warm-up of one second does not on a slow machine.
    await autocannon({ url: side.origin, connections: Math.min(PEER_CONNECTIONS, paths.length), amount: paths.length, requests: [rotating(paths)] });
    const row = await measureOn(kit, side, key, rotating(paths), { warmupS: WARMUP_S, durationS: DURATION_S });
    results.set(key, row);
    rows.push(row);
  }
  return rows;
}

/** Bare Node servers answering our bytes of the reads of `HOT`. */
async function measureBare(kit: PeerKit, side: Side, data: Data, results: Results): Promise<Row[]> {
  const rows: Row[] = [];
  for (const read of HOT) {
    const paths = read.paths(side.base, data);
    const canned = await kit.canned(await fetch(`${side.origin}${paths[0]}`));
    const row = await kit.measure(`${read.key} (bare, our bytes)`, await kit.startBareServer(canned), rotating(paths), PEER_CONNECTIONS, { warmupS: WARMUP_S, durationS: DURATION_S });
    results.set(read.key, row);
    rows.push(row);
  }
  return rows;
}

/** The idShorts of a submodel's top-level elements. */
async function topLevelIdShorts(url: string): Promise<string[]> {
  const body = (await (await expectStatus(await fetch(url), [200], `GET ${url}`)).json()) as { submodelElements?: { idShort: string }[] };
  return (body.submodelElements ?? []).map((e) => e.idShort);
}

/**
 * PUT, PATCH, POST and DELETE of one element, in the 10,000- and the 10-element submodel. No warm-up: the checked
 * request has run the path once, and a warm-up cut off with slow writes in flight would leave the server a backlog.
 */
async function measureElementWrites(kit: PeerKit, side: Side, run: string, results: Results): Promise<Row[]> {
  const rows: Row[] = [];
  const submodelPath = (size: Size) => `${side.base}/submodels/${b64(`urn:bench:${run}:peer:flat:${size}`)}`;
  const elementsPath = (size: Size) => `${submodelPath(size)}/submodel-elements`;
  const timed = { warmupS: 0, durationS: DURATION_S, timeoutS: WRITE_TIMEOUT_S };
  /** The Properties POST added, in the order the submodel has them. */
  const added = async (size: Size) => (await topLevelIdShorts(`${side.origin}${submodelPath(size)}`)).filter((idShort) => idShort.startsWith('Added'));
  let next = 0;

  for (const verb of VERBS) {
    for (const size of SIZES) {
      const key = elementKey(verb, size);
      const target = size / 2;
      const targetPath = `${elementsPath(size)}/Property${target}`;
      let row: Row;
      if (verb === 'PUT' || verb === 'PATCH' || verb === '$value') {
        const path = `${targetPath}${verb === 'PATCH' ? '?level=core' : verb === '$value' ? '/$value' : ''}`;
        const method = verb === 'PUT' ? 'PUT' : 'PATCH';
        const bodyOf = (value: number) => JSON.stringify(verb === '$value' ? String(value) : intProperty(`Property${target}`, value));
        // Checked: the value taken (each request then alternates between two values of the same length).
        const res = await fetch(`${side.origin}${path}`, { method, headers: json, body: bodyOf(target + 1) });
        if (side.brokenConnections && (res.status === 501 || res.status === 405)) {
          console.log(`  ${key} (${side.name}): not supported (${res.status})`);
          results.set(key, { unsupported: res.status });
          continue;
        }
        await expectStatus(res, [200, 204], `${method} ${path}`);
        await check(`${side.origin}${targetPath}`, intProperty(`Property${target}`, target + 1), ['idShort', 'value']);
        let n = 0;
        const request: autocannon.Request = { method, path, headers: json, setupRequest: (req) => ({ ...req, body: bodyOf(target + 2 + (n++ % 2)) }) };
        row = await measureOn(kit, side, key, request, timed);
      } else if (verb === 'POST') {
        const probe = intProperty(`Added${next++}`, 1);
        await expectStatus(await fetch(`${side.origin}${elementsPath(size)}`, { method: 'POST', headers: json, body: JSON.stringify(probe) }), [201], `POST ${elementsPath(size)}`);
        await check(`${side.origin}${elementsPath(size)}/${probe.idShort as string}`, probe, ['idShort', 'value']);
        const request: autocannon.Request = { method: 'POST', path: elementsPath(size), headers: json, setupRequest: (req) => ({ ...req, body: JSON.stringify(intProperty(`Added${next++}`, 1)) }) };
        row = await measureOn(kit, side, key, request, { ...timed, maxRequests: POST_CAP });
      } else {
        // What POST created (a request cut off at the end of its run may or may not have been), one DELETE each.
        const pool = await added(size);
        while (pool.length < PEER_CONNECTIONS + 1) {
          const extra = intProperty(`Added${next++}`, 1);
          await expectStatus(await fetch(`${side.origin}${elementsPath(size)}`, { method: 'POST', headers: json, body: JSON.stringify(extra) }), [201], `POST ${elementsPath(size)}`);
          pool.push(extra.idShort as string);
        }
        const probe = `${elementsPath(size)}/${pool.shift()!}`;
        await expectStatus(await fetch(`${side.origin}${probe}`, { method: 'DELETE' }), [200, 204], `DELETE ${probe}`);
        await expectStatus(await fetch(`${side.origin}${probe}`), [404], `GET ${probe} after its DELETE`);
        const request: autocannon.Request = { method: 'DELETE', setupRequest: (req) => ({ ...req, path: `${elementsPath(size)}/${pool.shift()!}` }) };
        row = await measureOn(kit, side, key, request, { timeoutS: WRITE_TIMEOUT_S, amount: pool.length });
        // What a broken connection left (the peer's only: on ours it fails the row), deleted one at a time.
        await side.settle();
        for (const idShort of await added(size)) {
          await expectStatus(await fetch(`${side.origin}${elementsPath(size)}/${idShort}`, { method: 'DELETE' }), [200, 204], `DELETE ${idShort}`);
        }
      }
      await side.settle();
      results.set(key, row);
      rows.push(row);
    }
  }
  rows.push(await measureSpreadPut(kit, side, run, results));
  const sizes = await Promise.all(SIZES.map(async (size) => (await topLevelIdShorts(`${side.origin}${submodelPath(size)}`)).length));
  if (sizes.some((n, i) => n !== SIZES[i])) throw new Error(`${side.name}: the submodels have ${sizes.join(' and ')} elements after the writes, not ${SIZES.join(' and ')}`);
  return rows;
}

/**
 * PUT of one Property with 16 connections spread over `SPREAD` submodels of 10: each request writes the next
 * submodel in turn, so the requests in flight at once write different submodels (writers that wait for none other).
 */
async function measureSpreadPut(kit: PeerKit, side: Side, run: string, results: Results): Promise<Row> {
  const paths = spreadIds(run).map((id) => `${side.base}/submodels/${b64(id)}/submodel-elements/Property5`);
  const res = await fetch(`${side.origin}${paths[0]}`, { method: 'PUT', headers: json, body: JSON.stringify(intProperty('Property5', 6)) });
  await expectStatus(res, [200, 204], `PUT ${paths[0]}`);
  await check(`${side.origin}${paths[0]}`, intProperty('Property5', 6), ['idShort', 'value']);
  let n = 0;
  const request: autocannon.Request = {
    method: 'PUT',
    headers: json,
    setupRequest: (req) => ({ ...req, path: paths[n % SPREAD], body: JSON.stringify(intProperty('Property5', 7 + (Math.floor(n++ / SPREAD) % 2))) }),
  };
  const row = await measureOn(kit, side, SPREAD_PUT, request, { warmupS: 0, durationS: DURATION_S, timeoutS: WRITE_TIMEOUT_S });
  await side.settle();
  results.set(SPREAD_PUT, row);
  return row;
}

/** GET of elements of a 10,000-element submodel posted right before; then POST /submodels, POST /shells and DELETE /submodels/{id}. */
async function measureFreshAndPosts(kit: PeerKit, side: Side, run: string, results: Results): Promise<Row[]> {
  const api = `${side.origin}${side.base}`;
  const fresh = flatSubmodel(`urn:bench:${run}:peer:fresh:10000`, 10_000);
  const freshPath = `${side.base}/submodels/${b64(fresh.id as string)}/submodel-elements`;
  await postDocument(`${api}/submodels`, fresh);
  await check(`${side.origin}${freshPath}/Property1234`, intProperty('Property1234', 1234), ['idShort', 'value']);
  const paths = Array.from({ length: 10_000 }, (_, i) => `${freshPath}/Property${(i * 7919) % 10_000}`);
  const afterPost = await measureOn(kit, side, AFTER_POST, rotating(paths), { warmupS: 0, durationS: DURATION_S });
  results.set(AFTER_POST, afterPost);

  const posted = (n: number): Json => ({ modelType: 'Submodel', id: `urn:bench:${run}:peer:posted:${n}`, idShort: `Posted${n}`, submodelElements: [intProperty('Property0', n)] });
  let next = 0;
  const probe = posted(next++);
  await expectStatus(await fetch(`${api}/submodels`, { method: 'POST', headers: json, body: JSON.stringify(probe) }), [201], 'POST /submodels');
  await check(`${api}/submodels/${b64(probe.id as string)}`, probe);
  const request: autocannon.Request = { method: 'POST', path: `${side.base}/submodels`, headers: json, setupRequest: (req) => ({ ...req, body: JSON.stringify(posted(next++)) }) };
  const posts = await measureOn(kit, side, POST_SUBMODELS, request, { warmupS: WARMUP_S, durationS: DURATION_S, timeoutS: WRITE_TIMEOUT_S, afterWarmup: side.settle });
  await side.settle();
  results.set(POST_SUBMODELS, posts);

  const postedShell = (n: number): Json => ({
    modelType: 'AssetAdministrationShell',
    id: `urn:bench:${run}:peer:posted-shell:${n}`,
    idShort: `PostedShell${n}`,
    assetInformation: { assetKind: 'Instance', globalAssetId: `urn:bench:${run}:peer:posted-asset:${n}` },
  });
  let nextShell = 0;
  const shellProbe = postedShell(nextShell++);
  await expectStatus(await fetch(`${api}/shells`, { method: 'POST', headers: json, body: JSON.stringify(shellProbe) }), [201], 'POST /shells');
  await check(`${api}/shells/${b64(shellProbe.id as string)}`, shellProbe);
  const shellRequest: autocannon.Request = { method: 'POST', path: `${side.base}/shells`, headers: json, setupRequest: (req) => ({ ...req, body: JSON.stringify(postedShell(nextShell++)) }) };
  const shells = await measureOn(kit, side, POST_SHELLS, shellRequest, { warmupS: WARMUP_S, durationS: DURATION_S, timeoutS: WRITE_TIMEOUT_S, afterWarmup: side.settle });
  await side.settle();
  results.set(POST_SHELLS, shells);

  // DELETE: submodels of one Property posted for it (all created), one request each.
  const doomed = Array.from({ length: DOOMED }, (_, n): Json => ({ modelType: 'Submodel', id: `urn:bench:${run}:peer:doomed:${n}`, idShort: `Doomed${n}`, submodelElements: [intProperty('Property0', n)] }));
  await load(`${api}/submodels`, doomed);
  await side.settle();
  const doomedPaths = doomed.map((doc) => `${side.base}/submodels/${b64(doc.id as string)}`);
  await expectStatus(await fetch(`${side.origin}${doomedPaths[0]}`, { method: 'DELETE' }), [200, 204], `DELETE ${doomedPaths[0]}`);
  await expectStatus(await fetch(`${side.origin}${doomedPaths[0]}`), [404], `GET ${doomedPaths[0]} after its DELETE`);
  let nextDoomed = 1;
  const deleteRequest: autocannon.Request = { method: 'DELETE', setupRequest: (req) => ({ ...req, path: doomedPaths[nextDoomed++] }) };
  const deletes = await measureOn(kit, side, DELETE_SUBMODELS, deleteRequest, { timeoutS: WRITE_TIMEOUT_S, amount: DOOMED - 1 });
  await side.settle();
  results.set(DELETE_SUBMODELS, deletes);
  return [afterPost, posts, shells, deletes];
}

const fmt = (n: number) => (Number.isFinite(n) ? (n >= 100 ? n.toFixed(0) : n >= 10 ? n.toFixed(1) : n.toFixed(2)) : '-');
const rate = (o: Outcome | undefined) => (o && 'reqPerSec' in o ? o.reqPerSec : NaN);

export async function benchPeer(kit: PeerKit, run: string, peerUrl: string): Promise<Row[]> {
  const count = Number(process.env.PEER_BENCH_COUNT ?? 1_000);
  const data: Data = {
    shells: Array.from({ length: count }, (_, n) => peerShell(run, n)),
    submodels: Array.from({ length: count }, (_, n) => peerSubmodel(run, n)),
  };
  const rows: Row[] = [];

  // The peer, once.
  const root = rootOf(peerUrl);
  const peerSide: Side = {
    name: 'peer',
    origin: root.origin,
    base: root.base,
    // The peer's CPU is not ours to read: pid 0 gives NaN.
    target: { url: root.origin, pid: 0 },
    // One request through: the peer has worked off what was sent before it.
    settle: async () => void (await fetch(`${peerUrl}/shells?limit=1`).then((res) => res.arrayBuffer())),
    brokenConnections: new Map(),
  };
  const peer: Results = new Map();
  await loadSide(peerSide, run, data);
  rows.push(...(await measureReads(kit, peerSide, data, peer, false)));
  rows.push(...(await measureElementWrites(kit, peerSide, run, peer)));
  rows.push(...(await measureFreshAndPosts(kit, peerSide, run, peer)));
  for (const read of HOT.slice(0, 2)) peer.set(coldKey(read.key), peer.get(read.key)!);

  // This server, on each database: reads, writes and posts with its read cache, then restarted without.
  const ours = new Map<string, Results>();
  const bare: Results = new Map();
  for (const database of kit.databases) {
    const results: Results = new Map();
    ours.set(database.name, results);
    const db = await database.open();
    const settle = (server: OurServer) => async () => {
      const started = Date.now();
      await server.settle();
      const waited = (Date.now() - started) / 1000;
      if (waited > 3) console.log(`  (the server was busy for ${waited.toFixed(0)} s more)`);
    };
    const side = (server: OurServer): Side => ({ name: `ours, ${database.name}`, origin: server.url, base: kit.apiPath, target: server, settle: settle(server) });
    let server = await db.start({});
    await loadSide(side(server), run, data);
    rows.push(...(await measureReads(kit, side(server), data, results, false)));
    if (!bare.size) rows.push(...(await measureBare(kit, side(server), data, bare)));
    rows.push(...(await measureElementWrites(kit, side(server), run, results)));
    rows.push(...(await measureFreshAndPosts(kit, side(server), run, results)));
    await server.stop();
    server = await db.start({ READ_CACHE_SIZE: '0' });
    await side(server).settle();
    rows.push(...(await measureReads(kit, side(server), data, results, true)));
    await server.stop();
  }

  report(peerUrl, count, peer, ours, bare, peerSide.brokenConnections!);
  return rows;
}

function report(peerUrl: string, count: number, peer: Results, ours: Map<string, Results>, bare: Results, broken: Map<string, number>): void {
  const dbs = [...ours.keys()];
  const keys = [
    ...HOT.map((r) => r.key),
    ...VERBS.flatMap((verb) => SIZES.map((size) => elementKey(verb, size))),
    SPREAD_PUT,
    AFTER_POST,
    POST_SUBMODELS,
    POST_SHELLS,
    DELETE_SUBMODELS,
    ...HOT.slice(0, 2).map((r) => coldKey(r.key)),
  ];
  const cell = (o: Outcome | undefined) => (o === undefined ? '' : 'unsupported' in o ? `n/s (${o.unsupported})` : fmt(o.reqPerSec));
  const lines = keys.map((key) => [
    key,
    cell(peer.get(key)),
    ...dbs.flatMap((db) => [cell(ours.get(db)!.get(key)), fmt(rate(ours.get(db)!.get(key)) / rate(peer.get(key)))]),
    cell(bare.get(key)),
  ]);
  console.log(`\nagainst the peer at ${peerUrl} (${PEER_CONNECTIONS} connections, ${WARMUP_S} s warm-up + ${DURATION_S} s per row; ${count} shells and submodels; req/s):`);
  printColumns(['', 'peer', ...dbs.flatMap((db) => [`ours ${db}`, 'ours / peer']), 'bare, our bytes'], lines);
  if (broken.size) console.log(`the peer broke connections under requests (its router closes the connection after each 204): ${[...broken].map(([key, n]) => `${key} ${n}`).join('; ')}`);
  console.log(`(n/s: the peer does not support the verb, with that status. "cold": our server restarted with READ_CACHE_SIZE=0; the peer caches nothing, so its cold figures are its reads above. Element POST rows stop after ${POST_CAP} requests.)`);

  const scaling = (results: Results, verb: Verb) => rate(results.get(elementKey(verb, 10_000))) / rate(results.get(elementKey(verb, 10)));
  console.log('\nelement writes, 10,000 elements / 10 elements:');
  printColumns(['', 'peer', ...dbs.map((db) => `ours ${db}`)], VERBS.map((verb) => [verbName(verb), fmt(scaling(peer, verb)), ...dbs.map((db) => fmt(scaling(ours.get(db)!, verb)))]));

  const goals: string[] = [];
  const goal = (what: string, value: number, least: number) =>
    goals.push(`${what}: ${Number.isFinite(value) ? `${value.toFixed(2)} ${value >= least ? 'met' : 'MISSED'}` : 'not measured'}`);
  const vsPeer = (results: Results, key: string) => rate(results.get(key)) / rate(peer.get(key));
  for (const db of dbs) {
    const results = ours.get(db)!;
    for (const verb of VERBS) goal(`element ${verbName(verb)} in 10,000 >= 0.5 x in 10 (${db})`, scaling(results, verb), 0.5);
    for (const size of SIZES) goal(`element PUT, ${size.toLocaleString('en')} elements, >= 2 x peer (${db})`, vsPeer(results, elementKey('PUT', size)), 2);
    goal(`GET of one element right after POST >= 2 x peer (${db})`, vsPeer(results, AFTER_POST), 2);
    for (const read of HOT.slice(0, 2)) goal(`cold ${read.key} >= 1.5 x peer (${db})`, vsPeer(results, coldKey(read.key)), 1.5);
  }
  for (const db of dbs) {
    const results = ours.get(db)!;
    for (const key of [POST_SUBMODELS, POST_SHELLS, DELETE_SUBMODELS, SPREAD_PUT]) goal(`${key} >= 1 x peer (${db})`, vsPeer(results, key), 1);
    goal(`${elementKey('PUT', 10)}, 16 writers on one submodel, >= 0.5 x peer (${db})`, vsPeer(results, elementKey('PUT', 10)), 0.5);
    for (const read of HOT.slice(0, 2)) goal(`cold ${read.key} >= 1 x peer (${db})`, vsPeer(results, coldKey(read.key)), 1);
    goal(`cached ${HOT[0].key} >= 0.5 x bare (${db})`, rate(results.get(HOT[0].key)) / rate(bare.get(HOT[0].key)), 0.5);
  }
  const pg = ours.get('PostgreSQL');
  const embedded = ours.get('embedded');
  const writes = [POST_SUBMODELS, POST_SHELLS, DELETE_SUBMODELS, SPREAD_PUT, ...VERBS.flatMap((verb) => SIZES.map((size) => elementKey(verb, size)))];
  for (const key of writes) goal(`${key}, embedded >= 0.7 x PostgreSQL`, pg && embedded ? rate(embedded.get(key)) / rate(pg.get(key)) : NaN, 0.7);
  console.log(`\ngoals${pg ? '' : ' (PostgreSQL not measured: set DATABASE_URL)'}:`);
  for (const line of goals) console.log(`  ${line}`);
}
