import { Arg, Authorized, Ctx, Field, FieldResolver, ID, InputType, Int, Mutation, ObjectType, Query, Resolver, Root } from 'type-graphql';
import { DEFAULT_LIMIT } from '../../common/cursor';
import { Context } from '../../graphql/context';
import { PageOf, etagOfRecord } from '../records';
import { IdentityTrustEntity } from './identity-trust.entity';

@ObjectType('IdentityProvider', {
  description:
    "An external issuer the organization (or one tenant of it) trusts: its tokens for `audience`, verified with the keys at `jwksUri`, carry roles at `rolesClaim` that hold organization-wide, or on the tenant only.",
})
export class IdentityProviderType {
  @Field(() => ID)
  id: string;

  @Field({ description: "The token's `iss`, matched exactly." })
  issuer: string;

  @Field({ description: "The token's `aud` must include it." })
  audience: string;

  @Field()
  jwksUri: string;

  @Field({ description: 'Dot path of the roles claim: `roles` (Entra ID), `realm_access.roles` (Keycloak).' })
  rolesClaim: string;

  @Field(() => ID, { nullable: true, description: 'Set: the trust grants roles on this tenant only.' })
  tenantId: string | null;

  @Field(() => String, {
    nullable: true,
    description:
      "The public client registered at the issuer for the admin console (redirect URI `{manage_url}/admin/callback`, authorization code with PKCE). Set: the organization's sign-in page of the console (`{manage_url}/admin?organization={id}`) offers a sign-in with this provider. That page is public: the issuer, this client id and the sign-in name are shown to anyone who opens it.",
  })
  signInClientId: string | null;

  @Field(() => String, { nullable: true, description: "The name on the console's sign-in button ('Sign in with …'); none: the issuer's host." })
  signInName: string | null;

  @Field()
  createdAt: Date;

  @Field()
  updatedAt: Date;
}

const IdentityProviderPage = PageOf(IdentityProviderType, 'IdentityProvider');

@InputType({ description: 'An identity provider (trusted issuer), as created or replaced.' })
export class IdentityProviderInput {
  @Field({ description: 'An absolute http(s) URL.' })
  issuer: string;

  @Field({ description: '1 to 500 characters.' })
  audience: string;

  @Field({ description: 'An absolute http(s) URL.' })
  jwksUri: string;

  @Field(() => String, { nullable: true, description: "Default 'roles'." })
  rolesClaim?: string | null;

  @Field(() => ID, { nullable: true, description: 'A tenant of the organization: the trust then grants roles on it only.' })
  tenantId?: string | null;

  @Field(() => String, {
    nullable: true,
    description:
      "The public client registered at the issuer for the admin console, 1 to 200 characters: the organization's (public) sign-in page of the console then offers a sign-in with this provider. None: no browser sign-in.",
  })
  signInClientId?: string | null;

  @Field(() => String, { nullable: true, description: "The name on the console's sign-in button, 1 to 100 characters; none: the issuer's host." })
  signInName?: string | null;
}

@InputType({ description: 'A partial update of an identity provider: only the fields given change (a null tenantId makes it organization-wide, a null signInClientId ends the browser sign-in).' })
export class IdentityProviderPatch {
  @Field(() => String, { nullable: true })
  issuer?: string | null;

  @Field(() => String, { nullable: true })
  audience?: string | null;

  @Field(() => String, { nullable: true })
  jwksUri?: string | null;

  @Field(() => String, { nullable: true })
  rolesClaim?: string | null;

  @Field(() => ID, { nullable: true })
  tenantId?: string | null;

  @Field(() => String, { nullable: true, description: 'Null: no browser sign-in any more.' })
  signInClientId?: string | null;

  @Field(() => String, { nullable: true, description: "Null: the issuer's host." })
  signInName?: string | null;
}

@Resolver(() => IdentityProviderType)
export class IdentityProviderResolver {
  @FieldResolver(() => String, { description: 'The entity tag, for If-Match.' })
  etag(@Root() trust: IdentityTrustEntity): string {
    return etagOfRecord(trust);
  }

  @Authorized('organization:reader')
  @Query(() => IdentityProviderPage, { description: "The organization's identity providers (trusted issuers), in creation order." })
  identityProviders(
    @Ctx() ctx: Context,
    @Arg('organizationId', () => ID) organizationId: string,
    @Arg('limit', () => Int, { defaultValue: DEFAULT_LIMIT }) limit: number,
    @Arg('cursor', () => String, { nullable: true }) cursor: string | null,
  ) {
    return ctx.services.identityProviders.list(organizationId, limit, cursor);
  }

  @Authorized('organization:reader')
  @Query(() => IdentityProviderType)
  identityProvider(@Ctx() ctx: Context, @Arg('organizationId', () => ID) organizationId: string, @Arg('identityProviderId', () => ID) identityProviderId: string) {
    return ctx.services.identityProviders.get(organizationId, identityProviderId);
  }

  @Authorized('organization:owner')
  @Mutation(() => IdentityProviderType, { description: "Trusts an external issuer's tokens; takes effect at once." })
  createIdentityProvider(
    @Ctx() ctx: Context,
    @Arg('organizationId', () => ID) organizationId: string,
    @Arg('input', () => IdentityProviderInput) input: IdentityProviderInput,
  ) {
    return ctx.services.identityProviders.create(organizationId, input);
  }

  @Authorized('organization:owner')
  @Mutation(() => IdentityProviderType, { description: 'Replaces (PUT) an identity provider.' })
  replaceIdentityProvider(
    @Ctx() ctx: Context,
    @Arg('organizationId', () => ID) organizationId: string,
    @Arg('identityProviderId', () => ID) identityProviderId: string,
    @Arg('input', () => IdentityProviderInput) input: IdentityProviderInput,
    @Arg('ifMatch', () => String, { nullable: true }) ifMatch: string | null,
  ) {
    return ctx.services.identityProviders.update(organizationId, identityProviderId, input, { ifMatch, replace: true });
  }

  @Authorized('organization:owner')
  @Mutation(() => IdentityProviderType, { description: 'Changes (PATCH) the fields of an identity provider that are given.' })
  updateIdentityProvider(
    @Ctx() ctx: Context,
    @Arg('organizationId', () => ID) organizationId: string,
    @Arg('identityProviderId', () => ID) identityProviderId: string,
    @Arg('input', () => IdentityProviderPatch) input: IdentityProviderPatch,
    @Arg('ifMatch', () => String, { nullable: true }) ifMatch: string | null,
  ) {
    return ctx.services.identityProviders.update(organizationId, identityProviderId, input, { ifMatch, replace: false });
  }

  @Authorized('organization:owner')
  @Mutation(() => Boolean, { description: "Stops trusting the issuer's tokens; takes effect at once." })
  deleteIdentityProvider(
    @Ctx() ctx: Context,
    @Arg('organizationId', () => ID) organizationId: string,
    @Arg('identityProviderId', () => ID) identityProviderId: string,
    @Arg('ifMatch', () => String, { nullable: true }) ifMatch: string | null,
  ) {
    return ctx.services.identityProviders.delete(organizationId, identityProviderId, ifMatch);
  }
}
