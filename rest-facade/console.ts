import Router, { RouterContext } from '@koa/router';
import { NO_FRAMING } from '../src/common/security-headers';
import { StaticAsset, packageFile, serveAssets } from './static-assets';

/**
 * The GraphiQL playground, served entirely from this server's installed packages: factory networks have no
 * internet, so nothing may come from a CDN. React 18's UMD builds and GraphiQL 3's bundle are loaded as-is.
 */
const ASSETS: Record<string, StaticAsset> = {
  'react.js': { file: packageFile('react', 'umd/react.production.min.js'), type: 'text/javascript' },
  'react-dom.js': { file: packageFile('react-dom', 'umd/react-dom.production.min.js'), type: 'text/javascript' },
  'graphiql.js': { file: packageFile('graphiql', 'graphiql.min.js'), type: 'text/javascript' },
  'graphiql.css': { file: packageFile('graphiql', 'graphiql.min.css'), type: 'text/css' },
};

const PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>Asset platform · GraphQL</title>
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <link rel="stylesheet" href="/graphiql/assets/graphiql.css">
  <style>
    html, body { height: 100%; margin: 0; }
    #graphiql { height: calc(100% - 34px); }
    #login-bar { height: 34px; box-sizing: border-box; display: flex; align-items: center; justify-content: flex-end; gap: 12px;
      padding: 0 14px; font: 13px system-ui, -apple-system, "Segoe UI", Roboto, Helvetica, Arial, sans-serif;
      background: #f3f5f8; border-bottom: 1px solid #dde2e8; color: #3b4654; }
    #login-bar button { font: inherit; padding: 3px 12px; border: 1px solid #2f6fde; border-radius: 4px; background: #2f6fde; color: #fff; cursor: pointer; }
    #login-bar button.secondary { background: transparent; color: #2f6fde; }
  </style>
</head>
<body>
  <div id="login-bar"><span id="login-status">Not logged in: paste a bearer token into Headers, or log in.</span><button id="login" type="button">Log in</button></div>
  <div id="graphiql">Loading the GraphQL console…</div>
  <script src="/graphiql/assets/react.js"></script>
  <script src="/graphiql/assets/react-dom.js"></script>
  <script src="/graphiql/assets/graphiql.js"></script>
  <script src="/graphiql/console.js"></script>
