import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The Management API and the identity service: identity accounts, organization users and invitations, service
 * accounts and their secrets (slow hashes only), user groups and members, role assignments, trusted external
 * issuers (federation), and the identity service's own state (signing keys, oidc-provider's payloads).
 * Every updatable resource gets a version for its ETag and an insertion number (`seq`) for keyset paging.
 */
export class Management1764100000000 implements MigrationInterface {
  name = 'Management1764100000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE organizations
        ADD COLUMN seq bigint GENERATED ALWAYS AS IDENTITY,
        -- the organization created on the first start: its owners administer the server (signing keys)
        ADD COLUMN platform boolean NOT NULL DEFAULT false,
        ADD COLUMN version integer NOT NULL DEFAULT 1,
        ADD COLUMN updated_at timestamptz NOT NULL DEFAULT now()`);
    await q.query(`
      ALTER TABLE tenants
        ADD COLUMN seq bigint GENERATED ALWAYS AS IDENTITY,
        ADD COLUMN version integer NOT NULL DEFAULT 1,
        ADD COLUMN updated_at timestamptz NOT NULL DEFAULT now()`);
    await q.query(`CREATE INDEX tenants_organization_seq ON tenants (organization_id, seq)`);

    // Identity accounts of the built-in identity service. A user of an organization is an account invited into it.
    await q.query(`
      CREATE TABLE accounts (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        email text NOT NULL CHECK (length(email) BETWEEN 3 AND 320),
        display_name text,
        password_hash text,
        -- a one-time password (bootstrap, reset): usable once, then the account must set its own
        must_change_password boolean NOT NULL DEFAULT false,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE UNIQUE INDEX accounts_email ON accounts (lower(email))`);

    await q.query(`
      CREATE TABLE organization_users (
        organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        account_id uuid NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
        seq bigint GENERATED ALWAYS AS IDENTITY,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (organization_id, account_id)
      )`);
    await q.query(`CREATE INDEX organization_users_seq ON organization_users (organization_id, seq)`);
    await q.query(`CREATE INDEX organization_users_account ON organization_users (account_id)`);

    await q.query(`
      CREATE TABLE invitations (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        account_id uuid NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
        seq bigint GENERATED ALWAYS AS IDENTITY,
        -- pending, accepted or revoked; "expired" is a pending invitation past expires_at
        state text NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'accepted', 'revoked')),
        invited_by text NOT NULL,
        expires_at timestamptz NOT NULL,
        version integer NOT NULL DEFAULT 1,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX invitations_organization ON invitations (organization_id, seq)`);
    await q.query(`CREATE INDEX invitations_account ON invitations (account_id)`);
    // At most one open invitation per account and organization.
    await q.query(`CREATE UNIQUE INDEX invitations_pending ON invitations (organization_id, account_id) WHERE state = 'pending'`);

    await q.query(`
      CREATE TABLE service_accounts (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        seq bigint GENERATED ALWAYS AS IDENTITY,
        name text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
        description text,
        version integer NOT NULL DEFAULT 1,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX service_accounts_organization ON service_accounts (organization_id, seq)`);

    await q.query(`
      CREATE TABLE service_account_secrets (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        service_account_id uuid NOT NULL REFERENCES service_accounts(id) ON DELETE CASCADE,
        seq bigint GENERATED ALWAYS AS IDENTITY,
        -- scrypt hash of the value; the value itself is returned once, at creation, and kept nowhere
        hash text NOT NULL,
        -- the value's first characters, so an operator can tell secrets apart
        hint text NOT NULL,
        description text,
        created_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz
      )`);
    await q.query(`CREATE INDEX service_account_secrets_account ON service_account_secrets (service_account_id, seq)`);

    await q.query(`
      CREATE TABLE user_groups (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        seq bigint GENERATED ALWAYS AS IDENTITY,
        name text NOT NULL CHECK (name LIKE 'group@_%' AND length(name) <= 200),
        description text,
        version integer NOT NULL DEFAULT 1,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE UNIQUE INDEX user_groups_name ON user_groups (organization_id, name)`);
    await q.query(`CREATE INDEX user_groups_organization ON user_groups (organization_id, seq)`);

    await q.query(`
      CREATE TABLE group_members (
        group_id uuid NOT NULL REFERENCES user_groups(id) ON DELETE CASCADE,
        principal_type text NOT NULL CHECK (principal_type IN ('user', 'service-account')),
        principal_id uuid NOT NULL,
        seq bigint GENERATED ALWAYS AS IDENTITY,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (group_id, principal_type, principal_id)
      )`);
    await q.query(`CREATE INDEX group_members_principal ON group_members (principal_id, principal_type)`);

    await q.query(`
      CREATE TABLE role_assignments (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        -- null: organization-wide; else one tenant of the same organization
        tenant_id uuid REFERENCES tenants(id) ON DELETE CASCADE,
        seq bigint GENERATED ALWAYS AS IDENTITY,
        role text NOT NULL CHECK (role IN ('organization-owner', 'reader', 'contributor')),
        principal_type text NOT NULL CHECK (principal_type IN ('user', 'service-account', 'group')),
        principal_id uuid NOT NULL,
        created_by text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        CHECK (tenant_id IS NULL OR role <> 'organization-owner')
      )`);
    await q.query(`
      CREATE UNIQUE INDEX role_assignments_unique ON role_assignments
        (organization_id, coalesce(tenant_id, '00000000-0000-0000-0000-000000000000'::uuid), role, principal_type, principal_id)`);
    await q.query(`CREATE INDEX role_assignments_principal ON role_assignments (principal_id, organization_id)`);
    await q.query(`CREATE INDEX role_assignments_organization ON role_assignments (organization_id, seq)`);

    // Federation: an organization (or one of its tenants) trusts an external issuer's tokens.
    await q.query(`
      CREATE TABLE identity_trusts (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        tenant_id uuid REFERENCES tenants(id) ON DELETE CASCADE,
        seq bigint GENERATED ALWAYS AS IDENTITY,
        issuer text NOT NULL,
        audience text NOT NULL,
        jwks_uri text NOT NULL,
        roles_claim text NOT NULL DEFAULT 'roles',
        version integer NOT NULL DEFAULT 1,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX identity_trusts_issuer ON identity_trusts (issuer)`);
    await q.query(`CREATE INDEX identity_trusts_organization ON identity_trusts (organization_id, seq)`);

    // The identity service's signing keys (private JWKs), kept across restarts; retired keys stay published a while.
    await q.query(`
      CREATE TABLE signing_keys (
        kid text PRIMARY KEY,
        private_jwk jsonb NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        retired_at timestamptz
      )`);
    // oidc-provider's state (sessions, interactions, authorization codes, grants, ...), one row per stored model.
    await q.query(`
      CREATE TABLE oidc_payloads (
        model text NOT NULL,
        id text NOT NULL,
        payload jsonb NOT NULL,
        grant_id text,
        uid text,
        user_code text,
        expires_at timestamptz,
        consumed_at timestamptz,
        PRIMARY KEY (model, id)
      )`);
    await q.query(`CREATE INDEX oidc_payloads_grant ON oidc_payloads (grant_id) WHERE grant_id IS NOT NULL`);
    await q.query(`CREATE INDEX oidc_payloads_uid ON oidc_payloads (uid) WHERE uid IS NOT NULL`);
    await q.query(`CREATE INDEX oidc_payloads_expires ON oidc_payloads (expires_at) WHERE expires_at IS NOT NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const table of [
      'oidc_payloads',
      'signing_keys',
      'identity_trusts',
      'role_assignments',
      'group_members',
      'user_groups',
      'service_account_secrets',
      'service_accounts',
      'invitations',
      'organization_users',
      'accounts',
    ]) {
      await q.query(`DROP TABLE ${table}`);
    }
    await q.query('DROP INDEX tenants_organization_seq');
    await q.query('ALTER TABLE tenants DROP COLUMN seq, DROP COLUMN version, DROP COLUMN updated_at');
    await q.query('ALTER TABLE organizations DROP COLUMN seq, DROP COLUMN platform, DROP COLUMN version, DROP COLUMN updated_at');
  }
}
