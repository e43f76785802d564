import { Bundler, Json, PART2 } from './bundle';
import { PART1_SCHEMAS, pagedResult, SEMANTIC_ID_MATCHING_PARAMETER, pagingParameters, queryBody, queryErrorResponses } from './paged-query';

/**
 * The repositories' query operations of the AAS API V3.1, which the vendored V3.0.4 files lack:
 * `POST /query/shells` (QueryAssetAdministrationShells, AAS Repository SSP-003), `POST /query/submodels`
 * (QuerySubmodels, Submodel Repository SSP-005) and `POST /query/concept-descriptions` (QueryConceptDescriptions,
 * Concept Description Repository SSP-002), written after V3.1.2's texts with the V3.0.4 schemas the bundle has.
 */

interface RepositoryQuery {
  tag: string;
  summary: string;
  operationId: string;
  /** The Part 1 schema of the objects answered. */
  schema: string;
  /** The query language's root of the fields the query takes, and an example condition. */
  roots: string;
  example: Json;
}

const QUERIES: Record<string, RepositoryQuery> = {
  '/query/shells': {
    tag: 'Asset Administration Shell Repository API',
    summary: 'Returns all Asset Administration Shells that confirm to the input query',
    operationId: 'QueryAssetAdministrationShells',
    schema: 'AssetAdministrationShell',
    roots: '`$aas` (idShort, id, assetInformation.assetKind, .assetType, .globalAssetId, .specificAssetIds[], submodels[])',
    example: { $eq: [{ $field: '$aas#assetInformation.assetKind' }, { $strVal: 'Instance' }] },
  },
  '/query/submodels': {
    tag: 'Submodel Repository API',
    summary: 'Returns all Submodels that confirm to the input query',
    operationId: 'QuerySubmodels',
    schema: 'Submodel',
    roots: '`$sm` (idShort, id, semanticId) and `$sme` (the elements: idShort, semanticId, value, valueType, language; with an idShortPath or at any depth)',
    example: { $eq: [{ $field: '$sme.ManufacturerName#value' }, { $strVal: 'ACME' }] },
  },
  '/query/concept-descriptions': {
    tag: 'Concept Description Repository API',
    summary: 'Returns all Concept Descriptions that confirm to the input query',
    operationId: 'QueryConceptDescriptions',
    schema: 'ConceptDescription',
    roots: '`$cd` (idShort, id)',
    example: { '$starts-with': [{ $field: '$cd#idShort' }, { $strVal: 'Temperature' }] },
  },
};

/** The operation of `method` `path` (below the tenant URL) if it is a repository query, else undefined. */
export function repositoryQueryOperation(bundler: Bundler, method: string, path: string, apiBase: string): Json | undefined {
  if (method.toUpperCase() !== 'POST' || !path.startsWith(`${apiBase}/`)) return undefined;
  const query = QUERIES[path.slice(apiBase.length)];
  if (!query) return undefined;
  return {
    tags: [query.tag],
    summary: query.summary,
    description:
      `The AAS Query Language (IDTA-01002-3, AAS API V3.1) over the tenant's ${query.schema}s: fields of the root ${query.roots}; a field of ` +
      'another root, a body the query schema refuses, or a regular expression PostgreSQL cannot compile is a 400 naming the part. Paged in ' +
      'insertion order, like the list without a query; a page whose query runs longer than `QUERY_TIMEOUT_MS` is a 400 too. ' +
      `\`$select: "id"\` answers the ids (\`resultType\` \`Identifier\`), else whole ${query.schema}s (\`resultType\` \`${query.schema}\`` +
      `${query.schema === 'Submodel' ? ', deep, without Blob values' : ''}).`,
    operationId: query.operationId,
    parameters: [...pagingParameters(bundler), SEMANTIC_ID_MATCHING_PARAMETER],
    requestBody: {
      required: true,
      content: {
        'application/json': {
          schema: queryBody(
            { type: 'object', description: 'A logical expression of the AAS Query Language.', example: query.example },
            { description: 'An AAS query (IDTA-01002-3, JSON serialisation; the `Query` of the AAS API V3.1 Part 2).' },
          ),
        },
      },
    },
    responses: {
      '200': {
        description: `Requested ${query.schema}s, or their ids`,
        content: {
          'application/json': {
            schema: pagedResult(
              { oneOf: [bundler.copy({ $ref: `${PART1_SCHEMAS}/${query.schema}` }, PART2), { type: 'string' }] },
              { resultTypes: [query.schema, 'Identifier'], required: ['paging_metadata', 'result'] },
            ),
          },
        },
      },
      ...queryErrorResponses(bundler, { bodyLimits: true }),
    },
  };
}
