import type { IncomingMessage } from 'node:http';
import type { Context as KoaContext, Middleware, Next } from 'koa';
import { decodeBase64Url } from '../src/common/base64url';
import type { Context } from '../src/graphql/context';
import { ApiVersion, MAPPED_HEADER, enterVersion } from './api-versions';
import { FacadeError } from './facade-error';

type Services = Context['services'];
type Tenant = Parameters<Services['shells']['storedText']>[0];
type ListAnswers = NonNullable<ReturnType<Services['shells']['listAnswers']>>;

/** The reads this path serves, by the collection segment of their route: what the route's GraphQL field answers. */
type View = Context['aasVersion'];
/**
 * In the request's version: through V3.0 the cache answers only documents that need nothing of V3.1 (the others go
 * to their route, which maps them and says so).
 */
const READS: Record<string, (services: Services, tenant: Tenant, id: string, view: View) => ReturnType<Services['shells']['storedText']>> = {
  shells: (services, tenant, id, view) => services.shells.storedText(tenant, id, view),
  submodels: (services, tenant, id, view) => services.submodels.storedText(tenant, id, view),
  'concept-descriptions': (services, tenant, id, view) => services.conceptDescriptions.storedText(tenant, id, view),
};

/** The cached answers of the collections' lists (`GET /shells` and the like), by the same segment. */
const LISTS: Record<string, (services: Services, tenant: Tenant) => ListAnswers | undefined> = {
  shells: (services, tenant) => services.shells.listAnswers(tenant),
  submodels: (services, tenant) => services.submodels.listAnswers(tenant),
  'concept-descriptions': (services, tenant) => services.conceptDescriptions.listAnswers(tenant),
};

const BASE = `^/tenants/([^/%]+)/api/(v3\\.[01])/(shells|submodels|concept-descriptions)`;
/** `/tenants/{tenant}/api/{version}/{collection}/{id}`, with nothing escaped in the tenant's name (the router decodes those). */
const ITEM = new RegExp(`${BASE}/([A-Za-z0-9_-]+)$`);
/** `/tenants/{tenant}/api/{version}/{collection}`: its list. */
const LIST = new RegExp(`${BASE}$`);
/**
 * A request target as it comes off the wire, for the listener in front of Koa: a GET by id without a query string, or
 * a list with any query string made of the characters a list's parameters and cursors use (anything else, such as a
 * fragment or a space, is left to Koa's parsing of the URL).
 */
const TARGET = new RegExp(`${BASE}(?:/([A-Za-z0-9_-]+)|(?:\\?([A-Za-z0-9_.~%=&+-]*))?)$`);

/**
 * What the hot path answers: a 200 with the route's JSON text and the ETag the route sends (a GET by id) or none (a
 * list); or the route's 404 for a GET by id of a document that is not there (`absent`: its Result's text).
 */
export type HotAnswer = { text: string; etag?: string } | { absent: string };

/** A read the hot path may answer: a GET by id (`id`, decoded) or a list page (`query`: the query string). */
export interface HotRead {
  tenant: string;
  /** The API version it is read through: its context's metamodel version. */
  version: ApiVersion;
  collection: string;
  id?: string;
  query?: string;
}

export interface HotReadOptions {
  /** The request's GraphQL context, the one its route will use too. */
  contextOf(ctx: KoaContext): Context;
  /**
   * Admits the caller as a reader of the tenant, by the rule the GraphQL fields of these reads apply
   * (`@Authorized('reader')`: the auth checker itself), and answers the tenant; throws (401/403/404) otherwise.
   */
  admitReader(context: Context, tenant: string): Promise<Tenant>;
  /** Whether the listener in front of Koa (`answerHot`) looked at this request already and left it to the route. */
  triedBefore?(ctx: KoaContext): boolean;
}

/** The id of a GET by id, decoded; undefined when it is no identifier (the route refuses it). */
function idOf(segment: string): string | undefined {
  const id = decodeBase64Url(segment);
  return id === undefined || id.includes('\u0000') ? undefined : id;
}

/**
 * The hot read a raw request asks for, from its method and URL alone (no parsing beyond one regular expression):
 * what the listener in front of Koa may answer. Undefined for everything else.
 */
/** Whether a list's query string asks for semantic equivalence (`semanticIdMatching` other than `exact`: docs/semantic-connector.md). */
function byEquivalence(query: string): boolean {
  if (!query.includes('semanticIdMatching')) return false;
  return new URLSearchParams(query).getAll('semanticIdMatching').some((value) => value !== 'exact');
}

export function hotReadOf(req: IncomingMessage): HotRead | undefined {
  if (req.method !== 'GET') return undefined;
  const match = TARGET.exec(req.url ?? '');
  if (!match) return undefined;
  const version = match[2] as ApiVersion;
  if (match[4] === undefined) return { tenant: match[1], version, collection: match[3], query: match[5] ?? '' };
  const id = idOf(match[4]);
  return id === undefined ? undefined : { tenant: match[1], version, collection: match[3], id };
}

/** A list answer is kept per API version: a version may answer the same page with other bytes (its metamodel). */
const listKey = (version: ApiVersion, query: string) => `${version} ${query}`;

