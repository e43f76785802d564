import { badRequest } from '../../graphql/errors';
import { escapeLike } from './sql';

/**
 * The text filters of lists (`idShortStartsWith`, `displayNameContains`, ...): a value is matched as it is,
 * case-sensitively, by code point; `%`, `_` and `\` in it are literal characters. Case-sensitive because case
 * folding in PostgreSQL follows the database's locale (the embedded database and a server may fold differently),
 * and because identifiers compare exactly everywhere else.
 */

/** The longest filter text accepted unless a field says otherwise: an AAS Identifier's maximum length. */
export const MAX_FILTER_TEXT = 2_000;

/**
 * The value of the filter `name`, checked: absent (undefined or null) stays absent; empty, longer than `max`
 * characters, or holding U+0000 is a 400.
 */
export function filterText(name: string, value: string | null | undefined, max = MAX_FILTER_TEXT): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (value === '') throw badRequest(`The filter '${name}' must not be empty.`);
  if (value.length > max) throw badRequest(`The filter '${name}' is ${value.length} characters long; at most ${max} are allowed.`);
  if (value.includes('\u0000')) throw badRequest(`The filter '${name}' contains a NUL character.`);
  return value;
}

/** A LIKE pattern (backslash escapes) for texts that start with `text`. */
export const likePrefix = (text: string): string => `${escapeLike(text)}%`;

/** A LIKE pattern (backslash escapes) for texts that contain `text`. */
export const likeContains = (text: string): string => `%${escapeLike(text)}%`;

/** The first `n` characters of `text` as PostgreSQL's `left(text, n)` counts them: code points, not UTF-16 units. */
export function leftChars(text: string, n: number): string {
  const chars = Array.from(text);
  return chars.length <= n ? text : chars.slice(0, n).join('');
}

/** The text filters every identifiable list takes (shells, submodels). Absent and null mean "no condition". */
export interface IdentifiableTextFilter {
  idShortStartsWith?: string | null;
  idShortContains?: string | null;
  idStartsWith?: string | null;
  idContains?: string | null;
}

/** How many leading characters of an id the prefix indexes hold (`left(id, 256)`, migration FilterQueries). */
export const ID_PREFIX_INDEXED = 256;

/**
 * Conditions (SQL with one `?`) on the `id_short` and `id` columns of an identifiable table: prefixes through its
 * indexes (`id_short text_pattern_ops`, `left(id, 256) text_pattern_ops`), with the whole id compared as well
 * where the prefix is longer than the index holds; contains matches read the tenant's rows (no index). 400 for a bad value.
 */
export function identifiableTextConditions(filter: IdentifiableTextFilter): [sql: string, value: string][] {
  const conditions: [string, string][] = [];
  const idShortStartsWith = filterText('idShortStartsWith', filter.idShortStartsWith);
  const idShortContains = filterText('idShortContains', filter.idShortContains);
  const idStartsWith = filterText('idStartsWith', filter.idStartsWith);
  const idContains = filterText('idContains', filter.idContains);
  if (idShortStartsWith !== undefined) conditions.push(['id_short LIKE ?', likePrefix(idShortStartsWith)]);
  if (idShortContains !== undefined) conditions.push(['id_short LIKE ?', likeContains(idShortContains)]);
  if (idStartsWith !== undefined) {
    const indexed = leftChars(idStartsWith, ID_PREFIX_INDEXED);
    conditions.push([`left(id, ${ID_PREFIX_INDEXED}) LIKE ?`, likePrefix(indexed)]);
    if (indexed !== idStartsWith) conditions.push(['id LIKE ?', likePrefix(idStartsWith)]);
  }
  if (idContains !== undefined) conditions.push(['id LIKE ?', likeContains(idContains)]);
  return conditions;
}
