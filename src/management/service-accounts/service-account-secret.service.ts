import { DataSource, EntityManager } from 'typeorm';
import { isUuid } from '../../common/uuid';
import { hashSecret, newSecretValue } from '../../auth/secret-hash';
import { badRequest, conflict, notFound } from '../../graphql/errors';
import { Page, pageBySeq, rejectProblems, textProblem } from '../records';
import { ServiceAccountSecretEntity } from './service-account-secret.entity';
import { ServiceAccountEntity } from './service-account.entity';
import { DESCRIPTION_MAX, ServiceAccountService } from './service-account.service';

export interface SecretInput {
  description?: string | null;
  /** When the secret stops working; in the future. Exclusive with `validForSeconds`. */
  expiresAt?: Date | null;
  validForSeconds?: number | null;
}

export interface RotationInput extends SecretInput {
  /** How much longer the other active secret works: default a day, 0 = not at all; never extends an earlier expiry. */
  previousSecretValidForSeconds?: number | null;
}

/** A secret as created: its value is in this answer and nowhere else, ever. */
export interface NewSecret {
  secret: ServiceAccountSecretEntity;
  value: string;
  clientId: string;
  tokenUrl: string;
  /** Rotation: the other active secret, with its new expiry. */
  previousSecret: ServiceAccountSecretEntity | null;
}

/** Two active secrets at most: the current one and, during a rotation, the previous one. */
export const MAX_ACTIVE_SECRETS = 2;
export const DEFAULT_PREVIOUS_VALID_SECONDS = 86_400;
const HINT_LENGTH = 4;

/** Whether a secret still works at the token endpoint. */
export const isActive = (secret: Pick<ServiceAccountSecretEntity, 'expiresAt'>, now = Date.now()) =>
  secret.expiresAt === null || secret.expiresAt.getTime() > now;

/**
 * Client secrets of service accounts. Only a slow hash of each value is stored (the token endpoint checks
 * against it, see auth/identity/client-auth.ts); the value is returned once, by the call that creates it.
 */
export class ServiceAccountSecretService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly serviceAccounts: ServiceAccountService,
  ) {}

  /** The secrets' metadata (never a value or hash), in creation order, expired ones included. */
  async list(organizationId: string, serviceAccountId: string, limit: number, cursor: string | null): Promise<Page<ServiceAccountSecretEntity>> {
    await this.serviceAccounts.get(organizationId, serviceAccountId);
    const query = this.dataSource.manager
      .createQueryBuilder(ServiceAccountSecretEntity, 'secret')
      .where('secret.serviceAccountId = :serviceAccountId', { serviceAccountId });
    return pageBySeq(query, `secrets:${serviceAccountId}`, limit, cursor);
  }

  /** A new secret; 409 when the service account has two active secrets already. */
  add(organizationId: string, serviceAccountId: string, input: SecretInput): Promise<NewSecret> {
    return this.create(organizationId, serviceAccountId, input, null);
  }

  /**
   * A new secret, and the other active secret (if any) expires `previousSecretValidForSeconds` from now (or
   * keeps its earlier expiry). 409 when two secrets are active already: delete one first.
   */
  rotate(organizationId: string, serviceAccountId: string, input: RotationInput): Promise<NewSecret> {
    const seconds = input.previousSecretValidForSeconds ?? DEFAULT_PREVIOUS_VALID_SECONDS;
    if (!Number.isInteger(seconds) || seconds < 0) throw badRequest('previousSecretValidForSeconds must be an integer of 0 or more.');
    return this.create(organizationId, serviceAccountId, input, seconds);
  }

  async delete(organizationId: string, serviceAccountId: string, secretId: string): Promise<boolean> {
    await this.serviceAccounts.get(organizationId, serviceAccountId);
    const result = isUuid(secretId) ? await this.dataSource.manager.delete(ServiceAccountSecretEntity, { id: secretId, serviceAccountId }) : null;
    if (!result?.affected) throw notFound(`Secret '${secretId}' not found.`);
    return true;
  }

  private async create(organizationId: string, serviceAccountId: string, input: SecretInput, rotateAfterSeconds: number | null): Promise<NewSecret> {
    const expiresAt = expiryOf(input);
    // The hash takes tens of milliseconds: computed before the transaction, which holds the account's row lock.
    const value = newSecretValue();
    const hash = await hashSecret(value);
    return this.dataSource.transaction(async (manager) => {
      const account = await this.lockAccount(manager, organizationId, serviceAccountId);
      const active = await activeSecrets(manager, serviceAccountId);
      if (active.length >= MAX_ACTIVE_SECRETS) {
        throw conflict(
          `Service account '${serviceAccountId}' has ${MAX_ACTIVE_SECRETS} active secrets already, the most it may have; delete one (or let it expire) first.`,
        );
      }
      let previousSecret: ServiceAccountSecretEntity | null = null;
      if (rotateAfterSeconds !== null && active.length === 1) {
        await manager.query(
          `UPDATE service_account_secrets SET expires_at = LEAST(coalesce(expires_at, 'infinity'::timestamptz), now() + make_interval(secs => $2))
            WHERE id = $1`,
          [active[0].id, rotateAfterSeconds],
        );
        previousSecret = await manager.findOneByOrFail(ServiceAccountSecretEntity, { id: active[0].id });
      }
      const { identifiers } = await manager.insert(ServiceAccountSecretEntity, {
        serviceAccountId,
        hash,
        hint: value.slice(0, HINT_LENGTH),
        description: input.description ?? null,
        expiresAt,
      });
      const secret = await manager.findOneByOrFail(ServiceAccountSecretEntity, { id: identifiers[0].id as string });
      return { secret, value, clientId: account.id, tokenUrl: this.serviceAccounts.tokenUrl, previousSecret };
    });
  }

  private async lockAccount(manager: EntityManager, organizationId: string, id: string): Promise<ServiceAccountEntity> {
    const account = isUuid(id) ? await manager.findOne(ServiceAccountEntity, { where: { id, organizationId }, lock: { mode: 'pessimistic_write' } }) : null;
    if (!account) throw notFound(`Service account '${id}' not found.`);
    return account;
  }
}

function activeSecrets(manager: EntityManager, serviceAccountId: string): Promise<{ id: string }[]> {
  return manager.query(
    'SELECT id FROM service_account_secrets WHERE service_account_id = $1 AND (expires_at IS NULL OR expires_at > now()) ORDER BY seq',
    [serviceAccountId],
  );
}

/** The expiry a new secret asks for: a future `expiresAt`, or `validForSeconds` from now, or none. */
function expiryOf(input: SecretInput): Date | null {
  const { expiresAt, validForSeconds } = input;
  const given = (v: unknown) => v !== undefined && v !== null;
  rejectProblems([
    textProblem(input.description, 'description', { max: DESCRIPTION_MAX }),
    given(expiresAt) && given(validForSeconds) ? 'Give expiresAt or validForSeconds, not both.' : undefined,
    given(expiresAt) && !(expiresAt instanceof Date && expiresAt.getTime() > Date.now()) ? 'expiresAt must be a date-time in the future.' : undefined,
    given(validForSeconds) && !(Number.isInteger(validForSeconds) && validForSeconds! > 0) ? 'validForSeconds must be a positive integer.' : undefined,
  ]);
  if (given(expiresAt)) return expiresAt!;
  if (given(validForSeconds)) return new Date(Date.now() + validForSeconds! * 1000);
  return null;
}
