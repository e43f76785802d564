import fs from 'node:fs';
import { Writable } from 'node:stream';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { TenantEntity } from '../../src/management/tenants/tenant.entity';
import { type PackageFileContent, importerOf, packageWriter } from '../support/package-writer';
import { TestServer, b64, json, sampleShell, startTestServer } from '../support/server';

/**
 * Packages with parts that cannot be read as the metamodel: what can be stored is stored, each part left out is a
 * warning naming the spec part, the path in it and why; only a shell or submodel that cannot be read at all is a 400.
 */

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer(inject('databaseUrl'));
});
afterAll(async () => {
  await server?.close();
});

const packages = packageWriter('aasx-tolerant-');
/** The environment as a package's JSON spec part (`/aasx/data.json`), written to a temp file as an upload would be. */
const packageOf = (env: unknown, files: PackageFileContent[] = []) => packages.write({ format: 'json', content: JSON.stringify(env) }, files);
const importer = () => importerOf(server);

const ref = (value: string) => ({ type: 'ExternalReference', keys: [{ type: 'GlobalReference', value }] });
const iec61360 = (name: string) => ({ modelType: 'DataSpecificationIec61360', preferredName: [{ language: 'en', text: name }], definition: [{ language: 'en', text: `The ${name}` }] });
const property = (idShort: string, extra: Record<string, unknown> = {}) => ({ modelType: 'Property', idShort, valueType: 'xs:string', value: 'v', ...extra });

/** GET each document the import stored and PUT it back as it came: what an import stores, a client can write back. */
async function writeBack(tenant: TenantEntity, result: { shells: { id: string }[]; submodels: { id: string }[]; conceptDescriptions: { id: string }[] }) {
  const api = server.api(tenant.name);
  const paths = [
    ...result.shells.map((s) => `/shells/${b64(s.id)}`),
    ...result.submodels.map((s) => `/submodels/${b64(s.id)}`),
    ...result.conceptDescriptions.map((c) => `/concept-descriptions/${b64(c.id)}`),
  ];
  for (const p of paths) {
    const got = await fetch(`${api}${p}`);
    expect(got.status, p).toBe(200);
    const put = await fetch(`${api}${p}`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: await got.text() });
    expect(put.status, `PUT ${p}: ${await put.clone().text()}`).toBeLessThan(300);
  }
}

