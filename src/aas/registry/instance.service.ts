import { DataSource } from 'typeorm';
import { checkLimit, cursorList, decodeCursor, encodeCursor } from '../../common/cursor';
import { etagOf, ifMatchAdmits } from '../../common/etag';
import { badRequest, conflict, notFound, preconditionFailed } from '../../graphql/errors';
import { isUuid } from '../../common/uuid';
import type { TenantEntity } from '../../management/tenants/tenant.entity';
import type { Page } from '../store/identifiable-store';
import { InstanceKind, RegistryInstanceEntity } from './registry.entities';

export const INSTANCE_KINDS: readonly InstanceKind[] = ['discovery', 'aas-registry'];

/** An instance name is one URL path segment, like a tenant name: lowercase letters, digits and inner dashes. */
export const INSTANCE_NAME = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

/**
 * Names an instance cannot take: the fixed first segments under `{tenant_url}/` (`api`, `sphere`) and the names
 * the platform uses or may use there (its consoles, documents, well-known paths), so that no instance can shadow
 * a route of the platform now or later.
 */
export const RESERVED_INSTANCE_NAMES: ReadonlySet<string> = new Set([
  'api', 'sphere', 'graphql', 'console', 'consoles', 'docs', 'openapi', 'swagger', 'asyncapi', 'oidc', 'auth', 'login',
  'logout', 'health', 'healthz', 'ready', 'metrics', 'static', 'assets', 'well-known', 'tenants', 'manage', 'admin',
  'me', 'description', 'lookup', 'shells', 'submodels', 'concept-descriptions', 'shell-descriptors',
  'submodel-descriptors', 'serialization', 'upload', 'packages', 'files', 'search', 'query', 'events', 'push-targets',
]);

const CURSOR_LIST = 'registry-instances';

/** An explicit instance as the APIs show it. */
export interface RegistryInstance {
  id: string;
  name: string;
  kind: InstanceKind;
  etag: string;
  createdAt: Date;
  updatedAt: Date;
}

const KIND_TEXT: Record<InstanceKind, string> = { discovery: 'a discovery service', 'aas-registry': 'an AAS registry' };

/**
 * The explicit discovery services and AAS registries of tenants: created and deleted by an operator (the
 * Management API and GraphQL), each with its own data, which goes with it.
 */
export class RegistryInstanceService {
  /** Instances by tenant and name, for `resolve` (which runs on every request to an instance), briefly. */
  private readonly cache = new Map<string, { row: Promise<RegistryInstanceEntity | null>; until: number }>();

  constructor(private readonly dataSource: DataSource) {}

  async list(tenant: TenantEntity, limit: number, cursor?: string | null): Promise<Page<RegistryInstance>> {
    const problem = checkLimit(limit);
    if (problem) throw badRequest(problem);
    const qb = this.dataSource.manager.createQueryBuilder(RegistryInstanceEntity, 'i').where('i.tenantId = :tenant', { tenant: tenant.id });
    const list = cursorList(CURSOR_LIST, tenant.id);
    if (cursor != null) {
      const after = decodeCursor(list, cursor);
      if (typeof after !== 'number') throw badRequest('The cursor is not one this server issued for this list.');
      qb.andWhere('i.seq > :after', { after });
    }
    const rows = await qb.orderBy('i.seq', 'ASC').limit(limit + 1).getMany();
    const items = rows.slice(0, limit);
    return { items: items.map(describe), cursor: rows.length > limit ? encodeCursor(list, Number(items[items.length - 1].seq)) : undefined };
  }

  async get(tenant: TenantEntity, instanceId: string): Promise<RegistryInstance> {
    return describe(await this.row(tenant, instanceId));
  }

  async create(tenant: TenantEntity, input: { name: string; kind: string }): Promise<RegistryInstance> {
    const problems = [nameProblem(input.name), kindProblem(input.kind)].filter((p): p is string => p !== undefined);
    if (problems.length) throw badRequest(problems[0], problems);
    try {
      const inserted = await this.dataSource.manager.insert(RegistryInstanceEntity, { tenantId: tenant.id, name: input.name, kind: input.kind as InstanceKind });
      this.cache.delete(cacheKey(tenant, input.name));
      return this.get(tenant, (inserted.identifiers[0] as { id: string }).id);
    } catch (err) {
      if ((err as { driverError?: { code?: string } }).driverError?.code === '23505') throw conflict(`Tenant '${tenant.name}' has an instance named '${input.name}' already.`);
      throw err;
    }
  }

