import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import proxyaddr from 'proxy-addr';
import { isUuid } from './common/uuid';

/**
 * The longest a statement waits for a lock another transaction holds (PostgreSQL's lock_timeout), unless
 * DB_LOCK_TIMEOUT_MS says otherwise: a write holds its lock for one statement, an import on what it writes; a longer
 * wait is a busy row, answered 503 with Retry-After.
 */
export const DEFAULT_LOCK_TIMEOUT_MS = 10_000;

/** Every setting of the server, read once from the environment, typed and validated. */
export interface Config {
  host: string;
  port: number;
  /** Base URL clients use to reach this server; tenant URLs are derived from it. */
  publicUrl: string;
  /** Base URL of the Management API and the identity service (`MANAGE_URL`, else `publicUrl`). */
  manageUrl: string;
  /**
   * Origins whose browser pages may call the APIs (CORS): a list of origins, or `'*'` for any. Absent (the
   * default): no CORS headers at all.
   */
  corsOrigins?: string[] | '*';
  /** When set, tenants are also served host-based at `{name}.{tenantHostSuffix}`. */
  tenantHostSuffix?: string;
  /** PostgreSQL connection string; absent means the embedded PostgreSQL (PGlite) under `dataDir`. */
  databaseUrl?: string;
  dataDir: string;
  dbPoolSize: number;
  /**
   * How long to wait for a connection to a database reached over TCP (`DB_CONNECT_TIMEOUT_MS`): a free one from the
   * pool, or a new one connected; beyond it the request answers 503.
   */
  dbConnectTimeoutMs: number;
  /**
   * How long a connection to a database reached over TCP may stay silent with a statement under way (`DB_ANSWER_TIMEOUT_MS`)
   * before the database is checked on a new connection: when that check fails too, the statement fails (503) and its
   * connection is dropped. Also the heartbeat of the LISTEN connections. See README, "When the database does not answer".
   */
  dbAnswerTimeoutMs: number;
  /**
   * How long a statement waits for a row or table lock another request holds (`DB_LOCK_TIMEOUT_MS`, PostgreSQL's
   * lock_timeout): beyond it the request answers 503 with Retry-After, never waits out the statement timeout.
   */
  dbLockTimeoutMs: number;
  /**
   * Largest JSON body of a route that takes a large document (a submodel, a submodel element, a GraphQL request of a
   * caller with a token), in bytes after decompression (`BODY_LIMIT`). Uploads and imports stream under
   * FILE_UPLOAD_LIMIT instead.
   */
  bodyLimitBytes: number;
  /**
   * Largest JSON body of every other route (`REQUEST_BODY_LIMIT`): shells, concept descriptions, descriptors, queries,
   * searches, the Management API, GraphQL requests without a token. Never more than `bodyLimitBytes`.
   */
  requestBodyLimitBytes: number;
  /**
   * Most values (structural tokens: `{ [ , :`) one JSON body may hold (`BODY_VALUE_LIMIT`), and at most one per 8 bytes
   * of its route's byte limit: what parsing a body costs follows its values, not only its bytes.
   */
  bodyValueLimit: number;
  /**
   * Bytes per second the server reads and drops of the bodies it refused before their end (`REFUSED_BODY_RATE`), all
   * such bodies together: what a refused client still sends costs the server at most this much reading.
   */
  refusedBodyRate: number;
  /** Shares of expensive work (src/common/work-shares.ts). */
  work: WorkConfig;
  /** Most bytes of stored documents one request may read and answer (REST and GraphQL alike). */
  responseLimitBytes: number;
  /** How long the statement of one page of an AAS Query Language query may run (`QUERY_TIMEOUT_MS`); beyond it: 400. */
  queryTimeoutMs: number;
  /**
   * How many conditions on submodel elements (`$sme` fields) one query may have (`QUERY_MAX_ELEMENT_CONDITIONS`);
   * more: 400 before the database is asked. 0: no bound (PostgreSQL's default, where QUERY_TIMEOUT_MS stops a query).
   */
  queryMaxElementConditions: number;
  /** The read cache of shells, submodels and concept descriptions (src/aas/store/read-cache.ts). */
  readCache: { maxBytes: number; ttlMs: number };
  /** How long a client may take to send a request's headers, and its whole request (body included). */
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  /** How long an idle kept-alive connection stays open for the client's next request. */
  keepAliveTimeoutMs: number;
  /** Open connections allowed from one client address; 0: no limit. */
  maxConnectionsPerClient: number;
  /** Which peers' `X-Forwarded-*` headers are believed (`TRUST_PROXY`); off by default (src/common/client-address.ts). */
  trustProxy: TrustProxy;
  logLevel: string;
  /** Grace period for in-flight requests on SIGINT/SIGTERM. */
  shutdownTimeoutMs: number;
  /** On SIGINT/SIGTERM, how long to go on serving (readiness 503, every answer closing its connection) before the stop. */
  shutdownDrainMs: number;
  auth: AuthConfig;
  /** Whether the `default` tenant created on the first start runs in showcase mode (no token needed). */
  defaultTenantShowcase: boolean;
  /** Login of the first organization's owner, created on the first start with a one-time password. */
  bootstrapOwnerEmail: string;
  /** A service account owning the first organization, created on the first start (scripted set-ups). */
  provisioningClient?: { id: string; secret: string };
  /** Where the file repository keeps file contents, and how large one upload may be. */
  files: FilesConfig;
  events: EventsConfig;
  /**
   * Whether push targets (src/push/) may be plain http and on loopback, private or link-local addresses
   * (`PUSH_PRIVATE_NETWORKS`). Off by default: any contributor of a tenant sets a target's URL, and the server calls it.
   */
  pushPrivateNetworks: boolean;
}

