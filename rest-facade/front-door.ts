import Router from '@koa/router';
import type { EntryPoint } from '../src/common/entry-points';
import { FacadeError } from './facade-error';

export interface FrontDoorOptions {
  name: string;
  version: string;
  entryPoints: EntryPoint[];
  /**
   * The names of tenants in showcase mode (their API needs no token), at most `limit` of them, and how many there
   * are. They are open to anyone who reaches the server, so naming them here tells nobody more than they can read.
   */
  showcaseTenants(limit: number): Promise<{ names: string[]; total: number }>;
}

/** How many showcase tenants the page names; it counts all of them. */
const SHOWN_SHOWCASE_TENANTS = 20;

const SHOWCASE_WARNING =
  'Showcase mode: the API of these tenants needs no token, and anyone who can reach this server can read and change their data. Not for production.';

const CSP = "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

function page(options: FrontDoorOptions, showcase: { names: string[]; total: number }): string {
  const links = options.entryPoints
    .map((e) => `      <li><a href="${escapeHtml(e.href)}">${escapeHtml(e.title)}</a><br><code>${escapeHtml(e.url)}</code></li>`)
    .join('\n');
  const more = showcase.total > showcase.names.length ? ` and ${showcase.total - showcase.names.length} more` : '';
  const warning = showcase.total
    ? `  <p class="warning" role="alert"><strong>${escapeHtml(SHOWCASE_WARNING)}</strong><br>Tenants: ${showcase.names
        .map((n) => `<code>${escapeHtml(n)}</code>`)
        .join(', ')}${more}.</p>\n`
    : '';
  return `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>${escapeHtml(options.name)} ${escapeHtml(options.version)}</title>
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <style>
    body { font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, Helvetica, Arial, sans-serif; max-width: 52rem; margin: 2rem auto; padding: 0 1rem; color: #1f2933; }
    h1 { font-size: 1.5rem; margin-bottom: 0.2rem; }
    .version { color: #616e7c; margin-top: 0; }
    ul { padding-left: 1.2rem; }
    li { margin: 0.5rem 0; }
    code { color: #52606d; font-size: 0.85rem; }
    .warning { background: #fff4e5; border: 1px solid #f0b429; border-radius: 6px; padding: 0.8rem 1rem; }
  </style>
</head>
<body>
  <h1>${escapeHtml(options.name)}</h1>
  <p class="version">Version ${escapeHtml(options.version)} · Asset Administration Shell server (AAS V3.0, HTTP API V3.0.4)</p>
${warning}  <ul>
${links}
  </ul>
  <p>Requests need a bearer token (<code>Authorization: Bearer …</code>) unless the tenant is in showcase mode; the consoles can log in.
  API clients asking for <code>application/json</code> get this page as JSON.</p>
</body>
</html>
`;
}

/**
 * `GET /`: where a newcomer lands. Browsers (Accept: text/html) get a page linking the consoles, the API documents,
 * health and the default tenant's API; API clients get the same as JSON. It holds no data but the names of
 * showcase tenants, so it needs no token.
 */
export function createFrontDoorRouter(options: FrontDoorOptions): Router {
  const router = new Router();
  router.get('/', async (ctx) => {
    const type = ctx.accepts('application/json', 'text/html');
    if (!type) throw new FacadeError(406, 'The front door is served as application/json or text/html.');
    const showcase = await options.showcaseTenants(SHOWN_SHOWCASE_TENANTS);
    ctx.vary('Accept');
    ctx.set('Cache-Control', 'no-cache');
    if (type === 'text/html') {
      ctx.type = 'text/html; charset=utf-8';
      ctx.set('Content-Security-Policy', CSP);
      ctx.body = page(options, showcase);
      return;
    }
    ctx.body = {
      name: options.name,
      version: options.version,
      links: Object.fromEntries(options.entryPoints.map((e) => [e.key, e.url])),
      showcase: { tenants: showcase.names, total: showcase.total, ...(showcase.total ? { warning: SHOWCASE_WARNING } : {}) },
    };
  });
  // What every browser asks for on every page of this origin (the consoles, the front door): an icon, not a 404.
  router.get('/favicon.ico', (ctx) => {
    ctx.type = 'image/svg+xml';
    ctx.set('Cache-Control', 'public, max-age=86400');
    ctx.body = FAVICON;
  });
  return router;
}

/** A shell (the AAS) around a cube (its asset), in the consoles' blue. */
const FAVICON = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect x="1" y="1" width="30" height="30" rx="7" fill="#2f6fde"/><path d="M16 7l8 4.5v9L16 25l-8-4.5v-9z" fill="none" stroke="#fff" stroke-width="2.4" stroke-linejoin="round"/><path d="M8 11.5l8 4.5 8-4.5M16 16v9" fill="none" stroke="#fff" stroke-width="2.4" stroke-linejoin="round"/></svg>
`;
