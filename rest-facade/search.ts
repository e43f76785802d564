import { badParam } from './facade-error';
import { cursorParam, enumParam, limitParam } from './params';
import { RouteSpec } from './route';

/**
 * POST /search (platform spec: "database-style queries over available indexes"): the body names an index and a
 * condition, in the full form (`{"index", "query": {"$condition", "$select"?}}`, the AAS Query Language) or the
 * simple form (`{"index", ...one condition's members, "select"?}` or `{"index", "conditions": [...], "select"?}`);
 * `limit` and `cursor` are query parameters, as for the AAS API's POST /query routes. The GraphQL core validates
 * the rest (src/aas/search/).
 */
const SIMPLE_FRAME = new Set(['index', 'query', 'conditions', 'select']);

function searchVariables(body: unknown): Record<string, unknown> {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw badParam('The search body must be a JSON object.');
  const members = body as Record<string, unknown>;
  if (typeof members.index !== 'string') throw badParam('Invalid search at /index: expected the name of an index (a string).');
  // What the GraphQL variables' types would refuse with a message about variables, said about the body instead.
  if (members.query != null && (typeof members.query !== 'object' || Array.isArray(members.query))) throw badParam('Invalid search at /query: expected an object (an AAS Query Language query).');
  if (members.conditions != null) {
    if (!Array.isArray(members.conditions)) throw badParam('Invalid search at /conditions: expected an array of conditions.');
    members.conditions.forEach((c, i) => {
      if (c === null || typeof c !== 'object' || Array.isArray(c)) throw badParam(`Invalid search at /conditions/${i}: expected an object.`);
    });
  }
  if (members.select != null && typeof members.select !== 'string') throw badParam('Invalid search at /select: expected "id".');
  const inline = Object.fromEntries(Object.entries(members).filter(([name]) => !SIMPLE_FRAME.has(name)));
  return {
    index: members.index,
    query: members.query ?? null,
    condition: Object.keys(inline).length ? inline : null,
    conditions: members.conditions ?? null,
    select: members.select ?? null,
  };
}

export const searchRoutes: RouteSpec[] = [
  {
    method: 'POST',
    path: '/search',
    body: true,
    operation: `query Search($tenant: String!, $index: String!, $query: JSONObject, $condition: JSONObject, $conditions: [JSONObject!], $select: String, $limit: Int, $cursor: String, $matching: SemanticMatching) {
      search(tenant: $tenant, index: $index, query: $query, condition: $condition, conditions: $conditions, select: $select, limit: $limit, cursor: $cursor, semanticIdMatching: $matching) {
        result { id submodelIds shell { json } } pagingMetadata { cursor } } }`,
    variables: (req) => {
      const limit = limitParam(req.query);
      const matching = enumParam(req.query, 'semanticIdMatching', ['exact', 'equivalent'] as const);
      return { tenant: req.tenant, ...searchVariables(req.body), ...(limit === undefined ? {} : { limit }), cursor: cursorParam(req.query), ...(matching ? { matching } : {}) };
    },
    respond: (data, req) => {
      const page = data.search as { result: { id: string; submodelIds: string[]; shell: { json: unknown } | null }[]; pagingMetadata: { cursor?: string | null } };
      const cursor = page.pagingMetadata.cursor;
      const idsOnly = selectsIds(req.body);
      return {
        status: 200,
        body: {
          paging_metadata: cursor ? { cursor } : {},
          result: page.result.map((hit) => (idsOnly ? hit.id : { shell: hit.shell?.json ?? null, submodelIds: hit.submodelIds })),
        },
      };
    },
  },
];

/** Whether the search asks for shell ids only: `$select` of the full form's query, `select` of the simple form. */
function selectsIds(body: unknown): boolean {
  const members = body as { query?: { $select?: unknown }; select?: unknown };
  return members.select === 'id' || (typeof members.query === 'object' && members.query !== null && members.query.$select === 'id');
}
