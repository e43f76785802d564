import type { Context as KoaContext, Middleware } from 'koa';
import type { Context } from '../src/graphql/context';
import { badParam } from './facade-error';
import { withUploadedFile } from './files';
import { Query, base64Param, cursorParam, enumParam, limitParam, single } from './params';
import { RouteRequest, RouteSpec, pagedResult } from './route';
import { TenantAccess } from './streamed';

/**
 * The semantic connector of the sphere service, at `{tenant_url}/sphere/api/v1.0/semantics/...` (src/aas/semantics/,
 * docs/semantic-connector.md): resolve a semantic id, the tenant's dictionaries and their entries, its equivalence
 * sets, and where a semantic id is used. Each route is one GraphQL operation, but the dictionary upload, which
 * receives a file (`dictionaryUploadHandler`).
 */

const MATCHINGS = ['exact', 'equivalent'] as const;
const MEANING = 'preferredName { language text } shortName { language text } definition { language text } unit unitId symbol dataType valueList { value valueId }';
const RESOLUTION = `semanticId key matching equivalentKeys conceptDescriptions { id idShort meaning { ${MEANING} } } entries { dictionaryId dictionaryName conceptId meaning { ${MEANING} } }`;
const DICTIONARY = 'id name format entryCount createdAt';
const SET = 'id name members createdAt';

/** Refuses query parameters other than `allowed`. */
function only(query: Query, allowed: string[]): void {
  for (const name of Object.keys(query)) if (!allowed.includes(name)) throw badParam(`Unknown query parameter '${name}' (${allowed.join(', ') || 'none'}).`);
}

const paging = (req: RouteRequest) => {
  const limit = limitParam(req.query);
  return { ...(limit === undefined ? {} : { limit }), cursor: cursorParam(req.query) };
};

const matching = (req: RouteRequest) => enumParam(req.query, 'matching', MATCHINGS) ?? 'exact';

/** `semanticId`: base64url of the id (required). */
function semanticIdParam(query: Query): string {
  const id = base64Param(query, 'semanticId');
  if (id === undefined) throw badParam("Query parameter 'semanticId' (base64url of the semantic id) is required.");
  return id;
}

/** `semanticId` of resolve: base64url of the id, or of a Reference in JSON (as the AAS API's semanticId parameter), whose keys are resolved each. */
function resolveTarget(query: Query): { semanticId?: string; reference?: unknown } {
  const text = semanticIdParam(query);
  if (text.trimStart().startsWith('{')) {
    try {
      const parsed = JSON.parse(text) as unknown;
      if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) return { reference: parsed };
    } catch {
      // not JSON: an id that starts with a brace
    }
  }
  return { semanticId: text };
}

/** The body of a new equivalence set: `{ "name"?: string, "members": string[] }`. */
function setInput(body: unknown): { name?: string | null; members: string[] } {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw badParam('Invalid equivalence set: expected a JSON object with members.');
  const { name, members, ...rest } = body as Record<string, unknown>;
  const unknown = Object.keys(rest)[0];
  if (unknown !== undefined) throw badParam(`Invalid equivalence set at /${unknown}: no such field (name, members).`);
  if (name !== undefined && name !== null && typeof name !== 'string') throw badParam('Invalid equivalence set at /name: expected a string.');
  if (!Array.isArray(members)) throw badParam('Invalid equivalence set at /members: expected a list of semantic ids.');
  members.forEach((m, i) => {
    if (typeof m !== 'string') throw badParam(`Invalid equivalence set at /members/${i}: expected a string.`);
  });
  return { ...(name === undefined ? {} : { name: name as string | null }), members: members as string[] };
}

const sphereUrl = (req: RouteRequest) => `${req.apiUrl().replace(/\/api\/v3\.0$/, '')}/sphere/api/v1.0`;

