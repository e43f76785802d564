import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { NS, type RawEntry, minimalPackage, zipOf } from '../support/aasx-package';
import { MemorySink } from '../support/memory-sink';
import { importerOf, packageWriter } from '../support/package-writer';
import { TestServer, b64, json, sampleShell, startTestServer } from '../support/server';

let server: TestServer;
const V2 = path.resolve(__dirname, '../fixtures/aas-v2');

beforeAll(async () => {
  server = await startTestServer(inject('databaseUrl'));
});
afterAll(async () => {
  await server?.close();
});

const packages = packageWriter('aasx-import-');
const packageFile = packages.write;
const importer = (sink = new MemorySink()) => importerOf(server, sink);

describe('AASX import', () => {
  it('a JSON package: the shell, its submodel with a File rewritten to the stored file', async () => {
    const tenant = await server.createTenant();
    const env = {
      assetAdministrationShells: [sampleShell('urn:ax:1')],
      submodels: [{ modelType: 'Submodel', id: 'urn:ax:sm', submodelElements: [{ modelType: 'File', idShort: 'Manual', contentType: 'application/pdf', value: '/aasx/files/manual.pdf' }] }],
    };
    const sink = new MemorySink();
    const file = await packageFile({ format: 'json', content: JSON.stringify(env) }, [{ path: '/aasx/files/manual.pdf', contentType: 'application/pdf', text: 'PDF' }]);
    const result = await importer(sink).importPackage(tenant, file);
    expect(result.shells).toEqual([{ id: 'urn:ax:1', status: 'created' }]);
    const sm = await json(fetch(`${server.api(tenant.name)}/submodels/${b64('urn:ax:sm')}`));
    expect(sm.submodelElements[0].value).toBe(result.files[0].tfp);
    expect(sink.stored.get(result.files[0].tfp)!.toString()).toBe('PDF');
  });

  it('a V2.0 XML package is converted and imported, with warnings saying so', async () => {
    const tenant = await server.createTenant();
    const xml = fs.readFileSync(path.join(V2, 'pump-nameplate.xml'), 'utf8');
    const sink = new MemorySink();
    const file = await packageFile({ format: 'xml', content: xml }, [{ path: '/aasx/Nameplate/marking_ce.png', contentType: 'image/png', text: 'PNG' }]);
    const result = await importer(sink).importPackage(tenant, file);
    expect(result.shells).toHaveLength(1);
    expect(result.submodels.length).toBeGreaterThan(0);
    expect(result.warnings[0]).toMatch(/AAS V2\.0 environment: converted to V3\.0/);
    expect(result.files.map((f) => f.path)).toEqual(['/aasx/Nameplate/marking_ce.png']);
  });

  it('bad packages are 400 and store nothing: not a zip, two shells, unreadable JSON, a V2 document with a DTD', async () => {
    const tenant = await server.createTenant();
    const notZip = packages.writeBytes('hello');
    const two = await packageFile({ format: 'json', content: JSON.stringify({ assetAdministrationShells: [sampleShell('urn:ax:a'), sampleShell('urn:ax:b')] }) });
    const broken = await packageFile({ format: 'json', content: '{"assetAdministrationShells": [' });
    const dtd = await packageFile({ format: 'xml', content: '<?xml version="1.0"?><!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]><aas:aasenv xmlns:aas="http://www.admin-shell.io/aas/2/0">&e;</aas:aasenv>' });
    for (const [file, text] of [[notZip, /Not a valid AASX package/], [two, /holds 2 shells/], [broken, /not valid JSON/], [dtd, /data\.xml/]] as const) {
      const err = await importer().importPackage(tenant, file).catch((e: Error) => e);
      expect(err, file).toMatchObject({ extensions: { code: 'BAD_REQUEST' } });
      expect((err as Error).message).toMatch(text);
    }
    expect((await json(fetch(`${server.api(tenant.name)}/shells`))).result).toEqual([]);
  });
});

/** A package built entry by entry (minimalPackage: spec part /aasx/data.json) holding `env`, written to a temp file. */
function rawPackage(env: unknown, entries: Record<string, string | Buffer> = {}, extra: RawEntry[] = []): string {
  return packages.writeBytes(zipOf({ ...minimalPackage(JSON.stringify(env)), ...entries }, extra));
}

const fileUrl = (tenant: string, tfp: string) => `${server.url}/tenants/${tenant}/sphere/api/v1.0/files/${encodeURIComponent(tfp)}`;
const download = async (tenant: string, tfp: string) => {
  const res = await fetch(fileUrl(tenant, tfp));
  return { status: res.status, text: await res.text() };
};
const fileCount = async (tenant: string) => (await json(fetch(`${server.url}/tenants/${tenant}/sphere/api/v1.0/files?limit=250`))).result.length;
const fileEl = (idShort: string, value: string) => ({ modelType: 'File', idShort, contentType: 'application/pdf', value });

