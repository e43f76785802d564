import type { Logger } from 'pino';
import type { TenantEntity } from '../management/tenants/tenant.entity';
import type { EffectiveRole } from './access';
import type { Principal } from './principal';

/** How the access policy finds a tenant by the name a request gives. */
export interface TenantLookup {
  byName(name: string): Promise<TenantEntity | null>;
}

/**
 * One request as the access policy sees it: who calls, with which roles, and the tenants it asked for and was
 * admitted into. The GraphQL context (`src/graphql/context.ts`) is built on it; this part depends on no service
 * but the tenant lookup, so the policy and the services it guards do not import the GraphQL layer.
 */
export interface RequestContext {
  requestId: string;
  log: Logger;
  /**
   * The caller, from the bearer token: verified on first use and only then, so showcase tenants never pay
   * for (or fail on) token verification. Rejects with UNAUTHENTICATED for an invalid token, and for a token whose
   * principal no longer exists (checked with its roles, in the same query).
   */
  principal(): Promise<Principal | null>;
  /**
   * The caller's effective roles in every organization (role assignments, groups, federation), resolved once
   * per request; empty without a token. Rejects like `principal()` for an invalid token.
   */
  roles(): Promise<EffectiveRole[]>;
  services: { tenants: TenantLookup };
  /** Tenants the auth checker has let this request into, by name. */
  authorizedTenants: Map<string, TenantEntity>;
  /** Tenants the request asked for, admitted or not (for the request log). */
  tenantsAsked: Set<string>;
  /** The verified caller's subject, once a token was verified (for the request log; never the token). */
  subject?: string;
  /** Fires when the client has gone before its answer (`clientGoneSignal`): long work checks it and stops. */
  signal?: AbortSignal;
}
