import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { fileElements } from '../../src/aas/model/file-elements';
import type { TenantEntity } from '../../src/management/tenants/tenant.entity';
import { NS, type RawEntry, minimalPackage, rels, zerosBomb, zipOf } from '../support/aasx-package';
import { sendFile } from '../support/file-suite';
import { writeXmlEnvironment } from '../../src/aas/xml/writer';
import { TestServer, b64, json, sampleShell, startTestServer } from '../support/server';
import { AASX_DIR as PACKAGES } from '../support/testdata';

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer(inject('databaseUrl'));
});
afterAll(() => server?.close());

function upload(tenant: TenantEntity, bytes: Buffer, name = 'package.aasx', path = '/upload', headers: Record<string, string> = {}) {
  const form = new FormData();
  form.append('file', new Blob([bytes], { type: 'application/asset-administration-shell-package' }), name);
  const url = path === '/upload' ? `${server.api(tenant.name)}/upload` : `${server.url}/tenants/${tenant.name}${path}`;
  return fetch(url, { method: 'POST', body: form, headers });
}

/**
 * The tenant's shells and submodels, with every File value and thumbnail replaced by the bytes it names; a value
 * that names a path in a package but no file of the tenant is left out, as an AASX export leaves it out.
 */
async function contents(tenant: TenantEntity): Promise<unknown> {
  const api = server.api(tenant.name);
  const inPackage = (value: unknown) => typeof value === 'string' && value !== '' && !value.startsWith('//') && !value.split('/')[0].includes(':');
  const resolve = async (value: unknown) => {
    if (typeof value !== 'string' || !value.startsWith('file:/sphere/')) return value;
    const res = await fetch(`${server.url}/tenants/${tenant.name}/sphere/api/v1.0/files/${encodeURIComponent(value)}`);
    return { bytes: Buffer.from(await res.arrayBuffer()).toString('base64') };
  };
  const shells = (await json(fetch(`${api}/shells`))).result;
  for (const shell of shells) {
    const thumb = shell.assetInformation.defaultThumbnail;
    if (thumb && inPackage(thumb.path)) delete shell.assetInformation.defaultThumbnail;
    else if (thumb) thumb.path = await resolve(thumb.path);
  }
  const submodels = (await json(fetch(`${api}/submodels`))).result;
  for (const sm of submodels) {
    for (const file of fileElements(sm)) {
      if (inPackage(file.value)) delete file.value;
      else if (file.value !== undefined) file.value = await resolve(file.value);
    }
  }
  const cds = (await json(fetch(`${api}/concept-descriptions`))).result;
  return { shells, submodels, cds };
}

describe('AASX import over HTTP (POST /upload, POST /sphere/api/v1.0/import)', () => {
  for (const name of fs.readdirSync(PACKAGES).filter((f) => f.endsWith('.aasx')).sort()) {
    it(`${name}: imports; serialized as AASX and imported again, the same data and the same file bytes`, async () => {
      const first = await server.createTenant();
      const res = await upload(first, fs.readFileSync(path.join(PACKAGES, name)));
      const body = await json(res);
      expect(res.status, JSON.stringify(body).slice(0, 500)).toBe(200);
      expect(body.shells).toHaveLength(1);
      const query = `?aasIds=${b64(body.shells[0].id)}${body.submodels.map((s: { id: string }) => `&submodelIds=${b64(s.id)}`).join('')}`;
      for (const type of ['application/asset-administration-shell-package+xml', 'application/asset-administration-shell-package+json']) {
        const exported = await fetch(`${server.api(first.name)}/serialization${query}`, { headers: { accept: type } });
        expect(exported.status).toBe(200);
        const second = await server.createTenant();
        const again = await upload(second, Buffer.from(await exported.arrayBuffer()), 'again.aasx', '/sphere/api/v1.0/import');
        const againBody = await json(again);
        expect(again.status, JSON.stringify(againBody).slice(0, 500)).toBe(200);
        const [a, b] = [(await contents(first)) as { cds: unknown[] }, (await contents(second)) as { cds: unknown[] }];
        // The export carries the concept descriptions the submodels reference; the package may have had more.
        expect({ ...b, cds: [] }).toEqual({ ...a, cds: [] });
        for (const cd of b.cds) expect(a.cds).toContainEqual(cd);
      }
    });
  }

  it('bad packages are 400 and store nothing; no multipart 415; no token on a non-showcase tenant 401', async () => {
    const tenant = await server.createTenant();
    for (const bytes of [Buffer.from('not a zip'), Buffer.alloc(0)]) {
      const res = await upload(tenant, bytes);
      expect(res.status).toBe(400);
      expect((await json(res)).messages[0].text).toBeTruthy();
    }
    expect((await json(fetch(`${server.api(tenant.name)}/shells`))).result).toEqual([]);
    expect((await json(fetch(`${server.url}/tenants/${tenant.name}/sphere/api/v1.0/files`))).result).toEqual([]);
    const plain = await fetch(`${server.api(tenant.name)}/upload`, { method: 'POST', body: 'x', headers: { 'content-type': 'text/plain' } });
    expect(plain.status).toBe(415);
    const closed = await server.createTenant({ showcase: false });
    expect((await upload(closed, Buffer.from('x'))).status).toBe(401);
  });
});

