import { DataSource, EntityManager } from 'typeorm';
import { outboundProblem } from '../../auth/outbound';
import { isUuid } from '../../common/uuid';
import { notFound } from '../../graphql/errors';
import { Page, bumpVersion, checkIfMatch, pageBySeq, rejectProblems, textProblem } from '../records';
import { TenantEntity } from '../tenants/tenant.entity';
import { FederationService } from './federation.service';
import { IdentityTrustEntity } from './identity-trust.entity';

export interface IdentityProviderInput {
  issuer?: string | null;
  audience?: string | null;
  jwksUri?: string | null;
  rolesClaim?: string | null;
  tenantId?: string | null;
  signInClientId?: string | null;
  signInName?: string | null;
}

/** A dot path into the token's claims: `roles`, `realm_access.roles`. */
const ROLES_CLAIM = /^[A-Za-z0-9_:-]+(\.[A-Za-z0-9_:-]+)*$/;
const DEFAULT_ROLES_CLAIM = 'roles';
/** Longer issuers are never looked up (FederationService.byIssuer). */
const URL_MAX = 2000;
const AUDIENCE_MAX = 500;
const ROLES_CLAIM_MAX = 200;
const SIGN_IN_CLIENT_ID_MAX = 200;
const SIGN_IN_NAME_MAX = 100;

/**
 * Identity providers: the external issuers an organization (or one tenant of it) trusts. A token of the issuer
 * with the audience, verified with the keys at jwksUri, carries roles at rolesClaim that hold where the trust
 * does. Every change evicts the issuer (old and new) from the federation cache, so it takes effect at once here.
 */
export class IdentityProviderService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly federation: FederationService,
    /** FEDERATION_PRIVATE_NETWORKS: JWKS URLs may be http and on private addresses. */
    private readonly privateNetworks = false,
  ) {}

  /** 400 when the server would not fetch the JWKS URL (see auth/outbound.ts). */
  private async checkReachable(jwksUri: string | null | undefined): Promise<void> {
    if (this.privateNetworks || typeof jwksUri !== 'string') return;
    rejectProblems([await outboundProblem(jwksUri, 'jwksUri', 'FEDERATION_PRIVATE_NETWORKS')]);
  }

  list(organizationId: string, limit: number, cursor: string | null): Promise<Page<IdentityTrustEntity>> {
    const query = this.dataSource.manager.createQueryBuilder(IdentityTrustEntity, 't').where('t.organizationId = :organizationId', { organizationId });
    return pageBySeq(query, `identity-providers:${organizationId}`, limit, cursor);
  }

  async get(organizationId: string, id: string): Promise<IdentityTrustEntity> {
    const found = isUuid(id) ? await this.dataSource.manager.findOneBy(IdentityTrustEntity, { id, organizationId }) : null;
    if (!found) throw notFound(`Identity provider '${id}' not found.`);
    return found;
  }

  async create(organizationId: string, input: IdentityProviderInput): Promise<IdentityTrustEntity> {
    check(input, true);
    await this.checkReachable(input.jwksUri);
    const trust = await this.dataSource.transaction(async (manager) => {
      await checkTenant(manager, organizationId, input.tenantId);
      const { identifiers } = await manager.insert(IdentityTrustEntity, {
        organizationId,
        tenantId: input.tenantId ?? null,
        issuer: input.issuer!,
        audience: input.audience!,
        jwksUri: input.jwksUri!,
        rolesClaim: input.rolesClaim ?? DEFAULT_ROLES_CLAIM,
        signInClientId: input.signInClientId ?? null,
        signInName: input.signInName ?? null,
      });
      return manager.findOneByOrFail(IdentityTrustEntity, { id: identifiers[0].id as string });
    });
    this.federation.evict(trust.issuer);
    return trust;
  }

  /**
   * PUT (`replace`: issuer, audience, jwksUri required; rolesClaim defaults to `roles`, tenantId, signInClientId and
   * signInName to none) or PATCH (null clears tenantId, signInClientId, signInName).
   */
  async update(
    organizationId: string,
    id: string,
    input: IdentityProviderInput,
    options: { ifMatch?: string | null; replace: boolean },
  ): Promise<IdentityTrustEntity> {
    check(input, options.replace);
    await this.checkReachable(input.jwksUri);
    const changes: Partial<IdentityTrustEntity> = {};
    for (const field of ['issuer', 'audience', 'jwksUri', 'rolesClaim'] as const) if (typeof input[field] === 'string') changes[field] = input[field]!;
    for (const field of ['tenantId', 'signInClientId', 'signInName'] as const) {
      if (options.replace) changes[field] = input[field] ?? null;
      else if (input[field] !== undefined) changes[field] = input[field];
    }
    if (options.replace) changes.rolesClaim = input.rolesClaim ?? DEFAULT_ROLES_CLAIM;
    const { before, after } = await this.dataSource.transaction(async (manager) => {
      const current = isUuid(id) ? await manager.findOne(IdentityTrustEntity, { where: { id, organizationId }, lock: { mode: 'pessimistic_write' } }) : null;
      if (!current) throw notFound(`Identity provider '${id}' not found.`);
      checkIfMatch(current, options.ifMatch, `Identity provider '${id}'`);
      await checkTenant(manager, organizationId, changes.tenantId);
      await manager.createQueryBuilder().update(IdentityTrustEntity).set({ ...changes, ...bumpVersion }).where('id = :id', { id }).execute();
      return { before: current, after: await manager.findOneByOrFail(IdentityTrustEntity, { id }) };
    });
    this.federation.evict(before.issuer);
    this.federation.evict(after.issuer);
    return after;
  }

  async delete(organizationId: string, id: string, ifMatch: string | null | undefined): Promise<boolean> {
    const deleted = await this.dataSource.transaction(async (manager) => {
      const current = isUuid(id) ? await manager.findOne(IdentityTrustEntity, { where: { id, organizationId }, lock: { mode: 'pessimistic_write' } }) : null;
      if (!current) throw notFound(`Identity provider '${id}' not found.`);
      checkIfMatch(current, ifMatch, `Identity provider '${id}'`);
      await manager.delete(IdentityTrustEntity, { id });
      return current;
    });
    this.federation.evict(deleted.issuer);
    return true;
  }
}

