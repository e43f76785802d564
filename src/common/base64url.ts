const BASE64URL = /^[A-Za-z0-9_-]*={0,2}$/;

/**
 * Decodes a base64url identifier as the AAS API sends it in paths: with or without `=` padding.
 * Returns undefined for anything that is not canonical base64url of valid UTF-8, so callers answer 400.
 */
export function decodeBase64Url(text: string): string | undefined {
  if (text.length === 0 || !BASE64URL.test(text)) return undefined;
  const unpadded = text.replace(/=+$/, '');
  if (unpadded.length % 4 === 1) return undefined;
  if (text.length !== unpadded.length && text.length % 4 !== 0) return undefined;
  const bytes = Buffer.from(unpadded, 'base64url');
  // Reject non-canonical encodings (stray bits in the last character) and invalid UTF-8.
  if (bytes.toString('base64url') !== unpadded) return undefined;
  const decoded = bytes.toString('utf8');
  if (!Buffer.from(decoded, 'utf8').equals(bytes)) return undefined;
  return decoded;
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
