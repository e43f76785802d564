import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PACKAGE } from '../../src/common/package-info';
import { TenantEntity } from '../../src/management/tenants/tenant.entity';
import { FreshDatabase, freshDatabase } from '../support/fresh-database';
import { TestServer, hostGet, json, startTestServer } from '../support/server';

/**
 * `GET /`, where a newcomer lands: an HTML page for browsers, JSON for API clients, linking what there is to open,
 * with a warning while tenants are in showcase mode. On a database of its own: which tenants are in showcase mode
 * is the point, and other tests create such tenants in the shared one.
 */
let db: FreshDatabase;
let server: TestServer;

beforeAll(async () => {
  db = await freshDatabase('front_door');
  // The first start creates the tenant `default`, here without showcase mode.
  server = await startTestServer(db.url, { defaultTenantShowcase: false });
});
afterAll(async () => {
  await server?.close();
  await db?.drop();
});

const html = { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' };

/** The `href` of every link of a page. */
const hrefs = (page: string) => [...page.matchAll(/<a\s[^>]*href="([^"]*)"/g)].map((m) => m[1].replace(/&amp;/g, '&'));

/** A GET to this file's server with a Host header of its own. */
const viaHost = (path: string, host: string, headers: Record<string, string> = {}) => hostGet(new URL(server.url).port, host, path, headers);

async function setShowcase(name: string, showcase: boolean): Promise<void> {
  await server.dataSource.manager.update(TenantEntity, { name }, { showcase });
  server.services.tenants.evict(name);
}

describe('the front door (GET /)', () => {
  it('answers a browser with a page: the version, the consoles, the documents, health and the default tenant', async () => {
    const res = await fetch(`${server.url}/`, { headers: html });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(res.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(res.headers.get('vary')).toContain('Accept');
    const page = await res.text();
    expect(page).toContain(`Version ${PACKAGE.version}`);
    for (const title of ['REST API console', 'GraphiQL', 'Management API: OpenAPI document', 'OpenAPI document', 'AsyncAPI document', 'Health', 'AAS API of tenant &quot;default&quot;']) {
      expect(page).toContain(title);
    }
    // No showcase tenant on this database: no warning.
    expect(page).not.toMatch(/showcase mode:/i);
    expect(page).not.toContain('<script');
  });

  it("links to pages that answer 200 (the default tenant's API once it is in showcase mode), relative to the page", async () => {
    const page = await (await fetch(`${server.url}/`, { headers: html })).text();
    const links = hrefs(page);
    expect(links).toEqual([
      'admin',
      'console',
      'graphiql',
      'graphql',
      'api/v1/openapi.json',
      'tenants/default/api/v3.0/openapi.json',
      'tenants/default/api/v3.0/asyncapi.json',
      'health/ready',
      'tenants/default/api/v3.0/shells',
    ]);
    // Without a token the default tenant's API (not in showcase mode) refuses; every other link answers.
    for (const href of links) {
      const res = await fetch(new URL(href, `${server.url}/`), { headers: html });
      expect(res.status, href).toBe(href.endsWith('/shells') ? 401 : 200);
    }
    await setShowcase('default', true);
    try {
      for (const href of links) expect((await fetch(new URL(href, `${server.url}/`), { headers: html })).status, href).toBe(200);
    } finally {
      await setShowcase('default', false);
    }
  });

  it('keeps an idle connection open for 30 s and says so, so that a client reusing it does not race its closing', async () => {
    const header = await new Promise<string | string[] | undefined>((resolve, reject) => {
      const req = http.get(`${server.url}/health/live`, { agent: new http.Agent({ keepAlive: true }) }, (res) => {
        res.resume();
        resolve(res.headers['keep-alive']);
        req.destroy();
      });
      req.on('error', reject);
    });
    expect(header).toBe('timeout=30');
  });

  it('has an icon at /favicon.ico, the one path every browser asks for', async () => {
    const res = await fetch(`${server.url}/favicon.ico`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^image\/svg\+xml/);
    expect(await res.text()).toMatch(/^<svg /);
  });

  it('warns while tenants are in showcase mode, and names them', async () => {
    const created = await server.createTenant({ showcase: true, prefix: 'open' });
    try {
      const page = await (await fetch(`${server.url}/`, { headers: html })).text();
      expect(page).toMatch(/Showcase mode: the API of these tenants needs no token/);
      expect(page).toContain(`<code>${created.name}</code>`);
      const body = await json(fetch(`${server.url}/`));
      expect(body.showcase).toEqual({ tenants: [created.name], total: 1, warning: expect.stringContaining('Not for production') });
      // Once it leaves showcase mode, the warning goes.
      await setShowcase(created.name, false);
      expect(await (await fetch(`${server.url}/`, { headers: html })).text()).not.toMatch(/Showcase mode:/);
      expect((await json(fetch(`${server.url}/`))).showcase).toEqual({ tenants: [], total: 0 });
    } finally {
      await server.dataSource.manager.delete(TenantEntity, { name: created.name });
    }
  });

  it('answers API clients with JSON: the version and the canonical URLs from PUBLIC_URL', async () => {
    for (const accept of ['application/json', '*/*', undefined]) {
      const res = await fetch(`${server.url}/`, { headers: accept ? { accept } : {} });
      expect(res.status, accept).toBe(200);
      expect(res.headers.get('content-type'), accept).toMatch(/^application\/json/);
      const body = await json(res);
      expect(body).toMatchObject({ name: PACKAGE.name, version: PACKAGE.version });
      expect(body.links).toEqual({
        adminConsole: `${server.url}/admin`,
        restConsole: `${server.url}/console`,
        graphiql: `${server.url}/graphiql`,
        graphql: `${server.url}/graphql`,
        managementOpenApi: `${server.url}/api/v1/openapi.json`,
        tenantOpenApi: `${server.url}/tenants/default/api/v3.0/openapi.json`,
        asyncApi: `${server.url}/tenants/default/api/v3.0/asyncapi.json`,
        health: `${server.url}/health/ready`,
        defaultTenantApi: `${server.url}/tenants/default/api/v3.0/shells`,
      });
    }
    expect((await fetch(`${server.url}/`, { method: 'HEAD' })).status).toBe(200);
  });

  it('refuses what it cannot answer with a Result: another media type (406), another method (405)', async () => {
    const refused = await fetch(`${server.url}/`, { headers: { accept: 'image/png' } });
    expect(refused.status).toBe(406);
    const body = await json(refused);
    expect(body.messages[0]).toMatchObject({ code: '406', messageType: 'Error', text: expect.stringContaining('text/html') });
    const posted = await fetch(`${server.url}/`, { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } });
    expect(posted.status).toBe(405);
    expect((await json(posted)).messages[0].messageType).toBe('Error');
  });

  it('links relative to itself, so its links work at any host name the page is opened at', async () => {
    const page = await viaHost('/', 'aas.plant.example:8443', html);
    expect(page.status).toBe(200);
    for (const href of hrefs(page.body)) {
      expect(href, href).not.toMatch(/^(https?:|\/)/);
      expect((await viaHost(new URL(href, 'http://aas.plant.example:8443/').pathname, 'aas.plant.example:8443', html)).status, href).not.toBe(404);
    }
  });
});
