import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToBase64url } from './base64url';
import { SignInProvider, config } from './config';

/**
 * Sign-in with the authorization code flow and PKCE, at the built-in identity service or at an organization's
 * identity provider. The token lives in this tab's sessionStorage only: closing the tab signs out.
 */
export interface Session {
  accessToken: string;
  expiresAt: number;
  /** The identity provider's id, for a federated sign-in. */
  providerId?: string;
  /** The organization whose sign-in page it started at (signing out goes back there). */
  organization?: string | null;
}

const SESSION_KEY = 'asset-platform.admin.session';
const FLOW_KEY = 'asset-platform.admin.flow';

const random = (n: number) => bytesToBase64url(crypto.getRandomValues(new Uint8Array(n)));

/** SHA-256 of the verifier: crypto.subtle exists only in secure contexts, and factory servers are often plain http. */
async function challengeOf(verifier: string): Promise<string> {
  const data = new TextEncoder().encode(verifier);
  if (globalThis.crypto?.subtle) return bytesToBase64url(new Uint8Array(await crypto.subtle.digest('SHA-256', data)));
  return bytesToBase64url(sha256(data));
}

export function currentSession(): Session | null {
  try {
    const session = JSON.parse(sessionStorage.getItem(SESSION_KEY) ?? 'null') as Session | null;
    return session && session.expiresAt > Date.now() ? session : null;
  } catch {
    return null;
  }
}

interface Endpoints {
  authorization: string;
  token: string;
  clientId: string;
  scope: string;
}

async function endpointsOf(provider?: SignInProvider): Promise<Endpoints> {
  if (!provider) {
    const { issuer, clientId } = config.login;
    return { authorization: `${issuer}/auth`, token: `${issuer}/token`, clientId, scope: 'openid api_access' };
  }
  const res = await fetch(`${provider.issuer.replace(/\/$/, '')}/.well-known/openid-configuration`);
  if (!res.ok) throw new Error(`The identity provider ${provider.issuer} does not answer its discovery document (HTTP ${res.status}).`);
  const meta = (await res.json()) as { authorization_endpoint?: string; token_endpoint?: string };
  if (!meta.authorization_endpoint || !meta.token_endpoint) throw new Error(`The identity provider ${provider.issuer} names no authorization or token endpoint.`);
  return { authorization: meta.authorization_endpoint, token: meta.token_endpoint, clientId: provider.clientId, scope: 'openid' };
}

/** Leaves for the sign-in page; it comes back to `/admin/callback` with a code. */
export async function signIn(provider?: SignInProvider, returnTo = location.pathname + location.search): Promise<void> {
  const endpoints = await endpointsOf(provider);
  const verifier = random(32);
  // The organization's id leads the state: back at /admin/callback, the server lets the page reach its providers.
  const state = config.organization ? `${config.organization}.${random(16)}` : random(16);
  sessionStorage.setItem(FLOW_KEY, JSON.stringify({ verifier, state, returnTo, providerId: provider?.id, organization: config.organization, token: endpoints.token, clientId: endpoints.clientId }));
  const url = new URL(endpoints.authorization);
  url.search = new URLSearchParams({
    client_id: endpoints.clientId,
    response_type: 'code',
    redirect_uri: config.login.redirectUri,
    scope: endpoints.scope,
    state,
    code_challenge: await challengeOf(verifier),
    code_challenge_method: 'S256',
    // Always the sign-in page: after signing out, the next user is asked, not the last one signed in again.
    prompt: 'login',
  }).toString();
  location.assign(url.toString());
}

/** Back at `/admin/callback`: the code is exchanged for a token. Answers where to go next. */
export async function finishSignIn(): Promise<string> {
  const params = new URLSearchParams(location.search);
  const flow = JSON.parse(sessionStorage.getItem(FLOW_KEY) ?? 'null') as {
    verifier: string;
    state: string;
    returnTo: string;
    providerId?: string;
    organization?: string | null;
    token: string;
    clientId: string;
  } | null;
  sessionStorage.removeItem(FLOW_KEY);
  if (params.get('error')) throw new Error(params.get('error_description') || params.get('error')!);
  if (!flow || params.get('state') !== flow.state || !params.get('code')) throw new Error('This sign-in answer does not belong to this page. Sign in again.');
  const res = await fetch(flow.token, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code: params.get('code')!,
      redirect_uri: config.login.redirectUri,
      client_id: flow.clientId,
      code_verifier: flow.verifier,
    }).toString(),
  });
  const body = (await res.json().catch(() => ({}))) as { access_token?: string; expires_in?: number; error?: string; error_description?: string };
  if (!res.ok || !body.access_token) throw new Error(body.error_description || body.error || `The code could not be exchanged (HTTP ${res.status}).`);
  const session: Session = { accessToken: body.access_token, expiresAt: Date.now() + (body.expires_in ?? 300) * 1000, providerId: flow.providerId, organization: flow.organization };
  sessionStorage.setItem(SESSION_KEY, JSON.stringify(session));
  return flow.returnTo.startsWith(`${config.base}/admin`) && !flow.returnTo.startsWith(`${config.base}/admin/callback`) ? flow.returnTo : `${config.base}/admin`;
}

export function signOut(): void {
  sessionStorage.removeItem(SESSION_KEY);
}

/** The sign-in page to go back to: the organization's (with its identity providers) where the session began there. */
export function signInPage(session: Session | null): string {
  const organization = session?.organization ?? config.organization;
  return `${config.base}/admin${organization ? `?organization=${encodeURIComponent(organization)}` : ''}`;
}
