import { randomUUID } from 'node:crypto';
import { DataSource, EntityManager } from 'typeorm';
import { outboundProblem } from '../auth/outbound';
import { checkLimit, cursorList, decodeCursor, encodeCursor } from '../common/cursor';
import type { ChangeEvent, DeliveredHook } from '../events/change-event';
import { isUuid } from '../common/uuid';
import { badRequest, notFound } from '../graphql/errors';
import type { TenantEntity } from '../management/tenants/tenant.entity';

export type PushTargetKind = 's3' | 'aasx-server';
export const PUSH_TARGET_KINDS: readonly PushTargetKind[] = ['s3', 'aasx-server'];
export type PushFormat = 'aasx' | 'json';

/** What a target is told to be, as clients send it (REST body, GraphQL input); checked by {@link PushTargetService.register}. */
export interface PushTargetInput {
  kind?: string | null;
  name?: string | null;
  endpoint?: string | null;
  bucket?: string | null;
  region?: string | null;
  prefix?: string | null;
  forcePathStyle?: boolean | null;
  format?: string | null;
  credentials?: { accessKeyId?: string | null; secretAccessKey?: string | null } | null;
  url?: string | null;
  token?: string | null;
  clientCredentials?: ClientCredentialsInput | null;
}

/** OAuth 2.0 client credentials of an AASX File Server target, as clients send them. */
export interface ClientCredentialsInput {
  tokenUrl?: string | null;
  clientId?: string | null;
  clientSecret?: string | null;
  scope?: string | null;
  authMethod?: string | null;
}

/** How the client authenticates at the token endpoint (RFC 6749 2.3.1; OpenID Connect's names). */
export type ClientAuthMethod = 'client_secret_basic' | 'client_secret_post';
export const CLIENT_AUTH_METHODS: readonly ClientAuthMethod[] = ['client_secret_basic', 'client_secret_post'];

/** Where and as whom a target's tokens are fetched; the client secret is the target's secret. */
export interface ClientCredentialsSettings {
  tokenUrl: string;
  clientId: string;
  scope: string | null;
  authMethod: ClientAuthMethod;
}

/** The settings answers show; the secret (S3 secret access key, bearer token) is kept apart and never shown. */
export interface S3Settings {
  name: string | null;
  endpoint: string | null;
  bucket: string;
  region: string;
  prefix: string;
  forcePathStyle: boolean;
  format: PushFormat;
  accessKeyId: string;
}
export interface AasxServerSettings {
  name: string | null;
  url: string;
  /** With client credentials, the secret is the client secret; without, it is a static bearer token (or none). */
  clientCredentials?: ClientCredentialsSettings;
}

/** A target as answers show it: its settings, whether its secret is set, and the state of its pushes. */
export interface PushTargetView {
  id: string;
  kind: PushTargetKind;
  name: string | null;
  endpoint: string | null;
  bucket: string | null;
  region: string | null;
  prefix: string | null;
  forcePathStyle: boolean | null;
  format: PushFormat;
  accessKeyId: string | null;
  url: string | null;
  /** aasx-server with client credentials: where tokens are fetched, as whom, for what, how the client authenticates. */
  tokenUrl: string | null;
  clientId: string | null;
  scope: string | null;
  authMethod: ClientAuthMethod | null;
  /** Whether the secret access key (s3), the bearer token or the client secret (aasx-server) is set; never the value. */
  secretSet: boolean;
  createdAt: Date;
  lastSuccessAt: Date | null;
  lastError: string | null;
  lastErrorAt: Date | null;
  /** Shells waiting to be pushed (queued, or failed and waiting for their retry). */
  backlog: number;
}

/** A target as the push worker needs it: settings and secret. */
export type PushTargetConfig =
  | { id: string; tenantId: string; kind: 's3'; settings: S3Settings; secret: string }
  | { id: string; tenantId: string; kind: 'aasx-server'; settings: AasxServerSettings; secret: string | null };

