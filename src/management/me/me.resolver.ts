import { Authorized, Ctx, Field, FieldResolver, ID, ObjectType, Query, Resolver, Root } from 'type-graphql';
import { requirePrincipal } from '../../auth/policy';
import { Context } from '../../graphql/context';

@ObjectType('EffectiveRole', { description: 'A role the caller holds, and where it comes from.' })
export class EffectiveRoleType {
  @Field()
  role: string;

  @Field({
    description:
      '`direct` (a role assignment naming the caller), `group` (one naming a group the caller is in), `federation` (a trusted external issuer\'s token), or on a tenant `organization` (an organization-wide role cascading to every tenant; `via` says how that one is held).',
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
