import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * An identity provider may offer a browser sign-in to the admin console: the public client registered at that
 * provider for the console (`sign_in_client_id`; set, the console's sign-in page shows a button for it) and the
 * button's name (`sign_in_name`; none: the issuer's host).
 */
export class IdentityProviderSignIn1795785064867 implements MigrationInterface {
  name = 'IdentityProviderSignIn1795785064867';

  async up(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE identity_trusts ADD COLUMN sign_in_client_id text');
    await q.query('ALTER TABLE identity_trusts ADD COLUMN sign_in_name text');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE identity_trusts DROP COLUMN sign_in_name');
    await q.query('ALTER TABLE identity_trusts DROP COLUMN sign_in_client_id');
  }
}
