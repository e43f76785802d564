import { Bundler, Json } from './bundle';
import { pagedResult, pagingParameters, part2Of, queryBody, queryErrorResponses } from './paged-query';

/**
 * The registries' query operations of the AAS API V3.1, which the vendored V3.0.4 files lack:
 * `POST /query/shell-descriptors` (QueryAssetAdministrationShellDescriptors, AAS Registry SSP-004) and
 * `POST /query/submodel-descriptors` (QuerySubmodelDescriptors, Submodel Registry SSP-004), written after V3.1.2's
 * texts, with the V3.0.4 Part 2 schemas the bundle has (descriptors, PagedResult, Limit, Cursor, the error
 * responses). Served by the tenant's implicit registries and by explicit AAS registry instances.
 */

interface DescriptorQuery {
  tag: string;
  summary: string;
  operationId: string;
  /** The Part 2 schema of the objects answered. */
  schema: string;
  description: string;
}

const QUERIES: Record<string, DescriptorQuery> = {
  '/query/shell-descriptors': {
    tag: 'Asset Administration Shell Registry API',
    summary: 'Returns all Asset Administration Shell Descriptors that confirm to the input query',
    operationId: 'QueryAssetAdministrationShellDescriptors',
    schema: 'AssetAdministrationShellDescriptor',
    description:
      'The AAS Query Language (IDTA-01002-3) over shell descriptors: fields of the root `$aasdesc` (idShort, id, assetKind, assetType, globalAssetId, ' +
      'specificAssetIds[], endpoints[], submodelDescriptors[]); a field of another root is a 400 naming it. Paged in registration order (the ' +
      "implicit registry: the repository's order of shells, its descriptors derived from them, endpoints included). `$select: \"id\"` answers the " +
      'descriptors\' ids (`resultType` `Identifier`).',
  },
  '/query/submodel-descriptors': {
    tag: 'Submodel Registry API',
    summary: 'Returns all Submodel Descriptors that confirm to the input query',
    operationId: 'QuerySubmodelDescriptors',
    schema: 'SubmodelDescriptor',
    description:
      'The AAS Query Language (IDTA-01002-3) over submodel descriptors: fields of the root `$smdesc` (idShort, id, semanticId, endpoints[]); a ' +
      'field of another root is a 400 naming it. In an explicit AAS registry, every submodel descriptor of its shell descriptors (one entry ' +
      'per registration, in registration order); in the implicit registry, one per stored submodel. `$select: "id"` answers the ids ' +
      '(`resultType` `Identifier`).',
  },
};

/** The query body (IDTA-01002-3, JSON serialisation): the schema's top level; the condition is checked by the server, 400 naming the part. */
const QUERY_BODY: Json = queryBody({
  type: 'object',
  description:
    'A logical expression of the AAS Query Language (IDTA-01002-3, "Query Language"; its JSON schema is that of the AAS API V3.1 Part 2 `Query`), ' +
    'e.g. `{"$eq": [{"$field": "$aasdesc#assetKind"}, {"$strVal": "Instance"}]}`.',
});

/** The operation of `method` `path` (below the tenant or instance URL) if it is a registry query, else undefined. */
export function descriptorQueryOperation(bundler: Bundler, method: string, path: string, apiBase: string): Json | undefined {
  if (method.toUpperCase() !== 'POST' || !path.startsWith(`${apiBase}/`)) return undefined;
  const query = QUERIES[path.slice(apiBase.length)];
  if (!query) return undefined;
  const part2 = part2Of(bundler);
  return {
    tags: [query.tag],
    summary: query.summary,
    description: query.description,
    operationId: query.operationId,
    parameters: pagingParameters(bundler),
    requestBody: { required: true, content: { 'application/json': { schema: QUERY_BODY } } },
    responses: {
      '200': {
        description: `Requested ${query.schema}s, or their ids`,
        content: {
          'application/json': {
            schema: pagedResult({ oneOf: [part2('schemas', query.schema), { type: 'string' }] }, { resultTypes: [query.schema, 'Identifier'], required: ['paging_metadata'] }),
          },
        },
      },
      ...queryErrorResponses(bundler, { bodyLimits: false }),
    },
  };
}
