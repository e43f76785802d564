import { common, jsonization, stringification, types, verification } from '@aas-core-works/aas-core3.0-typescript';
import { MAX_MESSAGES } from '../../common/result';
import { AppError, badRequest } from '../../graphql/errors';
import { JsonObject, parseVerified } from '../model/parse';
import { referenceFilterKeys } from '../model/reference-keys';
import type { AasVersion } from '../versions';
import { ID_SHORT_V31 } from '../versions/needed';
import { V31_MESSAGES } from '../versions/verify';

/**
 * The registries' descriptors (AssetAdministrationShellDescriptor, SubmodelDescriptor), checked against the
 * Part 2 schema of the AAS API V3.0.4 (`Part2-API-Schemas/openapi.yaml`: Descriptor, Endpoint,
 * ProtocolInformation, securityAttributes) and, for the parts typed by the metamodel (descriptions, extensions,
 * administration, specific asset ids, references), by the metamodel library, as every other document that comes in.
 *
 * Strictness: properties the schema does not define (on descriptors, endpoints, protocol information and security
 * attributes) are refused with 400, as the metamodel parts' unknown properties are (`parseVerified`) and as BaSyx's
 * registries do. A registry that kept them would store and return what no client can rely on.
 *
 * The rules below are the schema's, one to one; `test/unit/descriptor.test.ts` reads the YAML and checks this
 * parser against every required property, maxLength, minItems and enum in it.
 */

type Json = unknown;

/** A metamodel library reader (`jsonization.*FromJsonable`). */
type Reader = (json: jsonization.JsonValue) => common.Either<types.Class, jsonization.DeserializationError>;

type Rule =
  | { kind: 'string'; maxLength?: number; minLength?: 1; xmlChars?: true; enum?: readonly string[]; also?: (text: string) => Iterable<{ message: string }> }
  | { kind: 'array'; minItems?: number; items: Rule }
  | { kind: 'object'; schema: ObjectSchema }
  | { kind: 'metamodel'; what: string; parse: Reader };

interface ObjectSchema {
  name: string;
  properties: Record<string, Rule>;
  required: readonly string[];
}

/**
 * Identifier-like strings (id, globalAssetId, assetType): `minLength: 1, maxLength: 2000` and the schema's pattern,
 * which admits exactly the characters XML can carry (AASd-130): the library's `matchesXmlSerializableString` tests
 * that same set (and, like the schema's pattern, refuses unpaired surrogates).
 */
const identifier: Rule = { kind: 'string', minLength: 1, maxLength: 2000, xmlChars: true };
/**
 * idShort: the schema only says `maxLength: 128`; a descriptor's idShort is the idShort of the shell or submodel it
 * describes, so it also follows the metamodel's rule for idShort (non-empty, `^[a-zA-Z][a-zA-Z0-9_]*$`), checked by
 * the library's own `verifyIdShortType`.
 */
const idShort: Rule = { kind: 'string', maxLength: 128, also: verification.verifyIdShortType };
const text128: Rule = { kind: 'string', maxLength: 128 };
const metamodel = (what: string, parse: Reader): Rule => ({ kind: 'metamodel', what, parse });
const reference = metamodel('Reference', jsonization.referenceFromJsonable);
/** Part 1's AssetKind enum, as the library knows it (Instance, NotApplicable, Type). */
const ASSET_KINDS = Array.from(types.overAssetKind(), (kind) => stringification.mustAssetKindToString(kind));

const SECURITY_ATTRIBUTE: ObjectSchema = {
  name: 'securityAttributes item',
  properties: {
    type: { kind: 'string', enum: ['NONE', 'RFC_TLSA', 'W3C_DID'] },
    key: { kind: 'string' },
    value: { kind: 'string' },
  },
  required: ['type', 'key', 'value'],
};

const PROTOCOL_INFORMATION: ObjectSchema = {
  name: 'ProtocolInformation',
  properties: {
    href: { kind: 'string', maxLength: 2048 },
    endpointProtocol: text128,
    endpointProtocolVersion: { kind: 'array', items: text128 },
    subprotocol: text128,
    subprotocolBody: text128,
    subprotocolBodyEncoding: text128,
    securityAttributes: { kind: 'array', minItems: 1, items: { kind: 'object', schema: SECURITY_ATTRIBUTE } },
  },
  required: ['href'],
};

