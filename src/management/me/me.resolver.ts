import { Arg, Authorized, Ctx, Field, FieldResolver, ID, ObjectType, Query, Resolver, Root } from 'type-graphql';
import { requirePrincipal } from '../../auth/policy';
import { Context } from '../../graphql/context';

@ObjectType('EffectiveRole', { description: 'A role a principal holds (the caller, in `me`), and where it comes from.' })
export class EffectiveRoleType {
  @Field()
  role: string;

  @Field({
    description:
      '`direct` (a role assignment naming the principal itself; for a group, one naming the group), `group` (one naming a group the principal is in), `federation` (a trusted external issuer\'s token), or on a tenant `organization` (an organization-wide role cascading to every tenant; `via` says how that one is held).',
  })
  source: string;

  @Field(() => String, { nullable: true })
  via?: string;

  @Field(() => ID, { nullable: true })
  assignmentId?: string;

  @Field(() => ID, { nullable: true })
  groupId?: string;

  @Field(() => String, { nullable: true })
  groupName?: string;

  @Field(() => ID, { nullable: true })
  identityProviderId?: string;
}

@ObjectType('MePrincipal')
export class MePrincipalType {
  @Field({ description: '`user`, `service-account` or `federated`.' })
  type: string;

  @Field({ description: "The token's subject: an identity account id, a service account id, or the external subject." })
  id: string;

  @Field()
  issuer: string;

  @Field(() => String, { nullable: true })
  email?: string;

  @Field(() => String, { nullable: true })
  displayName?: string | null;
}

@ObjectType('MeOrganization')
export class MeOrganizationType {
  @Field(() => ID)
  id: string;

  @Field()
  name: string;

  @Field(() => [EffectiveRoleType], { description: 'Organization-wide roles (a user without any has joined but was given no role yet).' })
  roles: EffectiveRoleType[];
}

@ObjectType('MeTenant')
export class MeTenantType {
  @Field(() => ID)
  id: string;

  @Field()
  name: string;

  @Field(() => ID)
  organizationId: string;

  @Field(() => [EffectiveRoleType])
  roles: EffectiveRoleType[];
}

@ObjectType('Me', { description: "The caller's organizations, tenants and effective roles." })
export class MeType {
  @Field(() => MePrincipalType)
  principal: MePrincipalType;

  @Field(() => [MeOrganizationType])
  organizations: MeOrganizationType[];

  @Field(() => [MeTenantType])
  tenants: MeTenantType[];
}

@Resolver(() => MeTenantType)
export class MeTenantResolver {
  @FieldResolver(() => String, { description: 'Base URL of the tenant API.' })
  url(@Root() tenant: MeTenantType, @Ctx() ctx: Context): string {
    return ctx.services.tenants.urlOf(tenant.name);
  }
}

@Resolver(() => MeType)
export class MeResolver {
  @Authorized('authenticated')
  @Query(() => MeType, { description: "The caller's organizations, tenants and effective roles, each with its source." })
  async me(@Ctx() ctx: Context) {
    return ctx.services.me.me(await requirePrincipal(ctx), await ctx.roles());
  }
}

@ObjectType('PrincipalTenantRoles')
export class PrincipalTenantRolesType {
  @Field(() => ID)
  id: string;

  @Field()
  name: string;

  @Field(() => [EffectiveRoleType], { description: 'Its own role assignments for this tenant, then the organization-wide roles cascading to it (source `organization`).' })
  roles: EffectiveRoleType[];
}

@ObjectType('PrincipalRoles', { description: 'The effective roles of a user, service account or group in an organization, each with its source.' })
export class PrincipalRolesType {
  @Field({ description: '`user`, `service-account` or `group`.' })
  principalType: string;

  @Field(() => ID)
  principalId: string;

  @Field(() => ID)
  organizationId: string;

  @Field(() => [EffectiveRoleType], { description: 'Organization-wide roles.' })
  organizationRoles: EffectiveRoleType[];

  @Field(() => [PrincipalTenantRolesType], { description: 'The tenants it holds a role on (every tenant of the organization with an organization-wide role).' })
  tenants: PrincipalTenantRolesType[];
}

@Resolver(() => PrincipalRolesType)
export class PrincipalRolesResolver {
  @Authorized('organization:reader')
  @Query(() => PrincipalRolesType, {
    description:
      "The effective roles of any user, service account or group of the organization, organization-wide and per tenant, each with its source (as `me` shows the caller's); for a group, the roles assigned to it. Who may read the role assignments may ask.",
  })
  principalRoles(
    @Ctx() ctx: Context,
    @Arg('organizationId', () => ID) organizationId: string,
    @Arg('principalType', { description: '`user`, `service-account` or `group`.' }) principalType: string,
    @Arg('principalId', () => ID, { description: 'The identity account id of a user, the id of a service account or group.' }) principalId: string,
  ) {
    return ctx.services.me.principalRoles(organizationId, principalType, principalId);
  }
}