interface TargetRow {
  id: string;
  tenant_id: string;
  seq: string;
  kind: PushTargetKind;
  settings: S3Settings | AasxServerSettings;
  secret: string | null;
  created_at: Date;
  last_success_at: Date | null;
  last_error: string | null;
  last_error_at: Date | null;
  backlog?: string | number;
}

export interface PushTargetOptions {
  /** Whether target URLs may be plain http and on loopback, private or link-local addresses (tests, closed networks). */
  privateNetworks: boolean;
}

const CURSOR_LIST = 'push-targets';
/** Targets per tenant: each one multiplies the work of every change. */
export const MAX_TARGETS_PER_TENANT = 20;
export const LIMITS = { name: 128, url: 2048, bucket: 63, region: 64, prefix: 512, accessKeyId: 256, secret: 1024, token: 4096, clientId: 256, scope: 1024 };
/** S3 bucket naming rules (lower-case letters, digits, dots, hyphens; 3 to 63; starts and ends with a letter or digit). */
const BUCKET = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;
const REGION = /^[A-Za-z0-9-]{1,64}$/;
const S3_FIELDS = new Set(['kind', 'name', 'endpoint', 'bucket', 'region', 'prefix', 'forcePathStyle', 'format', 'credentials']);
const AASX_FIELDS = new Set(['kind', 'name', 'url', 'token', 'clientCredentials']);
const CLIENT_CREDENTIAL_FIELDS = new Set(['tokenUrl', 'clientId', 'clientSecret', 'scope', 'authMethod']);
/** A scope: space-separated scope tokens (RFC 6749 3.3). */
const SCOPE = /^[\x21\x23-\x5b\x5d-\x7e]+( [\x21\x23-\x5b\x5d-\x7e]+)*$/;
/** Targets with their backlog, of the tenant `$1` (the count names the tenant: one shard on a distributed database). */
const SELECT = `SELECT t.*, (SELECT count(*) FROM push_jobs j WHERE j.tenant_id = $1 AND j.target_id = t.id) AS backlog FROM push_targets t`;

/**
 * Push targets of a tenant (the sphere service's `/push-targets`): an S3-compatible bucket that receives the AASX
 * (or JSON environment) of each changed shell, or an AASX File Server that receives it as a package. Registered,
 * listed, read and deleted here; {@link enqueue} queues the pushes for delivered change events, and PushWorker
 * (push.worker.ts) makes them. Credentials are write-only: kept for the pushes, never in a {@link PushTargetView}.
 */
