import Router, { RouterContext } from '@koa/router';
import { NO_FRAMING } from '../src/common/security-headers';
import { AdminBundle, buildAdminBundle, readBuiltBundle } from './admin-bundle';

/** What the admin console needs to know of this server; sent to the page as `/admin/config.js`. */
export interface AdminConsoleOptions {
  /** MANAGE_URL: the console lives at its `/admin`, below its path (a proxy's prefix) if it has one. */
  manageUrl: string;
  /** The built-in identity service's sign-in (authorization code + PKCE, the public client `admin`). */
  login: { issuer: string; clientId: string; redirectUri: string };
  /** The organizations' identity providers that offer a browser sign-in (issuer, public client id), read per page. */
  signInProviders(): Promise<{ id: string; issuer: string; clientId: string; name: string }[]>;
}

const page = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>Asset platform · Admin console</title>
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <link rel="stylesheet" href="__BASE__/admin/assets/admin.css">
</head>
<body>
  <div id="root"><p class="booting">Loading the admin console…</p></div>
  <noscript>The admin console needs JavaScript.</noscript>
  <script src="__BASE__/admin/config.js"></script>
  <script src="__BASE__/admin/assets/admin.js"></script>
</body>
</html>
`;

/**
 * The admin console at `{manage_url}/admin`: a single-page app (React, bundled from npm packages by
 * `npm run build`, see admin-bundle.ts) that speaks the GraphQL API with the signed-in user's token. Every path
 * below `/admin` answers the same page (the app routes in the browser); `config.js` tells it where to sign in.
 */
export function createAdminConsoleRouter(options: AdminConsoleOptions): Router {
  const router = new Router();
  let bundle: Promise<AdminBundle> | undefined;
  const assets = () => {
    if (!bundle) {
      const built = readBuiltBundle();
      bundle = built ? Promise.resolve(built) : buildAdminBundle();
      bundle.catch(() => (bundle = undefined));
    }
    return bundle;
  };
  const loginOrigin = new URL(options.login.issuer).origin;
  // Below a path prefix of MANAGE_URL (a proxy that strips it), the browser sees the console at that prefix.
  const base = new URL(options.manageUrl).pathname.replace(/\/$/, '');

  const csp = (providerOrigins: string[]) =>
    [
      "default-src 'self'",
      `connect-src 'self' ${[loginOrigin, ...providerOrigins].join(' ')}`,
      "img-src 'self' data: blob:",
      "style-src 'self'",
      "script-src 'self'",
      "object-src 'none'",
      "base-uri 'none'",
      "form-action 'self'",
      NO_FRAMING,
    ].join('; ');

  const servePage = async (ctx: RouterContext) => {
    const providers = await options.signInProviders();
    ctx.type = 'text/html; charset=utf-8';
    ctx.set('Cache-Control', 'no-cache');
    ctx.set('Content-Security-Policy', csp([...new Set(providers.map((p) => new URL(p.issuer).origin))]));
    ctx.body = page.replaceAll('__BASE__', base);
  };
  router.get('/admin/config.js', async (ctx) => {
    const providers = await options.signInProviders();
    ctx.type = 'text/javascript';
    ctx.set('Cache-Control', 'no-cache');
    ctx.body = `window.ADMIN_CONFIG = ${JSON.stringify({ base, login: options.login, providers })};\n`;
  });
  router.get('/admin/assets/:name', async (ctx) => {
    const name = ctx.params.name;
    if (name !== 'admin.js' && name !== 'admin.css') return;
    const { js, css } = await assets();
    ctx.type = name === 'admin.js' ? 'text/javascript' : 'text/css';
    ctx.set('Cache-Control', 'no-cache');
    ctx.body = name === 'admin.js' ? js : css;
  });
  // After the files above: every other path below /admin is one of the app's own (it routes in the browser).
  router.get('/admin', servePage);
  router.get('/admin/*rest', servePage);
  return router;
}
