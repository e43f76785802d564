import Router from '@koa/router';
import { GraphQLSchema } from 'graphql';
import type { Context as KoaContext, Middleware } from 'koa';
import type { Context } from '../src/graphql/context';
import { aasRepositoryRoutes } from './aas-repository';
import { implicitRegistryRoutes, instanceRoutes } from './registry';
import { conceptDescriptionRoutes } from './concept-description-repository';
import { queryRoutes } from './query';
import { submodelRepositoryRoutes } from './submodel-repository';
import { searchRoutes } from './search';
import { OperationExecutor, PreparedOperation } from './executor';
import { FacadeError } from './facade-error';
import { Query } from './params';
import { jsonBody, tenantFromHost, tenantFromPath } from './request';
import { RouteSpec } from './route';
import { Admission, admitCaller, admitToTenant, takeWorkShare } from './admission';
import { aasxImportHandlers } from './aasx-import';
import { attachmentRoutes } from './attachments';
import { packageRoutes } from './packages';
import { pushTargetRoutes } from './push-targets';
import { DCC_CONVERSIONS_PATH, dccConversionHandler } from './dcc';
import { dictionaryUploadHandler, semanticRoutes } from './semantics';
import { serializationHandler } from './serialization';
import { TenantAccess } from './streamed';
import { API_VERSION, API_VERSIONS, ApiVersion, MAPPED_DOWN, MAPPED_HEADER, apiVersionStep } from './api-versions';
import { stringifyJsonInSlices } from '../src/common/json-slices';

export { API_VERSION };

export interface TenantApiOptions {
  schema: GraphQLSchema;
  /** The GraphQL context for this request (principal, services, logger). */
  contextOf(ctx: KoaContext): Context;
  /** Base URL of a tenant's API in a version, `{tenant_url}/api/v3.0` or `{tenant_url}/api/v3.1`. */
  apiUrlOf(tenant: string, version: ApiVersion): string;
  /** Who may send a body and run expensive work, and what a body may cost (admission.ts). */
  admission: Admission;
  /** Largest upload (thumbnails, attachments): FILE_UPLOAD_LIMIT. */
  uploadLimitBytes: number;
  /** When set, `{tenant}.{suffix}` hosts serve the tenant API at `/api/v3.0` and `/api/v3.1`. */
  tenantHostSuffix?: string;
}

/**
 * The AAS API of every tenant, in each version (api-versions.ts: `v3.0` and `v3.1`), at
 * `/tenants/{tenant}/api/{version}` and, host-based, at `/api/{version}` on `{tenant}.{TENANT_HOST_SUFFIX}`, and that
 * of its explicit registry instances, at `/tenants/{tenant}/{instanceName}/api/{version}` (host-based
 * `/{instanceName}/api/{version}`). Both versions run the same route tables over the same data; each route's first
 * step puts its version into the request (the metamodel version of its context). Each route runs one GraphQL
 * operation in-process, compiled at start-up. The instance routes are registered last; their first segment is a
 * parameter, but no fixed path of the tenant API has the shape `/{x}/api/v3.x/...` (`sphere` serves v1.0), and
 * the fixed first segments are reserved names no instance can take.
 */