export class PushTargetService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly options: PushTargetOptions,
  ) {}

  async register(tenant: TenantEntity, input: PushTargetInput): Promise<PushTargetView> {
    const { kind, settings, secret } = await this.check(input);
    const id = randomUUID();
    await this.dataSource.transaction(async (manager) => {
      // Serializes registrations of one tenant, so the count below holds. FOR NO KEY UPDATE: the writes of the tenant's
      // data (an import for long) hold a key-share lock on the row, which this one leaves them.
      await manager.query('SELECT id FROM tenants WHERE id = $1 FOR NO KEY UPDATE', [tenant.id]);
      const [{ count }] = await manager.query('SELECT count(*)::int AS count FROM push_targets WHERE tenant_id = $1', [tenant.id]);
      if (count >= MAX_TARGETS_PER_TENANT) throw badRequest(`A tenant has at most ${MAX_TARGETS_PER_TENANT} push targets; delete one first.`);
      await manager.query('INSERT INTO push_targets (tenant_id, id, kind, settings, secret) VALUES ($1, $2, $3, $4, $5)', [tenant.id, id, kind, JSON.stringify(settings), secret]);
    });
    return this.get(tenant, id);
  }

  async list(tenant: TenantEntity, limit: number, cursor: string | null): Promise<{ items: PushTargetView[]; cursor: string | null }> {
    const problem = checkLimit(limit);
    if (problem) throw badRequest(problem);
    let after = 0;
    if (cursor != null) {
      const key = decodeCursor(cursorList(CURSOR_LIST, tenant.id), cursor);
      if (typeof key !== 'number') throw badRequest('The cursor is not one this list issued.');
      after = key;
    }
    const rows: TargetRow[] = await this.dataSource.query(`${SELECT} WHERE t.tenant_id = $1 AND t.seq > $2 ORDER BY t.seq LIMIT $3`, [tenant.id, after, limit + 1]);
    const more = rows.length > limit;
    const page = rows.slice(0, limit);
    return { items: page.map(viewOf), cursor: more ? encodeCursor(cursorList(CURSOR_LIST, tenant.id), Number(page[page.length - 1].seq)) : null };
  }

  async get(tenant: TenantEntity, id: string): Promise<PushTargetView> {
    if (!isUuid(id)) throw targetNotFound(id);
    const [row]: TargetRow[] = await this.dataSource.query(`${SELECT} WHERE t.tenant_id = $1 AND t.id = $2`, [tenant.id, id]);
    if (!row) throw targetNotFound(id);
    return viewOf(row);
  }

  /** Deletes a target with its queued pushes; what it pushed stays where it is. */
  async delete(tenant: TenantEntity, id: string): Promise<void> {
    if (!isUuid(id)) throw targetNotFound(id);
    const [, deleted] = (await this.dataSource.query('DELETE FROM push_targets WHERE tenant_id = $1 AND id = $2', [tenant.id, id])) as [unknown[], number];
    if (!deleted) throw targetNotFound(id);
  }

  /**
   * Changes a target's settings or credentials (a JSON merge patch: a field given replaces, null removes an optional
   * one; `credentials` and `clientCredentials` merge field by field). A bearer token and client credentials exclude
   * each other: giving one drops the other. The merged target is checked as a registration is; its kind cannot
   * change. Its state stays: the packages it pushed to, its queued pushes (due at once, so new credentials are tried
   * now rather than after the backoff), its last success and error.
   */
  async update(tenant: TenantEntity, id: string, patch: PushTargetInput): Promise<PushTargetView> {
    if (!isUuid(id)) throw targetNotFound(id);
    await this.dataSource.transaction(async (manager) => {
      const [row]: TargetRow[] = await manager.query('SELECT * FROM push_targets WHERE tenant_id = $1 AND id = $2 FOR UPDATE', [tenant.id, id]);
      if (!row) throw targetNotFound(id);
      if (patch.kind !== undefined && patch.kind !== row.kind) throw badRequest(`A push target's kind cannot change (it is ${row.kind}); register a new target instead.`);
      const { settings, secret } = await this.check(merged(inputOf(row), patch));
      await manager.query('UPDATE push_targets SET settings = $3, secret = $4 WHERE tenant_id = $1 AND id = $2', [tenant.id, id, JSON.stringify(settings), secret]);
      await manager.query('UPDATE push_jobs SET next_attempt_at = now(), attempts = 0 WHERE tenant_id = $1 AND target_id = $2', [tenant.id, id]);
    });
    return this.get(tenant, id);
  }

  /** A target with its secret, for the push worker; undefined once deleted. */
  async config(tenantId: string, id: string): Promise<PushTargetConfig | undefined> {
    const [row]: TargetRow[] = await this.dataSource.query('SELECT * FROM push_targets WHERE tenant_id = $1 AND id = $2', [tenantId, id]);
    if (!row) return undefined;
    return { id: row.id, tenantId: row.tenant_id, kind: row.kind, settings: row.settings, secret: row.secret } as PushTargetConfig;
  }

  /**
   * The publisher's {@link DeliveredHook}: in the delivery transaction, queues a push of every shell the delivered
   * events changed, for every target of its tenant. A shell event queues that shell; a submodel event the shells that
   * reference the submodel (through the GIN index on `shells.submodel_ids`); concept descriptions none. One queued
   * push per target and shell is enough: the push reads the shell's current state (a change while it runs bumps the
   * job's generation, so it is pushed again).
   */
  readonly enqueue: DeliveredHook = async (manager: EntityManager, events: ChangeEvent[]) => {
    const changed = new Map<string, { shells: Set<string>; submodels: Set<string> }>();
    for (const event of events) {
      if (event.entityType === 'ConceptDescription') continue;
      let entry = changed.get(event.tenantId);
      if (!entry) changed.set(event.tenantId, (entry = { shells: new Set(), submodels: new Set() }));
      (event.entityType === 'AssetAdministrationShell' ? entry.shells : entry.submodels).add(event.entityId);
    }
    if (!changed.size) return;
    for (const [tenantId, { shells, submodels }] of changed) {
      const targets: { id: string }[] = await manager.query('SELECT id FROM push_targets WHERE tenant_id = $1', [tenantId]);
      if (!targets.length) continue;
      const ids = targets.map((t) => t.id);
      if (submodels.size) {
        const referencing: { id: string }[] = await manager.query('SELECT id FROM shells WHERE tenant_id = $1 AND submodel_ids && $2::text[]', [tenantId, [...submodels]]);
        for (const { id } of referencing) shells.add(id);
      }
      if (!shells.size) continue;
      // Ordered, so that concurrent deliveries lock the same rows in the same order.
      await manager.query(
        `INSERT INTO push_jobs (tenant_id, target_id, shell_key, shell_id)
         SELECT $1::uuid, t, md5(s), s FROM unnest($2::uuid[]) AS t CROSS JOIN unnest($3::text[]) AS s ORDER BY 1, 2, 3
         ON CONFLICT (tenant_id, target_id, shell_key) DO UPDATE SET generation = push_jobs.generation + 1`,
        [tenantId, ids, [...shells]],
      );
    }
  };

  /** The input checked: one kind's fields only, each within its limits; URLs fetchable under the outbound rules. */
  private async check(input: PushTargetInput): Promise<{ kind: PushTargetKind; settings: S3Settings | AasxServerSettings; secret: string | null }> {
    const problems: string[] = [];
    const given = Object.entries(input).filter(([, v]) => v !== undefined && v !== null).map(([k]) => k);
    const kind = input.kind;
    if (typeof kind !== 'string' || !(PUSH_TARGET_KINDS as readonly string[]).includes(kind)) {
      throw badRequest(`A push target's kind must be one of ${PUSH_TARGET_KINDS.join(', ')}.`);
    }
    const allowed = kind === 's3' ? S3_FIELDS : AASX_FIELDS;
    for (const field of given) if (!allowed.has(field)) problems.push(`'${field}' is not a field of a push target of kind ${kind}.`);
    const text = (field: string, value: string | null | undefined, max: number, required: boolean, pattern?: RegExp, rule?: string): string | null => {
      if (value === undefined || value === null) {
        if (required) problems.push(`'${field}' is required for a push target of kind ${kind}.`);
        return null;
      }
      if (value.length > max) problems.push(`'${field}' is longer than ${max} characters.`);
      else if (required && value.trim() === '') problems.push(`'${field}' must not be empty.`);
      // eslint-disable-next-line no-control-regex -- control characters are what it refuses
      else if (/[\u0000-\u001f\u007f]/.test(value)) problems.push(`'${field}' contains control characters.`);
      else if (pattern && !pattern.test(value)) problems.push(`'${field}' ${rule}.`);
      return value;
    };
    const name = text('name', input.name, LIMITS.name, false);
    if (kind === 's3') {
      const endpoint = text('endpoint', input.endpoint, LIMITS.url, false);
      if (endpoint !== null && endpoint.length <= LIMITS.url) await this.checkUrl('endpoint', endpoint, problems);
      const bucket = text('bucket', input.bucket, LIMITS.bucket, true, BUCKET, 'must be an S3 bucket name (3 to 63 lower-case letters, digits, dots and hyphens)');
      const region = text('region', input.region, LIMITS.region, true, REGION, 'must be a region name (letters, digits and hyphens)');
      const prefix = text('prefix', input.prefix, LIMITS.prefix, false) ?? '';
      if (prefix.startsWith('/')) problems.push("'prefix' must not start with '/' (object keys are relative to the bucket).");
      const format = input.format ?? 'aasx';
      if (format !== 'aasx' && format !== 'json') problems.push("'format' must be aasx or json.");
      const credentials = input.credentials;
      let accessKeyId: string | null = null;
      let secret: string | null = null;
      if (!credentials) problems.push("'credentials' (accessKeyId and secretAccessKey) are required: the server never pushes with credentials of its own.");
      else {
        for (const field of Object.keys(credentials)) {
          if (field !== 'accessKeyId' && field !== 'secretAccessKey') problems.push(`'credentials.${field}' is not a field of credentials.`);
        }
        accessKeyId = text('credentials.accessKeyId', credentials.accessKeyId, LIMITS.accessKeyId, true);
        secret = text('credentials.secretAccessKey', credentials.secretAccessKey, LIMITS.secret, true);
      }
      if (problems.length) throw badRequest(problems[0], problems);
      const settings: S3Settings = { name, endpoint, bucket: bucket!, region: region!, prefix, forcePathStyle: input.forcePathStyle ?? false, format: format as PushFormat, accessKeyId: accessKeyId! };
      return { kind, settings, secret };
    }
    const url = text('url', input.url, LIMITS.url, true);
    if (url !== null && url.length <= LIMITS.url && url.trim() !== '') await this.checkUrl('url', url, problems);
    const token = text('token', input.token, LIMITS.token, false);
    if (token !== null && !/^[\x21-\x7e]+$/.test(token)) problems.push("'token' must be a bearer token (visible ASCII characters, no spaces).");
    const cc = input.clientCredentials;
    let clientCredentials: ClientCredentialsSettings | undefined;
    let clientSecret: string | null = null;
    if (cc) {
      if (token !== null) problems.push("'token' and 'clientCredentials' exclude each other: give a static bearer token or client credentials.");
      for (const field of Object.keys(cc)) if (!CLIENT_CREDENTIAL_FIELDS.has(field)) problems.push(`'clientCredentials.${field}' is not a field of client credentials.`);
      const tokenUrl = text('clientCredentials.tokenUrl', cc.tokenUrl, LIMITS.url, true);
      if (tokenUrl !== null && tokenUrl.length <= LIMITS.url && tokenUrl.trim() !== '') await this.checkUrl('clientCredentials.tokenUrl', tokenUrl, problems);
      const clientId = text('clientCredentials.clientId', cc.clientId, LIMITS.clientId, true);
      clientSecret = text('clientCredentials.clientSecret', cc.clientSecret, LIMITS.secret, true);
      const scope = text('clientCredentials.scope', cc.scope, LIMITS.scope, false, SCOPE, 'must be scope names separated by single spaces');
      const authMethod = cc.authMethod ?? 'client_secret_basic';
      if (!(CLIENT_AUTH_METHODS as readonly string[]).includes(authMethod)) problems.push(`'clientCredentials.authMethod' must be one of ${CLIENT_AUTH_METHODS.join(', ')}.`);
      clientCredentials = { tokenUrl: tokenUrl!, clientId: clientId!, scope, authMethod: authMethod as ClientAuthMethod };
    }
    if (problems.length) throw badRequest(problems[0], problems);
    const settings: AasxServerSettings = { name, url: url!.replace(/\/+$/, ''), ...(clientCredentials ? { clientCredentials } : {}) };
    return { kind: 'aasx-server', settings, secret: clientCredentials ? clientSecret : token };
  }

  private async checkUrl(field: string, value: string, problems: string[]): Promise<void> {
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      problems.push(`'${field}' is not an absolute URL.`);
      return;
    }
    if (url.protocol !== 'https:' && url.protocol !== 'http:') problems.push(`'${field}' must be an http or https URL.`);
    else if (url.username || url.password) problems.push(`'${field}' must not carry credentials (give them in their own fields).`);
    else if (url.search || url.hash) problems.push(`'${field}' must have no query or fragment.`);
    else if (!this.options.privateNetworks) {
      const problem = await outboundProblem(value, `'${field}'`, 'PUSH_PRIVATE_NETWORKS');
      if (problem) problems.push(problem);
    }
  }
}

