import type { Middleware } from 'koa';
import { isDeepStrictEqual } from 'node:util';
import { encodeBase64Url } from '../src/common/base64url';
import { ifMatchAdmits } from '../src/common/etag';
import { apiVersionOf } from './api-versions';
import { FacadeError } from './facade-error';
import { Query, assetIdsParam, base64Param, cursorParam, enumParam, idParam, limitParam } from './params';
import { RouteRequest, RouteSpec, etagHeader, json, pagedResult } from './route';

/**
 * Registries and discovery (AAS API V3.0.4, Part 2).
 *
 * - Implicit, at `{tenant_url}/api/v3.0`: discovery (GET /lookup/shells...), the AAS registry and the submodel
 *   registry read profiles (SSP-002), derived from the tenant's shells and submodels; read-only.
 * - Explicit, at `{tenant_url}/{instanceName}/api/v3.0`: a named instance of the tenant, a discovery service
 *   (full profile SSP-001) or an AAS registry (full profile SSP-001), with data of its own.
 * - Both: `POST /lookup/shellsByAssetLink` (V3.1's SearchAllAssetAdministrationShellIdsByAssetLink).
 */

type Req = { query: Query; params: Record<string, string>; apiUrl(): string };

const paging = (req: { query: Query }) => {
  const limit = limitParam(req.query);
  return { ...(limit === undefined ? {} : { limit }), cursor: cursorParam(req.query) };
};

const ASSET_KINDS = ['Instance', 'Type', 'NotApplicable'] as const;
/** V3.1's AssetKind has `Role` too. */
const ASSET_KINDS_V31 = [...ASSET_KINDS, 'Role'] as const;

/** `assetKind` (of the request's version) and `assetType` (base64url, as the specification's AssetType parameter). */
const assetFilter = (req: { query: Query; apiUrl(): string }) => ({
  assetKind: enumParam(req.query, 'assetKind', apiVersionOf(req.apiUrl()) === 'v3.1' ? ASSET_KINDS_V31 : ASSET_KINDS) ?? null,
  assetType: base64Param(req.query, 'assetType') ?? null,
});

/**
 * A semanticId query parameter, as on `/submodels`: base64url of a Reference in JSON matches that reference,
 * base64url of anything else is the value of a semantic id key.
 */
function semanticIdParam(query: Query, name: string): { ref?: unknown; value?: string } {
  const text = base64Param(query, name);
  if (text === undefined) return {};
  try {
    const parsed = JSON.parse(text) as unknown;
    if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) return { ref: parsed };
  } catch {
    // not JSON: a key value
  }
  return { value: text };
}

const submodelFilter = (req: Req) => {
  const { ref, value } = semanticIdParam(req.query, 'semanticId');
  return { semanticId: ref ?? null, semanticIdValue: value ?? null };
};

const shellDescriptorFilter = (req: Req) => {
  const { ref, value } = semanticIdParam(req.query, 'submodelSemanticId');
  return { ...assetFilter(req), assetIds: assetIdsParam(req.query) ?? null, submodelSemanticId: ref ?? null, submodelSemanticIdValue: value ?? null };
};

const aasId = (req: Req) => idParam('aasIdentifier', req.params.aasIdentifier);
const smId = (req: Req) => idParam('submodelIdentifier', req.params.submodelIdentifier);
const ifMatch = (req: RouteRequest) => req.header('if-match') ?? null;

/** The instance name of an explicit route; `resolve()` in the core answers 404 for a name of no instance. */
const instance = (req: Req) => req.params.instance;

/** `{tenant_url}/{instanceName}/api/{version}` of a request to an instance. */
const instanceApiUrl = (req: RouteRequest) => req.apiUrl().replace(/\/api\/(v\d+\.\d+)$/, `/${req.params.instance}/api/$1`);

const ids = (page: { result: string[]; pagingMetadata: { cursor?: string | null } }) => pagedResult(page, (id: string) => id);

// --- shared by the implicit and the explicit routes: `$instance` is null for the implicit services ---

const LOOKUP = `query LookupShells($tenant: String!, $instance: String, $assetIds: [SpecificAssetIdInput!], $assetKind: AssetKind, $assetType: String, $limit: Int, $cursor: String) {
  lookupShells(tenant: $tenant, instance: $instance, assetIds: $assetIds, assetKind: $assetKind, assetType: $assetType, limit: $limit, cursor: $cursor) {
    result pagingMetadata { cursor } }
}`;

