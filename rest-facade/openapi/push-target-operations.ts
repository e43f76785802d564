import { DEFAULT_LIMIT, MAX_LIMIT, MIN_LIMIT } from '../../src/common/cursor';
import { SPHERE_API } from '../tenant-api';
import { Bundler, Json, PART2 } from './bundle';

/**
 * The push targets of the sphere service at `{tenant_url}/sphere/api/v1.0/push-targets` (rest-facade/push-targets.ts,
 * src/push/), which no AAS specification describes. The limits repeat src/push/push-target.service.ts (LIMITS),
 * which the façade may not import.
 */
const TAG = 'Push Target API';
const LIMITS = { name: 128, url: 2048, bucket: 63, region: 64, prefix: 512, accessKeyId: 256, secret: 1024, token: 4096, clientId: 256, scope: 1024 };

const text = (description: string, max: number, extra: Json = {}) => ({ type: 'string', description, maxLength: max, ...extra });
const nullableDate = (description: string) => ({ type: ['string', 'null'], format: 'date-time', description });

const STATUS: Json = {
  type: 'object',
  description: 'The state of the pushes to this target.',
  required: ['lastSuccessAt', 'lastError', 'lastErrorAt', 'backlog'],
  properties: {
    lastSuccessAt: nullableDate('When a push last succeeded.'),
    lastError: { type: ['string', 'null'], description: 'Why the last failed push failed (kept after later successes: compare the times).' },
    lastErrorAt: nullableDate('When a push last failed.'),
    backlog: { type: 'integer', minimum: 0, description: 'Shells waiting to be pushed: queued, or failed and waiting for their retry (1 s, doubling, up to 5 min).' },
  },
};

const S3_INPUT: Json = {
  type: 'object',
  title: 's3',
  description:
    'An S3-compatible bucket. Each changed shell is written as the object `{prefix}{base64url(shellId)}.aasx` (an AASX package of the shell, ' +
    'its submodels and their concept descriptions, the environment as JSON) or `.json` (that environment as JSON); a deleted shell\'s object is deleted.',
  required: ['kind', 'bucket', 'region', 'credentials'],
  additionalProperties: false,
  properties: {
    kind: { const: 's3' },
    name: text('A name for people.', LIMITS.name),
    endpoint: text('The endpoint of an S3-compatible service (MinIO, Ceph, ...); absent: AWS S3 of the region. https and a public address unless PUSH_PRIVATE_NETWORKS.', LIMITS.url, { format: 'uri' }),
    bucket: text('The bucket name.', LIMITS.bucket, { minLength: 3, pattern: '^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$' }),
    region: text('The region.', LIMITS.region, { minLength: 1, pattern: '^[A-Za-z0-9-]+$', example: 'eu-central-1' }),
    prefix: text('Put before every object key (no leading `/`).', LIMITS.prefix, { default: '' }),
    forcePathStyle: { type: 'boolean', default: false, description: 'The bucket in the path instead of the host name (most S3-compatible services need it).' },
    format: { type: 'string', enum: ['aasx', 'json'], default: 'aasx' },
    credentials: {
      type: 'object',
      description: 'Required: the server never pushes with credentials of its own. The secret access key is write-only.',
      required: ['accessKeyId', 'secretAccessKey'],
      additionalProperties: false,
      properties: {
        accessKeyId: text('', LIMITS.accessKeyId, { minLength: 1 }),
        secretAccessKey: text('Write-only: no answer shows it.', LIMITS.secret, { minLength: 1, writeOnly: true }),
      },
    },
  },
};

const AASX_SERVER_INPUT: Json = {
  type: 'object',
  title: 'aasx-server',
  description:
    'An AASX File Server (AAS API Part 2, SSP-001, e.g. another tenant\'s `{tenant_url}/api/v3.0`). A changed shell is posted to `{url}/packages` ' +
    '(multipart `file`, `fileName`, `aasIds`) the first time and put to `{url}/packages/{packageId}` after; a deleted shell\'s package is deleted.',
  required: ['kind', 'url'],
  additionalProperties: false,
  properties: {
    kind: { const: 'aasx-server' },
    name: text('A name for people.', LIMITS.name),
    url: text('The base URL of its AASX File Server API. https and a public address unless PUSH_PRIVATE_NETWORKS.', LIMITS.url, { format: 'uri' }),
    token: text('A static bearer token sent with every push. Write-only: no answer shows it. Excludes clientCredentials.', LIMITS.token, { writeOnly: true }),
    clientCredentials: {
      type: 'object',
      description:
        'OAuth 2.0 client credentials (RFC 6749 4.4), instead of a static token: the server POSTs `grant_type=client_credentials` (and `scope`) to ' +
        '`tokenUrl`, keeps the token until shortly before its `expires_in` (a tenth of its lifetime, at most 60 s), and fetches a new one then, or ' +
        'once when the target answers 401. The token URL passes the same rules as `url`. Excludes token.',
      required: ['tokenUrl', 'clientId', 'clientSecret'],
      additionalProperties: false,
      properties: {
        tokenUrl: text('The token endpoint. https and a public address unless PUSH_PRIVATE_NETWORKS.', LIMITS.url, { format: 'uri' }),
        clientId: text('', LIMITS.clientId, { minLength: 1 }),
        clientSecret: text('Write-only: no answer shows it.', LIMITS.secret, { minLength: 1, writeOnly: true }),
        scope: text('Space-separated scopes to ask for; absent: none.', LIMITS.scope),
        authMethod: {
          type: 'string',
          enum: ['client_secret_basic', 'client_secret_post'],
          default: 'client_secret_basic',
          description: 'How the client authenticates at the token endpoint: HTTP Basic, or `client_id` and `client_secret` in the form.',
        },
      },
    },
  },
};

