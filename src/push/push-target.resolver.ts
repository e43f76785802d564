import { Arg, Authorized, Ctx, Field, Float, InputType, Int, Mutation, ObjectType, Query, Resolver } from 'type-graphql';
import { PagingMetadata } from '../aas/model/graphql-types';
import { DEFAULT_LIMIT } from '../common/cursor';
import { Context, tenantOf } from '../graphql/context';

@ObjectType('PushTarget', {
  description:
    "Where the tenant's changed shells are pushed: an S3-compatible bucket (`kind: s3`: the AASX or JSON environment of each changed shell as " +
    'the object `{prefix}{base64url(shellId)}.aasx|.json`) or an AASX File Server (`kind: aasx-server`: a package per shell, posted to ' +
    '`{url}/packages` and replaced after). Credentials are write-only: `secretSet` says whether the S3 secret access key or the bearer token is set.',
})
export class PushTargetType {
  @Field()
  id: string;

  @Field({ description: '`s3` or `aasx-server`.' })
  kind: string;

  @Field(() => String, { nullable: true })
  name: string | null;

  @Field(() => String, { nullable: true, description: 's3: the endpoint of an S3-compatible service; null: AWS S3 of the region.' })
  endpoint: string | null;

  @Field(() => String, { nullable: true, description: 's3' })
  bucket: string | null;

  @Field(() => String, { nullable: true, description: 's3' })
  region: string | null;

  @Field(() => String, { nullable: true, description: 's3: put before every object key.' })
  prefix: string | null;

  @Field(() => Boolean, { nullable: true, description: 's3: the bucket in the path instead of the host name.' })
  forcePathStyle: boolean | null;

  @Field({ description: 'What is pushed: `aasx` (a package of the shell, its submodels and their concept descriptions) or `json` (that environment as JSON; s3 only).' })
  format: string;

  @Field(() => String, { nullable: true, description: 's3: the access key id of the credentials (the secret access key is never shown).' })
  accessKeyId: string | null;

  @Field(() => String, { nullable: true, description: 'aasx-server: the base URL of its AASX File Server API (where `/packages` is).' })
  url: string | null;

  @Field(() => String, { nullable: true, description: 'aasx-server with OAuth 2.0 client credentials: the token endpoint the server fetches its tokens from.' })
  tokenUrl: string | null;

  @Field(() => String, { nullable: true, description: 'aasx-server with client credentials: the client id (the client secret is never shown).' })
  clientId: string | null;

  @Field(() => String, { nullable: true, description: 'aasx-server with client credentials: the scope asked for; null: none.' })
  scope: string | null;

  @Field(() => String, { nullable: true, description: 'aasx-server with client credentials: `client_secret_basic` (HTTP Basic) or `client_secret_post` (in the form).' })
  authMethod: string | null;

  @Field({ description: 'Whether the secret access key (s3), the bearer token or the client secret (aasx-server) is set.' })
  secretSet: boolean;

  @Field()
  createdAt: Date;

  @Field(() => Date, { nullable: true, description: 'When a push to this target last succeeded.' })
  lastSuccessAt: Date | null;

  @Field(() => String, { nullable: true, description: 'Why the last failed push failed (kept after later successes; compare lastErrorAt with lastSuccessAt).' })
  lastError: string | null;

  @Field(() => Date, { nullable: true })
  lastErrorAt: Date | null;

  @Field(() => Float, { description: 'Shells waiting to be pushed: queued, or failed and waiting for their retry (1 s doubling to 5 min).' })
  backlog: number;
}

@ObjectType('PushTargetPage')
export class PushTargetPage {
  @Field(() => [PushTargetType])
  result: PushTargetType[];

  @Field(() => PagingMetadata)
  pagingMetadata: PagingMetadata;
}

@InputType({ description: 'The credentials of an S3 target: both are required.' })
export class PushCredentialsInput {
  @Field(() => String, { nullable: true })
  accessKeyId?: string | null;

  @Field(() => String, { nullable: true, description: 'Write-only: never shown again.' })
  secretAccessKey?: string | null;
}

@InputType({
  description:
    'OAuth 2.0 client credentials of an aasx-server target: the server fetches a token from tokenUrl (grant_type=client_credentials), keeps it ' +
    'until shortly before it expires, and fetches a new one then or when the target answers 401. tokenUrl, clientId and clientSecret are required.',
})
export class PushClientCredentialsInput {
  @Field(() => String, { nullable: true })
  tokenUrl?: string | null;

  @Field(() => String, { nullable: true })
  clientId?: string | null;

