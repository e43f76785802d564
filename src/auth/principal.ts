/** Tenant roles, weakest first: each includes the ones before it. */
export const TENANT_ROLES = ['reader', 'contributor'] as const;
export type TenantRole = (typeof TENANT_ROLES)[number];

/** The authenticated caller: a user or a service account, as its verified token describes it. */
export interface Principal {
  subject: string;
  issuer: string;
  /** Role names from the token's `roles` claim. */
  roles: ReadonlySet<string>;
}

/** The strongest tenant role the principal holds, or undefined when it holds none. */
export function tenantRoleOf(principal: Principal): TenantRole | undefined {
  for (let i = TENANT_ROLES.length - 1; i >= 0; i--) {
    if (principal.roles.has(TENANT_ROLES[i])) return TENANT_ROLES[i];
  }
  return undefined;
}

export function roleSatisfies(held: TenantRole, required: TenantRole): boolean {
  return TENANT_ROLES.indexOf(held) >= TENANT_ROLES.indexOf(required);
}
