import { Arg, Authorized, Ctx, Field, FieldResolver, ID, InputType, Int, Mutation, ObjectType, Query, Resolver, Root, registerEnumType } from 'type-graphql';
import { requirePrincipal } from '../../auth/policy';
import { DEFAULT_LIMIT } from '../../common/cursor';
import { Context } from '../../graphql/context';
import { PageOf, etagOfRecord } from '../records';
import { Invitation, InvitationStatus } from './user.service';

export const InvitationStatusEnum = { pending: 'pending', accepted: 'accepted', expired: 'expired', revoked: 'revoked' } as const;
registerEnumType(InvitationStatusEnum, {
  name: 'InvitationStatus',
  description: '`expired`: still pending, but past its expiry; it can no longer be accepted.',
});

@ObjectType('OrganizationUser', { description: 'A user of an organization: an identity account that joined it. Its roles come from role assignments.' })
export class OrganizationUserType {
  @Field(() => ID, { description: 'The identity account id (the user tokens\' `sub`).' })
  id: string;

  @Field(() => ID)
  organizationId: string;

  @Field()
  email: string;

  @Field(() => String, { nullable: true })
  displayName: string | null;

  @Field()
  joinedAt: Date;
}

@ObjectType('Invitation', { description: 'An invitation of an identity account into an organization.' })
export class InvitationType {
  @Field(() => ID)
  id: string;

  @Field(() => ID)
  organizationId: string;

  @Field(() => ID, { description: 'The invited identity account.' })
  accountId: string;

  @Field(() => InvitationStatusEnum)
  status: InvitationStatus;

  @Field({ description: 'Who invited: `user:{id}` or `service-account:{id}`.' })
  invitedBy: string;

  @Field()
  expiresAt: Date;

  @Field()
  createdAt: Date;

  @Field()
  updatedAt: Date;
}

const OrganizationUserPage = PageOf(OrganizationUserType, 'OrganizationUser');
const InvitationPage = PageOf(InvitationType, 'Invitation');

@InputType({ description: 'Whom to invite: the id of an identity account of the built-in identity service (its owner finds it in /me).' })
export class InviteUserInput {
  @Field(() => ID)
  accountId: string;
}

@Resolver(() => InvitationType)
export class InvitationResolver {
  @FieldResolver(() => String, { description: 'The entity tag, for If-Match.' })
  etag(@Root() invitation: Invitation): string {
    return etagOfRecord(invitation);
  }

  @Authorized('organization:reader')
  @Query(() => InvitationPage, { description: "The organization's invitations, optionally of one status." })
  invitations(
    @Ctx() ctx: Context,
    @Arg('organizationId', () => ID) organizationId: string,
    @Arg('status', () => InvitationStatusEnum, { nullable: true }) status: InvitationStatus | null,
    @Arg('limit', () => Int, { defaultValue: DEFAULT_LIMIT }) limit: number,
    @Arg('cursor', () => String, { nullable: true }) cursor: string | null,
  ) {
    return ctx.services.users.invitations(organizationId, status, limit, cursor);
  }

  @Authorized('organization:reader')
  @Query(() => InvitationType)
  invitation(@Ctx() ctx: Context, @Arg('organizationId', () => ID) organizationId: string, @Arg('invitationId', () => ID) invitationId: string) {
    return ctx.services.users.invitation(organizationId, invitationId);
  }

  @Authorized('organization:owner')
  @Mutation(() => InvitationType, { description: 'Invites an identity account; it becomes a user when it accepts. An expired invitation of the same account is renewed.' })
  async inviteUser(@Ctx() ctx: Context, @Arg('organizationId', () => ID) organizationId: string, @Arg('input', () => InviteUserInput) input: InviteUserInput) {
    return ctx.services.users.invite(await requirePrincipal(ctx), organizationId, input.accountId);
  }

  @Authorized('organization:owner')
  @Mutation(() => InvitationType, { description: 'Revokes a pending invitation.' })
  revokeInvitation(
    @Ctx() ctx: Context,
    @Arg('organizationId', () => ID) organizationId: string,
    @Arg('invitationId', () => ID) invitationId: string,
    @Arg('ifMatch', () => String, { nullable: true }) ifMatch: string | null,
  ) {
    return ctx.services.users.revoke(organizationId, invitationId, ifMatch);
  }

  @Authorized('authenticated')
  @Query(() => InvitationPage, { description: "The calling user's invitations." })
  async myInvitations(
    @Ctx() ctx: Context,
    @Arg('status', () => InvitationStatusEnum, { nullable: true }) status: InvitationStatus | null,
    @Arg('limit', () => Int, { defaultValue: DEFAULT_LIMIT }) limit: number,
    @Arg('cursor', () => String, { nullable: true }) cursor: string | null,
  ) {
    return ctx.services.users.invitationsOf(await requirePrincipal(ctx), status, limit, cursor);
  }

  @Authorized('authenticated')
  @Mutation(() => InvitationType, { description: 'The invited user accepts an invitation and becomes a user of the organization.' })
  async acceptInvitation(@Ctx() ctx: Context, @Arg('invitationId', () => ID) invitationId: string) {
    return ctx.services.users.accept(await requirePrincipal(ctx), invitationId);
  }
}

@Resolver(() => OrganizationUserType)
export class OrganizationUserResolver {
  @Authorized('organization:reader')
  @Query(() => OrganizationUserPage, { description: 'The users of an organization, in the order they joined.' })
  organizationUsers(
    @Ctx() ctx: Context,
    @Arg('organizationId', () => ID) organizationId: string,
    @Arg('limit', () => Int, { defaultValue: DEFAULT_LIMIT }) limit: number,
    @Arg('cursor', () => String, { nullable: true }) cursor: string | null,
  ) {
    return ctx.services.users.list(organizationId, limit, cursor);
  }

  @Authorized('organization:reader')
  @Query(() => OrganizationUserType)
  organizationUser(@Ctx() ctx: Context, @Arg('organizationId', () => ID) organizationId: string, @Arg('userId', () => ID) userId: string) {
    return ctx.services.users.get(organizationId, userId);
  }

  @Authorized('organization:owner')
  @Mutation(() => Boolean, { description: 'Removes a user from the organization, with its role assignments and group memberships there. The last owner cannot be removed.' })
  async removeOrganizationUser(@Ctx() ctx: Context, @Arg('organizationId', () => ID) organizationId: string, @Arg('userId', () => ID) userId: string) {
    await ctx.services.users.remove(organizationId, userId);
    return true;
  }
}
