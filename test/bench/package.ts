import fs from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { readPackageEnvironment } from '../../src/aas/import/aasx-import';
import { type CannedResponse } from './bare-server';
import { download, measured, sendMultipart } from './files';
import type { OurDatabase } from './peer';
import type { Target } from './run';
import { printColumns } from './table';

/**
 * The largest real package at hand, imported and exported: the Festo VTEM sample of eclipse-aaspe/server
 * (test/fixtures/aasx/large, 1 shell, 6 submodels, 9,368 elements, 145 concept descriptions). On each database (PostgreSQL
 * when DATABASE_URL is set, then the embedded one), a fresh server: POST /upload of the package, then of the same
 * environment as JSON (exported by the server), and GET /serialization as AASX with an XML spec part, AASX with a
 * JSON one, and JSON. Each is run once to warm up and then RUNS times into an empty tenant (the import's documents
 * are deleted after each run); the figures are the median time and the highest RSS peak above the RSS before
 * (sampled every 20 ms; the embedded database runs inside the server's process, so its memory is counted there).
 * Beside each time, the ratio to the bare Node server answering the same bytes to the same request (the house
 * baseline): what the transfer alone costs.
 */
export interface PackageBenchKit {
  databases: OurDatabase[];
  startBareServer(canned: CannedResponse): Promise<Target>;
  canned(res: Response): Promise<CannedResponse>;
  apiPath: string;
}

export const BENCH_PACKAGE = path.resolve(__dirname, '../../../test/fixtures/aasx/large/aaspe_Festo_8047502_VTEM_03_3S7PLKP1N6K.aasx');
const RUNS = 5;

const EXPORTS: [string, string][] = [
  ['AASX (XML spec)', 'application/asset-administration-shell-package+xml'],
  ['AASX (JSON spec)', 'application/asset-administration-shell-package+json'],
  ['JSON', 'application/json'],
];

interface Figure {
  name: string;
  seconds: number;
  bareSeconds: number;
  peakMiB: number;
  bytes: number;
}

type JsonObject = Record<string, unknown>;

