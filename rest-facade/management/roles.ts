import { ifMatchOf, ManagementRouteSpec, noContent, PAGING, pagingOf, recordPage, recordResponse } from './route';

const ORG = '/organizations/:organizationId';
const ROLE = 'name scope description';
const ASSIGNMENT = 'id organizationId tenantId role principalType principalId createdBy createdAt';
/** An effective role with its source, as /me and a principal's roles show it. */
const ROLE_SHOWN = 'role source via assignmentId groupId groupName identityProviderId';

export const roleRoutes: ManagementRouteSpec[] = [
  {
    method: 'GET',
    path: `${ORG}/roles`,
    summary: 'List the organization-level roles (organization-owner, contributor, reader); they hold on every tenant of the organization too.',
    tag: 'Roles',
    operation: `query Roles($organizationId: ID!) { organizationRoles(organizationId: $organizationId) { ${ROLE} } }`,
    variables: (req) => ({ organizationId: req.params.organizationId }),
    respond: (data) => ({ status: 200, body: { paging_metadata: {}, result: data.organizationRoles } }),
  },
  {
    method: 'GET',
    path: `${ORG}/cloud/roles`,
    summary: 'List the cloud-level (tenant) roles (contributor, reader).',
    tag: 'Roles',
    operation: `query CloudRoles($organizationId: ID!) { cloudRoles(organizationId: $organizationId) { ${ROLE} } }`,
    variables: (req) => ({ organizationId: req.params.organizationId }),
    respond: (data) => ({ status: 200, body: { paging_metadata: {}, result: data.cloudRoles } }),
  },
  {
    method: 'POST',
    path: `${ORG}/role-assignments`,
    summary:
      'Grant an organization-level role (body {"role", "principalType": user|service-account|group, "principalId"}). Only owners grant organization-owner; nobody grants themselves (or a group they are in) a role.',
    tag: 'Role assignments',
    body: true,
    operation: `mutation Assign($organizationId: ID!, $input: RoleAssignmentInput!) { createRoleAssignment(organizationId: $organizationId, input: $input) { ${ASSIGNMENT} } }`,
    variables: (req) => ({ organizationId: req.params.organizationId, input: req.body }),
    created: true,
    respond: (data, req) =>
      recordResponse(data.createRoleAssignment, { status: 201, location: `${req.apiUrl}/organizations/${data.createRoleAssignment.organizationId}/role-assignments/${data.createRoleAssignment.id}` }),
  },
  {
    method: 'GET',
    path: `${ORG}/role-assignments`,
    summary: 'List the organization-level role assignments.',
    tag: 'Role assignments',
    operation: `query Assignments($organizationId: ID!, $limit: Int, $cursor: String) { roleAssignments(organizationId: $organizationId, limit: $limit, cursor: $cursor) { result { ${ASSIGNMENT} } pagingMetadata { cursor } } }`,
    query: PAGING,
    variables: (req) => ({ organizationId: req.params.organizationId, ...pagingOf(req) }),
    respond: (data) => recordPage(data.roleAssignments),
  },
  {
    method: 'DELETE',
    path: `${ORG}/role-assignments/:assignmentId`,
    summary: 'Revoke an organization-level role assignment; 409 when it would leave the organization without an owner.',
    tag: 'Role assignments',
    operation: 'mutation Revoke($organizationId: ID!, $assignmentId: ID!) { deleteRoleAssignment(organizationId: $organizationId, assignmentId: $assignmentId) }',
    variables: (req) => ({ organizationId: req.params.organizationId, assignmentId: req.params.assignmentId }),
    respond: noContent,
  },
  {
    method: 'POST',
    path: `${ORG}/cloud/:tenantId/role-assignments`,
    summary: 'Grant a cloud-level role for one tenant of the organization (body as for organization-level assignments; role contributor or reader).',
    tag: 'Role assignments',
    body: true,
    operation: `mutation AssignTenant($organizationId: ID!, $tenantId: ID!, $input: RoleAssignmentInput!) { createTenantRoleAssignment(organizationId: $organizationId, tenantId: $tenantId, input: $input) { ${ASSIGNMENT} } }`,
    variables: (req) => ({ organizationId: req.params.organizationId, tenantId: req.params.tenantId, input: req.body }),
    created: true,
    respond: (data, req) => {
      const a = data.createTenantRoleAssignment;
      return recordResponse(a, { status: 201, location: `${req.apiUrl}/organizations/${a.organizationId}/cloud/${a.tenantId}/role-assignments/${a.id}` });
    },
  },
  {
    method: 'GET',
    path: `${ORG}/cloud/:tenantId/role-assignments`,
    summary: 'List the role assignments of one tenant.',
    tag: 'Role assignments',
    operation: `query TenantAssignments($organizationId: ID!, $tenantId: ID!, $limit: Int, $cursor: String) { tenantRoleAssignments(organizationId: $organizationId, tenantId: $tenantId, limit: $limit, cursor: $cursor) { result { ${ASSIGNMENT} } pagingMetadata { cursor } } }`,
    query: PAGING,
    variables: (req) => ({ organizationId: req.params.organizationId, tenantId: req.params.tenantId, ...pagingOf(req) }),
    respond: (data) => recordPage(data.tenantRoleAssignments),
  },
  {
    method: 'DELETE',
    path: `${ORG}/cloud/:tenantId/role-assignments/:assignmentId`,
    summary: 'Revoke a role assignment of one tenant.',
    tag: 'Role assignments',
    operation:
      'mutation RevokeTenant($organizationId: ID!, $tenantId: ID!, $assignmentId: ID!) { deleteTenantRoleAssignment(organizationId: $organizationId, tenantId: $tenantId, assignmentId: $assignmentId) }',
    variables: (req) => ({ organizationId: req.params.organizationId, tenantId: req.params.tenantId, assignmentId: req.params.assignmentId }),
    respond: noContent,
  },
  {
    method: 'GET',
    path: `${ORG}/principals/:principalType/:principalId/roles`,
    summary:
      'The effective roles of a user (identity account id), service account or group of the organization (principalType user|service-account|group), organization-wide and per tenant, each with its source (direct, group, federation; on a tenant also organization, the cascade). For a group: the roles assigned to it.',
    tag: 'Role assignments',
    operation: `query PrincipalRoles($organizationId: ID!, $principalType: String!, $principalId: ID!) { principalRoles(organizationId: $organizationId, principalType: $principalType, principalId: $principalId) { principalType principalId organizationId organizationRoles { ${ROLE_SHOWN} } tenants { id name roles { ${ROLE_SHOWN} } } } }`,
    variables: (req) => ({ organizationId: req.params.organizationId, principalType: req.params.principalType, principalId: req.params.principalId }),
    respond: (data) => ({ status: 200, body: dropNulls(data.principalRoles) }),
  },
];

