import path from 'node:path';
import Router, { RouterContext } from '@koa/router';
import { NO_FRAMING } from '../src/common/security-headers';
import { StaticAsset, serveAssets } from './static-assets';

/**
 * The REST API console at `{manage_url}/console`: Swagger UI from the installed `swagger-ui-dist` (no CDN: factory
 * networks have no internet), showing the Management API's OpenAPI document and, with `?tenant=name`, a tenant's
 * AAS API document (`?tenant=name/instance`: one of its explicit registry instances); a server with one tenant opens on
 * that tenant's. Its Authorize dialog takes a pasted bearer token, logs in with the built-in identity service
 * (authorization code + PKCE, public client `console`, which comes back to `oauth2-redirect.html`), or signs in as a
 * service account (client credentials).
 */
const dist = path.dirname(require.resolve('swagger-ui-dist/package.json'));
const ASSETS: Record<string, StaticAsset> = {
  'swagger-ui.css': { file: path.join(dist, 'swagger-ui.css'), type: 'text/css' },
  'swagger-ui-bundle.js': { file: path.join(dist, 'swagger-ui-bundle.js'), type: 'text/javascript' },
  'swagger-ui-standalone-preset.js': { file: path.join(dist, 'swagger-ui-standalone-preset.js'), type: 'text/javascript' },
  'oauth2-redirect.js': { file: path.join(dist, 'oauth2-redirect.js'), type: 'text/javascript' },
};

/** A value for an HTML attribute. */
const attribute = (value: string) => value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');

const page = (base: string, soleTenant: string | undefined) => `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>Asset platform · REST API console</title>
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <link rel="stylesheet" href="${base}/console/assets/swagger-ui.css">
  <style>
    body { margin: 0; }
    #tenant-bar { display: flex; align-items: center; gap: 10px; padding: 8px 20px; font: 14px system-ui, -apple-system, "Segoe UI", Roboto, Helvetica, Arial, sans-serif;
      background: #f3f5f8; border-bottom: 1px solid #dde2e8; color: #3b4654; }
    #tenant-bar input { font: inherit; padding: 3px 8px; border: 1px solid #b8c0ca; border-radius: 4px; }
    #tenant-bar button { font: inherit; padding: 3px 12px; border: 1px solid #2f6fde; border-radius: 4px; background: #2f6fde; color: #fff; cursor: pointer; }
    #tenant-bar .hint { margin-left: auto; color: #6b7684; }
  </style>
</head>
<body${soleTenant ? ` data-sole-tenant="${attribute(soleTenant)}"` : ''}>
  <form id="tenant-bar" method="get" action="${base}/console">
    <label for="tenant">AAS API of tenant</label>
    <input id="tenant" name="tenant" placeholder="tenant name" autocomplete="off">
    <button type="submit">Load</button>
    <span class="hint">Authorize: paste a bearer token, log in (oauth2, authorization code), or sign in as a service account with its client id and secret (oauth2, client credentials).</span>
  </form>
  <div id="swagger-ui">Loading the REST API console…</div>
  <script src="${base}/console/assets/swagger-ui-bundle.js"></script>
  <script src="${base}/console/assets/swagger-ui-standalone-preset.js"></script>
  <script src="${base}/console/console.js"></script>
</body>
</html>
`;

const REDIRECT_PAGE = (base: string) => `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Asset platform · login</title></head>
<body>
<script src="${base}/console/assets/oauth2-redirect.js"></script>
</body>
</html>
`;

