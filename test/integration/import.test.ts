import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { FileSink, ImportService, PackageFile } from '../../src/aas/import/import.service';
import { MemorySink } from '../support/memory-sink';
import { TestServer, b64, json, sampleShell, startTestServer } from '../support/server';

let server: TestServer;

const packageFile = (path: string, text: string): PackageFile => ({ path, contentType: 'application/pdf', open: async () => Readable.from([Buffer.from(text)]) });
const file = (idShort: string, value: string) => ({ modelType: 'File', idShort, contentType: 'application/pdf', value });

function environment(suffix: string) {
  return {
    assetAdministrationShells: [sampleShell(`urn:imp:${suffix}:shell`, { assetInformation: { assetKind: 'Instance', globalAssetId: 'urn:a', defaultThumbnail: { path: '/aasx/files/thumb.png', contentType: 'image/png' } } })],
    submodels: [
      {
        modelType: 'Submodel',
        id: `urn:imp:${suffix}:sm`,
        submodelElements: [
          file('Manual', '/aasx/files/manual.pdf'),
          { modelType: 'SubmodelElementCollection', idShort: 'Docs', value: [file('Again', 'aasx/files/manual.pdf'), file('Link', 'https://example.com/x.pdf')] },
          { modelType: 'Entity', idShort: 'Part', entityType: 'CoManagedEntity', statements: [file('Drawing', '/aasx/files/drawing.pdf')] },
          { modelType: 'SubmodelElementList', idShort: 'List', typeValueListElement: 'File', value: [{ modelType: 'File', contentType: 'application/pdf', value: '/aasx/files/missing.pdf' }] },
          file('Empty', ''),
        ],
      },
    ],
    conceptDescriptions: [{ modelType: 'ConceptDescription', id: `urn:imp:${suffix}:cd` }],
  };
}

const files = new Map<string, PackageFile>([
  ['/aasx/files/manual.pdf', packageFile('/aasx/files/manual.pdf', 'manual')],
  ['/aasx/files/drawing.pdf', packageFile('/aasx/files/drawing.pdf', 'drawing')],
  ['/aasx/files/thumb.png', packageFile('/aasx/files/thumb.png', 'png')],
]);

beforeAll(async () => {
  server = await startTestServer(inject('databaseUrl'));
});
afterAll(() => server?.close());

const importer = (sink: FileSink) => new ImportService(server.dataSource, server.services.shells, server.services.submodels, server.services.conceptDescriptions, sink);
const get = async (tenant: string, path: string) => fetch(`${server.api(tenant)}${path}`);

