import { common, jsonization, stringification, types, verification } from '@aas-core-works/aas-core3.0-typescript';
import { badRequest } from '../../graphql/errors';
import type { JsonObject } from '../model/parse';

/**
 * The ValueOnly serialization of AAS Part 2 (API V3.0): the values of submodel elements without their
 * metadata, in both directions, over the canonical JSON of the metamodel library.
 *
 * Reading is lossless: applying what was read to the same element gives that element back unchanged. Writing
 * can only change values; it never adds or removes elements. Inputs are never mutated and outputs share no
 * objects with them, so callers may change either freely.
 */

export interface ValueOptions {
  withBlobValue: boolean;
}

const WITH_VALUE = new Set([
  'Property',
  'MultiLanguageProperty',
  'Range',
  'ReferenceElement',
  'File',
  'Blob',
  'RelationshipElement',
  'AnnotatedRelationshipElement',
  'Entity',
  'BasicEventElement',
  'SubmodelElementCollection',
  'SubmodelElementList',
]);

const INTEGER_TYPES = new Set([
  'xs:integer',
  'xs:long',
  'xs:int',
  'xs:short',
  'xs:byte',
  'xs:nonNegativeInteger',
  'xs:positiveInteger',
  'xs:nonPositiveInteger',
  'xs:negativeInteger',
  'xs:unsignedLong',
  'xs:unsignedInt',
  'xs:unsignedShort',
  'xs:unsignedByte',
]);
const FRACTION_TYPES = new Set(['xs:decimal', 'xs:double', 'xs:float']);

/** Canonical padded base64; the library's decoder throws (not an error result) on lengths not a multiple of 4. */
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

const isObject = (value: unknown): value is JsonObject =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

const jsonKind = (value: unknown) =>
  value === null ? 'null' : Array.isArray(value) ? 'an array' : `a ${typeof value}`;

function fail(path: string, message: string): never {
  throw badRequest(`${path}: ${message}`);
}

/** References are the only nested objects reading passes through; copied so the output shares nothing. */
const copy = <T>(value: T): T => structuredClone(value);

const objects = (list: unknown): JsonObject[] => (Array.isArray(list) ? (list as JsonObject[]) : []);

/** Whether the element kind has a value-only form. */
export function hasValue(element: JsonObject): boolean {
  return WITH_VALUE.has(element.modelType as string);
}

// ---------------------------------------------------------------------------------------------------------------
// Reading

/**
 * A stored xs value as JSON: a number or boolean only where writing it back with `String(x)` gives the same
 * text, so the round trip is exact ("1.0", "007", "1e3", "NaN" and out-of-range integers stay strings).
 */
function typedValue(text: unknown, valueType: unknown): unknown {
  if (typeof text !== 'string') return null;
  if (valueType === 'xs:boolean') return text === 'true' ? true : text === 'false' ? false : text;
  const number = Number(text);
  const lossless = String(number) === text;
  if (INTEGER_TYPES.has(valueType as string) && lossless && Number.isSafeInteger(number)) return number;
  if (FRACTION_TYPES.has(valueType as string) && lossless && Number.isFinite(number)) return number;
  return text;
}

function childrenValue(children: unknown, options: ValueOptions): JsonObject {
  const result: JsonObject = {};
  for (const child of objects(children)) {
    if (hasValue(child) && typeof child.idShort === 'string') result[child.idShort] = elementValue(child, options);
  }
  return result;
}

/** Value-only form of one element; throws badRequest for kinds without one (Operation, Capability). */
export function elementValue(element: JsonObject, options: ValueOptions): unknown {
  switch (element.modelType) {
    case 'Property':
      return typedValue(element.value, element.valueType);
    case 'MultiLanguageProperty':
      // Always an array (MultiLanguagePropertyValue): no language strings is [], which writing takes back as "none".
      return objects(element.value).map((text) => ({ [text.language as string]: text.text }));
    case 'Range': {
      const range: JsonObject = {};
      if (typeof element.min === 'string') range.min = typedValue(element.min, element.valueType);
      if (typeof element.max === 'string') range.max = typedValue(element.max, element.valueType);
      return range;
    }
    case 'ReferenceElement':
      return element.value === undefined ? null : copy(element.value);
    case 'File':
      return { contentType: element.contentType, ...(element.value !== undefined && { value: element.value }) };
    case 'Blob':
      return {
        contentType: element.contentType,
        ...(options.withBlobValue && element.value !== undefined && { value: element.value }),
      };
    case 'RelationshipElement':
      return { first: copy(element.first), second: copy(element.second) };
    case 'AnnotatedRelationshipElement': {
      const annotations = objects(element.annotations).map((a) => ({
        [a.idShort as string]: elementValue(a, options),
      }));
      return { first: copy(element.first), second: copy(element.second), ...(annotations.length && { annotations }) };
    }
    case 'Entity': {
      const statements = childrenValue(element.statements, options);
      const ids = objects(element.specificAssetIds).map((id) => ({ [id.name as string]: id.value }));
      return {
        ...(Object.keys(statements).length && { statements }),
        entityType: element.entityType,
        ...(element.globalAssetId !== undefined && { globalAssetId: element.globalAssetId }),
        ...(ids.length && { specificAssetIds: ids }),
      };
    }
    case 'BasicEventElement':
      return { observed: copy(element.observed) };
    case 'SubmodelElementCollection':
      return childrenValue(element.value, options);
    case 'SubmodelElementList':
      // Positions must be kept, so a child without a value form holds null rather than disappearing.
      return objects(element.value).map((child) => (hasValue(child) ? elementValue(child, options) : null));
    default:
      throw badRequest(`The ${String(element.modelType)} '${String(element.idShort ?? '')}' has no value-only form.`);
  }
}

