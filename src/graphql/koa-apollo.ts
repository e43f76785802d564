import { ApolloServer, HeaderMap } from '@apollo/server';
import type { Middleware, Context as KoaContext } from 'koa';
import type { Context } from './context';

/**
 * Serves Apollo Server from Koa (the community integration ships ESM only; this service is CommonJS).
 * The body must already be parsed (JSON) by the caller.
 */
export function apolloKoa(apollo: ApolloServer<Context>, contextOf: (ctx: KoaContext) => Context): Middleware {
  return async (ctx) => {
    const headers = new HeaderMap();
    for (const [name, value] of Object.entries(ctx.headers)) {
      if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
    }
    const response = await apollo.executeHTTPGraphQLRequest({
      httpGraphQLRequest: { method: ctx.method.toUpperCase(), headers, search: ctx.querystring ? `?${ctx.querystring}` : '', body: ctx.request.body },
      context: async () => contextOf(ctx),
    });
    for (const [name, value] of response.headers) ctx.set(name, value);
    ctx.status = response.status ?? 200;
    if (response.body.kind === 'complete') {
      ctx.body = response.body.string;
      return;
    }
    let text = '';
    for await (const chunk of response.body.asyncIterator) text += chunk;
    ctx.body = text;
  };
}
