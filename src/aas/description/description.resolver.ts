import { Arg, Authorized, Ctx, Field, ObjectType, Query, Resolver } from 'type-graphql';
import { Context, tenantOf } from '../../graphql/context';
import type { InstanceKind } from '../registry/registry.entities';

const PROFILE = 'https://admin-shell.io/aas/API/3/0';

/**
 * The service profiles the tenant API implements (AAS API Part 2, ServiceDescription; the identifiers are the
 * `x-profile-identifier`s of the V3.0.4 service specifications): the repositories in full, and the implicit
 * registries' read profiles (SSP-002). The implicit discovery serves only the reads of the Discovery profile,
 * and V3.0.4 has no read profile for discovery (its only one, SSP-001, includes the writes), so none is claimed.
 */
export const PROFILES = [
  `${PROFILE}/AssetAdministrationShellRepositoryServiceSpecification/SSP-001`,
  `${PROFILE}/SubmodelRepositoryServiceSpecification/SSP-001`,
  `${PROFILE}/ConceptDescriptionRepositoryServiceSpecification/SSP-001`,
  `${PROFILE}/AssetAdministrationShellRegistryServiceSpecification/SSP-002`,
  `${PROFILE}/SubmodelRegistryServiceSpecification/SSP-002`,
];

/** What an explicit instance implements: its kind's full profile. */
export const INSTANCE_PROFILES: Record<InstanceKind, string[]> = {
  discovery: [`${PROFILE}/DiscoveryServiceSpecification/SSP-001`],
  'aas-registry': [`${PROFILE}/AssetAdministrationShellRegistryServiceSpecification/SSP-001`],
};

@ObjectType({ description: 'What the tenant API (or one of its explicit registry instances) implements.' })
export class ServiceDescription {
  @Field(() => [String])
  profiles: string[];
}

@Resolver()
export class DescriptionResolver {
  @Authorized('reader')
  @Query(() => ServiceDescription)
  async serviceDescription(
    @Ctx() ctx: Context,
    @Arg('tenant') tenant: string,
    @Arg('instance', () => String, { nullable: true, description: 'An explicit registry instance, by name: its profile.' }) instance: string | null,
  ): Promise<ServiceDescription> {
    if (instance == null) return { profiles: PROFILES };
    const found = await ctx.services.registryInstances.resolve(tenantOf(ctx, tenant), instance);
    return { profiles: INSTANCE_PROFILES[found.kind] };
  }
}