// ---- bad packages through both routes: 400 with a Result saying why, and nothing stored ----

const SHELL_ID = 'urn:bad-aasx:shell';
const ROUTES = ['/upload', '/sphere/api/v1.0/import'];

/** The good package's environment: one shell (the seeded one's id, so an overwrite would show), a File, a CD. */
function environment(shells = [sampleShell(SHELL_ID, { idShort: 'Imported' })]): string {
  return JSON.stringify({
    assetAdministrationShells: shells,
    submodels: [
      {
        modelType: 'Submodel',
        id: 'urn:bad-aasx:sm',
        idShort: 'Documents',
        submodelElements: [{ modelType: 'File', idShort: 'Manual', contentType: 'application/pdf', value: '/aasx/files/manual.pdf' }],
      },
    ],
    conceptDescriptions: [{ modelType: 'ConceptDescription', id: 'urn:bad-aasx:cd', idShort: 'Manual' }],
  });
}

/** The good package's entries: every bad package below is this one with one thing broken. */
const goodEntries = () => minimalPackage(environment());

/** The good package with its JSON spec part replaced by `/aasx/data.xml` holding `xml`. */
function xmlPackage(xml: string): Buffer {
  const entries = goodEntries();
  delete entries['aasx/data.json'];
  delete entries['aasx/_rels/data.json.rels'];
  entries['aasx/_rels/aasx-origin.rels'] = rels([`${NS}/aas-spec`, '/aasx/data.xml']);
  entries['aasx/data.xml'] = xml;
  entries['aasx/_rels/data.xml.rels'] = rels([`${NS}/aas-suppl`, 'files/manual.pdf']);
  return zipOf(entries);
}

/** The good package with the entry `name` replaced by a raw one (a bomb). */
function replacing(name: string, entry: Omit<RawEntry, 'name'>): Buffer {
  const entries = goodEntries();
  delete entries[name];
  return zipOf(entries, [{ name, ...entry }]);
}

const V3_SHELL_XML =
  '<assetAdministrationShells><assetAdministrationShell><idShort>&xxe;</idShort><id>urn:bad-aasx:shell</id>' +
  '<assetInformation><assetKind>Instance</assetKind><globalAssetId>urn:bad-aasx:asset</globalAssetId></assetInformation>' +
  '</assetAdministrationShell></assetAdministrationShells>';
const MiB = 1024 * 1024;