const PATCH: Json = {
  type: 'object',
  description:
    'A JSON merge patch (RFC 7396) of a target: a field given replaces the stored one, null removes an optional one; `credentials` and ' +
    '`clientCredentials` merge field by field. `token` and `clientCredentials` exclude each other: giving one drops the other (client credentials ' +
    'in place of a token need tokenUrl, clientId and clientSecret). `kind` cannot change. The result must be a valid target of its kind ' +
    '(see PushTargetInput); fields of the other kind are refused.',
  properties: {
    ...(S3_INPUT.properties as Record<string, Json>),
    ...(AASX_SERVER_INPUT.properties as Record<string, Json>),
    kind: { type: 'string', enum: ['s3', 'aasx-server'], description: 'If given, the kind the target has.' },
  },
  additionalProperties: false,
};

const TARGET: Json = {
  oneOf: [
    {
      type: 'object',
      title: 's3',
      required: ['id', 'kind', 'bucket', 'region', 'prefix', 'forcePathStyle', 'format', 'credentials', 'createdAt', 'status'],
      additionalProperties: false,
      properties: {
        id: { type: 'string', format: 'uuid' },
        kind: { const: 's3' },
        name: { type: 'string' },
        endpoint: { type: 'string' },
        bucket: { type: 'string' },
        region: { type: 'string' },
        prefix: { type: 'string' },
        forcePathStyle: { type: 'boolean' },
        format: { type: 'string', enum: ['aasx', 'json'] },
        credentials: {
          type: 'object',
          required: ['accessKeyId', 'secretAccessKeySet'],
          properties: { accessKeyId: { type: 'string' }, secretAccessKeySet: { type: 'boolean', description: 'Whether the secret access key is set (never the key).' } },
        },
        createdAt: { type: 'string', format: 'date-time' },
        status: { $ref: '#/components/schemas/PushTargetStatus' },
      },
    },
    {
      type: 'object',
      title: 'aasx-server',
      required: ['id', 'kind', 'url', 'tokenSet', 'createdAt', 'status'],
      additionalProperties: false,
      properties: {
        id: { type: 'string', format: 'uuid' },
        kind: { const: 'aasx-server' },
        name: { type: 'string' },
        url: { type: 'string' },
        tokenSet: { type: 'boolean', description: 'Whether a static bearer token is set (never the token).' },
        clientCredentials: {
          type: 'object',
          description: 'Present when the target authenticates with OAuth 2.0 client credentials.',
          required: ['tokenUrl', 'clientId', 'authMethod', 'clientSecretSet'],
          properties: {
            tokenUrl: { type: 'string' },
            clientId: { type: 'string' },
            scope: { type: 'string' },
            authMethod: { type: 'string', enum: ['client_secret_basic', 'client_secret_post'] },
            clientSecretSet: { type: 'boolean', description: 'Whether the client secret is set (never the secret).' },
          },
        },
        createdAt: { type: 'string', format: 'date-time' },
        status: { $ref: '#/components/schemas/PushTargetStatus' },
      },
    },
  ],
};

const COMPONENTS: Record<string, Json> = {
  PushTargetStatus: STATUS,
  PushTargetInput: { oneOf: [S3_INPUT, AASX_SERVER_INPUT], discriminator: { propertyName: 'kind' } },
  PushTargetPatch: PATCH,
  PushTarget: TARGET,
  GetPushTargetsResult: {
    type: 'object',
    required: ['paging_metadata', 'result'],
    properties: {
      paging_metadata: { type: 'object', properties: { cursor: { type: 'string', description: 'Where the next page starts; absent on the last page.' } } },
      result: { type: 'array', items: { $ref: '#/components/schemas/PushTarget' } },
    },
  },
};

const ID_PARAMETER = {
  name: 'id',
  in: 'path',
  required: true,
  description: 'The id the registration answered (a UUID); anything else names no target (404).',
  schema: { type: 'string' },
};

