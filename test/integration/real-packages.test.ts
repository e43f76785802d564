import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { readAasxPackage } from '../../src/aas/aasx';
import { fileElements } from '../../src/aas/model/file-elements';
import type { TenantEntity } from '../../src/management/tenants/tenant.entity';
import { TestServer, b64, startTestServer } from '../support/server';
import { AASX_DIR } from '../support/testdata';

/**
 * Real packages, as published: the IDTA submodel templates (V3.0 and V3.1), the samples of the AASX Package
 * Explorer and its server (V1.0, V2.0, V3.0 RC and V3.0), and with `AASX_PACKAGES_DIR` (directories separated by
 * `:`, searched recursively) every `.aasx` found there, e.g. a checkout of admin-shell-io/submodel-templates.
 *
 * Each package, in a tenant of its own: is imported through the platform's REST route (200; a package of several
 * shells, which that route refuses, through the BaSyx-compatible `/upload`; a file that is no package at all, 400);
 * is exported in the four formats and each export, imported through `/upload` into a fresh tenant, reads back the
 * same shells, submodels and concept descriptions; every shell and submodel it brought is read and
 * written back unchanged (a tolerant import keeps only what the API can serve and take again); and every submodel
 * takes an element POST, PUT and DELETE.
 */

interface Package {
  /** The name in the test titles: the path below the fixture folder or the `AASX_PACKAGES_DIR` entry. */
  name: string;
  file: string;
}

const aasxIn = (dir: string, recursive: boolean): string[] =>
  fs
    .readdirSync(dir, { recursive, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.toLowerCase().endsWith('.aasx'))
    .map((entry) => path.join(entry.parentPath, entry.name))
    .sort();

/** The vendored packages: the real ones beside the other tests' (`test/fixtures/aasx/*.aasx`) and `real/`. */
const VENDORED: Package[] = [...aasxIn(AASX_DIR, false), ...aasxIn(path.join(AASX_DIR, 'real'), false)].map((file) => ({ name: path.relative(AASX_DIR, file), file }));

const FETCHED: Package[] = (process.env.AASX_PACKAGES_DIR ?? '')
  .split(':')
  .filter((dir) => dir !== '')
  .flatMap((dir) => aasxIn(dir, true).map((file) => ({ name: `${path.basename(path.resolve(dir))}/${path.relative(dir, file)}`, file })));

/** Files that are no packages at all: a 400 saying so is the only right answer. */
const NOT_PACKAGES: { why: string; matches: (bytes: Buffer) => boolean; reason: RegExp }[] = [
  {
    // `published/MTP/1/0/IDTA 02001-1-0_Subomdel_MTPv1.0-rc2-with-documentation.aasx` in snapshots of the
    // templates repository that lack its blob.
    why: 'an empty file',
    matches: (bytes) => bytes.length === 0,
    reason: /not a zip file/i,
  },
];

const FORMATS = [
  { accept: 'application/json', file: 'export.json', packaged: false },
  { accept: 'application/xml', file: 'export.xml', packaged: false },
  { accept: 'application/asset-administration-shell-package+xml', file: 'export.aasx', packaged: true },
  { accept: 'application/asset-administration-shell-package+json', file: 'export.aasx', packaged: true },
] as const;

type Json = Record<string, unknown>;

interface ImportAnswer {
  shells: { id: string }[];
  submodels: { id: string }[];
  conceptDescriptions: { id: string }[];
  files: unknown[];
  warnings: string[];
}

/** Documents by id: what GET answers for each (`{ status }` where it is not 200). */
type Documents = Record<string, unknown>;

interface Contents {
  shells: Documents;
  submodels: Documents;
  conceptDescriptions: Documents;
}

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer(inject('databaseUrl'));
});
afterAll(() => server?.close());

/** The status and the message texts of an answer (the body where it has no Result messages), shortened. */
async function outcome(res: Response): Promise<{ status: number; text: string; body: unknown }> {
  const raw = await res.text();
  let body: unknown = raw;
  let all = raw;
  try {
    body = JSON.parse(raw);
    const messages = (body as { messages?: { text: string }[] }).messages;
    if (messages) all = messages.map((m) => m.text).join(' | ');
  } catch {
    // not JSON: the raw text
  }
  return { status: res.status, text: `${res.status} ${all.slice(0, 800)}`, body };
}

