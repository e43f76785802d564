/** The V2.0 → V3.0 renames of value types and IEC 61360 data types (src/aas/xml/v2.ts). */

/** The data specification template V3.0 names for IEC 61360 content, whatever V2 called it. */
export const V3_IEC61360_TEMPLATE = 'https://admin-shell.io/DataSpecificationTemplates/DataSpecificationIec61360/3/0';

/** The XSD types V3.0 allows as value types (DataTypeDefXsd), without the xs: prefix. */
const V3_VALUE_TYPES = [
  'anyURI', 'base64Binary', 'boolean', 'byte', 'date', 'dateTime', 'decimal', 'double', 'duration', 'float', 'gDay',
  'gMonth', 'gMonthDay', 'gYear', 'gYearMonth', 'hexBinary', 'int', 'integer', 'long', 'negativeInteger',
  'nonNegativeInteger', 'nonPositiveInteger', 'positiveInteger', 'short', 'string', 'time', 'unsignedByte',
  'unsignedInt', 'unsignedLong', 'unsignedShort',
];
const BY_LOWER_CASE = new Map(V3_VALUE_TYPES.map((t) => [t.toLowerCase(), t]));

/** V2.0 value types (its dataTypeDef list) that V3.0 no longer has, and the nearest V3.0 type. */
const NEAREST: Record<string, string> = {
  datetimestamp: 'dateTime',
  daytimeduration: 'duration',
  yearmonthduration: 'duration',
  normalizedstring: 'string',
  token: 'string',
  language: 'string',
  name: 'string',
  ncname: 'string',
  nmtoken: 'string',
  nmtokens: 'string',
  id: 'string',
  idref: 'string',
  idrefs: 'string',
  entity: 'string',
  entities: 'string',
  qname: 'string',
  notation: 'string',
  langstring: 'string',
  anytype: 'string',
  anysimpletype: 'string',
};

/**
 * The V3.0 value type of a V2 one: V2 writes plain names (`string`, `int`, `dateTime`), sometimes prefixed
 * (`xs:`, `xsd:`) and in any case. `note` says what changed when the type was not a V3.0 type as it stands.
 */
export function valueTypeOf(v2: string): { valueType: string; note?: string } {
  const bare = v2.replace(/^(xs|xsd):/i, '');
  const exact = BY_LOWER_CASE.get(bare.toLowerCase());
  if (exact) return { valueType: `xs:${exact}` };
  const nearest = NEAREST[bare.toLowerCase()];
  if (nearest) return { valueType: `xs:${nearest}`, note: `value type '${v2}' is no V3.0 value type: xs:${nearest}` };
  if (!v2) return { valueType: 'xs:string', note: 'no value type: xs:string' };
  return { valueType: 'xs:string', note: `value type '${v2}' unknown: xs:string` };
}

/** V2.0 IEC 61360 data types and their V3.0 names (the same but for URL and INTEGER). */
export const V2_DATA_TYPES_IEC61360: Record<string, string> = {
  DATE: 'DATE',
  STRING: 'STRING',
  STRING_TRANSLATABLE: 'STRING_TRANSLATABLE',
  INTEGER_MEASURE: 'INTEGER_MEASURE',
  INTEGER_COUNT: 'INTEGER_COUNT',
  INTEGER_CURRENCY: 'INTEGER_CURRENCY',
  REAL_MEASURE: 'REAL_MEASURE',
  REAL_COUNT: 'REAL_COUNT',
  REAL_CURRENCY: 'REAL_CURRENCY',
  BOOLEAN: 'BOOLEAN',
  URL: 'IRI',
  RATIONAL: 'RATIONAL',
  RATIONAL_MEASURE: 'RATIONAL_MEASURE',
  TIME: 'TIME',
  TIMESTAMP: 'TIMESTAMP',
  INTEGER: 'INTEGER_COUNT',
};
