import { DataSource, EntityManager } from 'typeorm';
import { isUuid } from '../../common/uuid';
import type { Principal } from '../../auth/principal';
import { badRequest, forbidden, notFound } from '../../graphql/errors';
import {
  Page,
  assertOwnerRemains,
  bumpVersion,
  checkIfMatch,
  lockOrganization,
  pageBySeq,
  rejectProblems,
  textProblem,
  uniquely,
} from '../records';
import { GroupMemberEntity, MemberType } from './group-member.entity';
import { UserGroupEntity } from './user-group.entity';

export interface UserGroupInput {
  name?: string | null;
  description?: string | null;
}

export interface MemberRef {
  type: string;
  id: string;
}

/** A member as listed: users with their email and display name, service accounts with their name. */
export interface GroupMember {
  type: MemberType;
  id: string;
  addedAt: Date;
  email: string | null;
  displayName: string | null;
  name: string | null;
}

const NAME_PREFIX = 'group@';
const NAME_MAX = 200;
const DESCRIPTION_MAX = 2000;
const MEMBERS_MAX = 100;
const MEMBER_TYPES: readonly string[] = ['user', 'service-account'];

/**
 * User groups of an organization: named `group@...`, unique in the organization; a role assigned to a group
 * holds for each of its members (users of the organization and its service accounts).
 */
export class UserGroupService {
  constructor(private readonly dataSource: DataSource) {}

  list(organizationId: string, limit: number, cursor: string | null): Promise<Page<UserGroupEntity>> {
    const query = this.dataSource.manager.createQueryBuilder(UserGroupEntity, 'g').where('g.organizationId = :organizationId', { organizationId });
    return pageBySeq(query, `user-groups:${organizationId}`, limit, cursor);
  }

  /** The group of this organization; 404 for an unknown id or one of another organization. */
  async get(organizationId: string, id: string, manager: EntityManager = this.dataSource.manager): Promise<UserGroupEntity> {
    const found = isUuid(id) ? await manager.findOneBy(UserGroupEntity, { id, organizationId }) : null;
    if (!found) throw notFound(`User group '${id}' not found.`);
    return found;
  }

  async create(organizationId: string, input: UserGroupInput): Promise<UserGroupEntity> {
    this.check(input, true);
    const name = input.name!.trim();
    const manager = this.dataSource.manager;
    const created = await uniquely(
      () => manager.save(manager.create(UserGroupEntity, { organizationId, name, description: input.description ?? null })),
      taken(name),
    );
    return manager.findOneByOrFail(UserGroupEntity, { id: created.id });
  }

  /** PUT (`replace`: name required, an absent description is removed) or PATCH (only what is given): renames too. */
  async update(organizationId: string, id: string, input: UserGroupInput, options: { ifMatch?: string | null; replace: boolean }): Promise<UserGroupEntity> {
    this.check(input, options.replace);
    const changes: Partial<UserGroupEntity> = {};
    if (typeof input.name === 'string') changes.name = input.name.trim();
    if (options.replace) changes.description = input.description ?? null;
    else if (input.description !== undefined) changes.description = input.description;
    return uniquely(
      () =>
        this.dataSource.transaction(async (manager) => {
          const current = await this.lockGroup(manager, organizationId, id);
          checkIfMatch(current, options.ifMatch, `User group '${id}'`);
          await manager.createQueryBuilder().update(UserGroupEntity).set({ ...changes, ...bumpVersion }).where('id = :id', { id }).execute();
          return manager.findOneByOrFail(UserGroupEntity, { id });
        }),
      taken(changes.name ?? ''),
    );
  }

  /** Deletes the group with its role assignments and members; 409 when that leaves the organization without an owner. */
  async delete(organizationId: string, id: string, ifMatch: string | null | undefined): Promise<boolean> {
    return this.dataSource.transaction(async (manager) => {
      await lockOrganization(manager, organizationId);
      const current = await this.lockGroup(manager, organizationId, id);
      checkIfMatch(current, ifMatch, `User group '${id}'`);
      await manager.query(`DELETE FROM role_assignments WHERE principal_type = 'group' AND principal_id = $1`, [id]);
      await manager.delete(UserGroupEntity, { id });
      await assertOwnerRemains(manager, organizationId);
      return true;
    });
  }

  async members(organizationId: string, groupId: string, limit: number, cursor: string | null): Promise<Page<GroupMember>> {
    await this.get(organizationId, groupId);
    const query = this.dataSource.manager.createQueryBuilder(GroupMemberEntity, 'm').where('m.groupId = :groupId', { groupId });
    const page = await pageBySeq(query, `group-members:${groupId}`, limit, cursor);
    return { ...page, result: await describe(this.dataSource.manager, page.result) };
  }