const TENANT = 'id organizationId name friendlyName tag showcase eventsEnabled url createdAt updatedAt etag';

export const tenantRoutes: ManagementRouteSpec[] = [
  {
    method: 'GET',
    path: `${ORG}/tenants`,
    summary: 'List the tenants of the organization the caller holds a role on (all of them with an organization-wide role).',
    tag: 'Tenants',
    operation: `query Tenants($organizationId: ID!, $limit: Int, $cursor: String) { tenants(organizationId: $organizationId, limit: $limit, cursor: $cursor) { result { ${TENANT} } pagingMetadata { cursor } } }`,
    query: PAGING,
    variables: (req) => ({ organizationId: req.params.organizationId, ...pagingOf(req) }),
    respond: (data) => recordPage(data.tenants),
  },
  {
    method: 'POST',
    path: `${ORG}/tenants`,
    summary: 'Create a tenant (body {"name" (lowercase letters, digits, inner dashes; its URL), "friendlyName", "tag", "showcase", "eventsEnabled"}). 409 when the name is taken.',
    tag: 'Tenants',
    body: true,
    operation: `mutation CreateTenant($organizationId: ID!, $input: TenantInput!) { createTenant(organizationId: $organizationId, input: $input) { ${TENANT} } }`,
    variables: (req) => ({ organizationId: req.params.organizationId, input: req.body }),
    created: true,
    respond: (data, req) =>
      recordResponse(data.createTenant, { status: 201, location: `${req.apiUrl}/organizations/${data.createTenant.organizationId}/tenants/${data.createTenant.id}` }),
  },
  {
    method: 'GET',
    path: `${ORG}/tenants/:tenantId`,
    summary: 'Get a tenant of the organization.',
    tag: 'Tenants',
    operation: `query Tenant($organizationId: ID!, $tenantId: ID!) { organizationTenant(organizationId: $organizationId, tenantId: $tenantId) { ${TENANT} } }`,
    variables: (req) => ({ organizationId: req.params.organizationId, tenantId: req.params.tenantId }),
    respond: (data) => recordResponse(data.organizationTenant),
  },
  {
    method: 'PUT',
    path: `${ORG}/tenants/:tenantId`,
    summary: 'Replace a tenant: friendly name, tag, showcase mode, change events (fields not given are cleared; the name cannot change). If-Match is honoured.',
    tag: 'Tenants',
    body: true,
    operation: `mutation ReplaceTenant($organizationId: ID!, $tenantId: ID!, $input: TenantInput!, $ifMatch: String) { replaceTenant(organizationId: $organizationId, tenantId: $tenantId, input: $input, ifMatch: $ifMatch) { ${TENANT} } }`,
    variables: (req) => ({ organizationId: req.params.organizationId, tenantId: req.params.tenantId, input: req.body, ...ifMatchOf(req) }),
    respond: (data) => recordResponse(data.replaceTenant),
  },
  {
    method: 'PATCH',
    path: `${ORG}/tenants/:tenantId`,
    summary: 'Change the given fields of a tenant. If-Match is honoured.',
    tag: 'Tenants',
    body: true,
    operation: `mutation UpdateTenant($organizationId: ID!, $tenantId: ID!, $input: TenantPatch!, $ifMatch: String) { updateTenant(organizationId: $organizationId, tenantId: $tenantId, input: $input, ifMatch: $ifMatch) { ${TENANT} } }`,
    variables: (req) => ({ organizationId: req.params.organizationId, tenantId: req.params.tenantId, input: req.body, ...ifMatchOf(req) }),
    respond: (data) => recordResponse(data.updateTenant),
  },
  {
    method: 'DELETE',
    path: `${ORG}/tenants/:tenantId`,
    summary: 'Delete a tenant with all its data, for good. If-Match is honoured.',
    tag: 'Tenants',
    operation: 'mutation DeleteTenant($organizationId: ID!, $tenantId: ID!, $ifMatch: String) { deleteTenant(organizationId: $organizationId, tenantId: $tenantId, ifMatch: $ifMatch) }',
    variables: (req) => ({ organizationId: req.params.organizationId, tenantId: req.params.tenantId, ...ifMatchOf(req) }),
    respond: noContent,
  },
];

export const meRoutes: ManagementRouteSpec[] = [
  {
    method: 'GET',
    path: '/me',
    summary: "The caller's organizations, tenants and effective roles, each with its source (direct, group, federation; on a tenant also organization, the cascade). Served at /me and /api/v1/me.",
    tag: 'Me',
    operation: `query Me { me { principal { type id issuer email displayName } organizations { id name roles { ${ROLE_SHOWN} } } tenants { id name organizationId url roles { ${ROLE_SHOWN} } } } }`,
    variables: () => ({}),
    respond: (data) => ({ status: 200, body: dropNulls(data.me) }),
  },
];

/** GraphQL answers every selected optional field (null); /me omits the ones that do not apply. */
function dropNulls(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(dropNulls);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== null).map(([k, v]) => [k, dropNulls(v)]));
}