/** Elements of a list, nested ones included (collections, lists, entities' statements, annotations, operation variables). */
export function countElements(list: unknown): number {
  let n = 0;
  for (const e of Array.isArray(list) ? (list as JsonObject[]) : []) {
    n++;
    // A MultiLanguageProperty's value is a list too, of strings in languages: only containers' values are elements.
    if (e.modelType === 'SubmodelElementCollection' || e.modelType === 'SubmodelElementList') n += countElements(e.value);
    n += countElements(e.statements) + countElements(e.annotations);
    for (const k of ['inputVariables', 'outputVariables', 'inoutputVariables']) n += countElements(((e[k] as JsonObject[] | undefined) ?? []).map((v) => v.value));
  }
  return n;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

export async function benchPackage(kit: PackageBenchKit): Promise<string[]> {
  const { environment } = await readPackageEnvironment(BENCH_PACKAGE);
  const env = environment as { assetAdministrationShells?: JsonObject[]; submodels?: JsonObject[]; conceptDescriptions?: JsonObject[] };
  const elements = (env.submodels ?? []).reduce((sum, sm) => sum + countElements(sm.submodelElements), 0);
  const bytes = fs.statSync(BENCH_PACKAGE).size;
  console.log(
    `\nthe package: ${path.basename(BENCH_PACKAGE)}, ${(bytes / 1024).toFixed(0)} KB, ${env.assetAdministrationShells?.length ?? 0} shell, ` +
      `${env.submodels?.length ?? 0} submodels, ${elements} elements, ${env.conceptDescriptions?.length ?? 0} concept descriptions; median of ${RUNS} runs after one warm-up`,
  );
  const summary: string[] = [];
  for (const database of kit.databases) {
    const opened = await database.open();
    const server = await opened.start({});
    try {
      const figures = await benchOne(kit, server, elements);
      printColumns(
        ['workload', 'bytes', 'median s', 'x bare', 'RSS peak MB'],
        figures.map((f) => [f.name, String(f.bytes), f.seconds.toFixed(3), (f.seconds / f.bareSeconds).toFixed(0), `+${f.peakMiB.toFixed(0)}`]),
      );
      for (const f of figures) summary.push(`${database.name}: ${f.name}: ${f.seconds.toFixed(2)} s (${(f.seconds / f.bareSeconds).toFixed(0)}x bare), RSS peak +${f.peakMiB.toFixed(0)} MB`);
    } finally {
      await server.stop();
    }
  }
  return summary;
}

async function benchOne(kit: PackageBenchKit, server: Target, elements: number): Promise<Figure[]> {
  const api = `${server.url}${kit.apiPath}`;
  const figures: Figure[] = [];
  const pkg = fs.readFileSync(BENCH_PACKAGE);
  let imported: { shells: { id: string }[]; submodels: { id: string }[]; conceptDescriptions: { id: string }[] } | undefined;

  /** Deletes what an import created, so that the next run imports into an empty tenant again. */
  const clear = async () => {
    if (!imported) return;
    const b64 = (id: string) => Buffer.from(id).toString('base64url');
    for (const [list, items] of [
      ['shells', imported.shells],
      ['submodels', imported.submodels],
      ['concept-descriptions', imported.conceptDescriptions],
    ] as const) {
      for (const { id } of items) {
        const res = await fetch(`${api}/${list}/${b64(id)}`, { method: 'DELETE' });
        if (res.status !== 204) throw new Error(`DELETE ${list} ${id}: ${res.status}`);
      }
    }
  };

  /** RUNS timed uploads of `bytes` into an empty tenant (after one warm-up), and the same to the bare server. */
  const importing = async (name: string, body: Buffer, fileName: string, contentType: string) => {
    const seconds: number[] = [];
    let peakMiB = 0;
    let answer: Response | undefined;
    for (let run = 0; run <= RUNS; run++) {
      await clear();
      const m = await measured(server.pid, () => sendMultipart(`${api}/upload`, 'POST', fileName, contentType, () => streamOf(body)));
      if (m.result.status !== 200) throw new Error(`${name}: ${m.result.status} ${m.result.text.slice(0, 300)}`);
      imported = JSON.parse(m.result.text);
      if (imported!.shells.some((s) => (s as { status?: string }).status !== 'created')) throw new Error(`${name}: not into an empty tenant`);
      if (run > 0) {
        seconds.push(m.seconds);
        peakMiB = Math.max(peakMiB, m.peakMiB);
      }
      answer = new Response(m.result.text, { status: 200, headers: { 'content-type': 'application/json' } });
    }
    const bare = await kit.startBareServer(await kit.canned(answer!));
    const bareSeconds: number[] = [];
    for (let run = 0; run <= RUNS; run++) {
      const m = await measured(bare.pid, () => sendMultipart(`${bare.url}/upload`, 'POST', fileName, contentType, () => streamOf(body)));
      if (run > 0) bareSeconds.push(m.seconds);
    }
    figures.push({ name: `import ${name} (POST /upload)`, seconds: median(seconds), bareSeconds: median(bareSeconds), peakMiB, bytes: body.length });
  };

  await importing(`AASX, ${elements} elements`, pkg, path.basename(BENCH_PACKAGE), 'application/asset-administration-shell-package');
  const b64 = (id: string) => Buffer.from(id).toString('base64url');
  const query = () =>
    `?${imported!.shells.map((s) => `aasIds=${b64(s.id)}`).join('&')}&${imported!.submodels.map((s) => `submodelIds=${b64(s.id)}`).join('&')}&includeConceptDescriptions=true`;

  const serializations: { name: string; accept: string; body?: Buffer }[] = EXPORTS.map(([name, accept]) => ({ name, accept }));
  for (const e of serializations) {
    const seconds: number[] = [];
    let peakMiB = 0;
    const url = `${api}/serialization${query()}`;
    for (let run = 0; run <= RUNS; run++) {
      const m = await measured(server.pid, () => download(url, { accept: e.accept }));
      if (m.result.status !== 200) throw new Error(`export ${e.name}: ${m.result.status}`);
      if (run > 0) {
        seconds.push(m.seconds);
        peakMiB = Math.max(peakMiB, m.peakMiB);
      }
    }
    const res = await fetch(url, { headers: { accept: e.accept } });
    const canned = await kit.canned(res);
    e.body = Buffer.from(canned.body, 'base64');
    const bare = await kit.startBareServer(canned);
    const bareSeconds: number[] = [];
    for (let run = 0; run <= RUNS; run++) {
      const m = await measured(bare.pid, () => download(`${bare.url}/serialization`, { accept: e.accept }));
      if (run > 0) bareSeconds.push(m.seconds);
    }
    figures.push({ name: `export ${e.name} (GET /serialization)`, seconds: median(seconds), bareSeconds: median(bareSeconds), peakMiB, bytes: e.body.length });
  }

  // The same environment as a JSON document, as the server wrote it (the new /upload formats).
  const json = serializations.find((e) => e.accept === 'application/json')!.body!;
  await importing(`JSON, ${elements} elements`, json, 'environment.json', 'application/json');
  await clear();
  return figures;
}

const streamOf = (body: Buffer) => Readable.from([body]);
