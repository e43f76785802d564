import { Browser, Page, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { RoleAssignmentEntity } from '../../src/management/role-assignments/role-assignment.entity';
import { freshDatabase } from '../support/fresh-database';
import { newServiceAccount, newUser } from '../support/identity';
import { TestServer, sampleShell, startTestServer } from '../support/server';
import { CHROMIUM, hasTools } from '../support/system-tools';

/**
 * The REST API console in a real browser (Debian's chromium, headless, driven by playwright-core): a user logs
 * in through Swagger UI's Authorize dialog (authorization code + PKCE, our login page in a popup, back through
 * oauth2-redirect.html) and executes a call with the token. `npm test` installs chromium first when it can; where
 * it cannot, this file is skipped, and the run says so (test/support/system-tools.ts).
 */
let server: TestServer;
let browser: Browser;

/** A new page in a context of its own, and the page's errors and console errors as they come. */
async function openPage() {
  const context = await browser.newContext();
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('pageerror', (err) => problems.push(err.message));
  page.on('console', (msg) => {
    if (msg.type() === 'error') problems.push(msg.text());
  });
  return { context, page, problems };
}

/** Runs GET /shells with the console's "Try it out", waits for its 200 and answers the body the console shows. */
async function tryGetShells(page: Page): Promise<string | null> {
  const operation = page.locator('.opblock-get', { has: page.locator('[data-path="/shells"]') }).first();
  await operation.locator('.opblock-summary').first().click();
  await operation.locator('.try-out__btn').click();
  await operation.locator('.execute').click();
  const status = operation.locator('.live-responses-table .response .response-col_status').first();
  await expect.poll(() => status.textContent(), { timeout: 15_000 }).toContain('200');
  return operation.locator('.live-responses-table .response-col_description pre').first().textContent();
}

describe.skipIf(!hasTools('chromium'))('REST API console in a browser', () => {
  beforeAll(async () => {
    server = await startTestServer(inject('databaseUrl'));
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-background-networking'] });
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it('logs in with the authorization code flow and executes GET /shells of a tenant the user reads', async () => {
    const tenant = await server.createTenant({ showcase: false });
    const user = await newUser(server);
    await server.dataSource.manager.insert(RoleAssignmentEntity, {
      organizationId: tenant.organizationId,
      tenantId: null,
      role: 'reader',
      principalType: 'user',
      principalId: user.id,
      createdBy: 'test',
    });
    // A shell to read, written by a contributor of the organization.
    const owner = await newUser(server);
    await server.dataSource.manager.insert(RoleAssignmentEntity, {
      organizationId: tenant.organizationId,
      tenantId: null,
      role: 'contributor',
      principalType: 'user',
      principalId: owner.id,
      createdBy: 'test',
    });
    const created = await fetch(`${server.api(tenant.name)}/shells`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${await owner.token()}` },
      body: JSON.stringify(sampleShell('urn:console:browser:1')),
    });
    expect(created.status).toBe(201);

    const { context, page, problems } = await openPage();
    const offsite: string[] = [];
    await context.route('**/*', (route) => {
      const url = new URL(route.request().url());
      if (url.origin !== new URL(server.url).origin) {
        offsite.push(url.href);
        return route.abort();
      }
      return route.continue();
    });

    await page.goto(`${server.url}/console?tenant=${tenant.name}`);
    await page.locator('.swagger-ui .btn.authorize').first().click();
    const flow = page.locator('.auth-container', { hasText: 'authorizationCode' });
    await expect.poll(() => flow.count()).toBeGreaterThan(0);
    const [popup] = await Promise.all([context.waitForEvent('page'), flow.locator('button.authorize').click()]);
    await popup.locator('#email').fill(user.email);
    await popup.locator('#password').fill(user.password);
    await popup.locator('#login').click();
    await popup.waitForEvent('close', { timeout: 20_000 });
    // Authorized: the flow's button now logs out.
    await expect.poll(() => flow.locator('button', { hasText: 'Logout' }).count(), { timeout: 10_000 }).toBe(1);
    await page.locator('.modal-ux .btn-done, .modal-ux button.close-modal').first().click();

    expect(await tryGetShells(page)).toContain('urn:console:browser:1');

    expect(offsite).toEqual([]);
    expect(problems.filter((p) => /Content Security Policy|Refused/i.test(p))).toEqual([]);
    await context.close();
  });

  it('signs in with a service account\'s client id and secret (client credentials) and executes GET /shells', async () => {
    const tenant = await server.createTenant({ showcase: false });
    const account = await newServiceAccount(server, tenant.organizationId);
    await server.dataSource.manager.insert(RoleAssignmentEntity, {
      organizationId: tenant.organizationId,
      tenantId: tenant.id,
      role: 'contributor',
      principalType: 'service-account',
      principalId: account.id,
      createdBy: 'test',
    });
    const created = await fetch(`${server.api(tenant.name)}/shells`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${await account.token()}` },
      body: JSON.stringify(sampleShell('urn:console:browser:service-account')),
    });
    expect(created.status).toBe(201);

    const { context, page, problems } = await openPage();
    await page.goto(`${server.url}/console?tenant=${tenant.name}`);
    await page.locator('.swagger-ui .btn.authorize').first().click();
    const flow = page.locator('.auth-container', { hasText: 'clientCredentials' });
    await expect.poll(() => flow.count()).toBeGreaterThan(0);
    // The flow asks for the one scope a service account's token has.
    expect(await flow.locator('.scopes').textContent()).not.toContain('openid');
    await flow.locator('input[id^="client_id"]').fill(account.id);
    await flow.locator('input[id^="client_secret"]').fill(account.secret);
    await flow.locator('button.authorize').click();
    await expect.poll(async () => `${await flow.locator('button', { hasText: 'Logout' }).count()} ${await flow.locator('.errors').textContent().catch(() => '')}`, { timeout: 15_000 }).toBe('1 ');
    await page.locator('.modal-ux .btn-done, .modal-ux button.close-modal').first().click();

    expect(await tryGetShells(page)).toContain('urn:console:browser:service-account');
    expect(problems.filter((p) => /CORS|Content Security Policy|Refused|Failed to fetch/i.test(p))).toEqual([]);
    await context.close();
  }, 180_000);

  it('opens on the Management API on a server with several tenants, and on the AAS API of the only tenant of a server with one', async () => {
    const selected = (page: Page) => page.locator('.download-url-wrapper select').inputValue();
    await server.createTenant();
    await server.createTenant();
    const { context, page } = await openPage();
    await page.goto(`${server.url}/console`);
    await expect.poll(() => page.locator('.download-url-wrapper select option').count(), { timeout: 15_000 }).toBeGreaterThan(0);
    expect(await selected(page)).toBe('api/v1/openapi.json');

    const database = await freshDatabase('console_one_tenant');
    const single = await startTestServer(database.url);
    try {
      await page.goto(`${single.url}/console`);
      await expect.poll(() => page.locator('.download-url-wrapper select option').count(), { timeout: 15_000 }).toBe(2);
      expect(await selected(page)).toBe('tenants/default/api/v3.0/openapi.json');
      await expect.poll(() => page.locator('.opblock-get [data-path="/shells"]').count(), { timeout: 15_000 }).toBeGreaterThan(0);
      // A tenant asked for is what it opens on, here as elsewhere.
      await page.goto(`${single.url}/console?tenant=other`);
      await expect.poll(() => page.locator('.download-url-wrapper select option').count(), { timeout: 15_000 }).toBe(2);
      expect(await selected(page)).toBe('tenants/other/api/v3.0/openapi.json');
    } finally {
      await context.close();
      await single.close();
      await database.drop();
    }
  }, 180_000);

  it('GraphiQL, not logged in, says that showcase tenants answer without a token, and names them', async () => {
    const tenant = await server.createTenant({ showcase: true });
    const { context, page, problems } = await openPage();
    await page.goto(`${server.url}/graphiql`);
    const status = page.locator('#login-status');
    await expect.poll(() => status.textContent(), { timeout: 15_000 }).toContain('(showcase mode)');
    const text = (await status.textContent())!;
    expect(text).toMatch(/^Not logged in: tenants? .* answers? without a token; for the others, log in or paste a bearer token into Headers\.$/);
    // The front door names the first showcase tenants by name; this one, or more beyond them.
    expect(text.includes(`"${tenant.name}"`) || / and \d+ more/.test(text)).toBe(true);
    expect(problems.filter((p) => /Content Security Policy|Refused/i.test(p))).toEqual([]);
    await context.close();
  }, 120_000);

  it('works opened at a host name PUBLIC_URL does not name: loads its documents and executes GET /shells there', async () => {
    // PUBLIC_URL is http://127.0.0.1:{port}; the page is opened at http://localhost:{port}, another origin.
    const tenant = await server.createTenant({ showcase: true });
    const created = await fetch(`${server.api(tenant.name)}/shells`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(sampleShell('urn:console:browser:other-host')),
    });
    expect(created.status).toBe(201);
    const origin = `http://localhost:${new URL(server.url).port}`;
    const { context, page, problems } = await openPage();
    const requested: string[] = [];
    page.on('request', (request) => requested.push(request.url()));

    await page.goto(`${origin}/console?tenant=${tenant.name}`);
    expect(await tryGetShells(page)).toContain('urn:console:browser:other-host');

    // Everything went to the page's own origin: no CORS failure, nothing at PUBLIC_URL's origin.
    expect(requested.filter((url) => new URL(url).origin !== origin)).toEqual([]);
    expect(requested).toContain(`${origin}/tenants/${tenant.name}/api/v3.0/openapi.json`);
    expect(problems.filter((p) => /CORS|Content Security Policy|Refused|Failed to fetch/i.test(p))).toEqual([]);
    await context.close();
  });
});
