import type Koa from 'koa';
import type { Interaction, Provider } from 'oidc-provider';
import type { AccountService } from '../../management/accounts/account.service';
import { FailureLimiter } from './failure-limiter';
import { PAGE_CSP, changePasswordPage, errorPage, loginPage, signupPage } from './login-page';

/** Where oidc-provider is mounted on this server, and where its interactions (our pages) are. */
export const MOUNT_PATH = '/oidc';
export const INTERACTION_PATH = `${MOUNT_PATH}/interaction`;

export interface InteractionDeps {
  provider(): Provider;
  accounts: AccountService;
  limiter: FailureLimiter;
  /** Display names of the first-party clients, by client_id: they get consent without asking. */
  firstPartyClients: ReadonlyMap<string, string>;
  /** The resource indicator of the platform API (the `api_access` scope belongs to it). */
  resource: string;
  apiScope: string;
  /**
   * The interactions' path as browsers see it: `{path of MANAGE_URL}/oidc/interaction` (a proxy may serve this
   * server below a path prefix it strips), for form actions and links.
   */
  publicPath: string;
}

/** The login form's parser, made at the first form posted: its library is not loaded at every start. */
let formParser: Koa.Middleware | undefined;
const readForm: Koa.Middleware = (ctx, next) => {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- see above
  formParser ??= (require('koa-body') as typeof import('koa-body')).koaBody({ urlencoded: true, json: false, multipart: false, text: false, formLimit: '16kb' });
  return formParser(ctx, next);
};

class PageError extends Error {
  constructor(
    readonly status: number,
    readonly title: string,
    text: string,
  ) {
    super(text);
  }
}

const EXPIRED = new PageError(400, 'Login expired', 'This login page has expired or was opened outside a login. Go back to the application and log in again.');

/**
 * oidc-provider's interactions, answered by our own pages: `login` (email + password; an account with a
 * one-time password sets its own before it continues; sign-up when switched on) and `consent`, granted
 * without asking for this platform's own clients. Paths: `{MOUNT_PATH}/interaction/{uid}` (the page),
 * `.../login`, `.../password`, `.../signup`, `.../abort`.
 */
export function interactionHandler(deps: InteractionDeps): Koa.Middleware {
  return async (ctx) => {
    const [uid, action = '', ...rest] = ctx.path.slice(INTERACTION_PATH.length + 1).split('/');
    ctx.set('Content-Security-Policy', PAGE_CSP);
    ctx.set('Cache-Control', 'no-store');
    ctx.set('X-Frame-Options', 'DENY');
    try {
      if (!uid || rest.length) throw new PageError(404, 'Not found', 'There is no such page.');
      const route = `${ctx.method} ${action}`;
      const handler = ROUTES[route];
      if (!handler) {
        if (['', 'login', 'password', 'signup', 'abort'].includes(action)) throw new PageError(405, 'Not allowed', `${ctx.method} is not allowed here.`);
        throw new PageError(404, 'Not found', 'There is no such page.');
      }
      const interaction = await details(deps.provider(), ctx, uid);
      if (ctx.method === 'POST') await readBody(ctx);
      await handler(ctx, interaction, deps);
    } catch (err) {
      if (!(err instanceof PageError)) throw err;
      ctx.status = err.status;
      ctx.type = 'text/html; charset=utf-8';
      ctx.body = errorPage(err.title, err.message);
    }
  };
}

type Handler = (ctx: Koa.Context, interaction: Interaction, deps: InteractionDeps) => Promise<void>;

const ROUTES: Record<string, Handler> = {
  'GET ': showPrompt,
  'POST login': login,
  'POST password': setPassword,
  'GET signup': showSignup,
  'POST signup': signup,
  'GET abort': abort,
};

async function details(provider: Provider, ctx: Koa.Context, uid: string): Promise<Interaction> {
  let interaction: Interaction;
  try {
    interaction = await provider.interactionDetails(ctx.req, ctx.res);
  } catch (err) {
    if ((err as { name?: string }).name === 'SessionNotFound') throw EXPIRED;
    throw err;
  }
  // The cookie names the interaction of this browser; a page of another one is stale.
  if (interaction.uid !== uid) throw EXPIRED;
  return interaction;
}

async function readBody(ctx: Koa.Context): Promise<void> {
  if (!ctx.is('application/x-www-form-urlencoded')) throw new PageError(415, 'Unsupported form', 'The form must be sent as application/x-www-form-urlencoded.');
  try {
    await readForm(ctx, async () => undefined);
  } catch {
    throw new PageError(400, 'Bad form', 'The form could not be read.');
  }
}

