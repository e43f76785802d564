import { createHash, randomBytes } from 'node:crypto';
import { hashSecret } from '../../src/auth/secret-hash';
import type { RunningServer } from '../../src/server';
import { ServiceAccountSecretEntity } from '../../src/management/service-accounts/service-account-secret.entity';
import { ServiceAccountEntity } from '../../src/management/service-accounts/service-account.entity';

/**
 * Real tokens of the built-in identity service, over HTTP, as clients get them:
 * - `clientCredentialsToken`: a service account's client credentials at the token endpoint;
 * - `userToken`: a user's login through the authorization code flow with PKCE (authorize, our login page,
 *   the redirects, the code exchange), as the console and the GraphQL playground do it in a browser.
 */

type Server = Pick<RunningServer, 'url' | 'services'>;

export interface TokenResponse {
  access_token: string;
  token_type: string;
  expires_in: number;
  ext_expires_in: number;
  scope?: string;
  id_token?: string;
}

/** POSTs a form to the token endpoint; the raw response, for tests of its errors. */
export function tokenRequest(server: Pick<RunningServer, 'url'>, form: Record<string, string>, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${server.url}/oidc/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(form).toString(),
  });
}

/** A service account's access token (client credentials, secret in the form body, or Basic with `basic`). */
export async function clientCredentialsToken(
  server: Pick<RunningServer, 'url'>,
  clientId: string,
  secret: string,
  options: { scope?: string; basic?: boolean } = {},
): Promise<string> {
  return (await clientCredentials(server, clientId, secret, options)).access_token;
}

export async function clientCredentials(
  server: Pick<RunningServer, 'url'>,
  clientId: string,
  secret: string,
  options: { scope?: string; basic?: boolean } = {},
): Promise<TokenResponse> {
  const form: Record<string, string> = { grant_type: 'client_credentials', scope: options.scope ?? 'api_access' };
  const headers: Record<string, string> = {};
  if (options.basic) headers.authorization = `Basic ${Buffer.from(`${encodeURIComponent(clientId)}:${encodeURIComponent(secret)}`).toString('base64')}`;
  else Object.assign(form, { client_id: clientId, client_secret: secret });
  const res = await tokenRequest(server, form, headers);
  if (res.status !== 200) throw new Error(`client credentials refused: ${res.status} ${await res.text()}`);
  return (await res.json()) as TokenResponse;
}

/** A minimal cookie jar: every cookie goes to every request of the flow (one host). */
export class CookieJar {
  private readonly cookies = new Map<string, string>();

  /** Starts with the cookies of a Cookie header (`a=1; b=2`), e.g. a `LoginFlow`'s. */
  constructor(header = '') {
    for (const pair of header.split(';')) {
      const eq = pair.indexOf('=');
      if (eq > 0) this.cookies.set(pair.slice(0, eq).trim(), pair.slice(eq + 1).trim());
    }
  }

