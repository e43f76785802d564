import { badRequest } from '../../graphql/errors';

/** What a dictionary is imported from. */
export type DictionaryFormat = 'aas-json' | 'aas-xml' | 'aasx' | 'eclass-csv';
export const DICTIONARY_FORMATS: readonly DictionaryFormat[] = ['aas-json', 'aas-xml', 'aasx', 'eclass-csv'];

/** A language-tagged text, as AAS writes them. */
export interface LangText {
  language: string;
  text: string;
}

/** What a dictionary entry or a concept description says a concept is (IEC 61360 data specification). */
export interface Meaning {
  preferredName: LangText[];
  shortName: LangText[];
  definition: LangText[];
  unit: string | null;
  unitId: string | null;
  symbol: string | null;
  dataType: string | null;
  valueList: { value: string; valueId: string | null }[];
}

/** One concept of an imported dictionary: its id as written, what it means, the ids it is a case of. */
export interface DictionaryEntry {
  conceptId: string;
  meaning: Meaning;
  isCaseOf: string[];
}

/** Longest text kept of a name, definition or unit; a longer one is cut (the dictionary is reference data, not a document). */
const MAX_TEXT = 4096;
/** Longest concept id: as an AAS Identifier. */
export const MAX_ID = 2000;

const clip = (text: string) => (text.length > MAX_TEXT ? text.slice(0, MAX_TEXT) : text);

function langTexts(value: unknown): LangText[] {
  if (!Array.isArray(value)) return [];
  const out: LangText[] = [];
  for (const item of value) {
    if (item && typeof item === 'object' && typeof (item as LangText).text === 'string') {
      out.push({ language: typeof (item as LangText).language === 'string' ? (item as LangText).language : '', text: clip((item as LangText).text) });
    }
  }
  return out;
}

const textOf = (value: unknown): string | null => (typeof value === 'string' && value.length > 0 ? clip(value) : null);

function referenceValues(ref: unknown): string[] {
  const keys = (ref as { keys?: unknown } | null)?.keys;
  if (!Array.isArray(keys)) return [];
  return keys.flatMap((key) => (typeof (key as { value?: unknown })?.value === 'string' ? [(key as { value: string }).value] : []));
}

/** The last key value of a reference (what a unitId or valueId names), or null. */
function referenceId(ref: unknown): string | null {
  const values = referenceValues(ref);
  return values.length ? clip(values[values.length - 1]) : null;
}

/** The empty meaning: a concept known by its id only. */
export function emptyMeaning(): Meaning {
  return { preferredName: [], shortName: [], definition: [], unit: null, unitId: null, symbol: null, dataType: null, valueList: [] };
}

/**
 * The meaning of a concept description: the content of its first IEC 61360 data specification (preferred name,
 * short name, definition, unit, unit id, symbol, data type, value list); a concept description without one has only
 * its displayName and description, taken as preferred name and definition.
 */
export function meaningOfConceptDescription(doc: Record<string, unknown>): Meaning {
  const meaning = emptyMeaning();
  const specs = Array.isArray(doc.embeddedDataSpecifications) ? doc.embeddedDataSpecifications : [];
  const iec = specs
    .map((spec) => (spec as { dataSpecificationContent?: Record<string, unknown> })?.dataSpecificationContent)
    .find((content) => content?.modelType === 'DataSpecificationIec61360');
  if (iec) {
    meaning.preferredName = langTexts(iec.preferredName);
    meaning.shortName = langTexts(iec.shortName);
    meaning.definition = langTexts(iec.definition);
    meaning.unit = textOf(iec.unit);
    meaning.unitId = referenceId(iec.unitId);
    meaning.symbol = textOf(iec.symbol);
    meaning.dataType = textOf(iec.dataType);
    const pairs = (iec.valueList as { valueReferencePairs?: unknown } | undefined)?.valueReferencePairs;
    if (Array.isArray(pairs)) {
      for (const pair of pairs) {
        const value = (pair as { value?: unknown })?.value;
        if (typeof value === 'string') meaning.valueList.push({ value: clip(value), valueId: referenceId((pair as { valueId?: unknown }).valueId) });
      }
    }
  }
  if (!meaning.preferredName.length) meaning.preferredName = langTexts(doc.displayName);
  if (!meaning.definition.length) meaning.definition = langTexts(doc.description);
  return meaning;
}