/**
 * How much expensive work (AAS Query Language queries, search, serializations, imports, AASX packages) may run at
 * once: per caller (`WORK_LIMIT_PER_CALLER`), per tenant (`WORK_LIMIT_PER_TENANT`), and in all the database pool
 * minus a reserve for cheap requests (`DB_POOL_RESERVE`). Beyond a share: 429 with Retry-After.
 */
export interface WorkConfig {
  perCaller: number;
  perTenant: number;
  /** Connections of the pool expensive work never takes; it runs at most `dbPoolSize - poolReserve` (at least 1) at once. */
  poolReserve: number;
}

/** Change events (src/events/publisher.ts). Tenants opt in one by one (`eventsEnabled`). */
export interface EventsConfig {
  /** Whether this process delivers the outbox (`EVENTS_PUBLISH`, default on). Off: events wait for a replica that does. */
  publish: boolean;
  /** The MQTT broker (`MQTT_URL`, e.g. `mqtt://broker:1883`); absent: no MQTT, events still reach subscriptions and push targets. */
  mqttUrl?: string;
  mqttUsername?: string;
  mqttPassword?: string;
  /** How often the outbox is looked at for writes of other replicas (`EVENTS_POLL_MS`); this process's own writes wake it at once. */
  pollMs: number;
  /** Most events per delivery round (`EVENTS_BATCH_SIZE`). */
  batchSize: number;
  /** How long delivered events stay in the outbox before they are pruned (`EVENTS_RETENTION_SECONDS`). */
  retentionSeconds: number;
}

/**
 * `false`: no forwarded header is believed. `hops`: this many proxies stand in front of the server (the peer of
 * every connection is one). `addresses`: the proxies' addresses or CIDR ranges (or proxy-addr's names
 * `loopback`, `linklocal`, `uniquelocal`); only peers among them are believed.
 */
export type TrustProxy = false | { hops: number } | { addresses: string[] };

export interface FilesConfig {
  /** Largest file one upload may carry, in bytes (`FILE_UPLOAD_LIMIT`); larger uploads get 413 and store nothing. */
  uploadLimitBytes: number;
  /** `postgres`: chunks in the database (the default); `s3`: objects in an S3-compatible bucket. */
  store: { kind: 'postgres' } | S3StoreConfig;
}

