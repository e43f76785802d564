import { common, types } from '@aas-core-works/aas-core3.0-typescript';
import { badRequest } from '../../graphql/errors';
import { jsonization } from '@aas-core-works/aas-core3.0-typescript';
import { DOCUMENT_PARSERS, DOCUMENT_READERS, type DocumentKind, type ErrorRule, type JsonObject, type Violation, parseVerified, readSubmodelElement, readWithViolations } from '../model/parse';
import { type DroppedPart, readTolerantly } from '../model/tolerant-read';
import { type AasVersion, CHILDREN, CONTENT_TYPE_MAX, IDENTIFIER_MAX, ID_SHORT_V31, OPERATION_VARIABLES, isObject } from './needed';

/** The library's messages for the constraints V3.1 changed (aas-core3.0-typescript, verification). */
const ID_SHORT_V30_MESSAGE = 'ID-short of Referables shall only feature letters, digits, underscore (``_``); starting mandatory with a letter. *I.e.* ``[a-zA-Z][a-zA-Z0-9_]*``.';
const IDENTIFIER_V30_MESSAGE = 'Identifier shall have a maximum length of 2000 characters.';
const CONTENT_TYPE_V30_MESSAGE = 'Content type shall have a maximum length of 100 characters.';

/** V3.1's wording of the constraints it changed. */
export const V31_MESSAGES = {
  idShort: 'Constraint AASd-002: ID-short of Referables shall only feature letters, digits, hyphen and underscore; starting mandatory with a letter, and not ending with a hyphen, i.e. ^[a-zA-Z][a-zA-Z0-9_-]*[a-zA-Z0-9_]+$.',
  identifier: `Identifier shall have a maximum length of ${IDENTIFIER_MAX['3.1']} characters.`,
  contentType: `Content type shall have a maximum length of ${CONTENT_TYPE_MAX['3.1']} characters.`,
  entity: 'Constraint AASd-014: Either the attribute globalAssetId or specificAssetId of an Entity shall be set if Entity/entityType is set to SelfManagedEntity.',
} as const;

const hasAssetId = (entity: types.Entity) => (entity.globalAssetId ?? null) !== null || (entity.specificAssetIds?.length ?? 0) > 0;

/**
 * How V3.1 judges the library's (V3.0's) errors: AASd-120 and AASd-090 are gone; an idShort may hold hyphens;
 * Identifiers (and paths) may have 2,048 characters, content types 128; AASd-014 no longer forbids a co-managed
 * entity an asset id. Every other constraint is V3.0's.
 */
export const V31_RULE: ErrorRule = (message, subject) => {
  if (message.startsWith('Constraint AASd-120:') || message.startsWith('Constraint AASd-090:')) return null;
  if (message === ID_SHORT_V30_MESSAGE) return typeof subject === 'string' && ID_SHORT_V31.test(subject) ? null : V31_MESSAGES.idShort;
  if (message === IDENTIFIER_V30_MESSAGE) return typeof subject === 'string' && subject.length <= IDENTIFIER_MAX['3.1'] ? null : V31_MESSAGES.identifier;
  if (message === CONTENT_TYPE_V30_MESSAGE) return typeof subject === 'string' && subject.length <= CONTENT_TYPE_MAX['3.1'] ? null : V31_MESSAGES.contentType;
  if (message.startsWith('Constraint AASd-014:')) {
    if (subject instanceof types.Entity) return subject.entityType === types.EntityType.SelfManagedEntity && !hasAssetId(subject) ? V31_MESSAGES.entity : null;
    return message;
  }
  return message;
};

/** A change the verification stand-in made: `owner[key]` (in the copy) was `was` (undefined: absent) as sent. */
interface Patch {
  owner: JsonObject;
  key: string;
  was: unknown;
}

/** What stands in for a relationship's missing end while the V3.0 library reads it (it is never stored). */
const NO_END = { type: 'ExternalReference', keys: [{ type: 'GlobalReference', value: 'urn:x-aas-v31:no-end' }] };

/**
 * A copy of a V3.1 document the V3.0 library can read: what V3.1 made optional filled in, `Role` read as
 * `NotApplicable`; each change recorded (`patches`) so that it is undone on what the library returns. Nothing it
 * fills in is judged by V3.1's constraints (an Entity without `entityType` gets the type AASd-014 allows).
 */
