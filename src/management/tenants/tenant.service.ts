import { DataSource } from 'typeorm';
import { Config } from '../../config';
import { TenantEntity } from './tenant.entity';

export const TENANT_NAME = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;

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

  /** Forgets a cached tenant: called by every change to it. */
  evict(name: string): void {
    this.cache.delete(name);
  }
}
