import { createHash } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import type { ClientCredentialsSettings } from './push-target.service';
import { PushOptions, outboundAgent } from './pushers';

/** A token and when it stops being used (shortly before it expires). */
interface CachedToken {
  token: string;
  renewAt: number;
}

/** How long before its expiry a token is renewed: a tenth of its lifetime, at most 60 s. */
export function renewalMarginMs(expiresInSec: number): number {
  return Math.min(60_000, (expiresInSec * 1_000) / 10);
}

/** A token endpoint's answer is small; more than this is refused. */
const MAX_ANSWER_BYTES = 64 * 1024;

/**
 * Access tokens of push targets with OAuth 2.0 client credentials (RFC 6749 4.4): fetched with a POST of
 * `grant_type=client_credentials` (and `scope`) to the token URL, the client authenticated with HTTP Basic
 * (`client_secret_basic`, the default) or in the form (`client_secret_post`); kept per target until shortly before
 * `expires_in` (no `expires_in`: one minute); fetched again then, or when the target refused the token (`renew`).
 * Concurrent pushes to one target share one fetch. The cache is keyed by the target and a digest of its credentials,
 * so a changed target's old token is never used. The token URL passes the same outbound rules as the target's URL.
 */
export class ClientCredentialsTokens {
  private readonly cache = new Map<string, Promise<CachedToken>>();

  constructor(private readonly options: PushOptions) {}

  /** A token for the target: the cached one while it is fresh, else a new one. */
  async token(targetKey: string, settings: ClientCredentialsSettings, secret: string): Promise<string> {
    const key = cacheKey(targetKey, settings, secret);
    const cached = this.cache.get(key);
    if (cached) {
      const entry = await cached.catch(() => undefined);
      if (entry && entry.renewAt > Date.now()) return entry.token;
      if (this.cache.get(key) !== cached) return this.token(targetKey, settings, secret);
    }
    return this.fetchInto(targetKey, key, settings, secret);
  }

  /** A new token for the target, after it refused `refused` (unless another push renewed it meanwhile). */
  async renew(targetKey: string, settings: ClientCredentialsSettings, secret: string, refused: string): Promise<string> {
    const key = cacheKey(targetKey, settings, secret);
    const entry = await this.cache.get(key)?.catch(() => undefined);
    if (entry && entry.token !== refused && entry.renewAt > Date.now()) return entry.token;
    return this.fetchInto(targetKey, key, settings, secret);
  }

  private async fetchInto(targetKey: string, key: string, settings: ClientCredentialsSettings, secret: string): Promise<string> {
    // Tokens of the target's earlier credentials go.
    for (const other of this.cache.keys()) if (other.startsWith(`${targetKey} `) && other !== key) this.cache.delete(other);
    const fetching = this.fetchToken(settings, secret);
    this.cache.set(key, fetching);
    try {
      return (await fetching).token;
    } catch (err) {
      if (this.cache.get(key) === fetching) this.cache.delete(key);
      throw err;
    }
  }

  private async fetchToken(settings: ClientCredentialsSettings, secret: string): Promise<CachedToken> {
    const form = new URLSearchParams({ grant_type: 'client_credentials' });
    if (settings.scope) form.set('scope', settings.scope);
    const headers: Record<string, string> = { 'Content-Type': 'application/x-www-form-urlencoded', Accept: 'application/json' };
    if (settings.authMethod === 'client_secret_post') {
      form.set('client_id', settings.clientId);
      form.set('client_secret', secret);
    } else {
      // RFC 6749 2.3.1: id and secret form-urlencoded, then Basic.
      headers.Authorization = `Basic ${Buffer.from(`${formEncode(settings.clientId)}:${formEncode(secret)}`).toString('base64')}`;
    }
    const started = Date.now();
    const answer = await this.post(settings.tokenUrl, headers, form.toString());
    let body: { access_token?: unknown; token_type?: unknown; expires_in?: unknown; error?: unknown; error_description?: unknown } = {};
    try {
      body = JSON.parse(answer.body) as typeof body;
    } catch {
      body = {};
    }
    if (answer.status !== 200) {
      const why = typeof body.error === 'string' ? `: ${body.error}${typeof body.error_description === 'string' ? ` (${body.error_description.slice(0, 200)})` : ''}` : '';
      throw new Error(`the token endpoint answered ${answer.status}${why}`);
    }
    if (typeof body.access_token !== 'string' || !/^[\x21-\x7e]+$/.test(body.access_token)) throw new Error('the token endpoint answered no usable access_token');
    if (body.token_type !== undefined && (typeof body.token_type !== 'string' || body.token_type.toLowerCase() !== 'bearer')) {
      throw new Error(`the token endpoint answered a token of type ${String(body.token_type).slice(0, 40)}, not Bearer`);
    }
    const expiresIn = typeof body.expires_in === 'number' && body.expires_in > 0 ? body.expires_in : 60;
    return { token: body.access_token, renewAt: started + expiresIn * 1_000 - renewalMarginMs(expiresIn) };
  }

  private post(target: string, headers: Record<string, string>, body: string): Promise<{ status: number; body: string }> {
    const url = new URL(target);
    const agent = outboundAgent(target, this.options);
    return new Promise((resolve, reject) => {
      const request = (url.protocol === 'https:' ? https : http).request(
        url,
        { method: 'POST', headers: { ...headers, 'Content-Length': Buffer.byteLength(body) }, agent, timeout: this.options.timeoutMs },
        (res) => {
          const chunks: Buffer[] = [];
          let size = 0;
          res.on('data', (chunk: Buffer) => {
            size += chunk.length;
            if (size > MAX_ANSWER_BYTES) request.destroy(new Error(`the token endpoint answered more than ${MAX_ANSWER_BYTES} bytes`));
            else chunks.push(chunk);
          });
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
          res.on('error', reject);
        },
      );
      request.on('timeout', () => request.destroy(new Error(`the token endpoint gave no answer within ${this.options.timeoutMs} ms`)));
      request.on('error', reject);
      request.end(body);
    });
  }
}

/** `application/x-www-form-urlencoded` encoding of one value (spaces as `+`). */
function formEncode(value: string): string {
  return new URLSearchParams({ v: value }).toString().slice(2);
}

function cacheKey(targetKey: string, settings: ClientCredentialsSettings, secret: string): string {
  const digest = createHash('sha256').update(JSON.stringify([settings.tokenUrl, settings.clientId, settings.scope, settings.authMethod, secret])).digest('base64url');
  return `${targetKey} ${digest}`;
}
