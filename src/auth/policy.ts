import { AuthChecker } from 'type-graphql';
import { notFound, forbidden, unauthenticated } from '../graphql/errors';
import { isUuid } from '../common/uuid';
import { OrganizationAccess, accessIn } from './access';
import type { TenantEntity } from '../management/tenants/tenant.entity';
import type { Principal } from './principal';
import type { RequestContext } from './request';
import { RoleName, TenantRole, isTenantRole, roleIncludes } from './roles';

/**
 * What an `@Authorized(...)` field requires:
 * - `reader` / `contributor`: that tenant role on the tenant named by the field's `tenant` argument;
 * - `organization:member`: any role in the organization named by `organizationId` (organization-wide or on one
 *   of its tenants) — enough to know it exists and see the parts one may;
 * - `organization:reader` / `organization:contributor` / `organization:owner`: that organization-wide role;
 * - `authenticated`: any verified caller (creating an organization, /me, accepting an invitation).
 */
export type AccessRule =
  | TenantRole
  | 'organization:member'
  | 'organization:reader'
  | 'organization:contributor'
  | 'organization:owner'
  | 'authenticated';

const ORGANIZATION_RULES: Record<string, RoleName | undefined> = {
  'organization:member': undefined,
  'organization:reader': 'reader',
  'organization:contributor': 'contributor',
  'organization:owner': 'organization-owner',
};

/**
 * The one access policy, applied by TypeGraphQL to every `@Authorized(rule)` field, so GraphQL clients and
 * the REST facade obey the same rule. Roles come from the database (role assignments, directly or through a
 * group, organization roles cascading to every tenant of the organization) or from a trusted issuer's token.
 *
 * - a tenant in showcase mode: everyone may do everything with its data;
 * - no token (or an invalid one): 401, whether the tenant or organization exists or not;
 * - an unknown tenant or organization, or one the caller holds no role in: 404 (no existence leak);
 * - a role too weak for the operation: 403.
 */
export const authChecker: AuthChecker<RequestContext, AccessRule> = async ({ args, context }, rules) => {
  const rule = rules[0] ?? 'reader';
  if (rule === 'authenticated') {
    await requirePrincipal(context);
    return true;
  }
  if (rule in ORGANIZATION_RULES) {
    await organizationAccess(context, args.organizationId, ORGANIZATION_RULES[rule]);
    return true;
  }
  if (!isTenantRole(rule)) throw new Error(`unknown access rule ${rule}`);
  const name: unknown = args.tenant;
  if (typeof name !== 'string') throw new Error('a tenant-scoped @Authorized field must take a tenant argument');
  await admitToTenant(context, name, rule);
  return true;
};

/**
 * The same rule as `authChecker`, applied before an operation runs with what is known of its arguments then (the
 * tenant and the organization a request's path names): what would refuse the caller refuses it now, with the same
 * 401, 403 or 404. What is not known yet (a tenant named only in a body) is left to the auth checker, which still
 * runs on every field. A rule this policy does not know admits nothing.
 */
export async function admitEarly(context: RequestContext, rule: string, known: { tenant?: unknown; organizationId?: unknown }): Promise<void> {
  if (isTenantRole(rule)) {
    // A showcase tenant needs no token: only the tenant tells whether one is needed.
    if (typeof known.tenant === 'string') await admitToTenant(context, known.tenant, rule);
    return;
  }
  if (rule !== 'authenticated' && !(rule in ORGANIZATION_RULES)) throw new Error(`unknown access rule ${rule}`);
  await requirePrincipal(context);
  if (rule in ORGANIZATION_RULES && known.organizationId !== undefined) await organizationAccess(context, known.organizationId, ORGANIZATION_RULES[rule]);
}

/**
 * The tenant rule of `authChecker` (`@Authorized(rule)` on a field with a `tenant` argument), also for what runs
 * outside a GraphQL field with the same rule (subscriptions, the façade's hot reads): the tenant the caller is
 * admitted into, as `tenantOf` finds it afterwards; 401, 403 or 404 otherwise.
 */
export async function admitToTenant(context: RequestContext, name: string, rule: TenantRole): Promise<TenantEntity> {
  context.tenantsAsked.add(name);
  const tenant = await context.services.tenants.byName(name);
  if (!tenant?.showcase) {
    await requirePrincipal(context);
    const held = tenant ? accessIn(await context.roles(), tenant.organizationId).tenantRole(tenant.id) : undefined;
    if (!tenant || !held) throw notFound(`Tenant '${name}' not found.`);
    if (!roleIncludes(held, rule)) throw forbidden(`This operation needs the role '${rule}' on tenant '${name}'.`);
  }
  context.authorizedTenants.set(name, tenant);
  return tenant;
}

export async function requirePrincipal(context: RequestContext): Promise<Principal> {
  const principal = await context.principal();
  if (!principal) throw unauthenticated('A bearer token is required.');
  return principal;
}

/**
 * The caller's access to an organization, checked: 404 when it holds no role there (or the id is no
 * organization's), 403 when `required` is given and its organization-wide role does not include it.
 */
export async function organizationAccess(context: RequestContext, organizationId: unknown, required?: RoleName): Promise<OrganizationAccess> {
  await requirePrincipal(context);
  const access = isUuid(organizationId) ? accessIn(await context.roles(), organizationId) : undefined;
  if (!access?.isMember) throw notFound(`Organization '${String(organizationId)}' not found.`);
  if (required && !access.has(required)) {
    throw forbidden(`This operation needs the organization role '${required}'.`);
  }
  return access;
}
