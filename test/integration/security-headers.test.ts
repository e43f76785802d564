import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { TenantEntity } from '../../src/management/tenants/tenant.entity';
import { TestServer, b64, json, sampleShell, startTestServer } from '../support/server';
import { consoleAuthorizationUrl } from '../support/identity';

/**
 * Headers that keep browsers safe: no answer is sniffed into another type, no page is framed (clickjacking), and
 * every download of content a user uploaded (an HTML file, say) stays inert on this origin.
 */

let server: TestServer;
let tenant: TenantEntity;
const api = () => server.api(tenant.name);
const filesApi = () => `${server.url}/tenants/${tenant.name}/sphere/api/v1.0/files`;

const SHELL = 'urn:headers:shell';
const SM = 'urn:headers:sm';
const HTML = '<!DOCTYPE html><html><body><script>alert(document.cookie)</script></body></html>';
const thumbnail = `/shells/${b64(SHELL)}/asset-information/thumbnail`;
const attachment = `/submodels/${b64(SM)}/submodel-elements/Manual/attachment`;

function htmlForm(name: string): FormData {
  const data = new FormData();
  data.append('file', new Blob([HTML], { type: 'text/html' }), name);
  return data;
}

const created = async (res: Promise<Response>) => {
  const answer = await res;
  expect(answer.status, await answer.clone().text()).toBeLessThan(300);
  return answer;
};

