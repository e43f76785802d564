import { identityRoutes } from './identity';
import { organizationRoutes } from './organizations';
import { ManagementRouteSpec } from './route';

/** Every Management API route, by resource family (one file each in this folder). */
export const managementRoutes: ManagementRouteSpec[] = [...organizationRoutes, ...identityRoutes];
