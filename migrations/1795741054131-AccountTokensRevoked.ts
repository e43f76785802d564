import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `accounts.tokens_revoked_at`: set when a user is removed from its last organization. The access tokens the account
 * was issued until then no longer authenticate (src/auth/access.ts); a later login is a newcomer's.
 */
export class AccountTokensRevoked1795741054131 implements MigrationInterface {
  name = 'AccountTokensRevoked1795741054131';

  async up(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE accounts ADD COLUMN tokens_revoked_at timestamptz');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE accounts DROP COLUMN tokens_revoked_at');
  }
}
