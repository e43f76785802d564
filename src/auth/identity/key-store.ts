import { type JsonWebKey, KeyObject, createHmac, createPublicKey, generateKeyPair, hash } from 'node:crypto';
import { promisify } from 'node:util';
import { DataSource } from 'typeorm';

const generateRsa = promisify(generateKeyPair);

/** The algorithm of the identity service's signing keys. */
export const SIGNING_ALGORITHM = 'RS256';

/** A private RSA JWK as node:crypto exports it, with our kid, alg and use. */
export type PrivateJwk = JsonWebKey & { kid: string; alg: string; use: 'sig'; key_ops?: string[] };

export interface SigningKey {
  kid: string;
  privateJwk: PrivateJwk;
  publicKey: KeyObject;
  createdAt: Date;
  /** When it stopped signing; null for the current key. */
  retiredAt: Date | null;
}

interface KeyRow {
  kid: string;
  private_jwk: PrivateJwk;
  created_at: Date;
  retired_at: Date | null;
}

/** The RFC 7638 thumbprint of an RSA public key: its kid. */
function thumbprint(jwk: JsonWebKey): string {
  return hash('sha256', JSON.stringify({ e: jwk.e, kty: jwk.kty, n: jwk.n }), 'base64url');
}

/**
 * The identity service's signing keys, kept in `signing_keys` (private JWKs): one current key signs, retired keys
 * stay published (JWKS, in-process verification) for `publishRetiredSec` after their retirement, so every token
 * they signed expires before they disappear. The first start creates the first key; rotation adds a new current
 * key and retires the previous one. Several replicas share the table: whoever changes it holds a table lock,
 * and every replica reloads it (see IdentityService).
 */
export class SigningKeyStore {
  private keys: SigningKey[] = [];
  private fingerprint = '';

  constructor(
    private readonly dataSource: DataSource,
    private readonly publishRetiredSec: number,
  ) {}

  /** Loads the keys, creating the first one when there is none. */
  async init(): Promise<void> {
    await this.load();
    if (this.keys[0]?.retiredAt === null) return;
    const jwk = await newPrivateJwk();
    await this.dataSource.transaction(async (manager) => {
      await manager.query('LOCK TABLE signing_keys IN EXCLUSIVE MODE');
      const [current] = await manager.query('SELECT kid FROM signing_keys WHERE retired_at IS NULL LIMIT 1');
      if (!current) await manager.query('INSERT INTO signing_keys (kid, private_jwk) VALUES ($1, $2::jsonb)', [jwk.kid, JSON.stringify(jwk)]);
    });
    await this.load();
  }

  /**
   * Reads the keys again. Returns whether the set changed (another replica rotated, or a retired key's time
   * ran out), so the caller can rebuild what depends on it.
   */
  async load(): Promise<boolean> {
    const rows: KeyRow[] = await this.dataSource.query(
      `SELECT kid, private_jwk, created_at, retired_at FROM signing_keys
        WHERE retired_at IS NULL OR retired_at > now() - make_interval(secs => $1)
        ORDER BY retired_at DESC NULLS FIRST, created_at DESC`,
      [this.publishRetiredSec],
    );
    const fingerprint = rows.map((r) => `${r.kid}:${r.retired_at ? 'r' : 'c'}`).join(',');
    if (fingerprint === this.fingerprint) return false;
    // More than one unretired key can only be a rotation racing another: the newest signs, the others verify.
    let current = false;
    this.keys = rows.map((row) => {
      const retired = row.retired_at !== null || current;
      current ||= !retired;
      return {
        kid: row.kid,
        privateJwk: row.private_jwk,
        publicKey: createPublicKey({ key: row.private_jwk, format: 'jwk' }),
        createdAt: new Date(row.created_at),
        retiredAt: retired ? new Date(row.retired_at ?? row.created_at) : null,
      };
    });
    this.fingerprint = fingerprint;
    return true;
  }

  /** The key that signs new tokens. */
  current(): SigningKey {
    const key = this.keys[0];
    if (!key || key.retiredAt) throw new Error('the identity service has no current signing key (init() not run?)');
    return key;
  }

  /** The current key first, then the retired ones still published. */
  published(): readonly SigningKey[] {
    return this.keys;
  }

  publicKey(kid: string): KeyObject | undefined {
    return this.keys.find((k) => k.kid === kid)?.publicKey;
  }

  /**
   * A new current key; the previous one is retired (published for `publishRetiredSec` more), keys retired
   * before that window are deleted.
   */
  async rotate(): Promise<{ current: SigningKey; retired?: SigningKey; retiredPublishedUntil?: Date }> {
    const jwk = await newPrivateJwk();
    const retiredKid: string | undefined = await this.dataSource.transaction(async (manager) => {
      await manager.query('LOCK TABLE signing_keys IN EXCLUSIVE MODE');
      const retired: { kid: string }[] = await manager.query('SELECT kid FROM signing_keys WHERE retired_at IS NULL ORDER BY created_at DESC');
      await manager.query('UPDATE signing_keys SET retired_at = now() WHERE retired_at IS NULL');
      await manager.query('INSERT INTO signing_keys (kid, private_jwk) VALUES ($1, $2::jsonb)', [jwk.kid, JSON.stringify(jwk)]);
      await manager.query('DELETE FROM signing_keys WHERE retired_at < now() - make_interval(secs => $1)', [this.publishRetiredSec]);
      return retired[0]?.kid;
    });
    await this.load();
    const retired = this.keys.find((k) => k.kid === retiredKid);
    return {
      current: this.current(),
      retired,
      retiredPublishedUntil: retired?.retiredAt ? new Date(retired.retiredAt.getTime() + this.publishRetiredSec * 1000) : undefined,
    };
  }

  /** The keys as oidc-provider's `jwks` option takes them: retired ones may verify but never sign. */
  providerJwks(): { keys: PrivateJwk[] } {
    return {
      keys: this.keys.map((k) => (k.retiredAt ? { ...k.privateJwk, key_ops: ['verify'] } : { ...k.privateJwk })),
    };
  }

  /**
   * Keys for oidc-provider's signed cookies (login sessions), derived from the signing keys so that every
   * replica has the same without another secret to configure; the current key's first, so cookies signed
   * before a rotation still verify while the retired key is published.
   */
  cookieKeys(): string[] {
    return this.keys.map((k) => createHmac('sha256', String(k.privateJwk.d)).update('asset-platform oidc cookies').digest('base64url'));
  }
}

async function newPrivateJwk(): Promise<PrivateJwk> {
  const { privateKey } = await generateRsa('rsa', { modulusLength: 2048 });
  const jwk = privateKey.export({ format: 'jwk' });
  return { ...jwk, kid: thumbprint(jwk), alg: SIGNING_ALGORITHM, use: 'sig' };
}
