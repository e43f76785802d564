import { encodeBase64Url } from '../src/common/base64url';
import { badParam } from './facade-error';
import { Query, base64Param, cursorParam, idParam, limitParam, single } from './params';
import { RouteRequest, RouteSpec, etagHeader, json, pagedResult } from './route';

/** Concept Description Repository Service, full profile (SSP-001). */

const cdId = (req: RouteRequest) => idParam('cdIdentifier', req.params.cdIdentifier);
const ifMatch = (req: RouteRequest) => req.header('if-match') ?? null;

/** A reference filter: base64url of a Reference in JSON. */
function referenceParam(query: Query, name: string): unknown {
  const text = base64Param(query, name);
  if (text === undefined) return undefined;
  try {
    const parsed = JSON.parse(text) as unknown;
    if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) return parsed;
  } catch {
    // reported below
  }
  throw badParam(`Query parameter '${name}' must be a base64url-encoded JSON Reference.`);
}

export const conceptDescriptionRoutes: RouteSpec[] = [
  {
    method: 'GET',
    path: '/concept-descriptions',
    operation: `query ConceptDescriptions($tenant: String!, $filter: ConceptDescriptionFilterInput, $limit: Int, $cursor: String) {
      conceptDescriptions(tenant: $tenant, filter: $filter, limit: $limit, cursor: $cursor) { result { json } pagingMetadata { cursor } } }`,
    variables: (req) => {
      const limit = limitParam(req.query);
      return {
        tenant: req.tenant,
        filter: {
          idShort: single(req.query, 'idShort'),
          isCaseOf: referenceParam(req.query, 'isCaseOf'),
          dataSpecificationRef: referenceParam(req.query, 'dataSpecificationRef'),
        },
        ...(limit === undefined ? {} : { limit }),
        cursor: cursorParam(req.query),
      };
    },
    respond: (data) => ({ status: 200, body: pagedResult(data.conceptDescriptions, json) }),
  },
  {
    method: 'POST',
    path: '/concept-descriptions',
    body: true,
    operation: `mutation PostConceptDescription($tenant: String!, $body: JSONObject!) {
      createConceptDescription(tenant: $tenant, conceptDescription: $body) { id etag json } }`,
    variables: (req) => ({ tenant: req.tenant, body: req.body }),
    respond: (data, req) => ({
      status: 201,
      body: data.createConceptDescription.json,
      headers: {
        Location: `${req.apiUrl()}/concept-descriptions/${encodeBase64Url(data.createConceptDescription.id)}`,
        ...etagHeader(data.createConceptDescription),
      },
    }),
  },
  {
    method: 'GET',
    path: '/concept-descriptions/:cdIdentifier',
    operation: `query ConceptDescription($tenant: String!, $id: String!) { conceptDescriptionJson(tenant: $tenant, id: $id) { etag text } }`,
    variables: (req) => ({ tenant: req.tenant, id: cdId(req) }),
    respond: (data) => ({ status: 200, jsonText: data.conceptDescriptionJson.text, headers: etagHeader(data.conceptDescriptionJson) }),
  },
  {
    method: 'PUT',
    path: '/concept-descriptions/:cdIdentifier',
    body: true,
    operation: `mutation PutConceptDescription($tenant: String!, $id: String!, $body: JSONObject!, $ifMatch: String) {
      replaceConceptDescription(tenant: $tenant, id: $id, conceptDescription: $body, ifMatch: $ifMatch) { etag } }`,
    variables: (req) => ({ tenant: req.tenant, id: cdId(req), body: req.body, ifMatch: ifMatch(req) }),
    respond: (data) => ({ status: 204, headers: etagHeader(data.replaceConceptDescription) }),
  },
  {
    method: 'DELETE',
    path: '/concept-descriptions/:cdIdentifier',
    operation: `mutation DeleteConceptDescription($tenant: String!, $id: String!, $ifMatch: String) {
      deleteConceptDescription(tenant: $tenant, id: $id, ifMatch: $ifMatch) }`,
    variables: (req) => ({ tenant: req.tenant, id: cdId(req), ifMatch: ifMatch(req) }),
    respond: () => ({ status: 204 }),
  },
];
