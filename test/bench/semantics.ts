import autocannon from 'autocannon';
import pg from 'pg';
import type { CannedResponse } from './bare-server';
import type { Row, Target } from './run';

/**
 * The semantic connector's resolve (`BENCH_ONLY=semantics`): a dictionary of 100,000 entries (SEMANTIC_BENCH_ENTRIES),
 * an ECLASS Basic CSV property table generated here and uploaded to the default tenant, then
 * `GET {tenant_url}/sphere/api/v1.0/semantics/resolve?semanticId=...` with ids spread over the whole dictionary:
 *   - exact: the id as the dictionary writes it (`#001`);
 *   - equivalent: another revision of it (`#002`, `matching=equivalent`), found through the equivalence key.
 * Both answer one entry; the answers are checked before anything is timed, after `ANALYZE semantic_entries` (a table
 * just loaded has no statistics until autovacuum's ANALYZE, which would run in the middle of the measurement). Beside
 * them, `GET .../semantics/dictionaries/{id}` (one row by its key through the same path: HTTP, GraphQL, one statement)
 * says what the least request of the connector costs on this machine at this moment. The text search of the entries
 * (`GET .../semantics/entries?text=`): a text one entry holds (rotating over the probes) and one every entry holds (a
 * full first page of 100). The baseline is a bare
 * node:http server answering the same bytes. The goal is a p99 under 20 ms.
 */

export interface SemanticBenchKit {
  server: Target;
  /** `/tenants/default` */
  tenantPath: string;
  measure(name: string, target: Target, request: autocannon.Request, connections?: number): Promise<Row>;
  startBareServer(canned: CannedResponse): Promise<Target>;
  canned(res: Response): Promise<CannedResponse>;
  printTable(rows: Row[], ratio: { header: string; of: (row: Row) => string }): void;
  /** Where the server's database answers (benchDatabaseUrl). */
  databaseUrl: string;
}

const ENTRIES = Number(process.env.SEMANTIC_BENCH_ENTRIES ?? 100_000);
if (!Number.isInteger(ENTRIES) || ENTRIES < 1 || ENTRIES > 500_000) throw new Error(`SEMANTIC_BENCH_ENTRIES takes 1..500000, got '${process.env.SEMANTIC_BENCH_ENTRIES}'`);
const CONNECTIONS = 10;
const GOAL_P99_MS = 20;
/** Ids the measured requests rotate through, spread over the dictionary. */
const PROBES = 1000;

const LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
/** The bench's own ECLASS-shaped IRDI of entry `n` (`0173-1#02-` + a code no real property has: it starts with Q). */
const code = (n: number) => `Q${LETTERS[Math.floor(n / 26_000) % 26]}${LETTERS[Math.floor(n / 1000) % 26]}${String(n % 1000).padStart(3, '0')}`;
const irdi = (n: number, version = '001') => `0173-1#02-${code(n)}#${version}`;

function csv(): string {
  const lines = ['Supplier;IdPR;Identifier;VersionNumber;PreferredName;Definition;ISOLanguageCode;DataType;IrdiUN;IrdiPR'];
  for (let n = 0; n < ENTRIES; n++) {
    lines.push(`0173-1;${code(n)}001;${code(n)};001;Bench property ${n};Definition of the bench property number ${n}, written for the bench;en;REAL_MEASURE;0173-1#05-AAA480#003;${irdi(n)}`);
  }
  return lines.join('\n') + '\n';
}

function rotating(paths: string[]): autocannon.Request {
  let next = 0;
  return { method: 'GET', setupRequest: (req) => ({ ...req, path: paths[next++ % paths.length] }) };
}

