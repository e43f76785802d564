import { DataSource, EntityManager } from 'typeorm';
import { isUuid } from '../../common/uuid';
import type { Config } from '../../config';
import { notFound } from '../../graphql/errors';
import { Page, assertOwnerRemains, bumpVersion, checkIfMatch, lockOrganization, pageBySeq, rejectProblems, textProblem, removePrincipalFrom } from '../records';
import { ServiceAccountEntity } from './service-account.entity';

export interface ServiceAccountInput {
  name?: string | null;
  description?: string | null;
}

export const NAME_MAX = 200;
export const DESCRIPTION_MAX = 2000;

/**
 * Service accounts: machine identities of one organization. Their id is their OAuth client_id at the built-in
 * identity service's token endpoint; what they may do comes from role assignments (directly or through groups).
 */
export class ServiceAccountService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly config: Pick<Config, 'manageUrl'>,
  ) {}

  /** Where a service account gets tokens (client credentials). */
  get tokenUrl(): string {
    return `${this.config.manageUrl}/oidc/token`;
  }

  list(organizationId: string, limit: number, cursor: string | null): Promise<Page<ServiceAccountEntity>> {
    const query = this.dataSource.manager.createQueryBuilder(ServiceAccountEntity, 'sa').where('sa.organizationId = :organizationId', { organizationId });
    return pageBySeq(query, `service-accounts:${organizationId}`, limit, cursor);
  }

  /** The service account of this organization; 404 for an unknown id or one of another organization. */
  async get(organizationId: string, id: string, manager: EntityManager = this.dataSource.manager): Promise<ServiceAccountEntity> {
    const found = isUuid(id) ? await manager.findOneBy(ServiceAccountEntity, { id, organizationId }) : null;
    if (!found) throw notFound(`Service account '${id}' not found.`);
    return found;
  }

  async create(organizationId: string, input: ServiceAccountInput): Promise<ServiceAccountEntity> {
    this.check(input, true);
    const manager = this.dataSource.manager;
    const created = await manager.save(
      manager.create(ServiceAccountEntity, { organizationId, name: input.name!.trim(), description: input.description ?? null }),
    );
    return manager.findOneByOrFail(ServiceAccountEntity, { id: created.id });
  }

  /** PUT (`replace`: name required, an absent description is removed) or PATCH (only what is given). */
  async update(
    organizationId: string,
    id: string,
    input: ServiceAccountInput,
    options: { ifMatch?: string | null; replace: boolean },
  ): Promise<ServiceAccountEntity> {
    this.check(input, options.replace);
    return this.dataSource.transaction(async (manager) => {
      const current = isUuid(id)
        ? await manager.findOne(ServiceAccountEntity, { where: { id, organizationId }, lock: { mode: 'pessimistic_write' } })
        : null;
      if (!current) throw notFound(`Service account '${id}' not found.`);
      checkIfMatch(current, options.ifMatch, `Service account '${id}'`);
      const changes: Partial<ServiceAccountEntity> = {};
      if (typeof input.name === 'string') changes.name = input.name.trim();
      if (options.replace) changes.description = input.description ?? null;
      else if (input.description !== undefined) changes.description = input.description;
      await manager.createQueryBuilder().update(ServiceAccountEntity).set({ ...changes, ...bumpVersion }).where('id = :id', { id }).execute();
      return manager.findOneByOrFail(ServiceAccountEntity, { id });
    });
  }

  /**
   * Deletes the service account with its secrets, role assignments and group memberships, in one transaction;
   * 409 when the organization would be left without an owner.
   */
  async delete(organizationId: string, id: string, ifMatch: string | null | undefined): Promise<boolean> {
    return this.dataSource.transaction(async (manager) => {
      await lockOrganization(manager, organizationId);
      const current = isUuid(id)
        ? await manager.findOne(ServiceAccountEntity, { where: { id, organizationId }, lock: { mode: 'pessimistic_write' } })
        : null;
      if (!current) throw notFound(`Service account '${id}' not found.`);
      checkIfMatch(current, ifMatch, `Service account '${id}'`);
      await removePrincipalFrom(manager, organizationId, 'service-account', id);
      await manager.delete(ServiceAccountEntity, { id });
      await assertOwnerRemains(manager, organizationId);
      return true;
    });
  }

  private check(input: ServiceAccountInput, replace: boolean): void {
    rejectProblems([
      // PUT needs a name; PATCH may leave it out, but cannot remove or empty it.
      textProblem(input.name, 'name', { required: replace || input.name !== undefined, max: NAME_MAX }),
      textProblem(input.description, 'description', { max: DESCRIPTION_MAX }),
    ]);
  }
}
