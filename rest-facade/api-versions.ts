import type { Middleware } from 'koa';

/**
 * The versions of the AAS API a tenant serves, side by side over the same data: `{tenant_url}/api/v3.0` (AAS API
 * V3.0.4, metamodel V3.0) and `{tenant_url}/api/v3.1` (AAS API V3.1.2, metamodel V3.1). The routes are the same
 * tables; what differs is the metamodel version the request's context carries (resolvers and services read and
 * write documents in it), the OpenAPI document the routes are held to, and the profiles `/description` claims.
 */
export const API_VERSIONS = ['v3.0', 'v3.1'] as const;
export type ApiVersion = (typeof API_VERSIONS)[number];

/** The version of links that name no version of their own (the entry points, the deprecated file API). */
export const API_VERSION: ApiVersion = 'v3.0';

/** The metamodel version an API version speaks. */
export type MetamodelVersion = '3.0' | '3.1';
export const METAMODEL_OF: Record<ApiVersion, MetamodelVersion> = { 'v3.0': '3.0', 'v3.1': '3.1' };

/** The response header of a V3.0 answer that holds V3.1 content mapped down (docs/aas-versions.md). */
export const MAPPED_HEADER = 'X-AAS-Version-Mapped';
export const MAPPED_DOWN = '3.1->3.0';

/** `/api/v3.0` and `/api/v3.1` in a path or route pattern: the version it addresses. */
const VERSION_IN_PATH = /\/api\/(v3\.[01])(?=\/|$)/;

/** The API version a path (or router pattern) addresses, if it is below one. */
export function apiVersionOf(path: string): ApiVersion | undefined {
  return VERSION_IN_PATH.exec(path)?.[1] as ApiVersion | undefined;
}

/**
 * The first step of every route below `/api/{version}`: the request's metamodel version, for the context its operation
 * runs with (set on a context made before routing too, by the hot reads).
 */
export function apiVersionStep(version: ApiVersion): Middleware {
  return (ctx, next) => {
    enterVersion(ctx.state, version);
    return next();
  };
}

/** Puts `version` into a request's state, and into its context when one was made already. */
export function enterVersion(state: Record<string, unknown>, version: ApiVersion): void {
  state.apiVersion = version;
  state.aasVersion = METAMODEL_OF[version];
  if (state.context) (state.context as { aasVersion: MetamodelVersion }).aasVersion = METAMODEL_OF[version];
}
