import { ChildProcess, fork, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import type { Readable } from 'node:stream';
import autocannon from 'autocannon';
import { BENCH_MQTT_URL, benchEvents } from './events';
import pg from 'pg';
import { citusNodes, freshCitusDatabase } from '../support/citus-database';
import { freePort } from '../support/free-port';
import { withClient } from '../support/pg-client';
import type { CannedResponse } from './bare-server';
import { sampleShell } from './shells';
import { benchAdmission, benchHardening } from './hardening';
import { benchSubmodels } from './submodels';
import { benchFiles } from './files';
import { benchPackage } from './package';
import { benchClientEnv, benchRoleResolution, benchTokenIssuance } from './identity';
import { benchDatabaseUrl, benchRegistry } from './registry';
import { benchQuery } from './query';
import { benchSemantics } from './semantics';
import { benchImport } from './bulk-import';
import { benchDcc } from './dcc';
import { benchPeer, type OurDatabase } from './peer';
import { printColumns } from './table';
import { benchScaleOut } from './scaleout';
import { benchVersions } from './versions';

/**
 * `npm run bench`: starts the built server as a child process (on DATABASE_URL in a fresh database of its
 * own, else on the embedded PostgreSQL in a fresh directory), loads 10,000 shells, measures the hot paths
 * with autocannon and prints them beside a bare Node HTTP server answering the same bytes (DESIGN.md,
 * "Performance"); then the same for a submodel of 10,000 elements (`submodels.ts`), then what one heavy
 * request does to the others (`hardening.ts`: /health/live during a 50 MB POST, GET by id during a GraphQL
 * fragment-chain loop), then the identity service and files, and last discovery lookups over 100,000 shells with
 * 3 asset ids each, implicit and in an explicit instance (`registry.ts`), and query-language queries over 100,000
 * Technical Data submodels (`query.ts`). Missed goals are reported, not failed; a
 * broken run (start-up, non-2xx answers) exits 1.
 *
 * BENCH_SERVER_NODE_ARGS adds node flags for the server, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof".
 */

/**
 * `BENCH_ONLY=hardening` (or `identity`, `files`) runs GET by id and those lines alone, on fewer shells;
 * `BENCH_ONLY=admission` runs GET by id and the admission lines of `hardening.ts` alone (flat bodies, expensive queries);
 * `BENCH_ONLY=registry` runs the discovery lookups of `registry.ts` alone (REGISTRY_BENCH_SHELLS sets their size).
 * `BENCH_ONLY=submodels` runs the large-submodel element reads and writes of `submodels.ts` alone.
 * `BENCH_ONLY=query` runs the query-language bench of `query.ts` alone (QUERY_BENCH_SUBMODELS sets its size).
 * `BENCH_ONLY=semantics` runs the semantic connector's resolve of `semantics.ts` alone (SEMANTIC_BENCH_ENTRIES sets its size).
 * `BENCH_ONLY=import` runs the bulk import of `bulk-import.ts` alone: 100,000 shells and a 100,000-element submodel
 * (IMPORT_SHELLS, IMPORT_ELEMENTS set their sizes), each beside COPY of the same rows.
 * `BENCH_ONLY=dcc` runs the DCC conversion of `dcc.ts` alone: a certificate of 1,000 quantities, against parsing it alone.
 * `BENCH_ONLY=events` runs the change-event bench of `events.ts` alone (writes with events off and on, latency to MQTT).
 * `BENCH_ONLY=package` runs the import and export of the largest real package (`package.ts`) alone: on PostgreSQL
 * when DATABASE_URL is set, then on the embedded database, each in a fresh database of its own.
 * `BENCH_ONLY=versions` runs GET by id and the list of shells through /api/v3.0 and /api/v3.1 alone (`versions.ts`), on fewer shells.
 * `BENCH_ONLY=scaleout` runs the scale-out line of `scaleout.ts` alone: three replicas on a fresh database of the
 * DATABASE_URL server, cold GET by id and POST through HAProxy with 1, 2 and 3 of them (skipped without DATABASE_URL or haproxy).
 */
/**
 * `npm run bench -- --peer URL` runs the workloads of `peer.ts` alone, on the AAS server at URL and on this server:
 * on PostgreSQL when DATABASE_URL is set, then on the embedded database, each in a fresh database of its own.
 */
const peerAt = process.argv.indexOf('--peer');
const PEER_URL = peerAt >= 0 ? process.argv[peerAt + 1] : undefined;
if (peerAt >= 0 && !PEER_URL?.match(/^https?:\/\//)) throw new Error('--peer takes the URL of an AAS server, e.g. --peer http://localhost:8081');
const ONLY = PEER_URL ? 'peer' : process.env.BENCH_ONLY;
if (ONLY !== undefined && ONLY !== 'peer' && !['hardening', 'admission', 'identity', 'files', 'registry', 'submodels', 'query', 'semantics', 'events', 'package', 'scaleout', 'import', 'dcc', 'versions'].includes(ONLY)) {
  throw new Error(`BENCH_ONLY takes 'hardening', 'admission', 'identity', 'files', 'registry', 'submodels', 'query', 'semantics', 'events', 'package', 'scaleout', 'import', 'dcc' or 'versions', got '${ONLY}'`);
}
const SHELLS = ONLY ? 1_000 : 10_000;
const PAGE = 100;
const DEEP_POSITION = SHELLS * 0.9;
const CONNECTIONS = 10;
const WARMUP_S = 2;
const DURATION_S = 10;
const LOG_LEVEL = 'warn';
const BUILT = path.resolve(__dirname, '../..');
/** Linux's USER_HZ, the unit of the CPU times in /proc/<pid>/stat: 100 on every mainstream architecture. */
const CLOCK_TICKS = 100;

export interface Row {
  name: string;
  reqPerSec: number;
  p50: number;
  p99: number;
  /** CPU time the server process spent per request, in µs (NaN where /proc is not there). */
  cpuUs: number;
  failures: number;
  /** Of the failures: connections that broke (reset or closed under a request), timeouts not counted. */
  connectionErrors?: number;
}

/** A server under test: where it listens, and its process (for its CPU time). */
export interface Target {
  url: string;
  pid: number;
}

/** Cleanups run in reverse order at the end, on failure and on Ctrl-C alike. */
const cleanups: (() => Promise<unknown>)[] = [];

async function cleanUp(): Promise<void> {
  while (cleanups.length) {
    await cleanups.pop()!().catch((err) => console.error(`cleanup failed: ${(err as Error).message}`));
  }
}

/**
 * A fresh, empty database for this run: on the DATABASE_URL server, or the embedded one in a new directory. When the
 * database of DATABASE_URL is a Citus coordinator's (the `citus` extension in it), the fresh one is made on the
 * coordinator and on each of its workers, with the extension and the same nodes (docs/scale-out.md), so that the
 * server distributes it when it migrates.
 */
async function freshDatabase(dataDir: string, serverUrl = process.env.DATABASE_URL): Promise<{ env: NodeJS.ProcessEnv; description: string }> {
  if (!serverUrl) return { env: { DATABASE_URL: '' }, description: `embedded PostgreSQL (PGlite) in ${dataDir}` };
  // BENCH_DATABASE_PREFIX: where several people share one PostgreSQL server, each names the databases it makes.
  const name = `${process.env.BENCH_DATABASE_PREFIX ?? 'bench'}_${randomBytes(6).toString('hex')}`;
  const version = await withClient(serverUrl, async (client) => Number((await client.query('SHOW server_version_num')).rows[0].server_version_num));
  const nodes = await citusNodes(serverUrl);
  const url = new URL(serverUrl);
  if (nodes.length) {
    const made = await freshCitusDatabase(serverUrl, nodes, name);
    cleanups.push(made.drop);
    url.pathname = `/${name}`;
    return { env: { DATABASE_URL: made.url }, description: `PostgreSQL ${Math.floor(version / 10000)} at ${url.host}, Citus with ${nodes.filter((node) => !node.coordinator).length} workers, fresh database ${name}` };
  }
  await withClient(serverUrl, (client) => client.query(`CREATE DATABASE ${name}`));
  cleanups.push(() => withClient(serverUrl, (client) => client.query(`DROP DATABASE IF EXISTS ${name}${version >= 130000 ? ' WITH (FORCE)' : ''}`)));
  url.pathname = `/${name}`;
  return { env: { DATABASE_URL: url.toString() }, description: `PostgreSQL ${Math.floor(version / 10000)} at ${url.host}, fresh database ${name}` };
}

/** Stops a child with SIGTERM and waits for it to exit (SIGKILL after a grace period). */
function stop(child: ChildProcess, graceMs = 20_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

/** The server's log lines, counted by message and error: at level warn it says little, unless requests fail. */
type LogCounts = Map<string, number>;

function countLines(stream: Readable, counts: LogCounts): void {
  readline.createInterface({ input: stream }).on('line', (line) => {
    let key = line;
    try {
      const entry = JSON.parse(line) as { msg?: string; err?: { message?: string } };
      key = `${entry.msg}${entry.err?.message ? `: ${entry.err.message}` : ''}`;
    } catch {
      // not pino's JSON: count the line as it is
    }
    counts.set(key, (counts.get(key) ?? 0) + 1);
  });
}

const describeLog = (counts: LogCounts) => [...counts].map(([key, count]) => `  ${count} x ${key}`).join('\n');

async function startServer(env: NodeJS.ProcessEnv, log: LogCounts = new Map()): Promise<Target & { log: LogCounts; stop(): Promise<void> }> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const nodeArgs = (process.env.BENCH_SERVER_NODE_ARGS ?? '').split(/\s+/).filter(Boolean);
  const child = spawn(process.execPath, [...nodeArgs, path.join(BUILT, 'src/main.js')], {
    env: { ...process.env, ...env, PORT: String(port), HOST: '127.0.0.1', PUBLIC_URL: url, LOG_LEVEL, DEFAULT_TENANT_SHOWCASE: 'true' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  cleanups.push(() => stop(child));
  countLines(child.stdout!, log);
  countLines(child.stderr!, log);

  const deadline = Date.now() + 120_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the server exited with ${child.exitCode} while starting:\n${describeLog(log)}`);
    const status = await fetch(`${url}/health/ready`).then((res) => res.status, () => 0);
    if (status === 200) return { url, pid: child.pid!, log, stop: () => stop(child) };
    if (Date.now() > deadline) throw new Error(`the server was not ready within 120 s:\n${describeLog(log)}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

async function startBareServer(canned: CannedResponse): Promise<Target> {
  const child = fork(path.join(__dirname, 'bare-server.js'), { stdio: 'inherit' });
  cleanups.push(() => stop(child));
  const port = await new Promise<number>((resolve, reject) => {
    child.once('message', (message) => resolve((message as { port: number }).port));
    child.once('exit', (code) => reject(new Error(`the bare server exited with ${code}`)));
    child.send(canned);
  });
  return { url: `http://127.0.0.1:${port}`, pid: child.pid! };
}

/** A response to replay from the bare server: status, headers and body as the server under test sent them. */
async function cannedFrom(res: Response): Promise<CannedResponse> {
  return {
    status: res.status,
    // Hop-by-hop and per-response headers are the HTTP server's own business.
    headers: Object.fromEntries([...res.headers].filter(([name]) => !['connection', 'keep-alive', 'date', 'content-length', 'transfer-encoding'].includes(name))),
    body: Buffer.from(await res.arrayBuffer()).toString('base64'),
  };
}

interface ShellPage {
  result: { id: string }[];
  paging_metadata: { cursor?: string };
}

async function getPage(url: string): Promise<ShellPage> {
  const res = await fetch(url);
  if (res.status !== 200) throw new Error(`GET ${url}: ${res.status} ${await res.text()}`);
  return (await res.json()) as ShellPage;
}

/** Walks the whole list page by page: every shell's id, and the cursor of the page at DEEP_POSITION. */
async function walkPages(api: string): Promise<{ ids: string[]; deepCursor: string }> {
  const ids: string[] = [];
  let deepCursor: string | undefined;
  let cursor: string | undefined;
  do {
    if (ids.length === DEEP_POSITION) deepCursor = cursor;
    const page = await getPage(`${api}/shells?limit=${PAGE}${cursor ? `&cursor=${cursor}` : ''}`);
    ids.push(...page.result.map((shell) => shell.id));
    cursor = page.paging_metadata.cursor;
  } while (cursor);
  if (ids.length !== SHELLS || !deepCursor) throw new Error(`paging the list found ${ids.length} shells, not ${SHELLS}`);
  return { ids, deepCursor };
}

/** User + system CPU time of a process in ms, from /proc (Linux); NaN elsewhere. */
function cpuMs(pid: number): number {
  try {
    const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
  } catch {
    return NaN;
  }
}

/** How `measure` runs, where a workload needs other than its defaults. */
export interface MeasureOptions {
  /** Seconds of warm-up (0: none) and of the measured run (defaults WARMUP_S and DURATION_S). */
  warmupS?: number;
  durationS?: number;
  /** Exactly this many requests instead of a duration, after `warmupAmount` requests as the warm-up (default none). */
  amount?: number;
  warmupAmount?: number;
  /** The timed warm-up and the timed run each stop after this many requests if that comes first. */
  maxRequests?: number;
  /** Seconds before a request counts as timed out, that is failed (autocannon's default 10). */
  timeoutS?: number;
  /** Runs between the warm-up and the measured run: e.g. waits for the server to finish what the warm-up left. */
  afterWarmup?: () => Promise<void>;
}

export type Measure = (name: string, target: Target, request: autocannon.Request, connections?: number, options?: MeasureOptions) => Promise<Row>;

/** A warm-up, then the measured run: req/s and latency percentiles of the 2xx answers (sub-ms precision). */
async function measure(name: string, target: Target, request: autocannon.Request, connections = CONNECTIONS, how: MeasureOptions = {}): Promise<Row> {
  const options = { url: target.url, connections, requests: [request], ...(how.timeoutS ? { timeout: how.timeoutS } : {}) };
  const warmupS = how.warmupS ?? WARMUP_S;
  if (how.amount === undefined ? warmupS > 0 : how.warmupAmount) {
    const warmup = how.amount === undefined ? { duration: warmupS, ...(how.maxRequests ? { maxOverallRequests: how.maxRequests } : {}) } : { amount: how.warmupAmount, connections: Math.min(connections, how.warmupAmount!) };
    await autocannon({ ...options, ...warmup });
  }
  await how.afterWarmup?.();
  const latencies: number[] = [];
  const cpuBefore = cpuMs(target.pid);
  const measured =
    how.amount === undefined
      ? { duration: how.durationS ?? DURATION_S, ...(how.maxRequests ? { maxOverallRequests: how.maxRequests } : {}) }
      : { amount: how.amount, connections: Math.min(connections, how.amount) };
  const startedAt = performance.now();
  let lastAnswerAt = startedAt;
  const run = autocannon({ ...options, ...measured });
  run.on('response', (_client, status, _bytes, ms) => {
    lastAnswerAt = performance.now();
    if (status < 300) latencies.push(ms);
  });
  const result = await run;
  // A run of a set number of requests ends within a second, or (capped) idles to the end of its duration: the
  // per-second average would count that time too.
  const reqPerSec = how.amount === undefined && !how.maxRequests ? result.requests.average : (result.requests.total * 1000) / (lastAnswerAt - startedAt);
  const cpuUs = ((cpuMs(target.pid) - cpuBefore) * 1000) / result.requests.total;
  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? NaN;
  // autocannon counts a timeout among the errors too.
  const failures = result.non2xx + result.errors;
  if (failures) {
    console.error(`  ${name}: ${failures} failed requests (${result.non2xx} non-2xx; ${result.errors} errors, ${result.timeouts} of them timeouts), status codes ${JSON.stringify(result.statusCodeStats)}`);
  }
  const row = { name, reqPerSec, p50: at(0.5), p99: at(0.99), cpuUs, failures, connectionErrors: result.errors - result.timeouts };
  console.log(`  measured ${name}: ${Math.round(row.reqPerSec)} req/s`);
  return row;
}

/** Requests that rotate over `paths`, so every request asks for another shell. */
function rotating(paths: string[]): autocannon.Request {
  let next = 0;
  return { method: 'GET', setupRequest: (req) => ({ ...req, path: paths[next++ % paths.length] }) };
}

/** The scale-out line (`scaleout.ts`): replicas of their own on a fresh database, their log lines counted in `log`. */
function scaleOut(log: LogCounts, run: string): Promise<Row[]> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'asset-platform-bench-'));
  cleanups.push(async () => fs.rmSync(dataDir, { recursive: true, force: true }));
  return benchScaleOut(
    {
      database: async () => (await freshDatabase(dataDir)).env,
      startServer: (env) => startServer({ ...env, DATA_DIR: dataDir, ...benchClientEnv() }, log),
      measure,
      printTable,
      rotating,
      settle: waitIdle,
      cleanup: (step) => cleanups.push(step),
    },
    run,
  );
}

/** The rows, with a ratio column: `ratio.of` says what each row's req/s is against. */
function printTable(rows: Row[], ratio: { header: string; of: (row: Row) => string }): void {
  const header = ['', 'req/s', 'p50 ms', 'p99 ms', ratio.header, 'CPU µs/req', 'failed'];
  const lines = rows.map((r) => [r.name, r.reqPerSec.toFixed(0), r.p50.toFixed(2), r.p99.toFixed(2), ratio.of(r), Number.isFinite(r.cpuUs) ? r.cpuUs.toFixed(0) : '-', String(r.failures)]);
  console.log('');
  printColumns(header, lines);
}

/** Waits until the server's process has been idle for two 250 ms spells and, on PostgreSQL, its database runs nothing. */
async function waitIdle(pid: number, databaseUrl: string | undefined): Promise<void> {
  const deadline = Date.now() + 300_000;
  const client = databaseUrl ? new pg.Client({ connectionString: databaseUrl }) : undefined;
  await client?.connect();
  try {
    for (let quiet = 0; quiet < 2; ) {
      if (Date.now() > deadline) throw new Error('the server was still busy 300 s after the load stopped');
      const before = cpuMs(pid);
      await new Promise((resolve) => setTimeout(resolve, 250));
      const used = cpuMs(pid) - before;
      const running = client
        ? Number((await client.query("SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND backend_type = 'client backend' AND state <> 'idle' AND pid <> pg_backend_pid()")).rows[0].n)
        : 0;
      // Without /proc the CPU time is NaN: then only the database is watched.
      quiet = !(used > 20) && running === 0 ? quiet + 1 : 0;
    }
  } finally {
    await client?.end();
  }
}

/** `--peer`: this server on PostgreSQL when DATABASE_URL is set, then on the embedded database; each fresh. */
function ourDatabases(log: LogCounts): OurDatabase[] {
  const urls = process.env.DATABASE_URL ? [process.env.DATABASE_URL, ''] : [''];
  return urls.map((serverUrl) => ({
    name: serverUrl ? 'PostgreSQL' : 'embedded',
    open: async () => {
      const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'asset-platform-bench-'));
      cleanups.push(async () => fs.rmSync(dataDir, { recursive: true, force: true }));
      const database = await freshDatabase(dataDir, serverUrl);
      console.log(`\nour server: ${database.description}`);
      return {
        start: async (env: NodeJS.ProcessEnv) => {
          const server = await startServer({ ...database.env, DATA_DIR: dataDir, ...benchClientEnv(), ...env }, log);
          return { url: server.url, pid: server.pid, stop: server.stop, settle: () => waitIdle(server.pid, database.env.DATABASE_URL) };
        },
      };
    },
  }));
}

async function main(): Promise<void> {
  const started = Date.now();
  if (PEER_URL) {
    console.log(`asset-platform bench against the peer at ${PEER_URL}; server log level ${LOG_LEVEL}; node ${process.version}, ${os.availableParallelism()} cores`);
    const log: LogCounts = new Map();
    const rows = await benchPeer({ measure, startBareServer, canned: cannedFrom, databases: ourDatabases(log), apiPath: '/tenants/default/api/v3.0' }, randomBytes(4).toString('hex'), PEER_URL).catch((err: Error) => {
      throw new Error(`${err.message}\nour server's log says:\n${describeLog(log)}`);
    });
    return finish(rows, 0, { log }, started);
  }
  if (ONLY === 'package') {
    console.log(`asset-platform bench: the largest real package; server log level ${LOG_LEVEL}; node ${process.version}, ${os.availableParallelism()} cores`);
    const log: LogCounts = new Map();
    const lines = await benchPackage({ databases: ourDatabases(log), startBareServer, canned: cannedFrom, apiPath: '/tenants/default/api/v3.0' }).catch((err: Error) => {
      throw new Error(`${err.message}\nour server's log says:\n${describeLog(log)}`);
    });
    console.log(`\n${lines.join('\n')}`);
    return finish([], 0, { log }, started);
  }
  if (ONLY === 'scaleout') {
    console.log(`asset-platform bench: scale-out; server log level ${LOG_LEVEL}; ${CONNECTIONS} connections, ${WARMUP_S} s warm-up + ${DURATION_S} s per measurement; node ${process.version}, ${os.availableParallelism()} cores`);
    const log: LogCounts = new Map();
    return finish(await scaleOut(log, randomBytes(4).toString('hex')), 0, { log }, started);
  }
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'asset-platform-bench-'));
  cleanups.push(async () => fs.rmSync(dataDir, { recursive: true, force: true }));
  const database = await freshDatabase(dataDir);
  console.log(`asset-platform bench: ${database.description}`);
  console.log(`server log level ${LOG_LEVEL}; ${CONNECTIONS} connections, ${WARMUP_S} s warm-up + ${DURATION_S} s per measurement; node ${process.version}, ${os.availableParallelism()} cores`);

  const server = await startServer({ ...database.env, DATA_DIR: dataDir, ...benchClientEnv(), ...(ONLY === 'events' ? { MQTT_URL: BENCH_MQTT_URL } : {}) });
  const apiPath = '/tenants/default/api/v3.0';
  const api = `${server.url}${apiPath}`;
  const run = randomBytes(4).toString('hex');
  const registry = () => benchRegistry({ server, measure, startBareServer, canned: cannedFrom, printTable, databaseUrl: benchDatabaseUrl(database.env, dataDir) }, run);
  if (ONLY === 'registry') return finish(await registry(), 0, server, started);
  const submodels = () =>
    benchSubmodels({ server, apiPath, measure, startBareServer, canned: cannedFrom, printTable, databaseUrl: benchDatabaseUrl(database.env, dataDir) }, run);
  if (ONLY === 'submodels') return finish(await submodels(), 0, server, started);
  const query = () => benchQuery({ server, apiPath, measure, startBareServer, canned: cannedFrom, printTable, databaseUrl: benchDatabaseUrl(database.env, dataDir) }, run);
  if (ONLY === 'query') return finish(await query(), 0, server, started);
  const semantics = () => benchSemantics({ server, tenantPath: '/tenants/default', measure, startBareServer, canned: cannedFrom, printTable, databaseUrl: benchDatabaseUrl(database.env, dataDir) });
  if (ONLY === 'semantics') return finish(await semantics(), 0, server, started);
  if (ONLY === 'events') return finish(await benchEvents({ server, measure, printTable }, run), 0, server, started);
  if (ONLY === 'import') {
    console.log(`\n${(await benchImport({ server, apiPath, databaseUrl: benchDatabaseUrl(database.env, dataDir), embedded: !database.env.DATABASE_URL }, run)).join('\n')}`);
    return finish([], 0, server, started);
  }
  const dcc = async () => console.log(`\n${(await benchDcc({ server, tenant: 'default' }, run)).join('\n')}`);
  if (ONLY === 'dcc') {
    await dcc();
    return finish([], 0, server, started);
  }
  let nextShell = 0;
  const post: autocannon.Request = {
    method: 'POST',
    path: `${apiPath}/shells`,
    headers: { 'content-type': 'application/json' },
    setupRequest: (req) => ({ ...req, body: JSON.stringify(sampleShell(run, nextShell++)) }),
  };

  const loadStarted = Date.now();
  const load = await autocannon({ url: server.url, connections: CONNECTIONS, amount: SHELLS, requests: [post] });
  let created = load.statusCodeStats['201']?.count ?? 0;
  const loadFailures = SHELLS - created;
  if (loadFailures) console.error(`  loading: ${loadFailures} POSTs failed (status codes ${JSON.stringify(load.statusCodeStats)}); topping up one at a time`);
  if (created < 0.9 * SHELLS) throw new Error(`loading: only ${created} of ${SHELLS} shells created; the server log says:\n${describeLog(server.log)}`);
  for (let tries = 0; created < SHELLS && tries < 2 * loadFailures; tries++) {
    const body = JSON.stringify(sampleShell(run, nextShell++));
    const res = await fetch(`${api}/shells`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    if (res.status === 201) created++;
  }
  if (created < SHELLS) throw new Error(`loading: only ${created} of ${SHELLS} shells could be created`);
  console.log(`loaded ${SHELLS} shells in ${((Date.now() - loadStarted) / 1000).toFixed(1)} s (${JSON.stringify(sampleShell(run, 0)).length} bytes each)`);

  const { ids, deepCursor } = await walkPages(api);
  const byIdPaths = ids.map((id) => `${apiPath}/shells/${Buffer.from(id).toString('base64url')}`);
  const canned = await cannedFrom(await fetch(`${server.url}${byIdPaths[0]}`));
  if (canned.status !== 200) throw new Error(`GET ${byIdPaths[0]}: ${canned.status}`);

  const rows: Row[] = [];
  rows.push(await measure('GET /shells/{id}', server, rotating(byIdPaths)));
  const hardeningContext = { server, apiPath, measure, byId: { row: rows[0], request: () => rotating(byIdPaths) } };
  const hardening = () => benchHardening(hardeningContext, run);
  const identity = async () => {
    const issuance = await benchTokenIssuance({ server, measure });
    const roles = await benchRoleResolution({ server, measure }, byIdPaths);
    printTable([issuance, ...roles.rows], { header: 'vs showcase', of: (r) => (r === issuance ? '' : (r.reqPerSec / roles.rows[0].reqPerSec).toFixed(3)) });
    console.log(`identity: ${issuance.reqPerSec.toFixed(0)} client-credentials tokens/s; GET by id with roles from the database at ${(roles.ratio * 100).toFixed(1)}% of showcase`);
    return [issuance, ...roles.rows];
  };
  const files = async () => {
    console.log('\nfiles and packages (server RSS sampled every 20 ms from /proc):');
    for (const line of await benchFiles({ server, apiPath, tenant: 'default' })) console.log(`  ${line}`);
  };
  if (ONLY === 'files') {
    await files();
    return finish(rows, 0, server, started);
  }
  if (ONLY === 'admission') {
    rows.push(...(await benchAdmission(hardeningContext, run)));
    return finish(rows, 0, server, started);
  }
  const versions = async () => (await benchVersions({ server, apiPath, measure, rotating, printTable, byIdPaths })).rows;
  if (ONLY === 'versions') {
    rows.push(...(await versions()));
    return finish(rows, 0, server, started);
  }
  if (ONLY) {
    rows.push(...(await (ONLY === 'identity' ? identity() : hardening())));
    return finish(rows, 0, server, started);
  }
  rows.push(await measure('GET /shells?limit=100', server, { method: 'GET', path: `${apiPath}/shells?limit=${PAGE}` }));
  rows.push(await measure(`GET /shells page @${DEEP_POSITION}`, server, { method: 'GET', path: `${apiPath}/shells?limit=${PAGE}&cursor=${deepCursor}` }));
  // Last: it grows the set beyond SHELLS.
  rows.push(await measure('POST /shells', server, post));
  const bare = await measure('bare node:http, same bytes', await startBareServer(canned), rotating(byIdPaths));
  rows.push(bare);

  printTable(rows, { header: 'vs bare', of: (r) => (r.reqPerSec / bare.reqPerSec).toFixed(3) });
  console.log(`CPU µs/req: the server's process alone${process.env.DATABASE_URL ? '' : ', the embedded database included'}.`);
  const [byId, first, deep] = rows;
  const verdict = (ok: boolean) => (ok ? 'PASS' : 'FAIL');
  const byIdRatio = byId.reqPerSec / bare.reqPerSec;
  const deepRatio = deep.reqPerSec / first.reqPerSec;
  console.log(`\ngoal GET /shells/{id} >= 40% of bare: ${(byIdRatio * 100).toFixed(1)}% ${verdict(byIdRatio >= 0.4)}`);
  console.log(`goal deep page ~ first page (>= 0.9): ${deepRatio.toFixed(3)} ${verdict(deepRatio >= 0.9)}`);
  console.log(`(response: ${Buffer.from(canned.body, 'base64').length} bytes per shell)`);

  rows.push(...(await versions()));
  rows.push(...(await submodels()));
  rows.push(...(await hardening()));
  rows.push(...(await identity()));
  await files();
  await dcc();
  rows.push(...(await registry()));
  rows.push(...(await query()));
  rows.push(...(await semantics()));
  rows.push(...(await scaleOut(server.log, run)));
  finish(rows, loadFailures, server, started);
}

/** The total time, and a failure when the server failed any request. */
function finish(rows: Row[], loadFailures: number, server: { log: LogCounts }, started: number): void {
  console.log(`\n(total ${((Date.now() - started) / 1000).toFixed(0)} s)`);
  const failed = rows.filter((r) => r.failures > 0).map((r) => r.name);
  if (loadFailures) failed.unshift('loading');
  if (failed.length) throw new Error(`the server failed requests in: ${failed.join(', ')}; its log says:\n${describeLog(server.log)}`);
}

process.once('SIGINT', () => {
  console.error('interrupted: stopping');
  cleanUp().finally(() => process.exit(130));
});

main()
  .catch((err: Error) => {
    // Our own errors say what broke; anything else needs its stack.
    console.error(`bench failed: ${err.constructor === Error ? err.message : err.stack}`);
    process.exitCode = 1;
  })
  .finally(cleanUp);
