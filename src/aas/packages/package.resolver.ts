import { Arg, Authorized, Ctx, Field, Int, ObjectType, Query, Resolver } from 'type-graphql';
import { DEFAULT_LIMIT } from '../../common/cursor';
import { Context, tenantOf } from '../../graphql/context';
import { PagingMetadata } from '../model/graphql-types';

@ObjectType('PackageDescription', {
  description:
    'An AASX package of the AASX File Server, with the ids of the shells read from the package. Its bytes are up- and downloaded at ' +
    '`{tenant_url}/api/v3.0/packages/{packageId}` (base64url-encoded), never through GraphQL.',
})
export class PackageDescriptionType {
  @Field()
  packageId: string;

  @Field(() => [String])
  aasIds: string[];
}

@ObjectType('PackageDescriptionPage')
export class PackageDescriptionPage {
  @Field(() => [PackageDescriptionType])
  result: PackageDescriptionType[];

  @Field(() => PagingMetadata)
  pagingMetadata: PagingMetadata;
}

@Resolver(() => PackageDescriptionType)
export class PackageResolver {
  @Authorized('reader')
  @Query(() => PackageDescriptionPage, { description: 'AASX packages of the tenant, in upload order, paged; with `aasId`, only those holding that shell.' })
  async aasxPackages(
    @Ctx() ctx: Context,
    @Arg('tenant') tenant: string,
    @Arg('aasId', () => String, { nullable: true }) aasId: string | null,
    @Arg('limit', () => Int, { defaultValue: DEFAULT_LIMIT }) limit: number,
    @Arg('cursor', () => String, { nullable: true }) cursor: string | null,
  ) {
    const page = await ctx.services.packages.list(tenantOf(ctx, tenant), aasId, limit, cursor);
    return { result: page.items, pagingMetadata: { cursor: page.cursor } };
  }
}
