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

describe('batched writes of a large import', () => {
  const shellDoc = (i: number, kind = 'Instance') => ({ modelType: 'AssetAdministrationShell', id: `urn:imp:many:shell:${i}`, assetInformation: { assetKind: kind, globalAssetId: `urn:imp:many:asset:${i}` } });
  const submodelDoc = (i: number, elements: number, tag: string) => ({
    modelType: 'Submodel',
    id: `urn:imp:many:sm:${i}`,
    idShort: `Sm${i}`,
    submodelElements: Array.from({ length: elements }, (_, j) => ({ modelType: 'Property', idShort: `P${j}`, valueType: 'xs:string', value: `${tag}${j}` })),
  });

  it('creates past a batch, overwrites equal ids (element rows replaced whole, versions counted on), records an outbox row per document, and reads back in order', async () => {
    const tenant = await server.createTenant({ eventsEnabled: true });
    // 1,100 shells: three batches of documents; three submodels of 2,400 elements: their rows cross a statement's rows.
    const first = await importer(new MemorySink()).importEnvironment(tenant, {
      assetAdministrationShells: Array.from({ length: 1_100 }, (_, i) => shellDoc(i)),
      submodels: [0, 1, 2].map((i) => submodelDoc(i, 2_400, 'a')),
    });
    expect(first.counts).toMatchObject({ shells: 1_100, submodels: 3, elements: 7_200 });
    expect(first.shells.every((s) => s.status === 'created')).toBe(true);
    expect(first.shells[1_099]).toEqual({ id: 'urn:imp:many:shell:1099', status: 'created' });

    // Again, overlapping: shells 1,000..1,199 (100 overwritten, 100 new), submodel 1 shorter, submodel 3 new.
    const second = await importer(new MemorySink()).importEnvironment(tenant, {
      assetAdministrationShells: Array.from({ length: 200 }, (_, i) => shellDoc(1_000 + i, 'Type')),
      submodels: [submodelDoc(1, 10, 'b'), submodelDoc(3, 5, 'c')],
    });
    expect(second.shells.filter((s) => s.status === 'updated')).toHaveLength(100);
    expect(second.shells[0]).toEqual({ id: 'urn:imp:many:shell:1000', status: 'updated' });
    expect(second.shells[199]).toEqual({ id: 'urn:imp:many:shell:1199', status: 'created' });
    expect(second.submodels).toEqual([{ id: 'urn:imp:many:sm:1', status: 'updated' }, { id: 'urn:imp:many:sm:3', status: 'created' }]);

    const overwritten = await get(tenant.name, `/shells/${b64('urn:imp:many:shell:1050')}`);
    expect(((await overwritten.json()) as { assetInformation: { assetKind: string } }).assetInformation.assetKind).toBe('Type');
    expect(overwritten.headers.get('etag')).toMatch(/-2"$/);
    const kept = await json(get(tenant.name, `/shells/${b64('urn:imp:many:shell:999')}`));
    expect(kept.assetInformation.assetKind).toBe('Instance');
    const sm0 = await json(get(tenant.name, `/submodels/${b64('urn:imp:many:sm:0')}`));
    expect(sm0.submodelElements.map((e: { value: string }) => e.value)).toEqual(Array.from({ length: 2_400 }, (_, j) => `a${j}`));
    const sm1 = await json(get(tenant.name, `/submodels/${b64('urn:imp:many:sm:1')}`));
    expect(sm1.submodelElements.map((e: { value: string }) => e.value)).toEqual(Array.from({ length: 10 }, (_, j) => `b${j}`));
    // The filter columns were written with the rows: the list by assetKind finds the overwritten shells.
    const types = await json(get(tenant.name, `/shells?assetKind=Type&limit=250`));
    expect(types.result).toHaveLength(200);

    const rows: { submodels: number; elements: number; outbox: number; updated: number }[] = await server.dataSource.query(
      `SELECT (SELECT count(*) FROM submodels WHERE tenant_id = $1)::int AS submodels,
              (SELECT count(*) FROM submodel_elements WHERE tenant_id = $1)::int AS elements,
              (SELECT count(*) FROM outbox WHERE tenant_id = $1)::int AS outbox,
              (SELECT count(*) FROM outbox WHERE tenant_id = $1 AND kind = 'updated')::int AS updated`,
      [tenant.id],
    );
    expect(rows[0]).toEqual({ submodels: 4, elements: 2_400 * 2 + 10 + 5, outbox: 1_103 + 202, updated: 101 });
  });

  it('an id too long for an identifier refuses the import with 400 and stores nothing of it', async () => {
    const tenant = await server.createTenant();
    const long = { ...shellDoc(1), id: `urn:${'x'.repeat(3_000)}` };
    await expect(importer(new MemorySink()).importEnvironment(tenant, { assetAdministrationShells: [shellDoc(0), long] })).rejects.toThrow(/at most/);
    expect((await get(tenant.name, `/shells/${b64('urn:imp:many:shell:0')}`)).status).toBe(404);
  });
});
