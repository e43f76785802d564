import { ReactNode } from 'react';
import { match } from './router';
import { AasxImportPage } from './screens/aasx-import';
import { FilesPage } from './screens/files';
import { GroupPage, GroupsPage } from './screens/groups';
import { HomePage } from './screens/home';
import { IdentityProvidersPage } from './screens/identity-providers';
import { RolesPage } from './screens/roles';
import { ServiceAccountsPage } from './screens/service-accounts';
import { ShellPage } from './screens/shell';
import { ShellsPage } from './screens/shells';
import { TenantPage } from './screens/tenant';
import { TenantsPage } from './screens/tenants';
import { UsersPage } from './screens/users';

/** Every page of the console: a path pattern below /admin, and what it shows. */
export interface Route {
  match: (path: string) => Record<string, string> | null;
  render: (params: Record<string, string>) => ReactNode;
}

const route = (pattern: string, render: (p: Record<string, string>) => ReactNode): Route => ({ match: (path) => match(pattern, path), render });

export const ROUTES: Route[] = [
  route('', () => <HomePage />),
  route('/org/:org/tenants', (p) => <TenantsPage organizationId={p.org} />),
  route('/org/:org/tenants/:tenant', (p) => <TenantPage organizationId={p.org} tenant={p.tenant} />),
  route('/org/:org/tenants/:tenant/shells', (p) => <ShellsPage organizationId={p.org} tenant={p.tenant} />),
  route('/org/:org/tenants/:tenant/shells/:shell', (p) => <ShellPage organizationId={p.org} tenant={p.tenant} shellId={p.shell} />),
  route('/org/:org/tenants/:tenant/files', (p) => <FilesPage organizationId={p.org} tenant={p.tenant} />),
  route('/org/:org/tenants/:tenant/import', (p) => <AasxImportPage organizationId={p.org} tenant={p.tenant} />),
  route('/org/:org/users', (p) => <UsersPage organizationId={p.org} />),
  route('/org/:org/service-accounts', (p) => <ServiceAccountsPage organizationId={p.org} />),
  route('/org/:org/groups', (p) => <GroupsPage organizationId={p.org} />),
  route('/org/:org/groups/:group', (p) => <GroupPage organizationId={p.org} groupId={p.group} />),
  route('/org/:org/roles', (p) => <RolesPage organizationId={p.org} />),
  route('/org/:org/identity-providers', (p) => <IdentityProvidersPage organizationId={p.org} />),
];

/** The organization a path is in, if any. */
export const organizationOf = (path: string) => /^\/org\/([^/]+)/.exec(path)?.[1];