const BY_ASSET_LINK = `query LookupShellsByAssetLink($tenant: String!, $instance: String, $links: JSON!, $limit: Int, $cursor: String) {
  lookupShellsByAssetLink(tenant: $tenant, instance: $instance, assetLinks: $links, limit: $limit, cursor: $cursor) { result pagingMetadata { cursor } }
}`;

const LINKS = `query AssetLinks($tenant: String!, $instance: String, $id: String!) { assetLinks(tenant: $tenant, instance: $instance, aasId: $id) }`;

const SHELL_DESCRIPTORS = `query ShellDescriptors($tenant: String!, $instance: String, $filter: ShellDescriptorFilterInput, $limit: Int, $cursor: String) {
  shellDescriptors(tenant: $tenant, instance: $instance, filter: $filter, limit: $limit, cursor: $cursor) { result { json } pagingMetadata { cursor } }
}`;

const SHELL_DESCRIPTOR = `query ShellDescriptor($tenant: String!, $instance: String, $id: String!) {
  shellDescriptor(tenant: $tenant, instance: $instance, id: $id) { etag json }
}`;

const SUBMODEL_DESCRIPTORS = `query SubmodelDescriptors($tenant: String!, $instance: String, $aasId: String, $filter: SubmodelDescriptorFilterInput, $limit: Int, $cursor: String) {
  submodelDescriptors(tenant: $tenant, instance: $instance, aasId: $aasId, filter: $filter, limit: $limit, cursor: $cursor) { result { json } pagingMetadata { cursor } }
}`;

const SUBMODEL_DESCRIPTOR = `query SubmodelDescriptor($tenant: String!, $instance: String, $aasId: String, $id: String!) {
  submodelDescriptor(tenant: $tenant, instance: $instance, aasId: $aasId, id: $id) { etag json }
}`;

const QUERY_SHELL_DESCRIPTORS = `query QueryShellDescriptors($tenant: String!, $instance: String, $query: JSON!, $limit: Int, $cursor: String) {
  shellDescriptors(tenant: $tenant, instance: $instance, query: $query, limit: $limit, cursor: $cursor) { result { id json } pagingMetadata { cursor } }
}`;

const QUERY_SUBMODEL_DESCRIPTORS = `query QuerySubmodelDescriptors($tenant: String!, $instance: String, $query: JSON!, $limit: Int, $cursor: String) {
  submodelDescriptors(tenant: $tenant, instance: $instance, query: $query, limit: $limit, cursor: $cursor) { result { id json } pagingMetadata { cursor } }
}`;

/** Whether a query (the core has parsed it by the time an answer is written) asks for identifiers: `$select: "id"`. */
const selectsIds = (body: unknown) => typeof body === 'object' && body !== null && (body as Record<string, unknown>).$select === 'id';

/** V3.1's QueryResult: `paging_metadata` with the `resultType`, and the descriptors or, for `$select: "id"`, their ids. */
function queryResult(page: { result: { id: string; json: unknown }[]; pagingMetadata: { cursor?: string | null } }, body: unknown, objects: string) {
  const ids = selectsIds(body);
  const paged = pagedResult(page, ids ? (item: { id: string }) => item.id : json);
  return { paging_metadata: { ...paged.paging_metadata, resultType: ids ? 'Identifier' : objects }, result: paged.result };
}

/**
 * The registries' query routes of the AAS API V3.1 (AAS Registry and Submodel Registry SSP-004): the AAS Query
 * Language (`$aasdesc`, `$smdesc`) in the body, paged by limit and cursor. An instance has no submodel registry of
 * its own, but its query route searches the submodel descriptors of all its shell descriptors.
 */
function registryQueries(explicit: boolean): RouteSpec[] {
  const inst = (req: Req) => (explicit ? instance(req) : null);
  return [
    {
      method: 'POST',
      path: '/query/shell-descriptors',
      body: true,
      operation: QUERY_SHELL_DESCRIPTORS,
      variables: (req) => ({ tenant: req.tenant, instance: inst(req), query: req.body, ...paging(req) }),
      respond: (data, req) => ({ status: 200, body: queryResult(data.shellDescriptors, req.body, 'AssetAdministrationShellDescriptor') }),
    },
    {
      method: 'POST',
      path: '/query/submodel-descriptors',
      body: true,
      operation: QUERY_SUBMODEL_DESCRIPTORS,
      variables: (req) => ({ tenant: req.tenant, instance: inst(req), query: req.body, ...paging(req) }),
      respond: (data, req) => ({ status: 200, body: queryResult(data.submodelDescriptors, req.body, 'SubmodelDescriptor') }),
    },
  ];
}

