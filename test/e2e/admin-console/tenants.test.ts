import { randomBytes } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { TenantEntity } from '../../../src/management/tenants/tenant.entity';
import { checkScreen, goTo, launchBrowser, openConsole, signInThroughUi, waitForHeading } from '../../support/admin-browser';
import { graphql } from '../../support/grants';
import { newUser } from '../../support/identity';
import { managementClient, newOrganization } from '../../support/management';
import { TestServer, sampleShell, startTestServer } from '../../support/server';
import { hasTools } from '../../support/system-tools';

let server: TestServer;
let browser: Browser;

const TENANT = 'id name friendlyName tag showcase eventsEnabled etag';
const tenantByName = async (token: string, name: string) => graphql(server, token, `query($t: String!) { tenant(tenant: $t) { ${TENANT} } }`, { t: name });
const unique = (prefix: string) => `${prefix}-${randomBytes(4).toString('hex')}`;
const buttonCount = (page: Page, name: string | RegExp) => page.getByRole('button', { name }).count();

describe.skipIf(!hasTools('chromium'))('admin console: tenants', () => {
  beforeAll(async () => {
    // Push targets on loopback (an unreachable port) are allowed on this server, as on a test bench.
    server = await startTestServer(inject('databaseUrl'), { pushPrivateNetworks: true });
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it('creates a tenant, changes its settings (showcase after a warning), shows a conflict, registers push targets and registry instances, and deletes it', async () => {
    const { user, organization } = await newOrganization(server, 'Tenant works');
    const token = await user.token();
    const { context, page, problems } = await openConsole(browser, server.url);
    await signInThroughUi(page, server.url, user);
    await goTo(page, server.url, `/org/${organization.id}/tenants`, 'Tenants of Tenant works');
    expect(await page.getByText('No tenant yet').count()).toBe(1);

    // A name that is no DNS label: the browser refuses it before sending (pattern), with the rule as the hint.
    const name = page.getByLabel('Name', { exact: true });
    await name.fill('Bad_Name');
    await page.getByRole('button', { name: 'Create tenant' }).click();
    expect(await name.evaluate((el) => (el as unknown as { validity: { patternMismatch: boolean } }).validity.patternMismatch)).toBe(true);
    expect(await server.dataSource.manager.countBy(TenantEntity, { name: 'Bad_Name' })).toBe(0);
    // A name the server refuses (taken: names are global, they are URLs): its message is shown.
    const taken = await server.createTenant({ showcase: false });
    await name.fill(taken.name);
    await page.getByRole('button', { name: 'Create tenant' }).click();
    await expect.poll(() => page.getByRole('alert').allTextContents()).toContain(`The tenant name '${taken.name}' is taken.`);

    const tenantName = unique('console');
    await name.fill(tenantName);
    await page.getByLabel('Friendly name').fill('Line 7');
    await page.getByLabel('Tag').fill('assembly');
    await page.getByRole('button', { name: 'Create tenant' }).click();
    await expect.poll(() => page.getByRole('status').allTextContents()).toContainEqual(expect.stringContaining(`Tenant ${tenantName} created`));
    const list = page.getByRole('region', { name: 'Tenants of the organization' });
    await expect.poll(() => list.textContent()).toContain(tenantName);
    expect(await list.textContent()).toContain('Line 7');
    expect(await list.textContent()).toContain(`${server.url}/tenants/${tenantName}/api/v3.0`);
    const stored = await server.dataSource.manager.findOneByOrFail(TenantEntity, { name: tenantName });
    expect(stored).toMatchObject({ organizationId: organization.id, friendlyName: 'Line 7', tag: 'assembly', showcase: false, eventsEnabled: false });
    await checkScreen(page, 'tenants-list');

    // Its page: the settings. Friendly name and change events, saved with the loaded ETag.
    await list.getByRole('link', { name: tenantName }).click();
    await waitForHeading(page, `Tenant ${tenantName}`);
    expect(await page.getByRole('navigation', { name: `Tenant ${tenantName}` }).getByRole('link').allTextContents()).toEqual(['Settings', 'Shells', 'Files', 'Import AASX']);
    await checkScreen(page, 'tenant-settings');
    await page.getByLabel('Friendly name').fill('Line 7 (assembly)');
    await page.getByLabel('Change events').check();
    await page.getByRole('button', { name: 'Save settings' }).click();
    await expect.poll(() => page.getByRole('status').allTextContents()).toContain('Settings saved.');
    expect((await tenantByName(token, tenantName)).body.data.tenant).toMatchObject({ friendlyName: 'Line 7 (assembly)', tag: 'assembly', eventsEnabled: true, showcase: false });

    // Showcase: a warning of what it opens, and a confirmation before it is saved.
    expect((await fetch(`${server.api(tenantName)}/shells`)).status).toBe(401);
    await page.getByLabel('Showcase mode').check();
    expect(await page.getByRole('note').filter({ hasText: 'Showcase mode opens this tenant to anyone' }).count()).toBe(1);
    await page.getByRole('button', { name: 'Save settings' }).click();
    const showcaseDialog = page.getByRole('dialog', { name: 'Open this tenant to everyone?' });
    await expect.poll(() => showcaseDialog.isVisible()).toBe(true);
    expect(await showcaseDialog.textContent()).toContain('anyone who can reach the server can read and change or delete');
    expect(await showcaseDialog.textContent()).toContain('Never use it for production data');
    expect((await tenantByName(token, tenantName)).body.data.tenant.showcase).toBe(false);
    await checkScreen(page, 'tenant-showcase-warning');
    await showcaseDialog.getByRole('button', { name: 'Turn showcase mode on and save' }).click();
    await expect.poll(() => page.getByRole('status').allTextContents()).toContain('Settings saved.');
    expect((await tenantByName(token, tenantName)).body.data.tenant.showcase).toBe(true);
    await expect.poll(async () => (await fetch(`${server.api(tenantName)}/shells`)).status).toBe(200);
    await expect.poll(() => page.getByText('Showcase mode is on.').count()).toBe(1);
    // A shell, written without a token (showcase), for the deletion's count below.
    const created = await fetch(`${server.api(tenantName)}/shells`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(sampleShell(`urn:console:${tenantName}:shell`)) });
    expect(created.status).toBe(201);

    // A conflicting edit: someone else changes the friendly name after the page loaded it; the page's save is refused.
    await page.getByLabel('Friendly name').fill('Mine');
    const theirs = await graphql(server, token, `mutation($o: ID!, $t: ID!) { updateTenant(organizationId: $o, tenantId: $t, input: { friendlyName: "Theirs" }) { etag } }`, { o: organization.id, t: stored.id });
    expect(theirs.body.errors).toBeUndefined();
    await page.getByRole('button', { name: 'Save settings' }).click();
    const conflict = page.locator('.conflict');
    await expect.poll(() => conflict.count()).toBe(1);
    expect(await conflict.textContent()).toContain('Changed by someone else');
    expect(await conflict.locator('tbody tr').allTextContents()).toEqual(['Friendly nameLine 7 (assembly)TheirsMine']);
    expect((await tenantByName(token, tenantName)).body.data.tenant.friendlyName).toBe('Theirs');
    await checkScreen(page, 'tenant-conflict');
    await conflict.getByRole('button', { name: 'Reload the current version' }).click();
    await expect.poll(() => page.getByLabel('Friendly name').inputValue()).toBe('Theirs');
    expect(await page.locator('.conflict').count()).toBe(0);

    // A push target: a URL the server refuses shows its message; an unreachable one is registered, with its state.
    const pushUrl = page.getByLabel('Server URL');
    await pushUrl.fill('ftp://example.com/');
    await page.getByRole('button', { name: 'Register push target' }).click();
    await expect.poll(() => page.getByRole('alert').allTextContents()).toContain("'url' must be an http or https URL.");
    await page.getByLabel('Name', { exact: true }).fill('Nowhere');
    await pushUrl.fill('http://127.0.0.1:9/');
    await page.getByRole('button', { name: 'Register push target' }).click();
    const targets = page.getByRole('region', { name: 'Push targets and the state of their pushes' });
    await expect.poll(async () => ((await targets.count()) ? targets.textContent() : '')).toContain('http://127.0.0.1:9');
    const targetRow = await targets.locator('tbody tr').first().locator('td').allTextContents();
    expect(targetRow.slice(0, 6)).toEqual(['Nowherehttp://127.0.0.1:9', 'AASX File Server, AASX', 'No push yet', '—', '—', '0 shells']);
    const pushTargets = await graphql(server, token, `query($t: String!) { pushTargets(tenant: $t) { result { name url backlog } } }`, { t: tenantName });
    expect(pushTargets.body.data.pushTargets.result).toEqual([{ name: 'Nowhere', url: 'http://127.0.0.1:9', backlog: 0 }]);

    // A registry instance.
    await page.getByLabel('Instance name').fill('plant-registry');
    await page.getByLabel('Kind').selectOption('aas-registry');
    await page.getByRole('button', { name: 'Create instance' }).click();
    const instances = page.getByRole('region', { name: 'Registry instances of the tenant' });
    await expect.poll(async () => ((await instances.count()) ? instances.textContent() : '')).toContain('plant-registry');
    expect(await instances.textContent()).toContain(`${server.url}/tenants/${tenantName}/plant-registry/api/v3.0`);
    const registered = await graphql(server, token, `query($o: ID!, $t: ID!) { registryInstances(organizationId: $o, tenantId: $t) { result { name kind } } }`, { o: organization.id, t: stored.id });
    expect(registered.body.data.registryInstances.result).toEqual([{ name: 'plant-registry', kind: 'aas-registry' }]);

    // Deleting it: the dialog says what is lost and wants the name typed.
    await page.getByRole('button', { name: 'Delete tenant…' }).click();
    const dialog = page.getByRole('dialog', { name: `Delete tenant ${tenantName}?` });
    await expect.poll(() => dialog.locator('ul.losses').count()).toBe(1);
    const lost = await dialog.locator('ul.losses li').allTextContents();
    expect(lost).toContain('Shells: 1');
    expect(lost).toContain('Submodels: 0');
    expect(lost).toContain('Registry instances (with their descriptors and asset links): 1');
    expect(lost).toContain('Push targets: 1');
    const confirm = dialog.getByRole('button', { name: 'Delete tenant for good' });
    expect(await confirm.isDisabled()).toBe(true);
    await dialog.getByLabel(`Type ${tenantName} to confirm`).fill(`${tenantName}-not`);
    expect(await confirm.isDisabled()).toBe(true);
    await checkScreen(page, 'tenant-delete-dialog');
    await dialog.getByLabel(`Type ${tenantName} to confirm`).fill(tenantName);
    expect(await confirm.isDisabled()).toBe(false);
    await confirm.click();
    await waitForHeading(page, 'Tenants of Tenant works');
    await expect.poll(() => page.getByText('No tenant yet').count()).toBe(1);
    expect((await fetch(`${server.api(tenantName)}/shells`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(404);
    expect((await tenantByName(token, tenantName)).body.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
    expect(await server.dataSource.manager.countBy(TenantEntity, { id: stored.id })).toBe(0);
    expect(problems).toEqual([]);
    await context.close();
  });

  it('shows a reader the tenants and their settings without any write action', async () => {
    const { owner, organization } = await newOrganization(server, 'Readers here');
    const tenantName = unique('read');
    const tenant = await owner.call('POST', `/organizations/${organization.id}/tenants`, { name: tenantName, friendlyName: 'Read me', tag: 'ro' });
    expect(tenant.status).toBe(201);
    const reader = await newUser(server, { displayName: 'Only Reading' });
    const readerClient = managementClient(server, await reader.token());
    const invitation = await owner.call('POST', `/organizations/${organization.id}/users/invite`, { accountId: reader.id });
    expect((await readerClient.call('POST', `/invitations/${invitation.body.id}/accept`)).status).toBe(200);
    expect((await owner.call('POST', `/organizations/${organization.id}/role-assignments`, { role: 'reader', principalType: 'user', principalId: reader.id })).status).toBe(201);

    const { context, page, problems } = await openConsole(browser, server.url);
    await signInThroughUi(page, server.url, reader);
    await goTo(page, server.url, `/org/${organization.id}/tenants`, 'Tenants of Readers here');
    await expect.poll(() => page.getByRole('region', { name: 'Tenants of the organization' }).textContent()).toContain('Read me');
    expect(await buttonCount(page, 'Create tenant')).toBe(0);
    expect(await page.getByRole('textbox').count()).toBe(0);
    await checkScreen(page, 'tenants-list-reader');

    await page.getByRole('link', { name: tenantName }).click();
    await waitForHeading(page, `Tenant ${tenantName}`);
    await expect.poll(() => page.locator('dl.facts').nth(1).textContent()).toContain('Read me');
    expect(await page.getByRole('textbox').count()).toBe(0);
    expect(await page.getByRole('checkbox').count()).toBe(0);
    for (const action of ['Save settings', 'Create instance', 'Register push target', /^Delete/]) expect(await buttonCount(page, action), String(action)).toBe(0);
    await checkScreen(page, 'tenant-settings-reader');
    expect(problems).toEqual([]);
    await context.close();
  });
});