/** The entries of an environment's concept descriptions (the dictionary import of AAS JSON, XML or AASX). */
export function entriesOfEnvironment(environment: unknown): DictionaryEntry[] {
  if (!environment || typeof environment !== 'object' || Array.isArray(environment)) throw badRequest('The document is not an AAS environment (a JSON object).');
  const list = (environment as { conceptDescriptions?: unknown }).conceptDescriptions;
  if (list === undefined) return [];
  if (!Array.isArray(list)) throw badRequest('conceptDescriptions of the environment is not a list.');
  const entries: DictionaryEntry[] = [];
  list.forEach((cd, i) => {
    const id = (cd as { id?: unknown } | null)?.id;
    if (typeof id !== 'string' || id.trim() === '') throw badRequest(`conceptDescriptions[${i}] has no id.`);
    if (id.length > MAX_ID) throw badRequest(`conceptDescriptions[${i}]: the id is longer than ${MAX_ID} characters.`);
    const doc = cd as Record<string, unknown>;
    const isCaseOf = Array.isArray(doc.isCaseOf) ? doc.isCaseOf.flatMap(referenceValues) : [];
    entries.push({ conceptId: id, meaning: meaningOfConceptDescription(doc), isCaseOf });
  });
  return entries;
}

/**
 * The entries of an ECLASS Basic CSV property table (`eClass{release}_PR_{language}.csv`): UTF-8, one record per
 * line, fields separated by `;` (ECLASS uses the semicolon as a separator only, never inside a field), the first line
 * the field titles. Columns are found by title, in any order: `IrdiPR` (required: the property's IRDI), and, where
 * present, `PreferredName`, `ShortName`, `Definition`, `ISOLanguageCode` (the language of the texts; absent: `en`),
 * `DataType`, `IrdiUN` (the unit's IRDI) and `PreferredSymbol`. Other columns are ignored. A line with another number
 * of fields than the titles, or without an IRDI, is a 400 naming the line.
 */
export function entriesOfEclassCsv(text: string): DictionaryEntry[] {
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  while (lines.length && lines[lines.length - 1] === '') lines.pop();
  if (!lines.length) throw badRequest('The CSV is empty: the first line must hold the field titles.');
  const titles = lines[0].split(';').map((t) => t.trim());
  const column = (name: string) => titles.findIndex((t) => t.toLowerCase() === name.toLowerCase());
  const irdi = column('IrdiPR');
  if (irdi < 0) throw badRequest(`The CSV has no column IrdiPR (its field titles: ${titles.slice(0, 30).join(', ').slice(0, 500)}).`);
  const [name, shortName, definition, language, dataType, unitId, symbol] = ['PreferredName', 'ShortName', 'Definition', 'ISOLanguageCode', 'DataType', 'IrdiUN', 'PreferredSymbol'].map(column);
  const entries: DictionaryEntry[] = [];
  for (let n = 1; n < lines.length; n++) {
    if (lines[n] === '') continue;
    const fields = lines[n].split(';');
    if (fields.length !== titles.length) throw badRequest(`CSV line ${n + 1}: ${fields.length} fields, the titles name ${titles.length}.`);
    const field = (i: number) => (i < 0 ? '' : fields[i].trim());
    const id = field(irdi);
    if (!id) throw badRequest(`CSV line ${n + 1}: IrdiPR is empty.`);
    if (id.length > MAX_ID) throw badRequest(`CSV line ${n + 1}: IrdiPR is longer than ${MAX_ID} characters.`);
    const lang = field(language) || 'en';
    const texts = (i: number): LangText[] => (field(i) ? [{ language: lang, text: clip(field(i)) }] : []);
    entries.push({
      conceptId: id,
      meaning: { ...emptyMeaning(), preferredName: texts(name), shortName: texts(shortName), definition: texts(definition), dataType: textOf(field(dataType)), unitId: textOf(field(unitId)), symbol: textOf(field(symbol)) },
      isCaseOf: [],
    });
  }
  return entries;
}

/** The text the search looks in: the id, every name and definition, lower-cased. */
export function searchTextOf(entry: DictionaryEntry): string {
  const { meaning } = entry;
  return [entry.conceptId, ...meaning.preferredName.map((t) => t.text), ...meaning.shortName.map((t) => t.text), ...meaning.definition.map((t) => t.text)].join('\n').toLowerCase();
}
