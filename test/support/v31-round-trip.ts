import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { readPackageEnvironment } from '../../src/aas/import/aasx-import';
import { readEnvironmentDocument } from '../../src/aas/import/environment-document';
import type { TenantEntity } from '../../src/management/tenants/tenant.entity';
import { firstDifference } from './json-difference';
import { TestServer, b64 } from './server';
import { jsonSchemaProblems, packageProblems, xmlSchemaProblems } from './strict-readers';

/**
 * The V3.1 round trip of a package or an environment, for test/integration/v31-export-round-trip.test.ts and
 * scripts/v31-templates.ts: imported through `/api/v3.1/upload`, exported through `/api/v3.1/serialization` as JSON,
 * XML, AASX with an XML spec part and AASX with a JSON one; each export checked by the strict readers (the official
 * V3.1 JSON schema with ajv, AAS.xsd with xmllint, a package's File values against its parts), imported into a fresh
 * tenant and read back through `/api/v3.1` and `/api/v3.0`: the whole documents are the source's, after the
 * normalizations the docs name (empty values left out of exports, File values naming the stored files), and the
 * V3.0 ones are the V3.1 ones mapped by the documented rules, applied here independently of the server's code.
 */

export type Json = Record<string, any>;

export const FORMATS = [
  { name: 'JSON', accept: 'application/json', upload: 'application/json', file: 'export.json' },
  { name: 'XML', accept: 'application/xml', upload: 'application/xml', file: 'export.xml' },
  { name: 'AASX+xml', accept: 'application/asset-administration-shell-package+xml', upload: 'application/asset-administration-shell-package', file: 'export.aasx' },
  { name: 'AASX+json', accept: 'application/asset-administration-shell-package+json', upload: 'application/asset-administration-shell-package', file: 'export.aasx' },
] as const;
type Format = (typeof FORMATS)[number];

export const LISTS = [
  ['assetAdministrationShells', 'shells'],
  ['submodels', 'submodels'],
  ['conceptDescriptions', 'concept-descriptions'],
] as const;

const api = (server: TestServer, tenant: TenantEntity, version: '3.0' | '3.1') => server.api(tenant.name).replace(/\/api\/v3\.0$/, `/api/v${version}`);

/** A failed request: what it was and what the server answered. */
const failed = async (what: string, res: Response) => new Error(`${what}: ${res.status} ${(await res.text()).slice(0, 800)}`);

/** POST {v3.1}/upload of a package or an environment. */
async function upload(server: TestServer, tenant: TenantEntity, bytes: Buffer, type: string, name: string): Promise<Json> {
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(bytes)], { type }), name);
  const res = await fetch(`${api(server, tenant, '3.1')}/upload`, { method: 'POST', body: form });
  if (res.status !== 200) throw await failed(`upload of ${name}`, res);
  return (await res.json()) as Json;
}

/** GET {v3.1}/serialization of the whole tenant, every concept description with it. */
async function exported(server: TestServer, tenant: TenantEntity, format: Format): Promise<Buffer> {
  const res = await fetch(`${api(server, tenant, '3.1')}/serialization?allConceptDescriptions=true`, { headers: { accept: format.accept } });
  if (res.status !== 200) throw await failed(`${format.name} export`, res);
  return Buffer.from(await res.arrayBuffer());
}

// ---------------------------------------------------------------------------------------------------------------
// The documented normalizations, applied here independently of the server's code.

/** A Reference's Key: its type and value, nothing else. */
const isKey = (o: Json) => o.modelType === undefined && Object.keys(o).sort().join() === 'type,value';

/**
 * Keys whose value may be the empty string in an export: those that may be empty (Property/Extension/Qualifier
 * value, Range min/max, Blob value), and a Key's value, which is required: it stays as stored, empty or not.
 */
const mayBeEmpty = (parent: Json, key: string) =>
  (key === 'value' && (['Property', 'Blob'].includes(parent.modelType) || (parent.modelType === undefined && ('name' in parent || 'valueType' in parent)) || isKey(parent))) ||
  ((key === 'min' || key === 'max') && parent.modelType === 'Range');
const REQUIRED_LISTS = ['keys', 'valueReferencePairs', 'preferredName'];
const isLangString = (v: unknown) => v !== null && typeof v === 'object' && !Array.isArray(v) && Object.keys(v).sort().join() === 'language,text';

