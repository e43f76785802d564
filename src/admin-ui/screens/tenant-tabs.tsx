import { Link, seg } from '../router';

/** The pages of one tenant, as tabs below its title. */
export function TenantTabs({ organizationId, tenant }: { organizationId: string; tenant: string }) {
  const base = `/org/${organizationId}/tenants/${seg(tenant)}`;
  return (
    <nav aria-label={`Tenant ${tenant}`} className="tabs">
      <Link to={base}>Settings</Link>
      <Link to={`${base}/shells`}>Shells</Link>
      <Link to={`${base}/files`}>Files</Link>
      <Link to={`${base}/import`}>Import AASX</Link>
    </nav>
  );
}