const ok = (status: number) => status >= 200 && status < 300;

/**
 * Posts a file to an import route: the platform's (`/sphere/api/v1.0/import`, an AASX package of exactly one
 * shell), or the BaSyx-compatible `/api/v3.0/upload` (AASX, JSON or XML, any number of shells).
 */
function importInto(tenant: TenantEntity, bytes: Buffer, fileName: string, type: string, route: 'platform' | 'upload'): Promise<Response> {
  const form = new FormData();
  form.append('file', new Blob([bytes], { type }), fileName);
  const url = route === 'platform' ? `${server.url}/tenants/${tenant.name}/sphere/api/v1.0/import` : `${server.api(tenant.name)}/upload`;
  return fetch(url, { method: 'POST', body: form });
}

/** The shells of a package, by its spec parts' `assetAdministrationShell` elements or JSON modelTypes. */
async function shellCount(bytes: Buffer): Promise<number> {
  let count = 0;
  for (const spec of (await readAasxPackage(bytes)).specs) {
    const text = await spec.text();
    count += (text.match(/<(?:\w+:)?assetAdministrationShell[\s>]/g) ?? []).length + (text.match(/"modelType"\s*:\s*"AssetAdministrationShell"/g) ?? []).length;
  }
  return count;
}

const PATHS = { shells: 'shells', submodels: 'submodels', conceptDescriptions: 'concept-descriptions' } as const;

/** GETs `ids` of each kind from the tenant, a few at a time. */
async function read(tenant: TenantEntity, ids: { shells: string[]; submodels: string[]; conceptDescriptions: string[] }): Promise<Contents> {
  const contents: Contents = { shells: {}, submodels: {}, conceptDescriptions: {} };
  const work = (Object.keys(PATHS) as (keyof typeof PATHS)[]).flatMap((kind) => ids[kind].map((id) => ({ kind, id })));
  const next = async (): Promise<void> => {
    for (let item = work.shift(); item; item = work.shift()) {
      const res = await fetch(`${server.api(tenant.name)}/${PATHS[item.kind]}/${b64(item.id)}`);
      contents[item.kind][item.id] = res.status === 200 ? await res.json() : { status: res.status, body: await res.text() };
    }
  };
  await Promise.all(Array.from({ length: 6 }, next));
  return contents;
}

/** The contents restricted to `ids`. */
function pick(contents: Contents, ids: { shells: string[]; submodels: string[]; conceptDescriptions: string[] }): Contents {
  const of = (documents: Documents, list: string[]) => Object.fromEntries(list.map((id) => [id, documents[id]]));
  return { shells: of(contents.shells, ids.shells), submodels: of(contents.submodels, ids.submodels), conceptDescriptions: of(contents.conceptDescriptions, ids.conceptDescriptions) };
}

/**
 * The contents with every File value and asset thumbnail that is a tfp of `tenant` replaced by the digest of the
 * bytes it names: tfps differ from tenant to tenant, the bytes must not.
 */
async function withFileBytes(tenant: TenantEntity, contents: Contents): Promise<Contents> {
  const copy = structuredClone(contents);
  const digests = new Map<string, unknown>();
  const resolve = async (value: unknown) => {
    if (typeof value !== 'string' || !value.startsWith(`file:/sphere/${tenant.name}/`)) return value;
    if (!digests.has(value)) {
      const res = await fetch(`${server.url}/tenants/${tenant.name}/sphere/api/v1.0/files/${encodeURIComponent(value)}`);
      const bytes = Buffer.from(await res.arrayBuffer());
      digests.set(value, res.status === 200 ? { file: createHash('sha256').update(bytes).digest('hex'), size: bytes.length } : { file: value, status: res.status });
    }
    return digests.get(value);
  };
  // A value naming a path in a package but no file of the tenant: an AASX export leaves it out (it would have no part).
  const inPackage = (value: unknown) => typeof value === 'string' && value !== '' && !value.startsWith('//') && !value.split('/')[0].includes(':');
  for (const shell of Object.values(copy.shells) as Json[]) {
    const info = shell.assetInformation as Json | undefined;
    const thumbnail = info?.defaultThumbnail as Json | undefined;
    if (thumbnail && inPackage(thumbnail.path)) delete info!.defaultThumbnail;
    else if (thumbnail) thumbnail.path = await resolve(thumbnail.path);
  }
  for (const submodel of Object.values(copy.submodels)) {
    for (const file of fileElements(submodel)) {
      if (inPackage(file.value)) delete file.value;
      else if (file.value !== undefined) file.value = await resolve(file.value);
    }
  }
  return copy;
}

