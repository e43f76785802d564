import type { RoleName } from './roles';

/**
 * Who a verified token names:
 * - `user`: an identity account of the built-in identity service (`subject` is the account id);
 * - `service-account`: a service account, through client credentials (`subject` is its id, the client_id);
 * - `federated`: a caller of an external issuer an organization or tenant trusts; its roles come from the
 *   token (`grants`), not from role assignments.
 */
export type PrincipalKind = 'user' | 'service-account' | 'federated';

export interface FederatedGrant {
  trustId: string;
  organizationId: string;
  /** Null: the trust is the organization's, and the roles hold organization-wide. */
  tenantId: string | null;
  roles: RoleName[];
}

export interface Principal {
  kind: PrincipalKind;
  subject: string;
  issuer: string;
  /**
   * When the built-in identity service issued the token (`iat`, seconds): a user's tokens from before its removal
   * from its last organization no longer count.
   */
  issuedAt?: number;
  /** Federated callers only: the roles each trusting organization or tenant grants from the token's claims. */
  grants?: FederatedGrant[];
}

/** How a principal is named in logs and `created_by` columns: `user:{id}`, `service-account:{id}`, `federated:{iss}#{sub}`. */
export function principalRef(principal: Principal): string {
  return principal.kind === 'federated' ? `federated:${principal.issuer}#${principal.subject}` : `${principal.kind}:${principal.subject}`;
}
