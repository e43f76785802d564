import { isUtf8 } from 'node:buffer';

const BASE64URL = /^[A-Za-z0-9_-]*={0,2}$/;
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
/** The bits of the last character that carry no data, by the unpadded length modulo 4 (2: four bits, 3: two). */
const STRAY_BITS = [0, 0, 0b1111, 0b11];

/**
 * Decodes a base64url identifier as the AAS API sends it in paths: with or without `=` padding.
 * Returns undefined for anything that is not canonical base64url of valid UTF-8, so callers answer 400.
 * It runs on every request that names an identifier (the hot reads too): one decode, no re-encoding to compare.
 */
export function decodeBase64Url(text: string): string | undefined {
  if (text.length === 0 || !BASE64URL.test(text)) return undefined;
  const unpadded = text.charCodeAt(text.length - 1) === 61 /* = */ ? text.replace(/=+$/, '') : text;
  const rest = unpadded.length % 4;
  if (rest === 1) return undefined;
  if (text.length !== unpadded.length && text.length % 4 !== 0) return undefined;
  // Non-canonical: stray bits set in the last character, which a decoder drops and an encoder never sets.
  if (rest && ALPHABET.indexOf(unpadded[unpadded.length - 1]) & STRAY_BITS[rest]) return undefined;
  const bytes = Buffer.from(unpadded, 'base64url');
  return isUtf8(bytes) ? bytes.toString('utf8') : undefined;
}

/**
 * Whether `text` is standard base64 (RFC 4648 §4, with `+` or `/`) of UTF-8 text, as a client that picked the
 * wrong alphabet sends an identifier: what base64url would have been, had it used `-` and `_`.
 */
export function isStandardBase64Text(text: string): boolean {
  if (!/[+/]/.test(text) || /[-_]/.test(text)) return false;
  return decodeBase64Url(text.replace(/\+/g, '-').replace(/\//g, '_')) !== undefined;
}

/** Encodes without padding, as the AAS API recommends for path segments. */
export function encodeBase64Url(text: string): string {
  return Buffer.from(text, 'utf8').toString('base64url');
}
