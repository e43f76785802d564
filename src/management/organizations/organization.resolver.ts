import { Arg, Authorized, Ctx, Field, FieldResolver, ID, InputType, Int, Mutation, ObjectType, Query, Resolver, Root } from 'type-graphql';
import { requirePrincipal } from '../../auth/policy';
import { DEFAULT_LIMIT } from '../../common/cursor';
import { Context } from '../../graphql/context';
import { PageOf, etagOfRecord } from '../records';
import { OrganizationEntity } from './organization.entity';

@ObjectType('Organization', { description: 'An organization: its users, service accounts, groups, role assignments and tenants.' })
export class OrganizationType {
  @Field(() => ID)
  id: string;

  @Field()
  name: string;

  @Field({ description: 'The organization created on the first start: its owners administer the server itself.' })
  platform: boolean;

  @Field()
  createdAt: Date;

  @Field()
  updatedAt: Date;
}

const OrganizationPage = PageOf(OrganizationType, 'Organization');

@InputType({ description: 'An organization, as created or replaced.' })
export class OrganizationInput {
  @Field({ description: 'At most 200 characters.' })
  name: string;
}

@InputType({ description: 'A partial update of an organization: only the fields given change.' })
export class OrganizationPatch {
  @Field(() => String, { nullable: true })
  name?: string | null;
}

@Resolver(() => OrganizationType)
export class OrganizationResolver {
  @FieldResolver(() => String, { description: 'The entity tag, for If-Match.' })
  etag(@Root() organization: OrganizationEntity): string {
    return etagOfRecord(organization);
  }

  @Authorized('authenticated')
  @Query(() => OrganizationPage, { description: 'The organizations the caller holds a role in or is a user of.' })
  async organizations(
    @Ctx() ctx: Context,
    @Arg('limit', () => Int, { defaultValue: DEFAULT_LIMIT }) limit: number,
    @Arg('cursor', () => String, { nullable: true }) cursor: string | null,
  ) {
    return ctx.services.organizations.listFor(await requirePrincipal(ctx), await ctx.roles(), limit, cursor);
  }

  @Authorized('authenticated')
  @Query(() => OrganizationType)
  async organization(@Ctx() ctx: Context, @Arg('organizationId', () => ID) organizationId: string) {
    return ctx.services.organizations.getFor(await requirePrincipal(ctx), await ctx.roles(), organizationId);
  }

  @Authorized('authenticated')
  @Mutation(() => OrganizationType, { description: 'Creates an organization; the calling user becomes its single user and organization-owner.' })
  async createOrganization(@Ctx() ctx: Context, @Arg('input', () => OrganizationInput) input: OrganizationInput) {
    return ctx.services.organizations.create(await requirePrincipal(ctx), input);
  }

  @Authorized('organization:owner')
  @Mutation(() => OrganizationType, { description: 'Replaces (PUT) an organization.' })
  replaceOrganization(
    @Ctx() ctx: Context,
    @Arg('organizationId', () => ID) organizationId: string,
    @Arg('input', () => OrganizationInput) input: OrganizationInput,
    @Arg('ifMatch', () => String, { nullable: true }) ifMatch: string | null,
  ) {
    return ctx.services.organizations.update(organizationId, input, { ifMatch, replace: true });
  }

  @Authorized('organization:owner')
  @Mutation(() => OrganizationType, { description: 'Changes (PATCH) the fields of an organization that are given.' })
  updateOrganization(
    @Ctx() ctx: Context,
    @Arg('organizationId', () => ID) organizationId: string,
    @Arg('input', () => OrganizationPatch) input: OrganizationPatch,
    @Arg('ifMatch', () => String, { nullable: true }) ifMatch: string | null,
  ) {
    return ctx.services.organizations.update(organizationId, input, { ifMatch, replace: false });
  }
}
