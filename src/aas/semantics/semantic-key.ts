/**
 * The equivalence key of a semantic id, as the SQL function `semantic_norm` of the migration SemanticConnector
 * computes it (the indexes hold that one; this one spares a round trip for the ids a request names, and a test holds
 * the two together over a corpus of spellings):
 * - the ECLASS IRI form `https://api.eclass-cdp.com/0173-1-02-AAO677-002` (host and letters in any case, version
 *   optional): `irdi:0173-1#02-AAO677`;
 * - an IRDI (four digits, `-` or `/`, then `RAI#DI` and an optional `#VI`, no blanks): `irdi:` + `RAI#DI`, ASCII
 *   letters upper-cased;
 * - anything else: the id itself. Blanks (space, tab, CR, LF) around the id are dropped first.
 */
const ECLASS_IRI = /^https?:\/\/api\.eclass-cdp\.com\/0173-1-([0-9A-Z]{2})-([0-9A-Z]{6})(-[0-9]{1,3})?\/?$/i;
const IRDI = /^[0-9]{4}[-/][^# \t\n\r\f\v]*#[^# \t\n\r\f\v]+(#[^# \t\n\r\f\v]*)?$/;
/** ASCII letters only, as the SQL's `translate` (`upper` would follow the collation). */
const upper = (text: string) => text.replace(/[a-z]+/g, (letters) => letters.toUpperCase());

export function semanticKey(id: string): string {
  const t = id.replace(/^[ \t\r\n]+|[ \t\r\n]+$/g, '');
  const iri = ECLASS_IRI.exec(t);
  if (iri) return `irdi:0173-1#${upper(`${iri[1]}-${iri[2]}`)}`;
  if (IRDI.test(t)) return `irdi:${upper(/^([^#]+#[^#]+)/.exec(t)![1])}`;
  return t;
}
