import { DataSource, QueryFailedError } from 'typeorm';
import { isUuid } from '../../common/uuid';
import { hashSecret, newSecretValue, verifySecret } from '../../auth/secret-hash';
import type { AuthConfig } from '../../config';
import { badRequest, conflict, forbidden } from '../../graphql/errors';
import { AccountEntity } from './account.entity';

export interface SignUpInput {
  email: string;
  password: string;
  displayName?: string | null;
}

/** Shortest password accepted (sign-up, password change). */
export const MIN_PASSWORD_LENGTH = 12;
/** Longest password accepted: enough for any passphrase, bounded so that hashing stays cheap. */
export const MAX_PASSWORD_LENGTH = 1024;
const MAX_EMAIL_LENGTH = 320;
const MAX_DISPLAY_NAME_LENGTH = 200;
/** One @, something on both sides, a dot in the domain, no spaces: what a login name needs, no more. */
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$|^[^\s@]+@localhost$/;

/**
 * Identity accounts of the built-in identity service: who logs in interactively (login page, authorization
 * code + PKCE). Passwords are kept only as scrypt hashes (auth/secret-hash.ts). The account id is the user
 * token's `sub` and the id organizations invite.
 */
export class AccountService {
  /** A hash of nothing anyone knows: verified against when an email has no account, so both take as long. */
  private readonly decoy: Promise<string>;

  constructor(
    private readonly dataSource: DataSource,
    private readonly config: { auth: Pick<AuthConfig, 'signupEnabled'> },
  ) {
    this.decoy = hashSecret('no account has this password');
    // An unhandled rejection would only come from a broken crypto module; surfaced at first use instead.
    this.decoy.catch(() => undefined);
  }

  get signupEnabled(): boolean {
    return this.config.auth.signupEnabled;
  }

  /**
   * Creates an account (sign-up). 403 when sign-up is switched off (SIGNUP_ENABLED=false), 400 for an email that
   * is no email or a password shorter than 12 characters, 409 when the email has an account already.
   */
  async signUp(input: SignUpInput): Promise<AccountEntity> {
    if (!this.signupEnabled) throw forbidden('Sign-up is switched off on this server; ask an organization owner for an account.');
    const email = normalizeEmail(input.email);
    const problems = [...emailProblems(email), ...passwordProblems(input.password)];
    const displayName = typeof input.displayName === 'string' ? input.displayName.trim() || null : null;
    if (displayName && displayName.length > MAX_DISPLAY_NAME_LENGTH) problems.push(`The display name is longer than ${MAX_DISPLAY_NAME_LENGTH} characters.`);
    if (problems.length) throw badRequest(problems[0], problems);
    if (await this.byEmail(email)) throw conflict(`An account with the email '${email}' exists already.`);
    const passwordHash = await hashSecret(input.password);
    try {
      const saved = await this.dataSource.manager.save(
        this.dataSource.manager.create(AccountEntity, { email, displayName, passwordHash, mustChangePassword: false }),
      );
      return (await this.byId(saved.id))!;
    } catch (err) {
      // Two sign-ups with one email at once: the unique index decides.
      if (err instanceof QueryFailedError && (err.driverError as { code?: string })?.code === '23505') {
        throw conflict(`An account with the email '${email}' exists already.`);
      }
      throw err;
    }
  }

  /**
   * The account with this email and password, or undefined (unknown email or wrong password, told apart by
   * nobody: both take one hash check). Its `mustChangePassword` says whether the password was a one-time one.
   */
  async verifyLogin(email: string, password: string): Promise<AccountEntity | undefined> {
    if (typeof email !== 'string' || typeof password !== 'string' || password.length > MAX_PASSWORD_LENGTH) return undefined;
    const normalized = normalizeEmail(email);
    const account = normalized.length <= MAX_EMAIL_LENGTH ? await this.withHash('lower(account.email) = lower(:email)', { email: normalized }) : null;
    const ok = await verifySecret(password, account?.passwordHash ?? (await this.decoy));
    if (!account?.passwordHash || !ok) return undefined;
    delete (account as Partial<AccountEntity>).passwordHash;
    return account;
  }

