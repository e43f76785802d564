import { DataSource } from 'typeorm';
import type { EffectiveRole, RoleSource } from '../../auth/access';
import type { Principal } from '../../auth/principal';
import { RoleName, asTenantRole } from '../../auth/roles';
import { AccountEntity } from '../accounts/account.entity';
import { OrganizationEntity } from '../organizations/organization.entity';
import { TenantEntity } from '../tenants/tenant.entity';

/** A role as /me shows it: where it comes from; `organization` on a tenant is an organization-wide role cascading to it. */
export interface ShownRole {
  role: RoleName;
  source: RoleSource | 'organization';
  /** For `organization`: how the organization-wide role is held (direct, group, federation). */
  via?: RoleSource;
  assignmentId?: string;
  groupId?: string;
  groupName?: string;
  identityProviderId?: string;
}

export interface Me {
  principal: { type: string; id: string; issuer: string; email?: string; displayName?: string | null };
  organizations: { id: string; name: string; roles: ShownRole[] }[];
  tenants: { id: string; name: string; organizationId: string; roles: ShownRole[] }[];
}

const shown = (r: EffectiveRole): ShownRole => ({
  role: r.role,
  source: r.source,
  ...(r.assignmentId ? { assignmentId: r.assignmentId } : {}),
  ...(r.group ? { groupId: r.group.id, groupName: r.group.name } : {}),
  ...(r.trustId ? { identityProviderId: r.trustId } : {}),
});

/** The self check: the caller's organizations, tenants and effective roles, each with its source. */
export class MeService {
  constructor(private readonly dataSource: DataSource) {}

  async me(principal: Principal, roles: readonly EffectiveRole[]): Promise<Me> {
    const manager = this.dataSource.manager;
    const account = principal.kind === 'user' ? await manager.findOneBy(AccountEntity, { id: principal.subject }) : null;
    const memberOf: string[] =
      principal.kind === 'user'
        ? (await manager.query('SELECT organization_id FROM organization_users WHERE account_id = $1', [principal.subject])).map((r: { organization_id: string }) => r.organization_id)
        : [];
    const organizationIds = [...new Set([...roles.map((r) => r.organizationId), ...memberOf])];
    const organizations = organizationIds.length
      ? await manager.createQueryBuilder(OrganizationEntity, 'o').where('o.id = ANY(:ids::uuid[])', { ids: organizationIds }).orderBy('o.seq').getMany()
      : [];
    const wide = roles.filter((r) => r.tenantId === null);
    const tenantIds = [...new Set(roles.filter((r) => r.tenantId !== null).map((r) => r.tenantId!))];
    const wideOrganizations = [...new Set(wide.map((r) => r.organizationId))];
    const tenants =
      tenantIds.length || wideOrganizations.length
        ? await manager
            .createQueryBuilder(TenantEntity, 't')
            .where('t.organizationId = ANY(:orgs::uuid[]) OR t.id = ANY(:ids::uuid[])', { orgs: wideOrganizations, ids: tenantIds })
            .orderBy('t.seq')
            .getMany()
        : [];
    return {
      principal: {
        type: principal.kind,
        id: principal.subject,
        issuer: principal.issuer,
        ...(account ? { email: account.email, displayName: account.displayName } : {}),
      },
      organizations: organizations.map((o) => ({
        id: o.id,
        name: o.name,
        roles: wide.filter((r) => r.organizationId === o.id).map(shown),
      })),
      tenants: tenants.map((t) => ({
        id: t.id,
        name: t.name,
        organizationId: t.organizationId,
        roles: [
          ...roles.filter((r) => r.tenantId === t.id).map(shown),
          ...wide
            .filter((r) => r.organizationId === t.organizationId)
            .map((r) => ({ ...shown(r), role: asTenantRole(r.role), source: 'organization' as const, via: r.source })),
        ],
      })),
    };
  }
}
