import { randomBytes, scrypt as scryptCb, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';

const scrypt = promisify(scryptCb) as (password: string, salt: Buffer, keylen: number, options: { N: number; r: number; p: number; maxmem: number }) => Promise<Buffer>;

/**
 * Slow hashes of passwords and client secrets: scrypt (N = 2^14, r = 8, p = 1: 16 MiB and tens of
 * milliseconds per check), stored as `scrypt$N$r$p$salt$hash` so the cost can be raised later without
 * invalidating stored hashes. The value itself is never stored.
 */
const N = 2 ** 14;
const R = 8;
const P = 1;
const KEY_LENGTH = 32;

export async function hashSecret(value: string): Promise<string> {
  const salt = randomBytes(16);
  const hash = await scrypt(value, salt, KEY_LENGTH, { N, r: R, p: P, maxmem: 64 * 1024 * 1024 });
  return `scrypt$${N}$${R}$${P}$${salt.toString('base64url')}$${hash.toString('base64url')}`;
}

export async function verifySecret(value: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64url');
  const actual = await scrypt(value, Buffer.from(salt, 'base64url'), expected.length, { N: Number(n), r: Number(r), p: Number(p), maxmem: 256 * 1024 * 1024 });
  return timingSafeEqual(actual, expected);
}

/** A new random secret or one-time password: 32 bytes of entropy, base64url (43 characters). */
export function newSecretValue(): string {
  return randomBytes(32).toString('base64url');
}