/** [case, package, what the Result's text must say]. Built lazily: the bombs are a few MiB each. */
const BAD_PACKAGES: [string, () => Buffer, RegExp][] = [
  ['not a zip', () => Buffer.from('{"assetAdministrationShells":[]}'), /Not a valid AASX package: .*not a zip/],
  [
    'a zip without an origin relationship',
    () => zipOf({ ...goodEntries(), '_rels/.rels': rels(['http://schemas.openxmlformats.org/package/2006/relationships/metadata/thumbnail', '/aasx/files/manual.pdf']) }),
    /no aasx-origin relationship/,
  ],
  [
    'a zip bomb declaring its size (1 GiB in 1 MiB)',
    () => zipOf(goodEntries(), [{ name: 'aasx/files/zeros.bin', compressed: zerosBomb(1024), declaredSize: 1024 * MiB, crc: 0 }]),
    /"aasx\/files\/zeros.bin" has a compression ratio of \d+; at most 100/,
  ],
  [
    // Declaring 3 MiB (a harmless ratio), the file is stored in 256 KB chunks until it inflates past that, inside
    // the import's transaction: the chunks already written must go with it.
    'a zip bomb lying about its size, as the file a File element names (stopped while it is being stored)',
    () => replacing('aasx/files/manual.pdf', { compressed: zerosBomb(1024), declaredSize: 3 * MiB, crc: 0 }),
    /"aasx\/files\/manual.pdf" inflates to more than its declared 3145728 bytes/,
  ],
  [
    'a zip bomb lying about its size, as the spec part',
    () => replacing('aasx/data.json', { compressed: zerosBomb(1024), declaredSize: 1000, crc: 0 }),
    /"aasx\/data.json" inflates to more than its declared 1000 bytes/,
  ],
  ['an entry named ../../x', () => zipOf(goodEntries(), [{ name: '../../x', data: 'x' }]), /"\.\.\/\.\.\/x".*".." segment/],
  ['an entry with an absolute path (/etc/x)', () => zipOf(goodEntries(), [{ name: '/etc/x', data: 'x' }]), /"\/etc\/x".*absolute path/],
  [
    'an XML spec part with an external entity (XXE)',
    () =>
      xmlPackage(
        '<?xml version="1.0"?><!DOCTYPE environment [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>' +
          `<environment xmlns="https://admin-shell.io/aas/3/0">${V3_SHELL_XML}</environment>`,
      ),
    /\/aasx\/data.xml: .*DOCTYPE/,
  ],
  [
    'an XML spec part with a DTD-only DOCTYPE',
    () =>
      xmlPackage(
        '<?xml version="1.0"?><!DOCTYPE environment SYSTEM "http://127.0.0.1:9/aas.dtd">' +
          `<environment xmlns="https://admin-shell.io/aas/3/0">${V3_SHELL_XML.replace('&xxe;', 'Imported')}</environment>`,
      ),
    /\/aasx\/data.xml: .*DOCTYPE/,
  ],
  [
    'an XML spec part with its DOCTYPE behind 100 KB of comments',
    () =>
      xmlPackage(
        `<?xml version="1.0"?><!--${' '.repeat(100_000)}--><!DOCTYPE environment [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>` +
          `<environment xmlns="https://admin-shell.io/aas/3/0">${V3_SHELL_XML}</environment>`,
      ),
    /\/aasx\/data.xml: .*DOCTYPE/,
  ],
];

/** A tenant with one shell and one file, so that "as before" is not "empty". */
async function seededTenant(): Promise<TenantEntity> {
  const seeded = await server.createTenant();
  const shell = await fetch(`${server.api(seeded.name)}/shells`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(sampleShell(SHELL_ID, { idShort: 'Seeded' })),
  });
  expect(shell.status).toBe(201);
  const file = await sendFile(`${server.url}/tenants/${seeded.name}/sphere/api/v1.0/files`, Buffer.from('seeded file'), { name: 'seed.txt', type: 'text/plain' });
  expect(file.status).toBe(201);
  return seeded;
}

/** Everything an import could leave behind: the documents, the file list, and the rows under them. */
async function state(t: TenantEntity) {
  const api = server.api(t.name);
  const list = async (url: string) => {
    const res = await fetch(url);
    expect(res.status, url).toBe(200);
    return (await json(res)).result;
  };
  // The rows too: the file list leaves out files other modules hold, and the chunks are the content itself.
  const fileRows: unknown[] = await server.dataSource.query('SELECT id, document_id, content_id, sha256 FROM files WHERE tenant_id = $1 ORDER BY id', [t.id]);
  const [{ chunks }]: { chunks: number }[] = await server.dataSource.query(
    'SELECT count(*)::int AS chunks FROM file_chunks WHERE tenant_id = $1',
    [t.id],
  );
  return {
    shells: await list(`${api}/shells`),
    submodels: await list(`${api}/submodels`),
    conceptDescriptions: await list(`${api}/concept-descriptions`),
    fileList: await list(`${server.url}/tenants/${t.name}/sphere/api/v1.0/files`),
    fileRows,
    chunks,
  };
}

