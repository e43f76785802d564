import { stringification, types } from '@aas-core-works/aas-core3.0-typescript';

/**
 * A faster reading of the common shapes of a submodel into the metamodel library's instances, in place of the
 * library's `jsonization` (whose generic reading takes about as long as the verification itself: a DCC of 1,000
 * quantities is some 9,000 elements). It reads exactly what `jsonization.submodelFromJsonable` reads, for a subset:
 * a Submodel and its Property, MultiLanguageProperty, File, SubmodelElementCollection and SubmodelElementList
 * elements, with idShort, semanticId, description, displayName, qualifiers, values; references of one or more keys.
 * Everything else (another element type, an attribute it does not take, a value of another JSON type, an empty
 * array, an unknown enumeration literal) makes it answer `null`, and the caller reads the document with the library
 * instead, which reports what is wrong. So what it returns is the instance the library would have read, and:
 * - the verification (`verification.verify`) still runs on it in full: what is stored passes the same constraints;
 * - no property goes unread: every key of every object is one it took, so the canonical serialization
 *   (`jsonization.toJsonable`) holds every property sent, with the same value (strings as they are, enumerations
 *   through the library's own literal tables both ways), and there is nothing stray to report.
 */

type Json = Record<string, unknown>;

/** Thrown inside to give up; never leaves this module. */
const OUTSIDE = Symbol('outside the subset');

function fail(): never {
  throw OUTSIDE;
}

const isObject = (value: unknown): value is Json => value !== null && typeof value === 'object' && !Array.isArray(value);

function object(value: unknown, allowed: ReadonlySet<string>): Json {
  if (!isObject(value)) fail();
  for (const key in value) if (!allowed.has(key)) fail();
  return value;
}

function string(value: unknown): string {
  if (typeof value !== 'string') fail();
  return value;
}

const optionalString = (value: unknown): string | null => (value === undefined ? null : string(value));

/** A non-empty array read item by item (an empty one is left to the library, whose verification judges it). */
function array<T>(value: unknown, read: (item: unknown) => T): T[] {
  if (!Array.isArray(value) || value.length === 0) fail();
  return value.map(read);
}

function optionalArray<T>(value: unknown, read: (item: unknown) => T): T[] | null {
  return value === undefined ? null : array(value, read);
}

function literal<T>(value: unknown, fromString: (text: string) => T | null): T {
  const found = fromString(string(value));
  if (found === null) fail();
  return found;
}

const KEY = new Set(['type', 'value']);
const REFERENCE = new Set(['type', 'keys']);
const LANG = new Set(['language', 'text']);
const QUALIFIER = new Set(['type', 'valueType', 'value', 'semanticId', 'kind']);

function key(value: unknown): types.Key {
  const json = object(value, KEY);
  return new types.Key(literal(json.type, stringification.keyTypesFromString), string(json.value));
}

function reference(value: unknown): types.Reference {
  const json = object(value, REFERENCE);
  return new types.Reference(literal(json.type, stringification.referenceTypesFromString), array(json.keys, key));
}

const optionalReference = (value: unknown) => (value === undefined ? null : reference(value));

function langText(value: unknown): types.LangStringTextType {
  const json = object(value, LANG);
  return new types.LangStringTextType(string(json.language), string(json.text));
}

function langName(value: unknown): types.LangStringNameType {
  const json = object(value, LANG);
  return new types.LangStringNameType(string(json.language), string(json.text));
}

function qualifier(value: unknown): types.Qualifier {
  const json = object(value, QUALIFIER);
  return new types.Qualifier(
    string(json.type),
    literal(json.valueType, stringification.dataTypeDefXsdFromString),
    optionalReference(json.semanticId),
    null,
    json.kind === undefined ? null : literal(json.kind, stringification.qualifierKindFromString),
    optionalString(json.value),
  );
}

/** The attributes every element of the subset may have (Referable and HasSemantics, Qualifiable). */
const COMMON = ['modelType', 'idShort', 'category', 'displayName', 'description', 'semanticId', 'qualifiers'];
const PROPERTY = new Set([...COMMON, 'valueType', 'value']);
const MULTI_LANGUAGE = new Set([...COMMON, 'value']);
const FILE = new Set([...COMMON, 'contentType', 'value']);
const COLLECTION = new Set([...COMMON, 'value']);
const LIST = new Set([...COMMON, 'orderRelevant', 'semanticIdListElement', 'typeValueListElement', 'valueTypeListElement', 'value']);
const SUBMODEL = new Set(['modelType', 'id', 'idShort', 'category', 'displayName', 'description', 'kind', 'semanticId', 'qualifiers', 'submodelElements']);

/** The arguments the element constructors share, after `extensions`: category ... embeddedDataSpecifications. */
function common(json: Json) {
  return [
    optionalString(json.category),
    optionalString(json.idShort),
    optionalArray(json.displayName, langName),
    optionalArray(json.description, langText),
    optionalReference(json.semanticId),
    null,
    optionalArray(json.qualifiers, qualifier),
    null,
  ] as const;
}

function element(value: unknown): types.ISubmodelElement {
  if (!isObject(value)) fail();
  switch (value.modelType) {
    case 'Property': {
      const json = object(value, PROPERTY);
      return new types.Property(literal(json.valueType, stringification.dataTypeDefXsdFromString), null, ...common(json), optionalString(json.value));
    }
    case 'MultiLanguageProperty': {
      const json = object(value, MULTI_LANGUAGE);
      return new types.MultiLanguageProperty(null, ...common(json), optionalArray(json.value, langText));
    }
    case 'File': {
      const json = object(value, FILE);
      return new types.File(string(json.contentType), null, ...common(json), optionalString(json.value));
    }
    case 'SubmodelElementCollection': {
      const json = object(value, COLLECTION);
      return new types.SubmodelElementCollection(null, ...common(json), optionalArray(json.value, element));
    }
    case 'SubmodelElementList': {
      const json = object(value, LIST);
      if (json.orderRelevant !== undefined && typeof json.orderRelevant !== 'boolean') fail();
      return new types.SubmodelElementList(
        literal(json.typeValueListElement, stringification.aasSubmodelElementsFromString),
        null,
        ...common(json),
        (json.orderRelevant as boolean | undefined) ?? null,
        optionalReference(json.semanticIdListElement),
        json.valueTypeListElement === undefined ? null : literal(json.valueTypeListElement, stringification.dataTypeDefXsdFromString),
        optionalArray(json.value, element),
      );
    }
    default:
      fail();
  }
}

/** The Submodel `json` as the library would read it, or null when it is outside the subset (read it with the library). */
export function readSubmodelDirectly(json: unknown): types.Submodel | null {
  try {
    const head = object(json, SUBMODEL);
    if (head.modelType !== 'Submodel') return null;
    return new types.Submodel(
      string(head.id),
      null,
      optionalString(head.category),
      optionalString(head.idShort),
      optionalArray(head.displayName, langName),
      optionalArray(head.description, langText),
      null,
      head.kind === undefined ? null : literal(head.kind, stringification.modellingKindFromString),
      optionalReference(head.semanticId),
      null,
      optionalArray(head.qualifiers, qualifier),
      null,
      optionalArray(head.submodelElements, element),
    );
  } catch (err) {
    if (err === OUTSIDE) return null;
    throw err;
  }
}
