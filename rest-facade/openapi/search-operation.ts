import { Bundler, Json, PART2 } from './bundle';
import { PART1_SCHEMAS, pagedResult, SEMANTIC_ID_MATCHING_PARAMETER, pagingParameters, queryBody, queryErrorResponses } from './paged-query';

/**
 * POST {tenant_url}/api/v3.0/search (platform spec, "Other": database-style queries over the search indexes), which
 * no AAS specification describes (rest-facade/search.ts; src/aas/search/ holds the indexes; README, "Search indexes").
 * The index names repeat src/aas/search/indexes.ts, which the façade may not import: test/integration/search.test.ts
 * holds the two together.
 */
export const SEARCH_INDEX_NAMES = ['shell-classifications', 'technical-properties'];

const OPERATORS = ['=', '!=', '<', '<=', '>', '>=', 'between', 'contains', 'starts-with', 'ends-with'];
const scalar = { oneOf: [{ type: 'number' }, { type: 'string', maxLength: 2000 }, { type: 'boolean' }] };

const TECHNICAL_PROPERTY = {
  type: 'object',
  description:
    'An element of the Technical Data submodel with this semanticId (first key) whose value satisfies `op` `value`. The value compares as ' +
    '`type`, by default the JSON type of `value`: numbers as numbers, strings as exact texts (by code point), `dateTime` (an RFC 3339 ' +
    'string) as an instant, booleans as booleans. A stored value that does not read as that type is no match. `between` takes ' +
    '`[lowest, highest]`, both included; `contains`, `starts-with` and `ends-with` compare texts.',
  required: ['semanticId', 'op', 'value'],
  additionalProperties: false,
  properties: {
    semanticId: { type: 'string', minLength: 1, maxLength: 2000, example: '0173-1#02-AAB001#001' },
    op: { type: 'string', enum: OPERATORS },
    value: { oneOf: [scalar, { type: 'array', minItems: 2, maxItems: 2, items: scalar }], example: 16 },
    type: { type: 'string', enum: ['number', 'string', 'dateTime', 'boolean'] },
  },
};

const CLASSIFICATION = {
  type: 'object',
  description:
    'A product classification of the Technical Data submodel: the members given compare as exact texts with the classification system, its ' +
    'version and the product class id of an item of ProductClassifications. In a 2.0 submodel they hold for one item; in a 1.2 submodel each ' +
    'member is matched by an element of the classifications, so with several items system and class id may come from different items ' +
    '(README, "Search indexes").',
  minProperties: 1,
  additionalProperties: false,
  properties: {
    system: { type: 'string', minLength: 1, maxLength: 2000, example: 'ECLASS' },
    version: { type: 'string', minLength: 1, maxLength: 2000, example: '13.0' },
    classId: { type: 'string', minLength: 1, maxLength: 2000, example: '36-41-01-01' },
  },
};

/** The operation of `method` `path` (below the tenant URL) if it is the search, else undefined. */
export function searchOperation(bundler: Bundler, method: string, path: string, apiBase: string): Json | undefined {
  if (method.toUpperCase() !== 'POST' || path !== `${apiBase}/search`) return undefined;
  const index = { type: 'string', enum: SEARCH_INDEX_NAMES };
  const select = { type: 'string', enum: ['id'], description: 'Answer the shell ids only.' };
  return {
    tags: ['Search API'],
    summary: 'Returns the shells whose Technical Data submodels match a condition of a search index',
    operationId: 'Search',
    description:
      'A search names an index and a condition, and answers the shells of the tenant that reference a submodel of the index satisfying ' +
      'it, in insertion order, paged. Both indexes read the Technical Data submodels (IDTA 02003 1.2, semanticId ' +
      '`https://admin-shell.io/ZVEI/TechnicalData/Submodel/1/2`, and 2.0, `0173-1#01-AHX837#002`): ' +
      '`shell-classifications` their product classifications, `technical-properties` their properties by semanticId, compared typed. ' +
      'The **full form** `{"index", "query": {"$condition", "$select"?}}` is an AAS Query Language query (IDTA-01002-3, as for POST ' +
      '/query/submodels) over those submodels: `$sm` and `$sme` fields; a field of another root is 400. The **simple form** gives one ' +
      'condition of the index beside `index`, or several as `conditions` (all must hold, on one submodel), and `select: "id"`; it is ' +
      'translated into the same query. Each answer carries the shell and the ids of its submodels that matched; with `$select`/`select` ' +
      '`"id"`, the shell ids only. Anything wrong in the body is a 400 naming it; so is a page whose statement runs longer than `QUERY_TIMEOUT_MS`.',
    parameters: [...pagingParameters(bundler), SEMANTIC_ID_MATCHING_PARAMETER],
    requestBody: {
      required: true,
      content: {
        'application/json': {
          schema: {
            oneOf: [
              {
                title: 'Full form',
                type: 'object',
                required: ['index', 'query'],
                additionalProperties: false,
                properties: {
                  index,
                  query: queryBody(
                    {
                      type: 'object',
                      example: {
                        $match: [{ $eq: [{ $field: '$sme#semanticId' }, { $strVal: '0173-1#02-AAB001#001' }] }, { $ge: [{ $field: '$sme#value' }, { $numVal: 16 }] }],
                      },
                    },
                    { description: 'An AAS query (IDTA-01002-3, JSON serialisation) whose fields are `$sm` or `$sme` fields.', select },
                  ),
                },
              },
              { title: 'Simple form, technical-properties', allOf: [{ type: 'object', required: ['index'], properties: { index: { const: 'technical-properties' }, select } }, TECHNICAL_PROPERTY] },
              { title: 'Simple form, shell-classifications', allOf: [{ type: 'object', required: ['index'], properties: { index: { const: 'shell-classifications' }, select } }, CLASSIFICATION] },
              {
                title: 'Simple form, several conditions',
                type: 'object',
                required: ['index', 'conditions'],
                additionalProperties: false,
                properties: {
                  index,
                  conditions: { type: 'array', minItems: 1, maxItems: 32, items: { oneOf: [TECHNICAL_PROPERTY, CLASSIFICATION] }, description: 'Conditions of the index; all must hold.' },
                  select,
                },
              },
            ],
          },
          examples: {
            pressure: { summary: 'All pumps with MaxPressure of at least 16', value: { index: 'technical-properties', semanticId: '0173-1#02-AAB001#001', op: '>=', value: 16 } },
            eclass: { summary: 'Classified as ECLASS 36-41-01-01', value: { index: 'shell-classifications', system: 'ECLASS', classId: '36-41-01-01' } },
          },
        },
      },
    },
    responses: {
      '200': {
        description: 'The shells found, with the ids of their submodels that matched, or the shell ids',
        content: {
          'application/json': {
            schema: pagedResult(
              {
                oneOf: [
                  {
                    type: 'object',
                    required: ['shell', 'submodelIds'],
                    properties: {
                      shell: bundler.copy({ $ref: `${PART1_SCHEMAS}/AssetAdministrationShell` }, PART2),
                      submodelIds: { type: 'array', items: { type: 'string' }, description: "The shell's submodels of the index that satisfy the condition." },
                    },
                  },
                  { type: 'string', description: 'A shell id (`$select`/`select` `"id"`).' },
                ],
              },
              { required: ['paging_metadata', 'result'] },
            ),
          },
        },
      },
      ...queryErrorResponses(bundler, { bodyLimits: true }),
    },
  };
}
