import { Bundler, Json, PART2 } from './bundle';

/**
 * What the query operations of the tenant and instance documents share (query-operations.ts,
 * descriptor-query-operations.ts, search-operation.ts): the query body's top level, the paging parameters, the
 * paged answer and the error responses, in the V3.0.4 Part 2 terms the bundle has.
 */

export const PART1_SCHEMAS = 'https://api.swaggerhub.com/domains/Plattform_i40/Part1-MetaModel-Schemas/V3.0.4#/components/schemas';

/** A Part 2 component (`parameters`, `schemas`, `responses`) copied into the document. */
export const part2Of = (bundler: Bundler) => (kind: string, name: string) => bundler.copy({ $ref: `#/components/${kind}/${name}` }, PART2);

/** `limit` and `cursor`: keyset paging. */
export const pagingParameters = (bundler: Bundler): Json[] => [part2Of(bundler)('parameters', 'Limit'), part2Of(bundler)('parameters', 'Cursor')];

export const SELECT_ID = { type: 'string', enum: ['id'], description: 'Answer identifiers instead of objects.' };

/** The top level of an AAS query (IDTA-01002-3, JSON serialisation): `$condition`, and `$select`. */
export function queryBody(condition: Json, options: { description?: string; select?: Json } = {}): Json {
  return {
    type: 'object',
    ...(options.description === undefined ? {} : { description: options.description }),
    required: ['$condition'],
    additionalProperties: false,
    properties: { $select: options.select ?? SELECT_ID, $condition: condition },
  };
}

/**
 * The paged answer: `paging_metadata` (its `cursor`, and `resultType` when `resultTypes` are given) and `result`
 * items; `required` as the operation has it.
 */
export function pagedResult(items: Json, options: { resultTypes?: string[]; required: string[] }): Json {
  const cursor = { type: 'string', description: 'Present when another page follows.' };
  return {
    type: 'object',
    required: options.required,
    properties: {
      paging_metadata: { type: 'object', properties: options.resultTypes ? { cursor, resultType: { type: 'string', enum: options.resultTypes } } : { cursor } },
      result: { type: 'array', items },
    },
  };
}

/** The error responses of a query operation; with `bodyLimits`, the 413 and 415 of a body the server refuses unread. */
export function queryErrorResponses(bundler: Bundler, options: { bodyLimits: boolean }): Record<string, Json> {
  const part2 = part2Of(bundler);
  const result = (description: string) => ({ description, content: { 'application/json': { schema: part2('schemas', 'Result') } } });
  return {
    '400': part2('responses', 'bad-request'),
    '401': part2('responses', 'unauthorized'),
    '403': part2('responses', 'forbidden'),
    '404': part2('responses', 'not-found'),
    ...(options.bodyLimits
      ? { '413': result('The body is larger than the body limit.'), '415': result('The body is not `application/json` (UTF-8).') }
      : {}),
    default: part2('responses', 'default'),
  };
}

/** The semantic connector's matching of `$eq` on semanticIds (docs/semantic-connector.md): a query parameter of the query and search routes. */
export const SEMANTIC_ID_MATCHING_PARAMETER: Json = {
  name: 'semanticIdMatching',
  in: 'query',
  required: false,
  description:
    'How `$eq` between a semanticId field and a string matches: `exact` (default), as written; `equivalent`, by the semantic connector\'s ' +
    'equivalence (IRDI spellings and versions, isCaseOf, the tenant\'s equivalence sets). An addition of this server (experimental).',
  schema: { type: 'string', enum: ['exact', 'equivalent'], default: 'exact' },
};