export interface S3StoreConfig {
  kind: 's3';
  /** Endpoint of an S3-compatible service (MinIO, Ceph, ...); absent: AWS S3 of the region. */
  endpoint?: string;
  bucket: string;
  region: string;
  /** Static credentials; absent: the AWS SDK's default chain (environment, profile, instance role). */
  credentials?: { accessKeyId: string; secretAccessKey: string };
  /** Bucket in the path (`{endpoint}/{bucket}/{key}`) instead of the host name; most S3-compatible services need it. */
  forcePathStyle: boolean;
}

export interface AuthConfig {
  /** The `aud` of the built-in identity service's access tokens. */
  audience: string;
  /** Signature algorithms accepted on tokens of external (federated) issuers; asymmetric ones only. */
  algorithms: string[];
  clockToleranceSec: number;
  /** Lifetime of access tokens the built-in identity service issues. */
  tokenTtlSec: number;
  /** Whether anyone may sign up for an identity account (POST /api/v1/accounts, the login page's sign-up). */
  signupEnabled: boolean;
  /** How long an invitation stays open. */
  invitationTtlSec: number;
  /**
   * Failed authentications allowed per minute for one client id, one account or one client address (token
   * endpoint, login page); more are refused with 429 and Retry-After until the minute is over.
   */
  failureLimit: number;
  /**
   * Whether identity providers' JWKS URLs may be plain http or on loopback, private or link-local addresses.
   * Off by default: any organization owner sets such a URL, and the server fetches it.
   */
  federationPrivateNetworks: boolean;
}

export class ConfigError extends Error {}

const SIZE_UNITS: Record<string, number> = { b: 1, kb: 1024, mb: 1024 ** 2, gb: 1024 ** 3 };
const LOG_LEVELS = new Set(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']);
const ALLOWED_ALGORITHMS = new Set(['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512']);

export function parseSize(text: string): number {
  const m = /^\s*(\d+)\s*(b|kb|mb|gb)?\s*$/i.exec(text);
  if (!m) throw new ConfigError(`not a size: "${text}" (use e.g. 50mb)`);
  return Number(m[1]) * SIZE_UNITS[(m[2] ?? 'b').toLowerCase()];
}

function int(env: NodeJS.ProcessEnv, name: string, dflt: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return dflt;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max) throw new ConfigError(`${name} must be an integer in ${min}..${max}, got "${raw}"`);
  return n;
}

function bool(env: NodeJS.ProcessEnv, name: string, dflt: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return dflt;
  if (/^(1|true|yes|on)$/i.test(raw)) return true;
  if (/^(0|false|no|off)$/i.test(raw)) return false;
  throw new ConfigError(`${name} must be true or false, got "${raw}"`);
}

/** `REFUSED_BODY_RATE`: bytes a second, at least 64 KB (0 would never read the rest of a refused body). */
function refusedBodyRate(env: NodeJS.ProcessEnv): number {
  const rate = size(env, 'REFUSED_BODY_RATE', '48mb');
  if (rate < 64 * 1024) throw new ConfigError(`REFUSED_BODY_RATE must be at least 64kb (bytes a second), got "${env.REFUSED_BODY_RATE}"`);
  return rate;
}

/** A setting that is a size (`50mb`), named in the error when it is not one. */
function size(env: NodeJS.ProcessEnv, name: string, dflt: string): number {
  const raw = env[name] || dflt;
  try {
    return parseSize(raw);
  } catch (err) {
    throw new ConfigError(`${name}: ${(err as Error).message}`);
  }
}

const TRUST_PROXY_HELP = 'the number of proxies in front of the server (1, 2, ...) or their addresses (10.0.0.7, 10.0.0.0/8, loopback, ...)';