/**
 * Answers a hot read for a caller admitted as the tenant's reader: a GET by id from the read cache, else in one
 * statement from the database (a document that is not there: the route's 404); a list page filled before; or undefined
 * (a list not cached, a document to be shaped, a refusal, anything that went wrong), which leaves the request to its
 * route. Throws nothing.
 */
export async function answerHot(read: HotRead, context: Context, admitReader: HotReadOptions['admitReader']): Promise<HotAnswer | undefined> {
  try {
    const tenant = await admitReader(context, read.tenant);
    if (read.id !== undefined) return await READS[read.collection](context.services, tenant, read.id, context.aasVersion);
    const text = await LISTS[read.collection](context.services, tenant)?.get(listKey(read.version, read.query ?? ''));
    return text === undefined ? undefined : { text };
  } catch {
    return undefined;
  }
}

/**
 * Hot reads (issue 13), answered from the read cache past the router and the GraphQL execution of the route:
 * - `GET {tenant_url}/api/{v3.0|v3.1}/shells/{id}`, `/submodels/{id}` and `/concept-descriptions/{id}` without query
 *   parameters;
 * - the lists `GET /shells`, `/submodels` and `/concept-descriptions`, whatever their query string: the route's
 *   whole 200 answer is kept under that query string, and dropped when any identifiable of the collection in the
 *   tenant is written (so as fresh as a GET by id). Not a list filtered by semantic equivalence, which depends on
 *   other data too.
 *
 * It answers only what the route would answer with the same bytes and headers: a 200 of a cached text for a caller
 * admitted by the same rule. Everything else goes on to the route, as before: a refusal (whose Result the route
 * builds; the request's one context is shared, so its token is verified once), a miss
 * (which the route reads and caches), query parameters of a GET by id, a malformed id, another path, tenants of a
 * host (`TENANT_HOST_SUFFIX`).
 *
 * Most hits never reach this middleware: the listener in front of Koa (app.ts, with `hotReadOf` and `answerHot`)
 * answers them first. What it leaves here is what it did not look at (a URL it does not parse, CORS requests), and
 * list misses, which this middleware fills from the route's answer.
 */
export function hotReads(options: HotReadOptions): Middleware {
  const contextOf = (ctx: KoaContext, match: RegExpExecArray): Context => {
    ctx.state.tenant = match[1];
    // The version the route sets again: the context made here is the one it runs with.
    enterVersion(ctx.state, match[2] as ApiVersion);
    return options.contextOf(ctx);
  };

  const item = async (ctx: KoaContext, next: Next, match: RegExpExecArray) => {
    const id = idOf(match[4]);
    if (id === undefined) return next();
    const answer = await answerHot({ tenant: match[1], version: match[2] as ApiVersion, collection: match[3], id }, contextOf(ctx, match), options.admitReader);
    if (!answer) return next();
    if ('absent' in answer) throw new FacadeError(404, answer.absent);
    ctx.status = 200;
    ctx.set('ETag', answer.etag!);
    ctx.type = 'application/json';
    ctx.body = answer.text;
  };

  const list = async (ctx: KoaContext, next: Next, match: RegExpExecArray, tried: boolean) => {
    const query = ctx.querystring;
    // An answer by semantic equivalence depends on more than the collection (equivalence sets, isCaseOf, dictionaries):
    // the route answers it every time, and it is never kept.
    if (byEquivalence(query)) return next();
    const context = contextOf(ctx, match);
    const hit = tried ? undefined : await answerHot({ tenant: match[1], version: match[2] as ApiVersion, collection: match[3], query }, context, options.admitReader);
    if (hit && 'text' in hit) {
      ctx.status = 200;
      ctx.type = 'application/json';
      ctx.body = hit.text;
      return;
    }
    let answers: ListAnswers | undefined;
    try {
      answers = LISTS[match[3]](context.services, await options.admitReader(context, match[1]));
    } catch {
      answers = undefined;
    }
    if (!answers) return next();
    const token = answers.token();
    await next();
    const body: unknown = ctx.body;
    if (ctx.status !== 200 || body === null || typeof body !== 'object' && typeof body !== 'string') return;
    // A page of V3.1 content seen through V3.0 is not kept: a hit would lose the header that says so.
    if (ctx.response.get(MAPPED_HEADER)) return;
    if (typeof body === 'object' && Object.getPrototypeOf(body) !== Object.prototype) return;
    // Serialized here once (Koa would do it as it sends), so what is kept is what is sent.
    const answer = typeof body === 'string' ? body : JSON.stringify(body);
    if (typeof body !== 'string') {
      ctx.type = 'application/json';
      ctx.body = answer;
    }
    answers.fill(listKey(match[2] as ApiVersion, query), token, answer);
  };

  return async (ctx, next) => {
    if (ctx.method !== 'GET') return next();
    const tried = options.triedBefore?.(ctx) ?? false;
    const one = ctx.querystring ? null : ITEM.exec(ctx.path);
    if (one) return tried ? next() : item(ctx, next, one);
    const all = LIST.exec(ctx.path);
    return all ? list(ctx, next, all, tried) : next();
  };
}
