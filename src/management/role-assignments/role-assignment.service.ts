import { DataSource } from 'typeorm';
import { isUuid } from '../../common/uuid';
import { Principal, principalRef } from '../../auth/principal';
import { isRoleName, isTenantRole } from '../../auth/roles';
import { badRequest, forbidden, notFound } from '../../graphql/errors';
import { Page, assertOwnerRemains, lockOrganization, pageBySeq, uniquely } from '../records';
import { AssigneeType, RoleAssignmentEntity } from './role-assignment.entity';

export interface RoleAssignmentInput {
  role: string;
  principalType: string;
  principalId: string;
}

const ASSIGNEE_TYPES: readonly string[] = ['user', 'service-account', 'group'];

/** Where an assignee must be found: users of the organization, its service accounts, its groups. */
const ASSIGNEE_QUERY: Record<AssigneeType, string> = {
  user: 'SELECT 1 FROM organization_users WHERE organization_id = $1 AND account_id = $2',
  'service-account': 'SELECT 1 FROM service_accounts WHERE organization_id = $1 AND id = $2',
  group: 'SELECT 1 FROM user_groups WHERE organization_id = $1 AND id = $2',
};

/**
 * Role assignments, organization-wide (`tenantId` null) or for one tenant of the organization, to users,
 * service accounts or groups of the organization. Rules: only an owner grants or revokes organization-owner;
 * nobody grants a role to themselves (nor to a group they are in); the last owner cannot be revoked.
 */
export class RoleAssignmentService {
  constructor(private readonly dataSource: DataSource) {}

  async list(organizationId: string, tenantId: string | null, limit: number, cursor: string | null): Promise<Page<RoleAssignmentEntity>> {
    if (tenantId !== null) await this.requireTenant(organizationId, tenantId);
    const query = this.dataSource.manager.createQueryBuilder(RoleAssignmentEntity, 'ra').where('ra.organizationId = :organizationId', { organizationId });
    if (tenantId === null) query.andWhere('ra.tenantId IS NULL');
    else query.andWhere('ra.tenantId = :tenantId', { tenantId });
    return pageBySeq(query, `role-assignments:${organizationId}:${tenantId ?? ''}`, limit, cursor);
  }

  async create(principal: Principal, callerIsOwner: boolean, organizationId: string, tenantId: string | null, input: RoleAssignmentInput): Promise<RoleAssignmentEntity> {
    if (tenantId !== null) await this.requireTenant(organizationId, tenantId);
    const problems: string[] = [];
    if (tenantId === null ? !isRoleName(input.role) : !isTenantRole(input.role)) {
      problems.push(
        tenantId === null
          ? `role must be one of organization-owner, contributor, reader; '${input.role}' is none.`
          : `role must be one of the cloud roles contributor, reader; '${input.role}' is none.`,
      );
    }
    if (!ASSIGNEE_TYPES.includes(input.principalType)) problems.push(`principalType must be user, service-account or group; '${input.principalType}' is none.`);
    if (!isUuid(input.principalId)) problems.push('principalId must be the id (a UUID) of a user, service account or group.');
    if (problems.length) throw badRequest(problems[0], problems);
    const type = input.principalType as AssigneeType;
    if (input.role === 'organization-owner' && !callerIsOwner) throw forbidden('Only an organization-owner grants organization-owner.');
    const found = await this.dataSource.query(ASSIGNEE_QUERY[type], [organizationId, input.principalId]);
    if (!found.length) throw badRequest(`principalId '${input.principalId}' names no ${type} of this organization.`);
    if (await this.isSelf(principal, type, input.principalId)) throw forbidden('Nobody grants roles to themselves (nor to a group they are a member of).');
    const saved = await uniquely(
      () =>
        this.dataSource.manager.save(
          this.dataSource.manager.create(RoleAssignmentEntity, {
            organizationId,
            tenantId,
            role: input.role as RoleAssignmentEntity['role'],
            principalType: type,
            principalId: input.principalId,
            createdBy: principalRef(principal),
          }),
        ),
      'That principal has this role here already.',
    );
    return this.dataSource.manager.findOneByOrFail(RoleAssignmentEntity, { id: saved.id });
  }

  /** Revokes an assignment; 409 when it would take the organization's last owner away. */
  async delete(callerIsOwner: boolean, organizationId: string, tenantId: string | null, assignmentId: string): Promise<void> {
    if (tenantId !== null) await this.requireTenant(organizationId, tenantId);
    await this.dataSource.transaction(async (manager) => {
      await lockOrganization(manager, organizationId);
      const row = isUuid(assignmentId) ? await manager.findOneBy(RoleAssignmentEntity, { id: assignmentId, organizationId }) : null;
      if (!row || row.tenantId !== tenantId) throw notFound(`Role assignment '${assignmentId}' not found.`);
      if (row.role === 'organization-owner' && !callerIsOwner) throw forbidden('Only an organization-owner revokes organization-owner.');
      await manager.delete(RoleAssignmentEntity, { id: row.id });
      await assertOwnerRemains(manager, organizationId);
    });
  }

  private async requireTenant(organizationId: string, tenantId: string): Promise<void> {
    const found = isUuid(tenantId) ? await this.dataSource.query('SELECT 1 FROM tenants WHERE id = $1 AND organization_id = $2', [tenantId, organizationId]) : [];
    if (!found.length) throw notFound(`Tenant '${tenantId}' not found in this organization.`);
  }

  /** Whether the assignee is the caller, or a group the caller is a member of. */
  private async isSelf(principal: Principal, type: AssigneeType, id: string): Promise<boolean> {
    if (principal.kind === 'federated') return false;
    if (type !== 'group') return type === principal.kind && id === principal.subject;
    const member = await this.dataSource.query('SELECT 1 FROM group_members WHERE group_id = $1 AND principal_type = $2 AND principal_id = $3', [
      id,
      principal.kind,
      principal.subject,
    ]);
    return member.length > 0;
  }
}
