/**
 * Every IDTA submodel template package for AAS metamodel V3.1 in a folder (a checkout of
 * admin-shell-io/submodel-templates, or any folder of packages) through the V3.1 round trip of
 * test/integration/v31-export-round-trip.test.ts: imported into a fresh tenant through `/api/v3.1/upload`,
 * exported through `/api/v3.1/serialization` as JSON, XML and both AASX, each export checked against the official
 * V3.1 schemas, imported into a fresh tenant again and read back through `/api/v3.1` and `/api/v3.0`
 * (test/support/v31-round-trip.ts). Not part of the test suite: it reads a folder outside the repository.
 *
 *   node -r @swc-node/register scripts/v31-templates.ts <folder> [name filter]
 *
 * A package is V3.1 when its spec parts are V3.1 XML (namespace https://admin-shell.io/aas/3/1) or V3.1 JSON; a
 * JSON environment (`.json`) is V3.1 when its name says so (`…V3.1…`) or a package of the same name beside it is
 * V3.1 (JSON has no namespace). The server runs in-process on DATABASE_URL when set (use a database of your own: the
 * run leaves its tenants there), else on an embedded database in a temporary folder. Prints one line per source,
 * then `N of M pass`, the source faults (a source that breaks the V3.1 JSON schema itself, whose exports break it
 * for that and for nothing else) with the source's first violations, and for each failure its first problems or the
 * error; exits 1 when any fails.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startEmbeddedDatabase } from '../src/db/embedded';
import { startTestServer } from '../test/support/server';
import { jsonSchemaProblems } from '../test/support/strict-readers';
import { filesUnder } from '../test/support/testdata';
import { roundTripProblems, roundTripSource } from '../test/support/v31-round-trip';

/** An error's message with its cause (fetch's "fetch failed" says why only there) and where it was thrown. */
function describe(err: unknown): string {
  const { message, cause, stack } = err as Error;
  const where = stack?.split('\n').find((line) => line.includes('v31-round-trip'))?.trim();
  return `${message}${cause ? ` (${(cause as Error).message ?? String(cause)})` : ''}${where ? ` ${where}` : ''}`;
}

async function main(): Promise<number> {
  const [folder, filter = ''] = process.argv.slice(2);
  if (!folder || !fs.statSync(folder, { throwIfNoEntry: false })?.isDirectory()) {
    process.stderr.write('usage: node -r @swc-node/register scripts/v31-templates.ts <folder> [name filter]\n');
    return 2;
  }
  const files = filesUnder(folder, ['.aasx', '.json']).filter((f) => path.relative(folder, f).includes(filter));
  const packages = files.filter((f) => f.toLowerCase().endsWith('.aasx'));
  const v31Packages = new Set<string>();
  const sources: string[] = [];
  const unreadable: string[] = [];
  for (const file of packages) {
    try {
      if ((await roundTripSource(file)).version === '3.1') {
        v31Packages.add(file.slice(0, -'.aasx'.length));
        sources.push(file);
      }
    } catch (err) {
      unreadable.push(`${path.relative(folder, file)}: ${(err as Error).message.slice(0, 300)}`);
    }
  }
  for (const file of files.filter((f) => f.toLowerCase().endsWith('.json'))) {
    if (/V3\.1/i.test(path.basename(file)) || v31Packages.has(file.slice(0, -'.json'.length))) sources.push(file);
  }
  process.stdout.write(`${folder}: ${packages.length} packages, ${v31Packages.size} of them V3.1; ${sources.length - v31Packages.size} V3.1 JSON environments\n`);
  for (const line of unreadable) process.stdout.write(`not read: ${line}\n`);

  const dataDir = process.env.DATABASE_URL ? undefined : fs.mkdtempSync(path.join(os.tmpdir(), 'v31-templates-'));
  const embedded = dataDir ? await startEmbeddedDatabase(dataDir, 40) : undefined;
  const server = await startTestServer(embedded?.url ?? process.env.DATABASE_URL!);
  const failures: string[] = [];
  const sourceFaults: string[] = [];
  // The JSON schema's lists of elements are a choice over every class: beside the one line that says what is wrong,
  // a bad element has a line for each required property of every other class. Those lines come last.
  const generic = (line: string) => / must (have required property|be string|be object|be array|be equal to one of)/.test(line);
  const strictLine = (line: string) => line.includes(' export, strict reader: ');
  const rank = (line: string) => (strictLine(line) ? 1 : 0) + (generic(line) ? 2 : 0);
  const listed = (all: string[]) => {
    const lines = [...all].sort((a, b) => rank(a) - rank(b));
    return `${lines.slice(0, 3).map((p) => `  ${p.slice(0, 1200)}`).join('\n')}${lines.length > 3 ? `\n  … ${lines.length - 3} more` : ''}`;
  };
  try {
    for (const file of sources) {
      const name = path.relative(folder, file);
      const started = Date.now();
      let problems: string[];
      let faults: string[] = [];
      try {
        const source = await roundTripSource(file);
        // What the source itself breaks of the V3.1 JSON schema.
        faults = jsonSchemaProblems(source.environment, 400, '3.1');
        problems = await roundTripProblems(server, source);
      } catch (err) {
        problems = [`error: ${describe(err)}`];
      }
      // A source fault: the source breaks the V3.1 schema, and its exports break it for that, nothing else differs.
      const sourceFault = problems.length > 0 && faults.length > 0 && problems.every(strictLine);
      process.stdout.write(`${problems.length ? (sourceFault ? 'SOURCE FAULT' : 'FAIL') : 'pass'} ${name} (${((Date.now() - started) / 1000).toFixed(1)} s)\n`);
      if (sourceFault) sourceFaults.push(`${name}\n  the source breaks the V3.1 JSON schema:\n${listed(faults)}`);
      else if (problems.length) failures.push(`${name}\n${listed(problems)}`);
    }
  } finally {
    await server.close();
    await embedded?.stop();
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
  }
  const passed = sources.length - failures.length - sourceFaults.length;
  process.stdout.write(`\n${passed} of ${sources.length} pass; ${sourceFaults.length} source faults (the source breaks the V3.1 schema); ${failures.length} fail\n`);
  if (sourceFaults.length) process.stdout.write(`\nSource faults:\n\n${sourceFaults.join('\n\n')}\n`);
  if (failures.length) process.stdout.write(`\nFailures:\n\n${failures.join('\n\n')}\n`);
  return failures.length ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (err) => {
    process.stderr.write(`${(err as Error).stack}\n`);
    process.exit(2);
  },
);