  /** Deletes an instance with all its data (descriptors, asset links). */
  async delete(tenant: TenantEntity, instanceId: string, ifMatch?: string | null): Promise<void> {
    await this.dataSource.transaction(async (m): Promise<RegistryInstanceEntity> => {
      const row = isUuid(instanceId)
        ? await m.findOne(RegistryInstanceEntity, { where: { id: instanceId.toLowerCase(), tenantId: tenant.id }, lock: { mode: 'pessimistic_write' } })
        : null;
      if (!row) throw instanceNotFound(instanceId);
      if (ifMatch != null && !ifMatchAdmits(ifMatch, etagOf(row.seq, row.version))) {
        throw preconditionFailed(`Instance '${row.name}' has changed: If-Match does not match its current entity tag.`);
      }
      await m.delete(RegistryInstanceEntity, { tenantId: tenant.id, id: row.id });
      return row;
    }).then((row) => this.cache.delete(cacheKey(tenant, row.name)));
  }

  /**
   * The instance a request addresses by name, which must be of `kind` when given: 404 with a Result saying which
   * when there is none of that name, or it serves the other kind.
   */
  async resolve(tenant: TenantEntity, name: string, kind?: InstanceKind): Promise<RegistryInstanceEntity> {
    const row = INSTANCE_NAME.test(name) ? await this.byName(tenant, name) : null;
    if (!row) throw notFound(`Tenant '${tenant.name}' has no instance named '${name.slice(0, 100)}'.`);
    if (kind !== undefined && row.kind !== kind) throw notFound(`Instance '${name}' is ${KIND_TEXT[row.kind]}, not ${KIND_TEXT[kind]}: it does not serve this path.`);
    return row;
  }

  /**
   * The instance of that name, cached for CACHE_TTL_MS like tenants (unknown names too, so a flood of them does not
   * reach the database). This process evicts on create and delete; another replica sees a change within the TTL,
   * and a write to an instance deleted meanwhile fails on its foreign key (404).
   */
  private byName(tenant: TenantEntity, name: string): Promise<RegistryInstanceEntity | null> {
    const key = cacheKey(tenant, name);
    const now = Date.now();
    const hit = this.cache.get(key);
    if (hit && hit.until > now) return hit.row;
    // Requests that miss together share one query.
    const row = this.dataSource.manager.findOneBy(RegistryInstanceEntity, { tenantId: tenant.id, name });
    this.cache.delete(key);
    if (this.cache.size >= CACHE_MAX_ENTRIES) this.cache.delete(this.cache.keys().next().value!);
    this.cache.set(key, { row, until: now + CACHE_TTL_MS });
    // A failed query is not cached.
    row.catch(() => this.cache.get(key)?.row === row && this.cache.delete(key));
    return row;
  }

  private async row(tenant: TenantEntity, instanceId: string): Promise<RegistryInstanceEntity> {
    const row = isUuid(instanceId) ? await this.dataSource.manager.findOneBy(RegistryInstanceEntity, { id: instanceId.toLowerCase(), tenantId: tenant.id }) : null;
    if (!row) throw instanceNotFound(instanceId);
    return row;
  }
}

const CACHE_TTL_MS = 5_000;
const CACHE_MAX_ENTRIES = 1_000;
const cacheKey = (tenant: TenantEntity, name: string) => `${tenant.id}/${name}`;

export const FOREIGN_KEY_VIOLATION = '23503';

/** A write to an instance another replica deleted while this one still had it cached. */
export const instanceGone = (instance: RegistryInstanceEntity) => notFound(`Instance '${instance.name}' has been deleted.`);

const instanceNotFound = (id: string) => notFound(`No registry instance '${id.slice(0, 100)}' in this tenant.`);

function describe(row: RegistryInstanceEntity): RegistryInstance {
  return { id: row.id, name: row.name, kind: row.kind, etag: etagOf(row.seq, row.version), createdAt: row.createdAt, updatedAt: row.updatedAt };
}

function nameProblem(name: unknown): string | undefined {
  if (typeof name !== 'string' || !name) return 'name is required.';
  if (!INSTANCE_NAME.test(name)) return `name '${name.slice(0, 100)}' must be lowercase letters, digits and inner dashes, at most 63 characters (it is a path segment of the instance's URL).`;
  if (RESERVED_INSTANCE_NAMES.has(name)) return `name '${name}' is reserved: it is, or may become, a fixed path of the tenant API.`;
  return undefined;
}

function kindProblem(kind: unknown): string | undefined {
  return typeof kind === 'string' && (INSTANCE_KINDS as readonly string[]).includes(kind) ? undefined : `kind must be one of ${INSTANCE_KINDS.join(', ')}.`;
}
