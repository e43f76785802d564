import type { GraphQLSchema } from 'graphql';
import type { ManagementRouteSpec } from '../management/route';
import type { Json } from './bundle';
import { OPENAPI_VERSION, SECURITY, ServedRoute, openApiPath, securitySchemes } from './common';
import { routeSchemas } from './graphql-schemas';

/** The AAS Result object (src/common/result.ts): the body of every error answer, here as everywhere. */
const RESULT_SCHEMAS: Record<string, Json> = {
  Message: {
    type: 'object',
    required: ['code', 'messageType', 'text', 'timestamp'],
    properties: {
      code: { type: 'string', description: 'The HTTP status code, as text.' },
      correlationId: { type: 'string', description: 'The X-Request-Id of the response.' },
      messageType: { type: 'string', enum: ['Undefined', 'Info', 'Warning', 'Error', 'Exception'] },
      text: { type: 'string' },
      timestamp: { type: 'string', format: 'date-time' },
    },
  },
  Result: {
    type: 'object',
    required: ['messages'],
    properties: { messages: { type: 'array', items: { $ref: '#/components/schemas/Message' } } },
  },
};

const ERROR_TEXT: Record<string, string> = {
  '400': 'Bad request: invalid parameters or body.',
  '401': 'No valid bearer token.',
  '403': 'The caller may not do this.',
  '404': 'Not found, or not visible to the caller.',
  '409': 'Conflict with the current state (a duplicate, say).',
  '412': 'If-Match does not name the current version.',
  '429': 'Too many requests; see Retry-After.',
  '503': 'The database is unavailable; see Retry-After.',
};

/**
 * The Management API's OpenAPI 3.1 document, generated from the routes the router registers (`served`, full
 * paths) and the table they come from (`routes`, paths relative to `/api/v1`), so it lists exactly what is served.
 * Bodies and answers are described by JSON Schemas derived from the GraphQL operation each route runs
 * (graphql-schemas.ts): the body is its `$input`, the answer the fields it selects.
 */
export function managementDocument(
  served: ServedRoute[],
  routes: readonly ManagementRouteSpec[],
  manageUrl: string,
  base: string,
  graphqlSchema: GraphQLSchema,
): Json {
  const paths: Record<string, Json> = {};
  const components: Record<string, Json> = {};
  const tags = new Set<string>();
  const operationIds = new Set<string>();
  for (const route of served) {
    const spec = routes.find((r) => r.method === route.method && (base + r.path === route.path || r.path === route.path));
    if (!spec) throw new Error(`No Management API route table entry for ${route.method} ${route.path}`);
    const path = openApiPath(route.path);
    const method = route.method.toLowerCase();
    tags.add(spec.tag);
    let operationId = `${method}${path.replace(/\{([^}]+)\}/g, 'By_$1').replace(/[^A-Za-z0-9]+(.)?/g, (_, c: string | undefined) => (c ?? '').toUpperCase())}`;
    while (operationIds.has(operationId)) operationId += '_';
    operationIds.add(operationId);
    const parameters: Json[] = [...path.matchAll(/\{([^}]+)\}/g)].map(([, name]) => ({ name, in: 'path', required: true, schema: { type: 'string' } }));
    for (const p of spec.query ?? []) parameters.push({ name: p.name, in: 'query', required: false, description: p.description, schema: p.schema });
    const paged = spec.query?.some((p) => p.name === 'cursor') ?? false;
    const conditional = ['PUT', 'PATCH', 'DELETE'].includes(route.method);
    if (conditional) {
      parameters.push({ name: 'If-Match', in: 'header', required: false, description: 'Only if the resource still has this ETag (`*`: any version).', schema: { type: 'string' } });
    }
    const errors = ['400', ...(spec.anonymous ? [] : ['401', '403']), '404'];
    if (route.method !== 'GET' && route.method !== 'DELETE') errors.push('409');
    if (conditional) errors.push('412');
    if (spec.anonymous) errors.push('429');
    errors.push('503');
    const derived = routeSchemas(graphqlSchema, spec.operation);
    Object.assign(components, derived.components);
    const answer = derived.answer;
    // A whole list (the roles) is answered in the page shape, without a cursor.
    const list = paged || answer?.schema.type === 'array';
    const answerSchema = answer?.schema.type === 'array' ? { type: 'object', required: ['result', 'paging_metadata'], properties: { result: answer.schema, paging_metadata: { type: 'object' } } } : answer?.schema;
    // The status the route answers, named (a `2XX` range shows as "Undocumented" in Swagger UI).
    const responses: Json = answer?.boolean
      ? { '204': { description: 'Done; no content.' } }
      : {
          [spec.created ? '201' : '200']: {
            description: list
              ? 'Success: a page, `{"result": [...], "paging_metadata": {"cursor": "..."}}` (no cursor on the last page).'
              : spec.created
                ? 'Created.'
                : 'Success.',
            ...(list || answer?.page
              ? {}
              : {
                  headers: {
                    ETag: { description: 'The entity tag, for If-Match (updatable records).', schema: { type: 'string' } },
                    ...(spec.created ? { Location: { description: 'The URL of what was created, when it has one.', schema: { type: 'string' } } } : {}),
                  },
                }),
            content: { 'application/json': { schema: answerSchema ?? (list ? { $ref: '#/components/schemas/Page' } : {}) } },
          },
        };
    for (const status of errors) {
      responses[status] = { description: ERROR_TEXT[status], content: { 'application/json': { schema: { $ref: '#/components/schemas/Result' } } } };
    }
    const operation: Json = {
      tags: [spec.tag],
      summary: spec.summary,
      operationId,
      ...(parameters.length ? { parameters } : {}),
      ...(spec.body ? { requestBody: { required: spec.body === true, content: { 'application/json': { schema: derived.body ?? { type: 'object' } } } } } : {}),
      responses,
      ...(spec.anonymous ? { security: [] } : {}),
    };
    (paths[path] ??= {})[method] = operation;
  }
  return {
    openapi: OPENAPI_VERSION,
    info: {
      title: 'Asset platform | Management API',
      version: 'v1',
      description:
        'Organizations, users, tenants, service accounts, groups, role assignments and the identity service of the asset platform. ' +
        'This document is generated from the routes the server registers; bodies and answers are derived from the GraphQL operation ' +
        "each route runs. The server's README documents the paths the platform specification leaves open. Errors are AAS Result objects; " +
        'lists are paged with `limit` and `cursor`.',
    },
    servers: [{ url: manageUrl }],
    security: SECURITY,
    tags: [...tags].map((name) => ({ name })),
    paths,
    components: {
      schemas: {
        ...components,
        ...RESULT_SCHEMAS,
        Page: {
          type: 'object',
          required: ['result', 'paging_metadata'],
          properties: {
            result: { type: 'array', items: {} },
            paging_metadata: { type: 'object', properties: { cursor: { type: 'string' } } },
          },
        },
      },
      securitySchemes: securitySchemes(manageUrl),
    },
  };
}
