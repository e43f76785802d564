import type { IncomingMessage, ServerResponse } from 'node:http';
import type Koa from 'koa';
import type { Configuration, KoaContextWithOIDC, Provider } from 'oidc-provider';
import type { Logger } from 'pino';
import { DataSource } from 'typeorm';
import type { ClientAddresses } from '../../common/client-address';
import { BodyError, contentCodingOf } from '../../common/json-body';
import type { Config } from '../../config';
import { isDatabaseUnavailable } from '../../db/unavailable';
import { DATABASE_UNAVAILABLE } from '../../graphql/errors';
import type { AccountService } from '../../management/accounts/account.service';
import { OrganizationEntity } from '../../management/organizations/organization.entity';
import type { BuiltInIssuer } from '../jwt';
import { PRINCIPAL_TYPE_CLAIM } from '../jwt';
import { API_SCOPE, deleteExpiredPayloads, postgresAdapter } from './adapter';
import { addressKey, installClientSecretCheck } from './client-auth';
import { FailureLimiter } from './failure-limiter';
import { INTERACTION_PATH, MOUNT_PATH, interactionHandler } from './interactions';
import { SIGNING_ALGORITHM, SigningKeyStore } from './key-store';
import { OidcProviderModule, loadOidcProvider } from './load-provider';
import { PAGE_CSP, errorPage } from './login-page';
import { apartFromRequest } from '../../common/client-gone';

/** How often every replica re-reads the signing keys (another replica may have rotated them). */
export const KEY_REFRESH_MS = 60_000;
/** An unknown kid makes a replica re-read the keys at once, but not more often than this. */
const UNKNOWN_KID_REFRESH_MS = 5_000;
/** Expired provider state is deleted about this often. */
const SWEEP_EVERY_REFRESHES = 10;

/** The interactive (browser) clients, public (no secret; PKCE), first-party: consent is implied. */
export const CONSOLE_CLIENT_ID = 'console';
export const GRAPHIQL_CLIENT_ID = 'graphiql';
export const ADMIN_CLIENT_ID = 'admin';

/** What a 503 tells clients to wait (as the rest of the server). */
const RETRY_AFTER_S = 5;

/** Login sessions and their parts live this long. */
const SESSION_TTL_SEC = 8 * 3600;
const INTERACTION_TTL_SEC = 30 * 60;
const AUTHORIZATION_CODE_TTL_SEC = 60;

export interface RotationResult {
  kid: string;
  retiredKid: string | null;
  retiredKeyPublishedUntil: Date | null;
}

interface Mounted {
  provider: Provider;
  callback: (req: IncomingMessage, res: ServerResponse) => Promise<void>;
}

/**
 * The built-in identity service: oidc-provider, mounted at `{manage_url}/oidc` in this server (discovery, JWKS,
 * token and authorization endpoints; our own login pages for its interactions). Its state is in PostgreSQL
 * (`oidc_payloads`), its signing keys too (`signing_keys`). oidc-provider fixes its key set when it is built,
 * so a key change (a rotation here or on another replica, found by a periodic re-read or an unknown kid) builds
 * a new provider; requests go to whichever is current.
 */
export class IdentityService {
  readonly issuer: string;
  /** The resource indicator of the platform API: tokens for it carry `aud` = AUTH_AUDIENCE. */
  readonly resource: string;
  readonly builtInIssuer: BuiltInIssuer;
  /** The provider's path as browsers see it: `/oidc`, or `{prefix}/oidc` when MANAGE_URL has a path. */
  private readonly publicPath: string;
  private readonly keys: SigningKeyStore;
  private readonly limiter: FailureLimiter;
  /** The interactive clients (REST console, GraphiQL, admin console): public, PKCE, first-party. */
  readonly clients: readonly { client_id: string; client_name: string; redirect_uris: string[] }[];
  private mounted?: Mounted;
  private module?: OidcProviderModule;
  private timer?: NodeJS.Timeout;
  private refreshes = 0;
  private lastUnknownKidRefresh = 0;
  private refreshing?: Promise<void>;

