import { Ctx, Field, Mutation, ObjectType, Resolver } from 'type-graphql';
import type { Context } from '../../graphql/context';
import { notFound } from '../../graphql/errors';
import { organizationAccess, requirePrincipal } from '../policy';

@ObjectType('SigningKeyRotation', { description: 'The outcome of a signing key rotation of the built-in identity service.' })
export class SigningKeyRotationType {
  @Field({ description: 'The kid of the new current signing key: tokens issued from now on carry it.' })
  kid: string;

  @Field(() => String, { nullable: true, description: 'The kid of the key it replaced, still published (JWKS) and accepted until `retiredKeyPublishedUntil`.' })
  retiredKid: string | null;

  @Field(() => Date, { nullable: true, description: 'Until when the retired key stays published: every token it signed has expired by then.' })
  retiredKeyPublishedUntil: Date | null;
}

@Resolver()
export class IdentityResolver {
  @Mutation(() => SigningKeyRotationType, {
    description:
      'Rotates the signing key of the built-in identity service: a new key signs from now on (on every replica within a minute), ' +
      'the previous one stays published until the tokens it signed have expired. Owners of the platform organization only.',
  })
  async rotateSigningKey(@Ctx() ctx: Context): Promise<SigningKeyRotationType> {
    await requirePrincipal(ctx);
    const platform = await ctx.services.identity.platformOrganization();
    if (!platform) throw notFound('No platform organization.');
    // 404 for a caller holding no role in the platform organization, 403 for one holding a weaker role.
    await organizationAccess(ctx, platform.id, 'organization-owner');
    return ctx.services.identity.rotateSigningKey();
  }
}