const ENDPOINT: ObjectSchema = {
  name: 'Endpoint',
  properties: { interface: text128, protocolInformation: { kind: 'object', schema: PROTOCOL_INFORMATION } },
  required: ['protocolInformation', 'interface'],
};

const endpoints: Rule = { kind: 'array', minItems: 1, items: { kind: 'object', schema: ENDPOINT } };

/**
 * Descriptor, the properties both descriptors have. The schema sets no minItems on description and displayName, and
 * the metamodel's rules on those lists (non-empty, one text per language) belong to Referables, which descriptors are
 * not: each item is verified, the list as the schema says.
 */
const DESCRIPTOR_PROPERTIES: Record<string, Rule> = {
  description: { kind: 'array', items: metamodel('LangStringTextType', jsonization.langStringTextTypeFromJsonable) },
  displayName: { kind: 'array', items: metamodel('LangStringNameType', jsonization.langStringNameTypeFromJsonable) },
  extensions: { kind: 'array', minItems: 1, items: metamodel('Extension', jsonization.extensionFromJsonable) },
};

const SUBMODEL_DESCRIPTOR: ObjectSchema = {
  name: 'SubmodelDescriptor',
  properties: {
    ...DESCRIPTOR_PROPERTIES,
    administration: metamodel('AdministrativeInformation', jsonization.administrativeInformationFromJsonable),
    endpoints,
    idShort,
    id: identifier,
    semanticId: reference,
    supplementalSemanticId: { kind: 'array', minItems: 1, items: reference },
  },
  required: ['id', 'endpoints'],
};

const SHELL_DESCRIPTOR: ObjectSchema = {
  name: 'AssetAdministrationShellDescriptor',
  properties: {
    ...DESCRIPTOR_PROPERTIES,
    administration: metamodel('AdministrativeInformation', jsonization.administrativeInformationFromJsonable),
    assetKind: { kind: 'string', enum: ASSET_KINDS },
    assetType: identifier,
    endpoints,
    globalAssetId: identifier,
    idShort,
    id: identifier,
    specificAssetIds: { kind: 'array', items: metamodel('SpecificAssetId', jsonization.specificAssetIdFromJsonable) },
    submodelDescriptors: { kind: 'array', items: { kind: 'object', schema: SUBMODEL_DESCRIPTOR } },
  },
  required: ['id'],
};

/**
 * The same descriptors in the Part 2 schema of the AAS API V3.1.2 (`aas-api-v3.1.2/Part2-API-Schemas`), for writes
 * through `/api/v3.1`: identifiers up to 2048 characters, an idShort may hold hyphens (AASd-002 of V3.1), and
 * `assetKind` is V3.1's AssetKind, with `Role`. Everything else is V3.0.4's.
 */
const identifierV31: Rule = { ...identifier, maxLength: 2048 };
const idShortV31: Rule = { kind: 'string', maxLength: 128, also: (text) => (ID_SHORT_V31.test(text) ? [] : [{ message: V31_MESSAGES.idShort }]) };

const SUBMODEL_DESCRIPTOR_V31: ObjectSchema = {
  ...SUBMODEL_DESCRIPTOR,
  properties: { ...SUBMODEL_DESCRIPTOR.properties, idShort: idShortV31, id: identifierV31 },
};

const SHELL_DESCRIPTOR_V31: ObjectSchema = {
  ...SHELL_DESCRIPTOR,
  properties: {
    ...SHELL_DESCRIPTOR.properties,
    assetKind: { kind: 'string', enum: [...ASSET_KINDS, 'Role'] },
    assetType: identifierV31,
    globalAssetId: identifierV31,
    idShort: idShortV31,
    id: identifierV31,
    submodelDescriptors: { kind: 'array', items: { kind: 'object', schema: SUBMODEL_DESCRIPTOR_V31 } },
  },
};

/** The problems found in one descriptor: the first ones as messages, the rest counted. */
class Problems {
  private readonly messages: string[] = [];
  /** How many were found, reported or not. */
  count = 0;

