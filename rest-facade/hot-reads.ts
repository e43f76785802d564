import type { Context as KoaContext, Middleware, Next } from 'koa';
import { decodeBase64Url } from '../src/common/base64url';
import type { Context } from '../src/graphql/context';
import { API_VERSION } from './tenant-api';

type Services = Context['services'];
type Tenant = Parameters<Services['shells']['cachedText']>[0];
type ListAnswers = NonNullable<ReturnType<Services['shells']['listAnswers']>>;

/** The reads this path serves, by the collection segment of their route: what the route's GraphQL field answers. */
const READS: Record<string, (services: Services, tenant: Tenant, id: string) => Promise<{ text: string; etag: string } | undefined>> = {
  shells: (services, tenant, id) => services.shells.cachedText(tenant, id),
  submodels: (services, tenant, id) => services.submodels.cachedText(tenant, id),
  'concept-descriptions': (services, tenant, id) => services.conceptDescriptions.cachedText(tenant, id),
};

/** The cached answers of the collections' lists (`GET /shells` and the like), by the same segment. */
const LISTS: Record<string, (services: Services, tenant: Tenant) => ListAnswers | undefined> = {
  shells: (services, tenant) => services.shells.listAnswers(tenant),
  submodels: (services, tenant) => services.submodels.listAnswers(tenant),
  'concept-descriptions': (services, tenant) => services.conceptDescriptions.listAnswers(tenant),
};

const BASE = `^/tenants/([^/%]+)/api/${API_VERSION.replace('.', '\\.')}/(shells|submodels|concept-descriptions)`;
/** `/tenants/{tenant}/api/v3.0/{collection}/{id}`, with nothing escaped in the tenant's name (the router decodes those). */
const ITEM = new RegExp(`${BASE}/([A-Za-z0-9_-]+)$`);
/** `/tenants/{tenant}/api/v3.0/{collection}`: its list. */
const LIST = new RegExp(`${BASE}$`);

export interface HotReadOptions {
  /** The request's GraphQL context, the one its route will use too. */
  contextOf(ctx: KoaContext): Context;
  /**
   * Admits the caller as a reader of the tenant, by the rule the GraphQL fields of these reads apply
   * (`@Authorized('reader')`: the auth checker itself), and answers the tenant; throws (401/403/404) otherwise.
   */
  admitReader(context: Context, tenant: string): Promise<Tenant>;
}

/**
 * Hot reads (issue 13), answered from the read cache past the router and the GraphQL execution of the route:
 * - `GET {tenant_url}/api/v3.0/shells/{id}`, `/submodels/{id}` and `/concept-descriptions/{id}` without query
 *   parameters;
 * - the lists `GET /shells`, `/submodels` and `/concept-descriptions`, whatever their query string: the route's
 *   whole 200 answer is kept under that query string, and dropped when any identifiable of the collection in the
 *   tenant is written (so as fresh as a GET by id).
 *
 * It answers only what the route would answer with the same bytes and headers: a 200 of a cached text for a caller
 * admitted by the same rule. Everything else goes on to the route, as before: a refusal (whose Result the route
 * builds; the request's one context is shared, so its token is verified once), a miss
 * (which the route reads and caches), query parameters of a GET by id, a malformed id, another path, tenants of a
 * host (`TENANT_HOST_SUFFIX`).
 */
export function hotReads(options: HotReadOptions): Middleware {
  /** The tenant, when the caller is admitted as its reader; undefined leaves the request to its route. */
  const admitted = async (ctx: KoaContext, tenant: string): Promise<{ services: Services; tenant: Tenant } | undefined> => {
    try {
      const context = options.contextOf(ctx);
      ctx.state.tenant = tenant;
      return { services: context.services, tenant: await options.admitReader(context, tenant) };
    } catch {
      return undefined;
    }
  };

  const item = async (ctx: KoaContext, next: Next, match: RegExpExecArray) => {
    const id = decodeBase64Url(match[3]);
    if (id === undefined || id.includes('\u0000')) return next();
    const reader = await admitted(ctx, match[1]);
    const answer = reader && (await READS[match[2]](reader.services, reader.tenant, id).catch(() => undefined));
    if (!answer) return next();
    ctx.status = 200;
    ctx.set('ETag', answer.etag);
    ctx.type = 'application/json';
    ctx.body = answer.text;
  };

  const list = async (ctx: KoaContext, next: Next, match: RegExpExecArray) => {
    const reader = await admitted(ctx, match[1]);
    const answers = reader && LISTS[match[2]](reader.services, reader.tenant);
    if (!answers) return next();
    const query = ctx.querystring;
    const text = await answers.get(query).catch(() => undefined);
    if (text !== undefined) {
      ctx.status = 200;
      ctx.type = 'application/json';
      ctx.body = text;
      return;
    }
    const token = answers.token();
    await next();
    const body: unknown = ctx.body;
    if (ctx.status !== 200 || body === null || typeof body !== 'object' && typeof body !== 'string') return;
    if (typeof body === 'object' && Object.getPrototypeOf(body) !== Object.prototype) return;
    // Serialized here once (Koa would do it as it sends), so what is kept is what is sent.
    const answer = typeof body === 'string' ? body : JSON.stringify(body);
    if (typeof body !== 'string') {
      ctx.type = 'application/json';
      ctx.body = answer;
    }
    answers.fill(query, token, answer);
  };

  return async (ctx, next) => {
    if (ctx.method !== 'GET') return next();
    const one = ctx.querystring ? null : ITEM.exec(ctx.path);
    if (one) return item(ctx, next, one);
    const all = LIST.exec(ctx.path);
    return all ? list(ctx, next, all) : next();
  };
}