const field = (ctx: Koa.Context, name: string): string => {
  const value = (ctx.request.body as Record<string, unknown> | undefined)?.[name];
  return typeof value === 'string' ? value : '';
};

const urls = (publicPath: string, uid: string) => {
  const base = `${publicPath}/${encodeURIComponent(uid)}`;
  return { page: base, login: `${base}/login`, password: `${base}/password`, signup: `${base}/signup`, abort: `${base}/abort` };
};

function html(ctx: Koa.Context, body: string, status = 200): void {
  ctx.status = status;
  ctx.type = 'text/html; charset=utf-8';
  ctx.body = body;
}

function renderLogin(ctx: Koa.Context, interaction: Interaction, deps: InteractionDeps, extra: { email?: string; error?: string; note?: string; status?: number } = {}): void {
  const u = urls(deps.publicPath, interaction.uid);
  const clientName = deps.firstPartyClients.get(String(interaction.params.client_id)) ?? String(interaction.params.client_id);
  html(
    ctx,
    loginPage({
      action: u.login,
      abortUrl: u.abort,
      signupUrl: deps.accounts.signupEnabled ? u.signup : undefined,
      clientName,
      email: extra.email ?? (typeof interaction.params.login_hint === 'string' ? interaction.params.login_hint : undefined),
      error: extra.error,
      note: extra.note,
    }),
    extra.status,
  );
}

async function showPrompt(ctx: Koa.Context, interaction: Interaction, deps: InteractionDeps): Promise<void> {
  if (interaction.prompt.name === 'consent') return consent(ctx, interaction, deps);
  if (interaction.prompt.name !== 'login') throw new PageError(400, 'Not supported', `The step '${interaction.prompt.name}' is not supported.`);
  const pending = pendingPasswordChange(interaction);
  if (pending) {
    const account = await deps.accounts.byId(pending);
    const u = urls(deps.publicPath, interaction.uid);
    if (account) return html(ctx, changePasswordPage({ action: u.password, abortUrl: u.abort, email: account.email }));
  }
  renderLogin(ctx, interaction, deps);
}

function pendingPasswordChange(interaction: Interaction): string | undefined {
  const id = interaction.result?.pendingPasswordChange;
  return typeof id === 'string' ? id : undefined;
}

/** Refused for a while after repeated failures, per account and per address: 429 with Retry-After. */
function tooManyFailures(ctx: Koa.Context, deps: InteractionDeps, email: string): number {
  return Math.max(deps.limiter.retryAfter(`login:${email.trim().toLowerCase()}`), deps.limiter.retryAfter(`login-address:${ctx.ip}`));
}

async function login(ctx: Koa.Context, interaction: Interaction, deps: InteractionDeps): Promise<void> {
  if (interaction.prompt.name !== 'login') throw EXPIRED;
  const email = field(ctx, 'email');
  const password = field(ctx, 'password');
  const newPassword = field(ctx, 'newPassword');
  if (!email || !password) return renderLogin(ctx, interaction, deps, { email, error: 'Enter your email and password.', status: 400 });
  const wait = tooManyFailures(ctx, deps, email);
  if (wait > 0) {
    ctx.set('Retry-After', String(wait));
    return renderLogin(ctx, interaction, deps, { email, error: `Too many failed logins. Try again in ${wait} seconds.`, status: 429 });
  }
  const account = await deps.accounts.verifyLogin(email, password);
  if (!account) {
    deps.limiter.fail(`login:${email.trim().toLowerCase()}`);
    deps.limiter.fail(`login-address:${ctx.ip}`);
    return renderLogin(ctx, interaction, deps, { email, error: 'The email or the password is not right.', status: 401 });
  }
  deps.limiter.reset(`login:${email.trim().toLowerCase()}`);
  if (account.mustChangePassword) {
    // Sent along with the login (scripts, tests): changed at once. Otherwise the next page asks for it.
    if (newPassword) return changeAndFinish(ctx, interaction, deps, account.id, account.email, newPassword);
    interaction.result = { pendingPasswordChange: account.id };
    await interaction.persist();
    const u = urls(deps.publicPath, interaction.uid);
    return html(ctx, changePasswordPage({ action: u.password, abortUrl: u.abort, email: account.email }));
  }
  await finish(ctx, deps, { login: { accountId: account.id, amr: ['pwd'] } });
}

async function setPassword(ctx: Koa.Context, interaction: Interaction, deps: InteractionDeps): Promise<void> {
  const accountId = pendingPasswordChange(interaction);
  if (interaction.prompt.name !== 'login' || !accountId) throw EXPIRED;
  const account = await deps.accounts.byId(accountId);
  if (!account) throw EXPIRED;
  await changeAndFinish(ctx, interaction, deps, account.id, account.email, field(ctx, 'newPassword'));
}