/** A document as the exports write it: empty strings (but values and required ones), language strings without text, empty optional lists left out. */
export function asExported(value: unknown): unknown {
  if (Array.isArray(value)) return value.filter((item) => !(isLangString(item) && (item as Json).text === '')).map(asExported);
  if (value === null || typeof value !== 'object') return value;
  const out: Json = {};
  for (const [key, inner] of Object.entries(value as Json)) {
    if (inner === '' && !mayBeEmpty(value as Json, key)) continue;
    const cleaned = asExported(inner);
    if (Array.isArray(cleaned) && cleaned.length === 0 && !REQUIRED_LISTS.includes(key)) continue;
    out[key] = cleaned;
  }
  return out;
}

/**
 * Every tfp in a document (a File value, a thumbnail) replaced by the SHA-256 of the bytes the tenant serves for it:
 * each import stores the package's files under tfps of its own.
 */
async function withFileHashes(server: TestServer, tenant: TenantEntity, doc: unknown): Promise<unknown> {
  if (Array.isArray(doc)) return Promise.all(doc.map((item) => withFileHashes(server, tenant, item)));
  if (typeof doc === 'string' && doc.startsWith('file:/sphere/')) {
    const res = await fetch(`${server.url}/tenants/${tenant.name}/sphere/api/v1.0/files/${encodeURIComponent(doc)}`);
    if (res.status !== 200) throw await failed(`download of ${doc}`, res);
    return `sha256:${createHash('sha256').update(Buffer.from(await res.arrayBuffer())).digest('hex')}`;
  }
  if (doc === null || typeof doc !== 'object') return doc;
  const out: Json = {};
  for (const [key, inner] of Object.entries(doc as Json)) out[key] = await withFileHashes(server, tenant, inner);
  return out;
}

/** Whether a File value names a part of a package: a relative reference, no scheme, no network path (RFC 3986, 4.2). */
const inPackage = (value: string) => !value.startsWith('//') && !value.split('/')[0].includes(':');

/**
 * A document as the AASX exports write it: a File value or a default thumbnail that names a path in the package but
 * no file the tenant holds (the import stored every file the package had, each value naming one now names its tfp)
 * is left out, so that the package has the part of every value (docs/files-aasx-serialization.md, "An AASX export is
 * consistent").
 */
function asPackaged(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(asPackaged);
  if (value === null || typeof value !== 'object') return value;
  const out: Json = {};
  for (const [key, inner] of Object.entries(value as Json)) {
    if (key === 'value' && (value as Json).modelType === 'File' && typeof inner === 'string' && inner !== '' && inPackage(inner)) continue;
    if (key === 'defaultThumbnail' && typeof inner?.path === 'string' && inPackage(inner.path)) continue;
    out[key] = asPackaged(inner);
  }
  return out;
}

const isRelationship = (e: Json) => e.modelType === 'RelationshipElement' || e.modelType === 'AnnotatedRelationshipElement';

/**
 * A V3.1 document as docs/aas-versions.md says a V3.0 reader gets it: `Role` read as `NotApplicable`, an Entity
 * without `entityType` self-managed when it has an asset id, else co-managed, a File or Blob without `contentType`
 * `application/octet-stream`, a relationship without an end left out. Also says whether anything was mapped.
 */
export function asV30(doc: Json): { doc: Json; mapped: boolean } {
  let mapped = false;
  const element = (e: Json): Json | undefined => {
    if (isRelationship(e) && (e.first === undefined || e.second === undefined)) {
      mapped = true;
      return undefined;
    }
    const out: Json = { ...e };
    if (e.modelType === 'Entity' && e.entityType === undefined) {
      mapped = true;
      out.entityType = e.globalAssetId !== undefined || e.specificAssetIds !== undefined ? 'SelfManagedEntity' : 'CoManagedEntity';
    }
    if ((e.modelType === 'File' || e.modelType === 'Blob') && e.contentType === undefined) {
      mapped = true;
      out.contentType = 'application/octet-stream';
    }
    for (const key of ['value', 'statements', 'annotations', 'inputVariables', 'outputVariables', 'inoutputVariables']) {
      if (!Array.isArray(e[key]) || e.modelType === 'MultiLanguageProperty') continue;
      out[key] = key.endsWith('Variables')
        ? e[key].map((v: Json) => ({ ...v, value: element(v.value) })).filter((v: Json) => v.value !== undefined)
        : e[key].map(element).filter((c: Json | undefined) => c !== undefined);
    }
    return out;
  };
  const out: Json = { ...doc };
  if (doc.assetInformation?.assetKind === 'Role') {
    mapped = true;
    out.assetInformation = { ...doc.assetInformation, assetKind: 'NotApplicable' };
  }
  if (Array.isArray(doc.submodelElements)) out.submodelElements = doc.submodelElements.map(element).filter((e: Json | undefined) => e !== undefined);
  return { doc: out, mapped };
}

