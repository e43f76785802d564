import type { KeyObject } from 'node:crypto';
import jwt, { Algorithm, JwtHeader, JwtPayload } from 'jsonwebtoken';
import { JwksClient } from 'jwks-rsa';
import type { AuthConfig } from '../config';
import { isUuid } from '../common/uuid';
import type { FederatedGrant, Principal } from './principal';
import { RoleName, isRoleName, isTenantRole } from './roles';
import { publicAgentFor } from './outbound';
import { SigningKeys } from './signing-keys';

/** Why a token was refused. The message is for the log (it may name the issuer or audience), `expired` for the client. */
export class TokenError extends Error {
  constructor(
    message: string,
    readonly expired = false,
  ) {
    super(message);
  }
}

export interface TokenVerifier {
  verify(token: string): Promise<Principal>;
}

/** The built-in identity service as the verifier sees it: its issuer, the audience of its tokens, its public keys. */
export interface BuiltInIssuer {
  issuer: string;
  audience: string;
  /** The public key with this kid, or undefined when the service has none by that name. */
  publicKey(kid: string): Promise<KeyObject | string | undefined>;
  /** The algorithms its keys sign with (AUTH_ALGORITHMS, meant for external issuers, when not given). */
  algorithms?: string[];
}

/** A trusted external issuer, as federation keeps it (see management/federation). */
export interface Trust {
  id: string;
  organizationId: string;
  tenantId: string | null;
  issuer: string;
  audience: string;
  jwksUri: string;
  rolesClaim: string;
}

export interface TrustDirectory {
  /** The trusts naming exactly this issuer. */
  byIssuer(issuer: string): Promise<Trust[]>;
}

/** The claim the built-in identity service puts in its access tokens to say what kind of principal `sub` is. */
export const PRINCIPAL_TYPE_CLAIM = 'principal_type';

/** How many external key sets are kept at once (one per JWKS URL of a trust). */
const MAX_KEY_SETS = 256;

/**
 * Verifies bearer JWTs. A token of the built-in identity service is checked against its own keys, in-process; a
 * token of another issuer only when an organization or tenant trusts that issuer (federation), against the
 * trust's JWKS. Always: a fixed list of asymmetric algorithms (so neither `alg: none` nor an HMAC signed with a
 * public key passes), the exact issuer and audience, expiry with a small clock tolerance.
 */
