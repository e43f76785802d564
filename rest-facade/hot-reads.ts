import type { Context as KoaContext, Middleware } from 'koa';
import { decodeBase64Url } from '../src/common/base64url';
import type { Context } from '../src/graphql/context';
import { API_VERSION } from './tenant-api';

type Tenant = Parameters<Context['services']['shells']['cachedText']>[0];

/** The reads this path serves, by the collection segment of their route: what the route's GraphQL field answers. */
const READS: Record<string, (context: Context, tenant: Tenant, id: string) => Promise<{ text: string; etag: string } | undefined>> = {
  shells: (context, tenant, id) => context.services.shells.cachedText(tenant, id),
  submodels: (context, tenant, id) => context.services.submodels.cachedText(tenant, id),
  'concept-descriptions': (context, tenant, id) => context.services.conceptDescriptions.cachedText(tenant, id),
};

/** `/tenants/{tenant}/api/v3.0/{collection}/{id}`, with nothing escaped in the tenant's name (the router decodes those). */
const PATH = new RegExp(`^/tenants/([^/%]+)/api/${API_VERSION.replace('.', '\\.')}/(shells|submodels|concept-descriptions)/([A-Za-z0-9_-]+)$`);

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
 * Hot reads (issue 13): `GET {tenant_url}/api/v3.0/shells/{id}`, `/submodels/{id}` and `/concept-descriptions/{id}`
 * without query parameters, answered from the read cache past the router and the GraphQL execution of the route.
 *
 * It answers only what the route would answer with the same bytes and headers: a 200 of a cached text for a caller
 * admitted by the same rule. Everything else goes on to the route, as before: a refusal (whose Result the route
 * builds; the request's one context is shared, so its token is verified once), a miss
 * (which the route reads and caches), query parameters, a malformed id, another path, tenants of a host
 * (`TENANT_HOST_SUFFIX`).
 */
export function hotReads(options: HotReadOptions): Middleware {
  return async (ctx, next) => {
    const match = ctx.method === 'GET' && !ctx.querystring ? PATH.exec(ctx.path) : null;
    const id = match ? decodeBase64Url(match[3]) : undefined;
    if (!match || id === undefined || id.includes('\u0000')) return next();
    let answer: { text: string; etag: string } | undefined;
    try {
      const context = options.contextOf(ctx);
      ctx.state.tenant = match[1];
      answer = await READS[match[2]](context, await options.admitReader(context, match[1]), id);
    } catch {
      answer = undefined;
    }
    if (!answer) return next();
    ctx.status = 200;
    ctx.set('ETag', answer.etag);
    ctx.type = 'application/json';
    ctx.body = answer.text;
  };
}
