import Router, { RouterContext } from '@koa/router';
import type { GraphQLSchema } from 'graphql';
import type { ManagementRouteSpec } from '../management/route';
import { Json } from './bundle';
import { servedRoutes } from './common';
import { managementDocument } from './management-document';
import { tenantDocument } from './tenant-document';

export interface OpenApiOptions {
  /** The routers whose routes the documents describe, as they were registered. */
  managementRouter: Router;
  managementRoutes: readonly ManagementRouteSpec[];
  managementBase: string;
  tenantRouter: Router;
  /** `/api/v3.0`: the tenant router's routes are below `/tenants/:tenant{tenantBase}` (and host-based, `{tenantBase}`). */
  tenantBase: string;
  manageUrl: string;
  /** `{tenant_url}/api/v3.0` of a tenant. */
  tenantApiUrlOf(tenant: string): string;
  tenantHostSuffix?: string;
  /** The GraphQL schema the routes' operations run on: the Management API's bodies and answers come from it. */
  graphqlSchema: GraphQLSchema;
}

const SERVER_URL = '"__SERVER_URL__"';

/**
 * `GET {manage_url}/api/v1/openapi.json` and `GET {tenant_url}/api/v3.0/openapi.json`: the OpenAPI 3.1
 * documents of the Management API and of a tenant's AAS API, built once at start-up from what the routers
 * serve. They describe and hold no data, so they are served without a token, for any tenant name (which
 * reveals nothing about which tenants exist).
 */
export function createOpenApiRouter(options: OpenApiOptions): Router {
  const management = JSON.stringify(
    managementDocument(servedRoutes(options.managementRouter), options.managementRoutes, options.manageUrl, options.managementBase, options.graphqlSchema),
  );
  const prefix = `/tenants/:tenant${options.tenantBase}`;
  const tenantRoutes = servedRoutes(options.tenantRouter)
    .filter((r) => r.path.startsWith(`${prefix}/`))
    .map((r) => ({ method: r.method, path: r.path.slice(prefix.length) }));
  const template: Json = tenantDocument(tenantRoutes, options.manageUrl);
  // Serialized once; each tenant's copy differs only in its server URL.
  const [head, tail] = JSON.stringify({ ...template, servers: [{ url: '__SERVER_URL__' }] }).split(SERVER_URL);
  const tenantText = (tenant: string) => head + JSON.stringify(options.tenantApiUrlOf(tenant)) + tail;

  const router = new Router();
  const send = (ctx: RouterContext, body: string) => {
    ctx.type = 'application/json';
    ctx.set('Cache-Control', 'no-cache');
    ctx.body = body;
  };
  router.get(`${options.managementBase}/openapi.json`, (ctx) => send(ctx, management));
  router.get(`${prefix}/openapi.json`, (ctx) => send(ctx, tenantText(ctx.params.tenant)));
  if (options.tenantHostSuffix) {
    const suffix = `.${options.tenantHostSuffix.toLowerCase()}`;
    router.get(`${options.tenantBase}/openapi.json`, (ctx, next) => {
      const host = ctx.hostname.toLowerCase();
      if (!host.endsWith(suffix) || host.length === suffix.length) return next();
      send(ctx, tenantText(host.slice(0, -suffix.length)));
    });
  }
  return router;
}