const ID_SHORT_V30 = /^[a-zA-Z][a-zA-Z0-9_]*$/;

/**
 * Whether a document uses what only a constraint V3.1 relaxed allows (the table of docs/aas-versions.md): a hyphen
 * in an idShort, an idShort on a list's item, a data element's category other than V3.0's three, a co-managed
 * entity with an asset id, an Identifier over 2,000 characters, a ContentType over 100. Read through V3.0 such a
 * document is served as stored, and still says it is V3.1 content (X-AAS-Version-Mapped).
 */
export function usesRelaxations(value: unknown, inList = false): boolean {
  if (Array.isArray(value)) return value.some((item) => usesRelaxations(item, inList));
  if (value === null || typeof value !== 'object') return typeof value === 'string' && value.length > 2000;
  const o = value as Json;
  if (typeof o.idShort === 'string' && o.idShort !== '' && (!ID_SHORT_V30.test(o.idShort) || (inList && o.modelType))) return true;
  if (['Property', 'MultiLanguageProperty', 'Range', 'ReferenceElement', 'File', 'Blob'].includes(o.modelType) && typeof o.category === 'string' && !['CONSTANT', 'PARAMETER', 'VARIABLE'].includes(o.category)) return true;
  if (o.modelType === 'Entity' && o.entityType === 'CoManagedEntity' && (o.globalAssetId !== undefined || o.specificAssetIds?.length)) return true;
  if (typeof o.contentType === 'string' && o.contentType.length > 100) return true;
  return Object.entries(o).some(([key, inner]) => usesRelaxations(inner, o.modelType === 'SubmodelElementList' && key === 'value'));
}

/** GET one document by id through a version of the API, with the mapping header. */
async function read(server: TestServer, tenant: TenantEntity, version: '3.0' | '3.1', list: string, id: string): Promise<{ doc: Json; mappedHeader: string | null }> {
  const extent = list === 'submodels' ? '?extent=withBlobValue' : '';
  const res = await fetch(`${api(server, tenant, version)}/${list}/${b64(id)}${extent}`);
  if (res.status !== 200) throw await failed(`${list} ${id} through V${version}`, res);
  return { doc: (await res.json()) as Json, mappedHeader: res.headers.get('x-aas-version-mapped') };
}

/**
 * `work` for every item, `BATCH` at a time: a package's hundreds of documents at once would open more connections
 * than the server takes from one client (MAX_CONNECTIONS_PER_CLIENT, 128), and it resets the others.
 */
const BATCH = 16;
async function inBatches<T>(items: T[], work: (item: T) => Promise<void>): Promise<void> {
  for (let i = 0; i < items.length; i += BATCH) await Promise.all(items.slice(i, i + BATCH).map(work));
}

