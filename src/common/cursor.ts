import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes } from 'node:crypto';

export const MIN_LIMIT = 1;
export const MAX_LIMIT = 250;
export const DEFAULT_LIMIT = 100;

const IV_BYTES = 12;
const TAG_BYTES = 16;
const CURSOR_SHAPE = /^[A-Za-z0-9_-]+$/;

/**
 * The keys that seal cursors. The server sets them at start from a secret kept in the database (`useCursorSecret`), so
 * every replica reads the others' cursors and a restart keeps them valid. Code that pages without a server (tools,
 * tests of a single service) seals with a key of its own process.
 */
let keys = keysOf(randomBytes(32));

/** Derives the cursor keys from the server's shared secret (at start, before any request). */
export function useCursorSecret(secret: Buffer): void {
  keys = keysOf(secret);
}

function keysOf(secret: Buffer): { seal: Buffer; iv: Buffer } {
  const derive = (info: string) => Buffer.from(hkdfSync('sha256', secret, Buffer.alloc(0), info, 32));
  return { seal: derive('asset-platform keyset cursor'), iv: derive('asset-platform keyset cursor iv') };
}

/**
 * The name a cursor is bound to: the list (`name`) and everything that selects its rows (tenant, owner, filter).
 * A cursor of one list is refused by every other, another tenant's or another filter's included.
 */
export function cursorList(name: string, ...selection: unknown[]): string {
  // An absent filter is absent, however it was passed (left out, undefined or null). The replacer that drops nulls
  // is called for every value (a query of hundreds of conditions: thousands), so it runs only where a null may be.
  const plain = JSON.stringify([name, ...selection]);
  return plain.includes('null') ? JSON.stringify([name, ...selection], (_key, value: unknown) => (value === null ? undefined : value)) : plain;
}

/**
 * Keyset cursors: the last key of a page, sealed with AES-256-GCM under the server's key, the list it belongs to
 * (`cursorList`) as the authenticated data. A client can neither read the key (an insertion number shared by all
 * tenants) nor make up a cursor, nor use one on a list other than the one that issued it.
 */
export function encodeCursor(list: string, key: string | number): string {
  const text = JSON.stringify(key);
  // The nonce is a MAC of what is sealed (as in SIV): the same page of the same list has the same cursor (a cached
  // answer and a fresh one are the same bytes), and a nonce never seals two different texts.
  const iv = createHmac('sha256', keys.iv).update(list).update('\u0000').update(text).digest().subarray(0, IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', keys.seal, iv);
  cipher.setAAD(Buffer.from(list, 'utf8'));
  const sealed = Buffer.concat([cipher.update(text, 'utf8'), cipher.final()]);
  return Buffer.concat([iv, sealed, cipher.getAuthTag()]).toString('base64url');
}

/** The last key of the previous page, or undefined when the cursor is not one this server issued for `list`. */
export function decodeCursor(list: string, cursor: string): string | number | undefined {
  if (cursor.length > 4096 || !CURSOR_SHAPE.test(cursor)) return undefined;
  const bytes = Buffer.from(cursor, 'base64url');
  if (bytes.length <= IV_BYTES + TAG_BYTES) return undefined;
  let text: string;
  try {
    const decipher = createDecipheriv('aes-256-gcm', keys.seal, bytes.subarray(0, IV_BYTES));
    decipher.setAAD(Buffer.from(list, 'utf8'));
    decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
    text = Buffer.concat([decipher.update(bytes.subarray(IV_BYTES, bytes.length - TAG_BYTES)), decipher.final()]).toString('utf8');
  } catch {
    return undefined; // not sealed with this key for this list
  }
  let key: unknown;
  try {
    key = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof key === 'number' && Number.isSafeInteger(key) && key >= 0) return key;
  if (typeof key === 'string' && key.length > 0) return key;
  return undefined;
}

/** Checks a page size: 1..250, never silently clamped. Returns an error text, or undefined when fine. */
export function checkLimit(limit: number): string | undefined {
  if (!Number.isInteger(limit) || limit < MIN_LIMIT || limit > MAX_LIMIT) {
    return `limit must be an integer from ${MIN_LIMIT} to ${MAX_LIMIT}`;
  }
  return undefined;
}
