import { DataSource } from 'typeorm';
import type { Trust, TrustDirectory } from '../../auth/jwt';
import { IdentityTrustEntity } from './identity-trust.entity';

/**
 * Trusts are read on every request that carries an external issuer's token, and change rarely: they are
 * cached per issuer for a few seconds (unknown issuers too, so random `iss` values do not reach the database).
 * Changes made through this service evict at once; another replica sees them within the TTL.
 */
const CACHE_TTL_MS = 5_000;
const CACHE_MAX_ENTRIES = 1_000;

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

  /** Forgets what is cached for an issuer: called by every change to its trusts. */
  evict(issuer: string): void {
    this.cache.delete(issuer);
  }
}
