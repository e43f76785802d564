import { DataSource } from 'typeorm';
import { isUuid } from '../../common/uuid';
import { Config } from '../../config';
import { notFound } from '../../graphql/errors';
import { Page, bumpVersion, checkIfMatch, pageBySeq, rejectProblems, textProblem, uniquely } from '../records';
import { TenantEntity } from './tenant.entity';

export const TENANT_NAME = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;

/** What the Management API sets on a tenant (the name only on creation: it is the tenant's URL). */
export interface TenantInput {
  name?: string | null;
  friendlyName?: string | null;
  tag?: string | null;
  showcase?: boolean | null;
  /** Change events (MQTT, subscriptions, push targets) of the tenant's shells, submodels and concept descriptions; off by default. */
  eventsEnabled?: boolean | null;
}

export interface NewTenant {
  organizationId: string;
  name: string;
  friendlyName?: string | null;
  tag?: string | null;
  showcase?: boolean;
  eventsEnabled?: boolean;
}

/**
 * Tenants are read on every tenant API request, and change rarely: they are cached in-process for a few
 * seconds. Changes made through this service evict at once; another replica sees them within the TTL.
 */
const CACHE_TTL_MS = 5_000;
/** Unknown names are cached too (a flood of them must not reach the database); the cache stays bounded. */
const CACHE_MAX_ENTRIES = 1_000;

export class TenantService {
  private readonly cache = new Map<string, { tenant: TenantEntity | null; until: number }>();

  constructor(
    private readonly dataSource: DataSource,
    private readonly config: Pick<Config, 'publicUrl' | 'tenantHostSuffix'>,
    /**
     * Runs after a tenant's deletion committed, for data outside the database (file contents in an object
     * store). The rows are gone by then whatever it does; a failure is its own to report.
     */
    private readonly afterDelete?: (tenantId: string) => Promise<void>,
  ) {}

  async byName(name: string): Promise<TenantEntity | null> {
    if (!TENANT_NAME.test(name)) return null;
    const hit = this.cache.get(name);
    const now = Date.now();
    if (hit && hit.until > now) return hit.tenant;
    const tenant = await this.dataSource.manager.findOneBy(TenantEntity, { name });
    this.cache.delete(name);
    if (this.cache.size >= CACHE_MAX_ENTRIES) this.cache.delete(this.cache.keys().next().value!);
    this.cache.set(name, { tenant, until: now + CACHE_TTL_MS });
    return tenant;
  }

  async create(input: NewTenant): Promise<TenantEntity> {
    if (!TENANT_NAME.test(input.name)) {
      throw new Error(`tenant name "${input.name}" must be lowercase letters, digits and inner dashes (at most 63)`);
    }
    const tenant = this.dataSource.manager.create(TenantEntity, {
      organizationId: input.organizationId,
      name: input.name,
      friendlyName: input.friendlyName ?? null,
      tag: input.tag ?? null,
      showcase: input.showcase ?? false,
      eventsEnabled: input.eventsEnabled ?? false,
    });
    await this.dataSource.manager.save(tenant);
    this.cache.delete(input.name);
    return tenant;
  }

  /** `{PUBLIC_URL}/tenants/{name}`, or `{scheme}://{name}.{TENANT_HOST_SUFFIX}` when host-based tenants are set up. */
  urlOf(name: string): string {
    const base = new URL(this.config.publicUrl);
    if (this.config.tenantHostSuffix) {
      const port = base.port ? `:${base.port}` : '';
      return `${base.protocol}//${name}.${this.config.tenantHostSuffix}${port}`;
    }
    return `${this.config.publicUrl}/tenants/${name}`;
  }

  /**
   * The names of the tenants in showcase mode, the first `limit` by name, and how many there are: the front door
   * warns about them. They are open to anyone, so their names are no secret.
   */
  async showcaseNames(limit: number): Promise<{ names: string[]; total: number }> {
    const [tenants, total] = await this.dataSource.manager.findAndCount(TenantEntity, {
      select: { name: true },
      where: { showcase: true },
      order: { name: 'ASC' },
      take: limit,
    });
    return { names: tenants.map((t) => t.name), total };
  }

  /** The name of the server's only tenant, or undefined when it has none or several: the REST console opens on it. */
  async soleName(): Promise<string | undefined> {
    const tenants = await this.dataSource.manager.find(TenantEntity, { select: { name: true }, order: { name: 'ASC' }, take: 2 });
    return tenants.length === 1 ? tenants[0].name : undefined;
  }

  /** Forgets a cached tenant: called by every change to it. */
  evict(name: string): void {
    this.cache.delete(name);
  }

  /** The tenants of an organization the caller may see (`all`, or those ids), in creation order. */
  async listIn(organizationId: string, visible: 'all' | Set<string>, limit: number, cursor: string | null): Promise<Page<TenantEntity>> {
    const query = this.dataSource.manager.createQueryBuilder(TenantEntity, 't').where('t.organizationId = :organizationId', { organizationId });
    if (visible !== 'all') query.andWhere('t.id = ANY(:ids::uuid[])', { ids: [...visible] });
    return pageBySeq(query, `tenants:${organizationId}`, limit, cursor);
  }

