import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { readXmlEnvironment } from '../../src/aas/xml/reader';
import type { TenantEntity } from '../../src/management/tenants/tenant.entity';
import { firstDifference } from '../support/json-difference';
import { TestServer, b64, startTestServer } from '../support/server';
import { jsonSchemaProblems } from '../support/strict-readers';
import { LISTS, roundTripProblems } from '../support/v31-round-trip';
import { filesUnder, v31ExamplesDir } from '../support/testdata';

/**
 * The generated examples of the AAS metamodel V3.1 (admin-shell-io/aas-specs, test/fixtures/aas-specs-v3.1-examples):
 * every shell, submodel and concept description of every JSON example is created through `/api/v3.1` and read back
 * through it unchanged (served as stored: docs/aas-versions.md); every XML example, read by the server's XML reader,
 * is its JSON twin. The examples are V3.1 environments, each with one class set minimally, maximally or to values
 * over one of its patterns. They come from a working branch of the specification, and a few break the released V3.1
 * schema (test/fixtures/aas-metamodel-v3.1): an EmbeddedDataSpecification without its required `dataSpecification`.
 * Those are refused, through the API (400) and by the XML reader; the schema, not this test, says which they are.
 * (Their XML still names the V3.0 namespace; the reader takes both.)
 */

type Json = Record<string, unknown>;

/** Counts of the vendored examples: the selection must not silently shrink. */
const MIN_JSON_EXAMPLES = 2568;
const MIN_IDENTIFIABLES = 2568;
/** Requests in flight at once: each worker has a tenant of its own, which every case leaves empty again. */
const WORKERS = 8;

const root = v31ExamplesDir();
const jsonDir = path.join(root, 'Json');
/** The JSON examples, with their paths below `Json/`. */
const examples = filesUnder(jsonDir, ['.json']).map((file) => {
  const env = JSON.parse(fs.readFileSync(file, 'utf8')) as Json;
  return { file: path.relative(jsonDir, file), env, valid: jsonSchemaProblems(env, 1, '3.1').length === 0 };
});
/** Examples that break the released V3.1 schema: at most a handful. */
const MAX_INVALID_EXAMPLES = 5;
/** The XML twin of a JSON example: the same path, its first folder with a lower-case first letter. */
const xmlTwin = (file: string) => path.join(root, 'Xml', file.charAt(0).toLowerCase() + file.slice(1, -'.json'.length) + '.xml');

let server: TestServer;
const tenants: TenantEntity[] = [];

beforeAll(async () => {
  server = await startTestServer(inject('databaseUrl'));
  for (let i = 0; i < WORKERS; i++) tenants.push(await server.createTenant({ showcase: true, prefix: 'v31ex' }));
}, 120_000);

afterAll(async () => {
  await server?.close();
});