export const semanticRoutes: RouteSpec[] = [
  {
    method: 'GET',
    path: '/semantics/resolve',
    operation: `query ResolveSemanticId($tenant: String!, $semanticId: String, $reference: JSONObject, $matching: SemanticMatching) {
      resolveSemanticId(tenant: $tenant, semanticId: $semanticId, reference: $reference, matching: $matching) { ${RESOLUTION} } }`,
    variables: (req) => {
      only(req.query, ['semanticId', 'matching']);
      return { tenant: req.tenant, ...resolveTarget(req.query), matching: matching(req) };
    },
    respond: (data) => ({ status: 200, body: { result: data.resolveSemanticId } }),
  },
  {
    method: 'GET',
    path: '/semantics/dictionaries',
    operation: `query SemanticDictionaries($tenant: String!, $limit: Int, $cursor: String) {
      semanticDictionaries(tenant: $tenant, limit: $limit, cursor: $cursor) { result { ${DICTIONARY} } pagingMetadata { cursor } } }`,
    variables: (req) => {
      only(req.query, ['limit', 'cursor']);
      return { tenant: req.tenant, ...paging(req) };
    },
    respond: (data) => ({ status: 200, body: pagedResult(data.semanticDictionaries, (d) => d) }),
  },
  {
    method: 'GET',
    path: '/semantics/dictionaries/:id',
    operation: `query SemanticDictionary($tenant: String!, $id: String!) { semanticDictionary(tenant: $tenant, id: $id) { ${DICTIONARY} } }`,
    variables: (req) => {
      only(req.query, []);
      return { tenant: req.tenant, id: req.params.id };
    },
    respond: (data) => ({ status: 200, body: data.semanticDictionary }),
  },
  {
    method: 'DELETE',
    path: '/semantics/dictionaries/:id',
    operation: 'mutation DeleteSemanticDictionary($tenant: String!, $id: String!) { deleteSemanticDictionary(tenant: $tenant, id: $id) }',
    variables: (req) => {
      only(req.query, []);
      return { tenant: req.tenant, id: req.params.id };
    },
    respond: () => ({ status: 204 }),
  },
  {
    method: 'GET',
    path: '/semantics/entries',
    operation: `query SearchSemanticEntries($tenant: String!, $text: String!, $dictionaryId: String, $limit: Int, $cursor: String) {
      searchSemanticEntries(tenant: $tenant, text: $text, dictionaryId: $dictionaryId, limit: $limit, cursor: $cursor) {
        result { dictionaryId dictionaryName conceptId key isCaseOf meaning { ${MEANING} } } pagingMetadata { cursor } } }`,
    variables: (req) => {
      only(req.query, ['text', 'dictionaryId', 'limit', 'cursor']);
      const text = single(req.query, 'text');
      if (text === undefined) throw badParam("Query parameter 'text' is required.");
      return { tenant: req.tenant, text, dictionaryId: single(req.query, 'dictionaryId') ?? null, ...paging(req) };
    },
    respond: (data) => ({ status: 200, body: pagedResult(data.searchSemanticEntries, (e) => e) }),
  },
  {
    method: 'GET',
    path: '/semantics/equivalence-sets',
    operation: `query EquivalenceSets($tenant: String!, $limit: Int, $cursor: String) {
      equivalenceSets(tenant: $tenant, limit: $limit, cursor: $cursor) { result { ${SET} } pagingMetadata { cursor } } }`,
    variables: (req) => {
      only(req.query, ['limit', 'cursor']);
      return { tenant: req.tenant, ...paging(req) };
    },
    respond: (data) => ({ status: 200, body: pagedResult(data.equivalenceSets, (s) => s) }),
  },
  {
    method: 'POST',
    path: '/semantics/equivalence-sets',
    body: true,
    operation: `mutation CreateEquivalenceSet($tenant: String!, $set: EquivalenceSetInput!) { createEquivalenceSet(tenant: $tenant, set: $set) { ${SET} } }`,
    variables: (req) => {
      only(req.query, []);
      return { tenant: req.tenant, set: setInput(req.body) };
    },
    respond: (data, req) => ({
      status: 201,
      headers: { Location: `${sphereUrl(req)}/semantics/equivalence-sets/${data.createEquivalenceSet.id}` },
      body: data.createEquivalenceSet,
    }),
  },
  {
    method: 'GET',
    path: '/semantics/equivalence-sets/:id',
    operation: `query EquivalenceSet($tenant: String!, $id: String!) { equivalenceSet(tenant: $tenant, id: $id) { ${SET} } }`,
    variables: (req) => {
      only(req.query, []);
      return { tenant: req.tenant, id: req.params.id };
    },
    respond: (data) => ({ status: 200, body: data.equivalenceSet }),
  },
  {
    method: 'DELETE',
    path: '/semantics/equivalence-sets/:id',
    operation: 'mutation DeleteEquivalenceSet($tenant: String!, $id: String!) { deleteEquivalenceSet(tenant: $tenant, id: $id) }',
    variables: (req) => {
      only(req.query, []);
      return { tenant: req.tenant, id: req.params.id };
    },
    respond: () => ({ status: 204 }),
  },
  {
    method: 'GET',
    path: '/semantics/usages',
    operation: `query SemanticIdUsages($tenant: String!, $semanticId: String!, $matching: SemanticMatching, $limit: Int, $cursor: String) {
      semanticIdUsages(tenant: $tenant, semanticId: $semanticId, matching: $matching, limit: $limit, cursor: $cursor) {
        result { submodelId idShortPath modelType semanticId } pagingMetadata { cursor } } }`,
    variables: (req) => {
      only(req.query, ['semanticId', 'matching', 'limit', 'cursor']);
      return { tenant: req.tenant, semanticId: semanticIdParam(req.query), matching: matching(req), ...paging(req) };
    },
    respond: (data) => ({ status: 200, body: pagedResult(data.semanticIdUsages, (u) => u) }),
  },
  {
    method: 'GET',
    path: '/semantics/usages/shells',
    operation: `query SemanticIdShells($tenant: String!, $semanticId: String!, $matching: SemanticMatching, $limit: Int, $cursor: String) {
      semanticIdShells(tenant: $tenant, semanticId: $semanticId, matching: $matching, limit: $limit, cursor: $cursor) { result pagingMetadata { cursor } } }`,
    variables: (req) => {
      only(req.query, ['semanticId', 'matching', 'limit', 'cursor']);
      return { tenant: req.tenant, semanticId: semanticIdParam(req.query), matching: matching(req), ...paging(req) };
    },
    respond: (data) => ({ status: 200, body: pagedResult(data.semanticIdShells, (id) => id) }),
  },
];