/** Every `keys[].value` of a reference anywhere in `value`. */
function referenceKeys(value: unknown, out = new Set<string>()): Set<string> {
  if (Array.isArray(value)) for (const item of value) referenceKeys(item, out);
  else if (value !== null && typeof value === 'object') {
    const object = value as Json;
    if (typeof object.type === 'string' && Array.isArray(object.keys)) for (const key of object.keys as Json[]) if (typeof key.value === 'string') out.add(key.value);
    for (const child of Object.values(object)) referenceKeys(child, out);
  }
  return out;
}

/** The `valueId`s of the IEC 61360 value lists anywhere in a concept description. */
function valueIds(value: unknown, out = new Set<string>()): Set<string> {
  if (Array.isArray(value)) for (const item of value) valueIds(item, out);
  else if (value !== null && typeof value === 'object') {
    const object = value as Json;
    if (Array.isArray(object.valueReferencePairs)) for (const pair of object.valueReferencePairs as Json[]) referenceKeys(pair.valueId, out);
    for (const child of Object.values(object)) valueIds(child, out);
  }
  return out;
}

/**
 * The concept descriptions an export of these submodels carries (the documented rule): those any reference key
 * of the submodels names, and those their value lists' `valueId`s name, followed on.
 */
function referencedConceptDescriptions(contents: Contents): string[] {
  const found = new Set<string>();
  let next = [...referenceKeys(Object.values(contents.submodels))].filter((id) => id in contents.conceptDescriptions);
  while (next.length) {
    for (const id of next) found.add(id);
    next = [...new Set(next.flatMap((id) => [...valueIds(contents.conceptDescriptions[id])]))].filter((id) => id in contents.conceptDescriptions && !found.has(id));
  }
  return [...found].sort();
}

/** An element of a submodel: its idShortPath and where it sits, depth-first in document order. */
interface Found {
  element: Json;
  path: string;
  siblings: Json[];
  index: number;
}

const CHILDREN: Record<string, string> = { SubmodelElementCollection: 'value', SubmodelElementList: 'value', Entity: 'statements', AnnotatedRelationshipElement: 'annotations' };

function walk(elements: Json[], prefix = '', out: Found[] = []): Found[] {
  elements.forEach((element, index) => {
    const at = prefix === '' ? String(element.idShort) : `${prefix}.${String(element.idShort)}`;
    out.push({ element, path: at, siblings: elements, index });
    descend(element, at, out);
  });
  return out;
}

function descend(element: Json, at: string, out: Found[]): void {
  const key = CHILDREN[element.modelType as string];
  const children = key ? ((element[key] as Json[] | undefined) ?? []) : [];
  if (element.modelType !== 'SubmodelElementList') {
    walk(children, at, out);
    return;
  }
  children.forEach((child, index) => {
    out.push({ element: child, path: `${at}[${index}]`, siblings: children, index });
    descend(child, `${at}[${index}]`, out);
  });
}

const elementsOf = (submodel: Json): Json[] => (submodel.submodelElements as Json[] | undefined) ?? [];

/** `submodel` with the element at `path` replaced by `element`. */
function replaced(submodel: Json, at: string, element: Json): Json {
  const copy = structuredClone(submodel);
  const found = walk(elementsOf(copy)).find((f) => f.path === at)!;
  found.siblings[found.index] = element;
  return copy;
}

/** A top-level idShort the submodel does not have yet. */
function freshIdShort(submodel: Json): string {
  const taken = new Set(elementsOf(submodel).map((e) => e.idShort));
  let name = 'AddedByRealPackagesTest';
  for (let i = 2; taken.has(name); i++) name = `AddedByRealPackagesTest${i}`;
  return name;
}

const PACKAGES = [...VENDORED, ...FETCHED];

it('the vendored set is there', () => {
  expect(VENDORED.length).toBeGreaterThanOrEqual(20);
});

