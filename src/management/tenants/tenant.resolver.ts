import { Arg, Authorized, Ctx, Field, ObjectType, Query, Resolver } from 'type-graphql';
import { Context, tenantOf } from '../../graphql/context';

@ObjectType('Tenant')
export class TenantType {
  @Field()
  name: string;

  @Field(() => String, { nullable: true })
  friendlyName: string | null;

  @Field(() => String, { nullable: true })
  tag: string | null;

  @Field({ description: 'Base URL of the tenant API; the AAS API is at `{url}/api/v3.0`.' })
  url: string;

  @Field({ description: 'Showcase mode: no token needed. Never for production data.' })
  showcase: boolean;
}

@Resolver()
export class TenantResolver {
  @Authorized('reader')
  @Query(() => TenantType)
  tenant(@Ctx() ctx: Context, @Arg('tenant') name: string): TenantType {
    const tenant = tenantOf(ctx, name);
    return {
      name: tenant.name,
      friendlyName: tenant.friendlyName,
      tag: tenant.tag,
      url: ctx.services.tenants.urlOf(tenant.name),
      showcase: tenant.showcase,
    };
  }
}