/** The read routes both kinds of service share, for the implicit services (`explicit` false) or an instance. */
function discoveryReads(explicit: boolean): RouteSpec[] {
  const inst = (req: Req) => (explicit ? instance(req) : null);
  return [
    {
      method: 'GET',
      path: '/lookup/shells',
      operation: LOOKUP,
      variables: (req) => ({
        tenant: req.tenant,
        instance: inst(req),
        assetIds: assetIdsParam(req.query) ?? null,
        // On an instance they filter by the tenant's shells of the linked ids (DiscoveryService.lookup).
        ...assetFilter(req),
        ...paging(req),
      }),
      respond: (data) => ({ status: 200, body: ids(data.lookupShells) }),
    },
    {
      method: 'POST',
      path: '/lookup/shellsByAssetLink',
      body: 'any',
      operation: BY_ASSET_LINK,
      variables: (req) => ({ tenant: req.tenant, instance: inst(req), links: req.body, ...paging(req) }),
      respond: (data) => ({ status: 200, body: ids(data.lookupShellsByAssetLink) }),
    },
    {
      method: 'GET',
      path: '/lookup/shells/:aasIdentifier',
      operation: LINKS,
      variables: (req) => ({ tenant: req.tenant, instance: inst(req), id: aasId(req) }),
      respond: (data) => ({ status: 200, body: data.assetLinks }),
    },
  ];
}

function registryReads(explicit: boolean): RouteSpec[] {
  const inst = (req: Req) => (explicit ? instance(req) : null);
  return [
    {
      method: 'GET',
      path: '/shell-descriptors',
      operation: SHELL_DESCRIPTORS,
      variables: (req) => ({ tenant: req.tenant, instance: inst(req), filter: shellDescriptorFilter(req), ...paging(req) }),
      respond: (data) => ({ status: 200, body: pagedResult(data.shellDescriptors, json) }),
    },
    {
      method: 'GET',
      path: '/shell-descriptors/:aasIdentifier',
      operation: SHELL_DESCRIPTOR,
      variables: (req) => ({ tenant: req.tenant, instance: inst(req), id: aasId(req) }),
      respond: (data) => ({ status: 200, body: data.shellDescriptor.json, headers: etagHeader(data.shellDescriptor) }),
    },
    {
      method: 'GET',
      path: '/shell-descriptors/:aasIdentifier/submodel-descriptors',
      operation: SUBMODEL_DESCRIPTORS,
      variables: (req) => ({ tenant: req.tenant, instance: inst(req), aasId: aasId(req), filter: submodelFilter(req), ...paging(req) }),
      respond: (data) => ({ status: 200, body: pagedResult(data.submodelDescriptors, json) }),
    },
    {
      method: 'GET',
      path: '/shell-descriptors/:aasIdentifier/submodel-descriptors/:submodelIdentifier',
      operation: SUBMODEL_DESCRIPTOR,
      variables: (req) => ({ tenant: req.tenant, instance: inst(req), aasId: aasId(req), id: smId(req) }),
      respond: (data) => ({ status: 200, body: data.submodelDescriptor.json, headers: etagHeader(data.submodelDescriptor) }),
    },
  ];
}

/** A JSON value without its `null` members (clients such as the BaSyx AAS Web UI send `null` for "not set"). */
function withoutNulls(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutNulls);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [key, member] of Object.entries(value)) if (member !== null && member !== undefined) out[key] = withoutNulls(member);
  return out;
}

/**
 * A PUT on the implicit registries, which derive every descriptor from the repository and store none: a body that
 * states what is derived changes nothing and is 204 (a client that keeps a registry in step after writing the
 * shell, as the BaSyx AAS Web UI's "Edit AAS" does, gets what it expects); one that differs is 409, naming the
 * first member that differs and where a descriptor of one's own can live; a stale If-Match is 412. Members the body leaves out or sets to
 * `null` are not compared (the registry goes on deriving them); `specificAssetId` is read as `specificAssetIds`
 * (the BaSyx AAS Web UI's spelling).
 */
