import fs from 'node:fs';
import path from 'node:path';
import type autocannon from 'autocannon';
import pg from 'pg';
import type { CannedResponse } from './bare-server';
import { benchManagement } from './identity';
import type { Row, Target } from './run';

/**
 * Discovery lookups at scale (issue 10, point 6): `GET /lookup/shells?assetIds=<one asset id>` over 100,000 shells
 * (REGISTRY_BENCH_SHELLS) with 3 specific asset ids each, answered by the tenant's implicit discovery (the shells'
 * own `asset_ids`) and by an explicit discovery instance holding the same 100,000 x 3 links (`asset_links`).
 *
 * Setup, in a tenant of its own (created through the Management API with the bench's service account, as is the
 * discovery instance): the rows are generated inside PostgreSQL, `INSERT ... SELECT generate_series` in batches,
 * with the columns the write path would derive (`asset_ids`: the name/value pairs, the shells' with their global
 * asset id as `globalAssetId`): posting 100,000 shells over HTTP would measure the write path, not the lookup.
 * The lookups are measured twice: right after the load (no statistics, and the newest GIN entries may still sit in
 * the index's pending list, which every lookup scans), and after `VACUUM ANALYZE` on both tables, which is what autovacuum does after such a load on
 * PostgreSQL. The embedded database (PGlite, single-user) runs no autovacuum: it stays in the first state.
 *
 * Each shell `n` has `serialNumber` SN-{run}-n, `customerPartId` CP-{run}-n and `rfid` RFID-{run}-n, each unique,
 * so a lookup answers exactly one id. The requests rotate over 20,000 lookups drawn at random from all of them. The
 * baseline is the bare Node server answering the implicit lookup's bytes (the explicit one's are the same: one
 * id, no cursor). The plan of each lookup's query (the SQL the services send, default page size 100 + 1) is
 * printed with EXPLAIN ANALYZE in both states: the index that answers it should be the GIN index (jsonb_path_ops)
 * on `asset_ids`, `shells_asset_ids` and `asset_links_asset_ids`.
 */
export interface RegistryBenchKit {
  server: Target;
  measure(name: string, target: Target, request: autocannon.Request, connections?: number): Promise<Row>;
  startBareServer(canned: CannedResponse): Promise<Target>;
  canned(res: Response): Promise<CannedResponse>;
  printTable(rows: Row[], ratio: { header: string; of: (row: Row) => string }): void;
  /** Where the server's database answers: its DATABASE_URL, or the embedded one's socket (from DATA_DIR's lock). */
  databaseUrl: string;
}

const SHELLS = Number(process.env.REGISTRY_BENCH_SHELLS ?? 100_000);
if (!Number.isInteger(SHELLS) || SHELLS < 1 || SHELLS > 999_999) throw new Error(`REGISTRY_BENCH_SHELLS takes 1..999999, got '${process.env.REGISTRY_BENCH_SHELLS}'`);
const BATCH = 10_000;
const CONNECTIONS = 16;
const INSTANCE = 'bench-discovery';
/** Distinct lookups the requests rotate over. */
const PATHS = 20_000;
const ASSET_TYPE = 'https://bench.example.com/ids/type/CP-75';

/** The asset ids of shell `n`: three unique values per shell. */
const ASSET_NAMES = ['serialNumber', 'customerPartId', 'rfid'] as const;
const PREFIX: Record<(typeof ASSET_NAMES)[number], string> = { serialNumber: 'SN', customerPartId: 'CP', rfid: 'RFID' };
const assetValue = (run: string, name: (typeof ASSET_NAMES)[number], n: number) => `${PREFIX[name]}-${run}-${n}`;
const shellIdOf = (run: string, n: number) => `https://bench.example.com/ids/aas/${run}/${String(n).padStart(6, '0')}`;

/** The connection string of the database a bench server in `dataDir` uses: DATABASE_URL, else the embedded socket. */
export function benchDatabaseUrl(env: NodeJS.ProcessEnv, dataDir: string): string {
  if (env.DATABASE_URL) return env.DATABASE_URL;
  const lock = JSON.parse(fs.readFileSync(path.join(dataDir, 'asset-platform.lock'), 'utf8')) as { socket?: string };
  if (!lock.socket) throw new Error(`the embedded database in ${dataDir} names no socket in its lock file`);
  return `postgres://postgres@localhost/postgres?host=${encodeURIComponent(path.dirname(lock.socket))}`;
}

/** A tenant of its own and a discovery instance in it, through the Management API as the bench's service account. */
async function provision(url: string, run: string): Promise<{ tenant: { id: string; name: string }; instance: { id: string } }> {
  const { call, organizationId } = await benchManagement(url);
  const tenant = (await call('POST', `/organizations/${organizationId}/tenants`, { name: `bench-registry-${run}`, showcase: true })) as { id: string; name: string };
  const instance = (await call('POST', `/organizations/${organizationId}/tenants/${tenant.id}/registry-instances`, { name: INSTANCE, kind: 'discovery' })) as { id: string };
  return { tenant, instance };
}