/** A stored target as the input that registers it (secret included), for {@link PushTargetService.update}. */
function inputOf(row: TargetRow): PushTargetInput {
  if (row.kind === 's3') {
    const { accessKeyId, ...settings } = row.settings as S3Settings;
    return { kind: 's3', ...settings, credentials: { accessKeyId, secretAccessKey: row.secret } };
  }
  const { clientCredentials, ...settings } = row.settings as AasxServerSettings;
  return clientCredentials ? { kind: 'aasx-server', ...settings, clientCredentials: { ...clientCredentials, clientSecret: row.secret } } : { kind: 'aasx-server', ...settings, token: row.secret };
}

/**
 * `patch` applied to `input` (JSON merge patch, RFC 7396: given fields replace, null removes; the credential objects
 * merge). A bearer token and client credentials exclude each other, so giving one drops the other, and client
 * credentials given in place of a token start empty (all their required fields must be given).
 */
function merged(input: PushTargetInput, patch: PushTargetInput): PushTargetInput {
  const out: Record<string, unknown> = { ...input };
  for (const [field, value] of Object.entries(patch)) {
    if (value === undefined) continue;
    if ((field === 'credentials' || field === 'clientCredentials') && value !== null && typeof value === 'object' && !Array.isArray(value)) {
      const before = (out[field] ?? {}) as Record<string, unknown>;
      const next: Record<string, unknown> = { ...before };
      for (const [key, v] of Object.entries(value as Record<string, unknown>)) {
        if (v === null) delete next[key];
        else if (v !== undefined) next[key] = v;
      }
      out[field] = next;
    } else if (value === null) delete out[field];
    else out[field] = value;
  }
  // Both given: both stay, and the check refuses them.
  if (patch.token != null && patch.clientCredentials == null) delete out.clientCredentials;
  if (patch.clientCredentials != null && patch.token == null) delete out.token;
  // Nulls in the stored input (unset optional settings) are absent, as in a registration.
  for (const [field, value] of Object.entries(out)) if (value === null) delete out[field];
  return out as PushTargetInput;
}

