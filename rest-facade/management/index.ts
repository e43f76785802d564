import { identityRoutes } from './identity';
import { organizationRoutes } from './organizations';
import { ManagementRouteSpec } from './route';
import { identityProviderRoutes } from './identity-providers';
import { userGroupRoutes } from './user-groups';
import { serviceAccountRoutes } from './service-accounts';

/** Every Management API route, by resource family (one file each in this folder). */
export const managementRoutes: ManagementRouteSpec[] = [...organizationRoutes, ...identityProviderRoutes, ...userGroupRoutes, ...serviceAccountRoutes, ...identityRoutes];