  /**
   * Sets a new password (at least 12 characters, not the current one) and clears `mustChangePassword`. With
   * `currentPassword`, that must be the current password (400 otherwise).
   */
  async changePassword(accountId: string, newPassword: string, options: { currentPassword?: string } = {}): Promise<void> {
    const problems = passwordProblems(newPassword);
    if (problems.length) throw badRequest(problems[0], problems);
    const account = isUuid(accountId) ? await this.withHash('account.id = :id', { id: accountId }) : null;
    if (!account) throw badRequest('No such account.');
    if (options.currentPassword !== undefined && !(account.passwordHash && (await verifySecret(options.currentPassword, account.passwordHash)))) {
      throw badRequest('The current password is not right.');
    }
    if (account.passwordHash && (await verifySecret(newPassword, account.passwordHash))) {
      throw badRequest('Choose a password different from the current one.');
    }
    await this.dataSource.manager.update(AccountEntity, { id: accountId }, { passwordHash: await hashSecret(newPassword), mustChangePassword: false });
  }

  /**
   * Gives the account with this email a new one-time password (returned once; only its hash is kept) that must be
   * changed at the next login, as the first owner's is. Everything the old password opened ends with it: its access
   * tokens (`tokens_revoked_at`) and the identity service's sessions, grants and logins in progress. Undefined when
   * no account has that email.
   */
  async resetPassword(email: string): Promise<{ account: AccountEntity; oneTimePassword: string } | undefined> {
    const account = await this.byEmail(email);
    if (!account) return undefined;
    const oneTimePassword = newSecretValue();
    const passwordHash = await hashSecret(oneTimePassword);
    await this.dataSource.transaction(async (manager) => {
      // Revoked as of this process's clock, which stamps the tokens' `iat` (and no VOLATILE function, which Citus refuses).
      await manager.query('UPDATE accounts SET password_hash = $2, must_change_password = true, tokens_revoked_at = $3, updated_at = now() WHERE id = $1', [
        account.id,
        passwordHash,
        new Date(),
      ]);
      // oidc-provider's rows that name the account: sessions, grants, codes, and logins waiting for a password change.
      await manager.query(
        `DELETE FROM oidc_payloads WHERE payload->>'accountId' = $1 OR payload #>> '{session,accountId}' = $1
            OR payload #>> '{result,login,accountId}' = $1 OR payload #>> '{result,pendingPasswordChange}' = $1`,
        [account.id],
      );
    });
    return { account: { ...account, mustChangePassword: true }, oneTimePassword };
  }

  /** The identity accounts that own an organization (directly or through a group), with the organization's name. */
  async organizationOwners(): Promise<{ email: string; organization: string }[]> {
    const rows: { email: string; organization: string }[] = await this.dataSource.query(
      `SELECT DISTINCT a.email, o.name AS organization, o.platform
         FROM role_assignments ra
         JOIN organizations o ON o.id = ra.organization_id
         LEFT JOIN group_members gm ON ra.principal_type = 'group' AND gm.group_id = ra.principal_id AND gm.principal_type = 'user'
         JOIN accounts a ON a.id = CASE WHEN ra.principal_type = 'user' THEN ra.principal_id ELSE gm.principal_id END
        WHERE ra.role = 'organization-owner'
        ORDER BY o.platform DESC, o.name, a.email`,
    );
    return rows.map(({ email, organization }) => ({ email, organization }));
  }

  /** The account (never its password hash), or null when the id is no account's (or no uuid). */
  async byId(id: string): Promise<AccountEntity | null> {
    if (!isUuid(id)) return null;
    return this.dataSource.manager.findOne(AccountEntity, { where: { id } });
  }

  async byEmail(email: string): Promise<AccountEntity | null> {
    if (typeof email !== 'string') return null;
    return this.dataSource.manager
      .createQueryBuilder(AccountEntity, 'account')
      .where('lower(account.email) = lower(:email)', { email: normalizeEmail(email) })
      .getOne();
  }

  private withHash(where: string, parameters: Record<string, unknown>): Promise<AccountEntity | null> {
    return this.dataSource.manager.createQueryBuilder(AccountEntity, 'account').addSelect('account.passwordHash').where(where, parameters).getOne();
  }
}

function normalizeEmail(email: unknown): string {
  return typeof email === 'string' ? email.trim() : '';
}

function emailProblems(email: string): string[] {
  if (!email) return ['An email is required.'];
  if (email.length > MAX_EMAIL_LENGTH) return [`The email is longer than ${MAX_EMAIL_LENGTH} characters.`];
  return EMAIL.test(email) ? [] : [`'${email}' is not an email address.`];
}

function passwordProblems(password: unknown): string[] {
  if (typeof password !== 'string' || password.length < MIN_PASSWORD_LENGTH) return [`The password must have at least ${MIN_PASSWORD_LENGTH} characters.`];
  if (password.length > MAX_PASSWORD_LENGTH) return [`The password must have at most ${MAX_PASSWORD_LENGTH} characters.`];
  return [];
}
