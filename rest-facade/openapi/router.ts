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
  /**
   * The routers serving a tenant's routes (the AAS API, the file repository): those below `/tenants/:tenant` are
   * described (their host-based twins are the same routes).
   */
  tenantRouters: Router[];
  /** `/api/v3.0`: the AAS API's routes are below `/tenants/:tenant{tenantBase}` (and host-based, `{tenantBase}`). */
  tenantBase: string;
  manageUrl: string;
  /** `{tenant_url}` of a tenant. */
  tenantUrlOf(tenant: string): string;
  /** `{tenant_url}/api/v3.0` of a tenant. */
  tenantApiUrlOf(tenant: string): string;
  tenantHostSuffix?: string;
  /** The GraphQL schema the routes' operations run on: the Management API's bodies and answers come from it. */
  graphqlSchema: GraphQLSchema;
}

/** Where each tenant's copy of the document has its own URLs: the AAS API's, and the tenant's. */
const SERVER_URL = '__SERVER_URL__';
const TENANT_URL = '__TENANT_URL__';

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
  const tenantPrefix = '/tenants/:tenant';
  const tenantRoutes = options.tenantRouters
    .flatMap(servedRoutes)
    .filter((r) => r.path.startsWith(`${tenantPrefix}/`))
    .map((r) => ({ method: r.method, path: r.path.slice(tenantPrefix.length) }));
  const template: Json = tenantDocument(tenantRoutes, { manageUrl: options.manageUrl, apiBase: options.tenantBase, tenantUrl: TENANT_URL });
  // Serialized once; each tenant's copy differs only in its URLs (the parts at odd indexes).
  const parts = JSON.stringify({ ...template, servers: [{ url: SERVER_URL }] }).split(/"(__SERVER_URL__|__TENANT_URL__)"/);
  const tenantText = (tenant: string) => {
    const urls: Record<string, string> = { [SERVER_URL]: JSON.stringify(options.tenantApiUrlOf(tenant)), [TENANT_URL]: JSON.stringify(options.tenantUrlOf(tenant)) };
    return parts.map((part, i) => (i % 2 ? urls[part] : part)).join('');
  };
  const prefix = `${tenantPrefix}${options.tenantBase}`;
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
