import { Arg, Authorized, Ctx, Field, FieldResolver, ID, InputType, Int, Mutation, ObjectType, Query, Resolver, Root } from 'type-graphql';
import { DEFAULT_LIMIT } from '../../common/cursor';
import { Context } from '../../graphql/context';
import { PageOf } from '../records';
import { ServiceAccountSecretEntity } from './service-account-secret.entity';
import { isActive } from './service-account-secret.service';

@ObjectType('ServiceAccountSecret', { description: "A client secret's metadata. Its value is shown once, when it is created; only a hash of it is kept." })
export class ServiceAccountSecretType {
  @Field(() => ID)
  id: string;

  @Field({ description: "The value's first characters, to tell secrets apart." })
  hint: string;

  @Field(() => String, { nullable: true })
  description: string | null;

  @Field()
  createdAt: Date;

  @Field(() => Date, { nullable: true, description: 'When it stops working; null: never.' })
  expiresAt: Date | null;
}

const ServiceAccountSecretPage = PageOf(ServiceAccountSecretType, 'ServiceAccountSecret');

@ObjectType('NewServiceAccountSecret', { description: 'A secret just created, with its value: the only time the value is shown.' })
export class NewServiceAccountSecretType {
  @Field(() => ServiceAccountSecretType)
  secret: ServiceAccountSecretType;

  @Field({ description: 'The client_secret. Keep it safe: it cannot be shown again.' })
  value: string;

  @Field(() => ID, { description: 'The client_id (the service account id).' })
  clientId: string;

  @Field({ description: 'Where to get tokens with it (client credentials grant).' })
  tokenUrl: string;

  @Field(() => ServiceAccountSecretType, { nullable: true, description: 'Rotation: the other active secret, with its new expiry.' })
  previousSecret: ServiceAccountSecretType | null;
}

@InputType({ description: 'A new secret: optionally described, and expiring at `expiresAt` or `validForSeconds` from now (not both; neither: no expiry).' })
export class ServiceAccountSecretInput {
  @Field(() => String, { nullable: true, description: 'At most 2000 characters.' })
  description?: string | null;

  @Field(() => Date, { nullable: true, description: 'In the future.' })
  expiresAt?: Date | null;

  @Field(() => Int, { nullable: true, description: 'A positive number of seconds.' })
  validForSeconds?: number | null;
}

@InputType({ description: 'A rotation: the new secret, and how much longer the other active secret keeps working.' })
export class ServiceAccountSecretRotation extends ServiceAccountSecretInput {
  @Field(() => Int, {
    nullable: true,
    description: 'Seconds the previous secret keeps working (default 86400; 0: it stops now). Never extends an earlier expiry.',
  })
  previousSecretValidForSeconds?: number | null;
}

@Resolver(() => ServiceAccountSecretType)
export class ServiceAccountSecretResolver {
  @FieldResolver(() => Boolean, { description: 'Whether it still works: not expired.' })
  active(@Root() secret: ServiceAccountSecretEntity): boolean {
    return isActive(secret);
  }

  @Authorized('organization:reader')
  @Query(() => ServiceAccountSecretPage, { description: "A service account's secrets (metadata only), in creation order, expired ones included." })
  serviceAccountSecrets(
    @Ctx() ctx: Context,
    @Arg('organizationId', () => ID) organizationId: string,
    @Arg('serviceAccountId', () => ID) serviceAccountId: string,
    @Arg('limit', () => Int, { defaultValue: DEFAULT_LIMIT }) limit: number,
    @Arg('cursor', () => String, { nullable: true }) cursor: string | null,
  ) {
    return ctx.services.serviceAccountSecrets.list(organizationId, serviceAccountId, limit, cursor);
  }

  @Authorized('organization:owner')
  @Mutation(() => NewServiceAccountSecretType, { description: 'Adds a secret (at most two active ones); the answer holds its value, once.' })
  addServiceAccountSecret(
    @Ctx() ctx: Context,
    @Arg('organizationId', () => ID) organizationId: string,
    @Arg('serviceAccountId', () => ID) serviceAccountId: string,
    @Arg('input', () => ServiceAccountSecretInput) input: ServiceAccountSecretInput,
  ) {
    return ctx.services.serviceAccountSecrets.add(organizationId, serviceAccountId, input);
  }

  @Authorized('organization:owner')
  @Mutation(() => NewServiceAccountSecretType, {
    description: 'Adds a secret and makes the other active one expire (previousSecretValidForSeconds); refused (409) with two active secrets.',
  })
  rotateServiceAccountSecret(
    @Ctx() ctx: Context,
    @Arg('organizationId', () => ID) organizationId: string,
    @Arg('serviceAccountId', () => ID) serviceAccountId: string,
    @Arg('input', () => ServiceAccountSecretRotation) input: ServiceAccountSecretRotation,
  ) {
    return ctx.services.serviceAccountSecrets.rotate(organizationId, serviceAccountId, input);
  }

  @Authorized('organization:owner')
  @Mutation(() => Boolean, { description: 'Deletes a secret: it stops working at once.' })
  deleteServiceAccountSecret(
    @Ctx() ctx: Context,
    @Arg('organizationId', () => ID) organizationId: string,
    @Arg('serviceAccountId', () => ID) serviceAccountId: string,
    @Arg('secretId', () => ID) secretId: string,
  ) {
    return ctx.services.serviceAccountSecrets.delete(organizationId, serviceAccountId, secretId);
  }
}
