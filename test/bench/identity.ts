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
 * GET by id with the service account's token on a tenant not in showcase mode (`paths`: GET paths of its
 * shells, rotated), against the same on a showcase tenant (`showcasePaths`). The ratio is the cost of
 * verifying the token and resolving the roles from the database on every request.
 */
export async function benchRoleResolution(ctx: IdentityBenchContext, paths: string[], showcasePaths: string[]): Promise<{ rows: Row[]; ratio: number }> {
  const token = await benchToken(ctx.server.url);
  const rotating = (list: string[], headers: Record<string, string> = {}): autocannon.Request => {
    let next = 0;
    return { method: 'GET', headers, setupRequest: (req) => ({ ...req, path: list[next++ % list.length] }) };
  };
  const showcase = await ctx.measure('GET /shells/{id} showcase (no token)', ctx.server, rotating(showcasePaths));
  const secured = await ctx.measure('GET /shells/{id} with a token, roles from the database', ctx.server, rotating(paths, { authorization: `Bearer ${token}` }));
  return { rows: [showcase, secured], ratio: secured.reqPerSec / showcase.reqPerSec };
}
