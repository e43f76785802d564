import { encodeBase64Url } from '../src/common/base64url';
import { Query, assetIdsParam, cursorParam, enumParam, idParam, limitParam, single } from './params';
import { RouteRequest, RouteSpec, etagHeader, json, pagedResult, pagedText } from './route';

/** AAS Repository Service, full profile (SSP-001), and the service description. */

const paging = (req: { query: Query }) => {
  const limit = limitParam(req.query);
  return { ...(limit === undefined ? {} : { limit }), cursor: cursorParam(req.query) };
};

/** This server's text filters of `GET /shells` (README, "Filter queries"); the GraphQL core checks their values. */
const SHELL_TEXT_FILTERS = ['idShortStartsWith', 'idShortContains', 'idStartsWith', 'idContains', 'displayName', 'displayNameStartsWith', 'displayNameContains'] as const;

const shellFilter = (req: { query: Query }) => ({
  assetIds: assetIdsParam(req.query),
  idShort: single(req.query, 'idShort'),
  assetKind: enumParam(req.query, 'assetKind', ['Instance', 'Type'] as const),
  ...Object.fromEntries(SHELL_TEXT_FILTERS.map((name) => [name, single(req.query, name)])),
});

const aasId = (req: { params: Record<string, string> }) => idParam('aasIdentifier', req.params.aasIdentifier);
const ifMatch = (req: RouteRequest) => req.header('if-match') ?? null;

