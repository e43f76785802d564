import Router from '@koa/router';
import type { Middleware } from 'koa';

/** `/api/vX.Y` before a `/`: every route of the tenant API names what it serves in the segment after it. */
const API_VERSION_PART = /\/api\/v\d+\.\d+(?=\/)/gi;

/**
 * A router's `routes()` that tests a request against the routes of its method and API segment only. @koa/router
 * tests every route's pattern against every request (one regular expression each, ~150 in the tenant API), which
 * cost GET by id more CPU than anything else it does on a cache hit. The router keeps every route as registered
 * (the OpenAPI documents and `allowedMethods` read it); beside it, one small router per method and segment holds the
 * same routes (the same middleware, in the same order), and a request goes to its group when the group has a route
 * for it, else to the whole router, so the answer is the whole router's in every case:
 * - a route's segment is the one after the `/api/vX.Y/` of its pattern, a request's the one after the `/api/vX.Y/`
 *   of its path. A path can match a route only where both have that part at the same place, so when the path has
 *   it once (names of tenants and instances have no dots), every route it matches is in its group;
 * - a path with none or several, a method or segment no group has, or no match in the group (a 404 or 405 to be),
 *   goes to the whole router.
 * A router holding a route without a segment or a middleware layer (`router.use`) is not split.
 */
export function routesBySegment(router: Router): Middleware {
  const whole = router.routes() as unknown as Middleware;
  const groups = new Map<string, Router>();
  for (const layer of router.stack) {
    const segment = typeof layer.path === 'string' ? segmentOf(layer.path) : undefined;
    if (segment === undefined || layer.methods.length === 0) return whole;
    for (const method of layer.methods) {
      const key = `${method} ${segment}`;
      let group = groups.get(key);
      if (!group) groups.set(key, (group = new Router(router.opts)));
      group.register(layer.path, [method], layer.stack as Parameters<Router['register']>[2], { name: layer.name ?? undefined });
    }
  }
  const dispatch = new Map([...groups].map(([key, group]) => [key, { group, routes: group.routes() as unknown as Middleware }]));
  return (ctx, next) => {
    const segment = segmentOf(ctx.path);
    const found = segment === undefined ? undefined : dispatch.get(`${ctx.method} ${segment}`);
    if (found && found.group.match(ctx.path, ctx.method).route) return found.routes(ctx, next);
    return whole(ctx, next);
  };
}

/** The segment after the one `/api/vX.Y/` of a path or route pattern, lowercase (routes match regardless of case). */
export function segmentOf(path: string): string | undefined {
  // Found without consuming the `/` after it, so that `/api/v3.0/api/v3.0/` counts twice.
  const found = [...path.matchAll(API_VERSION_PART)];
  if (found.length !== 1) return undefined;
  const start = found[0].index + found[0][0].length + 1;
  const end = path.indexOf('/', start);
  const segment = path.slice(start, end < 0 ? undefined : end);
  return segment ? segment.toLowerCase() : undefined;
}