/** TRUST_PROXY: off (the default), a hop count, or a comma list of proxy addresses and CIDR ranges. */
function trustProxy(raw: string | undefined): TrustProxy {
  const value = (raw ?? '').trim();
  if (value === '' || /^(off|false|0)$/i.test(value)) return false;
  // Believing any peer would let every client choose its own address (and others'): the proxies must be named.
  if (/^(on|true|yes)$/i.test(value)) throw new ConfigError(`TRUST_PROXY=${value} would believe X-Forwarded-For from anyone; give ${TRUST_PROXY_HELP}`);
  if (/^\d+$/.test(value)) {
    const hops = Number(value);
    if (hops > 100) throw new ConfigError(`TRUST_PROXY must be a hop count in 1..100 or proxy addresses, got "${raw}"`);
    return { hops };
  }
  const addresses = value.split(',').map((a) => a.trim());
  for (const address of addresses) {
    try {
      if (address === '') throw new Error('empty');
      proxyaddr.compile(address);
    } catch {
      throw new ConfigError(`TRUST_PROXY: "${address}" is not an IP address, a CIDR range or one of loopback, linklocal, uniquelocal; give ${TRUST_PROXY_HELP}`);
    }
  }
  return { addresses };
}

/**
 * An absolute URL of one of `schemes` (without the colon), normalized without a trailing slash. `localhost:8080`
 * parses as a URL of the scheme `localhost:`, which is why the scheme is checked.
 */
function url(name: string, raw: string, schemes: readonly string[] = ['http', 'https']): string {
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(`${name} must be an absolute URL (${schemes[0]}://host[:port][/path]), got "${shown(raw)}"`);
  }
  if (!schemes.includes(parsed.protocol.slice(0, -1)) || !parsed.host) {
    throw new ConfigError(`${name} must be a ${schemes.join(' or ')} URL (${schemes[0]}://host[:port][/path]), got "${shown(raw)}"`);
  }
  return parsed.toString().replace(/\/$/, '');
}

/** A URL as an error message shows it: credentials (`user:password@`) masked. */
const shown = (raw: string) => raw.replace(/\/\/[^/@]*@/, '//***@');

/**
 * DATABASE_URL: a `postgres://` or `postgresql://` connection string; its host may be empty (a unix socket in
 * `?host=`), so only the scheme is checked here, and the value is not repeated (it holds a password).
 */
function postgresUrl(raw: string | undefined): string | undefined {
  if (raw === undefined || raw === '') return undefined;
  if (!/^postgres(ql)?:\/\//i.test(raw) || !URL.canParse(raw)) {
    throw new ConfigError('DATABASE_URL must be a PostgreSQL connection string, postgres://user:password@host:5432/database');
  }
  return raw;
}

/** A base URL clients are given (`PUBLIC_URL`, `MANAGE_URL`): other URLs are built below it, so it has no query or fragment. */
function baseUrl(name: string, raw: string): string {
  const normalized = url(name, raw);
  const parsed = new URL(normalized);
  if (parsed.search || parsed.hash || parsed.username || parsed.password) {
    throw new ConfigError(`${name} must be a base URL without credentials, query or fragment (http(s)://host[:port][/path]), got "${shown(raw)}"`);
  }
  return normalized;
}

const HOST_NAME = /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/i;

/** HOST: an IP address or a host name to listen on. */
function listenHost(raw: string | undefined): string {
  if (raw === undefined || raw === '') return '0.0.0.0';
  if (net.isIP(raw) || HOST_NAME.test(raw)) return raw;
  throw new ConfigError(`HOST must be an IP address or a host name to listen on (e.g. 0.0.0.0, 127.0.0.1, ::), got "${raw}"`);
}