const FORMATS = ['aas-json', 'aas-xml', 'aasx', 'eclass-csv'] as const;

/**
 * `POST .../semantics/dictionaries?name=&format=`: a dictionary as a multipart upload (the file in the part `file`),
 * written to a temporary file as it arrives, read, and stored in one transaction. `name` defaults to the file
 * name; `format` is told by the content type, the file name or the content when absent. A contributor's operation.
 */
export function dictionaryUploadHandler(access: TenantAccess, contextOf: (ctx: KoaContext) => Context, uploadLimitBytes: number, sphereUrlOf: (tenant: string) => string): Middleware {
  return async (ctx) => {
    only(ctx.query as Query, ['name', 'format']);
    const query = ctx.query as Query;
    const name = single(query, 'name');
    const format = enumParam(query, 'format', FORMATS);
    const context = contextOf(ctx);
    const tenantName = ctx.state.tenant as string;
    const tenant = await access.contributor(tenantName, context);
    await withUploadedFile(ctx, context, uploadLimitBytes, 'dictionary-', async (file, info) => {
      const dictionary = await context.services.semantics.importDictionaryFile(tenant, file, info, name, format);
      ctx.status = 201;
      ctx.set('Location', `${sphereUrlOf(tenantName)}/semantics/dictionaries/${dictionary.id}`);
      ctx.body = dictionary;
    });
  };
}
