import type { Adapter, AdapterConstructor, AdapterPayload } from 'oidc-provider';
import { DataSource } from 'typeorm';
import { isUuid } from '../../common/uuid';

/**
 * The one scope of the platform API (its resource server): a token carries it for the whole API, as the
 * caller's role assignments allow. Clients may ask for it or for nothing; other scopes are refused.
 */
export const API_SCOPE = 'api_access';

/**
 * oidc-provider's storage in PostgreSQL (`oidc_payloads`, one row per stored model instance: sessions,
 * interactions, authorization codes, grants, ...), so that every replica sees the same login state and a restart
 * loses none. The model `Client` is not stored there: a client is a service account (`service_accounts`), whose
 * id is its client_id; its secrets are checked against their hashes elsewhere (see client-auth.ts).
 */
export function postgresAdapter(dataSource: DataSource): AdapterConstructor {
  return class PostgresAdapter implements Adapter {
    constructor(private readonly model: string) {}

    async upsert(id: string, payload: AdapterPayload, expiresIn: number | undefined): Promise<void> {
      await dataSource.query(
        `INSERT INTO oidc_payloads (model, id, payload, grant_id, uid, user_code, expires_at)
         VALUES ($1, $2, $3::jsonb, $4, $5, $6, CASE WHEN $7::double precision IS NULL THEN NULL ELSE now() + make_interval(secs => $7::double precision) END)
         ON CONFLICT (model, id) DO UPDATE SET payload = excluded.payload, grant_id = excluded.grant_id, uid = excluded.uid,
           user_code = excluded.user_code, expires_at = excluded.expires_at, consumed_at = NULL`,
        [this.model, id, JSON.stringify(payload), payload.grantId ?? null, payload.uid ?? null, payload.userCode ?? null, expiresIn ?? null],
      );
    }

    async find(id: string): Promise<AdapterPayload | undefined> {
      if (this.model === 'Client') return serviceAccountClient(dataSource, id);
      return this.one('id = $2', id);
    }

    findByUid(uid: string): Promise<AdapterPayload | undefined> {
      return this.one('uid = $2', uid);
    }

    findByUserCode(userCode: string): Promise<AdapterPayload | undefined> {
      return this.one('user_code = $2', userCode);
    }

    async consume(id: string): Promise<void> {
      await dataSource.query(
        `UPDATE oidc_payloads SET consumed_at = now(), payload = payload || jsonb_build_object('consumed', extract(epoch FROM now())::bigint)
          WHERE model = $1 AND id = $2`,
        [this.model, id],
      );
    }

    async destroy(id: string): Promise<void> {
      await dataSource.query('DELETE FROM oidc_payloads WHERE model = $1 AND id = $2', [this.model, id]);
    }

    async revokeByGrantId(grantId: string): Promise<void> {
      await dataSource.query('DELETE FROM oidc_payloads WHERE grant_id = $1', [grantId]);
    }

    private async one(where: string, value: string): Promise<AdapterPayload | undefined> {
      if (typeof value !== 'string') return undefined;
      const rows: { payload: AdapterPayload }[] = await dataSource.query(
        `SELECT payload FROM oidc_payloads WHERE model = $1 AND ${where} AND (expires_at IS NULL OR expires_at > now()) LIMIT 1`,
        [this.model, value],
      );
      return rows[0]?.payload;
    }
  };
}

/** Deletes expired rows of `oidc_payloads`; returns how many. */
export async function deleteExpiredPayloads(dataSource: DataSource): Promise<number> {
  // TypeORM answers a DELETE with [rows, affected].
  const [, affected] = (await dataSource.query("DELETE FROM oidc_payloads WHERE expires_at < now() - interval '5 minutes'")) as [unknown, number];
  return affected;
}

/**
 * A service account as an OAuth client: confidential, client credentials only, secret in the form body or in
 * Basic auth. The `client_secret` here is a placeholder oidc-provider's metadata schema requires; it is never
 * compared (client-auth.ts replaces the comparison with a check against the stored hashes).
 */
async function serviceAccountClient(dataSource: DataSource, id: string): Promise<AdapterPayload | undefined> {
  // Ids are stored and compared in lower case (the token's `sub` is the client_id as found).
  if (!isUuid(id) || id !== id.toLowerCase()) return undefined;
  const rows: { id: string; name: string }[] = await dataSource.query('SELECT id, name FROM service_accounts WHERE id = $1', [id]);
  if (!rows[0]) return undefined;
  return {
    client_id: rows[0].id,
    client_name: rows[0].name,
    client_secret: 'stored-as-scrypt-hashes-only',
    grant_types: ['client_credentials'],
    response_types: [],
    redirect_uris: [],
    token_endpoint_auth_method: 'client_secret_basic',
  };
}