describe('AASX import: relationships marked TargetMode="External"', () => {
  it('a package whose aasx-origin and aas-spec relationships are External (as the IDTA DPP template) imports, with warnings', async () => {
    const tenant = await server.createTenant();
    const external = (type: string, target: string) =>
      `<?xml version="1.0" encoding="utf-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="E1" Type="${NS}/${type}" Target="${target}" TargetMode="External"/></Relationships>`;
    const env = { assetAdministrationShells: [sampleShell('urn:ext:1')], submodels: [{ modelType: 'Submodel', id: 'urn:ext:sm', submodelElements: [fileEl('Manual', '/aasx/files/manual.pdf')] }] };
    const file = rawPackage(env, { '_rels/.rels': external('aasx-origin', '/aasx/aasx-origin'), 'aasx/_rels/aasx-origin.rels': external('aas-spec', '/aasx/data.json') });
    const result = await server.services.imports.importPackage(tenant, file);
    expect(result.shells).toEqual([{ id: 'urn:ext:1', status: 'created' }]);
    expect(result.warnings.filter((w) => /TargetMode="External" but names the part/.test(w))).toHaveLength(2);
    expect((await download(tenant.name, result.files[0].tfp)).text).toBe('%PDF-1.4 not really');
  });
});

describe('AASX import: File values name package parts in every spelling', () => {
  it('file URIs (RFC 8089), relative and absolute part names, percent-escapes, backslashes resolve; links stay; absent parts are warnings naming the File', async () => {
    const tenant = await server.createTenant();
    const spellings = [
      'file:/aasx/files/manual.pdf',
      'file:///aasx/files/manual.pdf',
      'file://localhost/aasx/files/manual.pdf',
      'FILE:/aasx/files/manual.pdf',
      '/aasx/files/manual.pdf',
      'aasx/files/manual.pdf',
      './aasx/files/manual.pdf',
      '\\aasx\\files\\manual.pdf',
      '/aasx/files/../files/manual.pdf',
    ];
    const links = ['https://example.com/x.pdf', 'urn:example:x', 'mailto:someone@example.com', 'file://fileserver/share/x.pdf'];
    const env = {
      assetAdministrationShells: [sampleShell('urn:sp:1', { assetInformation: { assetKind: 'Instance', globalAssetId: 'urn:sp:asset', defaultThumbnail: { path: 'file:/aasx/thumb.png', contentType: 'image/png' } } })],
      submodels: [
        {
          modelType: 'Submodel',
          id: 'urn:sp:sm',
          submodelElements: [
            ...spellings.map((value, i) => fileEl(`S${i}`, value)),
            fileEl('Spaced', 'file:///aasx/files/my%20manual.pdf'),
            fileEl('SpacedPlain', '/aasx/files/my manual.pdf'),
            ...links.map((value, i) => fileEl(`L${i}`, value)),
            { modelType: 'SubmodelElementCollection', idShort: 'Docs', value: [{ modelType: 'SubmodelElementList', idShort: 'List', typeValueListElement: 'File', value: [{ modelType: 'File', contentType: 'application/pdf', value: 'file:/aasx/files/absent.pdf' }] }] },
            fileEl('Escape', '../../etc/passwd'),
          ],
        },
      ],
    };
    const file = rawPackage(env, { 'aasx/thumb.png': 'PNG', 'aasx/files/my%20manual.pdf': 'spaced' });
    const result = await server.services.imports.importPackage(tenant, file);
    expect(result.files.map((f) => f.path).sort()).toEqual(['/aasx/files/manual.pdf', '/aasx/files/my manual.pdf', '/aasx/thumb.png']);
    const tfpOf = (p: string) => result.files.find((f) => f.path === p)!.tfp;
    const sm = await json(fetch(`${server.api(tenant.name)}/submodels/${b64('urn:sp:sm')}`));
    const values = Object.fromEntries(sm.submodelElements.filter((e: { modelType: string }) => e.modelType === 'File').map((e: { idShort: string; value: string }) => [e.idShort, e.value]));
    for (const i of spellings.keys()) expect(values[`S${i}`], spellings[i]).toBe(tfpOf('/aasx/files/manual.pdf'));
    expect([values.Spaced, values.SpacedPlain]).toEqual([tfpOf('/aasx/files/my manual.pdf'), tfpOf('/aasx/files/my manual.pdf')]);
    for (const i of links.keys()) expect(values[`L${i}`]).toBe(links[i]);
    expect(values.Escape).toBe('../../etc/passwd');
    // The values with a blank and a backslash are no URIs: the metamodel's check warns too.
    expect(result.warnings.filter((w) => !/conformant to a URI/.test(w))).toEqual([
      "submodel 'urn:sp:sm' File 'Docs.List[0]': 'file:/aasx/files/absent.pdf' is no file of the package (kept as it is)",
      "submodel 'urn:sp:sm' File 'Escape': '../../etc/passwd' is no file of the package (kept as it is)",
    ]);
    const thumbnail = await fetch(`${server.api(tenant.name)}/shells/${b64('urn:sp:1')}/asset-information/thumbnail`);
    expect(thumbnail.status).toBe(200);
    expect(await thumbnail.text()).toBe('PNG');
    expect((await download(tenant.name, tfpOf('/aasx/files/my manual.pdf'))).text).toBe('spaced');
  });
});