</body>
</html>
`;

// Kept out of the page so a strict Content-Security-Policy (no inline script) holds. `__LOGIN__` is replaced by
// the identity service's issuer and this page's client id and redirect URI (or null: no login button).
const BOOT = `const login = __LOGIN__;
const TOKEN_KEY = 'asset-platform.graphiql.token';
const FLOW_KEY = 'asset-platform.graphiql.flow';
const b64url = (bytes) => btoa(String.fromCharCode(...new Uint8Array(bytes))).replace(/\\+/g, '-').replace(/\\//g, '_').replace(/=+$/, '');

// SHA-256 for PKCE; crypto.subtle exists only in secure contexts (https, localhost), factory servers are often plain http.
function sha256(text) {
  const data = new TextEncoder().encode(text);
  if (globalThis.crypto && crypto.subtle) return crypto.subtle.digest('SHA-256', data);
  const K = [0x428a2f98,0x71374491,0xb5c0fbcf,0xe9b5dba5,0x3956c25b,0x59f111f1,0x923f82a4,0xab1c5ed5,0xd807aa98,0x12835b01,0x243185be,0x550c7dc3,
    0x72be5d74,0x80deb1fe,0x9bdc06a7,0xc19bf174,0xe49b69c1,0xefbe4786,0x0fc19dc6,0x240ca1cc,0x2de92c6f,0x4a7484aa,0x5cb0a9dc,0x76f988da,0x983e5152,
    0xa831c66d,0xb00327c8,0xbf597fc7,0xc6e00bf3,0xd5a79147,0x06ca6351,0x14292967,0x27b70a85,0x2e1b2138,0x4d2c6dfc,0x53380d13,0x650a7354,0x766a0abb,
    0x81c2c92e,0x92722c85,0xa2bfe8a1,0xa81a664b,0xc24b8b70,0xc76c51a3,0xd192e819,0xd6990624,0xf40e3585,0x106aa070,0x19a4c116,0x1e376c08,0x2748774c,
    0x34b0bcb5,0x391c0cb3,0x4ed8aa4a,0x5b9cca4f,0x682e6ff3,0x748f82ee,0x78a5636f,0x84c87814,0x8cc70208,0x90befffa,0xa4506ceb,0xbef9a3f7,0xc67178f2];
  const H = [0x6a09e667,0xbb67ae85,0x3c6ef372,0xa54ff53a,0x510e527f,0x9b05688c,0x1f83d9ab,0x5be0cd19];
  const length = Math.ceil((data.length + 9) / 64) * 64;
  const m = new Uint8Array(length);
  m.set(data);
  m[data.length] = 0x80;
  new DataView(m.buffer).setUint32(length - 4, data.length * 8);
  const w = new Uint32Array(64);
  const rotr = (x, n) => (x >>> n) | (x << (32 - n));
  for (let i = 0; i < length; i += 64) {
    for (let t = 0; t < 16; t++) w[t] = new DataView(m.buffer).getUint32(i + t * 4);
    for (let t = 16; t < 64; t++) {
      const s0 = rotr(w[t - 15], 7) ^ rotr(w[t - 15], 18) ^ (w[t - 15] >>> 3);
      const s1 = rotr(w[t - 2], 17) ^ rotr(w[t - 2], 19) ^ (w[t - 2] >>> 10);
      w[t] = (w[t - 16] + s0 + w[t - 7] + s1) | 0;
    }
    let [a, b, c, d, e, f, g, h] = H;
    for (let t = 0; t < 64; t++) {
      const t1 = (h + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + K[t] + w[t]) | 0;
      const t2 = ((rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c))) | 0;
      h = g; g = f; f = e; e = (d + t1) | 0; d = c; c = b; b = a; a = (t1 + t2) | 0;
    }
    [a, b, c, d, e, f, g, h].forEach((v, j) => { H[j] = (H[j] + v) | 0; });
  }
  const out = new DataView(new ArrayBuffer(32));
  H.forEach((v, j) => out.setUint32(j * 4, v));
  return Promise.resolve(out.buffer);
}

function storedToken() {
  try {
    const token = JSON.parse(sessionStorage.getItem(TOKEN_KEY) || 'null');
    return token && token.expiresAt > Date.now() ? token : null;
  } catch { return null; }
}

async function startLogin() {
  const verifier = b64url(crypto.getRandomValues(new Uint8Array(32)));
  const state = b64url(crypto.getRandomValues(new Uint8Array(16)));
  sessionStorage.setItem(FLOW_KEY, JSON.stringify({ verifier, state }));
  const url = new URL(login.issuer + '/auth');
  url.search = new URLSearchParams({
    client_id: login.clientId, response_type: 'code', redirect_uri: login.redirectUri, scope: 'openid api_access',
    state, code_challenge: b64url(await sha256(verifier)), code_challenge_method: 'S256',
  }).toString();
  location.assign(url.toString());
}

/** Back from the login page with a code: exchanged for a token, kept for this browser tab only. */
async function finishLogin() {
  const params = new URLSearchParams(location.search);
  const flow = JSON.parse(sessionStorage.getItem(FLOW_KEY) || 'null');
  sessionStorage.removeItem(FLOW_KEY);
  history.replaceState(null, '', new URL('/graphiql', location.href).toString());
  if (params.get('error')) throw new Error(params.get('error_description') || params.get('error'));
  if (!flow || params.get('state') !== flow.state || !params.get('code')) throw new Error('The login answer does not belong to this page; log in again.');
  const res = await fetch(login.issuer + '/token', {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'authorization_code', code: params.get('code'), redirect_uri: login.redirectUri, client_id: login.clientId, code_verifier: flow.verifier }).toString(),
  });
  const body = await res.json();
  if (!res.ok) throw new Error(body.error_description || body.error || 'The code could not be exchanged.');
  sessionStorage.setItem(TOKEN_KEY, JSON.stringify({ accessToken: body.access_token, expiresAt: Date.now() + body.expires_in * 1000 }));
}