function viewOf(row: TargetRow): PushTargetView {
  const s3 = row.kind === 's3' ? (row.settings as S3Settings) : undefined;
  const server = row.kind === 'aasx-server' ? (row.settings as AasxServerSettings) : undefined;
  return {
    id: row.id,
    kind: row.kind,
    name: row.settings.name ?? null,
    endpoint: s3?.endpoint ?? null,
    bucket: s3?.bucket ?? null,
    region: s3?.region ?? null,
    prefix: s3 ? s3.prefix : null,
    forcePathStyle: s3 ? s3.forcePathStyle : null,
    format: s3?.format ?? 'aasx',
    accessKeyId: s3?.accessKeyId ?? null,
    url: server?.url ?? null,
    tokenUrl: server?.clientCredentials?.tokenUrl ?? null,
    clientId: server?.clientCredentials?.clientId ?? null,
    scope: server?.clientCredentials?.scope ?? null,
    authMethod: server?.clientCredentials?.authMethod ?? null,
    secretSet: row.secret !== null,
    createdAt: row.created_at,
    lastSuccessAt: row.last_success_at,
    lastError: row.last_error,
    lastErrorAt: row.last_error_at,
    backlog: Number(row.backlog ?? 0),
  };
}

const targetNotFound = (id: string) => notFound(`No push target '${id}' in this tenant.`);
