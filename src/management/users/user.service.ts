import { DataSource } from 'typeorm';
import { isUuid } from '../../common/uuid';
import { Principal, principalRef } from '../../auth/principal';
import { badRequest, conflict, notFound } from '../../graphql/errors';
import { AccountEntity } from '../accounts/account.entity';
import { InvitationEntity } from '../invitations/invitation.entity';
import { Page, assertOwnerRemains, bumpVersion, checkIfMatch, lockOrganization, pageBySeq, removePrincipalFrom, uniquely } from '../records';
import { OrganizationUserEntity } from './organization-user.entity';

/** How a user of an organization is shown: the identity account and when it joined. */
export interface OrganizationUser {
  id: string;
  organizationId: string;
  email: string;
  displayName: string | null;
  joinedAt: Date;
}

/** Invitation states as listed: `expired` is a pending invitation past its expiry. */
export const INVITATION_STATUSES = ['pending', 'accepted', 'expired', 'revoked'] as const;
export type InvitationStatus = (typeof INVITATION_STATUSES)[number];

export interface Invitation extends InvitationEntity {
  status: InvitationStatus;
}

export const invitationStatus = (row: InvitationEntity, now = new Date()): InvitationStatus =>
  row.state === 'pending' && row.expiresAt <= now ? 'expired' : row.state;

const withStatus = (row: InvitationEntity): Invitation => Object.assign(row, { status: invitationStatus(row) });

/** The SQL condition for one listed status (`inv` is the invitations alias). */
const STATUS_CONDITION: Record<InvitationStatus, string> = {
  pending: "inv.state = 'pending' AND inv.expiresAt > now()",
  expired: "inv.state = 'pending' AND inv.expiresAt <= now()",
  accepted: "inv.state = 'accepted'",
  revoked: "inv.state = 'revoked'",
};

/**
 * Users of organizations and invitations. A user is an identity account of the built-in identity service that
 * was invited into the organization (by its account id) and accepted, or that created it. Being a user grants
 * nothing by itself: roles come from role assignments. Removing a user removes its assignments and group
 * memberships there too, unless that would leave the organization without an owner.
 */
