import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { readPackageEnvironment } from '../../src/aas/import/aasx-import';
import type { TenantEntity } from '../../src/management/tenants/tenant.entity';
import { firstDifference } from '../support/json-difference';
import { TestServer, b64, json, startTestServer } from '../support/server';
import { jsonSchemaProblems, packageProblems, xmlSchemaProblems } from '../support/strict-readers';
import { AASX_DIR } from '../support/testdata';

/**
 * AAS V3.1 exports, read by strict readers and imported again: every IDTA template package for metamodel V3.1 the
 * repository carries is imported, exported through `/api/v3.1/serialization` as JSON, XML, AASX with an XML spec
 * part and AASX with a JSON one; each export validates against the official V3.1 schemas (AAS.xsd with xmllint, the
 * JSON schema with ajv), is imported into a fresh tenant and read back through `/api/v3.1`: the whole documents are
 * the package's, after the normalizations the docs name (empty values left out of exports, File values naming the
 * stored files). The same documents read through `/api/v3.0` are the V3.1 ones mapped by the documented rules,
 * which this test applies itself (`asV30` below).
 */

type Json = Record<string, any>;

/** The V3.1 packages: their spec parts are V3.1 XML (namespace https://admin-shell.io/aas/3/1). */
const PACKAGES = [
  'IDTA_02011-1-1-1_Template_HSEBoM_forAASMetamodelV3.1.aasx',
  'IDTA_02020_Template_Capability_Description.aasx',
  'IDTA_02056-1-0-1_Template_Data_Retention_Policies_forAASMetamodelV3.1.aasx',
  'real/deprecated_Technical_Data_1_2_1_IDTA_02003-1-2-1_Template_TechnicalData_forAASMetamodelV3.1.aasx',
  'real/published_Asset_Interfaces_Description_1_1_IDTA_02017-1-1_Template_Asset_Interfaces_Description.aasx',
  'real/published_Carbon_Footprint_1_0_1_IDTA_02023-1-0-1__Template_CarbonFootprint_forAASMetamodelV3.1.aasx',
  'real/published_Contact_Information_1_0_1_IDTA_02002-1-0-1_Template_ContactInformation_forAASMetamodelV3.1.aasx',
  'real/published_Digital_Battery_Passport_1_Digital_Nameplate_1_0_IDTA_02035-1_DBP-Part-1_Digital_Nameplate.aasx',
  'real/published_Digital_Product_Passport_Digital_Product_Passport_Part-1_1_0_1_IDTA_02099-1_Template_Digital_Product_Passport_-_Part_1.aasx',
  'real/published_Handover_Documentation_2_0_1_IDTA_02004-2-0-1_Template_HandoverDocumentation__forAASMetamodelV3.1.aasx',
  'real/published_Time_Series_Data_1_1_1_IDTA_02008-1-1-1_Template_TimeSeriesData_forAASMetamodelV3.1.aasx',
];
/** A package of older XML (AAS V2.0) whose documents, read as V3, use what only V3.1 allows. */
const V31_CONTENT = ['real/src_BlazorUI_TimesSeries_-_6_-_admin-shell-io-2.aasx'];

const FORMATS = [
  { name: 'JSON', accept: 'application/json', upload: 'application/json', file: 'export.json' },
  { name: 'XML', accept: 'application/xml', upload: 'application/xml', file: 'export.xml' },
  { name: 'AASX+xml', accept: 'application/asset-administration-shell-package+xml', upload: 'application/asset-administration-shell-package', file: 'export.aasx' },
  { name: 'AASX+json', accept: 'application/asset-administration-shell-package+json', upload: 'application/asset-administration-shell-package', file: 'export.aasx' },
] as const;
type Format = (typeof FORMATS)[number];

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer(inject('databaseUrl'));
});
afterAll(() => server?.close());

const api = (tenant: TenantEntity, version: '3.0' | '3.1') => server.api(tenant.name).replace(/\/api\/v3\.0$/, `/api/v${version}`);

/** POST {v3.1}/upload of a package or an environment. */
async function upload(tenant: TenantEntity, bytes: Buffer, type: string, name: string): Promise<Json> {
  const form = new FormData();
  form.append('file', new Blob([bytes], { type }), name);
  const res = await fetch(`${api(tenant, '3.1')}/upload`, { method: 'POST', body: form });
  const body = await json(res);
  expect(res.status, JSON.stringify(body).slice(0, 800)).toBe(200);
  return body;
}

/** GET {v3.1}/serialization of the whole tenant, every concept description with it. */
async function exported(tenant: TenantEntity, format: Format): Promise<Buffer> {
  const res = await fetch(`${api(tenant, '3.1')}/serialization?allConceptDescriptions=true`, { headers: { accept: format.accept } });
  const bytes = Buffer.from(await res.arrayBuffer());
  expect(res.status, bytes.toString('utf8', 0, 800)).toBe(200);
  return bytes;
}

