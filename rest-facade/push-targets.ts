import { badParam } from './facade-error';
import { cursorParam, limitParam } from './params';
import { RouteSpec, pagedResult } from './route';

/**
 * Push targets of the sphere service, at `{tenant_url}/sphere/api/v1.0/push-targets`: POST registers one (201 with
 * its Location), GET lists them (paged: `limit`, `cursor`, `paging_metadata`), GET, PATCH (a JSON merge patch of
 * its settings and credentials) and DELETE `/{id}` one. Each
 * route is one GraphQL operation (src/push/). The body is checked for its shape here (known fields, their JSON
 * types), so that a mistyped field is named without echoing the body (it carries credentials); the rules per kind
 * are the core's. Answers never carry a credential: `secretAccessKeySet` / `tokenSet` / `clientSecretSet` say whether
 * one is set.
 */

const TARGET_FIELDS = 'id kind name endpoint bucket region prefix forcePathStyle format accessKeyId url tokenUrl clientId scope authMethod secretSet createdAt lastSuccessAt lastError lastErrorAt backlog';

const STRING_FIELDS = ['kind', 'name', 'endpoint', 'bucket', 'region', 'prefix', 'format', 'url', 'token'];
const BOOLEAN_FIELDS = ['forcePathStyle'];
const CREDENTIAL_FIELDS = ['accessKeyId', 'secretAccessKey'];
const CLIENT_CREDENTIAL_FIELDS = ['tokenUrl', 'clientId', 'clientSecret', 'scope', 'authMethod'];

interface TargetJson {
  id: string;
  kind: 's3' | 'aasx-server';
  name: string | null;
  endpoint: string | null;
  bucket: string | null;
  region: string | null;
  prefix: string | null;
  forcePathStyle: boolean | null;
  format: string;
  accessKeyId: string | null;
  url: string | null;
  tokenUrl: string | null;
  clientId: string | null;
  scope: string | null;
  authMethod: string | null;
  secretSet: boolean;
  createdAt: string;
  lastSuccessAt: string | null;
  lastError: string | null;
  lastErrorAt: string | null;
  backlog: number;
}

/**
 * The body as the `PushTargetInput` variable; a body that is no object, a field of no push target, or of the wrong
 * JSON type, is 400.
 */
export function targetInput(body: unknown): Record<string, unknown> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw badParam('Invalid push target: expected a JSON object.');
  const members = body as Record<string, unknown>;
  for (const [name, value] of Object.entries(members)) {
    if (value === null) continue;
    if (STRING_FIELDS.includes(name)) {
      if (typeof value !== 'string') throw badParam(`Invalid push target at /${name}: expected a string.`);
    } else if (BOOLEAN_FIELDS.includes(name)) {
      if (typeof value !== 'boolean') throw badParam(`Invalid push target at /${name}: expected true or false.`);
    } else if (name === 'credentials') {
      if (typeof value !== 'object' || Array.isArray(value)) throw badParam('Invalid push target at /credentials: expected an object with accessKeyId and secretAccessKey.');
      for (const [field, secret] of Object.entries(value as Record<string, unknown>)) {
        if (!CREDENTIAL_FIELDS.includes(field)) throw badParam(`Invalid push target at /credentials/${field}: no such field (accessKeyId, secretAccessKey).`);
        if (secret !== null && typeof secret !== 'string') throw badParam(`Invalid push target at /credentials/${field}: expected a string.`);
      }
    } else if (name === 'clientCredentials') {
      if (typeof value !== 'object' || Array.isArray(value)) throw badParam('Invalid push target at /clientCredentials: expected an object with tokenUrl, clientId and clientSecret.');
      for (const [field, member] of Object.entries(value as Record<string, unknown>)) {
        if (!CLIENT_CREDENTIAL_FIELDS.includes(field)) throw badParam(`Invalid push target at /clientCredentials/${field}: no such field (${CLIENT_CREDENTIAL_FIELDS.join(', ')}).`);
        if (member !== null && typeof member !== 'string') throw badParam(`Invalid push target at /clientCredentials/${field}: expected a string.`);
      }
    } else throw badParam(`Invalid push target at /${name}: no such field (${[...STRING_FIELDS, ...BOOLEAN_FIELDS, 'credentials', 'clientCredentials'].join(', ')}).`);
  }
  return members;
}

