import type { RunningServer } from '../../src/server';
import type { RoleName } from '../../src/auth/roles';
import { RoleAssignmentEntity, type AssigneeType } from '../../src/management/role-assignments/role-assignment.entity';
import { newServiceAccount } from './identity';
import { ManagementClient, managementClient } from './management';

type Server = Pick<RunningServer, 'url' | 'services' | 'dataSource'>;

/** A role assignment written to the database directly (tests of other resources than role assignments). */
export async function assignRole(
  server: Server,
  organizationId: string,
  principal: { type: AssigneeType; id: string },
  role: RoleName,
  tenantId: string | null = null,
): Promise<void> {
  await server.dataSource.manager.insert(RoleAssignmentEntity, {
    organizationId,
    tenantId,
    role,
    principalType: principal.type,
    principalId: principal.id,
    createdBy: 'test',
  });
}

/** A service account of the organization holding one organization-wide role, as a Management API client. */
export async function clientWithRole(server: Server, organizationId: string, role: RoleName): Promise<ManagementClient & { serviceAccountId: string }> {
  const sa = await newServiceAccount(server, organizationId);
  await assignRole(server, organizationId, { type: 'service-account', id: sa.id }, role);
  return { ...managementClient(server, await sa.token()), serviceAccountId: sa.id };
}

/** POSTs a GraphQL document to /graphql as `token`. */
export async function graphql(server: Pick<RunningServer, 'url'>, token: string | null, query: string, variables: Record<string, unknown> = {}) {
  const res = await fetch(`${server.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify({ query, variables }),
  });
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  return { status: res.status, body: (await res.json()) as any };
}

/**
 * A new tenant with the tokens of a reader and a contributor of it, and of a contributor of another new tenant
 * (`elsewhere`, of another organization): the callers of a route's permission and isolation tests.
 */
export async function tenantRoleTokens<T extends { id: string; name: string; organizationId: string }>(
  server: Server & { createTenant(options: { showcase: boolean }): Promise<T> },
): Promise<{ tenant: T; reader: string; contributor: string; elsewhere: T; stranger: string }> {
  const withRole = async (tenant: T, role: RoleName) => {
    const account = await newServiceAccount(server, tenant.organizationId);
    await assignRole(server, tenant.organizationId, { type: 'service-account', id: account.id }, role, tenant.id);
    return account.token();
  };
  const tenant = await server.createTenant({ showcase: false });
  const elsewhere = await server.createTenant({ showcase: false });
  return { tenant, reader: await withRole(tenant, 'reader'), contributor: await withRole(tenant, 'contributor'), elsewhere, stranger: await withRole(elsewhere, 'contributor') };
}