describe('the V3.1 examples of admin-shell-io/aas-specs', () => {
  it('are all there', () => {
    expect(examples.length).toBeGreaterThanOrEqual(MIN_JSON_EXAMPLES);
    expect(examples.filter((e) => !e.valid).length).toBeLessThanOrEqual(MAX_INVALID_EXAMPLES);
    const identifiables = examples.reduce((n, { env }) => n + LISTS.reduce((m, [key]) => m + ((env[key] as unknown[] | undefined)?.length ?? 0), 0), 0);
    expect(identifiables).toBeGreaterThanOrEqual(MIN_IDENTIFIABLES);
  });

  it('read from XML as their JSON twins (the server XML reader)', () => {
    const problems: string[] = [];
    let read = 0;
    for (const { file, env, valid } of examples) {
      const xml = fs.readFileSync(xmlTwin(file), 'utf8');
      read++;
      if (!valid) {
        expect(() => readXmlEnvironment(xml), file).toThrow();
        continue;
      }
      const difference = firstDifference(readXmlEnvironment(xml), env, 'XML reader');
      if (difference) problems.push(`${file}: ${difference}`);
    }
    expect(read).toBe(examples.length);
    expect(problems.slice(0, 20), `${problems.length} of ${examples.length} differ`).toEqual([]);
  });

  it('round-trip through every export of /api/v3.1 (JSON, XML, AASX+xml, AASX+json), strictly valid and read back through V3.1 and V3.0: the minimal and maximal example of every class and the first of every other kind', async () => {
    // The minimal and maximal example of a class are at the top of its folder; each kind of example over a pattern or
    // a bound has a folder below, whose first example (by name) stands for it.
    const chosen = examples.filter(({ file, valid }) => valid && (file.split(path.sep).length === 2 || file === examples.find((e) => path.dirname(e.file) === path.dirname(file))!.file));
    expect(chosen.length).toBeGreaterThanOrEqual(200);
    // The examples share their few ids: each example's ids (and every reference to them) get the example's number, so
    // that all of them are one environment of distinct documents.
    const environment: Json = Object.fromEntries(LISTS.map(([key]) => [key, []]));
    chosen.forEach(({ env }, i) => {
      const ids = new Set(LISTS.flatMap(([key]) => ((env[key] as Json[] | undefined) ?? []).map((doc) => String(doc.id))));
      const renamed = JSON.parse(JSON.stringify(env), (_key, value: unknown) => (typeof value === 'string' && ids.has(value) ? `${value}-example${i}` : value)) as Json;
      for (const [key] of LISTS) (environment[key] as Json[]).push(...((renamed[key] as Json[] | undefined) ?? []));
    });
    const bytes = Buffer.from(JSON.stringify(environment));
    const problems = await roundTripProblems(server, { bytes, name: 'aas-specs-examples.json', type: 'application/json', environment });
    expect(problems.slice(0, 30), `${problems.length} problems`).toEqual([]);
  }, 600_000);

  it('are created through /api/v3.1 and read back through it unchanged, every shell, submodel and concept description', async () => {
    const cases = examples.flatMap(({ file, env, valid }) => LISTS.flatMap(([key, route]) => ((env[key] as Json[] | undefined) ?? []).map((doc) => ({ file, route, doc, valid }))));
    const problems: string[] = [];
    let next = 0;
    await Promise.all(
      tenants.map(async (tenant) => {
        const api = `${server.url}/tenants/${tenant.name}/api/v3.1`;
        for (let i = next++; i < cases.length; i = next++) {
          const { file, route, doc, valid } = cases[i];
          const created = await fetch(`${api}/${route}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(doc) });
          if (!valid) {
            // Refused, and nothing stored.
            if (created.status !== 400) problems.push(`${file} (breaks the V3.1 schema): POST /${route} ${created.status}`);
            const after = await fetch(`${api}/${route}/${b64(String(doc.id))}`);
            if (after.status !== 404) problems.push(`${file} (breaks the V3.1 schema): stored, GET ${after.status}`);
            continue;
          }
          if (created.status !== 201) {
            problems.push(`${file}: POST /${route} ${created.status} ${(await created.text()).slice(0, 300)}`);
            continue;
          }
          await created.arrayBuffer();
          const at = `${api}/${route}/${b64(String(doc.id))}`;
          // A Blob's value is read with `extent=withBlobValue` (the API leaves it out by default).
          const res = await fetch(route === 'submodels' ? `${at}?extent=withBlobValue` : at);
          const difference = res.status === 200 ? firstDifference(await res.json(), doc, 'V3.1 read') : `GET ${res.status}`;
          if (difference) problems.push(`${file}: ${route} ${difference}`);
          const deleted = await fetch(at, { method: 'DELETE' });
          if (deleted.status !== 204) problems.push(`${file}: DELETE /${route} ${deleted.status}`);
        }
      }),
    );
    expect(problems.slice(0, 20), `${problems.length} of ${cases.length} documents`).toEqual([]);
  }, 900_000);
});
