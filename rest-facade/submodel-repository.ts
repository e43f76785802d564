import { encodeBase64Url } from '../src/common/base64url';
import { Query, base64Param, cursorParam, enumParam, extentParam, idParam, levelParam, limitParam, single } from './params';
import { RouteRequest, RouteSpec, etagHeader, json, pagedResult } from './route';

/**
 * Submodel Repository Service, full profile (SSP-001), and the same submodel routes under a shell
 * (`/shells/{aasIdentifier}/submodels/{submodelIdentifier}/...`), where only the shell's submodels exist.
 */

type Req = RouteRequest;

const paging = (req: Req) => {
  const limit = limitParam(req.query);
  return { ...(limit === undefined ? {} : { limit }), cursor: cursorParam(req.query) };
};

const modifiers = (req: Req) => {
  const level = levelParam(req.query);
  const extent = extentParam(req.query);
  return { ...(level ? { level } : {}), ...(extent ? { extent } : {}) };
};

const DEEP_CORE = ['deep', 'core'] as const;
const CORE = ['core'] as const;
const DEEP = ['deep'] as const;

/**
 * `semanticId`: base64url of a Reference in JSON (as clients such as BaSyx send it) matches that reference;
 * base64url of anything else is taken as the value of a semantic id key.
 */
function semanticIdFilter(query: Query): { semanticId?: unknown; semanticIdValue?: string } {
  const text = base64Param(query, 'semanticId');
  if (text === undefined) return {};
  try {
    const parsed = JSON.parse(text) as unknown;
    if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) return { semanticId: parsed };
  } catch {
    // not JSON: a key value
  }
  return { semanticIdValue: text };
}

const submodelFilter = (req: Req) => ({
  ...semanticIdFilter(req.query),
  idShort: single(req.query, 'idShort'),
  kind: enumParam(req.query, 'kind', ['Instance', 'Template'] as const),
  semanticIdMatching: enumParam(req.query, 'semanticIdMatching', ['exact', 'equivalent'] as const),
  // This server's text filters (README, "Filter queries"); the GraphQL core checks their values.
  ...Object.fromEntries(['idShortStartsWith', 'idShortContains', 'idStartsWith', 'idContains'].map((name) => [name, single(req.query, name)])),
});

const smId = (req: Req) => idParam('submodelIdentifier', req.params.submodelIdentifier);
const ifMatch = (req: Req) => req.header('if-match') ?? null;
const path = (req: Req) => req.params.idShortPath;

const LIST = `query Submodels($tenant: String!, $filter: SubmodelFilterInput, $limit: Int, $cursor: String, $level: Level, $extent: Extent) {
  submodels(tenant: $tenant, filter: $filter, limit: $limit, cursor: $cursor, level: $level, extent: $extent) {
    result { FIELDS } pagingMetadata { cursor } }
}`;

/** The list routes of `/submodels`: the submodels, or one modifier of each. */
const listRoutes: RouteSpec[] = [
  { suffix: '', fields: 'json', map: json, modifiers: { level: DEEP_CORE, extent: true } },
  { suffix: '/$metadata', fields: 'metadata', map: (s: { metadata: unknown }) => s.metadata, modifiers: {} },
  { suffix: '/$value', fields: 'value', map: (s: { value: unknown }) => s.value, modifiers: { level: DEEP_CORE, extent: true } },
  { suffix: '/$reference', fields: 'reference { json }', map: (s: { reference: { json: unknown } }) => s.reference.json, modifiers: { level: CORE } },
].map(({ suffix, fields, map, modifiers: allowed }) => ({
  method: 'GET' as const,
  path: `/submodels${suffix}`,
  operation: LIST.replace('FIELDS', fields),
  modifiers: allowed,
  variables: (req: Req) => ({ tenant: req.tenant, filter: submodelFilter(req), ...paging(req), ...modifiers(req) }),
  respond: (data: { submodels: { result: unknown[]; pagingMetadata: { cursor?: string } } }) => ({ status: 200, body: pagedResult(data.submodels, map) }),
}));

/** `GET /submodels/$path`: one flat list of the submodels' idShortPaths (GetPathItemsResult), paged over the paths. */
const submodelPathsRoute: RouteSpec = {
  method: 'GET',
  path: '/submodels/$path',
  operation: `query SubmodelPaths($tenant: String!, $filter: SubmodelFilterInput, $limit: Int, $cursor: String, $level: Level) {
    submodelPaths(tenant: $tenant, filter: $filter, limit: $limit, cursor: $cursor, level: $level) { result pagingMetadata { cursor } } }`,
  modifiers: { level: DEEP_CORE },
  variables: (req) => ({ tenant: req.tenant, filter: submodelFilter(req), ...paging(req), ...modifiers(req) }),
  respond: (data) => ({ status: 200, body: pagedResult(data.submodelPaths, (path: string) => path) }),
};