beforeAll(async () => {
  server = await startTestServer(inject('databaseUrl'));
  tenant = await server.createTenant({ showcase: true });
  const post = (path: string, body: unknown) => created(fetch(`${api()}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }));
  await post('/shells', sampleShell(SHELL, { submodels: [{ type: 'ModelReference', keys: [{ type: 'Submodel', value: SM }] }] }));
  await post('/submodels', { modelType: 'Submodel', id: SM, submodelElements: [{ modelType: 'File', idShort: 'Manual', contentType: 'application/pdf' }] });
});
afterAll(() => server?.close());

function expectNoFraming(res: Response, what: string): void {
  expect(res.headers.get('x-frame-options'), what).toBe('DENY');
  expect(res.headers.get('content-security-policy'), what).toMatch(/(^|;\s*)frame-ancestors 'none'(;|$)/);
}

/** What every download carries: nosniff and the sandbox policy, so an uploaded page runs nowhere. */
function expectDownload(res: Response, what: string): void {
  expect(res.status, what).toBe(200);
  expect(res.headers.get('x-content-type-options'), what).toBe('nosniff');
  expect(res.headers.get('content-security-policy'), what).toBe("default-src 'none'; sandbox; frame-ancestors 'none'");
  expect(res.headers.get('x-frame-options'), what).toBe('DENY');
}

describe('HTML pages', () => {
  it('the GraphQL console, the REST API console and the admin console may not be framed, and keep their own policy', async () => {
    for (const path of ['/graphiql', '/graphiql/callback', '/console', '/console/oauth2-redirect.html', '/admin', '/admin/callback', '/admin/org/x/users']) {
      const res = await fetch(`${server.url}${path}`);
      expect(res.status, path).toBe(200);
      expect(res.headers.get('content-type'), path).toMatch(/^text\/html/);
      expectNoFraming(res, path);
      expect(res.headers.get('content-security-policy'), path).toMatch(/^default-src 'self'/);
      expect(res.headers.get('x-content-type-options'), path).toBe('nosniff');
    }
  });

  it('the identity service\'s pages may not be framed either: its login page and its error page', async () => {
    const auth = consoleAuthorizationUrl(server);
    const started = await fetch(auth, { redirect: 'manual' });
    const cookies = started.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ');
    const login = await fetch(new URL(started.headers.get('location')!, auth), { headers: { cookie: cookies } });
    expect(login.status).toBe(200);
    expect(await login.text()).toContain('password');
    expectNoFraming(login, 'login page');
    expect(login.headers.get('x-content-type-options')).toBe('nosniff');

    // No such client: oidc-provider renders its error page (no redirect to an unknown client).
    const error = await fetch(`${server.url}/oidc/auth?client_id=nobody&response_type=code&scope=openid`, { redirect: 'manual' });
    expect(error.status).toBe(400);
    expect(error.headers.get('content-type')).toMatch(/^text\/html/);
    expectNoFraming(error, 'error page');
    expect(error.headers.get('content-security-policy')).toMatch(/^default-src 'none'/);
    expect(error.headers.get('x-content-type-options')).toBe('nosniff');
  });
});

describe('every answer', () => {
  it('carries nosniff and refuses framing: JSON answers, Results of refusals, the identity service\'s JSON', async () => {
    for (const [path, status] of [
      ['/health/live', 200],
      ['/tenants/no-such-tenant/api/v3.0/shells', 401],
      ['/no-such-route', 404],
      ['/oidc/jwks', 200],
      ['/oidc/.well-known/openid-configuration', 200],
    ] as const) {
      const res = await fetch(`${server.url}${path}`);
      expect(res.status, path).toBe(status);
      expect(res.headers.get('x-content-type-options'), path).toBe('nosniff');
      expectNoFraming(res, path);
    }
    const shells = await fetch(`${api()}/shells`);
    expect(shells.status).toBe(200);
    expect(shells.headers.get('x-content-type-options')).toBe('nosniff');
    // A cached GET by id is answered before routing: the same headers.
    for (let i = 0; i < 2; i++) {
      const shell = await fetch(`${api()}/shells/${b64(SHELL)}`);
      expect(shell.status).toBe(200);
      expect(shell.headers.get('x-content-type-options')).toBe('nosniff');
    }
  });
});

describe('downloads', () => {
  it('an uploaded text/html file, attachment and thumbnail are served as attachments, inert: nosniff and the sandbox policy', async () => {
    const upload = await created(fetch(filesApi(), { method: 'POST', body: htmlForm('page.html') }));
    const file = await json(upload);
    const download = await fetch(`${filesApi()}/${encodeURIComponent(file.tfp)}`);
    expectDownload(download, 'file');
    expect(download.headers.get('content-type')).toMatch(/^text\/html/);
    expect(download.headers.get('content-disposition')).toMatch(/^attachment; filename="page.html"/);
    expect(await download.text()).toBe(HTML);
    const head = await fetch(`${filesApi()}/${encodeURIComponent(file.tfp)}`, { method: 'HEAD' });
    expectDownload(head, 'file HEAD');

    await created(fetch(`${api()}${attachment}`, { method: 'PUT', body: htmlForm('manual.html') }));
    const att = await fetch(`${api()}${attachment}`);
    expectDownload(att, 'attachment');
    expect(att.headers.get('content-type')).toMatch(/^text\/html/);
    expect(att.headers.get('content-disposition')).toMatch(/^attachment; filename=/);
    expect(await att.text()).toBe(HTML);
    // The same attachment through the shell's path.
    expectDownload(await fetch(`${api()}/shells/${b64(SHELL)}/submodels/${b64(SM)}/submodel-elements/Manual/attachment`), 'attachment via shell');

    await created(fetch(`${api()}${thumbnail}`, { method: 'PUT', body: htmlForm('thumb.html') }));
    const thumb = await fetch(`${api()}${thumbnail}`);
    expectDownload(thumb, 'thumbnail');
    expect(thumb.headers.get('content-type')).toMatch(/^text\/html/);
    expect(thumb.headers.get('content-disposition')).toMatch(/^attachment; filename=/);
    expect(await thumb.text()).toBe(HTML);
  });

  it('serializations and AASX packages are downloads too', async () => {
    const serialization = `${api()}/serialization?aasIds=${b64(SHELL)}&submodelIds=${b64(SM)}`;
    for (const type of ['application/json', 'application/xml']) {
      const res = await fetch(serialization, { headers: { accept: type } });
      expectDownload(res, type);
      expect(res.headers.get('content-type')).toMatch(new RegExp(`^${type}`));
    }
    const aasx = await fetch(serialization, { headers: { accept: 'application/asset-administration-shell-package+xml' } });
    expectDownload(aasx, 'aasx');
    expect(aasx.headers.get('content-disposition')).toMatch(/^attachment; filename="urn_headers_shell.aasx"/);
    const bytes = new Uint8Array(await aasx.arrayBuffer());

    const data = new FormData();
    data.append('file', new Blob([bytes], { type: 'application/asset-administration-shell-package' }), 'twin.aasx');
    const stored = await json(created(fetch(`${api()}/packages`, { method: 'POST', body: data })));
    const pkg = await fetch(`${api()}/packages/${b64(stored.packageId)}`);
    expectDownload(pkg, 'package');
    expect(pkg.headers.get('content-disposition')).toMatch(/^attachment; filename="twin.aasx"/);
    expect(new Uint8Array(await pkg.arrayBuffer())).toEqual(bytes);
  });
});
