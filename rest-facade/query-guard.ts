import type Router from '@koa/router';
import type { Middleware } from 'koa';
import { FacadeError } from './facade-error';
import type { Json } from './openapi/bundle';
import { pathShape } from './openapi/common';

/**
 * Query parameters a route does not take are refused (400), never ignored: a misspelled filter would otherwise
 * answer everything. What a route takes is what its operation in the OpenAPI documents declares (`in: query`),
 * so the documents and the check cannot drift apart: the official operation's parameters, this server's additions
 * beside them, the platform's own operations.
 */

/** The query parameters one operation declares. */
export interface DeclaredQuery {
  /** `GET /shells`, as the document names the operation. */
  operation: string;
  names: ReadonlySet<string>;
  /** Exploded object parameters (`style: form`, `explode: true`): each property its own parameter, named by a pattern. */
  patterns: readonly RegExp[];
  /** Every parameter as the operation declares it, in its order (`attribute.{key}` for a pattern). */
  accepted: readonly string[];
}

/** The declared query of each operation of a document, by `METHOD /path/{}` (pathShape); `base` prefixes its paths. */
export function declaredQueries(doc: Json, base = ''): Map<string, DeclaredQuery> {
  const out = new Map<string, DeclaredQuery>();
  const resolve = (p: Json): Json => {
    const ref = p?.$ref as string | undefined;
    return ref?.startsWith('#/components/parameters/') ? doc.components?.parameters?.[ref.slice('#/components/parameters/'.length)] : p;
  };
  for (const [path, item] of Object.entries(doc.paths as Record<string, Json>)) {
    // A path item with servers of its own lies outside the document's server (the tenant URL's own services).
    const full = item.servers ? path : base + path;
    for (const [method, operation] of Object.entries(item as Record<string, Json>)) {
      if (method === 'servers' || method === 'parameters' || typeof operation !== 'object') continue;
      const query = [...(item.parameters ?? []), ...(operation.parameters ?? [])].map(resolve).filter((p) => p?.in === 'query');
      const names = new Set<string>();
      const patterns: RegExp[] = [];
      const accepted: string[] = [];
      for (const p of query) {
        const keys = p.schema?.type === 'object' && p.explode !== false ? (p.schema.propertyNames?.pattern as string | undefined) : undefined;
        if (keys) patterns.push(new RegExp(keys));
        else names.add(p.name as string);
        accepted.push(!keys ? p.name : keys === `^${p.name}\\..+` ? `${p.name}.{key}` : `names matching ${keys}`);
      }
      out.set(`${method.toUpperCase()} ${pathShape(full)}`, { operation: `${method.toUpperCase()} ${path}`, names, patterns, accepted });
    }
  }
  return out;
}

/**
 * The steps of a route that admit its caller before a body is read (admission.ts): the query is checked before them,
 * so an unknown parameter is a 400 whoever asks, before a token is verified or a body read (it costs nothing).
 */
export const admissionSteps = new WeakSet<Middleware>();

/** 400 for the first query parameter `declared` does not name. */
export function checkQuery(declared: DeclaredQuery, given: Iterable<string>): void {
  for (const name of given) {
    if (declared.names.has(name) || declared.patterns.some((p) => p.test(name))) continue;
    throw new FacadeError(
      400,
      declared.accepted.length
        ? `Unknown query parameter '${name}': ${declared.operation} accepts ${declared.accepted.join(', ')}.`
        : `Unknown query parameter '${name}': ${declared.operation} takes no query parameters.`,
    );
  }
}

/**
 * Puts the check in front of the handler of every route `router` registers (after what a route does first: which
 * tenant a host names, a 404 when none, the deprecation headers of a former location; before the caller is admitted
 * and a body read, else before the handler runs its operation or reads a streamed body): `declaredOf` gives the declared query of a route by method
 * and router path. A route whose operation is not documented fails the start-up: every route is described, and
 * every route is held to it.
 */
export function guardQueries(router: Router, declaredOf: (method: string, path: string) => DeclaredQuery | undefined): void {
  for (const layer of router.stack) {
    if (typeof layer.path !== 'string') continue;
    const byMethod = new Map<string, DeclaredQuery>();
    for (const method of layer.methods) {
      const declared = declaredOf(method === 'HEAD' ? 'GET' : method, layer.path);
      if (!declared) throw new Error(`No documented operation for ${method} ${layer.path}: its query parameters are unknown.`);
      byMethod.set(method, declared);
    }
    if (byMethod.size === 0) continue;
    const guard: Middleware = (ctx, next) => {
      const declared = byMethod.get(ctx.method);
      if (declared && ctx.querystring) checkQuery(declared, Object.keys(ctx.query));
      return next();
    };
    const admission = layer.stack.findIndex((step) => admissionSteps.has(step as Middleware));
    layer.stack.splice(admission >= 0 ? admission : layer.stack.length - 1, 0, guard as (typeof layer.stack)[number]);
  }
}
