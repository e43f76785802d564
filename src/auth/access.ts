import { DataSource } from 'typeorm';
import type { Principal } from './principal';
import { RoleName, TenantRole, asTenantRole, roleIncludes, strongestRole } from './roles';

/**
 * Where an effective role comes from: a role assignment naming the principal (`direct`), one naming a group it
 * is a member of (`group`), a trusted external issuer's token (`federation`). A role held organization-wide also
 * holds on each tenant of the organization; /me reports that as `organization` on the tenant.
 */
export type RoleSource = 'direct' | 'group' | 'federation';

export interface EffectiveRole {
  role: RoleName;
  organizationId: string;
  /** Null: organization-wide. */
  tenantId: string | null;
  source: RoleSource;
  /** The role assignment it comes from (direct, group). */
  assignmentId?: string;
  /** The group it comes through. */
  group?: { id: string; name: string };
  /** The identity trust it comes through (federation). */
  trustId?: string;
}

/** Who role assignments name: a user (its identity account id), a service account, or a group. */
export type RoleHolderKind = 'user' | 'service-account' | 'group';

interface AssignmentRow {
  id: string;
  organization_id: string;
  tenant_id: string | null;
  role: RoleName;
  principal_type: string;
  group_id: string | null;
  group_name: string | null;
}

/** What a principal may do in one organization, computed from its effective roles. */
export class OrganizationAccess {
  constructor(
    readonly organizationId: string,
    readonly roles: readonly EffectiveRole[],
  ) {}

  /** The strongest organization-wide role, if any. */
  get organizationRole(): RoleName | undefined {
    return strongestRole(this.roles.filter((r) => r.tenantId === null).map((r) => r.role));
  }

  /** The strongest role on one tenant: its own assignments and the organization-wide ones (cascade). */
  tenantRole(tenantId: string): TenantRole | undefined {
    const held = strongestRole(this.roles.filter((r) => r.tenantId === null || r.tenantId === tenantId).map((r) => r.role));
    return held && asTenantRole(held);
  }

  /** Whether the principal holds any role here (organization-wide or on a tenant): it may know the organization exists. */
  get isMember(): boolean {
    return this.roles.length > 0;
  }

  has(required: RoleName): boolean {
    const held = this.organizationRole;
    return held !== undefined && roleIncludes(held, required);
  }

  /** The tenants the principal holds a role on, by id; `all` when it holds one organization-wide. */
  visibleTenants(): 'all' | Set<string> {
    if (this.roles.some((r) => r.tenantId === null)) return 'all';
    return new Set(this.roles.map((r) => r.tenantId!));
  }
}

/**
 * Role resolution from the database: the role assignments naming a principal, directly or through its groups,
 * plus what trusted external issuers grant in its token. One indexed query per principal, which also tells whether
 * the principal still exists; the request context memoizes it, so a request pays it at most once.
 */
export class AccessService {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * Every effective role of the principal, in every organization (or in one); null when the principal of the token
   * no longer exists: a deleted service account or identity account, or a user removed from its last organization
   * since the token was issued (its `tokens_revoked_at`, to the second of `iat`: a token of that very second is
   * refused too). Federated principals live at their issuer: they are never null.
   */
  async rolesOf(principal: Principal, organizationId?: string): Promise<EffectiveRole[] | null> {
    if (principal.kind === 'federated') {
      return (principal.grants ?? [])
        .filter((g) => organizationId === undefined || g.organizationId === organizationId)
        .flatMap((g) => g.roles.map((role) => ({ role, organizationId: g.organizationId, tenantId: g.tenantId, source: 'federation' as const, trustId: g.trustId })));
    }
    return this.assigned(principal.kind, principal.subject, organizationId ?? null, principal.issuedAt ?? 0);
  }

  /**
   * The effective roles in one organization of a role holder an administrator looks at (no token involved): a
   * user (identity account id), a service account, or a group (the roles assigned to the group itself, `direct`).
   * Null when there is no such account, service account or group; membership of the organization is the caller's
   * to check.
   */
  rolesOfHolder(kind: RoleHolderKind, id: string, organizationId: string): Promise<EffectiveRole[] | null> {
    return this.assigned(kind, id, organizationId, null);
  }

  /**
   * The one resolution of role assignments: those naming the holder, and those naming a group it is a member of
   * (a group is a member of none). `issuedAt` (seconds): a token's `iat`, which must be after the account's token
   * revocation; null: no token is involved.
   */
  private async assigned(kind: RoleHolderKind, id: string, organizationId: string | null, issuedAt: number | null): Promise<EffectiveRole[] | null> {
    const rows: (Partial<AssignmentRow> & { live: boolean })[] = await this.dataSource.query(
      `WITH principal AS (
         SELECT CASE WHEN $1 = 'service-account' THEN EXISTS (SELECT 1 FROM service_accounts WHERE id = $2::uuid)
                     WHEN $1 = 'group' THEN EXISTS (SELECT 1 FROM user_groups WHERE id = $2::uuid)
                ELSE EXISTS (SELECT 1 FROM accounts WHERE id = $2::uuid
                               AND ($4::bigint IS NULL OR tokens_revoked_at IS NULL OR $4::bigint > floor(extract(epoch FROM tokens_revoked_at))))
                END AS live)
       SELECT principal.live, r.* FROM principal LEFT JOIN LATERAL (
         SELECT ra.seq, ra.id, ra.organization_id, ra.tenant_id, ra.role, ra.principal_type, g.id AS group_id, g.name AS group_name
           FROM role_assignments ra
           LEFT JOIN user_groups g ON ra.principal_type = 'group' AND g.id = ra.principal_id
          WHERE ($3::uuid IS NULL OR ra.organization_id = $3::uuid)
            AND ((ra.principal_type = $1 AND ra.principal_id = $2::uuid)
              OR (ra.principal_type = 'group' AND ra.principal_id IN
                   (SELECT group_id FROM group_members WHERE principal_type = $1 AND principal_id = $2::uuid)))
       ) r ON principal.live
       ORDER BY r.seq`,
      [kind, id, organizationId, issuedAt],
    );
    if (!rows[0]?.live) return null;
    return rows.filter((row): row is AssignmentRow & { live: boolean } => row.id != null).map((row) => {
      const direct = row.principal_type === kind;
      return {
        role: row.role,
        organizationId: row.organization_id,
        tenantId: row.tenant_id,
        source: direct ? 'direct' : 'group',
        assignmentId: row.id,
        ...(!direct && row.group_id ? { group: { id: row.group_id, name: row.group_name! } } : {}),
      };
    });
  }
}

/** The roles of one organization, out of all of a principal's roles. */
export function accessIn(roles: readonly EffectiveRole[], organizationId: string): OrganizationAccess {
  return new OrganizationAccess(
    organizationId,
    roles.filter((r) => r.organizationId === organizationId),
  );
}