/** CORS_ORIGINS: `*`, or comma-separated origins (`scheme://host[:port]`, no path), each normalized. */
function corsOrigins(raw: string | undefined): Config['corsOrigins'] {
  const items = (raw ?? '').split(',').map((o) => o.trim()).filter(Boolean);
  if (!items.length) return undefined;
  if (items.includes('*')) {
    if (items.length > 1) throw new ConfigError('CORS_ORIGINS is either * or a list of origins, not both');
    return '*';
  }
  return [
    ...new Set(
      items.map((item) => {
        let parsed: URL | undefined;
        try {
          parsed = new URL(item);
        } catch {
          parsed = undefined;
        }
        if (!parsed || !/^https?:$/.test(parsed.protocol) || parsed.pathname !== '/' || parsed.search || parsed.hash || parsed.username || !/^https?:\/\/[^/]+\/?$/i.test(item)) {
          throw new ConfigError(`CORS_ORIGINS: "${item}" is not an origin (http(s)://host[:port], no path)`);
        }
        return parsed.origin;
      }),
    ),
  ];
}

/** TENANT_HOST_SUFFIX: a host name (`assets.example.com`); tenant `x` is then served at `x.{suffix}`. */
function tenantHostSuffix(raw: string | undefined): string | undefined {
  if (raw === undefined || raw === '') return undefined;
  if (!HOST_NAME.test(raw)) throw new ConfigError(`TENANT_HOST_SUFFIX must be a host name such as assets.example.com (tenant x is served at x.{suffix}), got "${raw}"`);
  return raw;
}

/** BOOTSTRAP_CLIENT_ID (a UUID) and BOOTSTRAP_CLIENT_SECRET (at least 32 characters) come together, or not at all. */
function provisioningClient(env: NodeJS.ProcessEnv): Config['provisioningClient'] {
  const id = env.BOOTSTRAP_CLIENT_ID || undefined;
  const secret = env.BOOTSTRAP_CLIENT_SECRET || undefined;
  if (!id && !secret) return undefined;
  if (!id || !isUuid(id)) throw new ConfigError('BOOTSTRAP_CLIENT_ID must be a UUID, set together with BOOTSTRAP_CLIENT_SECRET');
  if (!secret || secret.length < 32) throw new ConfigError('BOOTSTRAP_CLIENT_SECRET must be at least 32 characters, set together with BOOTSTRAP_CLIENT_ID');
  return { id: id.toLowerCase(), secret };
}

/** FILE_STORE and the S3_* settings it needs; FILE_UPLOAD_LIMIT. */
function filesConfig(env: NodeJS.ProcessEnv): FilesConfig {
  const uploadLimitBytes = size(env, 'FILE_UPLOAD_LIMIT', '512mb');
  if (uploadLimitBytes < 1) throw new ConfigError('FILE_UPLOAD_LIMIT must be at least 1 byte');
  const kind = (env.FILE_STORE || 'postgres').toLowerCase();
  if (kind === 'postgres') return { uploadLimitBytes, store: { kind: 'postgres' } };
  if (kind !== 's3') throw new ConfigError(`FILE_STORE must be postgres or s3, got "${env.FILE_STORE}"`);
  const bucket = env.S3_BUCKET || '';
  if (!/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(bucket)) throw new ConfigError(`FILE_STORE=s3 needs S3_BUCKET, a bucket name (3-63 lowercase letters, digits, dots, dashes), got "${bucket}"`);
  const accessKeyId = env.S3_ACCESS_KEY_ID || undefined;
  const secretAccessKey = env.S3_SECRET_ACCESS_KEY || undefined;
  if (!accessKeyId !== !secretAccessKey) throw new ConfigError('S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY are set together, or neither');
  return {
    uploadLimitBytes,
    store: {
      kind: 's3',
      endpoint: env.S3_ENDPOINT ? url('S3_ENDPOINT', env.S3_ENDPOINT) : undefined,
      bucket,
      region: env.S3_REGION || 'us-east-1',
      credentials: accessKeyId && secretAccessKey ? { accessKeyId, secretAccessKey } : undefined,
      forcePathStyle: bool(env, 'S3_FORCE_PATH_STYLE', false),
    },
  };
}

