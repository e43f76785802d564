import type { Logger } from 'pino';
import type { ConceptDescriptionService } from '../aas/concept-descriptions/concept-description.service';
import type { ShellService } from '../aas/shells/shell.service';
import type { SubmodelService } from '../aas/submodels/submodel.service';
import type { TokenVerifier } from '../auth/jwt';
import type { Principal } from '../auth/principal';
import type { TenantEntity } from '../management/tenants/tenant.entity';
import type { TenantService } from '../management/tenants/tenant.service';
import { AppError, unauthenticated } from './errors';
import { Loaders } from './loaders';

export interface Services {
  tenants: TenantService;
  shells: ShellService;
  submodels: SubmodelService;
  conceptDescriptions: ConceptDescriptionService;
  tokens: TokenVerifier;
}

/** What every resolver sees, built once per request (HTTP GraphQL or REST facade alike). */
export interface Context {
  requestId: string;
  /**
   * The caller, from the bearer token: verified on first use and only then, so showcase tenants never pay
   * for (or fail on) token verification. Rejects with UNAUTHENTICATED for an invalid token.
   */
  principal(): Promise<Principal | null>;
  log: Logger;
  services: Services;
  /** Tenants the auth checker has let this request into, by name. */
  authorizedTenants: Map<string, TenantEntity>;
  /** Batched loads of related rows for this request: a field that loads rows goes through one of these. */
  loaders: Loaders;
}

export function createContext(
  services: Services,
  requestId: string,
  log: Logger,
  authorization: string | undefined,
): Context {
  let principal: Promise<Principal | null> | undefined;
  return {
    requestId,
    log,
    services,
    authorizedTenants: new Map(),
    loaders: new Loaders(services),
    principal() {
      principal ??= verifyAuthorization(services, authorization);
      return principal;
    },
  };
}

/** The tenant a resolver works in; only the auth checker admits one, so an unchecked field cannot reach data. */
export function tenantOf(context: Context, name: string): TenantEntity {
  const tenant = context.authorizedTenants.get(name);
  if (!tenant) throw new AppError('INTERNAL_SERVER_ERROR', 'field is missing its @Authorized rule');
  return tenant;
}

async function verifyAuthorization(services: Services, authorization: string | undefined): Promise<Principal | null> {
  if (!authorization) return null;
  const token = /^Bearer\s+(\S+)\s*$/i.exec(authorization)?.[1];
  if (token === undefined) throw unauthenticated('The Authorization header must be "Bearer <token>".');
  try {
    return await services.tokens.verify(token);
  } catch (err) {
    throw unauthenticated(`Invalid bearer token: ${(err as Error).message}`);
  }
}