function standIn(json: JsonObject): { copy: JsonObject; patches: Patch[] } {
  const copy = structuredClone(json);
  const patches: Patch[] = [];
  const fill = (owner: JsonObject, key: string, value: unknown) => {
    patches.push({ owner, key, was: owner[key] });
    owner[key] = value;
  };
  const element = (node: unknown): void => {
    if (!isObject(node)) return;
    const type = node.modelType;
    if ((type === 'File' || type === 'Blob') && node.contentType === undefined) fill(node, 'contentType', 'application/octet-stream');
    if (type === 'Entity' && node.entityType === undefined) {
      const identified = node.globalAssetId !== undefined || (Array.isArray(node.specificAssetIds) && node.specificAssetIds.length > 0);
      fill(node, 'entityType', identified ? 'SelfManagedEntity' : 'CoManagedEntity');
    }
    if (type === 'RelationshipElement' || type === 'AnnotatedRelationshipElement') {
      for (const end of ['first', 'second']) if (node[end] === undefined) fill(node, end, structuredClone(NO_END));
    }
    const children = typeof type === 'string' ? CHILDREN[type] : undefined;
    if (children && Array.isArray(node[children])) (node[children] as unknown[]).forEach(element);
    if (type === 'Operation') {
      for (const key of OPERATION_VARIABLES) {
        const variables = node[key];
        if (Array.isArray(variables)) variables.forEach((variable) => isObject(variable) && element(variable.value));
      }
    }
  };
  const info = copy.assetInformation;
  if (copy.modelType === 'AssetAdministrationShell' && isObject(info) && info.assetKind === 'Role') fill(info, 'assetKind', 'NotApplicable');
  if (copy.modelType === 'Submodel' && Array.isArray(copy.submodelElements)) copy.submodelElements.forEach(element);
  return { copy, patches };
}

/**
 * Undoes `patches` on `doc`, what the library read from `copy` (in place): what the stand-in filled in goes, what
 * it replaced comes back. `doc` has the shape of `copy` (less what a lenient or tolerant reading left out, which
 * it left out of `copy` too, or properties the metamodel does not know): the two are walked side by side to find
 * where each patched object of `copy` is in `doc`.
 */
function undo(doc: JsonObject, copy: JsonObject, patches: Patch[]): JsonObject {
  if (!patches.length) return doc;
  const owners = new Set(patches.map((p) => p.owner));
  const found = new Map<JsonObject, JsonObject>();
  const walk = (from: unknown, to: unknown): void => {
    if (Array.isArray(from) && Array.isArray(to)) from.forEach((item, i) => walk(item, to[i]));
    else if (isObject(from) && isObject(to)) {
      if (owners.has(from)) found.set(from, to);
      for (const [key, value] of Object.entries(from)) if (value !== null && typeof value === 'object' && Object.hasOwn(to, key)) walk(value, to[key]);
    }
  };
  walk(copy, doc);
  for (const { owner, key, was } of [...patches].reverse()) {
    const target = found.get(owner);
    if (!target) continue; // left out by the reading
    if (was === undefined) delete target[key];
    else target[key] = was;
  }
  return doc;
}

const KINDS: readonly DocumentKind[] = ['AssetAdministrationShell', 'Submodel', 'ConceptDescription'];

/** The kind of identifiable `json` is, by its `modelType`; 400 when it is none. */
export function kindOf(json: unknown): DocumentKind {
  const type = isObject(json) ? json.modelType : undefined;
  const kind = KINDS.find((k) => k === type);
  if (!kind) throw badRequest(`The body must be an AssetAdministrationShell, Submodel or ConceptDescription (its modelType says which).`);
  return kind;
}

/**
 * `json` read as a `kind` of metamodel `version`, with that version's constraint violations (returned, not refused:
 * a write is judged by the violations it introduces). 400 when it cannot be read as that version at all (through
 * V3.0: `Role`, an Entity without `entityType`, ...; through either: properties the metamodel does not know).
 * `doc` is the canonical JSON to store: for V3.1, exactly what was sent, V3.1's parts included.
 */
export function readFor(version: AasVersion, kind: DocumentKind, json: unknown): { doc: JsonObject; violations: Violation[] } {
  if (version === '3.0' || !isObject(json)) {
    const { doc, violations } = DOCUMENT_READERS[kind](json);
    return { doc, violations };
  }
  const { copy, patches } = standIn(json);
  const { doc, violations } = DOCUMENT_READERS[kind](copy, V31_RULE);
  return { doc: undo(doc, copy, patches), violations };
}