export function createTenantApiRouter(options: TenantApiOptions): Router {
  const executor = new OperationExecutor(options.schema);
  const router = new Router();
  const { admission } = options;
  const shareOfWork = takeWorkShare(admission);
  // Streamed routes admit the caller themselves too (streamed.ts); this refuses before any work or body.
  const reader = [admitToTenant('reader', admission), shareOfWork];
  const contributor = [admitToTenant('contributor', admission), shareOfWork];
  // Each base: its path, the step that finds its tenant (after the one that sets its version), its API version.
  const bases: Base[] = [];
  const instanceBases: Base[] = [];
  const fromHost = options.tenantHostSuffix ? tenantFromHost(`.${options.tenantHostSuffix.toLowerCase()}`) : undefined;
  for (const version of API_VERSIONS) {
    const step = apiVersionStep(version);
    bases.push([`/tenants/:tenant/api/${version}`, chain(step, tenantFromPath), version]);
    if (fromHost) bases.push([`/api/${version}`, chain(step, fromHost), version]);
    instanceBases.push([`/tenants/:tenant/:instance/api/${version}`, chain(step, tenantFromPath), version]);
    if (fromHost) instanceBases.push([`/:instance/api/${version}`, chain(step, fromHost), version]);
  }
  const mount = (specs: RouteSpec[], specBases: Base[]) => {
    for (const spec of specs) {
      const operation = executor.prepare(spec.operation);
      // One rule for every route that reads a body or runs expensive work: the caller is admitted, expensive work
      // takes its share, and only then is a body read. (A route without either has its operation admit the caller.)
      const expensive = operation.demands.some((d) => d.expensive);
      const steps: Middleware[] = spec.body || expensive ? [admitCaller(operation.demands, admission)] : [];
      if (expensive) steps.push(shareOfWork);
      if (spec.body) steps.push(jsonBody(spec.largeBody ? admission.documentBody : admission.requestBody, spec.body !== 'any'));
      const method = spec.method.toLowerCase() as 'get' | 'post' | 'put' | 'patch' | 'delete';
      for (const [base, tenant, version] of specBases) router[method](base + spec.path, tenant, ...steps, routeHandler(inVersion(spec, version), operation, executor, options, version));
    }
  };
  mount([...aasRepositoryRoutes, ...submodelRepositoryRoutes, ...conceptDescriptionRoutes, ...queryRoutes, ...searchRoutes, ...implicitRegistryRoutes], bases);
  // Answers that are streams: admitted through the same policy, then read from the services (streamed.ts).
  const access = new TenantAccess(executor);
  const attachments = attachmentRoutes(access, options.contextOf, options.uploadLimitBytes);
  const imports = aasxImportHandlers(access, options.contextOf, options.uploadLimitBytes);
  // Serializations, imports and AASX packages are expensive work: the caller is admitted and takes a share first.
  for (const [base, tenant, version] of bases) {
    const packages = packageRoutes(access, options.contextOf, (name) => options.apiUrlOf(name, version), options.uploadLimitBytes);
    router.get(`${base}/serialization`, tenant, ...reader, serializationHandler(access, options.contextOf, version));
    router.post(`${base}/upload`, tenant, ...contributor, imports.upload);
    // The AASX File Server (packages.ts).
    router.get(`${base}/packages`, tenant, packages.list);
    router.post(`${base}/packages`, tenant, ...contributor, packages.create);
    router.get(`${base}/packages/:packageId`, tenant, packages.get);
    router.put(`${base}/packages/:packageId`, tenant, ...contributor, packages.put);
    router.delete(`${base}/packages/:packageId`, tenant, packages.delete);
    for (const route of attachments) {
      router.get(base + route.path, tenant, route.get);
      router.put(base + route.path, tenant, route.put);
      router.delete(base + route.path, tenant, route.delete);
    }
  }
  // The platform's own import path, beside the file repository's (`{tenant_url}/sphere/api/v1.0`).
  router.post(`/tenants/:tenant${SPHERE_API}/import`, tenantFromPath, ...contributor, imports.platform);
  router.get(`/tenants/:tenant${SPHERE_API}/import/progress/:importId`, tenantFromPath, imports.progress);
  if (options.tenantHostSuffix) {
    const fromHost = tenantFromHost(`.${options.tenantHostSuffix.toLowerCase()}`);
    router.post(`${SPHERE_API}/import`, fromHost, ...contributor, imports.platform);
    router.get(`${SPHERE_API}/import/progress/:importId`, fromHost, imports.progress);
  }
  // The sphere service's push targets (push-targets.ts).
  // The sphere service is unversioned: its routes run with the context's default (the version named nowhere).
  const sphereBases: Base[] = [[`/tenants/:tenant${SPHERE_API}`, tenantFromPath, API_VERSION]];
  if (fromHost) sphereBases.push([SPHERE_API, fromHost, API_VERSION]);
  mount(pushTargetRoutes, sphereBases);
  // DCC conversion (dcc.ts): admitted as a reader here, as a contributor by the handler for mode=store.
  const dcc = dccConversionHandler(access, options.contextOf, (tenant) => options.apiUrlOf(tenant, 'v3.0'));
  for (const [base, tenant] of sphereBases) router.post(base + DCC_CONVERSIONS_PATH, tenant, ...reader, dcc);
  // The semantic connector (semantics.ts); a dictionary arrives as an upload, expensive work admitted as the imports are.
  mount(semanticRoutes, sphereBases);
  const dictionaryUpload = dictionaryUploadHandler(access, options.contextOf, options.uploadLimitBytes, (tenant) => options.apiUrlOf(tenant, 'v3.0').replace(/\/api\/v3\.0$/, '') + SPHERE_API);
  for (const [base, tenant] of sphereBases) router.post(`${base}/semantics/dictionaries`, tenant, ...contributor, dictionaryUpload);
  // Explicit registry instances, last (see above).
  mount(instanceRoutes, instanceBases);
  return router;
}