export async function benchSemantics(kit: SemanticBenchKit): Promise<Row[]> {
  const base = `${kit.tenantPath}/sphere/api/v1.0/semantics`;
  const text = csv();
  const started = Date.now();
  const form = new FormData();
  form.append('file', new Blob([text], { type: 'text/csv' }), 'bench_PR_en.csv');
  const res = await fetch(`${kit.server.url}${base}/dictionaries?name=bench`, { method: 'POST', body: form });
  if (res.status !== 201) throw new Error(`dictionary upload: ${res.status} ${await res.text()}`);
  console.log(`  imported a dictionary of ${ENTRIES} entries (${(text.length / 1e6).toFixed(1)} MB of CSV) in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  const dictionary = (await res.json()) as { id: string };
  const db = new pg.Client({ connectionString: kit.databaseUrl });
  await db.connect();
  try {
    await db.query('ANALYZE semantic_entries');
  } finally {
    await db.end();
  }

  const step = Math.max(1, Math.floor(ENTRIES / PROBES));
  const probes = Array.from({ length: Math.min(PROBES, ENTRIES) }, (_, i) => (i * step) % ENTRIES);
  const b64 = (id: string) => Buffer.from(id).toString('base64url');
  const exact = probes.map((n) => `${base}/resolve?semanticId=${b64(irdi(n))}`);
  const equivalent = probes.map((n) => `${base}/resolve?semanticId=${b64(irdi(n, '002'))}&matching=equivalent`);
  // The text search: a text one entry holds (its definition's `number {n},`), and one every entry holds (a full page).
  const rare = probes.map((n) => `${base}/entries?text=${encodeURIComponent(`number ${n},`)}`);
  const common = `${base}/entries?text=${encodeURIComponent('bench property')}`;
  for (const [path, count] of [[rare[1], 1], [common, 100]] as const) {
    const answer = (await (await fetch(`${kit.server.url}${path}`)).json()) as { result: unknown[] };
    if (answer.result?.length !== count) throw new Error(`${path} answered ${JSON.stringify(answer).slice(0, 300)}, expected ${count} entries`);
  }
  for (const [paths, n] of [[exact, probes[0]], [equivalent, probes[0]], [exact, probes[probes.length - 1]]] as const) {
    const path = paths[probes.indexOf(n)];
    const answer = (await (await fetch(`${kit.server.url}${path}`)).json()) as { result: { entries: { conceptId: string }[] }[] };
    const found = answer.result[0]?.entries.map((e) => e.conceptId);
    if (found?.length !== 1 || found[0] !== irdi(n)) throw new Error(`${path} answered ${JSON.stringify(answer).slice(0, 300)}, expected the entry ${irdi(n)}`);
  }

  const rows = [
    await kit.measure('GET one dictionary (the least request)', kit.server, rotating([`${base}/dictionaries/${dictionary.id}`]), CONNECTIONS),
    await kit.measure('resolve, exact, 100k-entry dictionary', kit.server, rotating(exact), CONNECTIONS),
    await kit.measure('resolve, equivalent (other revision)', kit.server, rotating(equivalent), CONNECTIONS),
    await kit.measure('text search, one match in 100k', kit.server, rotating(rare), CONNECTIONS),
    await kit.measure('text search, common text (page of 100)', kit.server, rotating([common]), CONNECTIONS),
  ];
  const canned = await kit.canned(await fetch(`${kit.server.url}${exact[0]}`));
  const bare = await kit.measure('bare node:http, same bytes', await kit.startBareServer(canned), rotating(exact), CONNECTIONS);
  rows.push(bare);
  kit.printTable(rows, { header: 'vs bare', of: (r) => (r.reqPerSec / bare.reqPerSec).toFixed(3) });
  for (const row of rows.slice(1, 3)) {
    const verdict = row.p99 < GOAL_P99_MS ? 'PASS' : 'FAIL';
    console.log(`${row.name}: ${((row.reqPerSec / bare.reqPerSec) * 100).toFixed(1)}% of bare req/s, p99 ${row.p99.toFixed(2)} ms = ${(row.p99 / bare.p99).toFixed(1)} x bare p99 (goal p99 < ${GOAL_P99_MS} ms: ${verdict})`);
  }
  return rows;
}
