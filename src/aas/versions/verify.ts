import { types } from '@aas-core-works/aas-core3.0-typescript';
import { badRequest } from '../../graphql/errors';
import { DOCUMENT_READERS, type DocumentKind, type ErrorRule, type JsonObject, type Violation } from '../model/parse';
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
const V31_RULE: ErrorRule = (message, subject) => {
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

/** A change the verification stand-in made: the value at `path` was `was` (undefined: absent) in what was sent. */
interface Patch {
  path: (string | number)[];
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
  const fill = (owner: JsonObject, key: string, value: unknown, path: (string | number)[]) => {
    patches.push({ path: [...path, key], was: owner[key] });
    owner[key] = value;
  };
  const element = (node: unknown, path: (string | number)[]): void => {
    if (!isObject(node)) return;
    const type = node.modelType;
    if ((type === 'File' || type === 'Blob') && node.contentType === undefined) fill(node, 'contentType', 'application/octet-stream', path);
    if (type === 'Entity' && node.entityType === undefined) {
      const identified = node.globalAssetId !== undefined || (Array.isArray(node.specificAssetIds) && node.specificAssetIds.length > 0);
      fill(node, 'entityType', identified ? 'SelfManagedEntity' : 'CoManagedEntity', path);
    }
    if (type === 'RelationshipElement' || type === 'AnnotatedRelationshipElement') {
      for (const end of ['first', 'second']) if (node[end] === undefined) fill(node, end, structuredClone(NO_END), path);
    }
    const children = typeof type === 'string' ? CHILDREN[type] : undefined;
    if (children) elements(node[children], [...path, children]);
    if (type === 'Operation') {
      for (const key of OPERATION_VARIABLES) {
        const variables = node[key];
        if (Array.isArray(variables)) variables.forEach((variable, i) => isObject(variable) && element(variable.value, [...path, key, i, 'value']));
      }
    }
  };
  const elements = (list: unknown, path: (string | number)[]) => {
    if (Array.isArray(list)) list.forEach((item, i) => element(item, [...path, i]));
  };
  const info = copy.assetInformation;
  if (copy.modelType === 'AssetAdministrationShell' && isObject(info) && info.assetKind === 'Role') fill(info, 'assetKind', 'NotApplicable', ['assetInformation']);
  if (copy.modelType === 'Submodel') elements(copy.submodelElements, ['submodelElements']);
  return { copy, patches };
}

/** Undoes `patches` on `doc` (in place): what the stand-in filled in goes, what it replaced comes back. */
function undo(doc: JsonObject, patches: Patch[]): JsonObject {
  for (const { path, was } of [...patches].reverse()) {
    let owner: unknown = doc;
    for (const step of path.slice(0, -1)) owner = isObject(owner) || Array.isArray(owner) ? (owner as Record<string | number, unknown>)[step] : undefined;
    if (!isObject(owner)) continue;
    const key = path[path.length - 1] as string;
    if (was === undefined) delete owner[key];
    else owner[key] = was;
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
  return { doc: undo(doc, patches), violations };
}

/**
 * The constraint violations of an identifiable (`json`, a shell, submodel or concept description, its kind by its
 * `modelType`) under metamodel `version`: V3.0's verification, with V3.1's differences for '3.1' (see `V31_RULE`).
 * 400 when it cannot be read as that version at all.
 */
export function verifyFor(version: AasVersion, json: unknown): Violation[] {
  return readFor(version, kindOf(json), json).violations;
}
