import { Arg, Authorized, Ctx, Field, FieldResolver, ID, InputType, Int, Mutation, ObjectType, Query, Resolver, Root } from 'type-graphql';
import { organizationAccess } from '../../auth/policy';
import { DEFAULT_LIMIT } from '../../common/cursor';
import { Context, tenantOf } from '../../graphql/context';
import { PageOf, etagOfRecord } from '../records';
import { TenantEntity } from './tenant.entity';

@ObjectType('Tenant', { description: 'A tenant ("cloud") of an organization: its own AAS repositories, registries and files at its URL.' })
export class TenantType {
  @Field(() => ID)
  id: string;

  @Field(() => ID)
  organizationId: string;

  @Field({ description: 'The name in the tenant URL: lowercase letters, digits and inner dashes (a DNS label). It cannot change.' })
  name: string;

  @Field(() => String, { nullable: true })
  friendlyName: string | null;

  @Field(() => String, { nullable: true })
  tag: string | null;

  @Field({ description: 'Showcase mode: the tenant API needs no token. Never for production data.' })
  showcase: boolean;

  @Field({ description: 'Change events of the tenant (MQTT, GraphQL subscriptions, push targets): opt-in, off by default.' })
  eventsEnabled: boolean;

  @Field()
  createdAt: Date;

  @Field()
  updatedAt: Date;
}

const TenantPage = PageOf(TenantType, 'Tenant');

@InputType({ description: 'A tenant, as created or replaced (PUT: the fields not given are cleared, showcase and events off; the name cannot change).' })
export class TenantInput {
  @Field({ description: 'Lowercase letters, digits and inner dashes, at most 63 characters; unique on the server (it is the URL).' })
  name: string;

  @Field(() => String, { nullable: true, description: 'At most 200 characters.' })
  friendlyName?: string | null;

  @Field(() => String, { nullable: true, description: 'At most 100 characters.' })
  tag?: string | null;

  @Field(() => Boolean, { nullable: true, description: 'Showcase mode (default off): anyone may read and write the tenant without a token.' })
  showcase?: boolean | null;

  @Field(() => Boolean, { nullable: true, description: 'Change events (default off): each change of a shell, submodel or concept description is published.' })
  eventsEnabled?: boolean | null;
}

@InputType({ description: 'A partial update of a tenant: only the fields given change.' })
export class TenantPatch {
  @Field(() => String, { nullable: true, description: 'May repeat the current name; it cannot change.' })
  name?: string | null;

  @Field(() => String, { nullable: true })
  friendlyName?: string | null;

  @Field(() => String, { nullable: true })
  tag?: string | null;

  @Field(() => Boolean, { nullable: true })
  showcase?: boolean | null;

  @Field(() => Boolean, { nullable: true })
  eventsEnabled?: boolean | null;
}

@Resolver(() => TenantType)
export class TenantResolver {
  @FieldResolver(() => String, { description: 'Base URL of the tenant API; the AAS API is at `{url}/api/v3.0`.' })
  url(@Root() tenant: TenantEntity, @Ctx() ctx: Context): string {
    return ctx.services.tenants.urlOf(tenant.name);
  }

  @FieldResolver(() => String, { description: 'The entity tag, for If-Match.' })
  etag(@Root() tenant: TenantEntity): string {
    return etagOfRecord(tenant);
  }

  @Authorized('reader')
  @Query(() => TenantType, { description: 'A tenant by its name (what its URL has).' })
  tenant(@Ctx() ctx: Context, @Arg('tenant') name: string): TenantEntity {
    return tenantOf(ctx, name);
  }

  @Authorized('contributor')
  @Query(() => TenantType, {
    description: 'A tenant by its name, when the caller may change its data (contributor): what REST routes that stream a body ask before they read it.',
  })
  writableTenant(@Ctx() ctx: Context, @Arg('tenant') name: string): TenantEntity {
    return tenantOf(ctx, name);
  }

  @Authorized('organization:member')
  @Query(() => TenantPage, { description: 'The tenants of an organization the caller holds a role on (all of them with an organization-wide role).' })
  async tenants(
    @Ctx() ctx: Context,
    @Arg('organizationId', () => ID) organizationId: string,
    @Arg('limit', () => Int, { defaultValue: DEFAULT_LIMIT }) limit: number,
    @Arg('cursor', () => String, { nullable: true }) cursor: string | null,
  ) {
    const access = await organizationAccess(ctx, organizationId);
    return ctx.services.tenants.listIn(organizationId, access.visibleTenants(), limit, cursor);
  }

  @Authorized('organization:member')
  @Query(() => TenantType, { description: 'A tenant of an organization, by id.' })
  async organizationTenant(@Ctx() ctx: Context, @Arg('organizationId', () => ID) organizationId: string, @Arg('tenantId', () => ID) tenantId: string) {
    const access = await organizationAccess(ctx, organizationId);
    return ctx.services.tenants.getIn(organizationId, tenantId, access.visibleTenants());
  }

  @Authorized('organization:owner')
  @Mutation(() => TenantType, { description: 'Creates a tenant of the organization.' })
  createTenant(@Ctx() ctx: Context, @Arg('organizationId', () => ID) organizationId: string, @Arg('input', () => TenantInput) input: TenantInput) {
    return ctx.services.tenants.createIn(organizationId, input);
  }

  @Authorized('organization:owner')
  @Mutation(() => TenantType, { description: 'Replaces (PUT) a tenant: friendly name, tag, showcase mode, change events.' })
  replaceTenant(
    @Ctx() ctx: Context,
    @Arg('organizationId', () => ID) organizationId: string,
    @Arg('tenantId', () => ID) tenantId: string,
    @Arg('input', () => TenantInput) input: TenantInput,
    @Arg('ifMatch', () => String, { nullable: true }) ifMatch: string | null,
  ) {
    return ctx.services.tenants.update(organizationId, tenantId, input, { ifMatch, replace: true });
  }

  @Authorized('organization:owner')
  @Mutation(() => TenantType, { description: 'Changes (PATCH) the given fields of a tenant.' })
  updateTenant(
    @Ctx() ctx: Context,
    @Arg('organizationId', () => ID) organizationId: string,
    @Arg('tenantId', () => ID) tenantId: string,
    @Arg('input', () => TenantPatch) input: TenantPatch,
    @Arg('ifMatch', () => String, { nullable: true }) ifMatch: string | null,
  ) {
    return ctx.services.tenants.update(organizationId, tenantId, input, { ifMatch, replace: false });
  }

  @Authorized('organization:owner')
  @Mutation(() => Boolean, { description: 'Deletes a tenant with all its data, for good.' })
  async deleteTenant(
    @Ctx() ctx: Context,
    @Arg('organizationId', () => ID) organizationId: string,
    @Arg('tenantId', () => ID) tenantId: string,
    @Arg('ifMatch', () => String, { nullable: true }) ifMatch: string | null,
  ) {
    await ctx.services.tenants.deleteIn(organizationId, tenantId, ifMatch);
    return true;
  }
}