export class UserService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly config: { auth: { invitationTtlSec: number } },
  ) {}

  async list(organizationId: string, limit: number, cursor: string | null): Promise<Page<OrganizationUser>> {
    const query = this.dataSource.manager
      .createQueryBuilder(OrganizationUserEntity, 'ou')
      .innerJoinAndMapOne('ou.account', AccountEntity, 'account', 'account.id = ou.accountId')
      .where('ou.organizationId = :organizationId', { organizationId });
    const page = await pageBySeq(query, `users:${organizationId}`, limit, cursor);
    return { ...page, result: page.result.map(userOf) };
  }

  async get(organizationId: string, userId: string): Promise<OrganizationUser> {
    const row = isUuid(userId)
      ? await this.dataSource.manager
          .createQueryBuilder(OrganizationUserEntity, 'ou')
          .innerJoinAndMapOne('ou.account', AccountEntity, 'account', 'account.id = ou.accountId')
          .where('ou.organizationId = :organizationId AND ou.accountId = :userId', { organizationId, userId })
          .getOne()
      : null;
    if (!row) throw notFound(`User '${userId}' not found in this organization.`);
    return userOf(row);
  }

  /** Removes a user with its role assignments and group memberships there; 409 when it is the last owner. */
  async remove(organizationId: string, userId: string): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      await lockOrganization(manager, organizationId);
      const removed = isUuid(userId) ? await manager.delete(OrganizationUserEntity, { organizationId, accountId: userId }) : { affected: 0 };
      if (!removed.affected) throw notFound(`User '${userId}' not found in this organization.`);
      await removePrincipalFrom(manager, organizationId, 'user', userId);
      await assertOwnerRemains(manager, organizationId);
      // Out of its last organization, the user's tokens end (it may log in again, as a newcomer does). The time is this
      // process's clock, which also stamps the tokens' `iat`, passed in: Citus refuses a VOLATILE clock_timestamp()
      // in an UPDATE of a reference table.
      await manager.query(
        'UPDATE accounts SET tokens_revoked_at = $2 WHERE id = $1 AND NOT EXISTS (SELECT 1 FROM organization_users WHERE account_id = $1)',
        [userId, new Date()],
      );
    });
  }

  /** Invites an identity account (by its id): 404 when there is no such account, 409 when it is a user already or has a pending invitation. */
  async invite(principal: Principal, organizationId: string, accountId: string): Promise<Invitation> {
    if (!isUuid(accountId)) throw badRequest('accountId must be the id (a UUID) of an identity account.');
    const manager = this.dataSource.manager;
    if (!(await manager.existsBy(AccountEntity, { id: accountId }))) throw notFound(`No identity account has the id '${accountId}'.`);
    if (await manager.existsBy(OrganizationUserEntity, { organizationId, accountId })) throw conflict('That account is a user of this organization already.');
    const expiresAt = new Date(Date.now() + this.config.auth.invitationTtlSec * 1000);
    const invitedBy = principalRef(principal);
    // An expired invitation is renewed (at most one pending invitation per account and organization is kept).
    const lapsed = await manager
      .createQueryBuilder(InvitationEntity, 'inv')
      .where("inv.organizationId = :organizationId AND inv.accountId = :accountId AND inv.state = 'pending' AND inv.expiresAt <= now()", { organizationId, accountId })
      .getOne();
    if (lapsed) {
      await manager.createQueryBuilder().update(InvitationEntity).set({ expiresAt, invitedBy, ...bumpVersion }).where('id = :id', { id: lapsed.id }).execute();
      return withStatus(await manager.findOneByOrFail(InvitationEntity, { id: lapsed.id }));
    }
    const invitation = await uniquely(
      () => manager.save(manager.create(InvitationEntity, { organizationId, accountId, state: 'pending', invitedBy, expiresAt })),
      'That account has a pending invitation to this organization already.',
    );
    return withStatus(await manager.findOneByOrFail(InvitationEntity, { id: invitation.id }));
  }

  async invitations(organizationId: string, status: InvitationStatus | null, limit: number, cursor: string | null): Promise<Page<Invitation>> {
    const query = this.dataSource.manager.createQueryBuilder(InvitationEntity, 'inv').where('inv.organizationId = :organizationId', { organizationId });
    if (status) query.andWhere(STATUS_CONDITION[status]);
    const page = await pageBySeq(query, `invitations:${organizationId}:${status ?? ''}`, limit, cursor);
    return { ...page, result: page.result.map(withStatus) };
  }

  async invitation(organizationId: string, invitationId: string): Promise<Invitation> {
    const row = isUuid(invitationId) ? await this.dataSource.manager.findOneBy(InvitationEntity, { id: invitationId, organizationId }) : null;
    if (!row) throw notFound(`Invitation '${invitationId}' not found.`);
    return withStatus(row);
  }

  /** Revokes a pending invitation; 409 once it was accepted, revoked or has expired. */
  async revoke(organizationId: string, invitationId: string, ifMatch: string | null): Promise<Invitation> {
    return this.dataSource.transaction(async (manager) => {
      const row = isUuid(invitationId)
        ? await manager.findOne(InvitationEntity, { where: { id: invitationId, organizationId }, lock: { mode: 'pessimistic_write' } })
        : null;
      if (!row) throw notFound(`Invitation '${invitationId}' not found.`);
      checkIfMatch(row, ifMatch, `Invitation '${invitationId}'`);
      const status = invitationStatus(row);
      if (status !== 'pending') throw conflict(`The invitation is ${status}; only a pending invitation can be revoked.`);
      await manager.createQueryBuilder().update(InvitationEntity).set({ state: 'revoked', ...bumpVersion }).where('id = :id', { id: row.id }).execute();
      return withStatus(await manager.findOneByOrFail(InvitationEntity, { id: row.id }));
    });
  }

  /** The calling user's invitations (any other principal has none). */
  async invitationsOf(principal: Principal, status: InvitationStatus | null, limit: number, cursor: string | null): Promise<Page<Invitation>> {
    const query = this.dataSource.manager.createQueryBuilder(InvitationEntity, 'inv');
    if (principal.kind === 'user') query.where('inv.accountId = :accountId', { accountId: principal.subject });
    else query.where('false');
    if (status) query.andWhere(STATUS_CONDITION[status]);
    const page = await pageBySeq(query, `my-invitations:${status ?? ''}`, limit, cursor);
    return { ...page, result: page.result.map(withStatus) };
  }

  /** The invited account accepts: it becomes a user of the organization. Anyone else gets 404; a used, revoked or expired invitation 409. */
  async accept(principal: Principal, invitationId: string): Promise<Invitation> {
    return this.dataSource.transaction(async (manager) => {
      const row =
        principal.kind === 'user' && isUuid(invitationId)
          ? await manager.findOne(InvitationEntity, { where: { id: invitationId, accountId: principal.subject }, lock: { mode: 'pessimistic_write' } })
          : null;
      if (!row) throw notFound(`Invitation '${invitationId}' not found.`);
      const status = invitationStatus(row);
      if (status !== 'pending') throw conflict(`The invitation is ${status}; only a pending invitation can be accepted.`);
      await manager.createQueryBuilder().update(InvitationEntity).set({ state: 'accepted', ...bumpVersion }).where('id = :id', { id: row.id }).execute();
      await manager.query(
        'INSERT INTO organization_users (organization_id, account_id) VALUES ($1, $2) ON CONFLICT DO NOTHING',
        [row.organizationId, row.accountId],
      );
      return withStatus(await manager.findOneByOrFail(InvitationEntity, { id: row.id }));
    });
  }
}

function userOf(row: OrganizationUserEntity & { account?: AccountEntity }): OrganizationUser {
  return {
    id: row.accountId,
    organizationId: row.organizationId,
    email: row.account!.email,
    displayName: row.account!.displayName,
    joinedAt: row.createdAt,
  };
}
