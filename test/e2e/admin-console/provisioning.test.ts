import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { checkScreen, goTo, launchBrowser, openConsole, signInThroughUi } from '../../support/admin-browser';
import { clientCredentialsToken } from '../../support/identity';
import { newOrganization } from '../../support/management';
import { TestServer, sampleShell, startTestServer } from '../../support/server';
import { hasTools } from '../../support/system-tools';

/**
 * A whole provisioning through the admin console, as an administrator does it on a new site: a tenant, a service
 * account and its secret, a role for it on the tenant. Then the script's side: the secret copied from the page gets
 * a token, and that token reads and writes the tenant's AAS API, and nothing else.
 */
let server: TestServer;
let browser: Browser;

const copied = (page: Page, label: string) => page.locator(`[data-copy="${label}"]`).textContent() as Promise<string>;

describe.skipIf(!hasTools('chromium', 'curl'))('admin console: a whole provisioning', () => {
  beforeAll(async () => {
    server = await startTestServer(inject('databaseUrl'));
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it('creates a tenant, a service account with its secret and a contributor role on the tenant; the secret shown then works against the tenant API', async () => {
    const { user, organization } = await newOrganization(server, 'Provisioned plant');
    const other = await server.createTenant({ showcase: false });
    const { context, page, problems } = await openConsole(browser, server.url);
    await signInThroughUi(page, server.url, user);

    // 1. The tenant.
    const tenant = `plant-${randomBytes(4).toString('hex')}`;
    await goTo(page, server.url, `/org/${organization.id}/tenants`, 'Tenants of Provisioned plant');
    await page.getByLabel('Name', { exact: true }).fill(tenant);
    await page.getByLabel('Friendly name').fill('Plant Hamburg');
    await page.getByRole('button', { name: 'Create tenant' }).click();
    await expect.poll(() => page.getByRole('region', { name: 'Tenants of the organization' }).textContent()).toContain(tenant);

    // 2. The service account; its secret is shown once.
    await goTo(page, server.url, `/org/${organization.id}/service-accounts`, 'Service accounts');
    await page.getByRole('button', { name: 'New service account' }).click();
    const create = page.getByRole('dialog', { name: 'New service account' });
    await create.getByLabel('Name', { exact: true }).fill('Line gateway');
    await create.getByRole('button', { name: 'Create service account' }).click();
    await expect.poll(() => page.getByRole('region', { name: 'Copy the new secret of Line gateway now' }).count(), { timeout: 20_000 }).toBe(1);
    const clientId = await copied(page, 'client id');
    const secret = await copied(page, 'client secret');
    // The panel's command for a script, pasted into a shell as it is, gets a token too.
    const command = await copied(page, 'token command');
    expect(command).toContain(clientId);
    // Run asynchronously: the server answering it runs in this process.
    const answer = JSON.parse((await promisify(execFile)('sh', ['-c', command], { encoding: 'utf8', timeout: 30_000 })).stdout) as { access_token: string; token_type: string };
    expect(answer.token_type).toBe('Bearer');
    const me = await fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: { authorization: `Bearer ${answer.access_token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ me { principal { id type } } }' }),
    });
    expect(await me.json()).toEqual({ data: { me: { principal: { id: clientId, type: 'service-account' } } } });
    const token = await clientCredentialsToken(server, clientId, secret);
    // Without a role yet, the tenant does not exist for it.
    expect((await fetch(`${server.api(tenant)}/shells`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(404);

    // 3. Its role: contributor on the new tenant.
    await goTo(page, server.url, `/org/${organization.id}/roles`, 'Role assignments');
    await page.getByLabel('Tenant', { exact: true }).selectOption({ label: `Plant Hamburg (${tenant})` });
    await page.getByRole('button', { name: 'Assign a role on this tenant' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('Kind of principal', { exact: true }).selectOption({ label: 'Service account' });
    await dialog.getByLabel('Service account', { exact: true }).selectOption({ label: 'Line gateway' });
    await dialog.getByLabel('Role', { exact: true }).selectOption({ label: 'contributor' });
    await dialog.getByRole('button', { name: 'Assign' }).click();
    await expect.poll(() => page.getByRole('dialog').count()).toBe(0);
    await checkScreen(page, 'provisioning-role-assigned');

    // 4. The script's side: a fresh token of the service account writes and reads the tenant's AAS API ...
    const fresh = await clientCredentialsToken(server, clientId, secret);
    const headers = { authorization: `Bearer ${fresh}`, 'content-type': 'application/json' };
    const created = await fetch(`${server.api(tenant)}/shells`, { method: 'POST', headers, body: JSON.stringify(sampleShell('urn:provisioned:1')) });
    expect(created.status).toBe(201);
    const read = await fetch(`${server.api(tenant)}/shells`, { headers });
    expect(read.status).toBe(200);
    expect(((await read.json()) as { result: { id: string }[] }).result.map((s) => s.id)).toEqual(['urn:provisioned:1']);
    // ... and nothing of another organization's tenant, nor the organization's management.
    expect((await fetch(`${server.api(other.name)}/shells`, { headers })).status).toBe(404);
    expect((await fetch(`${server.url}/api/v1/organizations/${organization.id}/service-accounts`, { headers })).status).toBe(403);

    // The console shows what the script wrote.
    await goTo(page, server.url, `/org/${organization.id}/tenants/${tenant}/shells`, /Shells/);
    await expect.poll(() => page.locator('main').textContent()).toContain('urn:provisioned:1');
    expect(problems).toEqual([]);
    await context.close();
  });
});