/**
 * The default of QUERY_MAX_ELEMENT_CONDITIONS on the embedded database, which cannot interrupt a statement: a query
 * reads at most this many `$sme` fields there. Each is a test of the submodel's element rows with a regular
 * expression on their paths: over the same 50 submodels, a query of 20 such conditions took 0.29 s there, one of
 * 50 took 3.7 s (PostgreSQL keeps 32 compiled regular expressions; more are compiled anew row after row).
 */
const MAX_ELEMENT_CONDITIONS_EMBEDDED = 32;

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const port = int(env, 'PORT', 8080, 0, 65535);
  const databaseUrl = postgresUrl(env.DATABASE_URL);
  const algorithms = (env.AUTH_ALGORITHMS ?? 'RS256,PS256,ES256').split(',').map((a) => a.trim()).filter(Boolean);
  for (const a of algorithms) {
    if (!ALLOWED_ALGORITHMS.has(a)) throw new ConfigError(`AUTH_ALGORITHMS: ${a} is not an asymmetric JWS algorithm`);
  }
  const logLevel = env.LOG_LEVEL || 'info';
  const bodyLimitBytes = size(env, 'BODY_LIMIT', '64mb');
  // A document that could be stored must be readable again: the response budget is at least twice the body limit
  // (PostgreSQL's text of a document is somewhat larger than the JSON that was sent).
  const responseLimitBytes = env.RESPONSE_LIMIT ? size(env, 'RESPONSE_LIMIT', '') : Math.max(128 * 1024 ** 2, 2 * bodyLimitBytes);
  if (responseLimitBytes < 2 * bodyLimitBytes) throw new ConfigError(`RESPONSE_LIMIT must be at least twice BODY_LIMIT (${2 * bodyLimitBytes} bytes)`);
  const headersTimeoutMs = int(env, 'HEADERS_TIMEOUT_MS', 10_000, 1_000, 600_000);
  if (!LOG_LEVELS.has(logLevel)) throw new ConfigError(`LOG_LEVEL must be one of ${[...LOG_LEVELS].join(', ')}, got "${logLevel}"`);
  const publicUrl = baseUrl('PUBLIC_URL', env.PUBLIC_URL || `http://localhost:${port}`);
  const dbPoolSize = int(env, 'DB_POOL_SIZE', databaseUrl ? 10 : 4, 1, 200);
  return {
    host: listenHost(env.HOST),
    port,
    publicUrl,
    manageUrl: env.MANAGE_URL ? baseUrl('MANAGE_URL', env.MANAGE_URL) : publicUrl,
    corsOrigins: corsOrigins(env.CORS_ORIGINS),
    tenantHostSuffix: tenantHostSuffix(env.TENANT_HOST_SUFFIX),
    databaseUrl,
    dataDir: path.resolve(env.DATA_DIR || 'data'),
    dbPoolSize,
    dbConnectTimeoutMs: int(env, 'DB_CONNECT_TIMEOUT_MS', 5_000, 100, 600_000),
    dbAnswerTimeoutMs: int(env, 'DB_ANSWER_TIMEOUT_MS', 5_000, 100, 600_000),
    dbLockTimeoutMs: int(env, 'DB_LOCK_TIMEOUT_MS', DEFAULT_LOCK_TIMEOUT_MS, 100, 600_000),
    bodyLimitBytes,
    requestBodyLimitBytes: Math.min(bodyLimitBytes, size(env, 'REQUEST_BODY_LIMIT', '4mb')),
    bodyValueLimit: int(env, 'BODY_VALUE_LIMIT', 6_000_000, 1_000, 1_000_000_000),
    refusedBodyRate: refusedBodyRate(env),
    work: {
      perCaller: int(env, 'WORK_LIMIT_PER_CALLER', 4, 1, 10_000),
      perTenant: int(env, 'WORK_LIMIT_PER_TENANT', 8, 1, 10_000),
      // A third of the pool by default (10: 3 kept for cheap requests, 7 for expensive work). The embedded database
      // runs one statement at a time whatever its pool: there expensive work runs one at a time (all but one
      // connection kept), so a cheap statement waits for at most one expensive one (session-queue.ts).
      poolReserve: int(env, 'DB_POOL_RESERVE', databaseUrl ? Math.floor(dbPoolSize / 3) : dbPoolSize - 1, 0, dbPoolSize - 1),
    },
    responseLimitBytes,
    queryTimeoutMs: int(env, 'QUERY_TIMEOUT_MS', 5_000, 10, 600_000),
    // The embedded database cannot interrupt a statement: a query is bounded before it starts.
    queryMaxElementConditions: int(env, 'QUERY_MAX_ELEMENT_CONDITIONS', databaseUrl ? 0 : MAX_ELEMENT_CONDITIONS_EMBEDDED, 0, 100_000),
    readCache: {
      // A modest share of memory: 2% of it, at most 256 MB; 0 turns the cache off.
      maxBytes: env.READ_CACHE_SIZE ? size(env, 'READ_CACHE_SIZE', '') : Math.min(256 * 1024 ** 2, Math.round(os.totalmem() * 0.02)),
      ttlMs: int(env, 'READ_CACHE_TTL_SECONDS', 60, 1, 86_400) * 1_000,
    },
    headersTimeoutMs,
    requestTimeoutMs: int(env, 'REQUEST_TIMEOUT_MS', 120_000, headersTimeoutMs, 3_600_000),
    keepAliveTimeoutMs: int(env, 'KEEP_ALIVE_TIMEOUT_MS', 30_000, 1_000, 600_000),
    maxConnectionsPerClient: int(env, 'MAX_CONNECTIONS_PER_CLIENT', 128, 0, 1_000_000),
    trustProxy: trustProxy(env.TRUST_PROXY),
    logLevel,
    shutdownTimeoutMs: int(env, 'SHUTDOWN_TIMEOUT_MS', 10_000, 0, 600_000),
    shutdownDrainMs: int(env, 'SHUTDOWN_DRAIN_MS', 0, 0, 600_000),
    auth: {
      audience: env.AUTH_AUDIENCE || 'asset-platform',
      algorithms,
      clockToleranceSec: int(env, 'AUTH_CLOCK_TOLERANCE_SEC', 30, 0, 300),
      tokenTtlSec: int(env, 'TOKEN_TTL_SEC', 3600, 60, 86_400),
      signupEnabled: bool(env, 'SIGNUP_ENABLED', true),
      invitationTtlSec: int(env, 'INVITATION_TTL_SEC', 7 * 86_400, 60, 365 * 86_400),
      federationPrivateNetworks: bool(env, 'FEDERATION_PRIVATE_NETWORKS', false),
      failureLimit: int(env, 'AUTH_FAILURE_LIMIT', 5, 1, 10_000),
    },
    defaultTenantShowcase: bool(env, 'DEFAULT_TENANT_SHOWCASE', !databaseUrl),
    bootstrapOwnerEmail: env.BOOTSTRAP_OWNER_EMAIL || 'admin@localhost',
    provisioningClient: provisioningClient(env),
    files: filesConfig(env),
    pushPrivateNetworks: bool(env, 'PUSH_PRIVATE_NETWORKS', false),
    events: {
      publish: bool(env, 'EVENTS_PUBLISH', true),
      mqttUrl: env.MQTT_URL ? url('MQTT_URL', env.MQTT_URL, ['mqtt', 'mqtts', 'ws', 'wss']) : undefined,
      mqttUsername: env.MQTT_USERNAME || undefined,
      mqttPassword: env.MQTT_PASSWORD || undefined,
      pollMs: int(env, 'EVENTS_POLL_MS', 1_000, 10, 600_000),
      batchSize: int(env, 'EVENTS_BATCH_SIZE', 200, 1, 10_000),
      retentionSeconds: int(env, 'EVENTS_RETENTION_SECONDS', 60, 0, 86_400),
    },
  };
}