  /** A tenant of the organization the caller may see; 404 otherwise. */
  async getIn(organizationId: string, tenantId: string, visible: 'all' | Set<string>): Promise<TenantEntity> {
    const tenant = isUuid(tenantId) ? await this.dataSource.manager.findOneBy(TenantEntity, { id: tenantId, organizationId }) : null;
    if (!tenant || (visible !== 'all' && !visible.has(tenant.id))) throw notFound(`Tenant '${tenantId}' not found.`);
    return tenant;
  }

  /** A new tenant of the organization: 400 for a name that is no DNS label, 409 when the name is taken (names are global: they are URLs). */
  async createIn(organizationId: string, input: TenantInput): Promise<TenantEntity> {
    rejectProblems([nameProblem(input.name), ...fieldProblems(input)]);
    const tenant = await uniquely(
      () =>
        this.create({
          organizationId,
          name: input.name!,
          friendlyName: input.friendlyName ?? null,
          tag: input.tag ?? null,
          showcase: input.showcase ?? false,
          eventsEnabled: input.eventsEnabled ?? false,
        }),
      `The tenant name '${input.name}' is taken.`,
    );
    return this.dataSource.manager.findOneByOrFail(TenantEntity, { id: tenant.id });
  }

  /**
   * PUT (`replace`: fields not given are cleared, showcase and events off) or PATCH (only the fields given). The name is
   * the tenant's URL and cannot change: a PUT may repeat it, a different one is 400.
   */
  async update(organizationId: string, tenantId: string, input: TenantInput, options: { ifMatch?: string | null; replace: boolean }): Promise<TenantEntity> {
    rejectProblems(fieldProblems(input));
    const tenant = await this.dataSource.transaction(async (manager) => {
      // FOR NO KEY UPDATE: no column a foreign key refers to changes (the name cannot), so writes of the tenant's data
      // (each holding a key-share lock on this row until it commits, an import for long) neither wait for it nor it for them.
      const current = isUuid(tenantId) ? await manager.findOne(TenantEntity, { where: { id: tenantId, organizationId }, lock: { mode: 'for_no_key_update' } }) : null;
      if (!current) throw notFound(`Tenant '${tenantId}' not found.`);
      if (input.name !== undefined && input.name !== null && input.name !== current.name) {
        rejectProblems([`A tenant's name is its URL and cannot change ('${current.name}').`]);
      }
      checkIfMatch(current, options.ifMatch, `Tenant '${current.name}'`);
      const changes: Partial<TenantEntity> = options.replace
        ? { friendlyName: input.friendlyName ?? null, tag: input.tag ?? null, showcase: input.showcase ?? false, eventsEnabled: input.eventsEnabled ?? false }
        : {
            ...(input.friendlyName !== undefined ? { friendlyName: input.friendlyName } : {}),
            ...(input.tag !== undefined ? { tag: input.tag } : {}),
            ...(input.showcase !== undefined && input.showcase !== null ? { showcase: input.showcase } : {}),
            ...(input.eventsEnabled !== undefined && input.eventsEnabled !== null ? { eventsEnabled: input.eventsEnabled } : {}),
          };
      await manager.createQueryBuilder().update(TenantEntity).set({ ...changes, ...bumpVersion }).where('id = :id', { id: current.id }).execute();
      return manager.findOneByOrFail(TenantEntity, { id: current.id });
    });
    this.evict(tenant.name);
    return tenant;
  }

  /** Deletes a tenant with all its data (shells, submodels, concept descriptions, its role assignments and trusts). */
  async deleteIn(organizationId: string, tenantId: string, ifMatch: string | null): Promise<void> {
    const { id, name } = await this.dataSource.transaction(async (manager) => {
      const current = isUuid(tenantId) ? await manager.findOne(TenantEntity, { where: { id: tenantId, organizationId }, lock: { mode: 'pessimistic_write' } }) : null;
      if (!current) throw notFound(`Tenant '${tenantId}' not found.`);
      checkIfMatch(current, ifMatch, `Tenant '${current.name}'`);
      await manager.delete(TenantEntity, { id: current.id });
      return current;
    });
    this.evict(name);
    await this.afterDelete?.(id);
  }
}

function nameProblem(name: unknown): string | undefined {
  if (typeof name !== 'string' || !name) return 'name is required.';
  return TENANT_NAME.test(name) ? undefined : `name '${name.slice(0, 100)}' must be lowercase letters, digits and inner dashes, at most 63 characters (it is part of the tenant URL).`;
}

function fieldProblems(input: TenantInput): (string | undefined)[] {
  return [textProblem(input.friendlyName, 'friendlyName'), textProblem(input.tag, 'tag', { max: 100 })];
}
