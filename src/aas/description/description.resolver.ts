import { Arg, Authorized, Field, ObjectType, Query, Resolver } from 'type-graphql';

/** The service profiles this server implements in full (AAS API Part 2, ServiceDescription). */
export const PROFILES = [
  'https://admin-shell.io/aas/API/3/0/AssetAdministrationShellRepositoryServiceSpecification/SSP-001',
  'https://admin-shell.io/aas/API/3/0/SubmodelRepositoryServiceSpecification/SSP-001',
  'https://admin-shell.io/aas/API/3/0/ConceptDescriptionRepositoryServiceSpecification/SSP-001',
];

@ObjectType({ description: 'What the tenant API of this server implements.' })
export class ServiceDescription {
  @Field(() => [String])
  profiles: string[];
}

@Resolver()
export class DescriptionResolver {
  @Authorized('reader')
  @Query(() => ServiceDescription)
  serviceDescription(@Arg('tenant') _tenant: string): ServiceDescription {
    return { profiles: PROFILES };
  }
}
