import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { TenantEntity } from '../../src/management/tenants/tenant.entity';
import { assignRole } from '../support/grants';
import { newServiceAccount } from '../support/identity';
import { TestServer, b64, json, startTestServer } from '../support/server';
import { AASX_DIR as DATA } from '../support/testdata';

/** The AASX File Server: packages stored per tenant, their shells read from the packages themselves. */

const packages = fs.readdirSync(DATA).filter((f) => f.endsWith('.aasx')).sort();

let server: TestServer;
let tenant: TenantEntity;
const api = () => server.api(tenant.name);

function form(bytes: Uint8Array | string, name: string, fields: Record<string, string> = {}): FormData {
  const data = new FormData();
  for (const [k, v] of Object.entries(fields)) data.append(k, v);
  data.append('file', new Blob([bytes], { type: 'application/asset-administration-shell-package' }), name);
  return data;
}
const send = (method: string, p: string, body?: FormData | string, headers: Record<string, string> = {}) => fetch(`${api()}${p}`, { method, body, headers });

beforeAll(async () => {
  server = await startTestServer(inject('databaseUrl'));
  tenant = await server.createTenant({ showcase: true });
});
afterAll(() => server?.close());

describe('AASX File Server', () => {
  it('has test packages', () => expect(packages.length).toBeGreaterThanOrEqual(2));

  it('POST each package, list, filter by aasId, GET the same bytes, PUT replaces bytes and aasIds, DELETE then 404', async () => {
    const stored: { name: string; bytes: Buffer; packageId: string; aasIds: string[] }[] = [];
    for (const name of packages) {
      const bytes = fs.readFileSync(path.join(DATA, name));
      // aasIds sent by the client are not taken: the shells come from the package.
      const res = await send('POST', '/packages', form(bytes, name, { fileName: name, aasIds: 'urn:not:in:package' }));
      const body = await json(res);
      expect(res.status, JSON.stringify(body)).toBe(201);
      expect(body.packageId).toMatch(/^[0-9a-f-]{36}$/);
      expect(body.aasIds.length).toBeGreaterThan(0);
      expect(body.aasIds).not.toContain('urn:not:in:package');
      expect(res.headers.get('location')).toBe(`${api()}/packages/${b64(body.packageId)}`);
      stored.push({ name, bytes, ...body });
    }

    const all = await json(send('GET', '/packages'));
    expect(all.result).toEqual(stored.map((s) => ({ packageId: s.packageId, aasIds: s.aasIds })));
    expect(all.paging_metadata).toEqual({});

    const page1 = await json(send('GET', '/packages?limit=1'));
    expect(page1.result).toEqual([{ packageId: stored[0].packageId, aasIds: stored[0].aasIds }]);
    const page2 = await json(send('GET', `/packages?limit=1&cursor=${page1.paging_metadata.cursor}`));
    expect(page2.result[0].packageId).toBe(stored[1].packageId);

    for (const s of stored) {
      const filtered = await json(send('GET', `/packages?aasId=${b64(s.aasIds[0])}`));
      expect(filtered.result.map((r: { packageId: string }) => r.packageId)).toContain(s.packageId);
      expect(filtered.result.every((r: { aasIds: string[] }) => r.aasIds.includes(s.aasIds[0]))).toBe(true);
    }
    expect((await json(send('GET', `/packages?aasId=${b64('urn:nowhere')}`))).result).toEqual([]);

    for (const s of stored) {
      for (const id of [b64(s.packageId), s.packageId]) {
        const got = await send('GET', `/packages/${id}`);
        expect(got.status).toBe(200);
        expect(got.headers.get('content-type')).toBe('application/asset-administration-shell-package');
        expect(got.headers.get('content-disposition')).toBe(`attachment; filename="${s.name}"; filename*=UTF-8''${encodeURIComponent(s.name)}`);
        expect(Buffer.from(await got.arrayBuffer()).equals(s.bytes)).toBe(true);
      }
    }

    // PUT the second package's bytes over the first: its shells are read again.
    const [first, second] = stored;
    const put = await send('PUT', `/packages/${b64(first.packageId)}`, form(second.bytes, 'replaced.aasx'));
    expect(put.status, await put.text()).toBe(204);
    const after = await json(send('GET', '/packages'));
    expect(after.result[0]).toEqual({ packageId: first.packageId, aasIds: second.aasIds });
    const got = await send('GET', `/packages/${b64(first.packageId)}`);
    expect(got.headers.get('content-disposition')).toBe("attachment; filename=\"replaced.aasx\"; filename*=UTF-8''replaced.aasx");
    expect(Buffer.from(await got.arrayBuffer()).equals(second.bytes)).toBe(true);
    if (first.aasIds[0] !== second.aasIds[0]) {
      const gone = await json(send('GET', `/packages?aasId=${b64(first.aasIds[0])}`));
      expect(gone.result.map((r: { packageId: string }) => r.packageId)).not.toContain(first.packageId);
    }

    // The same list through GraphQL.
    const gql = async (aasId?: string) =>
      (
        await json(
          fetch(`${server.url}/graphql`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({
              query: 'query($t: String!, $a: String) { aasxPackages(tenant: $t, aasId: $a, limit: 1) { result { packageId aasIds } pagingMetadata { cursor } } }',
              variables: { t: tenant.name, a: aasId },
            }),
          }),
        )
      ).data.aasxPackages;
    const viaGraphql = await gql();
    expect(viaGraphql.result).toEqual([after.result[0]]);
    expect(viaGraphql.pagingMetadata.cursor).toEqual(expect.any(String));
    expect((await gql(stored[1].aasIds[0])).result[0].aasIds).toContain(stored[1].aasIds[0]);
    expect((await gql('urn:nowhere')).result).toEqual([]);

    for (const s of stored) {
      expect((await send('DELETE', `/packages/${b64(s.packageId)}`)).status).toBe(204);
      expect((await send('GET', `/packages/${b64(s.packageId)}`)).status).toBe(404);
      expect((await send('DELETE', `/packages/${b64(s.packageId)}`)).status).toBe(404);
    }
    expect((await json(send('GET', '/packages'))).result).toEqual([]);
  });

  it('bad input: not a zip 400 and nothing stored; unknown id 404; bad base64 400; not multipart 415; bad limit and cursor 400', async () => {
    const bad = await send('POST', '/packages', form('this is not a zip', 'bad.aasx'));
    expect(bad.status).toBe(400);
    expect((await json(bad)).messages[0].text).toMatch(/AASX/);
    expect((await json(send('GET', '/packages'))).result).toEqual([]);

    const unknown = b64('00000000-0000-4000-8000-000000000000');
    expect((await send('GET', `/packages/${unknown}`)).status).toBe(404);
    expect((await send('PUT', `/packages/${unknown}`, form(fs.readFileSync(path.join(DATA, packages[0])), 'x.aasx'))).status).toBe(404);
    expect((await send('DELETE', `/packages/${unknown}`)).status).toBe(404);
    expect((await send('GET', `/packages/${b64('urn:not-a-uuid')}`)).status).toBe(404);
    expect((await send('GET', '/packages/a')).status).toBe(400);
    expect((await send('GET', '/packages?aasId=***')).status).toBe(400);
    expect((await send('GET', '/packages?limit=0')).status).toBe(400);
    expect((await send('GET', '/packages?cursor=abc')).status).toBe(400);

    const notMultipart = await send('POST', '/packages', '{}', { 'content-type': 'application/json' });
    expect(notMultipart.status).toBe(415);
    expect((await json(send('GET', '/packages'))).result).toEqual([]);
  });

  it('keeps a package\'s bytes out of the file repository: not listed in /files, and its tfp reaches nothing there', async () => {
    const files = `${server.url}/tenants/${tenant.name}/sphere/api/v1.0/files`;
    const listed = async () => (await json(fetch(files))).result.map((f: { tfp: string }) => f.tfp);
    const before = await listed();
    const bytes = fs.readFileSync(path.join(DATA, packages[0]));
    const { packageId } = await json(send('POST', '/packages', form(bytes, packages[0])));
    expect(await listed()).toEqual(before);
    const [{ file }] = await server.dataSource.query('SELECT file FROM aasx_packages WHERE tenant_id = $1 AND id = $2', [tenant.id, packageId]);
    const url = `${files}/${encodeURIComponent(file)}`;
    expect((await fetch(url)).status).toBe(404);
    expect((await fetch(`${url}/metadata`)).status).toBe(404);
    expect((await fetch(url, { method: 'DELETE' })).status).toBe(404);
    expect((await fetch(`${server.api(tenant.name).replace('/api/v3.0', '')}/api/v3.0/files/${encodeURIComponent(file)}`, { method: 'DELETE' })).status).toBe(404);
    // The package is whole: its bytes come back, and deleting it removes its file with it.
    expect(Buffer.from(await (await send('GET', `/packages/${b64(packageId)}`)).arrayBuffer()).equals(bytes)).toBe(true);
    expect((await send('DELETE', `/packages/${b64(packageId)}`)).status).toBe(204);
    const [{ count }] = await server.dataSource.query("SELECT count(*)::int AS count FROM files WHERE tenant_id = $1 AND held_by = 'aasx-package'", [tenant.id]);
    expect(count).toBe(0);
  });

  it('lets contributors write packages and readers read them; a reader\'s write is 403 and changes nothing; other tenants\' callers get 404', async () => {
    const closed = await server.createTenant({ showcase: false });
    const base = server.api(closed.name);
    const withRole = async (organizationId: string, role: 'reader' | 'contributor', tenantId: string) => {
      const account = await newServiceAccount(server, organizationId);
      await assignRole(server, organizationId, { type: 'service-account', id: account.id }, role, tenantId);
      return { authorization: `Bearer ${await account.token()}` };
    };
    const reader = await withRole(closed.organizationId, 'reader', closed.id);
    const contributor = await withRole(closed.organizationId, 'contributor', closed.id);
    const elsewhere = await server.createTenant({ showcase: false });
    const stranger = await withRole(elsewhere.organizationId, 'contributor', elsewhere.id);
    const bytes = fs.readFileSync(path.join(DATA, packages[0]));

    expect((await fetch(`${base}/packages`, { method: 'POST', body: form(bytes, 'r.aasx'), headers: reader })).status).toBe(403);
    const created = await fetch(`${base}/packages`, { method: 'POST', body: form(bytes, 'c.aasx'), headers: contributor });
    expect(created.status).toBe(201);
    const { packageId } = await json(created);
    const one = `${base}/packages/${b64(packageId)}`;

    expect((await json(fetch(`${base}/packages`, { headers: reader }))).result.map((p: { packageId: string }) => p.packageId)).toEqual([packageId]);
    const down = await fetch(one, { headers: reader });
    expect(down.status).toBe(200);
    expect(Buffer.from(await down.arrayBuffer()).equals(bytes)).toBe(true);
    expect((await fetch(one, { method: 'PUT', body: form(fs.readFileSync(path.join(DATA, packages[1])), 'r.aasx'), headers: reader })).status).toBe(403);
    expect((await fetch(one, { method: 'DELETE', headers: reader })).status).toBe(403);
    expect(Buffer.from(await (await fetch(one, { headers: contributor })).arrayBuffer()).equals(bytes)).toBe(true);

    for (const headers of [stranger]) {
      expect((await fetch(`${base}/packages`, { headers })).status).toBe(404);
      expect((await fetch(one, { headers })).status).toBe(404);
      expect((await fetch(`${base}/packages`, { method: 'POST', body: form(bytes, 's.aasx'), headers })).status).toBe(404);
      expect((await fetch(one, { method: 'DELETE', headers })).status).toBe(404);
    }
    expect((await fetch(one, { method: 'DELETE', headers: contributor })).status).toBe(204);
    expect((await json(fetch(`${base}/packages`, { headers: reader }))).result).toEqual([]);
  });

  it('a tenant that is no showcase: 401 without a token', async () => {
    const closed = await server.createTenant({ showcase: false });
    const base = server.api(closed.name);
    expect((await fetch(`${base}/packages`)).status).toBe(401);
    expect((await fetch(`${base}/packages`, { method: 'POST', body: form('x', 'x.aasx') })).status).toBe(401);
    expect((await fetch(`${base}/packages/${b64('00000000-0000-4000-8000-000000000000')}`)).status).toBe(401);
    expect((await fetch(`${base}/packages/${b64('00000000-0000-4000-8000-000000000000')}`, { method: 'DELETE' })).status).toBe(401);
  });
});
