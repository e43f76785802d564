import { decodeBase64Url, isStandardBase64Text } from '../src/common/base64url';
import { badParam } from './facade-error';

export type Query = Record<string, string | string[] | undefined>;

/** The path parameters that hold base64url-encoded identifiers (AAS ids, package ids, tfps). */
export const IDENTIFIER_PARAMETERS: ReadonlySet<string> = new Set(['aasIdentifier', 'submodelIdentifier', 'cdIdentifier', 'packageId', 'tfp']);

/** Why an identifier in standard base64 is refused: the AAS API encodes path identifiers in base64url. */
export const standardBase64Message = (name: string) =>
  `Path parameter '${name}' is standard base64: path identifiers are base64url-encoded (RFC 4648 §5: '-' and '_' instead of '+' and '/'; padding '=' is optional).`;

/** A path identifier: base64url of the AAS id, with or without padding. */
export function idParam(name: string, raw: string): string {
  const id = decodeBase64Url(raw);
  if (id === undefined && isStandardBase64Text(raw)) throw badParam(standardBase64Message(name));
  if (id === undefined) throw badParam(`Path parameter '${name}' is not a base64url-encoded identifier (RFC 4648 §5).`);
  // AAS strings are XML-serializable: U+0000 can never be part of an identifier.
  if (id.includes('\u0000')) throw badParam(`Path parameter '${name}' decodes to an identifier with a NUL character.`);
  return id;
}

/** A query parameter given at most once; a repeated one is ambiguous and rejected. */
export function single(query: Query, name: string): string | undefined {
  const value = query[name];
  if (Array.isArray(value)) throw badParam(`Query parameter '${name}' must be given at most once.`);
  if (value?.includes('\u0000')) throw badParam(`Query parameter '${name}' contains a NUL character.`);
  return value;
}

/** A query parameter holding base64url-encoded text (a reference or a key value). */
export function base64Param(query: Query, name: string): string | undefined {
  const raw = single(query, name);
  if (raw === undefined) return undefined;
  const text = decodeBase64Url(raw);
  if (text === undefined || text === '') throw badParam(`Query parameter '${name}' is not base64url-encoded text.`);
  if (text.includes('\u0000')) throw badParam(`Query parameter '${name}' decodes to text with a NUL character.`);
  return text;
}

/** `limit`: digits only; the range (1..250) is the GraphQL core's rule. Absent means the core's default. */
export function limitParam(query: Query): number | undefined {
  const raw = single(query, 'limit');
  if (raw === undefined) return undefined;
  if (!/^\d{1,9}$/.test(raw)) throw badParam(`Query parameter 'limit' must be an integer from 1 to 250, got '${raw}'.`);
  return Number(raw);
}

export function cursorParam(query: Query): string | undefined {
  const raw = single(query, 'cursor');
  if (raw === '') throw badParam("Query parameter 'cursor' must not be empty.");
  return raw;
}

export function enumParam<T extends string>(query: Query, name: string, allowed: readonly T[]): T | undefined {
  const raw = single(query, name);
  if (raw === undefined) return undefined;
  if (!(allowed as readonly string[]).includes(raw)) {
    throw badParam(`Query parameter '${name}' must be one of ${allowed.join(', ')}, got '${raw}'.`);
  }
  return raw as T;
}

/**
 * `assetIds`: each a base64url-encoded JSON SpecificAssetId (`{"name": ..., "value": ...}`), given repeatedly
 * or comma-separated. A bare asset id value is not a SpecificAssetId and is rejected.
 */
export function assetIdsParam(query: Query): { name: string; value: string }[] | undefined {
  const raw = query.assetIds;
  if (raw === undefined) return undefined;
  const encoded = (Array.isArray(raw) ? raw : [raw]).flatMap((v) => v.split(',')).filter((v) => v !== '');
  return encoded.map((item) => {
    const text = decodeBase64Url(item);
    let parsed: unknown;
    try {
      parsed = text === undefined ? undefined : JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    const { name, value } = (parsed ?? {}) as { name?: unknown; value?: unknown };
    if (typeof name !== 'string' || typeof value !== 'string' || name === '' || value === '') {
      throw badParam("Each 'assetIds' entry must be a base64url-encoded JSON SpecificAssetId with a name and a value.");
    }
    return { name, value };
  });
}

/** `extent`: the spec's spelling (`withBlobValue`) or the platform's (`WithBLOBValue`), as the GraphQL enum. */
export function extentParam(query: Query): 'WithBLOBValue' | 'WithoutBLOBValue' | undefined {
  const raw = single(query, 'extent');
  if (raw === undefined) return undefined;
  if (raw === 'withBlobValue' || raw === 'WithBLOBValue') return 'WithBLOBValue';
  if (raw === 'withoutBlobValue' || raw === 'WithoutBLOBValue') return 'WithoutBLOBValue';
  throw badParam(`Query parameter 'extent' must be withBlobValue or withoutBlobValue, got '${raw}'.`);
}

/** `level`, already checked against the route's allowed values. */
export function levelParam(query: Query): 'deep' | 'core' | undefined {
  return single(query, 'level') as 'deep' | 'core' | undefined;
}
