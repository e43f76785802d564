import { AppError, badRequest } from '../../graphql/errors';
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

/** The filter key of a Reference a client gave as filter `name` (verified first: a malformed one is a 400). */
export function referenceKeyOf(ref: JsonObject | null | undefined, name: string): string | undefined {
  if (ref == null) return undefined;
  try {
    return referenceKey(parseReference(ref));
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    const messages = ((err.extensions.messages ?? [err.message]) as string[]).map((m) => `${name}: ${m}`);
    throw badRequest(messages[0], messages);
  }
}
