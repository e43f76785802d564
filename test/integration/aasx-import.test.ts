import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { writeAasxPackage } from '../../src/aas/aasx';
import { ImportService } from '../../src/aas/import/import.service';
import { MemorySink } from '../support/memory-sink';
import { TestServer, b64, json, sampleShell, startTestServer } from '../support/server';

let server: TestServer;
let dir: string;
const V2 = path.resolve(__dirname, '../fixtures/aas-v2');

beforeAll(async () => {
  server = await startTestServer(inject('databaseUrl'));
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'aasx-import-'));
});
afterAll(async () => {
  await server?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

let counter = 0;
/** Writes a package to a temp file, as an upload would be. */
async function packageFile(spec: { format: 'json' | 'xml'; content: string }, files: { path: string; contentType: string; text: string }[] = []): Promise<string> {
  const file = path.join(dir, `p${counter++}.aasx`);
  const stream = writeAasxPackage({ spec, files: files.map((f) => ({ path: f.path, contentType: f.contentType, open: async () => Readable.from([Buffer.from(f.text)]) })) });
  fs.writeFileSync(file, await buffer(stream));
  return file;
}

const importer = (sink = new MemorySink()) => new ImportService(server.dataSource, server.services.shells, server.services.submodels, server.services.conceptDescriptions, sink);

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
    const notZip = path.join(dir, 'not.aasx');
    fs.writeFileSync(notZip, 'hello');
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
