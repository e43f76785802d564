import type Router from '@koa/router';
import type { Middleware } from 'koa';
import { isStandardBase64Text } from '../src/common/base64url';
import { FacadeError } from './facade-error';
import { IDENTIFIER_PARAMETERS, standardBase64Message } from './params';

/** A route's pattern with its identifier parameters free to span `/`, and those parameters' names in group order. */
interface SpanningRoute {
  pattern: RegExp;
  identifiers: string[];
}

/**
 * The fallback of the routers: a request no route took, whose path a route would take if an identifier in it
 * were base64url instead of standard base64 (`/` in it splits the segment, so no route matches), answers 400
 * saying so instead of 404 "No route". (`+` and `=` do not split a segment: such a request reaches its route,
 * whose identifier parameter says the same.) Only on requests nothing matched, so it costs routed ones nothing.
 */
export function identifierFallback(routers: Router[]): Middleware {
  const routes: SpanningRoute[] = [];
  for (const router of routers) {
    for (const layer of router.stack) {
      if (typeof layer.path !== 'string' || ![...layer.path.matchAll(/:(\w+)/g)].some(([, name]) => IDENTIFIER_PARAMETERS.has(name))) continue;
      const identifiers: string[] = [];
      const source = layer.path
        .split(/(:\w+)/)
        .map((part) => {
          if (!part.startsWith(':')) return part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
          if (!IDENTIFIER_PARAMETERS.has(part.slice(1))) return '[^/]+';
          identifiers.push(part.slice(1));
          return '([A-Za-z0-9+/=]+)';
        })
        .join('');
      // As the routers match: regardless of case, with or without a trailing slash.
      routes.push({ pattern: new RegExp(`^${source}/?$`, 'i'), identifiers });
    }
  }
  return async (ctx, next) => {
    await next();
    if (ctx.status !== 404 || ctx.body !== undefined) return;
    for (const { pattern, identifiers } of routes) {
      const match = pattern.exec(ctx.path);
      const at = match ? identifiers.findIndex((_, i) => match[i + 1].includes('/') && isStandardBase64Text(match[i + 1])) : -1;
      if (at >= 0) throw new FacadeError(400, standardBase64Message(identifiers[at]));
    }
  };
}