  @Field(() => String, { nullable: true, description: 'Write-only: never shown again.' })
  clientSecret?: string | null;

  @Field(() => String, { nullable: true, description: 'Space-separated scopes to ask for; absent: none.' })
  scope?: string | null;

  @Field(() => String, { nullable: true, description: '`client_secret_basic` (default: HTTP Basic) or `client_secret_post` (id and secret in the form).' })
  authMethod?: string | null;
}

@InputType({
  description:
    'A push target. kind `s3`: bucket and region and credentials required; endpoint, prefix, forcePathStyle (false) and format (aasx) optional. ' +
    'kind `aasx-server`: url required; token (a static bearer token, write-only) or clientCredentials optional. Fields of the other kind are refused. ' +
    'As a change (updatePushTarget): the fields to change; null removes an optional one.',
})
export class PushTargetInput {
  @Field(() => String, { nullable: true })
  kind?: string | null;

  @Field(() => String, { nullable: true })
  name?: string | null;

  @Field(() => String, { nullable: true })
  endpoint?: string | null;

  @Field(() => String, { nullable: true })
  bucket?: string | null;

  @Field(() => String, { nullable: true })
  region?: string | null;

  @Field(() => String, { nullable: true })
  prefix?: string | null;

  @Field(() => Boolean, { nullable: true })
  forcePathStyle?: boolean | null;

  @Field(() => String, { nullable: true })
  format?: string | null;

  @Field(() => PushCredentialsInput, { nullable: true })
  credentials?: PushCredentialsInput | null;

  @Field(() => String, { nullable: true })
  url?: string | null;

  @Field(() => String, { nullable: true, description: 'Write-only: never shown again.' })
  token?: string | null;

  @Field(() => PushClientCredentialsInput, { nullable: true })
  clientCredentials?: PushClientCredentialsInput | null;
}

@Resolver(() => PushTargetType)
export class PushTargetResolver {
  @Authorized('reader')
  @Query(() => PushTargetPage, { description: "The tenant's push targets, in registration order, paged, with the state of their pushes." })
  async pushTargets(
    @Ctx() ctx: Context,
    @Arg('tenant') tenant: string,
    @Arg('limit', () => Int, { defaultValue: DEFAULT_LIMIT }) limit: number,
    @Arg('cursor', () => String, { nullable: true }) cursor: string | null,
  ) {
    const page = await ctx.services.pushTargets.list(tenantOf(ctx, tenant), limit, cursor);
    return { result: page.items, pagingMetadata: { cursor: page.cursor ?? undefined } };
  }

  @Authorized('reader')
  @Query(() => PushTargetType, { description: 'A push target and the state of its pushes (404 for an unknown id).' })
  pushTarget(@Ctx() ctx: Context, @Arg('tenant') tenant: string, @Arg('id') id: string) {
    return ctx.services.pushTargets.get(tenantOf(ctx, tenant), id);
  }

  @Authorized('contributor')
  @Mutation(() => PushTargetType, { description: 'Registers a push target: the shells that change from now on are pushed to it.' })
  registerPushTarget(@Ctx() ctx: Context, @Arg('tenant') tenant: string, @Arg('target', () => PushTargetInput) target: PushTargetInput) {
    return ctx.services.pushTargets.register(tenantOf(ctx, tenant), plain(target));
  }

  @Authorized('contributor')
  @Mutation(() => PushTargetType, {
    description:
      "Changes a push target's settings or credentials: the fields given replace, null removes an optional one, the credential objects merge " +
      'field by field; a bearer token and client credentials exclude each other. Its kind cannot change. What it pushed, its queued pushes and ' +
      'its last success and error stay.',
  })
  updatePushTarget(@Ctx() ctx: Context, @Arg('tenant') tenant: string, @Arg('id') id: string, @Arg('target', () => PushTargetInput) target: PushTargetInput) {
    return ctx.services.pushTargets.update(tenantOf(ctx, tenant), id, plain(target));
  }

  @Authorized('contributor')
  @Mutation(() => Boolean, { description: 'Deletes a push target and its queued pushes; what it pushed stays at the target.' })
  async deletePushTarget(@Ctx() ctx: Context, @Arg('tenant') tenant: string, @Arg('id') id: string): Promise<boolean> {
    await ctx.services.pushTargets.delete(tenantOf(ctx, tenant), id);
    return true;
  }
}

/** The input as plain objects (TypeGraphQL hands out class instances), fields not given left out. */
function plain(target: PushTargetInput): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(target)) if (value !== undefined) out[key] = (key === 'credentials' || key === 'clientCredentials') && value ? { ...value } : value;
  return out;
}