describe('bad AASX packages over HTTP: 400 with a Result saying why, nothing stored', () => {
  let tenant: TenantEntity;

  beforeAll(async () => {
    tenant = await seededTenant();
  });

  for (const route of ROUTES) {
    it(`${route}: the good package the bad ones are made from imports (the control)`, async () => {
      const control = await seededTenant();
      const before = await state(control);
      expect(before.shells.map((s: { idShort: string }) => s.idShort)).toEqual(['Seeded']);
      expect(before.fileList).toHaveLength(1);
      expect(before.chunks).toBeGreaterThan(0);

      const res = await upload(control, zipOf(goodEntries()), 'good.aasx', route);
      const body = await json(res);
      expect(res.status, JSON.stringify(body)).toBe(200);
      expect(body).toMatchObject({
        shells: [{ id: SHELL_ID, status: 'updated' }],
        submodels: [{ id: 'urn:bad-aasx:sm', status: 'created' }],
        conceptDescriptions: [{ id: 'urn:bad-aasx:cd', status: 'created' }],
        files: [{ path: '/aasx/files/manual.pdf', tfp: expect.stringMatching(/^file:\/sphere\//) }],
      });
      const after = await state(control);
      expect(after.shells.map((s: { idShort: string }) => s.idShort)).toEqual(['Imported']);
      expect(after.submodels[0].submodelElements[0].value).toBe(body.files[0].tfp);
      expect(after.conceptDescriptions).toHaveLength(1);
      expect(after.fileList).toHaveLength(2);
      expect(after.fileRows).toHaveLength(2);
      expect(after.chunks).toBeGreaterThan(before.chunks);
    });

    // Lenient where the data can be stored (issue: warnings, not refusals): a package whose spec part declares a
    // supplementary file it lacks imports, says so, and leaves that File's value as it was (not a tfp).
    it(`${route}: a supplementary relationship naming a missing part imports with a warning`, async () => {
      const lenient = await seededTenant();
      const entries = goodEntries();
      delete entries['aasx/files/manual.pdf'];
      const res = await upload(lenient, zipOf(entries), 'cut.aasx', route);
      const body = await json(res);
      expect(res.status, JSON.stringify(body)).toBe(200);
      expect(body.files).toEqual([]);
      expect(body.warnings.join('\n')).toMatch(/"\/aasx\/files\/manual.pdf".*missing/);
      const after = await state(lenient);
      expect(after.shells.map((s: { idShort: string }) => s.idShort)).toEqual(['Imported']);
      expect(after.submodels[0].submodelElements[0].value).toBe('/aasx/files/manual.pdf');
      expect(after.fileList).toHaveLength(1);
    });

    for (const [name, bytes, text] of BAD_PACKAGES) {
      it(`${route}: ${name}`, async () => {
        const before = await state(tenant);
        const res = await upload(tenant, bytes(), 'bad.aasx', route);
        const body = await json(res);
        expect(res.status, JSON.stringify(body)).toBe(400);
        expect(res.headers.get('content-type')).toMatch(/^application\/json/);
        expect(body.messages).toHaveLength(1);
        expect(body.messages[0]).toMatchObject({ code: '400', messageType: 'Error', correlationId: res.headers.get('x-request-id') });
        expect(body.messages[0].text).toMatch(text);
        // Nothing of the server's own files comes back.
        expect(body.messages[0].text).not.toMatch(/root:/);
        expect(await state(tenant)).toEqual(before);
      });
    }
  }
});

// ---- POST /upload as the BaSyx AAS Environment's: AASX, JSON or XML, any number of shells ----

const PLATFORM = '/sphere/api/v1.0/import';
const SECOND_ID = 'urn:bad-aasx:second';
const twoShells = () => [sampleShell(SHELL_ID, { idShort: 'Imported' }), sampleShell(SECOND_ID, { idShort: 'Second' })];
const xmlOf = (env: string) => writeXmlEnvironment(JSON.parse(env));

/** A multipart upload with the part's content type, file name and part name as given; `query` after the path. */
function send(tenant: TenantEntity, bytes: Buffer | string, { type = '', name = 'upload', part = 'file', route = '/upload', query = '' } = {}) {
  const form = new FormData();
  form.append(part, new Blob([bytes], type ? { type } : {}), name);
  const url = route === '/upload' ? `${server.api(tenant.name)}/upload${query}` : `${server.url}/tenants/${tenant.name}${route}${query}`;
  return fetch(url, { method: 'POST', body: form });
}

describe('POST /upload takes what the BaSyx AAS Environment takes; the platform import stays an AASX with one shell', () => {
  /** [case, bytes, part content type, file name]: the good environment, told apart each way BaSyx clients send it. */
  const FORMS: [string, () => Buffer | string, string, string][] = [
    ['JSON by its content type (application/json), whatever the name', () => environment(), 'application/json', 'environment.bin'],
    ['XML by its content type (application/xml)', () => xmlOf(environment()), 'application/xml', 'environment.bin'],
    ['XML by its content type (text/xml)', () => xmlOf(environment()), 'text/xml', 'upload'],
    ['JSON by its name (.json), sent as application/octet-stream', () => environment(), 'application/octet-stream', 'environment.json'],
    ['XML by its name (.xml), sent without a content type', () => xmlOf(environment()), '', 'environment.xml'],
    ['JSON by its content ({), octet-stream without an extension', () => `\ufeff \n${environment()}`, 'application/octet-stream', 'upload'],
    ['XML by its content (<), octet-stream without an extension', () => xmlOf(environment()), 'application/octet-stream', 'upload'],
  ];

  for (const [name, bytes, type, fileName] of FORMS) {
    it(`an environment: ${name}; created or overwritten, File values kept as they are`, async () => {
      const tenant = await seededTenant();
      const before = await state(tenant);
      const res = await send(tenant, bytes(), { type, name: fileName });
      const body = await json(res);
      expect(res.status, JSON.stringify(body)).toBe(200);
      expect(body).toMatchObject({
        shells: [{ id: SHELL_ID, status: 'updated' }],
        submodels: [{ id: 'urn:bad-aasx:sm', status: 'created' }],
        conceptDescriptions: [{ id: 'urn:bad-aasx:cd', status: 'created' }],
        files: [],
        aasIds: [SHELL_ID],
      });
      // No package, so no file of it: the File keeps its value, and the answer says so.
      expect(body.warnings.join('\n')).toMatch(/File 'Manual': '\/aasx\/files\/manual.pdf' is no file of the package \(kept as it is\)/);
      const after = await state(tenant);
      expect(after.shells.map((s: { idShort: string }) => s.idShort)).toEqual(['Imported']);
      expect(after.submodels[0].submodelElements[0].value).toBe('/aasx/files/manual.pdf');
      expect(after.fileRows).toEqual(before.fileRows);
    });
  }

  it('an AASX package by its content: octet-stream, no extension (the zip header)', async () => {
    const tenant = await seededTenant();
    const res = await send(tenant, zipOf(goodEntries()), { type: 'application/octet-stream', name: 'upload' });
    const body = await json(res);
    expect(res.status, JSON.stringify(body)).toBe(200);
    expect(body).toMatchObject({ shells: [{ id: SHELL_ID, status: 'updated' }], files: [{ path: '/aasx/files/manual.pdf' }], aasIds: [SHELL_ID] });
  });

  it('several shells, in a package and in an environment: all imported by /upload; the platform import refuses them, naming its rule', async () => {
    const forms: [string, Buffer | string, string][] = [
      ['package', zipOf(minimalPackage(environment(twoShells()))), 'application/asset-administration-shell-package'],
      ['JSON', environment(twoShells()), 'application/json'],
      ['XML', xmlOf(environment(twoShells())), 'application/xml'],
    ];
    for (const [what, bytes, type] of forms) {
      const tenant = await seededTenant();
      const res = await send(tenant, bytes, { type, name: `two.${what === 'package' ? 'aasx' : what.toLowerCase()}` });
      const body = await json(res);
      expect(res.status, `${what}: ${JSON.stringify(body)}`).toBe(200);
      expect(body.shells).toEqual([
        { id: SHELL_ID, status: 'updated' },
        { id: SECOND_ID, status: 'created' },
      ]);
      expect(body.aasIds).toEqual([SHELL_ID, SECOND_ID]);
      expect((await state(tenant)).shells.map((s: { idShort: string }) => s.idShort).sort()).toEqual(['Imported', 'Second']);
    }
    const tenant = await seededTenant();
    const before = await state(tenant);
    const res = await send(tenant, forms[0][1], { type: forms[0][2], name: 'two.aasx', route: PLATFORM });
    const body = await json(res);
    expect(res.status).toBe(400);
    expect(body.messages[0].text).toMatch(/holds 2 shells; an AASX import takes exactly one/);
    expect(await state(tenant)).toEqual(before);
  });

  it('no shells: an environment of submodels imports by /upload (as in BaSyx); the platform import refuses it', async () => {
    const tenant = await seededTenant();
    const env = environment([]);
    const res = await send(tenant, env, { type: 'application/json', name: 'submodels.json' });
    const body = await json(res);
    expect(res.status, JSON.stringify(body)).toBe(200);
    expect(body).toMatchObject({ shells: [], aasIds: [], submodels: [{ id: 'urn:bad-aasx:sm', status: 'created' }] });
    const other = await seededTenant();
    const before = await state(other);
    const refused = await send(other, zipOf(minimalPackage(env)), { type: 'application/asset-administration-shell-package', name: 'none.aasx', route: PLATFORM });
    expect(refused.status).toBe(400);
    expect((await json(refused)).messages[0].text).toMatch(/holds 0 shells; an AASX import takes exactly one/);
    expect(await state(other)).toEqual(before);
  });

  it('the platform import takes only AASX packages: a JSON environment is 400', async () => {
    const tenant = await seededTenant();
    const before = await state(tenant);
    const res = await send(tenant, environment(), { type: 'application/json', name: 'env.json', route: PLATFORM });
    expect(res.status).toBe(400);
    expect((await json(res)).messages[0].text).toMatch(/Not a valid AASX package/);
    expect(await state(tenant)).toEqual(before);
  });

  it('?ignore-duplicates=true|false (the BaSyx Web UI sends it) is accepted; other values and other parameters are 400', async () => {
    const tenant = await seededTenant();
    for (const query of ['?ignore-duplicates=true', '?ignore-duplicates=false']) {
      const res = await send(tenant, environment(), { type: 'application/json', query });
      expect(res.status, query).toBe(200);
    }
    const before = await state(tenant);
    for (const [query, text] of [
      ['?ignore-duplicates=yes', /ignore-duplicates must be true or false/],
      ['?overwrite=true', /Unknown query parameter 'overwrite'/],
    ] as const) {
      const res = await send(tenant, environment(), { type: 'application/json', query });
      expect(res.status, query).toBe(400);
      expect((await json(res)).messages[0].text).toMatch(text);
    }
    const platform = await send(tenant, zipOf(goodEntries()), { type: 'application/asset-administration-shell-package', route: PLATFORM, query: '?ignore-duplicates=true' });
    expect(platform.status).toBe(400);
    expect(await state(tenant)).toEqual(before);
  });

  /** [case, bytes, content type, file name, part name, what the Result's text must say]. */
  const BAD_UPLOADS: [string, Buffer | string, string, string, string, RegExp][] = [
    ['an empty file (octet-stream)', '', 'application/octet-stream', 'upload', 'file', /upload is empty/],
    ['an empty file sent as JSON', '', 'application/json', 'env.json', 'file', /env.json is empty/],
    ['blanks sent as XML', ' \n ', 'application/xml', 'env.xml', 'file', /env.xml is empty/],
    ['neither JSON, XML nor a zip', 'hello, world', 'application/octet-stream', 'upload', 'file', /neither an AASX package nor a JSON or XML environment/],
    ['broken JSON', '{"assetAdministrationShells": [', 'application/json', 'env.json', 'file', /env.json is not valid JSON/],
    ['JSON that is no environment', '[1, 2]', 'application/json', 'env.json', 'file', /The environment must be a JSON object/],
    ['a shell that breaks the metamodel', JSON.stringify({ assetAdministrationShells: [{ modelType: 'AssetAdministrationShell', id: 'urn:x' }] }), 'application/json', 'env.json', 'file', /assetAdministrationShells\[0\]: .*'assetInformation' is missing/],
    ['broken XML', '<environment xmlns="https://admin-shell.io/aas/3/0"><submodels>', 'application/xml', 'env.xml', 'file', /env.xml: /],
    [
      'XML with a DTD (an external entity)',
      `<?xml version="1.0"?><!DOCTYPE environment [<!ENTITY xxe SYSTEM "file:///etc/passwd">]><environment xmlns="https://admin-shell.io/aas/3/0">${V3_SHELL_XML}</environment>`,
      'application/xml',
      'env.xml',
      'file',
      /env.xml: XML with a DOCTYPE \(DTD\) is not accepted/,
    ],
    ['a zip sent as JSON', zipOf(goodEntries()), 'application/json', 'env.json', 'file', /env.json is not valid JSON/],
    ['the file in a part named otherwise', environment(), 'application/json', 'env.json', 'environment', /Unknown file part 'environment': the file goes in the part 'file'/],
  ];

  for (const [name, bytes, type, fileName, part, text] of BAD_UPLOADS) {
    it(`400 and nothing stored: ${name}`, async () => {
      const tenant = await seededTenant();
      const before = await state(tenant);
      const res = await send(tenant, bytes, { type, name: fileName, part });
      const body = await json(res);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(body.messages[0]).toMatchObject({ code: '400', messageType: 'Error' });
      expect(body.messages[0].text).toMatch(text);
      expect(body.messages[0].text).not.toMatch(/root:/);
      expect(await state(tenant)).toEqual(before);
    });
  }
});