function showStatus(token, problem) {
  const status = document.getElementById('login-status');
  const button = document.getElementById('login');
  if (!login) { document.getElementById('login-bar').style.display = 'none'; return; }
  if (token) {
    status.textContent = 'Logged in: requests carry your bearer token (until ' + new Date(token.expiresAt).toLocaleTimeString() + ').';
    button.textContent = 'Log out';
    button.className = 'secondary';
    button.onclick = () => { sessionStorage.removeItem(TOKEN_KEY); location.reload(); };
  } else {
    status.textContent = problem ? 'Login failed: ' + problem : 'Not logged in: paste a bearer token into Headers, or log in.';
    button.textContent = 'Log in';
    button.className = '';
    button.onclick = () => { startLogin().catch((err) => showStatus(null, err.message)); };
    if (!problem) showcaseNote(status);
  }
}

/** Not logged in, tenants in showcase mode answer all the same: said, with their names (the front door lists them). */
async function showcaseNote(status) {
  try {
    const res = await fetch(new URL('/', location.href).toString(), { headers: { accept: 'application/json' } });
    const showcase = res.ok ? (await res.json()).showcase : undefined;
    if (!showcase || !showcase.total) return;
    const names = showcase.tenants.map((name) => '"' + name + '"').join(', ') + (showcase.total > showcase.tenants.length ? ' and ' + (showcase.total - showcase.tenants.length) + ' more' : '');
    status.textContent = 'Not logged in: tenant' + (showcase.total > 1 ? 's ' : ' ') + names + ' (showcase mode) answer' + (showcase.total > 1 ? '' : 's') +
      ' without a token; for the others, log in or paste a bearer token into Headers.';
  } catch {
    // The plain note stays.
  }
}

async function boot() {
  let problem;
  if (login && location.pathname.endsWith('/graphiql/callback')) {
    try { await finishLogin(); } catch (err) { problem = err.message; }
  }
  const token = login ? storedToken() : null;
  showStatus(token, problem);
  const url = new URL('/graphql', location.href).toString();
  const fetcher = GraphiQL.createFetcher({ url, headers: token ? { Authorization: 'Bearer ' + token.accessToken } : {} });
  const defaultQuery = '# Log in above, or paste a bearer token into Headers as {"Authorization": "Bearer ..."}, for tenants not in showcase mode.\\n' +
    'query Shells {\\n  shells(tenant: "default", limit: 10) {\\n    result { id idShort assetInformation { assetKind globalAssetId } }\\n    pagingMetadata { cursor }\\n  }\\n}\\n';
  ReactDOM.createRoot(document.getElementById('graphiql')).render(
    React.createElement(GraphiQL, { fetcher, defaultQuery, shouldPersistHeaders: true }),
  );
}
boot();
`;

const CSP = `default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; font-src 'self' data:; ${NO_FRAMING}`;

/** The playground's login with the built-in identity service (authorization code + PKCE, a public client). */
export interface ConsoleLogin {
  /** The identity service's issuer (`{manage_url}/oidc`): its authorization and token endpoints are below it. */
  issuer: string;
  clientId: string;
  /** `{public_url}/graphiql/callback`, as registered for the client. */
  redirectUri: string;
}

export function createConsoleRouter(login?: ConsoleLogin): Router {
  const router = new Router();
  const boot = BOOT.replace('__LOGIN__', JSON.stringify(login ?? null));
  // The token endpoint may be on another origin (MANAGE_URL): the page may talk to it, and to nothing else.
  const tokenOrigin = login && new URL(login.issuer).origin;
  const csp = tokenOrigin ? CSP.replace("default-src 'self'", `default-src 'self'; connect-src 'self' ${tokenOrigin}`) : CSP;
  const page = (ctx: RouterContext) => {
    ctx.type = 'text/html; charset=utf-8';
    ctx.set('Content-Security-Policy', csp);
    ctx.body = PAGE;
  };
  router.get('/graphiql', page);
  // Where the login page sends the browser back with a code: the same page, which exchanges it.
  router.get('/graphiql/callback', page);
  router.get('/graphiql/console.js', (ctx) => {
    ctx.type = 'text/javascript';
    ctx.body = boot;
  });
  serveAssets(router, '/graphiql', ASSETS);
  return router;
}
