import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { TenantEntity } from '../../src/management/tenants/tenant.entity';
import { TestServer, b64, json, sampleShell, startTestServer } from '../support/server';

let server: TestServer;
let tenant: TenantEntity;
const api = () => server.api(tenant.name);
const filesApi = () => `${server.url}/tenants/${tenant.name}/sphere/api/v1.0/files`;

function form(bytes: string, name: string, type: string, fileName?: string): FormData {
  const data = new FormData();
  if (fileName) data.append('fileName', fileName);
  data.append('file', new Blob([bytes], { type }), name);
  return data;
}
const put = (path: string, body: FormData | string, headers: Record<string, string> = {}) => fetch(`${api()}${path}`, { method: 'PUT', body, headers });
const post = async (path: string, body: unknown) =>
  expect((await fetch(`${api()}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })).status).toBe(201);

const SHELL = 'urn:att:shell';
const SM = 'urn:att:sm';
const thumbnail = `/shells/${b64(SHELL)}/asset-information/thumbnail`;
const attachment = (path: string) => `/submodels/${b64(SM)}/submodel-elements/${path}/attachment`;

beforeAll(async () => {
  server = await startTestServer(inject('databaseUrl'));
  tenant = await server.createTenant({ showcase: true });
  await post('/shells', sampleShell(SHELL, { submodels: [{ type: 'ModelReference', keys: [{ type: 'Submodel', value: SM }] }] }));
  await post('/submodels', {
    modelType: 'Submodel',
    id: SM,
    submodelElements: [
      { modelType: 'File', idShort: 'Manual', contentType: 'application/pdf' },
      { modelType: 'File', idShort: 'Twin', contentType: 'application/pdf' },
      { modelType: 'File', idShort: 'Link', contentType: 'application/pdf', value: 'https://example.com/manual.pdf' },
      { modelType: 'Blob', idShort: 'Raw', contentType: 'application/octet-stream' },
      { modelType: 'Property', idShort: 'Prop', valueType: 'xs:string', value: 'x' },
      { modelType: 'SubmodelElementCollection', idShort: 'Docs', value: [{ modelType: 'File', idShort: 'Deep', contentType: 'text/plain' }] },
    ],
  });
});
afterAll(() => server?.close());

describe('thumbnail', () => {
  it('none yet: 404; PUT stores a file and points the thumbnail at it; a second PUT a new one while the former file stays; DELETE drops only the reference', async () => {
    const none = await fetch(`${api()}${thumbnail}`);
    expect(none.status).toBe(404);
    expect((await json(none)).messages[0].text).toContain('has no thumbnail');

    expect((await put(thumbnail, form('PNG-1', 'logo.png', 'image/png', 'logo.png'))).status).toBe(204);
    const first = (await json(fetch(`${api()}/shells/${b64(SHELL)}`))).assetInformation.defaultThumbnail;
    expect(first).toMatchObject({ contentType: 'image/png', path: expect.stringMatching(new RegExp(`^file:/sphere/${tenant.name}/`)) });
    const got = await fetch(`${api()}${thumbnail}`);
    expect(got.status).toBe(200);
    expect(got.headers.get('content-type')).toBe('image/png');
    expect(await got.text()).toBe('PNG-1');

    expect((await put(thumbnail, form('PNG-2', 'logo2.png', 'image/png'))).status).toBe(204);
    const second = (await json(fetch(`${api()}/shells/${b64(SHELL)}`))).assetInformation.defaultThumbnail;
    expect(second.path).not.toBe(first.path);
    expect(await (await fetch(`${api()}${thumbnail}`)).text()).toBe('PNG-2');
    expect(await (await fetch(`${filesApi()}/${encodeURIComponent(first.path)}`)).text()).toBe('PNG-1');

    expect((await fetch(`${api()}${thumbnail}`, { method: 'DELETE' })).status).toBe(204);
    expect((await json(fetch(`${api()}/shells/${b64(SHELL)}`))).assetInformation).not.toHaveProperty('defaultThumbnail');
    expect((await fetch(`${filesApi()}/${encodeURIComponent(second.path)}`)).status).toBe(200);
    expect((await fetch(`${api()}${thumbnail}`, { method: 'DELETE' })).status).toBe(404);
  });

  it('a thumbnail that is no tfp cannot be downloaded: 404 saying why', async () => {
    const shell = await json(fetch(`${api()}/shells/${b64(SHELL)}`));
    const info = { ...shell.assetInformation, defaultThumbnail: { path: 'https://example.com/logo.png', contentType: 'image/png' } };
    expect((await fetch(`${api()}/shells/${b64(SHELL)}/asset-information`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify(info) })).status).toBe(204);
    const res = await fetch(`${api()}${thumbnail}`);
    expect(res.status).toBe(404);
    expect((await json(res)).messages[0].text).toContain('is a link');
  });
});

describe('attachment', () => {
  it('File: PUT sets only that element to a new tfp; GET streams it; through the shell too; DELETE removes the value, the file stays', async () => {
    expect((await put(attachment('Manual'), form('%PDF-1', 'manual.pdf', 'application/pdf'))).status).toBe(204);
    const manual = await json(fetch(`${api()}/submodels/${b64(SM)}/submodel-elements/Manual`));
    expect(manual.value).toMatch(/^file:\/sphere\//);
    // Another File pointing at the same file is not touched by a later PUT.
    await fetch(`${api()}/submodels/${b64(SM)}/submodel-elements/Twin`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ modelType: 'File', idShort: 'Twin', contentType: 'application/pdf', value: manual.value }),
    });
    expect((await put(attachment('Manual'), form('%PDF-2', 'manual2.pdf', 'application/pdf'))).status).toBe(204);
    expect((await json(fetch(`${api()}/submodels/${b64(SM)}/submodel-elements/Twin`))).value).toBe(manual.value);
    expect(await (await fetch(`${api()}${attachment('Twin')}`)).text()).toBe('%PDF-1');
    expect(await (await fetch(`${api()}${attachment('Manual')}`)).text()).toBe('%PDF-2');
    const viaShell = await fetch(`${api()}/shells/${b64(SHELL)}/submodels/${b64(SM)}/submodel-elements/Manual/attachment`);
    expect(await viaShell.text()).toBe('%PDF-2');

    expect((await put(attachment('Docs.Deep'), form('deep', 'deep.txt', 'text/plain'))).status).toBe(204);
    expect(await (await fetch(`${api()}${attachment('Docs.Deep')}`)).text()).toBe('deep');

    expect((await fetch(`${api()}${attachment('Manual')}`, { method: 'DELETE' })).status).toBe(204);
    expect(await json(fetch(`${api()}/submodels/${b64(SM)}/submodel-elements/Manual`))).not.toHaveProperty('value');
    expect((await fetch(`${filesApi()}/${encodeURIComponent(manual.value)}`)).status).toBe(200);
    expect((await fetch(`${api()}${attachment('Manual')}`)).status).toBe(404);
  });

  it('Blob: the bytes go into the element; GET answers them', async () => {
    expect((await put(attachment('Raw'), form('\u0001\u0002raw', 'raw.bin', 'application/x-raw'))).status).toBe(204);
    const res = await fetch(`${api()}${attachment('Raw')}`);
    expect(res.headers.get('content-type')).toBe('application/x-raw');
    expect(await res.text()).toBe('\u0001\u0002raw');
    expect((await fetch(`${api()}${attachment('Raw')}`, { method: 'DELETE' })).status).toBe(204);
    expect((await fetch(`${api()}${attachment('Raw')}`)).status).toBe(404);
  });

  it('bad input: a link is no file (404 saying so), a Property has no attachment (400), no element 404, not multipart 415, no file part 400', async () => {
    const link = await fetch(`${api()}${attachment('Link')}`);
    expect(link.status).toBe(404);
    expect((await json(link)).messages[0].text).toContain('is a link');
    expect((await fetch(`${api()}${attachment('Prop')}`)).status).toBe(400);
    expect((await put(attachment('Prop'), form('x', 'x.txt', 'text/plain'))).status).toBe(400);
    expect((await fetch(`${api()}${attachment('Nope')}`)).status).toBe(404);
    expect((await fetch(`${api()}/submodels/${b64('urn:none')}/submodel-elements/Manual/attachment`)).status).toBe(404);
    expect((await put(attachment('Manual'), 'plain', { 'content-type': 'text/plain' })).status).toBe(415);
    const noFile = new FormData();
    noFile.append('fileName', 'x.pdf');
    expect((await put(attachment('Manual'), noFile)).status).toBe(400);
    expect((await fetch(`${api()}/shells/${b64('urn:none')}/asset-information/thumbnail`)).status).toBe(404);
  });

  it('obeys access: no token on a non-showcase tenant is 401, for reads and writes', async () => {
    const closed = await server.createTenant({ showcase: false });
    const base = server.api(closed.name);
    expect((await fetch(`${base}${thumbnail}`)).status).toBe(401);
    expect((await fetch(`${base}${thumbnail}`, { method: 'PUT', body: form('x', 'x.png', 'image/png') })).status).toBe(401);
    expect((await fetch(`${base}${attachment('Manual')}`, { method: 'DELETE' })).status).toBe(401);
  });
});