/** The ids of every document of a list of the tenant, page after page (250 a page). */
async function listedIds(server: TestServer, tenant: TenantEntity, list: string): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | undefined;
  do {
    const res = await fetch(`${api(server, tenant, '3.1')}/${list}?limit=250${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    if (res.status !== 200) throw await failed(`the list of ${list}`, res);
    const page = (await res.json()) as Json;
    ids.push(...page.result.map((d: Json) => d.id));
    cursor = page.paging_metadata?.cursor;
  } while (cursor);
  return ids;
}

/** What a round trip takes: an AASX package, or a JSON or XML environment. */
export interface RoundTripSource {
  bytes: Buffer;
  /** The file name the upload gives. */
  name: string;
  /** The upload's content type. */
  type: string;
  /** The environment as JSON, as the server's reader reads it. */
  environment: Json;
}

const UPLOAD_TYPES: Record<string, string> = {
  '.aasx': 'application/asset-administration-shell-package',
  '.json': 'application/json',
  '.xml': 'application/xml',
};

/** A file (`.aasx`, `.json` or `.xml`) as a round trip's source, with the AAS version its spec part(s) are read as. */
export async function roundTripSource(file: string): Promise<RoundTripSource & { version: string | undefined }> {
  const bytes = fs.readFileSync(file);
  const ext = path.extname(file).toLowerCase();
  const type = UPLOAD_TYPES[ext];
  if (!type) throw new Error(`${file}: not an .aasx, .json or .xml file`);
  if (ext === '.aasx') {
    const { environment, version } = await readPackageEnvironment(file);
    return { bytes, name: path.basename(file), type, environment: environment as Json, version };
  }
  const read = readEnvironmentDocument(bytes.toString('utf8'), ext === '.json' ? 'json' : 'xml', path.basename(file));
  return { bytes, name: path.basename(file), type, environment: read.environment as Json, version: read.version };
}

/**
 * Every problem of the source's round trip through each format, in the order found (strict readers' refusals, then
 * differences of the documents read back); empty when it round-trips. A refused upload, export or read throws.
 */
export async function roundTripProblems(server: TestServer, source: RoundTripSource): Promise<string[]> {
  const tenant = await server.createTenant();
  const imported = await upload(server, tenant, source.bytes, source.type, source.name);
  // What the import changes by design: a File value or thumbnail naming a file of the package names the stored file.
  const tfpOf = new Map<string, string>(((imported.files ?? []) as Json[]).map((f) => [f.path, f.tfp]));
  const stored = JSON.parse(JSON.stringify(source.environment), (key, value: unknown) =>
    (key === 'value' || key === 'path') && typeof value === 'string' && tfpOf.has(value) ? tfpOf.get(value) : value,
  ) as Json;
  // Two documents with one id: the first is kept (with a warning).
  for (const [key] of LISTS) {
    const seen = new Set<string>();
    if (stored[key]) stored[key] = (stored[key] as Json[]).filter((d) => !seen.has(d.id) && seen.add(d.id));
  }
  const problems: string[] = [];
  for (const format of FORMATS) {
    const bytes = await exported(server, tenant, format);
    let strict: string[];
    if (format.name === 'JSON') strict = jsonSchemaProblems(JSON.parse(bytes.toString('utf8')), 20, '3.1');
    else if (format.name === 'XML') strict = await xmlSchemaProblems(bytes.toString('utf8'), format.file, '3.1');
    else {
      const { spec, dangling } = await packageProblems(bytes);
      strict = dangling.map((d) => `dangling File value ${d}`);
      strict.push(...(format.name === 'AASX+xml' ? await xmlSchemaProblems(spec, format.file, '3.1') : jsonSchemaProblems(JSON.parse(spec), 20, '3.1')));
    }
    problems.push(...strict.map((p) => `${format.name} export, strict reader: ${p}`));

    const again = await server.createTenant();
    await upload(server, again, bytes, format.upload, format.file);
    const packaged = format.name.startsWith('AASX');
    // Each document read through both versions, several at once (a package has up to 330).
    for (const [key, list] of LISTS) {
      await inBatches((stored[key] ?? []) as Json[], async (expectedDoc) => {
        // JSON and XML carry File values as they are (the source tenant's tfps); packages carry the files.
        const expected = asExported(packaged ? await withFileHashes(server, tenant, asPackaged(expectedDoc)) : expectedDoc) as Json;
        const v31 = await read(server, again, '3.1', list, expectedDoc.id);
        const actual = packaged ? ((await withFileHashes(server, again, v31.doc)) as Json) : v31.doc;
        const difference = firstDifference(actual, expected, `V3.1 read of the ${format.name} export`);
        if (difference) problems.push(`${format.name}: ${list} '${expectedDoc.id}': ${difference}`);
        const v30 = await read(server, again, '3.0', list, expectedDoc.id);
        const mapped = asV30(expected);
        const actual30 = packaged ? ((await withFileHashes(server, again, v30.doc)) as Json) : v30.doc;
        const difference30 = firstDifference(actual30, mapped.doc, `V3.0 read of the ${format.name} export`);
        if (difference30) problems.push(`${format.name}: ${list} '${expectedDoc.id}' (V3.0): ${difference30}`);
        const v31Content = mapped.mapped || usesRelaxations(expected);
        if (v30.mappedHeader !== (v31Content ? '3.1->3.0' : null)) problems.push(`${format.name}: ${list} '${expectedDoc.id}': X-AAS-Version-Mapped ${v30.mappedHeader}, V3.1 content: ${v31Content}`);
      });
    }
    // Nothing more than the source's: every document of the new tenant is one of them.
    for (const [key, list] of LISTS) {
      const ids = (await listedIds(server, again, list)).sort().join('\n');
      const expectedIds = ((stored[key] ?? []) as Json[]).map((d) => d.id).sort().join('\n');
      if (ids !== expectedIds) problems.push(`${format.name}: ${list} of the new tenant: ${JSON.stringify(ids.split('\n')).slice(0, 400)}, expected ${JSON.stringify(expectedIds.split('\n')).slice(0, 400)}`);
    }
  }
  return problems;
}
