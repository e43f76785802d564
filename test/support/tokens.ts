import { generateKeyPairSync, randomUUID } from 'node:crypto';
import http from 'node:http';
import { AddressInfo } from 'node:net';
import jwt from 'jsonwebtoken';

export interface TestIssuer {
  issuer: string;
  jwksUri: string;
  audience: string;
  /** A token signed with the issuer's published key. */
  sign(claims?: Record<string, unknown>, options?: jwt.SignOptions): string;
  /** A token with the same kid, issuer and audience, signed with a key the JWKS does not hold. */
  forge(claims?: Record<string, unknown>): string;
  /** How often the JWKS was requested so far. */
  jwksRequests(): number;
  /** Publishes a second key with a new kid, and returns a signer using it. */
  rotate(): (claims?: Record<string, unknown>) => string;
  /** Makes the JWKS endpoint answer 503 (true) or the keys again (false). */
  failJwks(failing: boolean): void;
  close(): Promise<void>;
}

/** A token issuer for tests: an RSA key pair and a JWKS endpoint on loopback. */
export async function startTestIssuer(audience = 'asset-platform'): Promise<TestIssuer> {
  const kid = randomUUID();
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const other = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const jwk = { ...publicKey.export({ format: 'jwk' }), kid, use: 'sig', alg: 'RS256' };
  const keys: object[] = [jwk];
  let requests = 0;
  let failing = false;
  const server = http.createServer((req, res) => {
    requests++;
    if (failing) {
      res.statusCode = 503;
      res.end();
      return;
    }
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ keys }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const issuer = `${base}/issuer`;
  // An option given as undefined (e.g. `expiresIn: undefined`) leaves that claim out of the token.
  const defaults = (options?: jwt.SignOptions): jwt.SignOptions =>
    Object.fromEntries(
      Object.entries({ algorithm: 'RS256', keyid: kid, issuer, audience, subject: 'test-user', expiresIn: 300, ...options }).filter(
        ([, value]) => value !== undefined,
      ),
    ) as jwt.SignOptions;
  return {
    issuer,
    jwksUri: `${base}/jwks.json`,
    audience,
    sign: (claims = {}, options) => jwt.sign(claims, privateKey, defaults(options)),
    forge: (claims = {}) => jwt.sign(claims, other.privateKey, defaults()),
    jwksRequests: () => requests,
    rotate() {
      const rotated = generateKeyPairSync('rsa', { modulusLength: 2048 });
      const newKid = randomUUID();
      keys.push({ ...rotated.publicKey.export({ format: 'jwk' }), kid: newKid, use: 'sig', alg: 'RS256' });
      return (claims = {}) => jwt.sign(claims, rotated.privateKey, { ...defaults(), keyid: newKid });
    },
    failJwks(on) {
      failing = on;
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
