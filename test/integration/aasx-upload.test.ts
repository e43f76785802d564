import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { fileElements } from '../../src/aas/model/file-elements';
import type { TenantEntity } from '../../src/management/tenants/tenant.entity';
import { TestServer, b64, json, startTestServer } from '../support/server';

const PACKAGES = path.resolve(__dirname, '../../../shared/testdata/aasx');
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

/** The tenant's shells and submodels, with every File value and thumbnail replaced by the bytes it names. */
async function contents(tenant: TenantEntity): Promise<unknown> {
  const api = server.api(tenant.name);
  const resolve = async (value: unknown) => {
    if (typeof value !== 'string' || !value.startsWith('file:/sphere/')) return value;
    const res = await fetch(`${server.url}/tenants/${tenant.name}/sphere/api/v1.0/files/${encodeURIComponent(value)}`);
    return { bytes: Buffer.from(await res.arrayBuffer()).toString('base64') };
  };
  const shells = (await json(fetch(`${api}/shells`))).result;
  for (const shell of shells) {
    const thumb = shell.assetInformation.defaultThumbnail;
    if (thumb) thumb.path = await resolve(thumb.path);
  }
  const submodels = (await json(fetch(`${api}/submodels`))).result;
  for (const sm of submodels) for (const file of fileElements(sm)) file.value = await resolve(file.value);
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
