import { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { readAasxPackage } from '../../src/aas/aasx';
import { FileSource, aasxPackage } from '../../src/aas/serialization/package';
import { environmentJson } from '../../src/aas/serialization/serialization.service';
import type { TenantEntity } from '../../src/management/tenants/tenant.entity';
import { TestServer, sampleShell, startTestServer } from '../support/server';

let server: TestServer;
let tenant: TenantEntity;

/** Stored files by value: what a tfp of the tenant resolves to. */
const stored = new Map([
  ['file:/sphere/x/1/manual.pdf', { fileName: 'manual.pdf', contentType: 'application/pdf', bytes: Buffer.from('%PDF manual') }],
  ['file:/sphere/x/2/thumb.png', { fileName: 'thumb.png', contentType: 'image/png', bytes: Buffer.from('PNG') }],
]);
const source: FileSource = {
  async find(_tenant, value) {
    const file = stored.get(value);
    return file && { fileName: file.fileName, contentType: file.contentType, open: async () => Readable.from([file.bytes]) };
  },
};

const file = (idShort: string, value: string) => ({ modelType: 'File', idShort, contentType: 'application/pdf', value });

beforeAll(async () => {
  server = await startTestServer(inject('databaseUrl'));
  tenant = await server.createTenant();
  const post = async (path: string, body: unknown) =>
    expect((await fetch(`${server.api(tenant.name)}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })).status).toBe(201);
  await post('/shells', sampleShell('urn:x:shell', { assetInformation: { assetKind: 'Instance', globalAssetId: 'urn:a', defaultThumbnail: { path: 'file:/sphere/x/2/thumb.png', contentType: 'image/png' } } }));
  await post('/shells', sampleShell('urn:x:plain'));
  await post('/submodels', {
    modelType: 'Submodel',
    id: 'urn:x:sm',
    submodelElements: [
      file('Manual', 'file:/sphere/x/1/manual.pdf'),
      { modelType: 'SubmodelElementCollection', idShort: 'Docs', value: [file('Same', 'file:/sphere/x/1/manual.pdf'), file('Gone', 'file:/sphere/x/9/deleted.pdf'), file('Link', 'https://example.com/a.pdf')] },
    ],
  });
});
afterAll(() => server?.close());

describe('AASX export', () => {
  it('packs every file a resolvable tfp names, once, rewrites the values to the parts, keeps the rest; the asset thumbnail is the package thumbnail', async () => {
    const parts = () => server.services.serialization.parts(tenant, { aasIds: ['urn:x:shell', 'urn:x:plain'], submodelIds: ['urn:x:sm'], includeConceptDescriptions: true });
    const bytes = await buffer(await aasxPackage(tenant, parts, source, 'json', environmentJson));
    const pkg = await readAasxPackage(bytes);
    expect(pkg.specs.map((s) => s.path)).toEqual(['/aasx/data.json']);
    const env = JSON.parse(await pkg.specs[0].text());
    const sm = env.submodels[0];
    expect(sm.submodelElements[0].value).toBe('/aasx/files/manual.pdf');
    expect(sm.submodelElements[1].value.map((e: { value: string }) => e.value)).toEqual(['/aasx/files/manual.pdf', 'file:/sphere/x/9/deleted.pdf', 'https://example.com/a.pdf']);
    expect(env.assetAdministrationShells[0].assetInformation.defaultThumbnail.path).toBe('/aasx/files/thumb.png');
    expect(env.assetAdministrationShells[1].assetInformation).not.toHaveProperty('defaultThumbnail');
    expect(pkg.files.map((f) => f.path).sort()).toEqual(['/aasx/files/manual.pdf', '/aasx/files/thumb.png']);
    expect((await pkg.part('/aasx/files/manual.pdf')!.bytes()).toString()).toBe('%PDF manual');
    expect(pkg.part('/aasx/files/manual.pdf')!.contentType).toBe('application/pdf');
    expect(pkg.thumbnail?.path).toBe('/aasx/files/thumb.png');
  });

  it('a tenant without files and shells without thumbnails make a package all the same', async () => {
    const empty = await server.createTenant();
    const bytes = await buffer(await aasxPackage(empty, () => server.services.serialization.parts(empty, { aasIds: [], submodelIds: [], includeConceptDescriptions: true }), source, 'json', environmentJson));
    const pkg = await readAasxPackage(bytes);
    expect(JSON.parse(await pkg.specs[0].text())).toEqual({});
    expect(pkg.files).toEqual([]);
    expect(pkg.thumbnail).toBeUndefined();
  });
});
