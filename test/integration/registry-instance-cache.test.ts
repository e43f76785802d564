import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { TenantEntity } from '../../src/management/tenants/tenant.entity';
import { TestServer, b64, json, startTestServer } from '../support/server';

/**
 * Instances are resolved by name on every request and cached for a few seconds. This process evicts on create
 * and delete; an instance another replica deleted (here: its row removed behind the service's back) may still be
 * cached, and a write to it then answers 404, never a foreign-key 500.
 */
describe('registry instance cache', () => {
  let server: TestServer;
  let tenant: TenantEntity;
  const descriptor = { id: 'urn:cache:shell', endpoints: [{ interface: 'AAS-3.0', protocolInformation: { href: 'http://example.com/aas' } }] };
  const post = (url: string, body: unknown) => fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

  beforeAll(async () => {
    server = await startTestServer(inject('databaseUrl'));
    tenant = await server.createTenant({ showcase: true });
  });
  afterAll(() => server?.close());

  it('sees a name as soon as this process creates it, even after it was looked up as unknown', async () => {
    const base = `${server.url}/tenants/${tenant.name}/fresh/api/v3.0`;
    expect((await fetch(`${base}/shell-descriptors`)).status).toBe(404);
    await server.services.registryInstances.create(tenant, { name: 'fresh', kind: 'aas-registry' });
    expect((await fetch(`${base}/shell-descriptors`)).status).toBe(200);
  });

  it('answers 404 when this process deletes an instance, at once', async () => {
    const created = await server.services.registryInstances.create(tenant, { name: 'gone-here', kind: 'aas-registry' });
    const base = `${server.url}/tenants/${tenant.name}/gone-here/api/v3.0`;
    expect((await fetch(`${base}/shell-descriptors`)).status).toBe(200);
    await server.services.registryInstances.delete(tenant, created.id);
    expect((await fetch(`${base}/shell-descriptors`)).status).toBe(404);
  });

  it('answers a write to an instance deleted elsewhere (still cached here) with 404', async () => {
    for (const [name, kind] of [['elsewhere-reg', 'aas-registry'], ['elsewhere-disc', 'discovery']] as const) {
      const created = await server.services.registryInstances.create(tenant, { name, kind });
      const base = `${server.url}/tenants/${tenant.name}/${name}/api/v3.0`;
      const probe = kind === 'aas-registry' ? `${base}/shell-descriptors` : `${base}/lookup/shells`;
      expect((await fetch(probe)).status).toBe(200);
      await server.dataSource.query('DELETE FROM registry_instances WHERE tenant_id = $1 AND id = $2', [tenant.id, created.id]);
      const res =
        kind === 'aas-registry'
          ? await post(`${base}/shell-descriptors`, descriptor)
          : await post(`${base}/lookup/shells/${b64('urn:cache:shell')}`, [{ name: 'serial', value: '1' }]);
      const body = await json(res);
      expect(res.status, JSON.stringify(body)).toBe(404);
      expect(body.messages[0].text).toMatch(/has been deleted/);
    }
  });
});