/**
 * `parseVerified` of a `kind` of metamodel `version`: every violation of that version refused (400), or, with
 * `warnings` (lenient), reported there. The canonical JSON to store (for V3.1, what was sent, V3.1's parts included).
 */
export function parseFor(version: AasVersion, kind: DocumentKind, json: unknown, warnings?: string[]): JsonObject {
  if (version === '3.0' || !isObject(json)) return DOCUMENT_PARSERS[kind](json, warnings);
  const { copy, patches } = standIn(json);
  return undo(DOCUMENT_PARSERS[kind](copy, warnings, V31_RULE), copy, patches);
}

/**
 * `readTolerantly` of a `kind` of metamodel `version` (imports): lenient, with the violations of that version as
 * warnings, and what cannot be read dropped. For V3.1, what is stored keeps V3.1's parts as they were written.
 */
export function readTolerantlyFor(version: AasVersion, kind: DocumentKind, json: unknown, warnings: string[]): { doc: JsonObject; dropped: DroppedPart[] } {
  if (version === '3.0' || !isObject(json)) return readTolerantly(kind, json, warnings);
  const { copy, patches } = standIn(json);
  const read = readTolerantly(kind, copy, warnings, V31_RULE);
  return { doc: undo(read.doc, copy, patches), dropped: read.dropped };
}

/**
 * The constraint violations of an identifiable (`json`, a shell, submodel or concept description, its kind by its
 * `modelType`) under metamodel `version`: V3.0's verification, with V3.1's differences for '3.1' (see `V31_RULE`).
 * 400 when it cannot be read as that version at all.
 */
export function verifyFor(version: AasVersion, json: unknown): Violation[] {
  return readFor(version, kindOf(json), json).violations;
}

/**
 * One submodel element (`json`) read as metamodel `version` with that version's violations, as `readFor` reads a
 * document: through V3.0 by the library; through V3.1 with what V3.1 made optional filled in while it is read and
 * V3.1's differences of the constraints (`V31_RULE`). `doc` is what to store: for V3.1, what was sent.
 */
export function readElementFor(version: AasVersion, json: unknown): { doc: JsonObject; violations: Violation[] } {
  if (version === '3.0' || !isObject(json)) {
    const { doc, violations } = readSubmodelElement(json);
    return { doc, violations };
  }
  const { copy, patches } = standIn({ modelType: 'Submodel', submodelElements: [json] });
  const element = (copy.submodelElements as unknown[])[0];
  const { doc, violations } = readWithViolations('SubmodelElement', jsonization.submodelElementFromJsonable, element, V31_RULE);
  return { doc: (undo({ submodelElements: [doc] }, { submodelElements: [element] }, patches).submodelElements as JsonObject[])[0], violations };
}

/**
 * A container element's own JSON (`json`, a parent of elements) as the V3.0 library can read it, whatever version
 * it is stored in: what V3.1 made optional filled in (never stored; for the checks of its children's place).
 */
export function readableByV30(json: JsonObject): JsonObject {
  if (json.modelType === 'Submodel' || typeof json.modelType !== 'string') return json;
  return (standIn({ modelType: 'Submodel', submodelElements: [json] }).copy.submodelElements as JsonObject[])[0];
}

/** The parts of a shell a write may send alone (`PUT …/asset-information`, `POST …/submodel-refs`), and their readers. */
const PART_READERS: Record<'AssetInformation' | 'Reference', (json: jsonization.JsonValue) => common.Either<types.Class, jsonization.DeserializationError>> = {
  AssetInformation: jsonization.assetInformationFromJsonable,
  Reference: jsonization.referenceFromJsonable,
};

/**
 * A part of a shell (`what`) read as metamodel `version` and verified with its constraints, every violation refused
 * (400), as `parseFor` a document: through V3.1 `Role` is taken (read as `NotApplicable` while the V3.0 library reads
 * it, then put back) and V3.1's relaxed constraints apply (`V31_RULE`). The canonical JSON to store.
 */
export function parsePartFor(version: AasVersion, what: keyof typeof PART_READERS, json: unknown): JsonObject {
  const read = (value: unknown, rule?: ErrorRule) => parseVerified(what, PART_READERS[what], value, undefined, rule);
  if (version === '3.0' || !isObject(json)) return read(json);
  if (what !== 'AssetInformation' || json.assetKind !== 'Role') return read(json, V31_RULE);
  return { ...read({ ...json, assetKind: 'NotApplicable' }, V31_RULE), assetKind: 'Role' };
}
