import { AuthChecker } from 'type-graphql';
import { notFound, forbidden, unauthenticated } from '../graphql/errors';
import type { Context } from '../graphql/context';
import { TENANT_ROLES, TenantRole, roleSatisfies, tenantRoleOf } from './principal';

/**
 * The one access policy, applied by TypeGraphQL to every `@Authorized(role)` field, so GraphQL clients and
 * the REST facade obey the same rule. Tenant-scoped fields take a `tenant` argument (the tenant's name).
 *
 * - a tenant in showcase mode: everyone may do everything;
 * - no token (or an invalid one): 401, whether the tenant exists or not, so anonymous callers learn nothing;
 * - an unknown tenant, or one on which the caller holds no role: 404 (what a caller may not see does not exist);
 * - a role too weak for the operation: 403.
 */
export const authChecker: AuthChecker<Context, TenantRole> = async ({ args, context }, required) => {
  const name: unknown = args.tenant;
  if (typeof name !== 'string') throw new Error('an @Authorized field must take a tenant argument');
  context.tenantsAsked.add(name);
  const tenant = await context.services.tenants.byName(name);
  if (!tenant?.showcase) {
    const principal = await context.principal();
    if (!principal) throw unauthenticated('A bearer token is required.');
    const held = tenant ? tenantRoleOf(principal) : undefined;
    if (!tenant || !held) throw notFound(`Tenant '${name}' not found.`);
    const needed = required.length ? required : [TENANT_ROLES[0]];
    if (!needed.every((role) => roleSatisfies(held, role))) {
      throw forbidden(`This operation needs the role '${needed.join("', '")}' on tenant '${name}'.`);
    }
  }
  context.authorizedTenants.set(name, tenant);
  return true;
};