export const aasRepositoryRoutes: RouteSpec[] = [
  {
    method: 'GET',
    path: '/description',
    operation: `query Description($tenant: String!) { serviceDescription(tenant: $tenant) { profiles } }`,
    variables: (req) => ({ tenant: req.tenant }),
    respond: (data) => ({ status: 200, body: data.serviceDescription }),
  },
  {
    method: 'GET',
    path: '/shells',
    operation: `query GetAllShells($tenant: String!, $filter: ShellFilterInput, $limit: Int, $cursor: String) {
      shellsJson(tenant: $tenant, filter: $filter, limit: $limit, cursor: $cursor) { result pagingMetadata { cursor } }
    }`,
    variables: (req) => ({ tenant: req.tenant, filter: shellFilter(req), ...paging(req) }),
    respond: (data) => ({ status: 200, jsonText: pagedText(data.shellsJson) }),
  },
  {
    method: 'POST',
    path: '/shells',
    body: true,
    operation: `mutation PostShell($tenant: String!, $shell: JSONObject!) { createShell(tenant: $tenant, shell: $shell) { id etag json } }`,
    variables: (req) => ({ tenant: req.tenant, shell: req.body }),
    respond: (data, req) => ({
      status: 201,
      body: data.createShell.json,
      headers: { Location: `${req.apiUrl()}/shells/${encodeBase64Url(data.createShell.id)}`, ...etagHeader(data.createShell) },
    }),
  },
  {
    method: 'GET',
    path: '/shells/$reference',
    operation: `query GetAllShellReferences($tenant: String!, $filter: ShellFilterInput, $limit: Int, $cursor: String) {
      shells(tenant: $tenant, filter: $filter, limit: $limit, cursor: $cursor) { result { reference { json } } pagingMetadata { cursor } }
    }`,
    variables: (req) => ({ tenant: req.tenant, filter: shellFilter(req), ...paging(req) }),
    respond: (data) => ({ status: 200, body: pagedResult(data.shells, (s) => s.reference.json) }),
  },
  {
    method: 'GET',
    path: '/shells/:aasIdentifier',
    operation: `query GetShell($tenant: String!, $id: String!) { shellJson(tenant: $tenant, id: $id) { etag text } }`,
    variables: (req) => ({ tenant: req.tenant, id: aasId(req) }),
    respond: (data) => ({ status: 200, jsonText: data.shellJson.text, headers: etagHeader(data.shellJson) }),
  },
  {
    method: 'PUT',
    path: '/shells/:aasIdentifier',
    body: true,
    operation: `mutation PutShell($tenant: String!, $id: String!, $shell: JSONObject!, $ifMatch: String) {
      replaceShell(tenant: $tenant, id: $id, shell: $shell, ifMatch: $ifMatch) { etag }
    }`,
    variables: (req) => ({ tenant: req.tenant, id: aasId(req), shell: req.body, ifMatch: ifMatch(req) }),
    respond: (data) => ({ status: 204, headers: etagHeader(data.replaceShell) }),
  },
  {
    method: 'DELETE',
    path: '/shells/:aasIdentifier',
    operation: `mutation DeleteShell($tenant: String!, $id: String!, $ifMatch: String) { deleteShell(tenant: $tenant, id: $id, ifMatch: $ifMatch) }`,
    variables: (req) => ({ tenant: req.tenant, id: aasId(req), ifMatch: ifMatch(req) }),
    respond: () => ({ status: 204 }),
  },
  {
    method: 'GET',
    path: '/shells/:aasIdentifier/$reference',
    operation: `query GetShellReference($tenant: String!, $id: String!) { shell(tenant: $tenant, id: $id) { reference { json } } }`,
    variables: (req) => ({ tenant: req.tenant, id: aasId(req) }),
    respond: (data) => ({ status: 200, body: data.shell.reference.json }),
  },
  {
    method: 'GET',
    path: '/shells/:aasIdentifier/asset-information',
    operation: `query GetAssetInformation($tenant: String!, $id: String!) { shell(tenant: $tenant, id: $id) { etag assetInformation { json } } }`,
    variables: (req) => ({ tenant: req.tenant, id: aasId(req) }),
    respond: (data) => ({ status: 200, body: data.shell.assetInformation.json, headers: etagHeader(data.shell) }),
  },
  {
    method: 'PUT',
    path: '/shells/:aasIdentifier/asset-information',
    body: true,
    operation: `mutation PutAssetInformation($tenant: String!, $id: String!, $info: JSONObject!, $ifMatch: String) {
      replaceAssetInformation(tenant: $tenant, id: $id, assetInformation: $info, ifMatch: $ifMatch) { etag }
    }`,
    variables: (req) => ({ tenant: req.tenant, id: aasId(req), info: req.body, ifMatch: ifMatch(req) }),
    respond: (data) => ({ status: 204, headers: etagHeader(data.replaceAssetInformation) }),
  },
  {
    method: 'GET',
    path: '/shells/:aasIdentifier/submodel-refs',
    operation: `query GetSubmodelRefs($tenant: String!, $id: String!, $limit: Int, $cursor: String) {
      shellSubmodelRefs(tenant: $tenant, id: $id, limit: $limit, cursor: $cursor) { result { json } pagingMetadata { cursor } }
    }`,
    variables: (req) => ({ tenant: req.tenant, id: aasId(req), ...paging(req) }),
    respond: (data) => ({ status: 200, body: pagedResult(data.shellSubmodelRefs, json) }),
  },
  {
    method: 'POST',
    path: '/shells/:aasIdentifier/submodel-refs',
    body: true,
    operation: `mutation PostSubmodelRef($tenant: String!, $id: String!, $ref: JSONObject!, $ifMatch: String) {
      addSubmodelRef(tenant: $tenant, id: $id, reference: $ref, ifMatch: $ifMatch) { json keys { value } }
    }`,
    variables: (req) => ({ tenant: req.tenant, id: aasId(req), ref: req.body, ifMatch: ifMatch(req) }),
    respond: (data, req) => ({
      status: 201,
      body: data.addSubmodelRef.json,
      headers: {
        Location: `${req.apiUrl()}/shells/${encodeBase64Url(aasId(req))}/submodel-refs/${encodeBase64Url(data.addSubmodelRef.keys[0].value)}`,
      },
    }),
  },
  {
    method: 'DELETE',
    path: '/shells/:aasIdentifier/submodel-refs/:submodelIdentifier',
    operation: `mutation DeleteSubmodelRef($tenant: String!, $id: String!, $submodelId: String!, $ifMatch: String) {
      removeSubmodelRef(tenant: $tenant, id: $id, submodelId: $submodelId, ifMatch: $ifMatch)
    }`,
    variables: (req) => ({
      tenant: req.tenant,
      id: aasId(req),
      ifMatch: ifMatch(req),
      submodelId: idParam('submodelIdentifier', req.params.submodelIdentifier),
    }),
    respond: () => ({ status: 204 }),
  },
];
