/**
 * The equivalence key of a semantic id, as the SQL function `semantic_norm` of the migration SemanticConnector
 * computes it (the indexes hold that one; this one spares a round trip for the ids a request names, and a test holds
 * the two together over a corpus of spellings):
 * - the ECLASS IRI form `https://api.eclass-cdp.com/0173-1-02-AAO677-002` (host and letters in any case, version
 *   optional): `irdi:0173-1#02-AAO677`;
 * - the ISO 29002-5 long form of an ECLASS IRDI `0173/1///02#AAO677#002`: `irdi:0173-1#02-AAO677`;
 * - an IRDI (four digits, `-` or `/`, then `RAI#DI` and an optional `#VI`, no blanks): `irdi:` + `RAI#DI`, ASCII
 *   letters upper-cased;
 * - anything else: the id itself. Blanks (space, tab, CR, LF) around the id are dropped first, and `urn:irdi:` (any
 *   case) before an IRDI.
 */
const ECLASS_IRI = /^https?:\/\/api\.eclass-cdp\.com\/0173-1-([0-9A-Z]{2})-([0-9A-Z]{6})(-[0-9]{1,3})?\/?$/i;
const ECLASS_LONG = /^0173\/1\/\/\/([0-9A-Za-z]{2})#([^# \t\n\r\f\v]+)(#[^# \t\n\r\f\v]*)?$/;
const IRDI = /^[0-9]{4}[-/][^# \t\n\r\f\v]*#[^# \t\n\r\f\v]+(#[^# \t\n\r\f\v]*)?$/;
/** ASCII letters only, as the SQL's `translate` (`upper` would follow the collation). */
const upper = (text: string) => text.replace(/[a-z]+/g, (letters) => letters.toUpperCase());

export function semanticKey(id: string): string {
  const t = id.replace(/^[ \t\r\n]+|[ \t\r\n]+$/g, '');
  const u = /^urn:irdi:/i.test(t) ? t.slice(9) : t;
  const iri = ECLASS_IRI.exec(u);
  if (iri) return `irdi:0173-1#${upper(`${iri[1]}-${iri[2]}`)}`;
  const long = ECLASS_LONG.exec(u);
  if (long) return `irdi:0173-1#${upper(`${long[1]}-${long[2]}`)}`;
  if (IRDI.test(u)) return `irdi:${upper(/^([^#]+#[^#]+)/.exec(u)![1])}`;
  return t;
}