  take(res: Response): void {
    for (const line of res.headers.getSetCookie()) {
      const [pair, ...attributes] = line.split(';');
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      const expired = attributes.some((a) => /^\s*expires=/i.test(a) && Date.parse(a.split('=')[1]) < Date.now());
      if (!value || expired) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }

  header(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }
}

export interface LoginFlow {
  /** The access token (a JWT, `aud` AUTH_AUDIENCE, `sub` the account id). */
  accessToken: string;
  idToken?: string;
  tokens: TokenResponse;
  /** The identity service's cookies after the login (its session), as a Cookie header. */
  cookies: string;
}

export interface UserTokenOptions {
  /** Sent when the account logs in with a one-time password and must choose its own. */
  newPassword?: string;
  /** `console` (default) or `graphiql`. */
  clientId?: string;
}

/** A user's access token through the authorization code flow with PKCE and the login page. */
export async function userToken(server: Server, email: string, password: string, options: UserTokenOptions = {}): Promise<string> {
  return (await userLogin(server, email, password, options)).accessToken;
}

export async function userLogin(server: Server, email: string, password: string, options: UserTokenOptions = {}): Promise<LoginFlow> {
  const clientId = options.clientId ?? 'console';
  const client = server.services.identity.clients.find((c) => c.client_id === clientId);
  if (!client) throw new Error(`no interactive client ${clientId}`);
  const redirectUri = client.redirect_uris[0];
  const verifier = randomBytes(32).toString('base64url');
  const challenge = createHash('sha256').update(verifier).digest('base64url');
  const state = randomBytes(8).toString('hex');
  const jar = new CookieJar();
  const get = async (url: string) => {
    const res = await fetch(url, { redirect: 'manual', headers: { cookie: jar.header() } });
    jar.take(res);
    return res;
  };
  const post = async (url: string, form: Record<string, string>) => {
    const res = await fetch(url, {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie: jar.header(), 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(form).toString(),
    });
    jar.take(res);
    return res;
  };
  const authorize = new URL(`${server.url}/oidc/auth`);
  authorize.search = new URLSearchParams({
    client_id: clientId,
    response_type: 'code',
    redirect_uri: redirectUri,
    scope: 'openid api_access',
    state,
    code_challenge: challenge,
    code_challenge_method: 'S256',
  }).toString();

  let url = authorize.toString();
  let res = await get(url);
  for (let hops = 0; hops < 10; hops++) {
    if (res.status === 200 && url.includes('/oidc/interaction/')) {
      // Our login page: email and password; a one-time password leads to the page that asks for a new one.
      const page = new URL(url);
      res = await post(`${page.origin}${page.pathname}/login`, { email, password });
      if (res.status === 200) {
        const html = await res.text();
        if (!html.includes('name="newPassword"')) throw new Error(`login page did not accept the login:\n${html}`);
        if (!options.newPassword) throw new Error('the account must choose a new password (pass newPassword)');
        res = await post(`${page.origin}${page.pathname}/password`, { newPassword: options.newPassword });
      }
      if (res.status !== 303) throw new Error(`login refused: ${res.status} ${await res.text()}`);
    }
    if (res.status < 300 || res.status >= 400) throw new Error(`authorization flow stopped at ${url}: ${res.status} ${await res.text()}`);
    const location = new URL(res.headers.get('location')!, url).toString();
    if (location.startsWith(redirectUri)) {
      const params = new URL(location).searchParams;
      if (params.get('error')) throw new Error(`authorization failed: ${params.get('error')} ${params.get('error_description')}`);
      if (params.get('state') !== state) throw new Error('state mismatch');
      const tokenRes = await fetch(`${server.url}/oidc/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: 'authorization_code', code: params.get('code')!, redirect_uri: redirectUri, client_id: clientId, code_verifier: verifier }).toString(),
      });
      if (tokenRes.status !== 200) throw new Error(`code exchange refused: ${tokenRes.status} ${await tokenRes.text()}`);
      const tokens = (await tokenRes.json()) as TokenResponse;
      return { accessToken: tokens.access_token, idToken: tokens.id_token, tokens, cookies: jar.header() };
    }
    url = location;
    res = await get(url);
  }
  throw new Error('authorization flow: too many redirects');
}

export interface TestUser {
  id: string;
  email: string;
  password: string;
  /** A fresh access token of this user (the login flow, each call). */
  token(): Promise<string>;
}

/** A new identity account (signed up through AccountService, with a random email and password) that can log in. */
export async function newUser(server: Server, options: { displayName?: string } = {}): Promise<TestUser> {
  const email = `user-${randomBytes(6).toString('hex')}@example.com`;
  const password = randomBytes(18).toString('base64url');
  const account = await server.services.accounts.signUp({ email, password, displayName: options.displayName ?? null });
  return { id: account.id, email, password, token: () => userToken(server, email, password) };
}

export interface TestServiceAccount {
  id: string;
  secret: string;
  /** A fresh client-credentials token of this service account. */
  token(): Promise<string>;
}

/**
 * A new service account of `organizationId` with one secret, written to the database directly (as the
 * Management API would: only the secret's hash is stored).
 */
export async function newServiceAccount(server: Server & Pick<RunningServer, 'dataSource'>, organizationId: string): Promise<TestServiceAccount> {
  const manager = server.dataSource.manager;
  const account = await manager.save(manager.create(ServiceAccountEntity, { organizationId, name: `test-${randomBytes(3).toString('hex')}` }));
  const secret = randomBytes(32).toString('base64url');
  await manager.insert(ServiceAccountSecretEntity, { serviceAccountId: account.id, hash: await hashSecret(secret), hint: secret.slice(0, 4), description: 'test' });
  return { id: account.id, secret, token: () => clientCredentialsToken(server, account.id, secret) };
}

/** The console's authorization request (authorization code with PKCE) at `target`'s identity service. */
export function consoleAuthorizationUrl(target: Server): URL {
  const url = new URL(`${target.url}/oidc/auth`);
  url.search = new URLSearchParams({
    client_id: 'console',
    response_type: 'code',
    redirect_uri: target.services.identity.clients[0].redirect_uris[0],
    scope: 'openid api_access',
    code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
    code_challenge_method: 'S256',
  }).toString();
  return url;
}

/** Starts the console's authorization request and follows it to the login page: its URL and the session cookies. */
export async function openLoginPage(target: Server): Promise<{ page: string; cookies: string }> {
  const url = consoleAuthorizationUrl(target);
  const res = await fetch(url, { redirect: 'manual' });
  const page = new URL(res.headers.get('location')!, url).toString();
  const cookies = res.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ');
  return { page, cookies };
}
