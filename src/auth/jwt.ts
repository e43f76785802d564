import jwt, { Algorithm, JwtHeader, JwtPayload } from 'jsonwebtoken';
import { JwksClient } from 'jwks-rsa';
import { AuthConfig } from '../config';
import { Principal } from './principal';
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

/**
 * Verifies bearer JWTs against the configured issuer's JWKS: exact issuer and audience, a fixed list of
 * asymmetric algorithms, expiry with a small clock tolerance. Keys come from `SigningKeys`.
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
  // jwks-rsa fetches and converts the key set; which keys are known, and when to fetch again, is SigningKeys' rule.
  const keys = new SigningKeys(new JwksClient({ jwksUri, cache: false, rateLimit: false, timeout: 5_000 }));
  const getKey = (header: JwtHeader, callback: (err: Error | null, key?: string) => void) => {
    if (!header.kid) return callback(new TokenError('token header has no kid'));
    keys.get(header.kid).then(
      (key) => (key === undefined ? callback(new TokenError(`the issuer has no signing key ${header.kid}`)) : callback(null, key)),
      (err: Error) => callback(new TokenError(`the issuer's signing keys could not be fetched: ${err.message}`)),
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
          if (err) return reject(new TokenError(err.message, err.name === 'TokenExpiredError'));
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