// Kept out of the page so the Content-Security-Policy needs no inline script. `__CONFIG__` is replaced below.
const BOOT = `const config = __CONFIG__;
// The documents are loaded from this page's own origin (relative URLs), whatever host name it was opened at. They
// name the canonical URLs (PUBLIC_URL, MANAGE_URL) as their servers; requests to those go to this origin too,
// where the same server answers, so the console works behind any host name without CORS. The identity service's
// endpoints (/oidc) are left as they are: the login belongs to MANAGE_URL.
const here = new URL('.', location.href).href;
const sameOrigin = (url) => {
  for (const base of config.canonicalBases) {
    if (url.startsWith(base + '/') && !url.startsWith(base + '/oidc/')) return here + url.slice(base.length + 1);
  }
  return url;
};
const params = new URLSearchParams(location.search);
const tenants = (params.get('tenant') || '').split(',').map((t) => t.trim()).filter(Boolean);
// Without a choice, a server with one tenant opens on that tenant's AAS API (the Management API stays in the list).
if (!tenants.length && document.body && document.body.dataset.soleTenant) tenants.push(document.body.dataset.soleTenant);
// 'tenant' is the tenant's AAS API; 'tenant/instance' one of its explicit registry instances ({tenant_url}/{instance}/api/v3.0).
const urls = tenants.map((entry) => {
  const [tenant, instance] = entry.split('/');
  const api = config.tenantApiUrl.replace('__TENANT__', encodeURIComponent(tenant));
  if (!instance) return { name: 'AAS API of tenant ' + tenant, url: api + '/openapi.json' };
  const at = api.lastIndexOf('/api/');
  return { name: 'Registry instance ' + instance + ' of tenant ' + tenant, url: api.slice(0, at) + '/' + encodeURIComponent(instance) + api.slice(at) + '/openapi.json' };
});
urls.push({ name: 'Management API', url: config.managementDocument });
if (tenants.length) document.getElementById('tenant').value = tenants[0];
document.getElementById('swagger-ui').textContent = '';
window.ui = SwaggerUIBundle({
  urls,
  'urls.primaryName': urls[0].name,
  dom_id: '#swagger-ui',
  deepLinking: false,
  presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
  plugins: [SwaggerUIBundle.plugins.DownloadUrl],
  layout: 'StandaloneLayout',
  // No online validator badge: the page loads nothing from elsewhere.
  validatorUrl: null,
  oauth2RedirectUrl: config.redirectUri,
  persistAuthorization: true,
  requestInterceptor: (request) => {
    request.url = sameOrigin(request.url);
    // Swagger UI asks every flow for the scopes initOAuth names; a service account's token (client credentials)
    // has no OpenID Connect sign-in, and the identity service refuses the 'openid' scope there.
    if (typeof request.body === 'string' && request.url.endsWith('/oidc/token')) {
      const form = new URLSearchParams(request.body);
      if (form.get('grant_type') === 'client_credentials' && form.has('scope')) {
        form.set('scope', form.get('scope').split(' ').filter((scope) => scope && scope !== 'openid').join(' '));
        request.body = form.toString();
      }
    }
    return request;
  },
});
if (config.clientId) {
  window.ui.initOAuth({ clientId: config.clientId, usePkceWithAuthorizationCodeGrant: true, scopes: 'openid api_access' });
}
`;

export interface ApiConsoleOptions {
  /** `{manage_url}`: the console, its redirect page and the Management API are below it. */
  manageUrl: string;
  /** `{public_url}`: tenants are below it path-based (`tenants/{name}`). */
  publicUrl: string;
  /** A tenant's API path-based, relative to the server's base, with `__TENANT__` for the name (`tenants/__TENANT__/api/v3.0`). */
  tenantApiPathTemplate: string;
  /** The console's OAuth client at the identity service (absent: token pasting only). */
  login?: { clientId: string; redirectUri: string };
  /** Where the page may send requests besides its own origin: the tenant APIs (`https://*.suffix`, say). */
  connectSources: string[];
  /** The server's only tenant, if it has exactly one: the console opens on its AAS API. */
  soleTenant?: () => Promise<string | undefined>;
}

export function createApiConsoleRouter(options: ApiConsoleOptions): Router {
  // A proxy may serve MANAGE_URL below a path prefix that it strips: the page's own links carry it.
  const base = new URL(options.manageUrl).pathname.replace(/\/$/, '');

  const redirectHtml = REDIRECT_PAGE(base);
  const boot = BOOT.replace(
    '__CONFIG__',
    JSON.stringify({
      // Relative to the page (`{base}/console`): below the same base, at whatever host the page was opened.
      managementDocument: 'api/v1/openapi.json',
      tenantApiUrl: options.tenantApiPathTemplate,
      canonicalBases: [...new Set([options.manageUrl, options.publicUrl])],
      clientId: options.login?.clientId ?? null,
      redirectUri: options.login?.redirectUri ?? `${options.manageUrl}/console/oauth2-redirect.html`,
    }),
  );
  const connect = [...new Set(["'self'", new URL(options.manageUrl).origin, ...options.connectSources])].join(' ');
  const csp = `default-src 'self'; connect-src ${connect}; img-src 'self' data:; style-src 'self' 'unsafe-inline'; font-src 'self' data:; form-action 'self'; ${NO_FRAMING}`;
  const sendHtml = (ctx: RouterContext, body: string) => {
    ctx.type = 'text/html; charset=utf-8';
    ctx.set('Content-Security-Policy', csp);
    ctx.body = body;
  };

  const router = new Router();
  router.get('/console', async (ctx) => sendHtml(ctx, page(base, ctx.query.tenant ? undefined : await options.soleTenant?.())));
  router.get('/console/', (ctx) => ctx.redirect(`${base}/console${ctx.querystring ? `?${ctx.querystring}` : ''}`));
  router.get('/console/oauth2-redirect.html', (ctx) => sendHtml(ctx, redirectHtml));
  router.get('/console/console.js', (ctx) => {
    ctx.type = 'text/javascript';
    ctx.body = boot;
  });
  serveAssets(router, '/console', ASSETS);
  return router;
}