// ---------------------------------------------------------------------------------------------------------------
// The documented normalizations, applied here independently of the server's code.

/** Keys whose value may be the empty string in an export (Property/Extension/Qualifier value, Range min/max, Blob value). */
const mayBeEmpty = (parent: Json, key: string) =>
  (key === 'value' && (['Property', 'Blob'].includes(parent.modelType) || (parent.modelType === undefined && ('name' in parent || 'valueType' in parent)))) ||
  ((key === 'min' || key === 'max') && parent.modelType === 'Range');
const REQUIRED_LISTS = ['keys', 'valueReferencePairs', 'preferredName'];
const isLangString = (v: unknown) => v !== null && typeof v === 'object' && !Array.isArray(v) && Object.keys(v).sort().join() === 'language,text';

/** A document as the exports write it: empty strings (but values), language strings without text, empty optional lists left out. */
function asExported(value: unknown): unknown {
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
async function withFileHashes(tenant: TenantEntity, doc: unknown): Promise<unknown> {
  if (Array.isArray(doc)) return Promise.all(doc.map((item) => withFileHashes(tenant, item)));
  if (typeof doc === 'string' && doc.startsWith('file:/sphere/')) {
    const res = await fetch(`${server.url}/tenants/${tenant.name}/sphere/api/v1.0/files/${encodeURIComponent(doc)}`);
    expect(res.status, doc).toBe(200);
    return `sha256:${createHash('sha256').update(Buffer.from(await res.arrayBuffer())).digest('hex')}`;
  }
  if (doc === null || typeof doc !== 'object') return doc;
  const out: Json = {};
  for (const [key, inner] of Object.entries(doc as Json)) out[key] = await withFileHashes(tenant, inner);
  return out;
}

const isRelationship = (e: Json) => e.modelType === 'RelationshipElement' || e.modelType === 'AnnotatedRelationshipElement';

/**
 * A V3.1 document as docs/aas-versions.md says a V3.0 reader gets it: `Role` read as `NotApplicable`, an Entity
 * without `entityType` self-managed when it has an asset id, else co-managed, a File or Blob without `contentType`
 * `application/octet-stream`, a relationship without an end left out. Also says whether anything was mapped.
 */
function asV30(doc: Json): { doc: Json; mapped: boolean } {
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
function usesRelaxations(value: unknown, inList = false): boolean {
  if (Array.isArray(value)) return value.some((item) => usesRelaxations(item, inList));
  if (value === null || typeof value !== 'object') return typeof value === 'string' && value.length > 2000;
  const o = value as Json;
  if (typeof o.idShort === 'string' && o.idShort !== '' && (!ID_SHORT_V30.test(o.idShort) || (inList && o.modelType))) return true;
  if (['Property', 'MultiLanguageProperty', 'Range', 'ReferenceElement', 'File', 'Blob'].includes(o.modelType) && typeof o.category === 'string' && !['CONSTANT', 'PARAMETER', 'VARIABLE'].includes(o.category)) return true;
  if (o.modelType === 'Entity' && o.entityType === 'CoManagedEntity' && (o.globalAssetId !== undefined || o.specificAssetIds?.length)) return true;
  if (typeof o.contentType === 'string' && o.contentType.length > 100) return true;
  return Object.entries(o).some(([key, inner]) => usesRelaxations(inner, o.modelType === 'SubmodelElementList' && key === 'value'));
}

const LISTS = [
  ['assetAdministrationShells', 'shells'],
  ['submodels', 'submodels'],
  ['conceptDescriptions', 'concept-descriptions'],
] as const;

/** GET one document by id through a version of the API, with the mapping header. */
async function read(tenant: TenantEntity, version: '3.0' | '3.1', list: string, id: string): Promise<{ doc: Json; mappedHeader: string | null }> {
  const extent = list === 'submodels' ? '?extent=withBlobValue' : '';
  const res = await fetch(`${api(tenant, version)}/${list}/${b64(id)}${extent}`);
  const doc = await json(res);
  expect(res.status, `${list} ${id} through V${version}: ${JSON.stringify(doc).slice(0, 400)}`).toBe(200);
  return { doc, mappedHeader: res.headers.get('x-aas-version-mapped') };
}

describe('AAS V3.1 exports: strict schemas, and round trips through every format', () => {
  it('the strict readers refuse what V3.1 forbids: an empty idShort, an element out of its place', async () => {
    const bad = { submodels: [{ modelType: 'Submodel', id: 'urn:strict:sm', idShort: '' }] };
    expect(jsonSchemaProblems(bad, 20, '3.1').join('\n')).toMatch(/idShort/);
    const ns = 'https://admin-shell.io/aas/3/1';
    const good = `<environment xmlns="${ns}"><submodels><submodel><idShort>Sm</idShort><id>urn:strict:sm</id></submodel></submodels></environment>`;
    expect(await xmlSchemaProblems(good, 'good.xml', '3.1')).toEqual([]);
    expect((await xmlSchemaProblems(good.replace('<idShort>Sm</idShort><id>urn:strict:sm</id>', '<id>urn:strict:sm</id><idShort>Sm</idShort>'), 'bad.xml', '3.1')).join('\n')).toMatch(/idShort/);
    // A V3.0 document is not a V3.1 one.
    expect((await xmlSchemaProblems(good.replace(ns, 'https://admin-shell.io/aas/3/0'), 'v30.xml', '3.1')).length).toBeGreaterThan(0);
  });

  it('the packages listed are the V3.1 ones', async () => {
    for (const name of PACKAGES) expect((await readPackageEnvironment(path.join(AASX_DIR, name))).version, name).toBe('3.1');
    for (const name of V31_CONTENT) {
      const { environment } = (await readPackageEnvironment(path.join(AASX_DIR, name))) as { environment: Json };
      const documents = LISTS.flatMap(([key]) => (environment[key] ?? []) as Json[]);
      expect(documents.some((doc) => asV30(asExported(doc) as Json).mapped || usesRelaxations(doc)), name).toBe(true);
    }
  });

  for (const name of [...PACKAGES, ...V31_CONTENT]) {
    it(`${path.basename(name)}: every V3.1 export validates and imports again as the same documents, read through V3.1 and V3.0`, async () => {
      const file = path.join(AASX_DIR, name);
      const { environment } = await readPackageEnvironment(file);
      const source = await server.createTenant();
      const imported = await upload(source, fs.readFileSync(file), 'application/asset-administration-shell-package', path.basename(name));
      // What the import changes by design: a File value or thumbnail naming a file of the package names the stored file.
      const tfpOf = new Map<string, string>(imported.files.map((f: Json) => [f.path, f.tfp]));
      const stored = JSON.parse(JSON.stringify(environment), (key, value: unknown) =>
        (key === 'value' || key === 'path') && typeof value === 'string' && tfpOf.has(value) ? tfpOf.get(value) : value,
      ) as Json;
      // Two concept descriptions with one id: the first is kept (with a warning).
      for (const [key] of LISTS) {
        const seen = new Set<string>();
        if (stored[key]) stored[key] = (stored[key] as Json[]).filter((d) => !seen.has(d.id) && seen.add(d.id));
      }
      const problems: string[] = [];
      for (const format of FORMATS) {
        const bytes = await exported(source, format);
        // The strict readers.
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
        await upload(again, bytes, format.upload, format.file);
        const packaged = format.name.startsWith('AASX');
        // Each document read through both versions, the documents at once (a package has up to 110).
        for (const [key, list] of LISTS) {
          await Promise.all(((stored[key] ?? []) as Json[]).map(async (expectedDoc) => {
            // JSON and XML carry File values as they are (the source tenant's tfps); packages carry the files.
            const expected = asExported(packaged ? await withFileHashes(source, expectedDoc) : expectedDoc) as Json;
            const v31 = await read(again, '3.1', list, expectedDoc.id);
            const actual = packaged ? ((await withFileHashes(again, v31.doc)) as Json) : v31.doc;
            const difference = firstDifference(actual, expected, `V3.1 read of the ${format.name} export`);
            if (difference) problems.push(`${format.name}: ${list} '${expectedDoc.id}': ${difference}`);
            const v30 = await read(again, '3.0', list, expectedDoc.id);
            const mapped = asV30(expected);
            const actual30 = packaged ? ((await withFileHashes(again, v30.doc)) as Json) : v30.doc;
            const difference30 = firstDifference(actual30, mapped.doc, `V3.0 read of the ${format.name} export`);
            if (difference30) problems.push(`${format.name}: ${list} '${expectedDoc.id}' (V3.0): ${difference30}`);
            const v31Content = mapped.mapped || usesRelaxations(expected);
            if (v30.mappedHeader !== (v31Content ? '3.1->3.0' : null)) problems.push(`${format.name}: ${list} '${expectedDoc.id}': X-AAS-Version-Mapped ${v30.mappedHeader}, V3.1 content: ${v31Content}`);
          }));
        }
        // Nothing more than the package's: every document of the new tenant is one of them.
        for (const [key, list] of LISTS) {
          const page = await json(fetch(`${api(again, '3.1')}/${list}?limit=250`));
          expect(page.result.map((d: Json) => d.id).sort(), `${format.name} ${list}`).toEqual(((stored[key] ?? []) as Json[]).map((d) => d.id).sort());
        }
      }
      expect(problems.slice(0, 30)).toEqual([]);
    });
  }
});