/** `{ idShort: value, ... }` of a submodel's submodelElements that have a value-only form. */
export function submodelValue(submodel: JsonObject, options: ValueOptions): JsonObject {
  return childrenValue(submodel.submodelElements, options);
}

// ---------------------------------------------------------------------------------------------------------------
// Writing: every helper below works on a private clone and mutates it in place.

function expectObject(value: unknown, path: string, keys?: string[]): JsonObject {
  if (!isObject(value)) fail(path, `expected an object, got ${jsonKind(value)}`);
  for (const key of Object.keys(value)) {
    if (keys && !keys.includes(key)) fail(`${path}.${key}`, `unexpected property (allowed: ${keys.join(', ')})`);
  }
  return value;
}

function expectArray(value: unknown, path: string): unknown[] {
  if (!Array.isArray(value)) fail(path, `expected an array, got ${jsonKind(value)}`);
  return value;
}

function expectString(value: unknown, path: string): string {
  if (typeof value !== 'string') fail(path, `expected a string, got ${jsonKind(value)}`);
  return value;
}

/** Sets `key` from `value`'s text form, or removes it for null: the value-only way to clear an optional value. */
function setPrimitive(target: JsonObject, key: string, value: unknown, path: string) {
  if (value === null) delete target[key];
  else if (['string', 'number', 'boolean'].includes(typeof value)) target[key] = String(value);
  else fail(path, `expected a string, number, boolean or null, got ${jsonKind(value)}`);
}

/** `{ "key": "text" }`, the value-only form of language strings and specific asset ids. */
function singleEntry(value: unknown, path: string): [string, string] {
  const entries = Object.entries(expectObject(value, path));
  if (entries.length !== 1) fail(path, `expected an object with exactly one property, got ${entries.length}`);
  const [key, text] = entries[0];
  return [key, expectString(text, `${path}.${key}`)];
}

/** The first property of `sent` that `canonical` lacks: the library silently drops properties it does not know. */
function strayProperty(sent: unknown, canonical: unknown, path: string): string | undefined {
  if (sent === null || typeof sent !== 'object') return undefined;
  for (const [key, inner] of Object.entries(sent)) {
    const innerPath = Array.isArray(sent) ? `${path}[${key}]` : `${path}.${key}`;
    if (!Object.hasOwn(canonical as object, key)) return innerPath;
    const stray = strayProperty(inner, (canonical as JsonObject)[key], innerPath);
    if (stray) return stray;
  }
  return undefined;
}

/** A Reference read by the metamodel library (enums and required keys checked), in its canonical JSON. */
function reference(value: unknown, path: string): JsonObject {
  expectObject(value, path);
  let parsed: ReturnType<typeof jsonization.referenceFromJsonable>;
  try {
    parsed = jsonization.referenceFromJsonable(value as jsonization.JsonValue);
  } catch {
    // The library recurses into referredSemanticId; absurd nesting overflows its stack.
    fail(path, 'not a valid reference (nested too deeply)');
  }
  if (parsed.error !== null) {
    const inner = parsed.error.path.toString();
    fail(inner ? (inner.startsWith('[') ? `${path}${inner}` : `${path}.${inner}`) : path, parsed.error.message);
  }
  const canonical = jsonization.toJsonable(parsed.mustValue());
  const stray = strayProperty(value, canonical, path);
  if (stray) fail(stray, 'unexpected property');
  return canonical;
}

