import { identityRoutes } from './identity';
import { organizationRoutes } from './organizations';
import { meRoutes, roleRoutes, tenantRoutes } from './roles';
import { registryInstanceRoutes } from './registry-instances';
import { ManagementRouteSpec } from './route';
import { identityProviderRoutes } from './identity-providers';
import { userGroupRoutes } from './user-groups';
import { serviceAccountRoutes } from './service-accounts';
import { accountRoutes, userRoutes } from './users';

/** Every Management API route, by resource family (one file each in this folder). */
export const managementRoutes: ManagementRouteSpec[] = [
  ...meRoutes,
  ...accountRoutes,
  ...organizationRoutes,
  ...identityProviderRoutes,
  ...userGroupRoutes,
  ...serviceAccountRoutes,
  ...userRoutes,
  ...roleRoutes,
  ...tenantRoutes,
  ...registryInstanceRoutes,
  ...identityRoutes,
];