/** The routes of one submodel, at `base`; `scoped` adds the shell the submodel must belong to. */
function submodelRoutes(base: string, scoped: boolean): RouteSpec[] {
  const shellArg = scoped ? ', shellId: $shellId' : '';
  const shellVar = scoped ? ', $shellId: String' : '';
  const scope = (req: Req) => (scoped ? { shellId: idParam('aasIdentifier', req.params.aasIdentifier) } : {});
  const vars = (req: Req, more: Record<string, unknown> = {}) => ({ tenant: req.tenant, id: smId(req), ...scope(req), ...more });
  const elementUrl = (req: Req, idShortPath: string) =>
    `${req.apiUrl()}${base.replace(':aasIdentifier', req.params.aasIdentifier ?? '').replace(':submodelIdentifier', encodeBase64Url(smId(req)))}/submodel-elements/${encodeURIComponent(idShortPath)}`;

  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- picks from the GraphQL answer of its own document
  const getSubmodel = (suffix: string, fields: string, pick: (s: any) => unknown, allowed: RouteSpec['modifiers']): RouteSpec => ({
    method: 'GET',
    path: `${base}${suffix}`,
    operation: `query GetSubmodel($tenant: String!, $id: String!${shellVar}, $level: Level, $extent: Extent) {
      submodel(tenant: $tenant, id: $id${shellArg}, level: $level, extent: $extent) { etag ${fields} } }`,
    modifiers: allowed,
    variables: (req) => vars(req, modifiers(req)),
    respond: (data) => ({ status: 200, body: pick(data.submodel), headers: etagHeader(data.submodel) }),
  });
  const writeSubmodel = (method: 'PUT' | 'PATCH', suffix: string, mutation: string, arg: string, type: string, allowed: RouteSpec['modifiers'], body: RouteSpec['body'] = true): RouteSpec => ({
    method,
    path: `${base}${suffix}`,
    body,
    largeBody: true,
    operation: `mutation WriteSubmodel($tenant: String!, $id: String!${shellVar}, $body: ${type}, $ifMatch: String) {
      ${mutation}(tenant: $tenant, id: $id, ${arg}: $body${shellArg}, ifMatch: $ifMatch) { etag } }`,
    modifiers: allowed,
    variables: (req) => vars(req, { body: req.body, ifMatch: ifMatch(req) }),
    respond: (data) => ({ status: 204, headers: etagHeader(data[mutation]) }),
  });
  const ELEMENTS = `query Elements($tenant: String!, $id: String!${shellVar}, $limit: Int, $cursor: String, $level: Level, $extent: Extent) {
    submodelElements(tenant: $tenant, submodelId: $id${shellArg}, limit: $limit, cursor: $cursor, level: $level, extent: $extent) {
      result { idShortPath FIELDS } pagingMetadata { cursor } } }`;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- picks from the GraphQL answer of its own document
  const listElements = (suffix: string, fields: string, body: (page: { result: any[]; pagingMetadata: { cursor?: string } }) => unknown, allowed: RouteSpec['modifiers']): RouteSpec => ({
    method: 'GET',
    path: `${base}/submodel-elements${suffix}`,
    operation: ELEMENTS.replace('FIELDS', fields),
    modifiers: allowed,
    variables: (req) => vars(req, { ...paging(req), ...modifiers(req) }),
    respond: (data) => ({ status: 200, body: body(data.submodelElements) }),
  });
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- picks from the GraphQL answer of its own document
  const getElement = (suffix: string, fields: string, pick: (e: any) => unknown, allowed: RouteSpec['modifiers']): RouteSpec => ({
    method: 'GET',
    path: `${base}/submodel-elements/:idShortPath${suffix}`,
    operation: `query GetElement($tenant: String!, $id: String!, $path: String!${shellVar}, $level: Level, $extent: Extent) {
      submodelElement(tenant: $tenant, submodelId: $id, idShortPath: $path${shellArg}, level: $level, extent: $extent) { etag ${fields} } }`,
    modifiers: allowed,
    variables: (req) => vars(req, { path: path(req), ...modifiers(req) }),
    respond: (data) => ({ status: 200, body: pick(data.submodelElement), headers: etagHeader(data.submodelElement) }),
  });
  const writeElement = (method: 'PUT' | 'PATCH', suffix: string, mutation: string, arg: string, type: string, allowed: RouteSpec['modifiers'], body: RouteSpec['body'] = true): RouteSpec => ({
    method,
    path: `${base}/submodel-elements/:idShortPath${suffix}`,
    body,
    largeBody: true,
    operation: `mutation WriteElement($tenant: String!, $id: String!, $path: String!${shellVar}, $body: ${type}, $ifMatch: String) {
      ${mutation}(tenant: $tenant, submodelId: $id, idShortPath: $path, ${arg}: $body${shellArg}, ifMatch: $ifMatch) { etag } }`,
    modifiers: allowed,
    variables: (req) => vars(req, { path: path(req), body: req.body, ifMatch: ifMatch(req) }),
    respond: (data) => ({ status: 204, headers: etagHeader(data[mutation]) }),
  });
  const postElement = (suffix: string): RouteSpec => ({
    method: 'POST',
    path: `${base}/submodel-elements${suffix}`,
    body: true,
    largeBody: true,
    operation: `mutation PostElement($tenant: String!, $id: String!, $path: String${shellVar}, $body: JSONObject!, $ifMatch: String) {
      createSubmodelElement(tenant: $tenant, submodelId: $id, idShortPath: $path, element: $body${shellArg}, ifMatch: $ifMatch) {
        idShortPath etag element { json } } }`,
    variables: (req) => vars(req, { path: suffix ? path(req) : null, body: req.body, ifMatch: ifMatch(req) }),
    respond: (data, req) => ({
      status: 201,
      body: data.createSubmodelElement.element.json,
      headers: { Location: elementUrl(req, data.createSubmodelElement.idShortPath), ...etagHeader(data.createSubmodelElement) },
    }),
  });
  const invoke = (suffix: string): RouteSpec => ({
    method: 'POST',
    path: `${base}/submodel-elements/:idShortPath${suffix}`,
    operation: `mutation Invoke($tenant: String!, $id: String!, $path: String!${shellVar}) {
      invokeOperation(tenant: $tenant, submodelId: $id, idShortPath: $path${shellArg}) }`,
    variables: (req) => vars(req, { path: path(req) }),
    // invokeOperation always fails (501, or 405 for another kind), so this is never reached.
    respond: () => ({ status: 501 }),
  });

  return [
    {
      method: 'GET',
      path: base,
      operation: `query GetSubmodelJson($tenant: String!, $id: String!${shellVar}, $level: Level, $extent: Extent) {
        submodelJson(tenant: $tenant, id: $id${shellArg}, level: $level, extent: $extent) { etag text } }`,
      modifiers: { level: DEEP_CORE, extent: true },
      variables: (req) => vars(req, modifiers(req)),
      respond: (data) => ({ status: 200, jsonText: data.submodelJson.text, headers: etagHeader(data.submodelJson) }),
    },
    writeSubmodel('PUT', '', 'replaceSubmodel', 'submodel', 'JSONObject!', {}),
    writeSubmodel('PATCH', '', 'patchSubmodel', 'submodel', 'JSONObject!', { level: CORE }),
    {
      method: 'DELETE',
      path: base,
      operation: `mutation DeleteSubmodel($tenant: String!, $id: String!${shellVar}, $ifMatch: String) {
        deleteSubmodel(tenant: $tenant, id: $id${shellArg}, ifMatch: $ifMatch) }`,
      variables: (req) => vars(req, { ifMatch: ifMatch(req) }),
      respond: () => ({ status: 204 }),
    },
    getSubmodel('/$metadata', 'metadata', (s) => s.metadata, {}),
    writeSubmodel('PATCH', '/$metadata', 'patchSubmodelMetadata', 'metadata', 'JSONObject!', {}),
    getSubmodel('/$value', 'value', (s) => s.value, { level: DEEP_CORE, extent: true }),
    writeSubmodel('PATCH', '/$value', 'patchSubmodelValue', 'value', 'JSON', { level: CORE }, 'any'),
    getSubmodel('/$reference', 'reference { json }', (s) => s.reference.json, {}),
    getSubmodel('/$path', 'paths', (s) => s.paths, { level: DEEP_CORE }),
    listElements('', 'element { json }', (page) => pagedResult(page, (e) => e.element.json), { level: DEEP_CORE, extent: true }),
    postElement(''),
    listElements('/$metadata', 'metadata', (page) => pagedResult(page, (e) => e.metadata), {}),
    // One object for the page, `{ idShort: value }`, as GetSubmodelElementsValueResult has it; kinds without a
    // value form (Operation, Capability) are left out, as inside a collection.
    listElements('/$value', 'element { idShort } hasValue value(strict: false)', (page) => ({
      ...pagedResult(page, () => null),
      result: Object.fromEntries(page.result.filter((e) => e.hasValue).map((e) => [e.element.idShort, e.value])),
    }), { level: DEEP_CORE, extent: true }),
    listElements('/$reference', 'reference { json }', (page) => pagedResult(page, (e) => e.reference.json), { level: CORE }),
    {
      method: 'GET',
      path: `${base}/submodel-elements/$path`,
      operation: `query ElementPaths($tenant: String!, $id: String!${shellVar}, $limit: Int, $cursor: String, $level: Level) {
        submodelElementPaths(tenant: $tenant, submodelId: $id${shellArg}, limit: $limit, cursor: $cursor, level: $level) {
          result pagingMetadata { cursor } } }`,
      modifiers: { level: DEEP_CORE },
      variables: (req) => vars(req, { ...paging(req), ...modifiers(req) }),
      respond: (data) => ({ status: 200, body: pagedResult(data.submodelElementPaths, (path: string) => path) }),
    },
    getElement('', 'element { json }', (e) => e.element.json, { level: DEEP_CORE, extent: true }),
    postElement('/:idShortPath'),
    writeElement('PUT', '', 'replaceSubmodelElement', 'element', 'JSONObject!', { level: DEEP }),
    writeElement('PATCH', '', 'patchSubmodelElement', 'element', 'JSONObject!', { level: CORE }),
    {
      method: 'DELETE',
      path: `${base}/submodel-elements/:idShortPath`,
      operation: `mutation DeleteElement($tenant: String!, $id: String!, $path: String!${shellVar}, $ifMatch: String) {
        deleteSubmodelElement(tenant: $tenant, submodelId: $id, idShortPath: $path${shellArg}, ifMatch: $ifMatch) }`,
      variables: (req) => vars(req, { path: path(req), ifMatch: ifMatch(req) }),
      respond: () => ({ status: 204 }),
    },
    getElement('/$metadata', 'metadata', (e) => e.metadata, {}),
    writeElement('PATCH', '/$metadata', 'patchSubmodelElementMetadata', 'metadata', 'JSONObject!', {}),
    getElement('/$value', 'value', (e) => e.value, { level: DEEP_CORE, extent: true }),
    writeElement('PATCH', '/$value', 'patchSubmodelElementValue', 'value', 'JSON', { level: CORE }, 'any'),
    getElement('/$reference', 'reference { json }', (e) => e.reference.json, {}),
    getElement('/$path', 'paths', (e) => e.paths, { level: DEEP_CORE }),
    ...['/invoke', '/invoke/$value', '/invoke-async', '/invoke-async/$value'].map(invoke),
  ];
}

