import { DataSource, IsNull, Not } from 'typeorm';
import type { Trust, TrustDirectory } from '../../auth/jwt';
import { IdentityTrustEntity } from './identity-trust.entity';

/**
 * Trusts are read on every request that carries an external issuer's token, and change rarely: they are
 * cached per issuer for a few seconds (unknown issuers too, so random `iss` values do not reach the database).
 * Changes made through this service evict at once; another replica sees them within the TTL.
 */
const CACHE_TTL_MS = 5_000;
const CACHE_MAX_ENTRIES = 1_000;
/** An organization's sign-in page of the console lists at most this many identity providers (the oldest first). */
const SIGN_IN_PROVIDERS_MAX = 100;

/** An identity provider that offers a browser sign-in to the admin console: what its sign-in page needs. */
export interface SignInProvider {
  /** The identity provider's id. */
  id: string;
  issuer: string;
  /** The public client registered at the issuer for the admin console. */
  clientId: string;
  /** The name on the sign-in button: the one given, else the issuer's host. */
  name: string;
}

/** Federation: which external issuers an organization or tenant trusts. */
export class FederationService implements TrustDirectory {
  private readonly cache = new Map<string, { trusts: Trust[]; until: number }>();

  constructor(private readonly dataSource: DataSource) {}

  async byIssuer(issuer: string): Promise<Trust[]> {
    const now = Date.now();
    const hit = this.cache.get(issuer);
    if (hit && hit.until > now) return hit.trusts;
    const rows = issuer.length > 2_000 ? [] : await this.dataSource.manager.findBy(IdentityTrustEntity, { issuer });
    const trusts = rows.map(({ id, organizationId, tenantId, issuer, audience, jwksUri, rolesClaim }) => ({ id, organizationId, tenantId, issuer, audience, jwksUri, rolesClaim }));
    this.cache.delete(issuer);
    if (this.cache.size >= CACHE_MAX_ENTRIES) this.cache.delete(this.cache.keys().next().value!);
    this.cache.set(issuer, { trusts, until: now + CACHE_TTL_MS });
    return trusts;
  }

  /**
   * The identity providers of one organization that offer a browser sign-in (a sign-in client id is set), for that
   * organization's sign-in page of the admin console (`{manage_url}/admin?organization={id}`), which anyone may
   * open: their issuer, client id and name are public, as on any OpenID Connect login page. Another organization's
   * page never shows them. The oldest first, at most SIGN_IN_PROVIDERS_MAX; read on each page load (page loads are rare).
   */
  async signInProviders(organizationId: string): Promise<SignInProvider[]> {
    const rows = await this.dataSource.manager.find(IdentityTrustEntity, {
      select: { id: true, issuer: true, signInClientId: true, signInName: true },
      where: { organizationId, signInClientId: Not(IsNull()) },
      order: { seq: 'ASC' },
      take: SIGN_IN_PROVIDERS_MAX,
    });
    return rows.map((row) => ({ id: row.id, issuer: row.issuer, clientId: row.signInClientId!, name: row.signInName ?? new URL(row.issuer).host }));
  }

  /** Forgets what is cached for an issuer: called by every change to its trusts. */
  evict(issuer: string): void {
    this.cache.delete(issuer);
  }
}
