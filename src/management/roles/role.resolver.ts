import { Arg, Authorized, Field, ID, ObjectType, Query, Resolver } from 'type-graphql';
import { ORGANIZATION_ROLES, ROLE_DESCRIPTIONS, RoleName, TENANT_ROLES } from '../../auth/roles';

@ObjectType('Role', { description: 'A role that role assignments grant. Each role includes the ones listed before it.' })
export class RoleType {
  @Field()
  name: string;

  @Field({ description: '`organization` (organization-level) or `cloud` (for one tenant).' })
  scope: string;

  @Field()
  description: string;
}

const TENANT_DESCRIPTIONS: Record<string, string> = {
  reader: 'Reads the data of this tenant: shells, submodels, concept descriptions, registries, files.',
  contributor: 'Reads, creates, changes and deletes the data of this tenant.',
};

const roleOf = (name: RoleName, scope: 'organization' | 'cloud'): RoleType => ({
  name,
  scope,
  description: scope === 'organization' ? ROLE_DESCRIPTIONS[name] : TENANT_DESCRIPTIONS[name],
});

@Resolver(() => RoleType)
export class RoleResolver {
  @Authorized('organization:member')
  @Query(() => [RoleType], { description: 'The organization-level roles; an organization role holds on every tenant of the organization too.' })
  organizationRoles(@Arg('organizationId', () => ID) _organizationId: string): RoleType[] {
    return ORGANIZATION_ROLES.map((name) => roleOf(name, 'organization'));
  }

  @Authorized('organization:member')
  @Query(() => [RoleType], { description: 'The cloud-level roles: what a role assignment for one tenant can grant.' })
  cloudRoles(@Arg('organizationId', () => ID) _organizationId: string): RoleType[] {
    return TENANT_ROLES.map((name) => roleOf(name, 'cloud'));
  }
}
