import { createHash, randomBytes } from 'node:crypto';
import http from 'node:http';
import { AddressInfo } from 'node:net';
import { TestIssuer, startTestIssuer } from './tokens';

/**
 * A small external OpenID Connect authorization server for browser tests of a federated sign-in: discovery, an
 * authorize endpoint (authorization code with PKCE, S256 only) whose page has one "Continue as …" button, a token
 * endpoint that checks the client id, the redirect URI and the PKCE verifier, and the JWKS (startTestIssuer's key
 * signs the access tokens). One user, one public client, one redirect URI; codes are single-use.
 */
export interface OidcProviderStub {
  /** `http://127.0.0.1:{port}/realm`: discovery is at `{issuer}/.well-known/openid-configuration`. */
  issuer: string;
  jwksUri: string;
  audience: string;
  clientId: string;
  /** The access tokens' `sub`. */
  subject: string;
  /** Tokens issued so far. */
  issued(): number;
  close(): Promise<void>;
}

export interface OidcProviderStubOptions {
  /** The public client the console signs in with. */
  clientId: string;
  /** The only redirect URI the client may use. */
  redirectUri: string;
  /** The access token's `aud`. */
  audience: string;
  /** Claims of the access token beside iss, sub, aud, exp (the roles claim). */
  claims: Record<string, unknown>;
  subject?: string;
  /** Shown on the authorize page's button: "Continue as {userName}". */
  userName?: string;
}

interface Grant {
  clientId: string;
  redirectUri: string;
  challenge: string;
  until: number;
}

const s256 = (verifier: string) => createHash('sha256').update(verifier).digest('base64url');

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

const CORS = { 'access-control-allow-origin': '*', 'access-control-allow-headers': 'content-type' };

export async function startOidcProviderStub(options: OidcProviderStubOptions): Promise<OidcProviderStub> {
  const keys: TestIssuer = await startTestIssuer(options.audience);
  const subject = options.subject ?? `federated-${randomBytes(4).toString('hex')}`;
  const codes = new Map<string, Grant>();
  let issued = 0;

  const json = (res: http.ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { ...CORS, 'content-type': 'application/json', 'cache-control': 'no-store' });
    res.end(JSON.stringify(body));
  };
  const refuse = (res: http.ServerResponse, text: string) => {
    res.writeHead(400, { 'content-type': 'text/plain; charset=utf-8' });
    res.end(text);
  };

  const path = '/realm';
  let issuer = '';
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', issuer);
    if (req.method === 'OPTIONS') {
      res.writeHead(204, { ...CORS, 'access-control-allow-methods': 'GET, POST' });
      res.end();
      return;
    }
    if (req.method === 'GET' && url.pathname === `${path}/.well-known/openid-configuration`) {
      json(res, 200, {
        issuer,
        authorization_endpoint: `${issuer}/authorize`,
        token_endpoint: `${issuer}/token`,
        jwks_uri: keys.jwksUri,
        response_types_supported: ['code'],
        grant_types_supported: ['authorization_code'],
        code_challenge_methods_supported: ['S256'],
        token_endpoint_auth_methods_supported: ['none'],
        subject_types_supported: ['public'],
        id_token_signing_alg_values_supported: ['RS256'],
      });
      return;
    }
    if (req.method === 'GET' && url.pathname === `${path}/authorize`) {
      const q = url.searchParams;
      if (q.get('client_id') !== options.clientId) return refuse(res, 'Unknown client_id.');
      if (q.get('redirect_uri') !== options.redirectUri) return refuse(res, 'This redirect_uri is not registered for the client.');
      if (q.get('response_type') !== 'code') return refuse(res, 'Only response_type=code.');
      if (q.get('code_challenge_method') !== 'S256' || !/^[A-Za-z0-9_-]{43}$/.test(q.get('code_challenge') ?? '')) return refuse(res, 'PKCE with S256 is required.');
      const code = randomBytes(16).toString('base64url');
      codes.set(code, { clientId: options.clientId, redirectUri: options.redirectUri, challenge: q.get('code_challenge')!, until: Date.now() + 60_000 });
      const hidden = (name: string, value: string) => `<input type="hidden" name="${name}" value="${escapeHtml(value)}">`;
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Test identity provider</title></head><body><main>
<h1>Test identity provider</h1>
<form method="get" action="${escapeHtml(options.redirectUri)}">${hidden('code', code)}${hidden('state', q.get('state') ?? '')}
<button type="submit">Continue as ${escapeHtml(options.userName ?? subject)}</button></form></main></body></html>`);
      return;
    }
    if (req.method === 'POST' && url.pathname === `${path}/token`) {
      let body = '';
      req.setEncoding('utf8');
      req.on('data', (chunk: string) => (body += chunk));
      req.on('end', () => {
        const form = new URLSearchParams(body);
        const code = form.get('code') ?? '';
        const grant = codes.get(code);
        codes.delete(code);
        if (form.get('grant_type') !== 'authorization_code') return json(res, 400, { error: 'unsupported_grant_type' });
        if (!grant || grant.until < Date.now()) return json(res, 400, { error: 'invalid_grant', error_description: 'Unknown, used or expired code.' });
        if (form.get('client_id') !== grant.clientId) return json(res, 400, { error: 'invalid_client', error_description: 'The code was issued to another client.' });
        if (form.get('redirect_uri') !== grant.redirectUri) return json(res, 400, { error: 'invalid_grant', error_description: 'redirect_uri differs from the authorization request.' });
        const verifier = form.get('code_verifier') ?? '';
        if (!/^[A-Za-z0-9._~-]{43,128}$/.test(verifier) || s256(verifier) !== grant.challenge) {
          return json(res, 400, { error: 'invalid_grant', error_description: 'The PKCE code_verifier does not match the code_challenge.' });
        }
        issued++;
        const accessToken = keys.sign(options.claims, { issuer, audience: options.audience, subject, expiresIn: 300 });
        json(res, 200, { access_token: accessToken, token_type: 'Bearer', expires_in: 300 });
      });
      return;
    }
    res.writeHead(404, CORS);
    res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}${path}`;
  return {
    issuer,
    jwksUri: keys.jwksUri,
    audience: options.audience,
    clientId: options.clientId,
    subject,
    issued: () => issued,
    close: async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await keys.close();
    },
  };
}