/** Applies `{ idShort: value }` to `children`; value-only cannot add elements, so unknown idShorts are errors. */
function applyChildren(children: unknown, value: unknown, path: string) {
  const byIdShort = new Map(objects(children).map((child) => [child.idShort, child]));
  for (const [idShort, inner] of Object.entries(expectObject(value, path))) {
    const child = byIdShort.get(idShort);
    if (!child) fail(`${path}.${idShort}`, `there is no submodel element with idShort '${idShort}' here`);
    applyInto(child, inner, `${path}.${idShort}`);
  }
}

function applyAnnotations(element: JsonObject, value: unknown, path: string) {
  const byIdShort = new Map(objects(element.annotations).map((a) => [a.idShort, a]));
  const seen = new Set<string>();
  expectArray(value, path).forEach((item, i) => {
    const itemPath = `${path}[${i}]`;
    const entries = Object.entries(expectObject(item, itemPath));
    if (entries.length !== 1) fail(itemPath, `expected an object with exactly one property, got ${entries.length}`);
    const [idShort, inner] = entries[0];
    const annotation = byIdShort.get(idShort);
    if (!annotation) fail(`${itemPath}.${idShort}`, `there is no annotation with idShort '${idShort}'`);
    if (seen.has(idShort)) fail(`${itemPath}.${idShort}`, `annotation '${idShort}' is given twice`);
    seen.add(idShort);
    applyInto(annotation, inner, `${itemPath}.${idShort}`);
  });
}

/**
 * Replaces the specific asset ids. The value-only form drops semanticId and externalSubjectId, so an entry
 * that matches an existing id by name and value keeps that id (each existing id is matched at most once).
 */
function applySpecificAssetIds(element: JsonObject, value: unknown, path: string) {
  const list = value === null ? [] : expectArray(value, path);
  const unmatched: (JsonObject | undefined)[] = [...objects(element.specificAssetIds)];
  const ids = list.map((item, i) => {
    const [name, text] = singleEntry(item, `${path}[${i}]`);
    const match = unmatched.findIndex((id) => id?.name === name && id.value === text);
    if (match < 0) return { name, value: text };
    const kept = unmatched[match];
    unmatched[match] = undefined;
    return kept;
  });
  // An empty list is invalid in the metamodel; clearing with [] means "no specific asset ids".
  if (ids.length) element.specificAssetIds = ids;
  else delete element.specificAssetIds;
}

function applyInto(element: JsonObject, value: unknown, path: string): void {
  switch (element.modelType) {
    case 'Property':
      return setPrimitive(element, 'value', value, path);
    case 'MultiLanguageProperty': {
      const texts = value === null ? [] : expectArray(value, path);
      const langStrings = texts.map((text, i) => {
        const [language, inner] = singleEntry(text, `${path}[${i}]`);
        return { language, text: inner };
      });
      if (langStrings.length) element.value = langStrings;
      else delete element.value;
      return;
    }
    case 'Range': {
      const range = expectObject(value, path, ['min', 'max']);
      for (const end of ['min', 'max']) {
        if (Object.hasOwn(range, end)) setPrimitive(element, end, range[end], `${path}.${end}`);
      }
      return;
    }
    case 'ReferenceElement':
      if (value === null) delete element.value;
      else element.value = reference(value, path);
      return;
    case 'File':
    case 'Blob': {
      const file = expectObject(value, path, ['contentType', 'value']);
      if (Object.hasOwn(file, 'contentType')) {
        element.contentType = expectString(file.contentType, `${path}.contentType`);
      }
      // An absent value leaves the stored one: GET $value without blob values, then PATCH it back, changes nothing.
      if (!Object.hasOwn(file, 'value')) return;
      if (file.value === null) delete element.value;
      else if (element.modelType === 'File') element.value = expectString(file.value, `${path}.value`);
      else element.value = base64(file.value, `${path}.value`);
      return;
    }
    case 'RelationshipElement':
    case 'AnnotatedRelationshipElement': {
      const annotated = element.modelType === 'AnnotatedRelationshipElement';
      const keys = annotated ? ['first', 'second', 'annotations'] : ['first', 'second'];
      const relationship = expectObject(value, path, keys);
      for (const end of ['first', 'second']) {
        if (Object.hasOwn(relationship, end)) element[end] = reference(relationship[end], `${path}.${end}`);
      }
      if (Object.hasOwn(relationship, 'annotations')) {
        applyAnnotations(element, relationship.annotations, `${path}.annotations`);
      }
      return;
    }
    case 'Entity': {
      const entity = expectObject(value, path, ['statements', 'entityType', 'globalAssetId', 'specificAssetIds']);
      if (Object.hasOwn(entity, 'statements')) {
        applyChildren(element.statements, entity.statements, `${path}.statements`);
      }
      if (Object.hasOwn(entity, 'entityType')) {
        const entityType = expectString(entity.entityType, `${path}.entityType`);
        if (stringification.entityTypeFromString(entityType) === null) {
          fail(`${path}.entityType`, `expected CoManagedEntity or SelfManagedEntity, got '${entityType}'`);
        }
        element.entityType = entityType;
      }
      if (Object.hasOwn(entity, 'globalAssetId')) {
        if (entity.globalAssetId === null) delete element.globalAssetId;
        else element.globalAssetId = expectString(entity.globalAssetId, `${path}.globalAssetId`);
      }
      if (Object.hasOwn(entity, 'specificAssetIds')) {
        applySpecificAssetIds(element, entity.specificAssetIds, `${path}.specificAssetIds`);
      }
      return;
    }
    case 'BasicEventElement': {
      const event = expectObject(value, path, ['observed']);
      if (Object.hasOwn(event, 'observed')) element.observed = reference(event.observed, `${path}.observed`);
      return;
    }
    case 'SubmodelElementCollection':
      return applyChildren(element.value, value, path);
    case 'SubmodelElementList': {
      const values = expectArray(value, path);
      const children = objects(element.value);
      if (values.length !== children.length) {
        const expected = `expected ${children.length} values, one per list element`;
        fail(path, `${expected} (value-only cannot add or remove elements), got ${values.length}`);
      }
      children.forEach((child, i) => {
        // null is the placeholder reading gives a child without a value form; anything else is an error below.
        if (!hasValue(child) && values[i] === null) return;
        applyInto(child, values[i], `${path}[${i}]`);
      });
      return;
    }
    default:
      fail(path, `${String(element.modelType)} has no value-only form`);
  }
}

