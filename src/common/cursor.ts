import { decodeBase64Url, encodeBase64Url } from './base64url';

export const MIN_LIMIT = 1;
export const MAX_LIMIT = 250;
export const DEFAULT_LIMIT = 100;

/**
 * Keyset cursors: an opaque base64url of `[listName, lastKey]`. The list name binds a cursor to the listing
 * that issued it, so a cursor from one list is not silently accepted by another.
 */
export function encodeCursor(list: string, key: string | number): string {
  return encodeBase64Url(JSON.stringify([list, key]));
}

/** The last key of the previous page, or undefined when the cursor is not one this server issued for `list`. */
export function decodeCursor(list: string, cursor: string): string | number | undefined {
  const text = decodeBase64Url(cursor);
  if (text === undefined) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!Array.isArray(parsed) || parsed.length !== 2 || parsed[0] !== list) return undefined;
  const key = parsed[1];
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