/** The platform's own services beside the AAS API (files, import). */
export const SPHERE_API = '/sphere/api/v1.0';

/** A base of routes: its path, the steps that set its version and find its tenant, its API version. */
type Base = [string, Middleware, ApiVersion];

/** Two steps as one. */
const chain =
  (first: Middleware, second: Middleware): Middleware =>
  (ctx, next) =>
    first(ctx, () => second(ctx, next));

/**
 * Routes whose V3.1 operation takes `level` where V3.0.4's does not (the Submodel Repository of IDTA-01002 V3.1.2: a
 * PATCH of a submodel's `$metadata`; the same operations below `/shells/{id}/submodels` in the Entire API Collection,
 * but not in the AAS Repository's service file this server's document follows). The answer (204) has no hierarchy to
 * cut, so both values answer the same; through V3.0 the parameter stays refused.
 */
const V31_LEVEL_ROUTES = new Set(['PATCH /submodels/:submodelIdentifier/$metadata']);

/** A route as its version serves it: the modifiers V3.1 added. */
function inVersion(spec: RouteSpec, version: ApiVersion): RouteSpec {
  if (version === 'v3.0' || spec.modifiers?.level || !V31_LEVEL_ROUTES.has(`${spec.method} ${spec.path}`)) return spec;
  return { ...spec, modifiers: { ...spec.modifiers, level: ['deep', 'core'] } };
}

function routeHandler(spec: RouteSpec, operation: PreparedOperation, executor: OperationExecutor, options: TenantApiOptions, version: ApiVersion): Middleware {
  return async (ctx) => {
    const tenant = ctx.state.tenant as string;
    const req = {
      params: (ctx as unknown as { params: Record<string, string> }).params,
      query: ctx.query as Query,
      body: ctx.request.body,
      tenant,
      apiUrl: () => options.apiUrlOf(tenant, version),
      header: (name: string) => ctx.get(name) || undefined,
    };
    checkModifiers(spec, req.query);
    const context = options.contextOf(ctx);
    const data = await executor.run(operation, spec.variables(req), context);
    const res = spec.respond(data, req);
    ctx.status = res.status;
    if (res.headers) ctx.set(res.headers);
    // What the model layer mapped down for a V3.0 answer (V3.1 content seen through V3.0): the client can tell.
    if (context.versionMapped) ctx.set(MAPPED_HEADER, MAPPED_DOWN);
    if (res.jsonText !== undefined) {
      ctx.type = 'application/json';
      ctx.body = res.jsonText;
    } else if (typeof res.body === 'object' && res.body !== null) {
      // Written here rather than by Koa: a large answer (a submodel of many elements) in slices, between which the
      // event loop serves other requests.
      ctx.type = 'application/json';
      ctx.body = await stringifyJsonInSlices(res.body);
    }
    else if (res.body !== undefined) {
      // A value-only body may be a bare string or null; Koa would send a string as text and null as 204.
      ctx.type = 'application/json';
      ctx.body = JSON.stringify(res.body);
    }
  };
}

/** `level` and `extent` only where the route takes them, with the values it allows (AAS Part 2). */
function checkModifiers(spec: RouteSpec, query: Query): void {
  const level = query.level;
  if (level !== undefined) {
    const allowed = spec.modifiers?.level ?? [];
    if (Array.isArray(level) || !(allowed as readonly string[]).includes(level)) {
      throw new FacadeError(400, allowed.length ? `Query parameter 'level' must be one of ${allowed.join(', ')} here.` : `This route takes no 'level' parameter.`);
    }
  }
  if (query.extent !== undefined && !spec.modifiers?.extent) throw new FacadeError(400, `This route takes no 'extent' parameter.`);
}
