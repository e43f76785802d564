import { Arg, Authorized, Ctx, Field, FieldResolver, ID, InputType, Int, Mutation, ObjectType, Query, Resolver, Root } from 'type-graphql';
import { DEFAULT_LIMIT } from '../../common/cursor';
import { Context } from '../../graphql/context';
import { PageOf, etagOfRecord } from '../records';
import { ServiceAccountEntity } from './service-account.entity';

@ObjectType('ServiceAccount', { description: 'A machine identity of an organization: it gets tokens with client credentials (its id is the client_id).' })
export class ServiceAccountType {
  @Field(() => ID)
  id: string;

  @Field()
  name: string;

  @Field(() => String, { nullable: true })
  description: string | null;

  @Field()
  createdAt: Date;

  @Field()
  updatedAt: Date;
}

const ServiceAccountPage = PageOf(ServiceAccountType, 'ServiceAccount');

@InputType({ description: 'A service account, as created or replaced.' })
export class ServiceAccountInput {
  @Field({ description: '1 to 200 characters.' })
  name: string;

  @Field(() => String, { nullable: true, description: 'At most 2000 characters.' })
  description?: string | null;
}

@InputType({ description: 'A partial update of a service account: only the fields given change (a null description removes it).' })
export class ServiceAccountPatch {
  @Field(() => String, { nullable: true })
  name?: string | null;

  @Field(() => String, { nullable: true })
  description?: string | null;
}

@Resolver(() => ServiceAccountType)
export class ServiceAccountResolver {
  @FieldResolver(() => ID, { description: 'The OAuth client_id: the id.' })
  clientId(@Root() account: ServiceAccountEntity): string {
    return account.id;
  }

  @FieldResolver(() => String, { description: 'The token endpoint of the built-in identity service (client credentials grant).' })
  tokenUrl(@Ctx() ctx: Context): string {
    return ctx.services.serviceAccounts.tokenUrl;
  }

  @FieldResolver(() => String, { description: 'The entity tag, for If-Match.' })
  etag(@Root() account: ServiceAccountEntity): string {
    return etagOfRecord(account);
  }

  @Authorized('organization:reader')
  @Query(() => ServiceAccountPage, { description: "The organization's service accounts, in creation order." })
  serviceAccounts(
    @Ctx() ctx: Context,
    @Arg('organizationId', () => ID) organizationId: string,
    @Arg('limit', () => Int, { defaultValue: DEFAULT_LIMIT }) limit: number,
    @Arg('cursor', () => String, { nullable: true }) cursor: string | null,
  ) {
    return ctx.services.serviceAccounts.list(organizationId, limit, cursor);
  }

  @Authorized('organization:reader')
  @Query(() => ServiceAccountType)
  serviceAccount(@Ctx() ctx: Context, @Arg('organizationId', () => ID) organizationId: string, @Arg('serviceAccountId', () => ID) serviceAccountId: string) {
    return ctx.services.serviceAccounts.get(organizationId, serviceAccountId);
  }

  @Authorized('organization:owner')
  @Mutation(() => ServiceAccountType, { description: 'Creates a service account without secrets and roles: add a secret, then assign roles.' })
  createServiceAccount(
    @Ctx() ctx: Context,
    @Arg('organizationId', () => ID) organizationId: string,
    @Arg('input', () => ServiceAccountInput) input: ServiceAccountInput,
  ) {
    return ctx.services.serviceAccounts.create(organizationId, input);
  }

  @Authorized('organization:owner')
  @Mutation(() => ServiceAccountType, { description: 'Replaces (PUT) a service account: name and description.' })
  replaceServiceAccount(
    @Ctx() ctx: Context,
    @Arg('organizationId', () => ID) organizationId: string,
    @Arg('serviceAccountId', () => ID) serviceAccountId: string,
    @Arg('input', () => ServiceAccountInput) input: ServiceAccountInput,
    @Arg('ifMatch', () => String, { nullable: true }) ifMatch: string | null,
  ) {
    return ctx.services.serviceAccounts.update(organizationId, serviceAccountId, input, { ifMatch, replace: true });
  }

  @Authorized('organization:owner')
  @Mutation(() => ServiceAccountType, { description: 'Changes (PATCH) the fields of a service account that are given.' })
  updateServiceAccount(
    @Ctx() ctx: Context,
    @Arg('organizationId', () => ID) organizationId: string,
    @Arg('serviceAccountId', () => ID) serviceAccountId: string,
    @Arg('input', () => ServiceAccountPatch) input: ServiceAccountPatch,
    @Arg('ifMatch', () => String, { nullable: true }) ifMatch: string | null,
  ) {
    return ctx.services.serviceAccounts.update(organizationId, serviceAccountId, input, { ifMatch, replace: false });
  }

  @Authorized('organization:owner')
  @Mutation(() => Boolean, {
    description: 'Deletes a service account with its secrets, role assignments and group memberships; refused (409) when it would leave the organization without an owner.',
  })
  deleteServiceAccount(
    @Ctx() ctx: Context,
    @Arg('organizationId', () => ID) organizationId: string,
    @Arg('serviceAccountId', () => ID) serviceAccountId: string,
    @Arg('ifMatch', () => String, { nullable: true }) ifMatch: string | null,
  ) {
    return ctx.services.serviceAccounts.delete(organizationId, serviceAccountId, ifMatch);
  }
}
