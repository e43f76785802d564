import Router, { RouterContext } from '@koa/router';
import { NO_FRAMING } from '../src/common/security-headers';
import { isUuid } from '../src/common/uuid';
import { AdminBundle, buildAdminBundle, readBuiltBundle } from './admin-bundle';

/** What the admin console needs to know of this server; sent to the page as `/admin/config.js`. */
export interface AdminConsoleOptions {
  /** MANAGE_URL: the console lives at its `/admin`, below its path (a proxy's prefix) if it has one. */
  manageUrl: string;
  /** The built-in identity service's sign-in (authorization code + PKCE, the public client `admin`). */
  login: { issuer: string; clientId: string; redirectUri: string };
  /**
   * An organization's identity providers that offer a browser sign-in (issuer, public client id), read per page:
   * its sign-in page is `/admin?organization={id}`. The plain `/admin` offers the built-in sign-in only, so no
   * organization can put a button on the page the users of every other organization open.
   */
  signInProviders(organizationId: string): Promise<{ id: string; issuer: string; clientId: string; name: string }[]>;
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
  <script src="__BASE__/admin/config.js__QUERY__"></script>
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

  /**
   * The organization whose sign-in page this is (`?organization={uuid}`), if any; anything else is no organization.
   * Back from an identity provider at `/admin/callback` (whose address is fixed), the sign-in's `state` starts with
   * it: the page may then reach that organization's providers to exchange the code.
   */
  const organizationOf = (ctx: RouterContext) => {
    const given = ctx.query.organization;
    const state = ctx.query.state;
    const value = given ?? (ctx.path.endsWith('/admin/callback') && typeof state === 'string' ? state.split('.')[0] : undefined);
    return isUuid(value) ? value.toLowerCase() : undefined;
  };
  const providersOf = (organizationId: string | undefined) => (organizationId ? options.signInProviders(organizationId) : Promise.resolve([]));

  const servePage = async (ctx: RouterContext) => {
    const organizationId = organizationOf(ctx);
    const providers = await providersOf(organizationId);
    ctx.type = 'text/html; charset=utf-8';
    ctx.set('Cache-Control', 'no-cache');
    ctx.set('Content-Security-Policy', csp([...new Set(providers.map((p) => new URL(p.issuer).origin))]));
    ctx.body = page.replaceAll('__BASE__', base).replace('__QUERY__', organizationId ? `?organization=${organizationId}` : '');
  };
  router.get('/admin/config.js', async (ctx) => {
    const organization = organizationOf(ctx) ?? null;
    const providers = await providersOf(organization ?? undefined);
    ctx.type = 'text/javascript';
    ctx.set('Cache-Control', 'no-cache');
    ctx.body = `window.ADMIN_CONFIG = ${JSON.stringify({ base, login: options.login, organization, providers })};\n`;
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
