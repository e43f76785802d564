import { cursorParam, enumParam, limitParam } from './params';
import { RouteRequest, RouteSpec, json } from './route';

/**
 * The AAS Query Language endpoints (IDTA-01002-3, AAS API V3.1: QueryAssetAdministrationShells, QuerySubmodels,
 * QueryConceptDescriptions): `POST /query/{target}` with the query in the body, paged by `limit` and `cursor`.
 * Each runs one GraphQL operation holding both answers, objects (the list's `query` argument) and identifiers
 * (`queryIds`, for `$select: "id"`); the body's `$select` picks one with `@skip`/`@include`. A body the query
 * schema refuses is a 400 from the GraphQL core, naming the offending part.
 */

interface QueryEndpoint {
  path: string;
  /** The list field that answers objects, and the `QueryTarget` of `queryIds`. */
  field: 'shells' | 'submodels' | 'conceptDescriptions';
  /** V3.1's `paging_metadata.resultType` for objects. */
  resultType: string;
  name: string;
}

const ENDPOINTS: QueryEndpoint[] = [
  { path: '/query/shells', field: 'shells', resultType: 'AssetAdministrationShell', name: 'QueryShells' },
  { path: '/query/submodels', field: 'submodels', resultType: 'Submodel', name: 'QuerySubmodels' },
  { path: '/query/concept-descriptions', field: 'conceptDescriptions', resultType: 'ConceptDescription', name: 'QueryConceptDescriptions' },
];

const selectsIds = (req: RouteRequest) => (req.body as Record<string, unknown>).$select === 'id';

function queryRoute({ path, field, resultType, name }: QueryEndpoint): RouteSpec {
  return {
    method: 'POST',
    path,
    body: true,
    operation: `query ${name}($tenant: String!, $query: JSON!, $limit: Int, $cursor: String, $ids: Boolean!, $matching: SemanticMatching) {
      objects: ${field}(tenant: $tenant, query: $query, limit: $limit, cursor: $cursor, semanticIdMatching: $matching) @skip(if: $ids) { result { json } pagingMetadata { cursor } }
      ids: queryIds(tenant: $tenant, target: ${field}, query: $query, limit: $limit, cursor: $cursor, semanticIdMatching: $matching) @include(if: $ids) { result pagingMetadata { cursor } }
    }`,
    variables: (req) => {
      const limit = limitParam(req.query);
      const matching = enumParam(req.query, 'semanticIdMatching', ['exact', 'equivalent'] as const);
      return { tenant: req.tenant, query: req.body, ...(limit === undefined ? {} : { limit }), cursor: cursorParam(req.query), ids: selectsIds(req), ...(matching ? { matching } : {}) };
    },
    respond: (data) => {
      const [page, type, items] = data.ids ? [data.ids, 'Identifier', data.ids.result] : [data.objects, resultType, data.objects.result.map(json)];
      const cursor = page.pagingMetadata.cursor;
      return { status: 200, body: { paging_metadata: { ...(cursor ? { cursor } : {}), resultType: type }, result: items } };
    },
  };
}

export const queryRoutes: RouteSpec[] = ENDPOINTS.map(queryRoute);
