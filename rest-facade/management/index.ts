import { identityRoutes } from './identity';
import { ManagementRouteSpec } from './route';

/** Every Management API route, by resource family (one file each in this folder). */
export const managementRoutes: ManagementRouteSpec[] = [...identityRoutes];
