import { spawn } from 'node:child_process';
import { Readable } from 'node:stream';
import { sendMultipart } from './files';
import type { Target } from './run';
import { printColumns } from './table';

/**
 * Bulk import (`BENCH_ONLY=import`): POST /upload of a JSON environment of IMPORT_SHELLS minimal shells, and of one
 * submodel of IMPORT_ELEMENTS Property elements, each into the default tenant of a fresh database; beside each, the
 * baseline the house asks for, measured in the same run on the same database: COPY of the same rows (the table's
 * own columns: tenant, id and the document; the element rows' path, position and JSON) into a temporary table of
 * the same shape, by `psql \copy` (COPY FROM STDIN). The ratio says how far an import is from what writing its rows
 * costs at all. While each import runs, /health/live is probed every 50 ms on a connection of its own: its p99 and
 * worst time say whether the import holds the event loop.
 */
export interface ImportBenchKit {
  server: Target;
  apiPath: string;
  databaseUrl: string;
  /**
   * The embedded database: its socket takes no `COPY ... FROM STDIN` (PGlite's socket server loses the protocol's
   * sync on it), so there is no baseline to divide by there.
   */
  embedded?: boolean;
}

const SHELLS = Number(process.env.IMPORT_SHELLS ?? 100_000);
const ELEMENTS = Number(process.env.IMPORT_ELEMENTS ?? 100_000);

interface Figure {
  name: string;
  seconds: number;
  copySeconds: number;
  liveP99: number;
  liveMax: number;
}

export async function benchImport(kit: ImportBenchKit, run: string): Promise<string[]> {
  console.log(`\nbulk import: ${SHELLS} minimal shells, and one submodel of ${ELEMENTS} elements (IMPORT_SHELLS, IMPORT_ELEMENTS); baseline COPY of the same rows`);
  const figures: Figure[] = [];

  const shellIds = Array.from({ length: SHELLS }, (_, i) => `urn:bench:import:${run}:shell:${i}`);
  const shells = shellIds.map((id) => ({ modelType: 'AssetAdministrationShell', id, assetInformation: { assetKind: 'Instance', globalAssetId: `${id}#asset` } }));
  const shellEnv = Buffer.from(JSON.stringify({ assetAdministrationShells: shells }));
  const shellRows = shells.map((doc) => [doc.id, JSON.stringify(doc)]);
  figures.push({
    name: `${SHELLS} shells (${mb(shellEnv)} MB JSON)`,
    ...(await imported(kit, shellEnv, 'shells.json')),
    copySeconds: kit.embedded ? NaN : await copied(kit.databaseUrl, 'id text, doc jsonb', shellRows),
  });

  const submodelId = `urn:bench:import:${run}:submodel`;
  const elements = Array.from({ length: ELEMENTS }, (_, i) => ({ modelType: 'Property', idShort: `P${i}`, valueType: 'xs:string', value: `v${i}` }));
  const submodelEnv = Buffer.from(JSON.stringify({ submodels: [{ modelType: 'Submodel', id: submodelId, idShort: 'Big', submodelElements: elements }] }));
  const elementRows = elements.map((e, i) => [submodelId, e.idShort, String(i), JSON.stringify(e)]);
  figures.push({
    name: `a submodel of ${ELEMENTS} elements (${mb(submodelEnv)} MB JSON)`,
    ...(await imported(kit, submodelEnv, 'submodel.json')),
    copySeconds: kit.embedded ? NaN : await copied(kit.databaseUrl, 'submodel_id text, path text, ord int, json jsonb', elementRows),
  });

  printColumns(
    ['import (POST /upload)', 'seconds', 'COPY s', 'x COPY', 'live p99 ms', 'live max ms'],
    figures.map((f) => [f.name, f.seconds.toFixed(1), copyText(f.copySeconds, 2), copyText(f.seconds / f.copySeconds, 0), f.liveP99.toFixed(0), f.liveMax.toFixed(0)]),
  );
  return figures.map(
    (f) =>
      `import ${f.name}: ${f.seconds.toFixed(1)} s, ` +
      (Number.isNaN(f.copySeconds) ? 'no COPY baseline on the embedded database' : `${(f.seconds / f.copySeconds).toFixed(0)}x COPY of its rows (${f.copySeconds.toFixed(2)} s)`) +
      `; /health/live p99 ${f.liveP99.toFixed(0)} ms, max ${f.liveMax.toFixed(0)} ms`,
  );
}

const mb = (bytes: Buffer) => (bytes.length / 1e6).toFixed(1);
/** A COPY figure, or `n/a` where there is no baseline (the embedded database). */
const copyText = (value: number, digits: number) => (Number.isNaN(value) ? 'n/a' : value.toFixed(digits));

/** One upload, timed, with /health/live probed meanwhile. */
async function imported(kit: ImportBenchKit, body: Buffer, fileName: string): Promise<{ seconds: number; liveP99: number; liveMax: number }> {
  const live: number[] = [];
  let running = true;
  const probe = (async () => {
    while (running) {
      const started = performance.now();
      await fetch(`${kit.server.url}/health/live`);
      live.push(performance.now() - started);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  })();
  const started = performance.now();
  try {
    const res = await sendMultipart(`${kit.server.url}${kit.apiPath}/upload`, 'POST', fileName, 'application/json', () => Readable.from([body]));
    if (res.status !== 200) throw new Error(`import ${fileName}: ${res.status} ${res.text.slice(0, 300)}`);
  } finally {
    running = false;
    await probe;
  }
  const seconds = (performance.now() - started) / 1000;
  live.sort((a, b) => a - b);
  return { seconds, liveP99: live[Math.min(live.length - 1, Math.floor(live.length * 0.99))] ?? 0, liveMax: live[live.length - 1] ?? 0 };
}

/** Seconds `psql \copy` takes to write `rows` (text columns) into a new temporary table of `columns`. */
async function copied(databaseUrl: string, columns: string, rows: string[][]): Promise<number> {
  const escape = (value: string) => value.replace(/\\/g, '\\\\').replace(/\t/g, '\\t').replace(/\n/g, '\\n').replace(/\r/g, '\\r');
  const data = `${rows.map((row) => row.map(escape).join('\t')).join('\n')}\n`;
  const script = `CREATE TEMPORARY TABLE bench_copy (tenant_id uuid DEFAULT gen_random_uuid(), ${columns});\n\\copy bench_copy (${columns.split(',').map((c) => c.trim().split(' ')[0]).join(', ')}) FROM STDIN\n${data}\\.\n`;
  const started = performance.now();
  await new Promise<void>((resolve, reject) => {
    const psql = spawn('psql', ['-X', '-q', '-v', 'ON_ERROR_STOP=1', databaseUrl], { stdio: ['pipe', 'ignore', 'pipe'] });
    let stderr = '';
    psql.stderr.on('data', (chunk) => (stderr += chunk));
    psql.once('error', reject);
    psql.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`psql \\copy exited with ${code}: ${stderr}`))));
    psql.stdin.end(script);
  });
  return (performance.now() - started) / 1000;
}
