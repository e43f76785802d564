import 'reflect-metadata';
import { GraphQLInterfaceType, GraphQLSchema } from 'graphql';
import { buildSchema, getMetadataStorage } from 'type-graphql';
import { ConceptDescriptionResolver } from '../aas/concept-descriptions/concept-description.resolver';
import { conceptDescriptionJsonResolvers } from '../aas/concept-descriptions/concept-description.types';
import { DescriptionResolver } from '../aas/description/description.resolver';
import { modelJsonResolvers } from '../aas/model/graphql-types';
import { QueryResolver } from '../aas/query/query.resolver';
import { SearchResolver } from '../aas/search/search.resolver';
import { ShellResolver } from '../aas/shells/shell.resolver';
import { shellJsonResolvers } from '../aas/shells/shell.types';
import { ELEMENT_TYPES, elementJsonResolvers } from '../aas/submodels/element.types';
import { SubmodelElementAtPathResolver, SubmodelResolver } from '../aas/submodels/submodel.resolver';
import { submodelJsonResolvers } from '../aas/submodels/submodel.types';
import { IdentityResolver } from '../auth/identity/identity.resolver';
import { FileResolver } from '../files/file.resolver';
import { PackageResolver } from '../aas/packages/package.resolver';
import { PushTargetResolver } from '../push/push-target.resolver';
import { DccResolver } from '../dcc/dcc.resolver';
import { ElementMeaningResolver, SemanticResolver, SubmodelMeaningResolver } from '../aas/semantics/semantic.resolver';
import { RegistryResolver, ShellDescriptorFieldResolver, SubmodelDescriptorFieldResolver } from '../aas/registry/registry.resolver';
import { createPubSub } from '@graphql-yoga/subscription';
import { authChecker } from '../auth/policy';
import { ChangeEventResolver } from '../events/change-event.resolver';
import { AccountResolver } from '../management/accounts/account.resolver';
import { MeResolver, MeTenantResolver, PrincipalRolesResolver } from '../management/me/me.resolver';
import { RoleResolver } from '../management/roles/role.resolver';
import { RoleAssignmentResolver } from '../management/role-assignments/role-assignment.resolver';
import { InvitationResolver, OrganizationUserResolver } from '../management/users/user.resolver';
import { OrganizationResolver } from '../management/organizations/organization.resolver';
import { TenantResolver } from '../management/tenants/tenant.resolver';
import { RegistryInstanceResolver } from '../management/registry-instances/registry-instance.resolver';
import { IdentityProviderResolver } from '../management/federation/identity-provider.resolver';
import { UserGroupResolver } from '../management/user-groups/user-group.resolver';
import { ServiceAccountSecretResolver } from '../management/service-accounts/service-account-secret.resolver';
import { ServiceAccountResolver } from '../management/service-accounts/service-account.resolver';

let built: Promise<GraphQLSchema> | undefined;

/** The one GraphQL schema: served at /graphql and executed in-process by the REST facade. */
export function buildAppSchema(): Promise<GraphQLSchema> {
  built ??= buildSchema({
    resolvers: [
      ShellResolver,
      SubmodelResolver,
      SubmodelElementAtPathResolver,
      ConceptDescriptionResolver,
      QueryResolver,
      SearchResolver,
      DescriptionResolver,
      RegistryResolver,
      ShellDescriptorFieldResolver,
      SubmodelDescriptorFieldResolver,
      FileResolver,
      PackageResolver,
      PushTargetResolver,
      DccResolver,
      SemanticResolver,
      SubmodelMeaningResolver,
      ElementMeaningResolver,
      ChangeEventResolver,
      TenantResolver,
      RegistryInstanceResolver,
      IdentityResolver,
      OrganizationResolver,
      IdentityProviderResolver,
      UserGroupResolver,
      ServiceAccountResolver,
      ServiceAccountSecretResolver,
      OrganizationUserResolver,
      InvitationResolver,
      AccountResolver,
      RoleResolver,
      RoleAssignmentResolver,
      MeResolver,
      MeTenantResolver,
      PrincipalRolesResolver,
      ...modelJsonResolvers,
      ...shellJsonResolvers,
      ...submodelJsonResolvers,
      ...elementJsonResolvers,
      ...conceptDescriptionJsonResolvers,
      // eslint-disable-next-line @typescript-eslint/no-unsafe-function-type -- the resolver list type-graphql's buildSchema takes
    ] as unknown as [Function, ...Function[]],
    // The element kinds are reached only through the SubmodelElement interface.
    orphanedTypes: ELEMENT_TYPES,
    authChecker,
    // TypeGraphQL wants a PubSub as soon as there is a subscription. Ours subscribes through its own `subscribe`
    // (the ChangeHub, src/events/change-event.resolver.ts), so nothing publishes on this one.
    pubSub: createPubSub(),
    authMode: 'error',
    validate: false,
  }).then(withSyncTypeResolution).then(withAccessRules);
  return built;
}

/**
 * TypeGraphQL wraps every `resolveType` in an async function. graphql-js awaits it; graphql-jit, which runs
 * the REST facade's operations, does not, and sees a Promise instead of a type name. The element kind is the
 * document's `modelType`, known synchronously, so the interface resolves it directly.
 */
function withSyncTypeResolution(schema: GraphQLSchema): GraphQLSchema {
  const elements = schema.getType('SubmodelElement') as GraphQLInterfaceType;
  elements.resolveType = (element: { modelType?: unknown }) => element.modelType as string;
  return schema;
}

/**
 * Each root field's `@Authorized` rule, as `extensions.access` (absent for a public field), so that what runs an
 * operation can tell what it will ask of the caller before running it: the REST facade admits the caller before it
 * reads a body (src/common/operation-demands.ts). The auth checker stays the one that decides; this only tells.
 */
function withAccessRules(schema: GraphQLSchema): GraphQLSchema {
  const storage = getMetadataStorage();
  const rules = new Map<string, string>();
  for (const [kind, definitions] of [['Query', storage.queries], ['Mutation', storage.mutations]] as const) {
    for (const def of definitions) {
      // `@Authorized()` without a rule is the auth checker's default, `reader`.
      if (def.roles) rules.set(`${kind}.${def.schemaName}`, String(def.roles[0] ?? 'reader'));
    }
  }
  for (const type of [schema.getQueryType(), schema.getMutationType()]) {
    for (const field of Object.values(type?.getFields() ?? {})) {
      const access = rules.get(`${type!.name}.${field.name}`);
      if (access) field.extensions = { ...field.extensions, access };
    }
  }
  return schema;
}