/** 404 unless `tenantId` (when given) is a tenant of the organization. */
async function checkTenant(manager: EntityManager, organizationId: string, tenantId: string | null | undefined): Promise<void> {
  if (tenantId === null || tenantId === undefined) return;
  const found = isUuid(tenantId) && (await manager.existsBy(TenantEntity, { id: tenantId, organizationId }));
  if (!found) throw notFound(`Tenant '${tenantId}' not found in this organization.`);
}

function check(input: IdentityProviderInput, replace: boolean): void {
  const required = (value: unknown) => replace || value !== undefined;
  rejectProblems([
    urlProblem(input.issuer, 'issuer', required(input.issuer)),
    textProblem(input.audience, 'audience', { required: required(input.audience), max: AUDIENCE_MAX }),
    urlProblem(input.jwksUri, 'jwksUri', required(input.jwksUri)),
    textProblem(input.rolesClaim, 'rolesClaim', { required: input.rolesClaim !== undefined && !replace, max: ROLES_CLAIM_MAX }) ??
      (typeof input.rolesClaim === 'string' && !ROLES_CLAIM.test(input.rolesClaim)
        ? "rolesClaim must be a dot path of claim names, like 'roles' or 'realm_access.roles'."
        : undefined),
    labelProblem(input.signInClientId, 'signInClientId', SIGN_IN_CLIENT_ID_MAX),
    labelProblem(input.signInName, 'signInName', SIGN_IN_NAME_MAX),
  ]);
}

/** Optional (null: none); given, 1 to `max` characters, no control characters, no space at either end. */
function labelProblem(value: unknown, field: string, max: number): string | undefined {
  const problem = textProblem(value, field, { max });
  if (problem || typeof value !== 'string') return problem;
  if (value.trim() === '') return `${field} must not be empty (null: none).`;
  // eslint-disable-next-line no-control-regex
  if (value !== value.trim() || /[\u0000-\u001f\u007f]/.test(value)) return `${field} must have no control characters and no space at either end.`;
  return undefined;
}

/** An absolute http(s) URL, compared as given (issuers are matched exactly). */
function urlProblem(value: unknown, field: string, required: boolean): string | undefined {
  const problem = textProblem(value, field, { required, max: URL_MAX });
  if (problem || typeof value !== 'string') return problem;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return `${field} must be an absolute http(s) URL.`;
  }
  if ((url.protocol !== 'https:' && url.protocol !== 'http:') || value !== value.trim()) return `${field} must be an absolute http(s) URL.`;
  return undefined;
}