/** The operation of `method` `path` (below the tenant URL) if it is one of the push target routes, else undefined. */
export function pushTargetOperation(bundler: Bundler, method: string, path: string): Json | undefined {
  const base = `${SPHERE_API}/push-targets`;
  if (path !== base && path !== `${base}/{id}`) return undefined;
  for (const [name, node] of Object.entries(COMPONENTS)) {
    const schemas = (bundler.components.schemas ??= {});
    if (schemas[name] !== undefined && schemas[name] !== node) throw new Error(`The component schemas/${name} exists already in the bundle.`);
    schemas[name] = node;
  }
  const part2 = (name: string) => bundler.copy({ $ref: `#/components/responses/${name}` }, PART2);
  const errors = (...statuses: ('400' | '401' | '403' | '404')[]) =>
    Object.fromEntries(statuses.map((s) => [s, part2({ '400': 'bad-request', '401': 'unauthorized', '403': 'forbidden', '404': 'not-found' }[s])]));
  const target = { $ref: '#/components/schemas/PushTarget' };
  const key = `${method.toUpperCase()} ${path === base ? '' : '/{id}'}`;
  const operations: Record<string, Json> = {
    'GET ': {
      summary: "Returns the tenant's push targets",
      operationId: 'GetAllPushTargets',
      description: 'In registration order, paged, each with the state of its pushes. Needs the tenant role reader.',
      parameters: [
        { name: 'limit', in: 'query', required: false, description: `Page size, ${MIN_LIMIT} to ${MAX_LIMIT} (default ${DEFAULT_LIMIT}); anything else is 400.`, schema: { type: 'integer', minimum: MIN_LIMIT, maximum: MAX_LIMIT } },
        { name: 'cursor', in: 'query', required: false, description: 'The `paging_metadata.cursor` of the previous page.', schema: { type: 'string' } },
      ],
      responses: { '200': { description: 'The push targets', content: { 'application/json': { schema: { $ref: '#/components/schemas/GetPushTargetsResult' } } } }, ...errors('400', '401', '404') },
    },
    'POST ': {
      summary: 'Registers a push target',
      operationId: 'PostPushTarget',
      description:
        'From now on, every committed change of a shell of this tenant (or of a submodel a shell references) is pushed to the target, whether or ' +
        'not the tenant has change events switched on (`eventsEnabled`): retried with backoff, its state visible in `status`. ' +
        'Credentials are write-only. An unknown kind or field, a missing or malformed field, a string over its limit: 400. Needs the tenant role contributor.',
      requestBody: { required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/PushTargetInput' } } } },
      responses: {
        '201': {
          description: 'Registered',
          headers: { Location: { description: 'The URL of the new target.', schema: { type: 'string' } } },
          content: { 'application/json': { schema: target } },
        },
        ...errors('400', '401', '403', '404'),
        '413': { description: 'The body is larger than BODY_LIMIT.', content: { 'application/json': { schema: bundler.copy({ $ref: '#/components/schemas/Result' }, PART2) } } },
        '415': { description: 'The body is not JSON.', content: { 'application/json': { schema: bundler.copy({ $ref: '#/components/schemas/Result' }, PART2) } } },
      },
    },
    'GET /{id}': {
      summary: 'Returns a push target and the state of its pushes',
      operationId: 'GetPushTargetById',
      description: 'Needs the tenant role reader.',
      parameters: [ID_PARAMETER],
      responses: { '200': { description: 'The push target', content: { 'application/json': { schema: target } } }, ...errors('401', '404') },
    },
    'PATCH /{id}': {
      summary: "Changes a push target's settings or credentials",
      operationId: 'PatchPushTargetById',
      description:
        'A JSON merge patch (see PushTargetPatch), e.g. a new URL, a new token, or client credentials in place of a token. The target keeps its ' +
        'state: the packages it pushed to, its queued pushes (due at once, so new credentials are tried now), its last success and error. ' +
        'A body that is not an object, an unknown field, a change of kind, or a result that is not a valid target: 400. Needs the tenant role contributor.',
      parameters: [ID_PARAMETER],
      requestBody: { required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/PushTargetPatch' } } } },
      responses: {
        '200': { description: 'Changed', content: { 'application/json': { schema: target } } },
        ...errors('400', '401', '403', '404'),
        '413': { description: 'The body is larger than BODY_LIMIT.', content: { 'application/json': { schema: bundler.copy({ $ref: '#/components/schemas/Result' }, PART2) } } },
        '415': { description: 'The body is not JSON.', content: { 'application/json': { schema: bundler.copy({ $ref: '#/components/schemas/Result' }, PART2) } } },
      },
    },
    'DELETE /{id}': {
      summary: 'Deletes a push target',
      operationId: 'DeletePushTargetById',
      description: 'Its queued pushes go with it; what it pushed stays at the target. Needs the tenant role contributor.',
      parameters: [ID_PARAMETER],
      responses: { '204': { description: 'Deleted' }, ...errors('401', '403', '404') },
    },
  };
  const operation = operations[key];
  if (!operation) return undefined;
  return { tags: [TAG], ...operation, responses: { ...operation.responses, default: part2('default') } };
}
