import Router, { RouterContext } from '@koa/router';
import type { GraphQLSchema } from 'graphql';
import type { ManagementRouteSpec } from '../management/route';
import { DeclaredQuery, declaredQueries } from '../query-guard';
import { asyncApiDocument } from './asyncapi-document';
import { Json } from './bundle';
import { pathShape, servedRoutes } from './common';
import { managementDocument } from './management-document';
import { instanceDocument, tenantDocument } from './tenant-document';

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
  /**
   * `/api/v3.0`, `/api/v3.1`: the AAS API's routes are below `/tenants/:tenant{tenantBase}` (and host-based,
   * `{tenantBase}`), one document for each, the routes outside every base (the platform's own) in each of them.
   */
  tenantBases: readonly string[];
  manageUrl: string;
  /** `{tenant_url}` of a tenant. */
  tenantUrlOf(tenant: string): string;
  tenantHostSuffix?: string;
  /** The GraphQL schema the routes' operations run on: the Management API's bodies and answers come from it. */
  graphqlSchema: GraphQLSchema;
  /** The MQTT broker of change events (MQTT_URL), named in the AsyncAPI document without its credentials. */
  mqttUrl?: string;
}

/** Where each tenant's copy of the document has its own URLs: the AAS API's, and the tenant's. */
const SERVER_URL = '__SERVER_URL__';
const TENANT_URL = '__TENANT_URL__';

/** A document serialized once, with the places where each copy has its own URLs (`urls` gives them). */
function template(doc: Json): (urls: Record<string, string>) => string {
  const parts = JSON.stringify({ ...doc, servers: [{ url: SERVER_URL }] }).split(/"(__SERVER_URL__|__TENANT_URL__)"/);
  return (urls) => parts.map((part, i) => (i % 2 ? JSON.stringify(urls[part]) : part)).join('');
}

export interface OpenApi {
  /** Serves the documents. */
  router: Router;
  /**
   * The query parameters the documents declare for a route of the described routers, by method and router path
   * (`/tenants/:tenant/api/v3.0/shells`, its host-based twin `/api/v3.0/shells`, `/api/v1/organizations`).
   */
  declaredQuery(method: string, path: string): DeclaredQuery | undefined;
}

/**
 * `GET {manage_url}/api/v1/openapi.json` and `GET {tenant_url}/api/{version}/openapi.json`: the OpenAPI 3.1
 * documents of the Management API and of a tenant's AAS API in each version (V3.0.4 at `/api/v3.0`, V3.1.2 at
 * `/api/v3.1`), built once at start-up from what the routers serve. They describe and hold no data, so they are
 * served without a token, for any tenant name (which reveals nothing about which tenants exist). Beside the tenant's:
 * `{tenant_url}/api/{version}/asyncapi.json`, the AsyncAPI 3.0 document of its change events. With the router: the
 * query parameters each described route's operation declares, which the routes are held to (query-guard.ts).
 */
