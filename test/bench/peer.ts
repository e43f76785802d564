import autocannon from 'autocannon';
import type { Row, Target } from './run';
import type { BenchKit } from './submodels';
import { printColumns } from './table';

/**
 * `npm run bench -- --peer URL`: the same workloads on this server and on another AAS server (the peer; URL is its
 * AAS API root, where `/shells` and `/submodels` are, e.g. `http://localhost:8081` for Eclipse BaSyx), side by side
 * in one run, with a bare Node server answering this server's bytes as the baseline of both.
 *
 * Both get the same 1,000 shells and 1,000 submodels of 20 Properties (PEER_BENCH_COUNT changes the count), posted
 * through the AAS API (ids carry the run's token, so a peer that keeps data between runs takes them as new); then
 * 16 connections (as wrk -t2 -c16) read `GET /shells/{id}` and `GET /submodels/{id}` rotating over all, and the
 * first page `GET /shells?limit=100`. Every answer is checked once before it is measured (the peer must return the
 * document it was given), and any failed request fails the run.
 */

const PROPERTIES = 20;
const PEER_CONNECTIONS = 16;
const PAGE = 100;

type Json = Record<string, unknown>;

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

const b64 = (id: string) => Buffer.from(id, 'utf8').toString('base64url');

/** Posts `count` documents to `url` with `connections` at once; fails on any answer but 201. */
async function load(url: string, docs: Json[]): Promise<void> {
  let next = 0;
  const result = await autocannon({
    url,
    connections: 8,
    amount: docs.length,
    requests: [{ method: 'POST', headers: { 'content-type': 'application/json' }, setupRequest: (req) => ({ ...req, body: JSON.stringify(docs[next++]) }) }],
  });
  const created = result.statusCodeStats['201']?.count ?? 0;
  if (created !== docs.length) throw new Error(`POST ${url}: ${created} of ${docs.length} created (status codes ${JSON.stringify(result.statusCodeStats)})`);
}

/** The peer must answer what it was given: compared on the members both keep (servers may add defaults). */
async function check(url: string, expected: Json): Promise<void> {
  const res = await fetch(url);
  if (res.status !== 200) throw new Error(`GET ${url}: ${res.status} ${await res.text()}`);
  const body = (await res.json()) as Json;
  for (const key of ['id', 'idShort']) {
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

export async function benchPeer(kit: BenchKit & { measure(name: string, target: Target, request: autocannon.Request, connections?: number): Promise<Row> }, run: string, peerUrl: string): Promise<Row[]> {
  const count = Number(process.env.PEER_BENCH_COUNT ?? 1_000);
  const shells = Array.from({ length: count }, (_, n) => peerShell(run, n));
  const submodels = Array.from({ length: count }, (_, n) => peerSubmodel(run, n));
  const peer = rootOf(peerUrl);
  const sides = [
    { name: 'ours', origin: kit.server.url, base: kit.apiPath, target: kit.server },
    // The peer's CPU is not ours to read: pid 0 gives NaN.
    { name: 'peer', origin: peer.origin, base: peer.base, target: { url: peer.origin, pid: 0 } },
  ];
  for (const side of sides) {
    const started = Date.now();
    await load(`${side.origin}${side.base}/submodels`, submodels);
    await load(`${side.origin}${side.base}/shells`, shells);
    console.log(`${side.name}: loaded ${count} shells and ${count} submodels of ${PROPERTIES} Properties in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    await check(`${side.origin}${side.base}/shells/${b64(shells[0].id as string)}`, shells[0]);
    await check(`${side.origin}${side.base}/submodels/${b64(submodels[0].id as string)}`, submodels[0]);
  }

  const workloads = [
    { name: 'GET /shells/{id}', paths: (base: string) => shells.map((s) => `${base}/shells/${b64(s.id as string)}`) },
    { name: 'GET /submodels/{id}', paths: (base: string) => submodels.map((s) => `${base}/submodels/${b64(s.id as string)}`) },
    { name: `GET /shells?limit=${PAGE}`, paths: (base: string) => [`${base}/shells?limit=${PAGE}`] },
  ];
  const rows: Row[] = [];
  const table: string[][] = [];
  for (const workload of workloads) {
    const measured: Row[] = [];
    for (const side of sides) measured.push(await kit.measure(`${workload.name} (${side.name})`, side.target, rotating(workload.paths(side.base)), PEER_CONNECTIONS));
    const canned = await kit.canned(await fetch(`${kit.server.url}${workload.paths(kit.apiPath)[0]}`));
    const bare = await kit.measure(`${workload.name} (bare, our bytes)`, await kit.startBareServer(canned), rotating(workload.paths(kit.apiPath)), PEER_CONNECTIONS);
    rows.push(...measured, bare);
    const [mine, peers] = measured;
    table.push([
      workload.name,
      peers.reqPerSec.toFixed(0),
      mine.reqPerSec.toFixed(0),
      (mine.reqPerSec / peers.reqPerSec).toFixed(2),
      (mine.reqPerSec / bare.reqPerSec).toFixed(3),
      bare.reqPerSec.toFixed(0),
    ]);
  }
  console.log(`\nagainst the peer at ${peerUrl} (${PEER_CONNECTIONS} connections, ${count} shells and submodels):`);
  printColumns(['', 'peer req/s', 'ours req/s', 'ours / peer', 'ours / bare', 'bare req/s'], table);
  return rows;
}