export const submodelRepositoryRoutes: RouteSpec[] = [
  ...listRoutes,
  submodelPathsRoute,
  {
    method: 'POST',
    path: '/submodels',
    body: true,
    largeBody: true,
    operation: `mutation PostSubmodel($tenant: String!, $body: JSONObject!) { createSubmodel(tenant: $tenant, submodel: $body) { id etag json } }`,
    variables: (req) => ({ tenant: req.tenant, body: req.body }),
    respond: (data, req) => ({
      status: 201,
      body: data.createSubmodel.json,
      headers: { Location: `${req.apiUrl()}/submodels/${encodeBase64Url(data.createSubmodel.id)}`, ...etagHeader(data.createSubmodel) },
    }),
  },
  ...submodelRoutes('/submodels/:submodelIdentifier', false),
  {
    method: 'GET',
    path: '/shells/:aasIdentifier/submodels',
    operation: `query ShellSubmodels($tenant: String!, $shellId: String!, $limit: Int, $cursor: String, $level: Level, $extent: Extent) {
      shellSubmodels(tenant: $tenant, shellId: $shellId, limit: $limit, cursor: $cursor, level: $level, extent: $extent) {
        result { json } pagingMetadata { cursor } } }`,
    modifiers: { level: DEEP_CORE, extent: true },
    variables: (req) => ({ tenant: req.tenant, shellId: idParam('aasIdentifier', req.params.aasIdentifier), ...paging(req), ...modifiers(req) }),
    respond: (data) => ({ status: 200, body: pagedResult(data.shellSubmodels, json) }),
  },
  ...submodelRoutes('/shells/:aasIdentifier/submodels/:submodelIdentifier', true),
];
