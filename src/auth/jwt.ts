import jwt, { Algorithm, JwtHeader, JwtPayload } from 'jsonwebtoken';
import { JwksClient } from 'jwks-rsa';
import { AuthConfig } from '../config';
import { Principal } from './principal';

export class TokenError extends Error {}

export interface TokenVerifier {
  verify(token: string): Promise<Principal>;
}

/**
 * Verifies bearer JWTs against the configured issuer's JWKS: exact issuer and audience, a fixed list of
 * asymmetric algorithms, expiry with a small clock tolerance. Keys are cached and rate-limited by jwks-rsa.
 */
export function createTokenVerifier(config: AuthConfig): TokenVerifier {
  const { issuer, jwksUri, audience } = config;
  if (!issuer || !jwksUri) {
    return {
      async verify() {
        throw new TokenError('no token issuer is configured on this server (AUTH_ISSUER)');
      },
    };
  }
  const client = new JwksClient({ jwksUri, cache: true, cacheMaxAge: 10 * 60_000, rateLimit: true, jwksRequestsPerMinute: 10, timeout: 5_000 });
  const getKey = (header: JwtHeader, callback: (err: Error | null, key?: string) => void) => {
    if (!header.kid) return callback(new TokenError('token header has no kid'));
    client.getSigningKey(header.kid).then(
      (key) => callback(null, key.getPublicKey()),
      (err: Error) => callback(new TokenError(`signing key ${header.kid} not found: ${err.message}`)),
    );
  };
  const options: jwt.VerifyOptions = {
    algorithms: config.algorithms as Algorithm[],
    issuer,
    audience,
    clockTolerance: config.clockToleranceSec,
  };
  return {
    verify(token: string) {
      return new Promise<Principal>((resolve, reject) => {
        jwt.verify(token, getKey, options, (err, decoded) => {
          if (err) return reject(new TokenError(err.message));
          const payload = decoded as JwtPayload;
          if (typeof payload.exp !== 'number') return reject(new TokenError('token has no expiry (exp)'));
          if (typeof payload.sub !== 'string' || payload.sub === '') return reject(new TokenError('token has no subject'));
          const roles = Array.isArray(payload.roles) ? payload.roles.filter((r): r is string => typeof r === 'string') : [];
          resolve({ subject: payload.sub, issuer: payload.iss ?? issuer, roles: new Set(roles) });
        });
      });
    },
  };
}