  /**
   * Adds users of the organization and its service accounts (adding a member again changes nothing) and
   * answers every member asked for. Nobody adds itself: that would grant it the group's roles.
   */
  async addMembers(principal: Principal, organizationId: string, groupId: string, refs: MemberRef[]): Promise<GroupMember[]> {
    rejectProblems([
      refs.length < 1 || refs.length > MEMBERS_MAX ? `members must list 1 to ${MEMBERS_MAX} members.` : undefined,
      ...refs.map((ref, i) => (MEMBER_TYPES.includes(ref.type) ? undefined : `members[${i}].type must be 'user' or 'service-account'.`)),
      ...refs.map((ref, i) => (isUuid(ref.id) ? undefined : `members[${i}].id '${ref.id}' is not the id of a user or service account.`)),
    ]);
    if (refs.some((ref) => ref.type === principal.kind && ref.id.toLowerCase() === principal.subject.toLowerCase())) {
      throw forbidden('Nobody adds itself to a group: that would grant it the roles of the group.');
    }
    const unique = new Map(refs.map((ref) => [`${ref.type}:${ref.id.toLowerCase()}`, { type: ref.type as MemberType, id: ref.id.toLowerCase() }]));
    const wanted = [...unique.values()];
    return this.dataSource.transaction(async (manager) => {
      await this.get(organizationId, groupId, manager);
      const ids = (type: MemberType) => wanted.filter((m) => m.type === type).map((m) => m.id);
      const users: { id: string }[] = await manager.query(
        'SELECT account_id AS id FROM organization_users WHERE organization_id = $1 AND account_id = ANY($2::uuid[])',
        [organizationId, ids('user')],
      );
      const accounts: { id: string }[] = await manager.query('SELECT id FROM service_accounts WHERE organization_id = $1 AND id = ANY($2::uuid[])', [
        organizationId,
        ids('service-account'),
      ]);
      const known = new Set([...users.map((u) => `user:${u.id}`), ...accounts.map((a) => `service-account:${a.id}`)]);
      const unknown = wanted.filter((m) => !known.has(`${m.type}:${m.id}`));
      if (unknown.length) {
        const messages = unknown.map((m) => `'${m.id}' is not a ${m.type === 'user' ? 'user' : 'service account'} of this organization.`);
        throw badRequest(messages[0], messages);
      }
      await manager
        .createQueryBuilder()
        .insert()
        .into(GroupMemberEntity)
        .values(wanted.map((m) => ({ groupId, principalType: m.type, principalId: m.id })))
        .orIgnore()
        .execute();
      const rows = await manager
        .createQueryBuilder(GroupMemberEntity, 'm')
        .where('m.groupId = :groupId AND m.principalId = ANY(:ids::uuid[])', { groupId, ids: wanted.map((m) => m.id) })
        .orderBy('m.seq')
        .getMany();
      return describe(manager, rows.filter((row) => unique.has(`${row.principalType}:${row.principalId}`)));
    });
  }

  /** Removes a member (by its principal id); 404 when it is none, 409 when that leaves the organization without an owner. */
  async removeMember(organizationId: string, groupId: string, memberId: string): Promise<boolean> {
    return this.dataSource.transaction(async (manager) => {
      await lockOrganization(manager, organizationId);
      await this.get(organizationId, groupId, manager);
      const result = isUuid(memberId) ? await manager.delete(GroupMemberEntity, { groupId, principalId: memberId.toLowerCase() }) : null;
      if (!result?.affected) throw notFound(`'${memberId}' is not a member of user group '${groupId}'.`);
      await assertOwnerRemains(manager, organizationId);
      return true;
    });
  }

  private async lockGroup(manager: EntityManager, organizationId: string, id: string): Promise<UserGroupEntity> {
    const found = isUuid(id) ? await manager.findOne(UserGroupEntity, { where: { id, organizationId }, lock: { mode: 'pessimistic_write' } }) : null;
    if (!found) throw notFound(`User group '${id}' not found.`);
    return found;
  }

  private check(input: UserGroupInput, replace: boolean): void {
    const name = input.name;
    rejectProblems([
      textProblem(name, 'name', { required: replace || name !== undefined, max: NAME_MAX }) ??
        (typeof name === 'string' && !(name.trim().startsWith(NAME_PREFIX) && name.trim().length > NAME_PREFIX.length)
          ? `name must start with '${NAME_PREFIX}' followed by the group's name.`
          : undefined),
      textProblem(input.description, 'description', { max: DESCRIPTION_MAX }),
    ]);
  }
}

const taken = (name: string) => `A user group named '${name}' exists in this organization already.`;

/** The members' records: one query for the names and emails of a whole page. */
async function describe(manager: EntityManager, rows: GroupMemberEntity[]): Promise<GroupMember[]> {
  const ids = (type: MemberType) => rows.filter((r) => r.principalType === type).map((r) => r.principalId);
  const details: { type: MemberType; id: string; email: string | null; display_name: string | null; name: string | null }[] = await manager.query(
    `SELECT 'user' AS type, id, email, display_name, NULL AS name FROM accounts WHERE id = ANY($1::uuid[])
     UNION ALL
     SELECT 'service-account' AS type, id, NULL, NULL, name FROM service_accounts WHERE id = ANY($2::uuid[])`,
    [ids('user'), ids('service-account')],
  );
  const byKey = new Map(details.map((d) => [`${d.type}:${d.id}`, d]));
  return rows.map((row) => {
    const detail = byKey.get(`${row.principalType}:${row.principalId}`);
    return {
      type: row.principalType,
      id: row.principalId,
      addedAt: row.createdAt,
      email: detail?.email ?? null,
      displayName: detail?.display_name ?? null,
      name: detail?.name ?? null,
    };
  });
}
