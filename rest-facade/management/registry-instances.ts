import { ifMatchOf, ManagementRouteSpec, noContent, PAGING, pagingOf, recordPage, recordResponse } from './route';

const INSTANCES = '/organizations/:organizationId/tenants/:tenantId/registry-instances';
const INSTANCE = 'id tenantId name kind url createdAt updatedAt etag';

/** The explicit discovery services and AAS registries of a tenant (`{tenant_url}/{name}/api/v3.0`). */
export const registryInstanceRoutes: ManagementRouteSpec[] = [
  {
    method: 'GET',
    path: INSTANCES,
    summary: 'List the explicit discovery services and AAS registries of a tenant, in creation order.',
    tag: 'Registry instances',
    operation: `query RegistryInstances($organizationId: ID!, $tenantId: ID!, $limit: Int, $cursor: String) { registryInstances(organizationId: $organizationId, tenantId: $tenantId, limit: $limit, cursor: $cursor) { result { ${INSTANCE} } pagingMetadata { cursor } } }`,
    query: PAGING,
    variables: (req) => ({ organizationId: req.params.organizationId, tenantId: req.params.tenantId, ...pagingOf(req) }),
    respond: (data) => recordPage(data.registryInstances),
  },
  {
    method: 'POST',
    path: INSTANCES,
    summary:
      'Create an explicit instance (body {"name" (lowercase letters, digits, inner dashes; not api, sphere or another fixed path), "kind": discovery|aas-registry}), served at {tenant_url}/{name}/api/v3.0. 409 when the tenant has one of that name.',
    tag: 'Registry instances',
    body: true,
    operation: `mutation CreateRegistryInstance($organizationId: ID!, $tenantId: ID!, $input: RegistryInstanceInput!) { createRegistryInstance(organizationId: $organizationId, tenantId: $tenantId, input: $input) { ${INSTANCE} } }`,
    variables: (req) => ({ organizationId: req.params.organizationId, tenantId: req.params.tenantId, input: req.body }),
    created: true,
    respond: (data, req) => {
      const created = data.createRegistryInstance;
      return recordResponse(created, { status: 201, location: `${req.apiUrl}/organizations/${req.params.organizationId}/tenants/${created.tenantId}/registry-instances/${created.id}` });
    },
  },
  {
    method: 'GET',
    path: `${INSTANCES}/:instanceId`,
    summary: 'Get an explicit instance of a tenant.',
    tag: 'Registry instances',
    operation: `query RegistryInstance($organizationId: ID!, $tenantId: ID!, $instanceId: ID!) { registryInstance(organizationId: $organizationId, tenantId: $tenantId, instanceId: $instanceId) { ${INSTANCE} } }`,
    variables: (req) => ({ organizationId: req.params.organizationId, tenantId: req.params.tenantId, instanceId: req.params.instanceId }),
    respond: (data) => recordResponse(data.registryInstance),
  },
  {
    method: 'DELETE',
    path: `${INSTANCES}/:instanceId`,
    summary: 'Delete an explicit instance with all its data (descriptors, asset links), for good. If-Match is honoured.',
    tag: 'Registry instances',
    operation:
      'mutation DeleteRegistryInstance($organizationId: ID!, $tenantId: ID!, $instanceId: ID!, $ifMatch: String) { deleteRegistryInstance(organizationId: $organizationId, tenantId: $tenantId, instanceId: $instanceId, ifMatch: $ifMatch) }',
    variables: (req) => ({ organizationId: req.params.organizationId, tenantId: req.params.tenantId, instanceId: req.params.instanceId, ...ifMatchOf(req) }),
    respond: noContent,
  },
];
