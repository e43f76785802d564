import { DataSource } from 'typeorm';
import type { AccessService, EffectiveRole, RoleHolderKind, RoleSource } from '../../auth/access';
import type { Principal } from '../../auth/principal';
import { RoleName, asTenantRole } from '../../auth/roles';
import { badRequest, notFound } from '../../graphql/errors';
import { AccountEntity } from '../accounts/account.entity';
import { OrganizationEntity } from '../organizations/organization.entity';
import type { ServiceAccountService } from '../service-accounts/service-account.service';
import { TenantEntity } from '../tenants/tenant.entity';
import type { UserGroupService } from '../user-groups/user-group.service';
import type { UserService } from '../users/user.service';

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

export interface PrincipalRoles {
  principalType: RoleHolderKind;
  principalId: string;
  organizationId: string;
  organizationRoles: ShownRole[];
  tenants: { id: string; name: string; roles: ShownRole[] }[];
}

const HOLDER_KINDS: readonly string[] = ['user', 'service-account', 'group'];

/** Where the role holders an administrator looks at are found (each answers 404 for an unknown id, as its own query does). */
export interface RoleHolders {
  users: Pick<UserService, 'get'>;
  serviceAccounts: Pick<ServiceAccountService, 'get'>;
  userGroups: Pick<UserGroupService, 'get'>;
}

/**
 * Effective roles with their sources, as people read them: the caller's own (/me), or any user, service account or
 * group of an organization (`principalRoles`, for administrators). Both place the roles that `AccessService`
 * resolves the same way: organization-wide ones on the organization and, cascading, on each of its tenants.
 */
export class MeService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly access: AccessService,
    private readonly holders: RoleHolders,
  ) {}

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
        roles: roles.filter((r) => r.tenantId === null && r.organizationId === o.id).map(shown),
      })),
      tenants: await this.onTenants(roles),
    };
  }

  /**
   * The effective roles of a user, service account or group of the organization: 400 for another type, 404 (as
   * the user, service account or group queries answer) when the organization has no such principal.
   */
  async principalRoles(organizationId: string, principalType: string, principalId: string): Promise<PrincipalRoles> {
    if (!HOLDER_KINDS.includes(principalType)) throw badRequest(`principalType must be user, service-account or group; '${principalType}' is none.`);
    const kind = principalType as RoleHolderKind;
    if (kind === 'user') await this.holders.users.get(organizationId, principalId);
    else if (kind === 'service-account') await this.holders.serviceAccounts.get(organizationId, principalId);
    else await this.holders.userGroups.get(organizationId, principalId);
    // Gone between the two reads: as if it had never been there.
    const roles = await this.access.rolesOfHolder(kind, principalId, organizationId);
    if (!roles) throw notFound(`Principal '${principalId}' not found.`);
    return {
      principalType: kind,
      principalId,
      organizationId,
      organizationRoles: roles.filter((r) => r.tenantId === null).map(shown),
      tenants: (await this.onTenants(roles)).map(({ id, name, roles: held }) => ({ id, name, roles: held })),
    };
  }

  /**
   * The tenants some roles hold on, each with those roles: its own assignments, then the organization-wide roles
   * of its organization cascading to it (`organization`, `via` how the organization-wide role is held).
   */
  private async onTenants(roles: readonly EffectiveRole[]): Promise<Me['tenants']> {
    const wide = roles.filter((r) => r.tenantId === null);
    const tenantIds = [...new Set(roles.filter((r) => r.tenantId !== null).map((r) => r.tenantId!))];
    const wideOrganizations = [...new Set(wide.map((r) => r.organizationId))];
    const tenants =
      tenantIds.length || wideOrganizations.length
        ? await this.dataSource.manager
            .createQueryBuilder(TenantEntity, 't')
            .where('t.organizationId = ANY(:orgs::uuid[]) OR t.id = ANY(:ids::uuid[])', { orgs: wideOrganizations, ids: tenantIds })
            .orderBy('t.seq')
            .getMany()
        : [];
    return tenants.map((t) => ({
      id: t.id,
      name: t.name,
      organizationId: t.organizationId,
      roles: [
        ...roles.filter((r) => r.tenantId === t.id).map(shown),
        ...wide
          .filter((r) => r.organizationId === t.organizationId)
          .map((r) => ({ ...shown(r), role: asTenantRole(r.role), source: 'organization' as const, via: r.source })),
      ],
    }));
  }
}