  constructor(
    private readonly config: Config,
    private readonly dataSource: DataSource,
    private readonly accounts: AccountService,
    private readonly log: Logger,
    /** Who the client of a request is (TRUST_PROXY): the failure limits count per client address. */
    private readonly clientAddresses: ClientAddresses,
  ) {
    this.issuer = `${config.manageUrl}${MOUNT_PATH}`;
    // Below a path prefix of MANAGE_URL (a proxy that strips it), browsers see the provider at that prefix.
    this.publicPath = new URL(this.issuer).pathname.replace(/\/$/, '');
    this.resource = resourceIndicatorOf(config);
    // A retired key stays published while tokens it signed may live: their lifetime, the clock tolerance, and
    // two key refresh periods (a replica that has not seen the rotation yet still signs with it).
    this.keys = new SigningKeyStore(dataSource, config.auth.tokenTtlSec + config.auth.clockToleranceSec + (2 * KEY_REFRESH_MS) / 1000);
    this.limiter = new FailureLimiter(config.auth.failureLimit);
    this.clients = [
      { client_id: CONSOLE_CLIENT_ID, client_name: 'the REST API console', redirect_uris: [`${config.manageUrl}/console/oauth2-redirect.html`] },
      { client_id: GRAPHIQL_CLIENT_ID, client_name: 'the GraphQL playground', redirect_uris: [`${config.publicUrl}/graphiql/callback`] },
      { client_id: ADMIN_CLIENT_ID, client_name: 'the admin console', redirect_uris: [`${config.manageUrl}/admin/callback`] },
    ];
    this.builtInIssuer = {
      issuer: this.issuer,
      audience: config.auth.audience,
      publicKey: (kid) => this.publicKey(kid),
      algorithms: [SIGNING_ALGORITHM],
    };
  }

