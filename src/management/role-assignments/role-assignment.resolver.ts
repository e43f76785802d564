import { Arg, Authorized, Ctx, Field, ID, InputType, Int, Mutation, ObjectType, Query, Resolver } from 'type-graphql';
import { organizationAccess, requirePrincipal } from '../../auth/policy';
import { DEFAULT_LIMIT } from '../../common/cursor';
import { Context } from '../../graphql/context';
import { PageOf } from '../records';

@ObjectType('RoleAssignment', { description: 'A role granted to a user, service account or group, organization-wide or for one tenant.' })
export class RoleAssignmentType {
  @Field(() => ID)
  id: string;

  @Field(() => ID)
  organizationId: string;

  @Field(() => ID, { nullable: true, description: 'The tenant it holds for; null: organization-wide.' })
  tenantId: string | null;

  @Field()
  role: string;

  @Field({ description: '`user`, `service-account` or `group`.' })
  principalType: string;

  @Field(() => ID)
  principalId: string;

  @Field({ description: 'Who granted it: `user:{id}`, `service-account:{id}` or `bootstrap`.' })
  createdBy: string;

  @Field()
  createdAt: Date;
}

const RoleAssignmentPage = PageOf(RoleAssignmentType, 'RoleAssignment');

@InputType({ description: 'A role for a principal of the organization.' })
export class RoleAssignmentInput {
  @Field({ description: 'Organization level: organization-owner, contributor or reader. Cloud (tenant) level: contributor or reader.' })
  role: string;

  @Field({ description: '`user`, `service-account` or `group`.' })
  principalType: string;

  @Field(() => ID, { description: 'The user (identity account id), service account or group.' })
  principalId: string;
}

@Resolver(() => RoleAssignmentType)
export class RoleAssignmentResolver {
  @Authorized('organization:reader')
  @Query(() => RoleAssignmentPage, { description: 'The organization-level role assignments.' })
  roleAssignments(
    @Ctx() ctx: Context,
    @Arg('organizationId', () => ID) organizationId: string,
    @Arg('limit', () => Int, { defaultValue: DEFAULT_LIMIT }) limit: number,
    @Arg('cursor', () => String, { nullable: true }) cursor: string | null,
  ) {
    return ctx.services.roleAssignments.list(organizationId, null, limit, cursor);
  }

  @Authorized('organization:reader')
  @Query(() => RoleAssignmentPage, { description: 'The role assignments for one tenant (cloud level).' })
  tenantRoleAssignments(
    @Ctx() ctx: Context,
    @Arg('organizationId', () => ID) organizationId: string,
    @Arg('tenantId', () => ID) tenantId: string,
    @Arg('limit', () => Int, { defaultValue: DEFAULT_LIMIT }) limit: number,
    @Arg('cursor', () => String, { nullable: true }) cursor: string | null,
  ) {
    return ctx.services.roleAssignments.list(organizationId, tenantId, limit, cursor);
  }

  @Authorized('organization:owner')
  @Mutation(() => RoleAssignmentType, { description: 'Grants an organization-level role.' })
  async createRoleAssignment(@Ctx() ctx: Context, @Arg('organizationId', () => ID) organizationId: string, @Arg('input', () => RoleAssignmentInput) input: RoleAssignmentInput) {
    const owner = (await organizationAccess(ctx, organizationId)).has('organization-owner');
    return ctx.services.roleAssignments.create(await requirePrincipal(ctx), owner, organizationId, null, input);
  }

  @Authorized('organization:owner')
  @Mutation(() => RoleAssignmentType, { description: 'Grants a cloud-level role for one tenant of the organization.' })
  async createTenantRoleAssignment(
    @Ctx() ctx: Context,
    @Arg('organizationId', () => ID) organizationId: string,
    @Arg('tenantId', () => ID) tenantId: string,
    @Arg('input', () => RoleAssignmentInput) input: RoleAssignmentInput,
  ) {
    const owner = (await organizationAccess(ctx, organizationId)).has('organization-owner');
    return ctx.services.roleAssignments.create(await requirePrincipal(ctx), owner, organizationId, tenantId, input);
  }

  @Authorized('organization:owner')
  @Mutation(() => Boolean, { description: 'Revokes an organization-level role assignment. The last owner cannot be revoked.' })
  async deleteRoleAssignment(@Ctx() ctx: Context, @Arg('organizationId', () => ID) organizationId: string, @Arg('assignmentId', () => ID) assignmentId: string) {
    const owner = (await organizationAccess(ctx, organizationId)).has('organization-owner');
    await ctx.services.roleAssignments.delete(owner, organizationId, null, assignmentId);
    return true;
  }

  @Authorized('organization:owner')
  @Mutation(() => Boolean, { description: 'Revokes a role assignment of one tenant.' })
  async deleteTenantRoleAssignment(
    @Ctx() ctx: Context,
    @Arg('organizationId', () => ID) organizationId: string,
    @Arg('tenantId', () => ID) tenantId: string,
    @Arg('assignmentId', () => ID) assignmentId: string,
  ) {
    const owner = (await organizationAccess(ctx, organizationId)).has('organization-owner');
    await ctx.services.roleAssignments.delete(owner, organizationId, tenantId, assignmentId);
    return true;
  }
}
