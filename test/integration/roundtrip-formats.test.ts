import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { readPackageEnvironment } from '../../src/aas/import/aasx-import';
import { readEnvironmentDocument } from '../../src/aas/import/environment-document';
import type { PackageFile } from '../../src/aas/import/import.service';
import { fileElements } from '../../src/aas/model/file-elements';
import type { TenantEntity } from '../../src/management/tenants/tenant.entity';
import { minimalPackage, zipOf } from '../support/aasx-package';
import { expectedItems } from '../support/corpus';
import { emptyListsEnvironment } from '../support/empty-lists';
import { firstDifference } from '../support/json-difference';
import { TestServer, json, startTestServer } from '../support/server';
import { AASX_DIR } from '../support/testdata';
import { xsdProblems } from '../support/xsd';

/**
 * Every export imports again: what a tenant holds, exported as JSON, XML, AASX with an XML spec part and AASX with
 * a JSON one (GET /serialization, the whole tenant), is imported into a fresh tenant, and that tenant then holds the
 * same shells, submodels and concept descriptions, and files of the same bytes. The sources: every Expected
 * document of the aas-core3.0-testgen corpus, every package of test/fixtures/aasx, and a package whose documents
 * hold every list of the metamodel empty (stored with warnings, as imports of packages from other tools are).
 */

type Json = Record<string, unknown>;

const FORMATS = [
  { name: 'JSON', accept: 'application/json', spec: 'json' },
  { name: 'XML', accept: 'application/xml', spec: 'xml' },
  { name: 'AASX+xml', accept: 'application/asset-administration-shell-package+xml', spec: 'aasx' },
  { name: 'AASX+json', accept: 'application/asset-administration-shell-package+json', spec: 'aasx' },
] as const;
type Format = (typeof FORMATS)[number];

/** Counts observed in the corpus; the selection must not silently shrink below them. */
const MIN_CORPUS = { assetAdministrationShells: 751, submodels: 1795, conceptDescriptions: 12 };
const XSD = path.resolve(__dirname, '../fixtures/aas-metamodel-v3.0/AAS.xsd');

let server: TestServer;
let scratch: string;

beforeAll(async () => {
  server = await startTestServer(inject('databaseUrl'));
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'roundtrip-'));
});
afterAll(async () => {
  await server?.close();
  if (scratch) fs.rmSync(scratch, { recursive: true, force: true });
});

/** POST /upload: the AASX import over HTTP (one shell per package). */
async function upload(tenant: TenantEntity, bytes: Buffer): Promise<{ warnings: string[] }> {
  const form = new FormData();
  form.append('file', new Blob([bytes], { type: 'application/asset-administration-shell-package' }), 'package.aasx');
  const res = await fetch(`${server.api(tenant.name)}/upload`, { method: 'POST', body: form });
  const body = await json(res);
  expect(res.status, JSON.stringify(body).slice(0, 800)).toBe(200);
  return body;
}

/** GET /serialization of the whole tenant in `format`. */
async function exported(tenant: TenantEntity, format: Format): Promise<Buffer> {
  const res = await fetch(`${server.api(tenant.name)}/serialization`, { headers: { accept: format.accept } });
  const bytes = Buffer.from(await res.arrayBuffer());
  expect(res.status, bytes.toString('utf8', 0, 800)).toBe(200);
  return bytes;
}

/**
 * Imports an export into `tenant`. A package over HTTP (POST /upload) when it holds one shell, as the AASX import
 * takes exactly one; the corpus's package of hundreds of shells, and JSON and XML documents, which no route
 * imports, through the readers and the import the package import runs (readPackageEnvironment,
 * readEnvironmentDocument, importEnvironment with the package's files).
 */
async function importExport(tenant: TenantEntity, format: Format, bytes: Buffer, oneShell: boolean): Promise<void> {
  if (format.spec === 'aasx' && oneShell) {
    await upload(tenant, bytes);
    return;
  }
  try {
    if (format.spec !== 'aasx') {
      const { environment, warnings } = readEnvironmentDocument(bytes.toString('utf8'), format.spec, `export.${format.spec}`);
      await server.services.imports.importEnvironment(tenant, environment, { warnings });
      return;
    }
    const file = path.join(scratch, `${tenant.name}.aasx`);
    fs.writeFileSync(file, bytes);
    const { pkg, environment, warnings } = await readPackageEnvironment(file);
    const files = {
      get: (name: string): PackageFile | undefined => {
        const part = pkg.part(name);
        return part && { path: part.path, contentType: part.contentType, open: async () => part.stream() };
      },
    };
    await server.services.imports.importEnvironment(tenant, environment, { files, warnings });
  } catch (err) {
    const e = err as { message?: string; extensions?: { messages?: string[] } };
    const more = (e.extensions?.messages ?? []).filter((m) => !e.message?.includes(m)).slice(0, 5);
    throw new Error(`${format.name} export not imported: ${[e.message, ...more].join('; ')}`);
  }
}