function base64(value: unknown, path: string): string {
  const text = expectString(value, path);
  if (!BASE64.test(text)) fail(path, 'expected base64-encoded content');
  // Re-encoding normalizes unused trailing bits, so what is stored is what the library would write.
  return common.base64Encode(common.base64Decode(text).mustValue());
}

/**
 * A copy of `element` with the values from `value` applied; never mutates its input. `path` is the JSON path
 * prefix for messages (default '$').
 */
export function applyElementValue(element: JsonObject, value: unknown, path = '$'): JsonObject {
  const result = structuredClone(element);
  applyInto(result, value, path);
  return result;
}

/**
 * A Property with its value set from the value-only `value`, where nothing else needs judging: the new value is
 * consistent with the Property's valueType (AASd-020) and made of characters XML can carry (AASd-130), the only
 * constraints of a Property that look at its value. Its other members, its place and its siblings are as they were, so
 * the write introduces no other violation and the element is not read and verified whole again. Undefined for every
 * other write (other kinds, other shapes of value, a value those checks refuse), which the whole check judges and
 * describes.
 */
export function propertyValueWrite(element: JsonObject, value: unknown): JsonObject | undefined {
  if (element.modelType !== 'Property' || typeof element.valueType !== 'string') return undefined;
  if (value === null) {
    const { value: _old, ...rest } = element;
    return structuredClone(rest);
  }
  if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') return undefined;
  const text = String(value);
  const valueType = stringification.dataTypeDefXsdFromString(element.valueType);
  if (valueType === null || !verification.matchesXmlSerializableString(text) || !verification.valueConsistentWithXsdType(text, valueType)) return undefined;
  return { ...structuredClone(element), value: text };
}

/** The valueTypes (as JSON names them), each with the values it takes: `propertyValueTypes`' answers. */
const VALUE_TYPE_NAMES = [...types.overDataTypeDefXsd()].map((valueType) => ({ valueType, name: stringification.mustDataTypeDefXsdToString(valueType) }));

/**
 * The value-only `value` as a Property's new value, with the valueTypes that take it: a Property of one of those
 * valueTypes gets it as `propertyValueWrite` would give it (the same checks, made for every valueType at once), so a
 * write can check the stored valueType where it finds the element, without reading it first. Undefined for a value
 * no Property takes that way (null, which removes the value; an object or array).
 */
export function propertyValueTypes(value: unknown): { text: string; valueTypes: string[] } | undefined {
  if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') return undefined;
  const text = String(value);
  if (!verification.matchesXmlSerializableString(text)) return { text, valueTypes: [] };
  return { text, valueTypes: VALUE_TYPE_NAMES.filter(({ valueType }) => verification.valueConsistentWithXsdType(text, valueType)).map(({ name }) => name) };
}

/** A copy of the submodel with `{ idShort: value }` applied to its elements. */
export function applySubmodelValue(submodel: JsonObject, value: unknown): JsonObject {
  const result = structuredClone(submodel);
  applyChildren(result.submodelElements, value, '$');
  return result;
}
