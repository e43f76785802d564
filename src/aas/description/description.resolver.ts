import { Arg, Authorized, Ctx, Field, ObjectType, Query, Resolver } from 'type-graphql';
import { Context, tenantOf } from '../../graphql/context';
import type { InstanceKind } from '../registry/registry.entities';

const PROFILE = 'https://admin-shell.io/aas/API/3/0';
const PROFILE_V31 = 'https://admin-shell.io/aas/API/3/1';

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

/**
 * The same through the API V3.1 (the `x-profile-identifier`s of the V3.1.2 service specifications): the repositories
 * in full and their query profiles (AAS Repository SSP-003, Submodel Repository SSP-005, Concept Description
 * Repository SSP-002), the implicit registries' read and query profiles (SSP-002, SSP-004), the Discovery read
 * profile V3.1 added (SSP-002: the reads the implicit discovery serves), and the AASX File Server (SSP-001). Not the
 * registries' bulk profiles (SSP-003): those are asynchronous jobs over many descriptors, which the implicit
 * registries (read-only) cannot take and the explicit ones do not serve.
 */
export const PROFILES_V31 = [
  `${PROFILE_V31}/AssetAdministrationShellRepositoryServiceSpecification/SSP-001`,
  `${PROFILE_V31}/AssetAdministrationShellRepositoryServiceSpecification/SSP-003`,
  `${PROFILE_V31}/SubmodelRepositoryServiceSpecification/SSP-001`,
  `${PROFILE_V31}/SubmodelRepositoryServiceSpecification/SSP-005`,
  `${PROFILE_V31}/ConceptDescriptionRepositoryServiceSpecification/SSP-001`,
  `${PROFILE_V31}/ConceptDescriptionRepositoryServiceSpecification/SSP-002`,
  `${PROFILE_V31}/AssetAdministrationShellRegistryServiceSpecification/SSP-002`,
  `${PROFILE_V31}/AssetAdministrationShellRegistryServiceSpecification/SSP-004`,
  `${PROFILE_V31}/SubmodelRegistryServiceSpecification/SSP-002`,
  `${PROFILE_V31}/SubmodelRegistryServiceSpecification/SSP-004`,
  `${PROFILE_V31}/DiscoveryServiceSpecification/SSP-002`,
  `${PROFILE_V31}/AasxFileServerServiceSpecification/SSP-001`,
];

/** What an explicit instance implements through V3.1: its kind's full profile, and an AAS registry's query profile. */
export const INSTANCE_PROFILES_V31: Record<InstanceKind, string[]> = {
  discovery: [`${PROFILE_V31}/DiscoveryServiceSpecification/SSP-001`],
  'aas-registry': [`${PROFILE_V31}/AssetAdministrationShellRegistryServiceSpecification/SSP-001`, `${PROFILE_V31}/AssetAdministrationShellRegistryServiceSpecification/SSP-004`],
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
    // The profiles of the version the request speaks (GraphQL: V3.1, the stored model's).
    const v31 = ctx.aasVersion === '3.1';
    if (instance == null) return { profiles: v31 ? PROFILES_V31 : PROFILES };
    const found = await ctx.services.registryInstances.resolve(tenantOf(ctx, tenant), instance);
    return { profiles: (v31 ? INSTANCE_PROFILES_V31 : INSTANCE_PROFILES)[found.kind] };
  }
}