/** Every item of a paged list of the tenant's API. */
async function all(tenant: TenantEntity, list: string): Promise<Json[]> {
  const items: Json[] = [];
  // Blob values too: a list leaves them out unless asked.
  const extent = list === 'submodels' ? '&extent=withBlobValue' : '';
  let cursor: string | undefined;
  do {
    const res = await fetch(`${server.api(tenant.name)}/${list}?limit=250${extent}${cursor ? `&cursor=${cursor}` : ''}`);
    const page = await json(res);
    expect(res.status, JSON.stringify(page).slice(0, 500)).toBe(200);
    items.push(...page.result);
    cursor = page.paging_metadata?.cursor;
  } while (cursor);
  return items;
}

interface Contents {
  shells: Map<string, Json>;
  submodels: Map<string, Json>;
  conceptDescriptions: Map<string, Json>;
}

/**
 * What the tenant holds, by id. With `files`, every File value and thumbnail that names a file of the tenant (a
 * tfp: each import stores the files anew, under tfps of its own) is replaced by the bytes its download answers, and
 * one that names a path in a package but no file of the tenant is left out, as a package leaves it out.
 */
async function contents(tenant: TenantEntity, files: boolean): Promise<Contents> {
  const byId = (items: Json[]) => new Map(items.map((item) => [item.id as string, item]));
  const shells = await all(tenant, 'shells');
  const submodels = await all(tenant, 'submodels');
  if (files) {
    const download = async (value: unknown) => {
      if (typeof value !== 'string' || !value.startsWith('file:/sphere/')) return value;
      const res = await fetch(`${server.url}/tenants/${tenant.name}/sphere/api/v1.0/files/${encodeURIComponent(value)}`);
      expect(res.status, value).toBe(200);
      return { bytes: Buffer.from(await res.arrayBuffer()).toString('base64') };
    };
    const inPackage = (value: unknown) => typeof value === 'string' && value !== '' && !value.startsWith('//') && !value.split('/')[0].includes(':');
    for (const shell of shells) {
      const info = shell.assetInformation as Json;
      const thumbnail = info.defaultThumbnail as Json | undefined;
      if (thumbnail && inPackage(thumbnail.path)) delete info.defaultThumbnail;
      else if (thumbnail) thumbnail.path = await download(thumbnail.path);
    }
    for (const submodel of submodels) {
      for (const file of fileElements(submodel)) {
        if (inPackage(file.value)) delete file.value;
        else if (file.value !== undefined) file.value = await download(file.value);
      }
    }
  }
  return { shells: byId(shells), submodels: byId(submodels), conceptDescriptions: byId(await all(tenant, 'concept-descriptions')) };
}

/** The contents with every document as `written` says the exports write it. */
function asWritten(held: Contents, written: (doc: Json) => Json): Contents {
  const map = (docs: Map<string, Json>) => new Map([...docs].map(([id, doc]) => [id, written(doc)]));
  return { shells: map(held.shells), submodels: map(held.submodels), conceptDescriptions: map(held.conceptDescriptions) };
}

/**
 * A document as the exports write it when it holds empty lists: the AAS schemas allow no empty list, so an
 * optional one is left out; the required ones (a Reference's `keys`, a value list's `valueReferencePairs`, IEC
 * 61360 `preferredName`) are written as they are, the stored content's own violation.
 */
function withoutOptionalEmptyLists<T>(value: T): T {
  if (Array.isArray(value)) return value.map(withoutOptionalEmptyLists) as T;
  if (value === null || typeof value !== 'object') return value;
  const out: Json = {};
  for (const [name, inner] of Object.entries(value)) {
    if (Array.isArray(inner) && inner.length === 0 && !['keys', 'valueReferencePairs', 'preferredName'].includes(name)) continue;
    out[name] = withoutOptionalEmptyLists(inner);
  }
  return out as T;
}

