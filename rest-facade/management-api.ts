import Router from '@koa/router';
import { GraphQLSchema } from 'graphql';
import type { Context as KoaContext, Middleware } from 'koa';
import type { Context } from '../src/graphql/context';
import { Admission, admitCaller } from './admission';
import { OperationExecutor, PreparedOperation } from './executor';
import { managementRoutes } from './management';
import { ManagementRouteSpec } from './management/route';
import { Query } from './params';
import { jsonBody } from './request';

export const MANAGEMENT_API_BASE = '/api/v1';

export interface ManagementApiOptions {
  schema: GraphQLSchema;
  contextOf(ctx: KoaContext): Context;
  /** `{manage_url}` */
  manageUrl: string;
  /** Who may send a body, and what a body may cost (admission.ts): REQUEST_BODY_LIMIT here. */
  admission: Admission;
}

/**
 * The Management API v1 at `{manage_url}/api/v1` (and `GET /me` at the root, as the platform spec lists it).
 * Each route runs one GraphQL operation in-process, compiled at start-up, with the same auth checker as /graphql.
 */
export function createManagementApiRouter(options: ManagementApiOptions): Router {
  const executor = new OperationExecutor(options.schema);
  const router = new Router();
  const readJson = jsonBody(options.admission.requestBody, true);
  // A route whose body is all optional fields may be called without one.
  const optionalJson: Middleware = (ctx, next) => {
    if (ctx.request.length || ctx.get('transfer-encoding')) return readJson(ctx, next);
    ctx.request.body = {};
    return next();
  };
  for (const spec of managementRoutes) {
    const operation = executor.prepare(spec.operation);
    // The caller is admitted (as far as the path tells) before a body is read (admission.ts).
    const steps: Middleware[] = [];
    if (spec.body) steps.push(admitCaller(operation.demands, options.admission));
    if (spec.body === 'optional') steps.push(optionalJson);
    else if (spec.body) steps.push(readJson);
    steps.push(routeHandler(spec, operation, executor, options));
    const method = spec.method.toLowerCase() as 'get' | 'post' | 'put' | 'patch' | 'delete';
    const paths = spec.path === '/me' ? [MANAGEMENT_API_BASE + spec.path, '/me'] : [MANAGEMENT_API_BASE + spec.path];
    for (const path of paths) router[method](path, ...steps);
  }
  return router;
}

function routeHandler(spec: ManagementRouteSpec, operation: PreparedOperation, executor: OperationExecutor, options: ManagementApiOptions): Middleware {
  const apiUrl = options.manageUrl + MANAGEMENT_API_BASE;
  return async (ctx) => {
    const req = {
      params: (ctx as unknown as { params: Record<string, string> }).params,
      query: ctx.query as Query,
      body: ctx.request.body,
      apiUrl,
      header: (name: string) => ctx.get(name) || undefined,
    };
    const data = await executor.run(operation, spec.variables(req), options.contextOf(ctx));
    const res = spec.respond(data, req);
    ctx.status = res.status;
    if (res.headers) ctx.set(res.headers);
    if (res.body !== undefined) ctx.body = res.body;
  };
}