export function unchangedDescriptor(body: unknown, found: { json: unknown; etag?: string | null }, what: 'shell' | 'submodel', ifMatch: string | null): void {
  // As on every other write: a stale If-Match is 412, whatever the body.
  if (ifMatch !== null && !ifMatchAdmits(ifMatch, found.etag ?? null)) {
    throw new FacadeError(412, `The ${what} descriptor has changed: its entity tag is ${found.etag}, If-Match asked for ${ifMatch}.`);
  }
  const derived = found.json;
  const stated = withoutNulls(body) as Record<string, unknown>;
  const current = withoutNulls(derived) as Record<string, unknown>;
  if ('specificAssetId' in stated && what === 'shell' && !('specificAssetIds' in stated)) {
    stated.specificAssetIds = stated.specificAssetId;
    delete stated.specificAssetId;
  }
  for (const [key, value] of Object.entries(stated)) {
    if (isDeepStrictEqual(value, current[key])) continue;
    const now = current[key] === undefined ? 'not part of the derived descriptor' : `derived: ${JSON.stringify(current[key]).slice(0, 120)}`;
    throw new FacadeError(
      409,
      `The tenant's implicit ${what === 'shell' ? 'AAS' : 'submodel'} registry derives this descriptor from the ${what} and stores no other: ` +
        'keep descriptors of your own in an explicit AAS registry instance at {tenant_url}/{instanceName}/api/v3.0/shell-descriptors, ' +
        `or change the ${what} (/api/v3.0/${what === 'shell' ? 'shells' : 'submodels'}). '${key}' differs (${now}).`,
    );
  }
}

/** The tenant's implicit services, at `{tenant_url}/api/v3.0`: read-only (a PUT of what is derived is 204). */
export const implicitRegistryRoutes: RouteSpec[] = [
  ...discoveryReads(false),
  ...registryReads(false),
  ...registryQueries(false),
  // PUTs of what is derived (unchangedDescriptor): 204, nothing changes; any other write is 405 (registryRefusals).
  {
    method: 'PUT',
    path: '/shell-descriptors/:aasIdentifier',
    body: true,
    operation: SHELL_DESCRIPTOR,
    variables: (req) => ({ tenant: req.tenant, instance: null, id: aasId(req) }),
    respond: (data, req) => {
      unchangedDescriptor(req.body, data.shellDescriptor, 'shell', ifMatch(req));
      return { status: 204, headers: etagHeader(data.shellDescriptor) };
    },
  },
  {
    method: 'PUT',
    path: '/shell-descriptors/:aasIdentifier/submodel-descriptors/:submodelIdentifier',
    body: true,
    operation: SUBMODEL_DESCRIPTOR,
    variables: (req) => ({ tenant: req.tenant, instance: null, aasId: aasId(req), id: smId(req) }),
    respond: (data, req) => {
      unchangedDescriptor(req.body, data.submodelDescriptor, 'submodel', ifMatch(req));
      return { status: 204, headers: etagHeader(data.submodelDescriptor) };
    },
  },
  {
    method: 'PUT',
    path: '/submodel-descriptors/:submodelIdentifier',
    body: true,
    operation: SUBMODEL_DESCRIPTOR,
    variables: (req) => ({ tenant: req.tenant, instance: null, aasId: null, id: smId(req) }),
    respond: (data, req) => {
      unchangedDescriptor(req.body, data.submodelDescriptor, 'submodel', ifMatch(req));
      return { status: 204, headers: etagHeader(data.submodelDescriptor) };
    },
  },
  {
    method: 'GET',
    path: '/submodel-descriptors',
    operation: SUBMODEL_DESCRIPTORS,
    variables: (req) => ({ tenant: req.tenant, instance: null, aasId: null, filter: submodelFilter(req), ...paging(req) }),
    respond: (data) => ({ status: 200, body: pagedResult(data.submodelDescriptors, json) }),
  },
  {
    method: 'GET',
    path: '/submodel-descriptors/:submodelIdentifier',
    operation: SUBMODEL_DESCRIPTOR,
    variables: (req) => ({ tenant: req.tenant, instance: null, aasId: null, id: smId(req) }),
    respond: (data) => ({ status: 200, body: data.submodelDescriptor.json, headers: etagHeader(data.submodelDescriptor) }),
  },
];

/**
 * The routes of explicit instances, at `{tenant_url}/{instanceName}/api/v3.0`: those of a discovery service and
 * those of an AAS registry side by side; an instance of the other kind (or of no instance) answers 404 from the
 * core, saying which.
 */
