import type { Logger } from 'pino';
import type { ConceptDescriptionService } from '../aas/concept-descriptions/concept-description.service';
import type { FileService } from '../files/file.service';
import type { AttachmentService } from '../aas/attachments/attachment.service';
import type { PackageService } from '../aas/packages/package.service';
import type { ImportService } from '../aas/import/import.service';
import type { SerializationService } from '../aas/serialization/serialization.service';
import type { ShellService } from '../aas/shells/shell.service';
import type { SearchService } from '../aas/search/search.service';
import type { QueryService } from '../aas/query/query.service';
import type { DescriptorQueryService } from '../aas/registry/descriptor-query.service';
import type { DiscoveryService } from '../aas/registry/discovery.service';
import type { ImplicitRegistryService } from '../aas/registry/implicit.service';
import type { RegistryInstanceService } from '../aas/registry/instance.service';
import type { ShellDescriptorService } from '../aas/registry/shell-descriptor.service';
import type { SubmodelService } from '../aas/submodels/submodel.service';
import type { AccessService, EffectiveRole } from '../auth/access';
import { TokenError, type TokenVerifier } from '../auth/jwt';
import type { Principal } from '../auth/principal';
import type { RequestContext } from '../auth/request';
import type { IdentityService } from '../auth/identity/identity.service';
import type { AccountService } from '../management/accounts/account.service';
import type { MeService } from '../management/me/me.service';
import type { RoleAssignmentService } from '../management/role-assignments/role-assignment.service';
import type { UserService } from '../management/users/user.service';
import type { OrganizationService } from '../management/organizations/organization.service';
import type { FederationService } from '../management/federation/federation.service';
import type { TenantEntity } from '../management/tenants/tenant.entity';
import type { TenantService } from '../management/tenants/tenant.service';
import type { IdentityProviderService } from '../management/federation/identity-provider.service';
import type { UserGroupService } from '../management/user-groups/user-group.service';
import type { ServiceAccountSecretService } from '../management/service-accounts/service-account-secret.service';
import type { ServiceAccountService } from '../management/service-accounts/service-account.service';
import type { ChangeHub } from '../events/hub';
import type { PushTargetService } from '../push/push-target.service';
import type { DccService } from '../dcc/dcc.service';
import type { SemanticService } from '../aas/semantics/semantic.service';
import type { AasVersion } from '../aas/versions';
import { AppError, unauthenticated } from './errors';
import { Loaders } from './loaders';

export interface Services {
  tenants: TenantService;
  shells: ShellService;
  submodels: SubmodelService;
  conceptDescriptions: ConceptDescriptionService;
  /** The AAS Query Language over shells, submodels and concept descriptions (`/query/...`, the lists' `query` argument). */
  query: QueryService;
  /** POST /search: shells found through the search indexes of their submodels (src/aas/search/indexes.ts). */
  search: SearchService;
  /** What GET /serialization writes: the environment of some shells and submodels, or of a whole tenant. */
  serialization: SerializationService;
  /** Imports of environments and AASX packages (one transaction, files included). */
  imports: ImportService;
  /** Shell thumbnails and File/Blob attachments (stored in the file repository). */
  attachments: AttachmentService;
  /** The AASX File Server: packages (bytes in the file repository) and the shells they hold. */
  packages: PackageService;
  /** The tenant file repository (tfps, contents in the blob store, metadata). */
  files: FileService;
  /** DCC conversion (experimental): calibration certificates into submodels. */
  dcc: DccService;
  /** Implicit discovery and registries, derived from the tenant's shells and submodels. */
  implicitRegistry: ImplicitRegistryService;
  /** Explicit discovery services and AAS registries of a tenant (named instances). */
  registryInstances: RegistryInstanceService;
  /** Shell descriptors (and their submodel descriptors) of explicit AAS registries. */
  shellDescriptors: ShellDescriptorService;
  /** Asset links of explicit discovery services. */
  discovery: DiscoveryService;
  /** The AAS Query Language over descriptors (`$aasdesc`, `$smdesc`), of explicit AAS registries and the implicit ones. */
  descriptorQueries: DescriptorQueryService;
  /** The change events this process delivers (and those other replicas delivered), for in-process listeners. */
  changes: ChangeHub;
  /** Push targets of tenants (S3 buckets, AASX File Servers) that changed shells are pushed to. */
  pushTargets: PushTargetService;
  /** The semantic connector: what semantic ids mean (concept descriptions, imported dictionaries) and which are equivalent. */
  semantics: SemanticService;
  tokens: TokenVerifier;
  access: AccessService;
  federation: FederationService;
  /** Identity accounts of the built-in identity service (sign-up, login, password change). */
  accounts: AccountService;
  /** The built-in identity service (oidc-provider at `{manage_url}/oidc`, its signing keys). */
  identity: IdentityService;
  organizations: OrganizationService;
  /** Trusted external issuers (federation), as the Management API changes them. */
  identityProviders: IdentityProviderService;
  userGroups: UserGroupService;
  serviceAccounts: ServiceAccountService;
  /** Client secrets of service accounts (hashes only; a value is shown once). */
  serviceAccountSecrets: ServiceAccountSecretService;
  /** Users of organizations and invitations. */
  users: UserService;
  roleAssignments: RoleAssignmentService;
  me: MeService;
}