  /** Loads (on the very first start: creates) the signing keys and builds the provider. */
  async start(): Promise<void> {
    this.module = await loadOidcProvider();
    await this.keys.init();
    this.build();
    this.timer = setInterval(() => {
      void this.refresh().catch((err) => this.log.warn({ err }, 'identity service: signing keys could not be re-read'));
    }, KEY_REFRESH_MS);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  /** The Koa middleware serving `/oidc/...`: oidc-provider itself, and our interaction pages. */
  middleware(): Koa.Middleware {
    const interactions = interactionHandler({
      provider: () => this.provider(),
      accounts: this.accounts,
      limiter: this.limiter,
      firstPartyClients: new Map(this.clients.map((c) => [c.client_id, c.client_name])),
      resource: this.resource,
      apiScope: API_SCOPE,
      publicPath: `${this.publicPath}/interaction`,
    });
    return async (ctx, next) => {
      if (ctx.path !== MOUNT_PATH && !ctx.path.startsWith(`${MOUNT_PATH}/`)) return next();
      if (ctx.path.startsWith(`${INTERACTION_PATH}/`)) {
        try {
          return await interactions(ctx, next);
        } catch (err) {
          const unavailable = isDatabaseUnavailable(err);
          if (unavailable) ctx.state.log.warn({ err }, 'database unavailable');
          else ctx.state.log.error({ err }, 'identity service: login page failed');
          ctx.status = unavailable ? 503 : 500;
          if (unavailable) ctx.set('Retry-After', String(RETRY_AFTER_S));
          ctx.type = 'text/html; charset=utf-8';
          ctx.body = errorPage('Something went wrong', unavailable ? DATABASE_UNAVAILABLE : 'The login could not be completed. Try again shortly.');
          return;
        }
      }
      // oidc-provider reads its endpoints' bodies itself (form-encoded, at most 56 KB; no enabled endpoint takes
      // JSON) without decoding a Content-Encoding: a compressed body is refused here, not read as a garbled form.
      try {
        if (contentCodingOf(ctx.req.headers)) throw new BodyError(415, 'The identity service reads no compressed bodies: send them without Content-Encoding.');
      } catch (err) {
        if (!(err instanceof BodyError)) throw err;
        ctx.status = err.status;
        ctx.body = { error: 'invalid_request', error_description: err.message };
        return;
      }
      const mounted = this.mounted!;
      const original = ctx.req.url ?? '/';
      const inner = ctx.path.slice(MOUNT_PATH.length) || '/';
      // oidc-provider is a Koa app of its own: it gets the raw request with its path below the mount point
      // (and `originalUrl`, from which it tells its mount point when it writes its URLs).
      const req = ctx.req as IncomingMessage & { originalUrl?: string; requestLog?: Logger };
      req.requestLog = ctx.state.log;
      req.originalUrl = `${this.publicPath}${inner}${ctx.search}`;
      req.url = `${inner}${ctx.search}`;
      ctx.respond = false;
      try {
        await mounted.callback(req, ctx.res);
      } finally {
        // For the request log: the path, with no query value that could be a credential.
        req.url = redactQuery(original);
      }
    };
  }

  /** What a browser client of ours needs to log in: the issuer, its client id and redirect URI. */
  loginFor(clientId: string): { issuer: string; clientId: string; redirectUri: string } {
    const client = this.clients.find((c) => c.client_id === clientId);
    if (!client) throw new Error(`no interactive client ${clientId}`);
    return { issuer: this.issuer, clientId, redirectUri: client.redirect_uris[0] };
  }

  /** The provider requests go to now. */
  provider(): Provider {
    return this.mounted!.provider;
  }

  /** The public key with this kid among the published ones; an unknown kid re-reads the keys (at most every 5 s). */
  async publicKey(kid: string): Promise<import('node:crypto').KeyObject | undefined> {
    const known = this.keys.publicKey(kid);
    if (known) return known;
    if (Date.now() - this.lastUnknownKidRefresh >= UNKNOWN_KID_REFRESH_MS) {
      this.lastUnknownKidRefresh = Date.now();
      await this.refresh();
    } else if (this.refreshing) await this.refreshing;
    return this.keys.publicKey(kid);
  }

  /** The organization whose owners administer the server (signing keys): the one the first start created. */
  platformOrganization(): Promise<OrganizationEntity | null> {
    return this.dataSource.manager.findOne(OrganizationEntity, { where: { platform: true }, order: { createdAt: 'ASC' } });
  }

  /** The published keys' ids, the current one first. */
  publishedKids(): string[] {
    return this.keys.published().map((k) => k.kid);
  }

  /**
   * A new signing key signs from now on (on every replica within a minute); the previous one stays published
   * until every token it signed has expired.
   */
  async rotateSigningKey(): Promise<RotationResult> {
    const { current, retired, retiredPublishedUntil } = await this.keys.rotate();
    this.build();
    this.log.info({ kid: current.kid, retiredKid: retired?.kid }, 'identity service: signing key rotated');
    return { kid: current.kid, retiredKid: retired?.kid ?? null, retiredKeyPublishedUntil: retiredPublishedUntil ?? null };
  }

  /** Re-reads the signing keys; a changed set rebuilds the provider. Also deletes expired provider state now and then. */
  private refresh(): Promise<void> {
    // Shared by the requests that wait for it: not stopped when the client of the one that started it goes.
    this.refreshing ??= apartFromRequest(async () => {
      try {
        if (await this.keys.load()) {
          this.build();
          this.log.info({ kids: this.publishedKids() }, 'identity service: signing keys changed, provider rebuilt');
        }
        if (++this.refreshes % SWEEP_EVERY_REFRESHES === 0) {
          const deleted = await deleteExpiredPayloads(this.dataSource);
          if (deleted) this.log.debug({ deleted }, 'identity service: expired state deleted');
        }
      } finally {
        this.refreshing = undefined;
      }
    });
    return this.refreshing;
  }

  private build(): void {
    const { Provider, errors } = this.module!;
    const provider = new Provider(this.issuer, this.configuration());
    // Its endpoint URLs follow X-Forwarded-Proto and -Host only with TRUST_PROXY (and the app drops those headers
    // from anyone but a trusted proxy before they get here).
    provider.proxy = this.clientAddresses.trustsProxies;
    // The 429 of a client id that failed too often: OAuth JSON (oidc-provider's error handler writes it), Retry-After.
    const tooMany = (retryAfter: number) => {
      Provider.ctx?.set('Retry-After', String(retryAfter));
      const err = new errors.OIDCProviderError(429, 'too_many_requests');
      err.error_description = `Too many failed client authentications; retry after ${retryAfter} seconds.`;
      return err;
    };
    installClientSecretCheck(provider.Client, { dataSource: this.dataSource, limiter: this.limiter }, tooMany);
    provider.use(this.tokenEndpointGuard(tooMany));
    const logOf = (ctx: Koa.Context | undefined): Logger => (ctx?.req as { requestLog?: Logger } | undefined)?.requestLog ?? this.log;
    provider.on('server_error', (ctx: Koa.Context, err: Error) => {
      if (!isDatabaseUnavailable(err)) return logOf(ctx).error({ err, path: ctx.path }, 'identity service error');
      // As everywhere on this server: the database is away, the client may retry shortly.
      logOf(ctx).warn({ err, path: ctx.path }, 'database unavailable');
      ctx.status = 503;
      ctx.set('Retry-After', String(RETRY_AFTER_S));
      if (ctx.type === 'text/html') ctx.body = errorPage('Try again shortly', DATABASE_UNAVAILABLE);
      else ctx.body = { error: 'temporarily_unavailable', error_description: DATABASE_UNAVAILABLE };
    });
    provider.on('error', (err: Error) => this.log.debug({ err }, 'identity service: connection failed during a request'));
    for (const event of ['grant.error', 'authorization.error', 'jwks.error', 'discovery.error']) {
      provider.on(event, (ctx: Koa.Context, err: { error?: string; error_description?: string }) =>
        logOf(ctx).debug({ event, error: err.error, description: err.error_description, path: ctx?.path }, 'identity service refused a request'),
      );
    }
    const callback = provider.callback() as unknown as Mounted['callback'];
    this.mounted = { provider, callback };
  }

  /**
   * Around the token endpoint: an address with too many failed client authentications in the last minute is
   * refused (429, Retry-After) before anything is read or hashed, each 401 counts against its address, and a
   * token response also says `ext_expires_in` (as Entra ID does; the same as `expires_in`).
   */
  private tokenEndpointGuard(tooMany: (retryAfter: number) => Error): Koa.Middleware {
    return async (ctx, next) => {
      if (ctx.path !== '/token' || ctx.method !== 'POST') return next();
      // The provider's own ctx.ip would be the leftmost X-Forwarded-For, which the client chooses.
      const address = addressKey(this.clientAddresses.of(ctx.req));
      const wait = this.limiter.retryAfter(address);
      if (wait > 0) {
        const err = tooMany(wait) as Error & { error: string; error_description: string };
        ctx.status = 429;
        ctx.set('Retry-After', String(wait));
        ctx.set('Cache-Control', 'no-store');
        ctx.body = { error: err.error, error_description: err.error_description };
        return;
      }
      await next();
      if (ctx.status === 401) this.limiter.fail(address);
      const body = ctx.body as Record<string, unknown> | undefined;
      if (ctx.status === 200 && body && typeof body === 'object' && typeof body.expires_in === 'number') body.ext_expires_in = body.expires_in;
    };
  }

  private configuration(): Configuration {
    const { config, accounts, resource } = this;
    const ttl = config.auth.tokenTtlSec;
    const resourceServer = {
      scope: API_SCOPE,
      audience: config.auth.audience,
      accessTokenTTL: ttl,
      accessTokenFormat: 'jwt' as const,
      jwt: { sign: { alg: SIGNING_ALGORITHM } },
    };
    const { errors } = this.module!;
    const firstParty = new Set(this.clients.map((c) => c.client_id));
    const ownOrigins = new Set([new URL(config.manageUrl).origin, new URL(config.publicUrl).origin]);
    return {
      adapter: postgresAdapter(this.dataSource),
      jwks: this.keys.providerJwks(),
      clients: this.clients.map((c) => ({
        ...c,
        token_endpoint_auth_method: 'none',
        grant_types: ['authorization_code'],
        response_types: ['code'],
        application_type: 'web',
      })),
      clientAuthMethods: ['client_secret_basic', 'client_secret_post', 'none'],
      scopes: ['openid'],
      clockTolerance: config.auth.clockToleranceSec,
      cookies: {
        keys: this.keys.cookieKeys(),
        names: { session: '_oidc_session', interaction: '_oidc_interaction', resume: '_oidc_resume' },
        long: { httpOnly: true, sameSite: 'lax' },
        short: { httpOnly: true, sameSite: 'lax' },
      },
      features: {
        devInteractions: { enabled: false },
        clientCredentials: { enabled: true },
        introspection: { enabled: false },
        revocation: { enabled: false },
        userinfo: { enabled: false },
        rpInitiatedLogout: { enabled: false },
        pushedAuthorizationRequests: { enabled: false },
        dPoP: { enabled: false },
        registration: { enabled: false },
        resourceIndicators: {
          enabled: true,
          defaultResource: () => resource,
          useGrantedResource: () => true,
          getResourceServerInfo: (_ctx: unknown, indicator: string) => {
            if (!acceptedResources(config, resource).has(indicator)) throw new errors.InvalidTarget(`the resource must be ${resource}`);
            return resourceServer;
          },
        },
      },
      pkce: { required: () => true },
      responseTypes: ['code'],
      ttl: {
        AccessToken: ttl,
        ClientCredentials: ttl,
        IdToken: ttl,
        AuthorizationCode: AUTHORIZATION_CODE_TTL_SEC,
        Interaction: INTERACTION_TTL_SEC,
        Session: SESSION_TTL_SEC,
        Grant: SESSION_TTL_SEC,
      },
      interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `${this.publicPath}/interaction/${interaction.uid}` },
      findAccount: async (_ctx: unknown, sub: string) => {
        const account = await accounts.byId(sub);
        if (!account) return undefined;
        return { accountId: account.id, claims: () => ({ sub: account.id, email: account.email, name: account.displayName ?? undefined }) };
      },
      // Our own clients ask nobody for consent: the grant holds what they may ask for.
      loadExistingGrant: async (ctx: KoaContextWithOIDC) => {
        const { oidc } = ctx;
        const grantId = oidc.result?.consent?.grantId || oidc.session.grantIdFor(oidc.client.clientId);
        if (grantId) return oidc.provider.Grant.find(grantId);
        if (!firstParty.has(oidc.client.clientId) || !oidc.session.accountId) return undefined;
        const grant = new oidc.provider.Grant({ clientId: oidc.client.clientId, accountId: oidc.session.accountId });
        grant.addOIDCScope('openid');
        grant.addResourceScope(resource, API_SCOPE);
        await grant.save();
        return grant;
      },
      extraTokenClaims: (ctx: KoaContextWithOIDC, token: { kind: string; accountId?: string }) => {
        if (token.kind === 'ClientCredentials') {
          const unknown = String(ctx.oidc.params.scope ?? '').split(' ').filter((s) => s && s !== API_SCOPE);
          if (unknown.length) throw new errors.InvalidScope(`the only scope is ${API_SCOPE}`, unknown.join(' '));
          return { [PRINCIPAL_TYPE_CLAIM]: 'service-account' };
        }
        if (token.kind === 'AccessToken' && token.accountId) return { [PRINCIPAL_TYPE_CLAIM]: 'user' };
        return undefined;
      },
      // A browser page may call the token endpoint from the origins of the client's redirect URIs, and from this
      // server's own origins (MANAGE_URL's and PUBLIC_URL's): the REST console's client-credentials sign-in with a
      // service account, which has no redirect URIs.
      clientBasedCORS: (_ctx: unknown, origin: string, client: { redirectUris?: string[] }) =>
        ownOrigins.has(origin) || (client.redirectUris ?? []).some((uri) => new URL(uri).origin === origin),
      renderError: async (ctx: Koa.Context, out: { error?: string; error_description?: string }) => {
        ctx.type = 'text/html; charset=utf-8';
        // The policy of our login pages (no script, no framing), which this page is one of.
        ctx.set('Content-Security-Policy', PAGE_CSP);
        ctx.body = errorPage('Login not possible', `${out.error_description ?? out.error ?? 'The request is not valid.'}`);
      },
    };
  }
}

/**
 * The `resource` (RFC 8707) naming the platform API: AUTH_AUDIENCE when it is an absolute URI, else
 * `{public_url}`. Clients may leave it out; tokens always carry `aud` = AUTH_AUDIENCE.
 */
export function resourceIndicatorOf(config: Pick<Config, 'auth' | 'publicUrl'>): string {
  return isAbsoluteUri(config.auth.audience) ? config.auth.audience : config.publicUrl;
}

function acceptedResources(config: Pick<Config, 'auth' | 'publicUrl' | 'manageUrl'>, resource: string): Set<string> {
  return new Set([resource, config.publicUrl, `${config.publicUrl}/`, config.manageUrl, `${config.manageUrl}/`]);
}

function isAbsoluteUri(value: string): boolean {
  try {
    return Boolean(new URL(value).protocol);
  } catch {
    return false;
  }
}

/** A URL for the log: the query's values are dropped (a client might send a secret there). */
function redactQuery(url: string): string {
  const q = url.indexOf('?');
  if (q < 0) return url;
  const names = new URLSearchParams(url.slice(q + 1));
  return `${url.slice(0, q)}?${[...new Set(names.keys())].map((n) => `${encodeURIComponent(n)}=…`).join('&')}`;
}
