import { Arg, Authorized, Ctx, Field, FieldResolver, ID, InputType, Int, Mutation, ObjectType, Query, Resolver, Root } from 'type-graphql';
import { requirePrincipal } from '../../auth/policy';
import { DEFAULT_LIMIT } from '../../common/cursor';
import { Context } from '../../graphql/context';
import { PageOf, etagOfRecord } from '../records';
import { UserGroupEntity } from './user-group.entity';

@ObjectType('UserGroup', { description: "A group of users and service accounts of an organization; the group's role assignments hold for every member." })
export class UserGroupType {
  @Field(() => ID)
  id: string;

  @Field({ description: 'Starts with `group@`; unique in the organization.' })
  name: string;

  @Field(() => String, { nullable: true })
  description: string | null;

  @Field()
  createdAt: Date;

  @Field()
  updatedAt: Date;
}

const UserGroupPage = PageOf(UserGroupType, 'UserGroup');

@ObjectType('UserGroupMember', { description: 'A member of a user group: a user (email, displayName) or a service account (name).' })
export class UserGroupMemberType {
  @Field({ description: '`user` or `service-account`.' })
  type: string;

  @Field(() => ID, { description: 'The account id of a user, the id of a service account.' })
  id: string;

  @Field()
  addedAt: Date;

  @Field(() => String, { nullable: true, description: 'Users: their email.' })
  email: string | null;

  @Field(() => String, { nullable: true, description: 'Users: their display name.' })
  displayName: string | null;

  @Field(() => String, { nullable: true, description: 'Service accounts: their name.' })
  name: string | null;
}

const UserGroupMemberPage = PageOf(UserGroupMemberType, 'UserGroupMember');

@InputType({ description: 'A user group, as created or replaced.' })
export class UserGroupInput {
  @Field({ description: '`group@` and then at least one character; at most 200 characters; unique in the organization.' })
  name: string;

  @Field(() => String, { nullable: true, description: 'At most 2000 characters.' })
  description?: string | null;
}

@InputType({ description: 'A partial update of a user group: only the fields given change (a null description removes it).' })
export class UserGroupPatch {
  @Field(() => String, { nullable: true })
  name?: string | null;

  @Field(() => String, { nullable: true })
  description?: string | null;
}

@InputType('UserGroupMemberRef', { description: 'A member to add: a user of the organization or one of its service accounts.' })
export class UserGroupMemberRef {
  @Field({ description: '`user` or `service-account`.' })
  type: string;

  @Field(() => ID)
  id: string;
}

@InputType({ description: 'Members to add to a user group (1 to 100).' })
export class UserGroupMembersInput {
  @Field(() => [UserGroupMemberRef])
  members: UserGroupMemberRef[];
}

@Resolver(() => UserGroupType)
export class UserGroupResolver {
  @FieldResolver(() => String, { description: 'The entity tag, for If-Match.' })
  etag(@Root() group: UserGroupEntity): string {
    return etagOfRecord(group);
  }

  @Authorized('organization:reader')
  @Query(() => UserGroupPage, { description: "The organization's user groups, in creation order." })
  userGroups(
    @Ctx() ctx: Context,
    @Arg('organizationId', () => ID) organizationId: string,
    @Arg('limit', () => Int, { defaultValue: DEFAULT_LIMIT }) limit: number,
    @Arg('cursor', () => String, { nullable: true }) cursor: string | null,
  ) {
    return ctx.services.userGroups.list(organizationId, limit, cursor);
  }

  @Authorized('organization:reader')
  @Query(() => UserGroupType)
  userGroup(@Ctx() ctx: Context, @Arg('organizationId', () => ID) organizationId: string, @Arg('groupId', () => ID) groupId: string) {
    return ctx.services.userGroups.get(organizationId, groupId);
  }

  @Authorized('organization:owner')
  @Mutation(() => UserGroupType, { description: 'Creates a user group without members and roles.' })
  createUserGroup(@Ctx() ctx: Context, @Arg('organizationId', () => ID) organizationId: string, @Arg('input', () => UserGroupInput) input: UserGroupInput) {
    return ctx.services.userGroups.create(organizationId, input);
  }

  @Authorized('organization:owner')
  @Mutation(() => UserGroupType, { description: 'Replaces (PUT) a user group: name and description.' })
  replaceUserGroup(
    @Ctx() ctx: Context,
    @Arg('organizationId', () => ID) organizationId: string,
    @Arg('groupId', () => ID) groupId: string,
    @Arg('input', () => UserGroupInput) input: UserGroupInput,
    @Arg('ifMatch', () => String, { nullable: true }) ifMatch: string | null,
  ) {
    return ctx.services.userGroups.update(organizationId, groupId, input, { ifMatch, replace: true });
  }

  @Authorized('organization:owner')
  @Mutation(() => UserGroupType, { description: 'Changes (PATCH) the fields of a user group that are given.' })
  updateUserGroup(
    @Ctx() ctx: Context,
    @Arg('organizationId', () => ID) organizationId: string,
    @Arg('groupId', () => ID) groupId: string,
    @Arg('input', () => UserGroupPatch) input: UserGroupPatch,
    @Arg('ifMatch', () => String, { nullable: true }) ifMatch: string | null,
  ) {
    return ctx.services.userGroups.update(organizationId, groupId, input, { ifMatch, replace: false });
  }

  @Authorized('organization:owner')
  @Mutation(() => Boolean, {
    description: 'Deletes a user group with its role assignments and members; refused (409) when it would leave the organization without an owner.',
  })
  deleteUserGroup(
    @Ctx() ctx: Context,
    @Arg('organizationId', () => ID) organizationId: string,
    @Arg('groupId', () => ID) groupId: string,
    @Arg('ifMatch', () => String, { nullable: true }) ifMatch: string | null,
  ) {
    return ctx.services.userGroups.delete(organizationId, groupId, ifMatch);
  }

  @Authorized('organization:reader')
  @Query(() => UserGroupMemberPage, { description: "A user group's members, in the order they were added." })
  userGroupMembers(
    @Ctx() ctx: Context,
    @Arg('organizationId', () => ID) organizationId: string,
    @Arg('groupId', () => ID) groupId: string,
    @Arg('limit', () => Int, { defaultValue: DEFAULT_LIMIT }) limit: number,
    @Arg('cursor', () => String, { nullable: true }) cursor: string | null,
  ) {
    return ctx.services.userGroups.members(organizationId, groupId, limit, cursor);
  }

  @Authorized('organization:owner')
  @Mutation(() => [UserGroupMemberType], {
    description: 'Adds users of the organization and its service accounts to a group (members already in it stay); the caller cannot add itself.',
  })
  async addUserGroupMembers(
    @Ctx() ctx: Context,
    @Arg('organizationId', () => ID) organizationId: string,
    @Arg('groupId', () => ID) groupId: string,
    @Arg('input', () => UserGroupMembersInput) input: UserGroupMembersInput,
  ) {
    return ctx.services.userGroups.addMembers(await requirePrincipal(ctx), organizationId, groupId, input.members);
  }

  @Authorized('organization:owner')
  @Mutation(() => Boolean, { description: 'Removes a member (by its id) from a group; refused (409) when it would leave the organization without an owner.' })
  removeUserGroupMember(
    @Ctx() ctx: Context,
    @Arg('organizationId', () => ID) organizationId: string,
    @Arg('groupId', () => ID) groupId: string,
    @Arg('memberId', () => ID) memberId: string,
  ) {
    return ctx.services.userGroups.removeMember(organizationId, groupId, memberId);
  }
}