describe.each(PACKAGES.map((p) => [p.name, p.file]))('%s', (_name, file) => {
  let tenant: TenantEntity;
  /** The first import's answer; undefined where the package was not imported. */
  let imported: ImportAnswer | undefined;
  let ids: { shells: string[]; submodels: string[]; conceptDescriptions: string[] };
  let contents: Contents;
  /** `contents` with the bytes of the files in place of their tfps, made once. */
  let contentsWithFiles: Promise<Contents> | undefined;

  const api = () => server.api(tenant.name);
  const send = (method: string, url: string, body?: unknown) =>
    fetch(`${api()}${url}`, { method, headers: body === undefined ? {} : { 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  const sm = (id: string) => `/submodels/${b64(id)}`;
  const el = (id: string, idShortPath: string) => `${sm(id)}/submodel-elements/${encodeURIComponent(idShortPath)}`;
  const getSubmodel = async (id: string): Promise<Json> => {
    const res = await send('GET', sm(id));
    expect(res.status, `GET submodel ${id}`).toBe(200);
    return (await res.json()) as Json;
  };

  it('imports (200; a package of several shells through /upload), or is refused (400) for being no package', async ({ annotate }) => {
    const bytes = fs.readFileSync(file);
    tenant = await server.createTenant();
    const type = 'application/asset-administration-shell-package';
    let { status, text, body } = await outcome(await importInto(tenant, bytes, path.basename(file), type, 'platform'));
    const notPackage = NOT_PACKAGES.find((b) => b.matches(bytes));
    if (notPackage) {
      expect(status, `${notPackage.why}: ${text}`).toBe(400);
      expect(text, `${notPackage.why}: the answer says why`).toMatch(notPackage.reason);
      return;
    }
    const shells = status === 400 ? /The package holds (\d+) shells; an AASX import takes exactly one/.exec(text) : null;
    if (shells) {
      // The platform's import takes one shell a package; a package of several goes through /upload, as BaSyx's does.
      expect(Number(shells[1]), 'the package really holds another number of shells than one').toBe(await shellCount(bytes));
      await annotate(`${shells[1]} shells: imported through /upload`);
      ({ status, text, body } = await outcome(await importInto(tenant, bytes, path.basename(file), type, 'upload')));
    }
    expect(status, `import: ${text}`).toBe(200);
    imported = body as ImportAnswer;
    ids = {
      shells: imported.shells.map((s) => s.id).sort(),
      submodels: imported.submodels.map((s) => s.id).sort(),
      conceptDescriptions: imported.conceptDescriptions.map((s) => s.id).sort(),
    };
    contents = await read(tenant, ids);
    for (const kind of Object.keys(PATHS) as (keyof typeof PATHS)[]) {
      for (const [id, doc] of Object.entries(contents[kind])) expect.soft((doc as Json).status, `GET ${PATHS[kind]} ${id} after the import`).toBeUndefined();
    }
  });

  it.for(FORMATS.map((f) => [f.accept, f] as const))('exported as %s and imported into a fresh tenant: the same shells, submodels and concept descriptions', async ([, format], { skip }) => {
    if (!imported) return skip('not imported');
    const query = [...ids.shells.map((id) => `aasIds=${b64(id)}`), ...ids.submodels.map((id) => `submodelIds=${b64(id)}`), 'includeConceptDescriptions=true'].join('&');
    const exported = await fetch(`${api()}/serialization?${query}`, { headers: { accept: format.accept } });
    if (exported.status !== 200) expect(exported.status, `export: ${(await outcome(exported)).text}`).toBe(200);
    const bytes = Buffer.from(await exported.arrayBuffer());

    const second = await server.createTenant();
    const again = await outcome(await importInto(second, bytes, format.file, format.accept, 'upload'));
    expect(again.status, `import of the export: ${again.text}`).toBe(200);
    const answer = again.body as ImportAnswer;
    expect({ shells: answer.shells.map((s) => s.id).sort(), submodels: answer.submodels.map((s) => s.id).sort() }, 'the shells and submodels imported again').toEqual({
      shells: ids.shells,
      submodels: ids.submodels,
    });
    const cds = answer.conceptDescriptions.map((c) => c.id).sort();
    // The export carries the concept descriptions the submodels reference; the package may have held more.
    expect(cds.filter((id) => !ids.conceptDescriptions.includes(id)), 'concept descriptions the package did not hold').toEqual([]);
    expect(referencedConceptDescriptions(contents).filter((id) => !cds.includes(id)), 'referenced concept descriptions the export left out').toEqual([]);

    const secondIds = { ...ids, conceptDescriptions: cds };
    // A package carries the files, so the tfps are new ones that must name the same bytes. JSON and XML carry
    // the values only: the first tenant's tfps come back as they were written.
    const before = pick(format.packaged ? await (contentsWithFiles ??= withFileBytes(tenant, contents)) : contents, secondIds);
    const after = format.packaged ? await withFileBytes(second, await read(second, secondIds)) : await read(second, secondIds);
    for (const kind of Object.keys(PATHS) as (keyof typeof PATHS)[]) {
      for (const id of Object.keys(before[kind])) expect.soft(after[kind][id], `${PATHS[kind]} ${id}`).toEqual(before[kind][id]);
    }
  });

  it('every shell and submodel it brought: GET, then PUT of the same document, 2xx, and it reads back unchanged', async ({ skip }) => {
    if (!imported) return skip('not imported');
    for (const [kind, list] of [['shells', ids.shells], ['submodels', ids.submodels]] as const) {
      for (const id of list) {
        const url = `/${kind}/${b64(id)}`;
        const got = await send('GET', url);
        expect.soft(got.status, `GET ${kind} ${id}`).toBe(200);
        if (got.status !== 200) continue;
        const doc = await got.json();
        const put = await outcome(await send('PUT', url, doc));
        expect.soft(ok(put.status), `PUT ${kind} ${id} back: ${put.text}`).toBe(true);
        if (ok(put.status)) expect.soft(await (await send('GET', url)).json(), `${kind} ${id} after the PUT`).toEqual(doc);
      }
    }
  });

  it('every submodel takes an element POST, a PUT of an element as it is and changed, and a DELETE', async ({ skip }) => {
    if (!imported) return skip('not imported');
    for (const id of ids.submodels) {
      const before = await getSubmodel(id);
      const added = { modelType: 'Property', idShort: freshIdShort(before), valueType: 'xs:string', value: 'added by a client' };
      const post = await outcome(await send('POST', `${sm(id)}/submodel-elements`, added));
      expect.soft(post.status, `${id}: POST ${added.idShort}: ${post.text}`).toBe(201);
      if (post.status !== 201) continue;
      let expected: Json = { ...before, submodelElements: [...elementsOf(before), added] };
      expect.soft(await getSubmodel(id), `${id}: after the POST`).toEqual(expected);

      // The first element, as it is.
      const first = String(elementsOf(expected)[0].idShort);
      const got = await send('GET', el(id, first));
      expect.soft(got.status, `${id}: GET ${first}`).toBe(200);
      if (got.status === 200) {
        const same = await outcome(await send('PUT', el(id, first), await got.json()));
        expect.soft(ok(same.status), `${id}: PUT ${first} as it is: ${same.text}`).toBe(true);
        expect.soft(await getSubmodel(id), `${id}: after the PUT of ${first} as it is`).toEqual(expected);
      }

      // A string Property of the package with a new value; where there is none, the first element with a new description.
      const property = walk(elementsOf(before)).find((f) => f.element.modelType === 'Property' && f.element.valueType === 'xs:string');
      const target = property ?? walk(elementsOf(expected))[0];
      const changed = property
        ? { ...target.element, value: 'changed by a client' }
        : { ...target.element, description: [{ language: 'en', text: 'Changed by a client' }] };
      const put = await outcome(await send('PUT', el(id, target.path), changed));
      expect.soft(ok(put.status), `${id}: PUT ${target.path} changed: ${put.text}`).toBe(true);
      if (ok(put.status)) {
        expected = replaced(expected, target.path, changed);
        expect.soft(await getSubmodel(id), `${id}: after the PUT of ${target.path} changed`).toEqual(expected);
      }

      const del = await outcome(await send('DELETE', el(id, added.idShort)));
      expect.soft(del.status, `${id}: DELETE ${added.idShort}: ${del.text}`).toBe(204);
      if (del.status === 204) {
        const rest = elementsOf(expected).filter((e) => e.idShort !== added.idShort);
        const { submodelElements: _, ...head } = expected;
        expect.soft(await getSubmodel(id), `${id}: after the DELETE of ${added.idShort}`).toEqual(rest.length ? { ...head, submodelElements: rest } : head);
      }
    }
  });
});
