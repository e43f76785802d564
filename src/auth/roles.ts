/**
 * Role names (lower case, as the platform spec has them). Organization roles: `reader`, `contributor`,
 * `organization-owner`; tenant ("cloud") roles: `reader`, `contributor`. Each role includes the ones before it.
 */
export const ORGANIZATION_ROLES = ['reader', 'contributor', 'organization-owner'] as const;
export const TENANT_ROLES = ['reader', 'contributor'] as const;

export type RoleName = (typeof ORGANIZATION_ROLES)[number];
export type TenantRole = (typeof TENANT_ROLES)[number];

export const ROLE_DESCRIPTIONS: Record<RoleName, string> = {
  reader: 'Reads the data of the tenants it holds for (organization-wide: every tenant) and, organization-wide, the organization\'s users, groups, service accounts, tenants and role assignments.',
  contributor: 'Everything a reader may, and creates, changes and deletes the data of the tenants it holds for.',
  'organization-owner': 'Administers the organization: users, invitations, service accounts and secrets, groups, role assignments, tenants; contributor on every tenant of it.',
};

export function isRoleName(value: unknown): value is RoleName {
  return typeof value === 'string' && (ORGANIZATION_ROLES as readonly string[]).includes(value);
}

export function isTenantRole(value: unknown): value is TenantRole {
  return typeof value === 'string' && (TENANT_ROLES as readonly string[]).includes(value);
}

/** Whether holding `held` includes `required` (organization-owner includes contributor includes reader). */
export function roleIncludes(held: RoleName, required: RoleName): boolean {
  return ORGANIZATION_ROLES.indexOf(held) >= ORGANIZATION_ROLES.indexOf(required);
}

/** The strongest of some roles, or undefined for none. */
export function strongestRole<R extends RoleName>(roles: Iterable<R>): R | undefined {
  let best: R | undefined;
  for (const role of roles) if (best === undefined || roleIncludes(role, best)) best = role;
  return best;
}

/** What a role held for a tenant allows there: the owner's administrative rights cascade as contributor. */
export function asTenantRole(role: RoleName): TenantRole {
  return role === 'organization-owner' ? 'contributor' : role;
}