describe('tolerant AASX import', () => {
  it('an embedded data specification without its dataSpecification (repaired) and two concept descriptions with one id: the rest is stored, each a warning', async () => {
    const tenant = await server.createTenant();
    const env = {
      assetAdministrationShells: [sampleShell('urn:tol:a:shell')],
      submodels: [{ modelType: 'Submodel', id: 'urn:tol:a:sm', submodelElements: [property('Speed', { semanticId: { type: 'ModelReference', keys: [{ type: 'ConceptDescription', value: 'urn:tol:a:cd' }] } })] }],
      conceptDescriptions: [
        {
          modelType: 'ConceptDescription',
          id: 'urn:tol:a:cd',
          idShort: 'Speed',
          embeddedDataSpecifications: [
            { dataSpecificationContent: iec61360('Speed') },
            { dataSpecification: ref('https://admin-shell.io/DataSpecificationTemplates/DataSpecificationIEC61360/3/0'), dataSpecificationContent: iec61360('Speed') },
          ],
        },
        { modelType: 'ConceptDescription', id: 'urn:tol:a:cd', idShort: 'SpeedAgain' },
      ],
    };
    const result = await importer().importPackage(tenant, await packageOf(env));
    expect(result.shells).toEqual([{ id: 'urn:tol:a:shell', status: 'created' }]);
    expect(result.submodels).toEqual([{ id: 'urn:tol:a:sm', status: 'created' }]);
    expect(result.conceptDescriptions).toEqual([{ id: 'urn:tol:a:cd', status: 'created' }]);
    expect(result.warnings).toEqual([
      '/aasx/data.json $.conceptDescriptions[0].embeddedDataSpecifications[0]: the dataSpecification reference is missing; repaired with https://admin-shell.io/DataSpecificationTemplates/DataSpecificationIEC61360/3/0, which its IEC 61360 content implies',
      "/aasx/data.json $.conceptDescriptions[1]: dropped: the concept description 'urn:tol:a:cd' (its id is the id of $.conceptDescriptions[0], which is kept)",
    ]);
    expect(result.counts).toEqual({ shells: 1, submodels: 1, conceptDescriptions: 1, elements: 1, files: 0, warnings: { package: 0, version: 1, dropped: 1, constraint: 0, file: 0 } });

    const cd = await json(fetch(`${server.api(tenant.name)}/concept-descriptions/${b64('urn:tol:a:cd')}`));
    expect(cd.idShort).toBe('Speed'); // the first is kept
    expect(cd.embeddedDataSpecifications).toHaveLength(2);
    expect(cd.embeddedDataSpecifications[0].dataSpecification).toEqual(cd.embeddedDataSpecifications[1].dataSpecification);
    await writeBack(tenant, result);
  });

  it('a broken element and a broken extension are dropped, the submodel stored; a concept description that cannot be read is dropped', async () => {
    const tenant = await server.createTenant();
    const env = {
      assetAdministrationShells: [sampleShell('urn:tol:b:shell', { extensions: [{ name: 'ok', value: 'x' }, { value: 'no name' }] })],
      submodels: [
        {
          modelType: 'Submodel',
          id: 'urn:tol:b:sm',
          idShort: 'Data',
          submodelElements: [
            property('Good'),
            { modelType: 'Property', idShort: 'NoValueType', value: '1' },
            { modelType: 'SubmodelElementCollection', idShort: 'Group', value: [property('Inner', { valueType: 'xs:nonsense' }), property('Kept')] },
            property('WithBadQualifier', { qualifiers: [{ type: 'q', valueType: 'xs:string', value: 'a' }, { type: 'q2' }] }),
          ],
        },
      ],
      conceptDescriptions: [{ modelType: 'ConceptDescription', idShort: 'NoId' }, { modelType: 'ConceptDescription', id: 'urn:tol:b:cd' }],
    };
    const result = await importer().importPackage(tenant, await packageOf(env));
    expect(result.submodels).toEqual([{ id: 'urn:tol:b:sm', status: 'created' }]);
    expect(result.conceptDescriptions).toEqual([{ id: 'urn:tol:b:cd', status: 'created' }]);
    expect(result.warnings).toEqual([
      '/aasx/data.json $.assetAdministrationShells[0].extensions[1]: dropped: the extension (The required property \'name\' is missing)',
      "/aasx/data.json $.submodels[0].submodelElements[1]: dropped: the Property 'NoValueType' (The required property 'valueType' is missing)",
      expect.stringMatching(/^\/aasx\/data\.json \$\.submodels\[0\]\.submodelElements\[2\]\.value\[0\]: dropped: the Property 'Inner' \(\.valueType: .+\)$/),
      "/aasx/data.json $.submodels[0].submodelElements[3].qualifiers[1]: dropped: the qualifier 'q2' (The required property 'valueType' is missing)",
      "/aasx/data.json $.conceptDescriptions[0]: dropped: the concept description (The required property 'id' is missing)",
    ]);
    expect(result.counts).toMatchObject({ elements: 4, warnings: { dropped: 5 } });

    const sm = await json(fetch(`${server.api(tenant.name)}/submodels/${b64('urn:tol:b:sm')}`));
    expect(sm.submodelElements.map((e: { idShort: string }) => e.idShort)).toEqual(['Good', 'Group', 'WithBadQualifier']);
    expect(sm.submodelElements[1].value.map((e: { idShort: string }) => e.idShort)).toEqual(['Kept']);
    expect(sm.submodelElements[2].qualifiers).toHaveLength(1);
    const shell = await json(fetch(`${server.api(tenant.name)}/shells/${b64('urn:tol:b:shell')}`));
    expect(shell.extensions).toEqual([{ name: 'ok', value: 'x' }]);
    await writeBack(tenant, result);
  });

  it('a shell whose id cannot be read is a 400 naming it, and nothing is stored', async () => {
    const tenant = await server.createTenant();
    const env = {
      assetAdministrationShells: [{ ...sampleShell('x'), id: ['not', 'a', 'string'] }],
      submodels: [{ modelType: 'Submodel', id: 'urn:tol:c:sm' }],
      conceptDescriptions: [{ modelType: 'ConceptDescription', id: 'urn:tol:c:cd' }],
    };
    const err = await importer()
      .importPackage(tenant, await packageOf(env))
      .catch((e: Error) => e);
    expect(err).toMatchObject({ extensions: { code: 'BAD_REQUEST' } });
    expect((err as Error).message).toMatch(/^The shell at \$\.assetAdministrationShells\[0\] cannot be read: \$\.assetAdministrationShells\[0\]\.id: /);
    for (const list of ['shells', 'submodels', 'concept-descriptions']) {
      expect((await json(fetch(`${server.api(tenant.name)}/${list}`))).result, list).toEqual([]);
    }
  });

  it('warnings name each place; the counts say what was stored; a large submodel is read off the event loop alike', async () => {
    const tenant = await server.createTenant();
    const missing = { modelType: 'File', contentType: 'application/pdf', value: '/aasx/files/missing.pdf' };
    // Above the size from which documents are verified in the worker thread (20,000 values).
    const many: Record<string, unknown>[] = Array.from({ length: 4000 }, (_, i) => property(`P${i}`));
    many[2500] = { modelType: 'Property', idShort: 'P2500' };
    const env = {
      assetAdministrationShells: [sampleShell('urn:tol:d:shell')],
      submodels: [
        {
          modelType: 'Submodel',
          id: 'urn:tol:d:sm',
          submodelElements: [
            { modelType: 'SubmodelElementList', idShort: 'Files', typeValueListElement: 'File', value: Array.from({ length: 12 }, () => missing) },
            { modelType: 'File', idShort: 'Manual', contentType: 'application/pdf', value: '/aasx/files/manual.pdf' },
          ],
        },
        { modelType: 'Submodel', id: 'urn:tol:d:large', submodelElements: many },
      ],
    };
    const result = await importer().importPackage(tenant, await packageOf(env, [{ path: '/aasx/files/manual.pdf', text: 'PDF' }]));
    expect(result.warnings).toEqual([
      "/aasx/data.json $.submodels[1].submodelElements[2500]: dropped: the Property 'P2500' (The required property 'valueType' is missing)",
      // Each File is named by its idShortPath, so these twelve are not equal.
      ...Array.from({ length: 12 }, (_, i) => `submodel 'urn:tol:d:sm' File 'Files[${i}]': '/aasx/files/missing.pdf' is no file of the package (kept as it is)`),
    ]);
    expect(result.counts).toEqual({
      shells: 1,
      submodels: 2,
      conceptDescriptions: 0,
      elements: 2 + 12 + 3999,
      files: 1,
      warnings: { package: 0, version: 0, dropped: 1, constraint: 0, file: 12 },
    });
    const large = await json(fetch(`${server.api(tenant.name)}/submodels/${b64('urn:tol:d:large')}/$metadata`));
    expect(large.id).toBe('urn:tol:d:large');
  });

  it('logs its phases: the package size, what was read, verified and stored, progress, the end with the counts', async () => {
    const tenant = await server.createTenant();
    const lines: Record<string, unknown>[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(JSON.parse(chunk.toString()));
        done();
      },
    });
    const log = pino({ level: 'info' }, sink);
    const env = {
      assetAdministrationShells: [sampleShell('urn:tol:e:shell')],
      submodels: [{ modelType: 'Submodel', id: 'urn:tol:e:sm', submodelElements: [property('A'), property('B')] }],
      conceptDescriptions: [{ modelType: 'ConceptDescription', id: 'urn:tol:e:cd' }],
    };
    const file = await packageOf(env);
    const result = await importer().importPackage(tenant, file, { log, progressMs: 0 });
    const messages = lines.map((l) => l.msg);
    expect(messages[0]).toBe('import: reading the package');
    expect(lines[0]).toMatchObject({ tenant: tenant.name, bytes: fs.statSync(file).size });
    expect(lines.find((l) => l.msg === 'import: read')).toMatchObject({ documents: { assetAdministrationShells: 1, submodels: 1, conceptDescriptions: 1 } });
    expect(lines.find((l) => l.msg === 'import: verified')).toMatchObject({ shells: 1, submodels: 1, conceptDescriptions: 1, elements: 2 });
    expect(lines.filter((l) => l.msg === 'import: storing').length).toBeGreaterThan(0);
    const done = lines[lines.length - 1];
    expect(done).toMatchObject({ msg: 'import: done', counts: result.counts });
    expect(typeof done.ms).toBe('number');
  });

  it('over HTTP: the answer carries the counts and the warnings', async () => {
    const tenant = await server.createTenant();
    const env = { assetAdministrationShells: [sampleShell('urn:tol:f:shell', { extensions: [{ value: 'no name' }] })] };
    const form = new FormData();
    form.append('file', new Blob([fs.readFileSync(await packageOf(env))], { type: 'application/asset-administration-shell-package' }), 'p.aasx');
    const res = await fetch(`${server.api(tenant.name)}/upload`, { method: 'POST', body: form });
    const body = await json(res);
    expect(res.status, JSON.stringify(body)).toBe(200);
    expect(body.counts).toEqual({ shells: 1, submodels: 0, conceptDescriptions: 0, elements: 0, files: 0, warnings: { package: 0, version: 0, dropped: 1, constraint: 0, file: 0 } });
    expect(body.warnings).toEqual(["/aasx/data.json $.assetAdministrationShells[0].extensions[0]: dropped: the extension (The required property 'name' is missing)"]);
  });
});
