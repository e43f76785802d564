import { Arg, Authorized, Ctx, Field, ID, InputType, Mutation, ObjectType, Query, Resolver } from 'type-graphql';
import { requirePrincipal } from '../../auth/policy';
import { Context } from '../../graphql/context';
import { notFound } from '../../graphql/errors';

@ObjectType('Account', { description: 'An identity account of the built-in identity service. Organizations invite it by its id.' })
export class AccountType {
  @Field(() => ID, { description: "The account id: the user tokens' `sub`, what organizations invite." })
  id: string;

  @Field()
  email: string;

  @Field(() => String, { nullable: true })
  displayName: string | null;

  @Field()
  createdAt: Date;
}

@InputType({ description: 'A new identity account (sign-up).' })
export class SignUpInput {
  @Field({ description: 'The login name; unique regardless of case.' })
  email: string;

  @Field({ description: 'At least 12 characters. Kept only as a slow hash.' })
  password: string;

  @Field(() => String, { nullable: true })
  displayName?: string | null;
}

@Resolver(() => AccountType)
export class AccountResolver {
  @Mutation(() => AccountType, {
    description: 'Signs up: creates an identity account on the built-in identity service (no token needed). 403 when sign-up is switched off (SIGNUP_ENABLED=false).',
  })
  signUp(@Ctx() ctx: Context, @Arg('input', () => SignUpInput) input: SignUpInput) {
    return ctx.services.accounts.signUp(input);
  }

  @Authorized('authenticated')
  @Query(() => AccountType, { description: "An identity account: the caller's own (any other answers 404)." })
  async account(@Ctx() ctx: Context, @Arg('accountId', () => ID) accountId: string) {
    const principal = await requirePrincipal(ctx);
    const account = principal.kind === 'user' && principal.subject === accountId ? await ctx.services.accounts.byId(accountId) : null;
    if (!account) throw notFound(`Account '${accountId}' not found.`);
    return account;
  }
}
