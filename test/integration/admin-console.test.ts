import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { TestServer, startTestServer } from '../support/server';

/**
 * The admin console's files as the server serves them (the app itself is tested in a browser, in
 * test/e2e/admin-console/): one page for every path below /admin, its configuration, the bundle, and a policy that
 * lets the page load its own scripts and talk to the identity service only.
 */
let server: TestServer;
beforeAll(async () => {
  server = await startTestServer(inject('databaseUrl'));
});
afterAll(() => server?.close());

describe('admin console', () => {
  it('answers its page at /admin and at every path below it, with its own scripts and no inline script or style', async () => {
    for (const path of ['/admin', '/admin/', '/admin/callback', '/admin/org/1/tenants/t/shells/abc']) {
      const res = await fetch(`${server.url}${path}`);
      expect(res.status, path).toBe(200);
      expect(res.headers.get('content-type'), path).toMatch(/^text\/html/);
      const csp = res.headers.get('content-security-policy')!;
      expect(csp, path).toContain("script-src 'self'");
      expect(csp, path).toContain("style-src 'self'");
      expect(csp, path).toContain(`connect-src 'self' ${server.url}`);
      const html = await res.text();
      expect(html).toContain('<script src="/admin/config.js"></script>');
      expect(html).toContain('<script src="/admin/assets/admin.js"></script>');
      expect(html).not.toMatch(/<script>|style="/);
    }
  });

  it('tells the page where to sign in: the identity service, the public client admin and its redirect URI', async () => {
    const res = await fetch(`${server.url}/admin/config.js`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/javascript/);
    const text = await res.text();
    const config = JSON.parse(text.replace(/^window\.ADMIN_CONFIG = /, '').replace(/;\s*$/, ''));
    expect(config).toMatchObject({
      base: '',
      login: { issuer: `${server.url}/oidc`, clientId: 'admin', redirectUri: `${server.url}/admin/callback` },
    });
    expect(Array.isArray(config.providers)).toBe(true);
  });

  it('serves the bundle (React and the app, from npm packages, no CDN) and its styles; other asset names are 404', async () => {
    const js = await fetch(`${server.url}/admin/assets/admin.js`);
    expect(js.status).toBe(200);
    expect(js.headers.get('content-type')).toMatch(/^text\/javascript/);
    const code = await js.text();
    expect(code.length).toBeGreaterThan(50_000);
    expect(code).not.toMatch(/https?:\/\/(unpkg|cdn|fonts\.googleapis)/);
    const css = await fetch(`${server.url}/admin/assets/admin.css`);
    expect(css.status).toBe(200);
    expect(css.headers.get('content-type')).toMatch(/^text\/css/);
    for (const name of ['nothing.js', '..%2Fpackage.json', 'admin.js.map']) {
      expect((await fetch(`${server.url}/admin/assets/${name}`)).status, name).toBe(404);
    }
  });

  it('the identity service knows the console as a public client: an authorization request with its redirect URI is taken', async () => {
    const url = new URL(`${server.url}/oidc/auth`);
    url.search = new URLSearchParams({
      client_id: 'admin',
      response_type: 'code',
      redirect_uri: `${server.url}/admin/callback`,
      scope: 'openid api_access',
      code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
      code_challenge_method: 'S256',
      prompt: 'login',
    }).toString();
    const res = await fetch(url, { redirect: 'manual' });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toMatch(/\/oidc\/interaction\//);
    // Another redirect URI is not the console's: refused.
    url.searchParams.set('redirect_uri', 'https://evil.example/admin/callback');
    expect((await fetch(url, { redirect: 'manual' })).status).toBe(400);
  });
});
