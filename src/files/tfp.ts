import { decodeBase64Url } from '../common/base64url';

/**
 * Service file paths (tfp): `file:/sphere/{tenant}/{documentId}/{fileName}`, a file URI (RFC 8089, no authority)
 * with the static part `sphere`, the tenant's name, a UUID the service draws for each upload, and the file name
 * percent-encoded as one path segment (`encodeURIComponent`). Only the service makes them; one names a file of
 * its own tenant only.
 */
export const TFP_PREFIX = 'file:/sphere/';

export interface ParsedTfp {
  tenant: string;
  documentId: string;
  fileName: string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const TENANT = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

export function formatTfp(tenant: string, documentId: string, fileName: string): string {
  return `${TFP_PREFIX}${tenant}/${documentId}/${encodeURIComponent(fileName)}`;
}

/**
 * The parts of a tfp, or undefined when `value` is none (another scheme, a wrong shape, `..`, a bad escape).
 * `file:///sphere/...` (empty authority) is the same URI and accepted too.
 */
export function parseTfp(value: string): ParsedTfp | undefined {
  const text = value.startsWith('file:///') ? `file:/${value.slice('file:///'.length)}` : value;
  if (!text.startsWith(TFP_PREFIX)) return undefined;
  const segments = text.slice(TFP_PREFIX.length).split('/');
  if (segments.length !== 3) return undefined;
  const [tenant, documentId, encodedName] = segments;
  if (!TENANT.test(tenant) || !UUID.test(documentId) || encodedName === '') return undefined;
  let fileName: string;
  try {
    fileName = decodeURIComponent(encodedName);
  } catch {
    return undefined;
  }
  if (!isFileName(fileName)) return undefined;
  return { tenant, documentId, fileName };
}

/**
 * A tfp as a path parameter: URL-encoded (`file%3A%2Fsphere%2F...`, which the router has decoded already) or
 * base64url-encoded like AAS identifiers (with or without padding). Undefined when it is neither.
 */
export function tfpFromPathParam(raw: string): string | undefined {
  if (/^file:/i.test(raw)) return raw;
  const decoded = decodeBase64Url(raw);
  return decoded !== undefined && /^file:/i.test(decoded) ? decoded : undefined;
}

/** A file name as stored: 1..255 characters, no path separators, no control characters, not `.` or `..`. */
export function isFileName(name: string): boolean {
  // eslint-disable-next-line no-control-regex
  return name.length > 0 && name.length <= 255 && name !== '.' && name !== '..' && !/[/\\\u0000-\u001f\u007f]/.test(name);
}

/** What an upload's file name becomes: its last path segment, control characters dropped, cut to 255 characters. */
export function cleanFileName(name: string | undefined): string {
  // eslint-disable-next-line no-control-regex
  const base = (name ?? '').split(/[/\\]/).pop()!.replace(/[\u0000-\u001f\u007f]/g, '').trim().slice(0, 255);
  return isFileName(base) ? base : 'file';
}