export const instanceRoutes: RouteSpec[] = [
  {
    method: 'GET',
    path: '/description',
    operation: `query InstanceDescription($tenant: String!, $instance: String!) { serviceDescription(tenant: $tenant, instance: $instance) { profiles } }`,
    variables: (req) => ({ tenant: req.tenant, instance: instance(req) }),
    respond: (data) => ({ status: 200, body: data.serviceDescription }),
  },
  ...discoveryReads(true),
  {
    method: 'POST',
    path: '/lookup/shells/:aasIdentifier',
    body: 'any',
    operation: `mutation PostAssetLinks($tenant: String!, $instance: String!, $id: String!, $links: JSON!) {
      createAssetLinks(tenant: $tenant, instance: $instance, aasId: $id, links: $links)
    }`,
    variables: (req) => ({ tenant: req.tenant, instance: instance(req), id: aasId(req), links: req.body }),
    respond: (data) => ({ status: 201, body: data.createAssetLinks }),
  },
  {
    method: 'DELETE',
    path: '/lookup/shells/:aasIdentifier',
    operation: `mutation DeleteAssetLinks($tenant: String!, $instance: String!, $id: String!) { deleteAssetLinks(tenant: $tenant, instance: $instance, aasId: $id) }`,
    variables: (req) => ({ tenant: req.tenant, instance: instance(req), id: aasId(req) }),
    respond: () => ({ status: 204 }),
  },
  ...registryReads(true),
  ...registryQueries(true),
  {
    method: 'POST',
    path: '/shell-descriptors',
    body: true,
    operation: `mutation PostShellDescriptor($tenant: String!, $instance: String!, $descriptor: JSONObject!) {
      createShellDescriptor(tenant: $tenant, instance: $instance, descriptor: $descriptor) { id etag json }
    }`,
    variables: (req) => ({ tenant: req.tenant, instance: instance(req), descriptor: req.body }),
    respond: (data, req) => ({
      status: 201,
      body: data.createShellDescriptor.json,
      headers: { Location: `${instanceApiUrl(req)}/shell-descriptors/${encodeBase64Url(data.createShellDescriptor.id)}`, ...etagHeader(data.createShellDescriptor) },
    }),
  },
  {
    method: 'PUT',
    path: '/shell-descriptors/:aasIdentifier',
    body: true,
    operation: `mutation PutShellDescriptor($tenant: String!, $instance: String!, $id: String!, $descriptor: JSONObject!, $ifMatch: String) {
      replaceShellDescriptor(tenant: $tenant, instance: $instance, id: $id, descriptor: $descriptor, ifMatch: $ifMatch) { etag }
    }`,
    variables: (req) => ({ tenant: req.tenant, instance: instance(req), id: aasId(req), descriptor: req.body, ifMatch: ifMatch(req) }),
    respond: (data) => ({ status: 204, headers: etagHeader(data.replaceShellDescriptor) }),
  },
  {
    method: 'DELETE',
    path: '/shell-descriptors/:aasIdentifier',
    operation: `mutation DeleteShellDescriptor($tenant: String!, $instance: String!, $id: String!, $ifMatch: String) {
      deleteShellDescriptor(tenant: $tenant, instance: $instance, id: $id, ifMatch: $ifMatch)
    }`,
    variables: (req) => ({ tenant: req.tenant, instance: instance(req), id: aasId(req), ifMatch: ifMatch(req) }),
    respond: () => ({ status: 204 }),
  },
  {
    method: 'POST',
    path: '/shell-descriptors/:aasIdentifier/submodel-descriptors',
    body: true,
    operation: `mutation PostSubmodelDescriptor($tenant: String!, $instance: String!, $aasId: String!, $descriptor: JSONObject!, $ifMatch: String) {
      createSubmodelDescriptor(tenant: $tenant, instance: $instance, aasId: $aasId, descriptor: $descriptor, ifMatch: $ifMatch) { id etag json }
    }`,
    variables: (req) => ({ tenant: req.tenant, instance: instance(req), aasId: aasId(req), descriptor: req.body, ifMatch: ifMatch(req) }),
    respond: (data, req) => ({
      status: 201,
      body: data.createSubmodelDescriptor.json,
      headers: {
        Location: `${instanceApiUrl(req)}/shell-descriptors/${encodeBase64Url(aasId(req))}/submodel-descriptors/${encodeBase64Url(data.createSubmodelDescriptor.id)}`,
        ...etagHeader(data.createSubmodelDescriptor),
      },
    }),
  },
  {
    method: 'PUT',
    path: '/shell-descriptors/:aasIdentifier/submodel-descriptors/:submodelIdentifier',
    body: true,
    operation: `mutation PutSubmodelDescriptor($tenant: String!, $instance: String!, $aasId: String!, $id: String!, $descriptor: JSONObject!, $ifMatch: String) {
      replaceSubmodelDescriptor(tenant: $tenant, instance: $instance, aasId: $aasId, id: $id, descriptor: $descriptor, ifMatch: $ifMatch) { etag }
    }`,
    variables: (req) => ({ tenant: req.tenant, instance: instance(req), aasId: aasId(req), id: smId(req), descriptor: req.body, ifMatch: ifMatch(req) }),
    respond: (data) => ({ status: 204, headers: etagHeader(data.replaceSubmodelDescriptor) }),
  },
  {
    method: 'DELETE',
    path: '/shell-descriptors/:aasIdentifier/submodel-descriptors/:submodelIdentifier',
    operation: `mutation DeleteSubmodelDescriptor($tenant: String!, $instance: String!, $aasId: String!, $id: String!, $ifMatch: String) {
      deleteSubmodelDescriptor(tenant: $tenant, instance: $instance, aasId: $aasId, id: $id, ifMatch: $ifMatch)
    }`,
    variables: (req) => ({ tenant: req.tenant, instance: instance(req), aasId: aasId(req), id: smId(req), ifMatch: ifMatch(req) }),
    respond: () => ({ status: 204 }),
  },
];