/** A target as the REST API answers it: the fields of its kind, the state of its pushes, never a credential. */
export function targetJson(target: TargetJson): Record<string, unknown> {
  const status = { lastSuccessAt: target.lastSuccessAt, lastError: target.lastError, lastErrorAt: target.lastErrorAt, backlog: target.backlog };
  const head = { id: target.id, kind: target.kind, ...(target.name !== null ? { name: target.name } : {}) };
  if (target.kind === 's3') {
    return {
      ...head,
      ...(target.endpoint !== null ? { endpoint: target.endpoint } : {}),
      bucket: target.bucket,
      region: target.region,
      prefix: target.prefix,
      forcePathStyle: target.forcePathStyle,
      format: target.format,
      credentials: { accessKeyId: target.accessKeyId, secretAccessKeySet: target.secretSet },
      createdAt: target.createdAt,
      status,
    };
  }
  if (target.tokenUrl !== null) {
    const clientCredentials = {
      tokenUrl: target.tokenUrl,
      clientId: target.clientId,
      ...(target.scope !== null ? { scope: target.scope } : {}),
      authMethod: target.authMethod,
      clientSecretSet: target.secretSet,
    };
    return { ...head, url: target.url, tokenSet: false, clientCredentials, createdAt: target.createdAt, status };
  }
  return { ...head, url: target.url, tokenSet: target.secretSet, createdAt: target.createdAt, status };
}

/** The target's id in a path: any text (a UUID names one; anything else names none, 404). */
const idOf = (params: Record<string, string>) => params.id;

export const pushTargetRoutes: RouteSpec[] = [
  {
    method: 'GET',
    path: '/push-targets',
    operation: `query PushTargets($tenant: String!, $limit: Int, $cursor: String) { pushTargets(tenant: $tenant, limit: $limit, cursor: $cursor) { result { ${TARGET_FIELDS} } pagingMetadata { cursor } } }`,
    variables: (req) => {
      for (const name of Object.keys(req.query)) if (name !== 'limit' && name !== 'cursor') throw badParam(`Unknown query parameter '${name}' (limit, cursor).`);
      const limit = limitParam(req.query);
      return { tenant: req.tenant, ...(limit === undefined ? {} : { limit }), cursor: cursorParam(req.query) };
    },
    respond: (data) => ({ status: 200, body: pagedResult(data.pushTargets, targetJson) }),
  },
  {
    method: 'POST',
    path: '/push-targets',
    body: true,
    operation: `mutation RegisterPushTarget($tenant: String!, $target: PushTargetInput!) { registerPushTarget(tenant: $tenant, target: $target) { ${TARGET_FIELDS} } }`,
    variables: (req) => ({ tenant: req.tenant, target: targetInput(req.body) }),
    respond: (data, req) => ({
      status: 201,
      headers: { Location: `${req.apiUrl().replace(/\/api\/v3\.0$/, '')}/sphere/api/v1.0/push-targets/${data.registerPushTarget.id}` },
      body: targetJson(data.registerPushTarget),
    }),
  },
  {
    method: 'GET',
    path: '/push-targets/:id',
    operation: `query PushTarget($tenant: String!, $id: String!) { pushTarget(tenant: $tenant, id: $id) { ${TARGET_FIELDS} } }`,
    variables: (req) => ({ tenant: req.tenant, id: idOf(req.params) }),
    respond: (data) => ({ status: 200, body: targetJson(data.pushTarget) }),
  },
  {
    method: 'PATCH',
    path: '/push-targets/:id',
    body: true,
    operation: `mutation UpdatePushTarget($tenant: String!, $id: String!, $target: PushTargetInput!) { updatePushTarget(tenant: $tenant, id: $id, target: $target) { ${TARGET_FIELDS} } }`,
    variables: (req) => ({ tenant: req.tenant, id: idOf(req.params), target: targetInput(req.body) }),
    respond: (data) => ({ status: 200, body: targetJson(data.updatePushTarget) }),
  },
  {
    method: 'DELETE',
    path: '/push-targets/:id',
    operation: 'mutation DeletePushTarget($tenant: String!, $id: String!) { deletePushTarget(tenant: $tenant, id: $id) }',
    variables: (req) => ({ tenant: req.tenant, id: idOf(req.params) }),
    respond: () => ({ status: 204 }),
  },
];