describe('environment import', () => {
  it('creates everything, stores each named file once and rewrites File values (nested too) and the thumbnail; links stay links', async () => {
    const tenant = await server.createTenant();
    const sink = new MemorySink();
    const result = await importer(sink).importEnvironment(tenant, environment('a'), { files, exactlyOneShell: true });
    expect(result.shells).toEqual([{ id: 'urn:imp:a:shell', status: 'created' }]);
    expect(result.submodels).toEqual([{ id: 'urn:imp:a:sm', status: 'created' }]);
    expect(result.conceptDescriptions).toEqual([{ id: 'urn:imp:a:cd', status: 'created' }]);
    expect(result.files.map((f) => f.path).sort()).toEqual(['/aasx/files/drawing.pdf', '/aasx/files/manual.pdf', '/aasx/files/thumb.png']);
    expect(sink.stored.size).toBe(3);
    expect(result.warnings).toEqual([expect.stringContaining("'/aasx/files/missing.pdf' is no file of the package")]);

    const tfpOf = (path: string) => result.files.find((f) => f.path === path)!.tfp;
    const sm = await json(get(tenant.name, `/submodels/${b64('urn:imp:a:sm')}`));
    expect(sm.submodelElements[0].value).toBe(tfpOf('/aasx/files/manual.pdf'));
    expect(sm.submodelElements[1].value[0].value).toBe(tfpOf('/aasx/files/manual.pdf'));
    expect(sm.submodelElements[1].value[1].value).toBe('https://example.com/x.pdf');
    expect(sm.submodelElements[2].statements[0].value).toBe(tfpOf('/aasx/files/drawing.pdf'));
    expect(sm.submodelElements[3].value[0].value).toBe('/aasx/files/missing.pdf');
    expect(sm.submodelElements[4]).not.toHaveProperty('value'); // an empty File value is accepted, as no value
    const shell = await json(get(tenant.name, `/shells/${b64('urn:imp:a:shell')}`));
    expect(shell.assetInformation.defaultThumbnail.path).toBe(tfpOf('/aasx/files/thumb.png'));
    expect(sink.stored.get(tfpOf('/aasx/files/drawing.pdf'))!.toString()).toBe('drawing');
  });

  it('overwrites what exists; broken constraints are warnings, unreadable documents a 400 naming them', async () => {
    const tenant = await server.createTenant();
    await importer(new MemorySink()).importEnvironment(tenant, environment('b'), { files });
    const env = environment('b');
    (env.conceptDescriptions[0] as Record<string, unknown>).idShort = 'not valid!';
    const again = await importer(new MemorySink()).importEnvironment(tenant, env, { files });
    expect(again.shells[0].status).toBe('updated');
    expect(again.conceptDescriptions[0].status).toBe('updated');
    expect(again.warnings.some((w) => w.startsWith("concept description 'urn:imp:b:cd': $.idShort"))).toBe(true);
    expect((await json(get(tenant.name, `/concept-descriptions/${b64('urn:imp:b:cd')}`))).idShort).toBe('not valid!');

    // A broken element is dropped (its submodel is stored); a submodel without a readable id cannot be stored: 400.
    const broken = { submodels: [{ modelType: 'Submodel', id: 'urn:imp:b:bad', submodelElements: [{ modelType: 'Property', idShort: 'p' }] }] };
    const read = await importer(new MemorySink()).importEnvironment(tenant, broken);
    expect(read.submodels).toEqual([{ id: 'urn:imp:b:bad', status: 'created' }]);
    expect(read.warnings).toEqual(["$.submodels[0].submodelElements[0]: dropped: the Property 'p' (The required property 'valueType' is missing)"]);
    const noId = { submodels: [{ modelType: 'Submodel', id: 7, submodelElements: [] }] };
    await expect(importer(new MemorySink()).importEnvironment(tenant, noId)).rejects.toMatchObject({
      extensions: { code: 'BAD_REQUEST' },
      message: expect.stringMatching(/^The submodel at \$\.submodels\[0\] cannot be read: \$\.submodels\[0\]\.id: /),
    });
    await expect(importer(new MemorySink()).importEnvironment(tenant, { submodels: 'x' })).rejects.toMatchObject({ message: '$.submodels must be a list.' });
  });

  it('a package must hold exactly one shell', async () => {
    const tenant = await server.createTenant();
    const two = { assetAdministrationShells: [sampleShell('urn:imp:c:1'), sampleShell('urn:imp:c:2')] };
    await expect(importer(new MemorySink()).importEnvironment(tenant, two, { exactlyOneShell: true })).rejects.toMatchObject({ message: expect.stringContaining('holds 2 shells') });
    await expect(importer(new MemorySink()).importEnvironment(tenant, {}, { exactlyOneShell: true })).rejects.toMatchObject({ message: expect.stringContaining('holds 0 shells') });
    expect((await get(tenant.name, `/shells/${b64('urn:imp:c:1')}`)).status).toBe(404);
  });

  it('a failure in the middle leaves nothing behind: no shell, submodel or concept description, and stored files are discarded', async () => {
    const tenant = await server.createTenant();
    const sink = new MemorySink();
    sink.failAt = 3; // the third file
    await expect(importer(sink).importEnvironment(tenant, environment('d'), { files })).rejects.toThrow('injected failure');
    expect(sink.discarded).toHaveLength(2);
    for (const path of [`/shells/${b64('urn:imp:d:shell')}`, `/submodels/${b64('urn:imp:d:sm')}`, `/concept-descriptions/${b64('urn:imp:d:cd')}`]) {
      expect((await get(tenant.name, path)).status).toBe(404);
    }

    // A failure after the documents were written (the last concept description) rolls them back too.
    const failing = new ImportService(server.dataSource, server.services.shells, server.services.submodels, {
      putMany: async () => {
        throw new Error('injected database failure');
      },
    } as never, new MemorySink());
    await expect(failing.importEnvironment(tenant, environment('e'), { files })).rejects.toThrow('injected database failure');
    expect((await get(tenant.name, `/shells/${b64('urn:imp:e:shell')}`)).status).toBe(404);
    expect((await get(tenant.name, `/submodels/${b64('urn:imp:e:sm')}`)).status).toBe(404);
  });
});
