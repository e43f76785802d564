import { createHash, randomBytes } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { IdentityTrustEntity } from '../../../src/management/federation/identity-trust.entity';
import { ConsolePage, checkScreen, launchBrowser, openConsole, signInThroughUi, goTo, waitForHeading } from '../../support/admin-browser';
import { newOrganization } from '../../support/management';
import { OidcProviderStub, startOidcProviderStub } from '../../support/oidc-provider-stub';
import { TestServer, startTestServer } from '../../support/server';
import { hasTools } from '../../support/system-tools';
import { TestIssuer, startTestIssuer } from '../../support/tokens';

let server: TestServer;
let browser: Browser;
let issuer: TestIssuer;

const hex = () => randomBytes(4).toString('hex');

/** The console's page, allowed to reach the identity provider's origin too (its sign-in page, discovery, token endpoint). */
async function openWithProvider(origin: string): Promise<ConsolePage> {
  const opened = await openConsole(browser, server.url);
  await opened.context.unroute('**/*');
  await opened.context.route('**/*', (route) => {
    const url = new URL(route.request().url());
    if (url.origin !== server.url && url.origin !== origin) {
      opened.problems.push(`offsite: ${url.href}`);
      return route.abort();
    }
    return route.continue();
  });
  return opened;
}

/** Fills the open add/edit dialog's fields by their labels; answers the dialog. */
async function fill(page: Page, values: Partial<Record<'Issuer' | 'JWKS URI' | 'Audience' | 'Roles claim' | 'Console sign-in client id' | 'Sign-in button name', string>>) {
  const dialog = page.getByRole('dialog');
  for (const [label, value] of Object.entries(values)) await dialog.getByLabel(label, { exact: true }).fill(value);
  return dialog;
}

const storedOf = (organizationId: string) => server.dataSource.manager.find(IdentityTrustEntity, { where: { organizationId }, order: { seq: 'ASC' } });

