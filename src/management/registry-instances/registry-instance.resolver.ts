import { Arg, Authorized, Ctx, Field, ID, InputType, Int, Mutation, ObjectType, Query, Resolver } from 'type-graphql';
import type { RegistryInstance } from '../../aas/registry/instance.service';
import { organizationAccess } from '../../auth/policy';
import { DEFAULT_LIMIT } from '../../common/cursor';
import type { Context } from '../../graphql/context';
import { PageOf } from '../records';
import type { TenantEntity } from '../tenants/tenant.entity';

@ObjectType('RegistryInstance', {
  description: 'An explicit discovery service or AAS registry of a tenant, with its own data, at `{tenant_url}/{name}/api/v3.0`.',
})
export class RegistryInstanceType {
  @Field(() => ID)
  id: string;

  @Field(() => ID)
  tenantId: string;

  @Field({ description: 'The path segment below the tenant URL: lowercase letters, digits and inner dashes; not a fixed path (api, sphere, ...). It cannot change.' })
  name: string;

  @Field({ description: '`discovery` (AAS Discovery, full profile) or `aas-registry` (AAS Registry, full profile).' })
  kind: string;

  @Field({ description: 'Base URL of the instance, `{tenant_url}/{name}/api/v3.0`: its `/lookup/shells` or `/shell-descriptors` are below it.' })
  url: string;

  @Field({ description: 'The entity tag, for If-Match.' })
  etag: string;

  @Field()
  createdAt: Date;

  @Field()
  updatedAt: Date;
}

const RegistryInstancePage = PageOf(RegistryInstanceType, 'RegistryInstance');

@InputType({ description: 'A new explicit instance of a tenant.' })
export class RegistryInstanceInput {
  @Field({ description: 'Lowercase letters, digits and inner dashes, at most 63 characters, unique in the tenant; not a reserved name (api, sphere, graphql, ...).' })
  name: string;

  @Field({ description: '`discovery` or `aas-registry`.' })
  kind: string;
}

/**
 * The explicit instances of a tenant, administered like the tenant itself: whoever may see the tenant in the
 * Management API (a role in the organization, or on that tenant) reads them, an organization-owner creates and
 * deletes them. A tenant of another organization, or one the caller cannot see, is 404.
 */
@Resolver(() => RegistryInstanceType)
export class RegistryInstanceResolver {
  @Authorized('organization:member')
  @Query(() => RegistryInstancePage, { description: 'The explicit discovery services and AAS registries of a tenant, in creation order.' })
  async registryInstances(
    @Ctx() ctx: Context,
    @Arg('organizationId', () => ID) organizationId: string,
    @Arg('tenantId', () => ID) tenantId: string,
    @Arg('limit', () => Int, { defaultValue: DEFAULT_LIMIT }) limit: number,
    @Arg('cursor', () => String, { nullable: true }) cursor: string | null,
  ) {
    const tenant = await visibleTenant(ctx, organizationId, tenantId);
    const page = await ctx.services.registryInstances.list(tenant, limit, cursor);
    return { result: page.items.map((instance) => shown(ctx, tenant, instance)), pagingMetadata: page.cursor ? { cursor: page.cursor } : {} };
  }

  @Authorized('organization:member')
  @Query(() => RegistryInstanceType, { description: 'An explicit instance of a tenant, by id.' })
  async registryInstance(
    @Ctx() ctx: Context,
    @Arg('organizationId', () => ID) organizationId: string,
    @Arg('tenantId', () => ID) tenantId: string,
    @Arg('instanceId', () => ID) instanceId: string,
  ) {
    const tenant = await visibleTenant(ctx, organizationId, tenantId);
    return shown(ctx, tenant, await ctx.services.registryInstances.get(tenant, instanceId));
  }

  @Authorized('organization:owner')
  @Mutation(() => RegistryInstanceType, { description: 'Creates an explicit discovery service or AAS registry in a tenant; 409 when the tenant has one of that name.' })
  async createRegistryInstance(
    @Ctx() ctx: Context,
    @Arg('organizationId', () => ID) organizationId: string,
    @Arg('tenantId', () => ID) tenantId: string,
    @Arg('input', () => RegistryInstanceInput) input: RegistryInstanceInput,
  ) {
    const tenant = await ctx.services.tenants.getIn(organizationId, tenantId, 'all');
    return shown(ctx, tenant, await ctx.services.registryInstances.create(tenant, input));
  }

  @Authorized('organization:owner')
  @Mutation(() => Boolean, { description: 'Deletes an explicit instance with all its data (descriptors, asset links), for good.' })
  async deleteRegistryInstance(
    @Ctx() ctx: Context,
    @Arg('organizationId', () => ID) organizationId: string,
    @Arg('tenantId', () => ID) tenantId: string,
    @Arg('instanceId', () => ID) instanceId: string,
    @Arg('ifMatch', () => String, { nullable: true }) ifMatch: string | null,
  ) {
    const tenant = await ctx.services.tenants.getIn(organizationId, tenantId, 'all');
    await ctx.services.registryInstances.delete(tenant, instanceId, ifMatch);
    return true;
  }
}

/** The tenant, when it is the organization's and the caller may see it (as `organizationTenant`); 404 otherwise. */
async function visibleTenant(ctx: Context, organizationId: string, tenantId: string): Promise<TenantEntity> {
  const access = await organizationAccess(ctx, organizationId);
  return ctx.services.tenants.getIn(organizationId, tenantId, access.visibleTenants());
}

function shown(ctx: Context, tenant: TenantEntity, instance: RegistryInstance): RegistryInstanceType {
  return { ...instance, tenantId: tenant.id, url: `${ctx.services.tenants.urlOf(tenant.name)}/${instance.name}/api/v3.0` };
}
