import http from 'node:http';
import { describe, expect, inject, it } from 'vitest';
import { OutboxEntity } from '../../src/events/outbox.entity';
import { b64, hostGet, json, sampleShell, startTestServer } from '../support/server';

describe('health', () => {
  it('reports live and ready, and not ready once the database is gone', async () => {
    const server = await startTestServer(inject('databaseUrl'));
    expect(await json(fetch(`${server.url}/health/live`))).toEqual({ status: 'UP' });
    expect(await json(fetch(`${server.url}/health/ready`))).toEqual({ status: 'UP', database: 'UP' });
    await server.dataSource.destroy();
    const ready = await fetch(`${server.url}/health/ready`);
    expect(ready.status).toBe(503);
    expect((await fetch(`${server.url}/health/live`)).status).toBe(200);
    await server.dataSource.initialize();
    await server.close();
  });
});

describe('graceful shutdown', () => {
  it('finishes a request in flight, refuses new connections, closes the database', async () => {
    const server = await startTestServer(inject('databaseUrl'));
    const tenant = await server.createTenant();
    const body = JSON.stringify(sampleShell('urn:shutdown:1'));
    const url = new URL(`${server.api(tenant.name)}/shells`);
    // A request whose body is still arriving when shutdown begins.
    let answer!: (status: number) => void;
    const status = new Promise<number>((resolve) => (answer = resolve));
    const req = http.request(url, { method: 'POST', headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (res) => {
      res.resume();
      answer(res.statusCode ?? 0);
    });
    req.write(body.slice(0, 10));
    await new Promise((resolve) => setTimeout(resolve, 100));
    const closed = server.close();
    await new Promise((resolve) => setTimeout(resolve, 100));
    req.end(body.slice(10));
    expect(await status).toBe(201);
    await closed;
    await expect(fetch(`${server.url}/health/live`)).rejects.toThrow();
    expect(server.dataSource.isInitialized).toBe(false);
  });
});

describe('tenants', () => {
  it('serves tenants host-based when TENANT_HOST_SUFFIX is set, and says so in the tenant URL', async () => {
    const server = await startTestServer(inject('databaseUrl'), { tenantHostSuffix: 'aas.example.com' });
    try {
      const tenant = await server.createTenant();
      const port = new URL(server.url).port;
      expect(server.services.tenants.urlOf(tenant.name)).toBe(`http://${tenant.name}.aas.example.com:${port}`);
      const created = await fetch(`${server.api(tenant.name)}/shells`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', host: `${tenant.name}.aas.example.com:${port}` },
        body: JSON.stringify(sampleShell('urn:host:1')),
      });
      expect(created.status).toBe(201);
      const viaHost = await hostGet(port, `${tenant.name}.aas.example.com:${port}`, `/api/v3.0/shells/${b64('urn:host:1')}`);
      expect(viaHost.status).toBe(200);
      expect(JSON.parse(viaHost.body).id).toBe('urn:host:1');
      // An unknown tenant host: anonymous callers get 401 as for any tenant that is not a showcase.
      expect((await hostGet(port, `nope.aas.example.com:${port}`, '/api/v3.0/shells')).status).toBe(401);
      expect((await hostGet(port, `other.example.org:${port}`, '/api/v3.0/shells')).status).toBe(404);
    } finally {
      await server.close();
    }
  });

  it('gives tenants a path-based URL under PUBLIC_URL by default, also in GraphQL', async () => {
    const server = await startTestServer(inject('databaseUrl'), { publicUrl: 'https://aas.example.com' });
    try {
      const tenant = await server.createTenant({ showcase: true });
      const res = await json(
        fetch(`${server.url}/graphql`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ query: `{ tenant(tenant: "${tenant.name}") { name url showcase } }` }),
        }),
      );
      expect(res.data.tenant).toEqual({ name: tenant.name, url: `https://aas.example.com/tenants/${tenant.name}`, showcase: true });
    } finally {
      await server.close();
    }
  });
});

describe('change events', () => {
  it('writes one outbox event per shell change for tenants that opted in, none for the others', async () => {
    const server = await startTestServer(inject('databaseUrl'));
    try {
      const withEvents = await server.createTenant({ eventsEnabled: true });
      const without = await server.createTenant();
      for (const tenant of [withEvents, without]) {
        const api = server.api(tenant.name);
        const headers = { 'content-type': 'application/json' };
        await fetch(`${api}/shells`, { method: 'POST', headers, body: JSON.stringify(sampleShell('urn:ev:1')) });
        await fetch(`${api}/shells/${b64('urn:ev:1')}`, { method: 'PUT', headers, body: JSON.stringify(sampleShell('urn:ev:1', { idShort: 'Two' })) });
        await fetch(`${api}/shells`, { method: 'POST', headers, body: '{}' }); // rejected: no event
        await fetch(`${api}/shells/${b64('urn:ev:1')}`, { method: 'DELETE' });
      }
      const events = await server.dataSource.manager.find(OutboxEntity, { where: { tenantId: withEvents.id }, order: { seq: 'ASC' } });
      expect(events.map((e) => [e.kind, e.entityType, e.entityId])).toEqual([
        ['created', 'AssetAdministrationShell', 'urn:ev:1'],
        ['updated', 'AssetAdministrationShell', 'urn:ev:1'],
        ['deleted', 'AssetAdministrationShell', 'urn:ev:1'],
      ]);
      expect(events[1].payload?.idShort).toBe('Two');
      expect(await server.dataSource.manager.count(OutboxEntity, { where: { tenantId: without.id } })).toBe(0);
    } finally {
      await server.close();
    }
  });
});
