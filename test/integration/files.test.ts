import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { TenantEntity } from '../../src/management/tenants/tenant.entity';
import { enc, fileRepositorySuite, sendFile, sha256 } from '../support/file-suite';
import { assignRole, graphql } from '../support/grants';
import { newServiceAccount } from '../support/identity';
import { TestServer, json, startTestServer } from '../support/server';

/** The file repository with its contents in PostgreSQL (file_chunks). */
describe('file repository (PostgreSQL blob store)', () => {
  fileRepositorySuite({
    async contents(server, tenant) {
      const [{ count }] = await server.dataSource.query(
        'SELECT count(*)::int AS count FROM file_chunks c JOIN files f ON f.id = c.file_id WHERE f.tenant_id = $1',
        [tenant.id],
      );
      return count;
    },
  });
});

/** Who may do what: the same policy as the rest of the tenant API, through GraphQL, for streamed routes too. */
describe('file repository access', () => {
  let server: TestServer;
  let tenant: TenantEntity;
  let reader: string;
  let contributor: string;
  let stranger: string;
  const files = () => `${server.url}/tenants/${tenant.name}/sphere/api/v1.0/files`;
  const as = (token?: string) => (token ? { authorization: `Bearer ${token}` } : undefined);

  beforeAll(async () => {
    server = await startTestServer(inject('databaseUrl'));
    tenant = await server.createTenant({ showcase: false });
    const withRole = async (organizationId: string, role: 'reader' | 'contributor', tenantId: string) => {
      const account = await newServiceAccount(server, organizationId);
      await assignRole(server, organizationId, { type: 'service-account', id: account.id }, role, tenantId);
      return account.token();
    };
    reader = await withRole(tenant.organizationId, 'reader', tenant.id);
    contributor = await withRole(tenant.organizationId, 'contributor', tenant.id);
    const elsewhere = await server.createTenant({ showcase: false });
    stranger = await withRole(elsewhere.organizationId, 'contributor', elsewhere.id);
  });
  afterAll(async () => {
    await server?.close();
  });

  it('lets contributors write, readers read, and nobody else in', async () => {
    const bytes = randomBytes(1000);
    const created = await sendFile(files(), bytes, { headers: as(contributor) });
    expect(created.status).toBe(201);
    const { tfp } = await json(created);
    const url = `${files()}/${enc(tfp)}`;

    const down = await fetch(url, { headers: as(reader) });
    expect(down.status).toBe(200);
    expect(sha256(Buffer.from(await down.arrayBuffer()))).toBe(sha256(bytes));
    expect((await fetch(files(), { headers: as(reader) })).status).toBe(200);
    expect((await fetch(`${url}/metadata`, { headers: as(reader) })).status).toBe(200);

    // A reader may not write: 403, and nothing changes.
    expect((await sendFile(files(), bytes, { headers: as(reader) })).status).toBe(403);
    expect((await sendFile(url, Buffer.from('x'), { method: 'PUT', headers: as(reader) })).status).toBe(403);
    expect((await fetch(url, { method: 'DELETE', headers: as(reader) })).status).toBe(403);
    const meta = await fetch(`${url}/metadata`, { method: 'PUT', headers: { ...as(reader), 'content-type': 'application/json' }, body: '{"displayName":"x"}' });
    expect(meta.status).toBe(403);

    // Without a token: 401; with a role elsewhere only: 404, as for a tenant that does not exist.
    for (const [token, status] of [[undefined, 401], [stranger, 404]] as const) {
      expect((await fetch(url, { headers: as(token) })).status).toBe(status);
      expect((await fetch(files(), { headers: as(token) })).status).toBe(status);
      expect((await sendFile(files(), bytes, { headers: as(token) })).status).toBe(status);
      expect((await sendFile(url, bytes, { method: 'PUT', headers: as(token) })).status).toBe(status);
      expect((await fetch(url, { method: 'DELETE', headers: as(token) })).status).toBe(status);
    }
    expect(sha256(Buffer.from(await (await fetch(url, { headers: as(contributor) })).arrayBuffer()))).toBe(sha256(bytes));
    expect((await fetch(url, { method: 'DELETE', headers: as(contributor) })).status).toBe(204);
  });

  it('offers files, file, updateFileMetadata and deleteFile in GraphQL', async () => {
    const { tfp } = await json(await sendFile(files(), Buffer.from('graphql'), { name: 'g.txt', type: 'text/plain', headers: as(contributor) }));
    const list = await graphql(server, reader, 'query ($t: String!) { files(tenant: $t, filter: { contentType: "text/plain" }) { result { tfp size sha256 } } }', { t: tenant.name });
    expect(list.body.data.files.result).toContainEqual({ tfp, size: 7, sha256: sha256(Buffer.from('graphql')) });
    const updated = await graphql(server, contributor, 'mutation ($t: String!, $f: String!) { updateFileMetadata(tenant: $t, tfp: $f, metadata: { classification: "03-05", attributes: [{ key: "a", value: "b" }] }) { classification attributes { key value } } }', { t: tenant.name, f: tfp });
    expect(updated.body.data.updateFileMetadata).toEqual({ classification: '03-05', attributes: [{ key: 'a', value: 'b' }] });
    const bad = await graphql(server, contributor, 'mutation ($t: String!, $f: String!) { updateFileMetadata(tenant: $t, tfp: $f, metadata: { classification: "9" }) { tfp } }', { t: tenant.name, f: tfp });
    expect(bad.body.errors[0].extensions.code).toBe('BAD_REQUEST');
    const denied = await graphql(server, reader, 'mutation ($t: String!, $f: String!) { deleteFile(tenant: $t, tfp: $f) }', { t: tenant.name, f: tfp });
    expect(denied.body.errors[0].extensions.code).toBe('FORBIDDEN');
    const deleted = await graphql(server, contributor, 'mutation ($t: String!, $f: String!) { deleteFile(tenant: $t, tfp: $f) }', { t: tenant.name, f: tfp });
    expect(deleted.body.data.deleteFile).toBe(true);
    const gone = await graphql(server, reader, 'query ($t: String!, $f: String!) { file(tenant: $t, tfp: $f) { tfp } }', { t: tenant.name, f: tfp });
    expect(gone.body.errors[0].extensions.code).toBe('NOT_FOUND');
  });
});
