import type autocannon from 'autocannon';
import type { Row, Target } from './run';

/**
 * The identity service's figures: client-credentials tokens issued per second (each one reads the service
 * account and checks the secret against its scrypt hash, which is what limits it), and what resolving the
 * caller's roles from the database adds to a GET by id (the same GET on a tenant in showcase mode, which
 * verifies no token, against one that verifies the token in-process and reads the role assignments).
 *
 * The server must be started with BENCH_CLIENT as BOOTSTRAP_CLIENT_ID / BOOTSTRAP_CLIENT_SECRET: the
 * provisioning service account then owns the first organization (contributor on all of its tenants).
 */
export const BENCH_CLIENT = { id: '0b3c7c5e-6f1a-4d8e-9a2b-5c4d3e2f1a0b', secret: 'bench-client-secret-of-at-least-32-characters' };

export const benchClientEnv = (): NodeJS.ProcessEnv => ({ BOOTSTRAP_CLIENT_ID: BENCH_CLIENT.id, BOOTSTRAP_CLIENT_SECRET: BENCH_CLIENT.secret });

export interface IdentityBenchContext {
  server: Target;
  measure(name: string, target: Target, request: autocannon.Request): Promise<Row>;
}

const tokenForm = new URLSearchParams({ grant_type: 'client_credentials', client_id: BENCH_CLIENT.id, client_secret: BENCH_CLIENT.secret, scope: 'api_access' }).toString();

/** A bearer token of the bench's service account. */
export async function benchToken(url: string): Promise<string> {
  const res = await fetch(`${url}/oidc/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: tokenForm });
  if (res.status !== 200) throw new Error(`the bench's client credentials were refused: ${res.status} ${await res.text()} (start the server with benchClientEnv())`);
  return ((await res.json()) as { access_token: string }).access_token;
}

/**
 * The Management API as the bench's service account: `call` sends a request (failing on any status from 300) and
 * answers its JSON; `organizationId` is the organization of the `default` tenant, where the bench makes its tenants.
 */
export async function benchManagement(url: string): Promise<{ call: (method: string, path: string, body?: unknown) => Promise<Record<string, unknown>>; organizationId: string }> {
  const token = await benchToken(url);
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${url}/api/v1${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    if (res.status >= 300) throw new Error(`${method} /api/v1${path}: ${res.status} ${text.slice(0, 300)}`);
    return JSON.parse(text) as Record<string, unknown>;
  };
  const me = (await call('GET', '/me')) as { tenants: { name: string; organizationId: string }[] };
  const organizationId = me.tenants.find((t) => t.name === 'default')?.organizationId;
  if (!organizationId) throw new Error('the bench service account sees no default tenant');
  return { call, organizationId };
}

/** Client credentials at the token endpoint, as fast as the server issues them. */
export async function benchTokenIssuance(ctx: IdentityBenchContext): Promise<Row> {
  await benchToken(ctx.server.url);
  return ctx.measure('POST /oidc/token (client credentials)', ctx.server, {
    method: 'POST',
    path: '/oidc/token',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: tokenForm,
  });
}

/**
 * GET by id on the `default` tenant in showcase mode (no token verified, no roles read), then the same GETs
 * with the service account's token after switching showcase mode off through the Management API (the token
 * verified in-process and the roles read from the database on every request); showcase mode is restored
 * after. The ratio is the cost of database-backed role resolution.
 */
export async function benchRoleResolution(ctx: IdentityBenchContext, paths: string[]): Promise<{ rows: Row[]; ratio: number }> {
  const token = await benchToken(ctx.server.url);
  const rotating = (headers: Record<string, string> = {}): autocannon.Request => {
    let next = 0;
    return { method: 'GET', headers, setupRequest: (req) => ({ ...req, path: paths[next++ % paths.length] }) };
  };
  const showcase = await ctx.measure('GET /shells/{id} showcase (no token)', ctx.server, rotating());
  const setShowcase = await showcaseSwitch(ctx.server.url, token);
  await setShowcase(false);
  try {
    const probe = await fetch(`${ctx.server.url}${paths[0]}`);
    if (probe.status !== 401) throw new Error(`the default tenant still answers without a token (${probe.status})`);
    const secured = await ctx.measure('GET /shells/{id} with a token, roles from the database', ctx.server, rotating({ authorization: `Bearer ${token}` }));
    return { rows: [showcase, secured], ratio: secured.reqPerSec / showcase.reqPerSec };
  } finally {
    await setShowcase(true);
  }
}

/** Switches showcase mode of the `default` tenant through the Management API, as its organization's owner. */
async function showcaseSwitch(url: string, token: string): Promise<(on: boolean) => Promise<void>> {
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const me = (await (await fetch(`${url}/api/v1/me`, { headers })).json()) as { tenants: { id: string; name: string; organizationId: string }[] };
  const tenant = me.tenants.find((t) => t.name === 'default');
  if (!tenant) throw new Error('the bench service account sees no default tenant');
  return async (on) => {
    const res = await fetch(`${url}/api/v1/organizations/${tenant.organizationId}/tenants/${tenant.id}`, { method: 'PATCH', headers, body: JSON.stringify({ showcase: on }) });
    if (res.status !== 200) throw new Error(`switching showcase mode: ${res.status} ${await res.text()}`);
  };
}
