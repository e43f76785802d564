import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { AccountEntity } from '../../../src/management/accounts/account.entity';
import { checkScreen, launchBrowser, openConsole, signInThroughUi, waitForHeading } from '../../support/admin-browser';
import { newUser, userToken } from '../../support/identity';
import { newOrganization } from '../../support/management';
import { TestServer, startTestServer } from '../../support/server';
import { hasTools } from '../../support/system-tools';

let server: TestServer;
let browser: Browser;

describe.skipIf(!hasTools('chromium'))('admin console: sign-in, who am I, sign-out', () => {
  beforeAll(async () => {
    server = await startTestServer(inject('databaseUrl'));
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it('signs in with the built-in login (code + PKCE), shows the organizations and roles with their source, and signs out', async () => {
    const { user, organization } = await newOrganization(server, 'Sign-in works');
    const { context, page, problems } = await openConsole(browser, server.url);
    await page.goto(`${server.url}/admin`);
    await waitForHeading(page, 'Admin console');
    await checkScreen(page, 'sign-in');

    await signInThroughUi(page, server.url, user);
    const organizations = page.getByRole('region', { name: 'Organizations and your roles there' });
    await expect.poll(() => organizations.textContent()).toContain('Sign-in works');
    expect(await organizations.textContent()).toContain('organization-owner: assigned directly');
    expect(await organizations.getByRole('link', { name: 'Sign-in works' }).getAttribute('href')).toBe(`/admin/org/${organization.id}/tenants`);
    await checkScreen(page, 'who-am-i');

    // A reload keeps the session (this tab's sessionStorage); signing out ends it.
    await page.reload();
    await waitForHeading(page, 'Who am I');
    await page.getByRole('button', { name: 'Sign out' }).click();
    await waitForHeading(page, 'Admin console');
    expect(await page.getByRole('button', { name: 'Sign in', exact: true }).count()).toBe(1);
    // The next sign-in asks for credentials again: another user can sign in at this browser.
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await expect.poll(() => page.locator('#email').count(), { timeout: 20_000 }).toBe(1);
    expect(problems).toEqual([]);
    await context.close();
  });

  it("leads an account with a one-time password through the first login's password change", async () => {
    const user = await newUser(server, { displayName: 'First Login' });
    await server.dataSource.manager.update(AccountEntity, { id: user.id }, { mustChangePassword: true });
    const { context, page, problems } = await openConsole(browser, server.url);
    const newPassword = 'a-new-password-of-mine';
    await signInThroughUi(page, server.url, user, newPassword);
    expect(await page.locator('dl.facts').textContent()).toContain('First Login');
    // The new password is the one that counts now.
    await expect(userToken(server, user.email, newPassword)).resolves.toBeTruthy();
    expect((await server.dataSource.manager.findOneByOrFail(AccountEntity, { id: user.id })).mustChangePassword).toBe(false);
    expect(problems).toEqual([]);
    await context.close();
  });

  it('is usable with the keyboard alone: a skip link first, then the navigation, each page announcing its heading', async () => {
    const { user } = await newOrganization(server, 'Keyboard works');
    const { context, page, problems } = await openConsole(browser, server.url);
    await signInThroughUi(page, server.url, user);
    const focused = () => page.evaluate(() => (globalThis as unknown as { document: { activeElement: { textContent: string } | null } }).document.activeElement?.textContent ?? '');
    await page.keyboard.press('Tab');
    expect(await focused()).toBe('Skip to content');
    let steps = 0;
    // The navigation names the user's organizations; the organization's link opens its tenants.
    while ((await focused()) !== 'Keyboard works' && steps++ < 30) await page.keyboard.press('Tab');
    expect(await focused()).toBe('Keyboard works');
    await page.keyboard.press('Enter');
    await waitForHeading(page, 'Tenants of Keyboard works');
    // The new page's heading has the focus: a screen reader announces where the user is.
    expect(await page.evaluate(() => (globalThis as unknown as { document: { activeElement: { tagName: string } | null } }).document.activeElement?.tagName)).toBe('H1');
    expect(problems).toEqual([]);
    await context.close();
  });

  it('shows why when the sign-in answer is not its own, and offers to sign in again', async () => {
    const { context, page } = await openConsole(browser, server.url);
    await page.goto(`${server.url}/admin/callback?code=forged&state=forged`);
    await waitForHeading(page, 'Admin console');
    expect(await page.getByRole('alert').textContent()).toContain('does not belong to this page');
    expect(new URL(page.url()).pathname).toBe('/admin');
    await context.close();
  });
});
