/**
 * Entity tags of identifiables. A stored document's tag joins the row's insertion number and its version, so
 * a tag of a deleted and re-created identifiable never matches its successor.
 */
export function etagOf(seq: string | number, version: number): string {
  return `"${seq}-${version}"`;
}

/**
 * Whether an `If-Match` header admits the current tag (RFC 9110 §13.1.1): `*` admits any existing
 * representation; otherwise one of the listed tags must equal it under the strong comparison, so a weak tag
 * (`W/"..."`) never matches.
 */
export function ifMatchAdmits(header: string, current: string | null): boolean {
  if (current === null) return false;
  const value = header.trim();
  if (value === '*') return true;
  return splitTags(value).includes(current);
}

/**
 * The entity tags an `If-Match` header lists, as they are written (a weak one, `W/"..."`, equals no tag `etagOf`
 * makes); null for `*`, which admits any existing representation. For a write that compares them in SQL.
 */
export function ifMatchTags(header: string): string[] | null {
  const value = header.trim();
  return value === '*' ? null : splitTags(value);
}

/** The entity tags of a list header; commas inside quoted tags do not split. */
function splitTags(value: string): string[] {
  return value.match(/(?:W\/)?"[^"]*"/g) ?? [];
}