/** Where `actual` differs from `expected`: ids missing or extra, and the first difference of each document. */
function differences(actual: Contents, expected: Contents): string[] {
  const found: string[] = [];
  for (const list of ['shells', 'submodels', 'conceptDescriptions'] as const) {
    for (const id of expected[list].keys()) if (!actual[list].has(id)) found.push(`${list}: '${id}' is missing`);
    for (const [id, doc] of actual[list]) {
      const wanted = expected[list].get(id);
      const difference = wanted ? firstDifference(doc, wanted, 'the import of the export') : `'${id}' was not there before`;
      if (difference) found.push(`${list} '${id}': ${difference}`);
    }
  }
  return found;
}

/**
 * The round trips of what `source` holds, through every format: each export imported into a fresh tenant, which
 * then holds what `source` does. File values are compared by the bytes they name where the format carries the
 * files (AASX); JSON and XML carry the values as they are.
 */
async function roundTrips(source: TenantEntity, oneShell: boolean, written: (doc: Json) => Json = (doc) => doc): Promise<{ problems: string[]; xml: string; held: Contents }> {
  const [plain, withFiles] = [asWritten(await contents(source, false), written), asWritten(await contents(source, true), written)];
  const problems: string[] = [];
  let xml = '';
  for (const format of FORMATS) {
    const bytes = await exported(source, format);
    if (format.spec === 'xml') xml = bytes.toString('utf8');
    const again = await server.createTenant();
    await importExport(again, format, bytes, oneShell);
    const files = format.spec === 'aasx';
    problems.push(...differences(await contents(again, files), files ? withFiles : plain).map((p) => `${format.name}: ${p}`));
  }
  return { problems, xml, held: plain };
}

describe('every export imports again', () => {
  it('a package whose documents hold every list empty (keys, valueReferencePairs, preferredName, descriptions, ...): the same documents, optional empty lists left out, and file bytes in every format', async () => {
    const tenant = await server.createTenant();
    const { warnings } = await upload(tenant, zipOf(minimalPackage(JSON.stringify(emptyListsEnvironment()))));
    // Stored with warnings: the empty lists are violations the import reports and keeps.
    expect(warnings.some((w) => w.includes('Keys must contain at least one item'))).toBe(true);
    expect(warnings.some((w) => w.includes('Value reference pair types must contain at least one item'))).toBe(true);
    const stored = await contents(tenant, false);
    expect(stored.submodels.get('urn:empty:sm')?.semanticId).toEqual({ type: 'ExternalReference', keys: [] });
    expect(stored.submodels.get('urn:empty:sm')?.description).toEqual([]);
    expect(stored.submodels.get('urn:empty:sm2')?.submodelElements).toEqual([]);
    const { problems } = await roundTrips(tenant, true, withoutOptionalEmptyLists);
    expect(problems).toEqual([]);
  });

  for (const name of fs.readdirSync(AASX_DIR).filter((f) => f.endsWith('.aasx')).sort()) {
    it(`${name}: the same documents and file bytes in every format`, async () => {
      const tenant = await server.createTenant();
      await upload(tenant, fs.readFileSync(path.join(AASX_DIR, name)));
      const { problems } = await roundTrips(tenant, true);
      expect(problems).toEqual([]);
    });
  }

  it('every Expected shell, submodel and concept description of the corpus: the same documents in every format, and the XML validates against AAS.xsd', { timeout: 180_000 }, async () => {
    // ~30 s on the embedded database (five imports of 2,558 documents), more on a busy machine.
    // Almost every corpus document has the same id: each gets one of its own, the corpus id with its number.
    const tenant = await server.createTenant();
    const counts: Record<string, number> = {};
    const BATCH = 400;
    for (const list of ['conceptDescriptions', 'submodels', 'assetAdministrationShells'] as const) {
      const items = expectedItems(list).map(({ item }, i) => ({ ...item, id: `${String(item.id)}#${i}` }));
      counts[list] = items.length;
      for (let start = 0; start < items.length; start += BATCH) {
        await server.services.imports.importEnvironment(tenant, { [list]: items.slice(start, start + BATCH) });
      }
    }
    for (const [list, min] of Object.entries(MIN_CORPUS)) expect(counts[list]).toBeGreaterThanOrEqual(min);
    const { problems, xml, held } = await roundTrips(tenant, false);
    expect({ assetAdministrationShells: held.shells.size, submodels: held.submodels.size, conceptDescriptions: held.conceptDescriptions.size }).toEqual(counts);
    expect(problems.slice(0, 20)).toEqual([]);
    expect(await xsdProblems(XSD, [{ name: 'corpus-export.xml', contents: xml }])).toEqual([]);
  });
});