/** The paths of the implicit services below `{tenant_url}/api/v3.0` that a write could aim at. */
const IMPLICIT_PATH = /^\/(?:lookup\/shells(?:\/[^/]+)?|shell-descriptors(?:\/[^/]+(?:\/submodel-descriptors(?:\/[^/]+)?)?)?|submodel-descriptors(?:\/[^/]+)?)$/;
const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const DESCRIPTOR_ITEM = /^\/(?:shell-descriptors\/[^/]+(?:\/submodel-descriptors\/[^/]+)?|submodel-descriptors\/[^/]+)$/;

/**
 * What the routers do not serve but answer with a Result that says why, mounted after the tenant API's router:
 * writes to the implicit services (405: they are read-only, derived from the repository; a PUT of a derived
 * descriptor is a route and never gets here), and any
 * `/submodel-descriptors` path of an instance (404: there is no explicit submodel registry). Not routes, so the
 * OpenAPI documents (which describe what is served) do not list them.
 */
export function registryRefusals(apiBase: string, hostBased: boolean): Middleware {
  const escaped = apiBase.replace(/[.]/g, '\\.');
  const implicit = new RegExp(`^(?:/tenants/[^/]+)${hostBased ? '?' : ''}${escaped}(/.*)$`);
  const instanceSubmodels = new RegExp(`^(?:/tenants/[^/]+)${hostBased ? '?' : ''}/([^/]+)${escaped}/submodel-descriptors(?:/.*)?$`);
  return async (ctx, next) => {
    const rest = implicit.exec(ctx.path)?.[1];
    if (rest !== undefined && WRITES.has(ctx.method) && IMPLICIT_PATH.test(rest)) {
      const discovery = rest.startsWith('/lookup/');
      // The descriptor of one shell or submodel also takes a PUT of what is derived (implicitRegistryRoutes).
      ctx.set('Allow', DESCRIPTOR_ITEM.test(rest) ? 'GET, HEAD, PUT' : 'GET, HEAD');
      throw new FacadeError(
        405,
        `The tenant's implicit ${discovery ? 'discovery service' : 'registries'} are read-only: derived from the tenant's shells and submodels, they change when those do. ` +
          (discovery
            ? `Write the shells' asset information in the repository (${apiBase}/shells), or use an explicit discovery instance at {tenant_url}/{instanceName}${apiBase}/lookup/shells.`
            : `Write shells and submodels in the repository (${apiBase}/shells, ${apiBase}/submodels), or use an explicit AAS registry instance at {tenant_url}/{instanceName}${apiBase}/shell-descriptors.`),
      );
    }
    if (instanceSubmodels.test(ctx.path)) {
      throw new FacadeError(
        404,
        'There is no explicit submodel registry: submodel descriptors live under their shell descriptor ' +
          `({tenant_url}/{instanceName}${apiBase}/shell-descriptors/{aasIdentifier}/submodel-descriptors), or use the tenant's implicit submodel registry at {tenant_url}${apiBase}/submodel-descriptors.`,
      );
    }
    return next();
  };
}