export function createOpenApiRouter(options: OpenApiOptions): OpenApi {
  const managementDoc = managementDocument(servedRoutes(options.managementRouter), options.managementRoutes, options.manageUrl, options.managementBase, options.graphqlSchema);
  const management = JSON.stringify(managementDoc);
  const tenantPrefix = '/tenants/:tenant';
  const instancePrefix = `${tenantPrefix}/:instance`;
  const served = options.tenantRouters.flatMap(servedRoutes);
  // A tenant's own routes, and those of its explicit registry instances (below `{tenant_url}/{instanceName}`).
  const below = (prefix: string, routes: typeof served) =>
    routes.filter((r) => r.path.startsWith(`${prefix}/`)).map((r) => ({ method: r.method, path: r.path.slice(prefix.length) }));
  const tenantRoutes = below(tenantPrefix, served.filter((r) => !r.path.startsWith(`${instancePrefix}/`)));
  const instanceRoutes = below(instancePrefix, served);
  // A version's document holds its own routes and those below no version (the platform's own services).
  const inBase = (base: string, path: string) => path.startsWith(`${base}/`);
  const ofVersion = (base: string, routes: typeof tenantRoutes) => routes.filter((r) => inBase(base, r.path) || !options.tenantBases.some((b) => inBase(b, r.path)));
  const broker = options.mqttUrl ? new URL(options.mqttUrl) : undefined;
  if (broker) broker.username = broker.password = '';
  const asyncApiText = (tenant: string) => JSON.stringify(asyncApiDocument({ tenant, tenantUrl: options.tenantUrlOf(tenant), mqttUrl: broker?.toString() }));
  const router = new Router();
  const send = (ctx: RouterContext, body: string) => {
    ctx.type = 'application/json';
    ctx.set('Cache-Control', 'no-cache');
    ctx.body = body;
  };
  router.get(`${options.managementBase}/openapi.json`, (ctx) => send(ctx, management));
  const suffix = options.tenantHostSuffix ? `.${options.tenantHostSuffix.toLowerCase()}` : undefined;
  /** The tenant a host names (`{tenant}.{TENANT_HOST_SUFFIX}`), or undefined. */
  const hostTenant = (ctx: RouterContext) => {
    const host = ctx.hostname.toLowerCase();
    return suffix && host.endsWith(suffix) && host.length > suffix.length ? host.slice(0, -suffix.length) : undefined;
  };
  // The query parameters of the documents' paths: the Management API's in full, a tenant's (and an instance's) below
  // the tenant URL, each version's with its base (the platform's own paths, in every document, are one and the same).
  const declared = { management: declaredQueries(managementDoc), tenant: new Map<string, DeclaredQuery>(), instance: new Map<string, DeclaredQuery>() };
  for (const base of options.tenantBases) {
    const docOptions = { manageUrl: options.manageUrl, apiBase: base, tenantUrl: TENANT_URL };
    const tenantDoc = tenantDocument(ofVersion(base, tenantRoutes), docOptions);
    const instanceDoc = instanceDocument(instanceRoutes.filter((r) => inBase(base, r.path)), docOptions);
    for (const [key, value] of declaredQueries(tenantDoc, base)) declared.tenant.set(key, value);
    for (const [key, value] of declaredQueries(instanceDoc, base)) declared.instance.set(key, value);
    const tenantTemplate = template(tenantDoc);
    const instanceTemplate = template(instanceDoc);
    const tenantText = (tenant: string) => tenantTemplate({ [SERVER_URL]: `${options.tenantUrlOf(tenant)}${base}`, [TENANT_URL]: options.tenantUrlOf(tenant) });
    // Any instance name gets the document (as any tenant name does): it reveals nothing about which exist.
    const instanceText = (tenant: string, instance: string) => instanceTemplate({ [SERVER_URL]: `${options.tenantUrlOf(tenant)}/${instance}${base}`, [TENANT_URL]: options.tenantUrlOf(tenant) });
    router.get(`${tenantPrefix}${base}/openapi.json`, (ctx) => send(ctx, tenantText(ctx.params.tenant)));
    router.get(`${tenantPrefix}${base}/asyncapi.json`, (ctx) => send(ctx, asyncApiText(ctx.params.tenant)));
    router.get(`${instancePrefix}${base}/openapi.json`, (ctx) => send(ctx, instanceText(ctx.params.tenant, ctx.params.instance)));
    if (suffix) {
      router.get(`${base}/openapi.json`, (ctx, next) => {
        const tenant = hostTenant(ctx);
        return tenant ? send(ctx, tenantText(tenant)) : next();
      });
      router.get(`${base}/asyncapi.json`, (ctx, next) => {
        const tenant = hostTenant(ctx);
        return tenant ? send(ctx, asyncApiText(tenant)) : next();
      });
      router.get(`/:instance${base}/openapi.json`, (ctx, next) => {
        const tenant = hostTenant(ctx);
        return tenant ? send(ctx, instanceText(tenant, ctx.params.instance)) : next();
      });
    }
  }
  const hostInstance = new RegExp(`^/:instance(?=(?:${options.tenantBases.map((b) => b.replace(/\./g, '\\.')).join('|')})/)`);
  const declaredQuery = (method: string, path: string): DeclaredQuery | undefined => {
    const key = (rest: string) => `${method} ${pathShape(rest)}`;
    if (path.startsWith(`${instancePrefix}/`)) return declared.instance.get(key(path.slice(instancePrefix.length)));
    if (path.startsWith(`${tenantPrefix}/`)) return declared.tenant.get(key(path.slice(tenantPrefix.length)));
    // Host-based routes: the tenant's, an instance's (`/:instance/api/v3.x/...`), or the Management API's.
    if (hostInstance.test(path)) return declared.instance.get(key(path.replace(hostInstance, '')));
    return declared.management.get(key(path)) ?? declared.tenant.get(key(path));
  };
  return { router, declaredQuery };
}
