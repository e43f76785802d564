import { JsonObject, parseReference } from './parse';

/**
 * Canonical text keys of references, for the `text[]` filter columns: `ref:` + the reference's type and keys
 * (so two equal references give one key whatever else they carry), and `value:` + each key's value (so a
 * filter may give just a semantic id's value, as the API's `semanticId` parameter describes).
 */
export function referenceKey(ref: JsonObject): string {
  const keys = (ref.keys as { type: string; value: string }[]).map(({ type, value }) => [type, value]);
  return `ref:${JSON.stringify([ref.type, keys])}`;
}

export function valueKey(value: string): string {
  return `value:${value}`;
}

/** The filter keys of one reference: its canonical key and its key values. */
export function referenceFilterKeys(ref: JsonObject | undefined): string[] {
  if (!ref) return [];
  return [referenceKey(ref), ...(ref.keys as { value: string }[]).map((key) => valueKey(key.value))];
}

/** The filter key of a Reference a client gave (verified first: a malformed one is a 400). */
export function referenceKeyOf(ref: JsonObject | null | undefined): string | undefined {
  return ref == null ? undefined : referenceKey(parseReference(ref));
}