async function changeAndFinish(ctx: Koa.Context, interaction: Interaction, deps: InteractionDeps, accountId: string, email: string, newPassword: string): Promise<void> {
  try {
    await deps.accounts.changePassword(accountId, newPassword);
  } catch (err) {
    if (!isClientError(err)) throw err;
    if (pendingPasswordChange(interaction) !== accountId) {
      interaction.result = { pendingPasswordChange: accountId };
      await interaction.persist();
    }
    const u = urls(deps.publicPath, interaction.uid);
    return html(ctx, changePasswordPage({ action: u.password, abortUrl: u.abort, email, error: (err as Error).message }), 400);
  }
  await finish(ctx, deps, { login: { accountId, amr: ['pwd'] } });
}

async function showSignup(ctx: Koa.Context, interaction: Interaction, deps: InteractionDeps): Promise<void> {
  if (!deps.accounts.signupEnabled) throw new PageError(404, 'Not found', 'Sign-up is switched off on this server.');
  if (interaction.prompt.name !== 'login') throw EXPIRED;
  const u = urls(deps.publicPath, interaction.uid);
  html(ctx, signupPage({ action: u.signup, loginUrl: u.page }));
}

async function signup(ctx: Koa.Context, interaction: Interaction, deps: InteractionDeps): Promise<void> {
  if (!deps.accounts.signupEnabled) throw new PageError(404, 'Not found', 'Sign-up is switched off on this server.');
  if (interaction.prompt.name !== 'login') throw EXPIRED;
  const u = urls(deps.publicPath, interaction.uid);
  const email = field(ctx, 'email');
  const displayName = field(ctx, 'displayName');
  try {
    const account = await deps.accounts.signUp({ email, password: field(ctx, 'password'), displayName });
    await finish(ctx, deps, { login: { accountId: account.id, amr: ['pwd'] } });
  } catch (err) {
    if (!isClientError(err)) throw err;
    html(ctx, signupPage({ action: u.signup, loginUrl: u.page, email, displayName, error: (err as Error).message }), statusOf(err));
  }
}

async function abort(ctx: Koa.Context, _interaction: Interaction, deps: InteractionDeps): Promise<void> {
  await finish(ctx, deps, { error: 'access_denied', error_description: 'The user cancelled the login.' }, false);
}

/**
 * Consent for this platform's own clients: what they asked for (openid, `api_access` on the platform API) is
 * granted without a page. Another client (none can be registered today) gets no consent.
 */
async function consent(ctx: Koa.Context, interaction: Interaction, deps: InteractionDeps): Promise<void> {
  const clientId = String(interaction.params.client_id);
  if (!deps.firstPartyClients.has(clientId) || !interaction.session) {
    return finish(ctx, deps, { error: 'consent_required', error_description: 'This client cannot be granted access here.' }, false);
  }
  const provider = deps.provider();
  const grant = (interaction.grantId && (await provider.Grant.find(interaction.grantId))) || new provider.Grant({ accountId: interaction.session.accountId, clientId });
  const missing = interaction.prompt.details as { missingOIDCScope?: string[]; missingOIDCClaims?: string[]; missingResourceScopes?: Record<string, string[]> };
  if (missing.missingOIDCScope) grant.addOIDCScope(missing.missingOIDCScope.join(' '));
  for (const [resource, scopes] of Object.entries(missing.missingResourceScopes ?? {})) {
    // Only the platform API and its one scope.
    if (resource === deps.resource) grant.addResourceScope(resource, scopes.filter((s) => s === deps.apiScope).join(' '));
  }
  const grantId = await grant.save();
  await finish(ctx, deps, { consent: { grantId } });
}

async function finish(ctx: Koa.Context, deps: InteractionDeps, result: Record<string, unknown>, merge = true): Promise<void> {
  const returnTo = await deps.provider().interactionResult(ctx.req, ctx.res, result, { mergeWithLastSubmission: merge });
  ctx.status = 303;
  ctx.redirect(returnTo);
}

function isClientError(err: unknown): boolean {
  const status = statusOf(err);
  return status >= 400 && status < 500;
}

function statusOf(err: unknown): number {
  const code = (err as { extensions?: { code?: string } }).extensions?.code;
  return code === 'BAD_REQUEST' ? 400 : code === 'CONFLICT' ? 409 : code === 'FORBIDDEN' ? 403 : 500;
}