/** SQL of the three SpecificAssetIds of shell `n` (a jsonb array); the serial number with an externalSubjectId. */
function linksSql(run: string): string {
  const items = ASSET_NAMES.map((name) => {
    const value = `'${PREFIX[name]}-${run}-' || n`;
    const external =
      name === 'serialNumber'
        ? `, 'externalSubjectId', '{"type":"ExternalReference","keys":[{"type":"GlobalReference","value":"https://bench.example.com/ids/manufacturer"}]}'::jsonb`
        : '';
    return `jsonb_build_object('name', '${name}', 'value', ${value}${external})`;
  });
  return `jsonb_build_array(${items.join(', ')})`;
}

const pairsSql = (run: string) => `jsonb_build_array(${ASSET_NAMES.map((name) => `jsonb_build_object('name', '${name}', 'value', '${PREFIX[name]}-${run}-' || n)`).join(', ')})`;

async function load(db: pg.Client, run: string, tenantId: string, instanceId: string): Promise<string[]> {
  const lines: string[] = [];
  const idSql = `'https://bench.example.com/ids/aas/${run}/' || lpad(n::text, 6, '0')`;
  const globalSql = `'https://bench.example.com/ids/asset/${run}/' || n`;
  let started = Date.now();
  for (let from = 0; from < SHELLS; from += BATCH) {
    const to = Math.min(SHELLS, from + BATCH) - 1;
    await db.query(
      `INSERT INTO shells (tenant_id, id, id_short, asset_kind, asset_type, global_asset_id, asset_ids, doc)
       SELECT $1::uuid, ${idSql}, 'Pump_' || n, 'Instance', $2, ${globalSql},
              jsonb_build_array(jsonb_build_object('name', 'globalAssetId', 'value', ${globalSql})) || ${pairsSql(run)},
              jsonb_build_object('modelType', 'AssetAdministrationShell', 'id', ${idSql}, 'idShort', 'Pump_' || n,
                'assetInformation', jsonb_build_object('assetKind', 'Instance', 'globalAssetId', ${globalSql}, 'assetType', $2::text,
                  'specificAssetIds', ${linksSql(run)}))
         FROM generate_series($3::int, $4::int) AS n`,
      [tenantId, ASSET_TYPE, from, to],
    );
  }
  lines.push(`shells: ${SHELLS} inserted in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  started = Date.now();
  for (let from = 0; from < SHELLS; from += BATCH) {
    const to = Math.min(SHELLS, from + BATCH) - 1;
    await db.query(
      `INSERT INTO asset_links (tenant_id, instance_id, aas_id, links, asset_ids)
       SELECT $1::uuid, $2::uuid, ${idSql}, ${linksSql(run)}, ${pairsSql(run)}
         FROM generate_series($3::int, $4::int) AS n`,
      [tenantId, instanceId, from, to],
    );
  }
  lines.push(`asset links: ${SHELLS} x 3 inserted in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return lines;
}

/** The SQL each service sends for a lookup of one asset id, first page (ImplicitRegistryService / DiscoveryService). */
const IMPLICIT_SQL = 'SELECT seq, id FROM shells WHERE tenant_id = $1 AND asset_ids @> $2::jsonb ORDER BY seq LIMIT $3';
const EXPLICIT_SQL = 'SELECT seq, aas_id FROM asset_links WHERE instance_id = $1 AND tenant_id = $2 AND asset_ids @> $3::jsonb ORDER BY seq LIMIT $4';

async function plans(db: pg.Client, tenantId: string, instanceId: string, pair: { name: string; value: string }): Promise<{ implicit: string; explicit: string }> {
  const explain = async (sql: string, params: unknown[]) =>
    ((await db.query(`EXPLAIN (ANALYZE, BUFFERS) ${sql}`, params)).rows as { 'QUERY PLAN': string }[]).map((r) => `    ${r['QUERY PLAN']}`).join('\n');
  const containment = JSON.stringify([pair]);
  return {
    implicit: await explain(IMPLICIT_SQL, [tenantId, containment, 101]),
    explicit: await explain(EXPLICIT_SQL, [instanceId, tenantId, containment, 101]),
  };
}

/** The index scans a plan names. */
const indexesOf = (plan: string) => [...new Set([...plan.matchAll(/(?:Bitmap Index|Index(?: Only)?) Scan(?: Backward)? (?:using|on) (\w+)/g)].map((m) => m[1]))];

function randomLookups(api: string, run: string): { paths: string[]; expected: Map<string, string> } {
  const paths: string[] = [];
  const expected = new Map<string, string>();
  for (let i = 0; i < PATHS; i++) {
    const n = Math.floor(Math.random() * SHELLS);
    const name = ASSET_NAMES[Math.floor(Math.random() * ASSET_NAMES.length)];
    const assetId = Buffer.from(JSON.stringify({ name, value: assetValue(run, name, n) })).toString('base64url');
    const p = `${api}/lookup/shells?assetIds=${assetId}`;
    paths.push(p);
    expected.set(p, shellIdOf(run, n));
  }
  return { paths, expected };
}

function rotating(paths: string[]): autocannon.Request {
  let next = 0;
  return { method: 'GET', setupRequest: (req) => ({ ...req, path: paths[next++ % paths.length] }) };
}

/** Checks a few lookups answer the one expected shell id: the load and the routes agree before anything is timed. */
async function spotCheck(url: string, lookups: { paths: string[]; expected: Map<string, string> }): Promise<void> {
  for (const p of lookups.paths.slice(0, 20)) {
    const res = await fetch(`${url}${p}`);
    const body = (await res.json()) as { result?: string[] };
    if (res.status !== 200 || JSON.stringify(body.result) !== JSON.stringify([lookups.expected.get(p)])) {
      throw new Error(`GET ${p}: ${res.status} ${JSON.stringify(body).slice(0, 300)}, expected [${lookups.expected.get(p)}]`);
    }
  }
}

/** The lines of a plan that say how rows were found: its scans, what they filtered out, and the time. */
const planSummary = (plan: string) => plan.split('\n').filter((line) => /Scan|Rows Removed|Execution Time/.test(line)).join('\n');

export async function benchRegistry(kit: RegistryBenchKit, run: string): Promise<Row[]> {
  console.log(`\nregistry and discovery: GET /lookup/shells?assetIds=<one asset id> over ${SHELLS} shells x 3 specific asset ids, ${CONNECTIONS} connections`);
  const { tenant, instance } = await provision(kit.server.url, run);
  const tenantPath = `/tenants/${tenant.name}`;
  const implicit = randomLookups(`${tenantPath}/api/v3.0`, run);
  const explicit = randomLookups(`${tenantPath}/${INSTANCE}/api/v3.0`, run);
  const measureBoth = async (when: string) => [
    await kit.measure(`implicit lookup, ${when}`, kit.server, rotating(implicit.paths), CONNECTIONS),
    await kit.measure(`explicit lookup, ${when}`, kit.server, rotating(explicit.paths), CONNECTIONS),
  ];
  const probe = { name: 'serialNumber', value: assetValue(run, 'serialNumber', Math.floor(SHELLS / 2)) };
  const rows: Row[] = [];
  const db = new pg.Client({ connectionString: kit.databaseUrl });
  await db.connect();
  let before: { implicit: string; explicit: string };
  let after: { implicit: string; explicit: string };
  try {
    for (const line of await load(db, run, tenant.id, instance.id)) console.log(`  ${line}`);
    await spotCheck(kit.server.url, implicit);
    await spotCheck(kit.server.url, explicit);
    // Right after the load: no statistics yet, and perhaps GIN entries in the pending list (see above).
    before = await plans(db, tenant.id, instance.id, probe);
    rows.push(...(await measureBoth('right after the load')));
    const started = Date.now();
    await db.query('VACUUM ANALYZE shells');
    await db.query('VACUUM ANALYZE asset_links');
    console.log(`  VACUUM ANALYZE shells, asset_links: ${((Date.now() - started) / 1000).toFixed(1)} s`);
    after = await plans(db, tenant.id, instance.id, probe);
  } finally {
    await db.end();
  }
  rows.push(...(await measureBoth('after VACUUM ANALYZE')));

  const canned = await kit.canned(await fetch(`${kit.server.url}${implicit.paths[0]}`));
  const explicitBody = Buffer.from(await (await fetch(`${kit.server.url}${explicit.paths[0]}`)).arrayBuffer());
  const bytes = Buffer.from(canned.body, 'base64').length;
  const bare = await kit.measure('bare node:http, same bytes', await kit.startBareServer(canned), rotating(implicit.paths), CONNECTIONS);
  rows.push(bare);

  kit.printTable(rows, { header: 'vs bare', of: (r) => (r.reqPerSec / bare.reqPerSec).toFixed(3) });
  for (const row of rows.slice(0, -1)) {
    console.log(`${row.name}: ${((row.reqPerSec / bare.reqPerSec) * 100).toFixed(1)}% of bare req/s, p99 ${row.p99.toFixed(2)} ms = ${(row.p99 / bare.p99).toFixed(1)} x bare p99`);
  }
  console.log(`(response: ${bytes} bytes, one shell id; the explicit instance's ${explicitBody.length === bytes ? 'are as long' : `are ${explicitBody.length} bytes`})`);
  for (const [label, sql, plan] of [
    ['implicit', IMPLICIT_SQL, after.implicit],
    ['explicit', EXPLICIT_SQL, after.explicit],
  ] as const) {
    console.log(`\n${label} lookup after VACUUM ANALYZE, indexes ${indexesOf(plan).join(', ') || 'none'}: ${sql}\n${plan}`);
  }
  for (const [label, plan] of [
    ['implicit', before.implicit],
    ['explicit', before.explicit],
  ] as const) {
    console.log(`\n${label} lookup right after the load, indexes ${indexesOf(plan).join(', ') || 'none'}:\n${planSummary(plan)}`);
  }
  return rows;
}