describe('AASX import: an import that overwrites replaces the files', () => {
  const env = (tag: string) => ({
    assetAdministrationShells: [sampleShell('urn:re:1', { assetInformation: { assetKind: 'Instance', globalAssetId: 'urn:re:asset', defaultThumbnail: { path: '/aasx/thumb.png', contentType: 'image/png' } } })],
    submodels: [{ modelType: 'Submodel', id: 'urn:re:sm', idShort: tag, submodelElements: [fileEl('Manual', '/aasx/files/manual.pdf'), fileEl('Drawing', '/aasx/files/drawing.pdf')] }],
  });
  const parts = { 'aasx/thumb.png': 'PNG', 'aasx/files/drawing.pdf': 'drawing' };

  it('importing the same package twice: the same number of files, the first import\'s tfps gone, the second\'s downloadable', async () => {
    const tenant = await server.createTenant();
    const first = await server.services.imports.importPackage(tenant, rawPackage(env('one'), parts));
    expect(first.files).toHaveLength(3);
    expect(await fileCount(tenant.name)).toBe(3);
    const second = await server.services.imports.importPackage(tenant, rawPackage(env('two'), parts));
    expect(second.shells).toEqual([{ id: 'urn:re:1', status: 'updated' }]);
    expect(await fileCount(tenant.name)).toBe(3);
    for (const { tfp } of first.files) expect((await download(tenant.name, tfp)).status, tfp).toBe(404);
    for (const { tfp } of second.files) expect((await download(tenant.name, tfp)).status, tfp).toBe(200);
    const thumbnail = await fetch(`${server.api(tenant.name)}/shells/${b64('urn:re:1')}/asset-information/thumbnail`);
    expect(await thumbnail.text()).toBe('PNG');
  });

  it('a file that other content references stays: a File of another submodel, a File among an Operation\'s variables', async () => {
    const tenant = await server.createTenant();
    const first = await server.services.imports.importPackage(tenant, rawPackage(env('one'), parts));
    const tfpOf = (p: string) => first.files.find((f) => f.path === p)!.tfp;
    const manual = tfpOf('/aasx/files/manual.pdf');
    const thumb = tfpOf('/aasx/thumb.png');
    const other = {
      modelType: 'Submodel',
      id: 'urn:re:other',
      submodelElements: [
        // Another spelling of the same tfp is the same reference.
        fileEl('SameManual', manual.replace(/^file:\//, 'file:///')),
        { modelType: 'Operation', idShort: 'Op', inputVariables: [{ value: { modelType: 'File', idShort: 'Picture', contentType: 'image/png', value: thumb } }] },
      ],
    };
    const created = await fetch(`${server.api(tenant.name)}/submodels`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(other) });
    expect(created.status).toBe(201);
    await server.services.imports.importPackage(tenant, rawPackage(env('two'), parts));
    expect(await download(tenant.name, manual)).toEqual({ status: 200, text: '%PDF-1.4 not really' });
    expect(await download(tenant.name, thumb)).toEqual({ status: 200, text: 'PNG' });
    expect((await download(tenant.name, tfpOf('/aasx/files/drawing.pdf'))).status).toBe(404);
    expect(await fileCount(tenant.name)).toBe(5);
  });

  it('a failed second import (a part with a wrong CRC-32) leaves the first import and its files as they were', async () => {
    const tenant = await server.createTenant();
    const first = await server.services.imports.importPackage(tenant, rawPackage(env('one'), parts));
    const { 'aasx/files/drawing.pdf': _drawing, ...rest } = parts;
    const bad = rawPackage(env('two'), rest, [{ name: 'aasx/files/drawing.pdf', data: 'drawing', crc: 12345 }]);
    await expect(server.services.imports.importPackage(tenant, bad)).rejects.toMatchObject({ extensions: { code: 'BAD_REQUEST' } });
    expect(await fileCount(tenant.name)).toBe(3);
    for (const { tfp } of first.files) expect((await download(tenant.name, tfp)).status, tfp).toBe(200);
    expect((await json(fetch(`${server.api(tenant.name)}/submodels/${b64('urn:re:sm')}`))).idShort).toBe('one');
  });
});