export function createTokenVerifier(config: AuthConfig, builtIn: BuiltInIssuer | undefined, trusts: TrustDirectory): TokenVerifier {
  const keySets = new Map<string, SigningKeys>();
  const keysAt = (jwksUri: string): SigningKeys => {
    let keys = keySets.get(jwksUri);
    if (!keys) {
      if (keySets.size >= MAX_KEY_SETS) keySets.delete(keySets.keys().next().value!);
      // jwks-rsa fetches and converts the key set; which keys are known, and when to fetch again, is SigningKeys' rule.
      // Public addresses only, unless FEDERATION_PRIVATE_NETWORKS (an organization owner chose the URL).
      const agent = config.federationPrivateNetworks ? undefined : publicAgentFor(jwksUri);
      keys = new SigningKeys(
        agent instanceof Error
          ? { getSigningKeys: () => Promise.reject(agent) }
          : new JwksClient({ jwksUri, cache: false, rateLimit: false, timeout: 5_000, ...(agent ? { requestAgent: agent } : {}) }),
      );
      keySets.set(jwksUri, keys);
    }
    return keys;
  };
  const options = (issuer: string, audience: string | [string, ...string[]], algorithms = config.algorithms): jwt.VerifyOptions => ({
    algorithms: algorithms as Algorithm[],
    issuer,
    audience,
    clockTolerance: config.clockToleranceSec,
  });

  return {
    async verify(token: string) {
      const decoded = jwt.decode(token, { complete: true });
      if (!decoded || typeof decoded.payload !== 'object') throw new TokenError('token is not a JWT');
      const issuer = decoded.payload.iss;
      if (typeof issuer !== 'string' || issuer === '') throw new TokenError('token has no issuer');
      if (builtIn && issuer === builtIn.issuer) {
        const payload = await verifyWith(token, (kid) => builtIn.publicKey(kid), options(issuer, builtIn.audience, builtIn.algorithms));
        const kind = payload[PRINCIPAL_TYPE_CLAIM];
        if (kind !== 'user' && kind !== 'service-account') throw new TokenError(`token has no ${PRINCIPAL_TYPE_CLAIM} claim`);
        if (!isUuid(payload.sub)) throw new TokenError('token subject is not an account of this identity service');
        return { kind, subject: payload.sub, issuer, issuedAt: typeof payload.iat === 'number' ? payload.iat : 0 };
      }
      const trusted = await trusts.byIssuer(issuer);
      if (trusted.length === 0) throw new TokenError(`issuer ${issuer} is not trusted here`);
      // Trusts of one issuer may name different JWKS URLs (rarely); the token must verify against one of them.
      let payload: JwtPayload | undefined;
      let failure: unknown;
      for (const jwksUri of new Set(trusted.map((t) => t.jwksUri))) {
        const audiences = [...new Set(trusted.filter((t) => t.jwksUri === jwksUri).map((t) => t.audience))] as [string, ...string[]];
        try {
          payload = await verifyWith(token, (kid) => keysAt(jwksUri).get(kid), options(issuer, audiences));
          break;
        } catch (err) {
          failure = err;
        }
      }
      if (!payload) throw failure;
      if (typeof payload.sub !== 'string' || payload.sub === '') throw new TokenError('token has no subject');
      const audience = Array.isArray(payload.aud) ? payload.aud : [payload.aud];
      const grants: FederatedGrant[] = trusted
        .filter((t) => audience.includes(t.audience))
        .map((t) => ({ trustId: t.id, organizationId: t.organizationId, tenantId: t.tenantId, roles: rolesAt(payload!, t.rolesClaim, t.tenantId !== null) }));
      return { kind: 'federated', subject: payload.sub, issuer, grants };
    },
  };
}

/**
 * The role names at a dot path of the claims (`roles`, `realm_access.roles`), those this platform knows; a
 * tenant's trust grants tenant roles only.
 */
export function rolesAt(claims: JwtPayload, path: string, tenantOnly: boolean): RoleName[] {
  let value: unknown = claims;
  for (const part of path.split('.')) value = value && typeof value === 'object' ? (value as Record<string, unknown>)[part] : undefined;
  const list = Array.isArray(value) ? value : typeof value === 'string' ? value.split(' ') : [];
  return [...new Set(list.filter((r): r is RoleName => (tenantOnly ? isTenantRole(r) : isRoleName(r))))];
}

function verifyWith(token: string, keyOf: (kid: string) => Promise<KeyObject | string | undefined>, options: jwt.VerifyOptions): Promise<JwtPayload> {
  const getKey = (header: JwtHeader, callback: (err: Error | null, key?: KeyObject | string) => void) => {
    if (!header.kid) return callback(new TokenError('token header has no kid'));
    keyOf(header.kid).then(
      (key) => (key === undefined ? callback(new TokenError(`the issuer has no signing key ${header.kid}`)) : callback(null, key)),
      (err: Error) => callback(new TokenError(`the issuer's signing keys could not be fetched: ${err.message}`)),
    );
  };
  return new Promise((resolve, reject) => {
    jwt.verify(token, getKey as jwt.GetPublicKeyOrSecret, options, (err, decoded) => {
      if (err) return reject(new TokenError(err.message, err.name === 'TokenExpiredError'));
      const payload = decoded as JwtPayload;
      if (typeof payload.exp !== 'number') return reject(new TokenError('token has no expiry (exp)'));
      resolve(payload);
    });
  });
}