describe.skipIf(!hasTools('chromium'))('admin console: identity providers', () => {
  beforeAll(async () => {
    server = await startTestServer(inject('databaseUrl'));
    browser = await launchBrowser();
    issuer = await startTestIssuer();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await issuer?.close();
  });

  it('an owner adds, edits (a conflict shows what changed) and deletes an identity provider; bad input shows why', async () => {
    const { user, owner, organization } = await newOrganization(server, 'Federating org');
    const tenant = await server.services.tenants.create({ organizationId: organization.id, name: `idp-${hex()}`, showcase: false });
    const { context, page, problems } = await openConsole(browser, server.url);
    await signInThroughUi(page, server.url, user);
    await goTo(page, server.url, `/org/${organization.id}/identity-providers`, 'Identity providers');
    expect(await page.locator('main').textContent()).toContain('trusts no identity provider yet');
    expect(await page.locator('main').textContent()).toContain(`${server.url}/admin/callback`);
    await checkScreen(page, 'identity-providers-empty');

    await page.getByRole('button', { name: 'Add identity provider' }).click();
    let dialog = page.getByRole('dialog', { name: 'Add identity provider' });
    await expect.poll(() => dialog.isVisible()).toBe(true);
    expect(await dialog.textContent()).toContain('realm_access.roles');
    await checkScreen(page, 'identity-provider-add');

    // Bad input: the server's own message, nothing stored.
    await fill(page, { Issuer: 'not a url', 'JWKS URI': issuer.jwksUri, Audience: 'api://plant' });
    await dialog.getByRole('button', { name: 'Add', exact: true }).click();
    await expect.poll(() => dialog.getByRole('alert').textContent()).toContain('issuer must be an absolute http(s) URL.');
    await checkScreen(page, 'identity-provider-add-error');
    await fill(page, { 'Console sign-in client id': ' ', 'Sign-in button name': 'x'.repeat(101), Issuer: issuer.issuer });
    await dialog.getByRole('button', { name: 'Add', exact: true }).click();
    await expect.poll(() => dialog.getByRole('alert').textContent()).toContain('signInName is longer than 100 characters.');
    expect(await storedOf(organization.id)).toEqual([]);

    const issuerUrl = `${issuer.issuer}/${hex()}`;
    await fill(page, { Issuer: issuerUrl, 'Roles claim': 'realm_access.roles', 'Console sign-in client id': 'plant-console', 'Sign-in button name': 'Plant SSO' });
    await dialog.getByLabel('Grants roles on').selectOption({ label: `Tenant ${tenant.name}` });
    await dialog.getByRole('button', { name: 'Add', exact: true }).click();
    await expect.poll(() => page.getByRole('dialog').count()).toBe(0);
    const table = page.getByRole('region', { name: 'Trusted identity providers' });
    await expect.poll(() => table.textContent()).toContain(issuerUrl);
    expect(await table.textContent()).toContain(`tenant ${tenant.name}`);
    expect(await table.textContent()).toContain('Sign in with Plant SSO');
    expect(await storedOf(organization.id)).toMatchObject([
      { issuer: issuerUrl, jwksUri: issuer.jwksUri, audience: 'api://plant', rolesClaim: 'realm_access.roles', tenantId: tenant.id, signInClientId: 'plant-console', signInName: 'Plant SSO' },
    ]);
    await checkScreen(page, 'identity-providers-list');

    // The organization's sign-in page, as the screen gives it (another browser, not signed in), offers it now, with the
    // issuer's host; the console's plain sign-in page does not.
    const signInPage = await page.getByRole('region', { name: 'Signing in to this console with an identity provider' }).locator('code').nth(1).textContent();
    expect(signInPage).toBe(`${server.url}/admin?organization=${organization.id}`);
    const visitor = await openConsole(browser, server.url);
    await visitor.page.goto(`${server.url}/admin`);
    await waitForHeading(visitor.page, 'Admin console');
    expect(await visitor.page.getByRole('button', { name: /Plant SSO/ }).count()).toBe(0);
    await visitor.page.goto(signInPage!);
    await waitForHeading(visitor.page, 'Admin console');
    expect(await visitor.page.getByRole('button', { name: `Sign in with Plant SSO (${new URL(issuerUrl).host})` }).count()).toBe(1);
    // A long name of one word wraps on a phone rather than widening the page.
    const long = await owner.call('POST', `/organizations/${organization.id}/identity-providers`, {
      issuer: `${issuer.issuer}/${hex()}`,
      audience: 'api://long',
      jwksUri: issuer.jwksUri,
      signInClientId: 'long',
      signInName: 'L'.repeat(100),
    });
    await visitor.page.setViewportSize({ width: 390, height: 844 });
    await visitor.page.reload();
    await waitForHeading(visitor.page, 'Admin console');
    expect(await visitor.page.getByRole('button', { name: `Sign in with ${'L'.repeat(100)}` }).count()).toBe(1);
    expect(Number(await visitor.page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth'))).toBeLessThanOrEqual(0);
    expect((await owner.call('DELETE', `/organizations/${organization.id}/identity-providers/${long.body.id}`)).status).toBe(204);

    // An edit while someone else changed it: nothing is overwritten, the panel shows what changed.
    const [stored] = await storedOf(organization.id);
    await page.getByRole('button', { name: `Edit ${issuerUrl}` }).click();
    dialog = page.getByRole('dialog', { name: 'Edit identity provider' });
    await expect.poll(() => dialog.getByLabel('Audience', { exact: true }).inputValue()).toBe('api://plant');
    await fill(page, { Audience: 'api://mine' });
    expect((await owner.call('PATCH', `/organizations/${organization.id}/identity-providers/${stored.id}`, { audience: 'api://theirs' })).status).toBe(200);
    await dialog.getByRole('button', { name: 'Save' }).click();
    const conflict = dialog.locator('.conflict');
    await expect.poll(() => conflict.count()).toBe(1);
    expect(await conflict.textContent()).toContain('Changed by someone else');
    expect(await conflict.getByRole('row', { name: /Audience/ }).textContent()).toMatch(/api:\/\/plant.*api:\/\/theirs.*api:\/\/mine/);
    expect((await storedOf(organization.id))[0].audience).toBe('api://theirs');
    await checkScreen(page, 'identity-provider-conflict');
    await conflict.getByRole('button', { name: 'Reload the current version' }).click();
    expect(await dialog.getByLabel('Audience', { exact: true }).inputValue()).toBe('api://theirs');
    await fill(page, { Audience: 'api://mine', 'Sign-in button name': '' });
    await dialog.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => page.getByRole('dialog').count()).toBe(0);
    // Saved on the current version; a blank name is none (the button shows the issuer's host).
    expect((await storedOf(organization.id))[0]).toMatchObject({ audience: 'api://mine', signInClientId: 'plant-console', signInName: null, tenantId: tenant.id });
    await expect.poll(() => table.textContent()).toContain(`Sign in with ${new URL(issuerUrl).host}`);

    // Deleting asks first; then the trust is gone, and so is its sign-in button.
    await page.getByRole('button', { name: `Delete ${issuerUrl}` }).click();
    dialog = page.getByRole('dialog', { name: 'Delete identity provider' });
    await expect.poll(() => dialog.isVisible()).toBe(true);
    expect(await dialog.textContent()).toContain('no longer offers to sign in with it');
    await checkScreen(page, 'identity-provider-delete');
    await dialog.getByRole('button', { name: 'Delete', exact: true }).click();
    await expect.poll(() => page.getByRole('dialog').count()).toBe(0);
    await expect.poll(() => page.locator('main').textContent()).toContain('trusts no identity provider yet');
    expect(await storedOf(organization.id)).toEqual([]);
    await visitor.page.reload();
    await waitForHeading(visitor.page, 'Admin console');
    expect(await visitor.page.getByRole('button', { name: /^Sign in with / }).allTextContents()).not.toContain(`Sign in with ${new URL(issuerUrl).host}`);

    expect(problems).toEqual([]);
    expect(visitor.problems).toEqual([]);
    await visitor.context.close();
    await context.close();
  });

  it('signs in to the console through an identity provider added in the console: a federated identity with roles from federation', async () => {
    const { user, organization } = await newOrganization(server, 'Federated sign-in org');
    const name = `Stub IdP ${hex()}`;
    const stub: OidcProviderStub = await startOidcProviderStub({
      clientId: 'asset-platform-console',
      redirectUri: `${server.url}/admin/callback`,
      audience: `api://asset-platform-${hex()}`,
      claims: { roles: ['reader'] },
      userName: 'Fed Erated',
    });
    try {
      const { context, page, problems } = await openWithProvider(new URL(stub.issuer).origin);
      await signInThroughUi(page, server.url, user);
      await goTo(page, server.url, `/org/${organization.id}/identity-providers`, 'Identity providers');
      await page.getByRole('button', { name: 'Add identity provider' }).click();
      const dialog = await fill(page, {
        Issuer: stub.issuer,
        'JWKS URI': stub.jwksUri,
        Audience: stub.audience,
        'Console sign-in client id': stub.clientId,
        'Sign-in button name': name,
      });
      await dialog.getByRole('button', { name: 'Add', exact: true }).click();
      await expect.poll(() => page.getByRole('region', { name: 'Trusted identity providers' }).textContent()).toContain(`Sign in with ${name}`);

      await page.getByRole('button', { name: 'Sign out' }).click();
      await waitForHeading(page, 'Admin console');
      // The organization's sign-in page offers its providers.
      await page.goto(`${server.url}/admin?organization=${organization.id}`);
      await waitForHeading(page, 'Admin console');
      const button = page.getByRole('button', { name: `Sign in with ${name}` });
      expect(await button.count()).toBe(1);
      await checkScreen(page, 'sign-in-with-identity-provider');

      // At the provider: its own page; continuing comes back to the console with a code, exchanged with PKCE.
      await button.click();
      await expect.poll(() => page.getByRole('button', { name: 'Continue as Fed Erated' }).count(), { timeout: 20_000 }).toBe(1);
      expect(page.url().startsWith(`${stub.issuer}/authorize?`)).toBe(true);
      await page.getByRole('button', { name: 'Continue as Fed Erated' }).click();
      await waitForHeading(page, 'Who am I');
      expect(stub.issued()).toBe(1);
      const facts = await page.locator('dl.facts').textContent();
      expect(facts).toContain('Federated identity');
      expect(facts).toContain(stub.subject);
      expect(facts).toContain(stub.issuer);
      expect(await page.locator('header.top').textContent()).toContain('(identity provider)');
      const organizations = page.getByRole('region', { name: 'Organizations and your roles there' });
      expect(await organizations.textContent()).toContain('Federated sign-in org');
      expect(await organizations.textContent()).toContain('reader: granted by an identity provider');
      await checkScreen(page, 'who-am-i-federated');

      // A reader through federation sees the identity providers, and no write action.
      await goTo(page, server.url, `/org/${organization.id}/identity-providers`, 'Identity providers');
      expect(await page.getByRole('region', { name: 'Trusted identity providers' }).textContent()).toContain(stub.issuer);
      expect(await page.getByRole('button', { name: /Add identity provider|^Edit |^Delete / }).count()).toBe(0);
      await checkScreen(page, 'identity-providers-reader');
      // Signing out goes back to the organization's sign-in page, where this session began.
      await page.getByRole('button', { name: 'Sign out' }).click();
      await waitForHeading(page, 'Admin console');
      expect(new URL(page.url()).search).toBe(`?organization=${organization.id}`);
      expect(await page.getByRole('button', { name: `Sign in with ${name}` }).count()).toBe(1);
      expect(problems).toEqual([]);
      await context.close();
    } finally {
      // Test servers share a database: the sign-in page of other tests is not to list this provider.
      await server.services.identityProviders.delete(organization.id, (await storedOf(organization.id))[0]?.id ?? 'none', null).catch(() => undefined);
      await stub.close();
    }
  });
});

describe('the OIDC provider stub', () => {
  it('issues a token for the code only with the right PKCE verifier, client and redirect URI, once', async () => {
    const redirectUri = 'http://127.0.0.1:9/admin/callback';
    const stub = await startOidcProviderStub({ clientId: 'console', redirectUri, audience: 'api://x', claims: { roles: ['reader'] } });
    try {
      const discovery = (await (await fetch(`${stub.issuer}/.well-known/openid-configuration`)).json()) as { authorization_endpoint: string; token_endpoint: string };
      expect(discovery).toMatchObject({ issuer: stub.issuer, jwks_uri: stub.jwksUri, code_challenge_methods_supported: ['S256'] });
      const verifier = randomBytes(32).toString('base64url');
      const authorize = async (params: Record<string, string> = {}) => {
        const url = new URL(discovery.authorization_endpoint);
        url.search = new URLSearchParams({
          client_id: 'console',
          redirect_uri: redirectUri,
          response_type: 'code',
          state: 's1',
          code_challenge: createHash('sha256').update(verifier).digest('base64url'),
          code_challenge_method: 'S256',
          ...params,
        }).toString();
        const res = await fetch(url);
        return { status: res.status, code: /name="code" value="([^"]+)"/.exec(await res.text())?.[1] };
      };
      const token = (form: Record<string, string>) =>
        fetch(discovery.token_endpoint, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(form).toString() });
      const exchange = (code: string, extra: Record<string, string> = {}) =>
        token({ grant_type: 'authorization_code', code, client_id: 'console', redirect_uri: redirectUri, code_verifier: verifier, ...extra });

      // The authorize endpoint refuses other clients, redirect URIs and plain PKCE.
      expect((await authorize({ client_id: 'other' })).status).toBe(400);
      expect((await authorize({ redirect_uri: 'https://evil.example/cb' })).status).toBe(400);
      expect((await authorize({ code_challenge_method: 'plain', code_challenge: verifier })).status).toBe(400);

      // A forged verifier: refused, and the code is spent.
      const first = (await authorize()).code!;
      const forged = await exchange(first, { code_verifier: randomBytes(32).toString('base64url') });
      expect(forged.status).toBe(400);
      expect(await forged.json()).toMatchObject({ error: 'invalid_grant' });
      expect((await exchange(first)).status).toBe(400);
      // Another client or redirect URI: refused.
      expect((await exchange((await authorize()).code!, { client_id: 'other' })).status).toBe(400);
      expect((await exchange((await authorize()).code!, { redirect_uri: 'http://127.0.0.1:9/elsewhere' })).status).toBe(400);
      expect((await exchange((await authorize()).code!, { code_verifier: '' })).status).toBe(400);
      expect(stub.issued()).toBe(0);

      // The right verifier: a token of the issuer, for the audience, with the roles; once.
      const code = (await authorize()).code!;
      const ok = await exchange(code);
      expect(ok.status).toBe(200);
      const body = (await ok.json()) as { access_token: string };
      const claims = JSON.parse(Buffer.from(body.access_token.split('.')[1], 'base64url').toString());
      expect(claims).toMatchObject({ iss: stub.issuer, aud: 'api://x', sub: stub.subject, roles: ['reader'] });
      expect((await exchange(code)).status).toBe(400);
      expect(stub.issued()).toBe(1);
    } finally {
      await stub.close();
    }
  });
});
