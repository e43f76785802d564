import { DataSource } from 'typeorm';
import type { EffectiveRole } from '../../auth/access';
import { isUuid } from '../../common/uuid';
import { Principal, principalRef } from '../../auth/principal';
import { forbidden, notFound } from '../../graphql/errors';
import { RoleAssignmentEntity } from '../role-assignments/role-assignment.entity';
import { OrganizationUserEntity } from '../users/organization-user.entity';
import { Page, bumpVersion, checkIfMatch, pageBySeq, rejectProblems, textProblem } from '../records';
import { OrganizationEntity } from './organization.entity';

export interface OrganizationInput {
  name?: string | null;
}

/**
 * Organizations: who may see one is who holds a role in it or is one of its users; creating one makes the
 * creating user its single user and organization-owner; only owners change it.
 */
export class OrganizationService {
  constructor(private readonly dataSource: DataSource) {}

  /** The organizations the caller holds a role in or is a user of, in creation order. */
  async listFor(principal: Principal, roles: readonly EffectiveRole[], limit: number, cursor: string | null): Promise<Page<OrganizationEntity>> {
    const ids = [...new Set(roles.map((r) => r.organizationId))];
    const query = this.dataSource.manager.createQueryBuilder(OrganizationEntity, 'org');
    const account = principal.kind === 'user' ? principal.subject : null;
    query.where(
      `(org.id = ANY(:ids::uuid[]) OR org.id IN (SELECT organization_id FROM organization_users WHERE account_id = :account::uuid))`,
      { ids, account },
    );
    return pageBySeq(query, 'organizations', limit, cursor);
  }

  /** The organization, when the caller holds a role in it or is one of its users; 404 otherwise. */
  async getFor(principal: Principal, roles: readonly EffectiveRole[], id: string): Promise<OrganizationEntity> {
    const organization = isUuid(id) ? await this.dataSource.manager.findOneBy(OrganizationEntity, { id }) : null;
    const visible =
      organization &&
      (roles.some((r) => r.organizationId === id) ||
        (principal.kind === 'user' && (await this.dataSource.manager.existsBy(OrganizationUserEntity, { organizationId: id, accountId: principal.subject }))));
    if (!visible) throw notFound(`Organization '${id}' not found.`);
    return organization;
  }

  /** A new organization: the calling user becomes its single user and organization-owner. */
  async create(principal: Principal, input: OrganizationInput): Promise<OrganizationEntity> {
    if (principal.kind !== 'user') {
      throw forbidden('Only users of the built-in identity service create organizations (a service account belongs to one already).');
    }
    rejectProblems([textProblem(input.name, 'name', { required: true })]);
    return this.dataSource.transaction(async (manager) => {
      const organization = await manager.save(manager.create(OrganizationEntity, { name: input.name!.trim(), platform: false }));
      await manager.insert(OrganizationUserEntity, { organizationId: organization.id, accountId: principal.subject });
      await manager.insert(RoleAssignmentEntity, {
        organizationId: organization.id,
        tenantId: null,
        role: 'organization-owner',
        principalType: 'user',
        principalId: principal.subject,
        createdBy: principalRef(principal),
      });
      return manager.findOneByOrFail(OrganizationEntity, { id: organization.id });
    });
  }

  /** PUT (`replace`: name required) or PATCH (only what is given). */
  async update(id: string, input: OrganizationInput, options: { ifMatch?: string | null; replace: boolean }): Promise<OrganizationEntity> {
    // PUT needs a name; PATCH may leave it out (or null), but a name given must not be empty.
    rejectProblems([textProblem(input.name, 'name', { required: options.replace || typeof input.name === 'string' })]);
    return this.dataSource.transaction(async (manager) => {
      const current = await manager.findOne(OrganizationEntity, { where: { id }, lock: { mode: 'pessimistic_write' } });
      if (!current) throw notFound(`Organization '${id}' not found.`);
      checkIfMatch(current, options.ifMatch, `Organization '${id}'`);
      const changes: Partial<OrganizationEntity> = {};
      if (typeof input.name === 'string') changes.name = input.name.trim();
      await manager.createQueryBuilder().update(OrganizationEntity).set({ ...changes, ...bumpVersion }).where('id = :id', { id }).execute();
      return manager.findOneByOrFail(OrganizationEntity, { id });
    });
  }
}
