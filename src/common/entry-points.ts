/**
 * The addresses a newcomer needs, in one list: the front door (`GET /`) links to them and the start banner and
 * log line name them. Each has its canonical URL (from PUBLIC_URL, MANAGE_URL and the tenant URL, what clients are
 * given) and an `href` for a page served by this server: relative to the front door where the target is below
 * PUBLIC_URL (tenants path-based), so the links work whatever host name the page was opened at.
 */
export interface EntryPoint {
  key: 'adminConsole' | 'restConsole' | 'graphiql' | 'graphql' | 'managementOpenApi' | 'tenantOpenApi' | 'asyncApi' | 'health' | 'defaultTenantApi';
  /** What the front door says of it, and the short name the start banner uses. */
  title: string;
  label: string;
  url: string;
  href: string;
}

export interface EntryPointBases {
  publicUrl: string;
  manageUrl: string;
  /** `{tenant_url}/api/v3.0` of the tenant `default` (host-based with TENANT_HOST_SUFFIX). */
  defaultTenantApiUrl: string;
  /** The same API path-based, relative to PUBLIC_URL (`tenants/default/api/v3.0`): tenants are always served there too. */
  defaultTenantApiPath: string;
}

export function entryPoints({ publicUrl, manageUrl, defaultTenantApiUrl, defaultTenantApiPath }: EntryPointBases): EntryPoint[] {
  // Below PUBLIC_URL: relative to the front door; below a MANAGE_URL of its own: that URL.
  const onPublic = (path: string) => ({ url: `${publicUrl}/${path}`, href: path });
  const onManage = (path: string) => ({ url: `${manageUrl}/${path}`, href: manageUrl === publicUrl ? path : `${manageUrl}/${path}` });
  const onTenant = (path: string) => ({ url: `${defaultTenantApiUrl}/${path}`, href: `${defaultTenantApiPath}/${path}` });
  return [
    { key: 'adminConsole', title: 'Admin console (organizations, users, tenants, data)', label: 'Admin console', ...onManage('admin') },
    { key: 'restConsole', title: 'REST API console (Swagger UI)', label: 'REST console', ...onManage('console') },
    { key: 'graphiql', title: 'GraphQL playground (GraphiQL)', label: 'GraphiQL', ...onPublic('graphiql') },
    { key: 'graphql', title: 'GraphQL endpoint', label: 'GraphQL', ...onPublic('graphql') },
    { key: 'managementOpenApi', title: 'Management API: OpenAPI document', label: 'Management OpenAPI', ...onManage('api/v1/openapi.json') },
    { key: 'tenantOpenApi', title: 'AAS API of tenant "default": OpenAPI document', label: 'AAS API OpenAPI', ...onTenant('openapi.json') },
    { key: 'asyncApi', title: 'Change events of tenant "default": AsyncAPI document', label: 'AsyncAPI', ...onTenant('asyncapi.json') },
    { key: 'health', title: 'Health (readiness, with the database)', label: 'Health', ...onPublic('health/ready') },
    { key: 'defaultTenantApi', title: 'AAS API of tenant "default": its shells', label: 'Default tenant', ...onTenant('shells') },
  ];
}