  add(path: string, text: string): void {
    // One line is kept for "... and N more", so the whole list fits in one Result.
    if (++this.count < MAX_MESSAGES) this.messages.push(`${path}: ${text}`);
  }

  throwIfAny(what: string): void {
    if (!this.count) return;
    const more = this.count - this.messages.length;
    const messages = more ? [...this.messages, `... and ${more} more problems`] : this.messages;
    throw badRequest(`Invalid ${what}: ${messages[0]}`, messages);
  }
}

const IDENTIFIER_KEY = /^[A-Za-z_$][\w$]*$/;
const member = (path: string, key: string) => (IDENTIFIER_KEY.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`);

function typeName(value: Json): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

const isObject = (value: Json): value is JsonObject => value !== null && typeof value === 'object' && !Array.isArray(value);

/**
 * JSON Schema counts a string's length in characters (code points), not in UTF-16 units: 2000 characters outside
 * the BMP are a valid id here, though 4000 units long. Never fewer code points than units, so short strings are
 * not counted.
 */
function longerThan(text: string, max: number): boolean {
  if (text.length <= max) return false;
  let count = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    // A high surrogate followed by a low one is one character.
    if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) i++;
    if (++count > max) return true;
  }
  return false;
}

function checkString(value: Json, rule: Extract<Rule, { kind: 'string' }>, path: string, problems: Problems): void {
  if (typeof value !== 'string') return problems.add(path, `must be a string, not ${typeName(value)}`);
  const before = problems.count;
  if (rule.enum && !rule.enum.includes(value)) problems.add(path, `must be one of ${rule.enum.join(', ')}`);
  // The schema's only minLength is 1 (identifiers).
  if (rule.minLength && value === '') problems.add(path, 'must not be empty');
  if (rule.maxLength !== undefined && longerThan(value, rule.maxLength)) problems.add(path, `longer than ${rule.maxLength} characters`);
  if (rule.xmlChars && !verification.matchesXmlSerializableString(value)) {
    problems.add(path, 'contains characters XML cannot carry (AASd-130: tab, line feed, carriage return, U+0020-U+D7FF, U+E000-U+FFFD, U+10000-U+10FFFF)');
  }
  // The metamodel's rule repeats some of the schema's; it is asked only when those passed, so one flaw is one message.
  if (rule.also && problems.count === before) for (const error of rule.also(value)) problems.add(path, error.message);
}

/** A metamodel-typed part: read and verified by the library (`parseVerified`), its paths put under `path`. */
function checkMetamodel(value: Json, rule: Extract<Rule, { kind: 'metamodel' }>, path: string, problems: Problems): void {
  if (!isObject(value)) return problems.add(path, `must be an object (${rule.what}), not ${typeName(value)}`);
  try {
    parseVerified(rule.what, rule.parse, value);
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    const messages = (err.extensions.messages as string[] | undefined) ?? [err.message];
    // Its messages name paths from the part's root, `$`; anything else (the library throwing) gets the part's path.
    for (const message of messages) {
      if (message.startsWith('$')) {
        const separator = message.indexOf(': ');
        problems.add(path + message.slice(1, separator < 0 ? undefined : separator), separator < 0 ? message : message.slice(separator + 2));
      } else {
        problems.add(path, message);
      }
    }
  }
}

function checkObject(value: Json, schema: ObjectSchema, path: string, problems: Problems): void {
  if (!isObject(value)) return problems.add(path, `must be an object (${schema.name}), not ${typeName(value)}`);
  for (const key of schema.required) if (!Object.hasOwn(value, key)) problems.add(member(path, key), `required (${schema.name}), missing`);
  for (const [key, inner] of Object.entries(value)) {
    const rule = Object.hasOwn(schema.properties, key) ? schema.properties[key] : undefined;
    if (rule) check(inner, rule, member(path, key), problems);
    else problems.add(member(path, key), `unexpected property (not in the ${schema.name} schema)`);
  }
}

function check(value: Json, rule: Rule, path: string, problems: Problems): void {
  switch (rule.kind) {
    case 'string':
      return checkString(value, rule, path, problems);
    case 'metamodel':
      return checkMetamodel(value, rule, path, problems);
    case 'object':
      return checkObject(value, rule.schema, path, problems);
    case 'array':
      if (!Array.isArray(value)) return problems.add(path, `must be an array, not ${typeName(value)}`);
      if (rule.minItems !== undefined && value.length < rule.minItems) problems.add(path, `must hold at least ${rule.minItems} item${rule.minItems === 1 ? '' : 's'}`);
      value.forEach((item, i) => check(item, rule.items, `${path}[${i}]`, problems));
  }
}

/** The registry identifies a shell's submodel descriptors by id: one shell descriptor must not list an id twice. */
function checkUniqueSubmodelIds(descriptor: JsonObject, problems: Problems): void {
  const list = descriptor.submodelDescriptors;
  if (!Array.isArray(list)) return;
  const first = new Map<string, number>();
  list.forEach((item, i) => {
    const id = isObject(item) ? item.id : undefined;
    if (typeof id !== 'string') return;
    const seen = first.get(id);
    if (seen === undefined) first.set(id, i);
    else problems.add(`$.submodelDescriptors[${i}].id`, `duplicate submodel descriptor id (also at $.submodelDescriptors[${seen}].id)`);
  });
}

/**
 * An AssetAdministrationShellDescriptor, returned as given (key order kept), or a 400 naming each problem's path;
 * checked against the schema of `version`'s API.
 */
export function parseShellDescriptor(json: unknown, version: AasVersion = '3.0'): JsonObject {
  const problems = new Problems();
  checkObject(json, version === '3.1' ? SHELL_DESCRIPTOR_V31 : SHELL_DESCRIPTOR, '$', problems);
  if (isObject(json)) checkUniqueSubmodelIds(json, problems);
  problems.throwIfAny(SHELL_DESCRIPTOR.name);
  return json as JsonObject;
}

/** A SubmodelDescriptor, returned as given (key order kept), or a 400 naming each problem's path (as `parseShellDescriptor`). */
export function parseSubmodelDescriptor(json: unknown, version: AasVersion = '3.0'): JsonObject {
  const problems = new Problems();
  checkObject(json, version === '3.1' ? SUBMODEL_DESCRIPTOR_V31 : SUBMODEL_DESCRIPTOR, '$', problems);
  problems.throwIfAny(SUBMODEL_DESCRIPTOR.name);
  return json as JsonObject;
}

export interface AssetId {
  name: string;
  value: string;
}

/** What the AAS Registry's queries filter and sort on, pulled out of a shell descriptor beside its document. */
export interface ShellDescriptorColumns {
  idShort: string | null;
  assetKind: string | null;
  assetType: string | null;
  globalAssetId: string | null;
  /** The specific asset ids, with the globalAssetId first as name `globalAssetId` (AASd-116), as ShellService does. */
  assetIds: AssetId[];
  /**
   * The filter keys (`model/reference-keys`: the canonical key of each submodel descriptor's semanticId and its key
   * values), each once, in order of appearance: what `submodelSemanticId` filters compare.
   */
  submodelSemanticIds: string[];
}

/** The columns of a shell descriptor that `parseShellDescriptor` accepted. */
export function shellDescriptorColumns(doc: JsonObject): ShellDescriptorColumns {
  const specificAssetIds = (doc.specificAssetIds as AssetId[] | undefined) ?? [];
  const assetIds = specificAssetIds.map(({ name, value }) => ({ name, value }));
  const globalAssetId = (doc.globalAssetId as string | undefined) ?? null;
  if (globalAssetId !== null) assetIds.unshift({ name: 'globalAssetId', value: globalAssetId });
  const semanticIds = new Set<string>();
  for (const submodel of (doc.submodelDescriptors as JsonObject[] | undefined) ?? []) {
    for (const key of referenceFilterKeys(submodel.semanticId as JsonObject | undefined)) semanticIds.add(key);
  }
  return {
    idShort: (doc.idShort as string | undefined) ?? null,
    assetKind: (doc.assetKind as string | undefined) ?? null,
    assetType: (doc.assetType as string | undefined) ?? null,
    globalAssetId,
    assetIds,
    submodelSemanticIds: [...semanticIds],
  };
}
