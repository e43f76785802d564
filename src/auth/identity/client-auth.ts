import { DataSource } from 'typeorm';
import { verifySecret } from '../secret-hash';
import { FailureLimiter } from './failure-limiter';

/**
 * Whether `secret` is one of the service account's unexpired secrets. Only scrypt hashes are stored, so each
 * unexpired hash (at most two: rotation keeps the previous one) is checked; all at once, on the thread pool.
 */
export async function serviceAccountSecretMatches(dataSource: DataSource, serviceAccountId: string, secret: string): Promise<boolean> {
  if (typeof secret !== 'string' || secret === '' || secret.length > 1024) return false;
  const rows: { hash: string }[] = await dataSource.query(
    'SELECT hash FROM service_account_secrets WHERE service_account_id = $1 AND (expires_at IS NULL OR expires_at > now())',
    [serviceAccountId],
  );
  const results = await Promise.all(rows.map((row) => verifySecret(secret, row.hash).catch(() => false)));
  return results.includes(true);
}

/** The limiter keys of the token endpoint. */
export const clientKey = (clientId: string) => `client:${clientId}`;
export const addressKey = (address: string) => `token-address:${address}`;

/** A client (or address) that failed too often: refused for `retryAfter` seconds, as OAuth JSON with status 429. */
export interface TooManyAttempts {
  retryAfter: number;
}

export interface ClientAuthDeps {
  dataSource: DataSource;
  limiter: FailureLimiter;
}

/**
 * Replaces oidc-provider's comparison of a presented client secret (with a stored plain secret) by a check
 * against the service account's stored hashes, refusing a client id that failed too often before hashing.
 * `tooMany` makes the error the token endpoint answers with 429.
 */
export function installClientSecretCheck(
  ClientClass: { prototype: { compareClientSecret(this: { clientId: string }, actual: string): Promise<boolean> } },
  deps: ClientAuthDeps,
  tooMany: (retryAfter: number) => Error,
): void {
  ClientClass.prototype.compareClientSecret = async function compareClientSecret(this: { clientId: string }, actual: string): Promise<boolean> {
    const key = clientKey(this.clientId);
    const wait = deps.limiter.retryAfter(key);
    if (wait > 0) throw tooMany(wait);
    const ok = await serviceAccountSecretMatches(deps.dataSource, this.clientId, actual);
    if (ok) deps.limiter.reset(key);
    else deps.limiter.fail(key);
    return ok;
  };
}