/**
 * What every resolver sees, built once per request (HTTP GraphQL or REST facade alike): the request as the access
 * policy sees it, with every service and the request's loaders.
 */
export interface Context extends RequestContext {
  services: Services;
  /** Batched loads of related rows for this request: a field that loads rows goes through one of these. */
  loaders: Loaders;
  /**
   * The metamodel version the request speaks: that of its REST API (`/api/v3.0` or `/api/v3.1`); GraphQL and the
   * platform's own services speak V3.1, the stored model as written. Resolvers pass it to the services: a document is
   * read, written and verified in this version (docs/aas-versions.md).
   */
  aasVersion: AasVersion;
  /** Set by the model layer when a V3.0 answer holds V3.1 content mapped down: the REST answer says so in a header. */
  versionMapped?: boolean;
}

/** The 401 of a valid token whose principal is gone (deleted, or removed from its last organization since). */
const NO_PRINCIPAL = 'The bearer token is no longer valid: its account or service account does not exist any more, or was removed from its organizations.';

export function createContext(
  services: Services,
  requestId: string,
  log: Logger | (() => Logger),
  authorization: string | undefined,
  signal?: AbortSignal,
  aasVersion: AasVersion = '3.0',
): Context {
  // Given as a function, the request's logger is made when first used (a read the cache answers may never log).
  let logger = typeof log === 'function' ? undefined : log;
  let loaders: Loaders | undefined;
  // The token's principal and its roles come together: the query of the roles also tells whether it still exists.
  let caller: Promise<{ principal: Principal; roles: EffectiveRole[] } | null> | undefined;
  const callerOf = () =>
    (caller ??= verifyAuthorization(services, () => context.log, authorization).then(async (verified) => {
      if (!verified) return null;
      context.subject = verified.subject;
      const roles = await services.access.rolesOf(verified);
      if (!roles) throw unauthenticated(NO_PRINCIPAL);
      return { principal: verified, roles };
    }));
  const context: Context = {
    requestId,
    get log() {
      return (logger ??= (log as () => Logger)());
    },
    services,
    authorizedTenants: new Map(),
    tenantsAsked: new Set(),
    // Made when a resolver first asks: a read the cache answers runs none.
    get loaders() {
      return (loaders ??= new Loaders(services));
    },
    signal,
    aasVersion,
    principal: () => callerOf().then((c) => c?.principal ?? null),
    roles: () => callerOf().then((c) => c?.roles ?? []),
  };
  return context;
}

/** The tenant a resolver works in; only the auth checker admits one, so an unchecked field cannot reach data. */
export function tenantOf(context: Context, name: string): TenantEntity {
  const tenant = context.authorizedTenants.get(name);
  if (!tenant) throw new AppError('INTERNAL_SERVER_ERROR', 'field is missing its @Authorized rule');
  return tenant;
}

/**
 * The caller of a request with this Authorization header. A refused token gets a 401 that says no more than
 * that (or that it expired): why it failed may name the issuer, the audience or the key server, which an
 * anonymous caller is not told. The reason is logged at debug level, with the request id.
 */
async function verifyAuthorization(services: Services, log: () => Logger, authorization: string | undefined): Promise<Principal | null> {
  if (!authorization) return null;
  const token = /^Bearer\s+(\S+)\s*$/i.exec(authorization)?.[1];
  if (token === undefined) throw unauthenticated('The Authorization header must be "Bearer <token>".');
  try {
    return await services.tokens.verify(token);
  } catch (err) {
    log().debug({ reason: (err as Error).message }, 'bearer token refused');
    throw unauthenticated(err instanceof TokenError && err.expired ? 'The bearer token has expired.' : 'The bearer token is not valid.');
  }
}
