import type { JsonObject } from '../model/parse';

/** A version of the AAS metamodel this server speaks. */
export type AasVersion = '3.0' | '3.1';

/** Every version, oldest first. */
export const AAS_VERSIONS: readonly AasVersion[] = ['3.0', '3.1'];

/** V3.0's idShort (AASd-002): letters, digits, `_`, starting with a letter. */
export const ID_SHORT_V30 = /^[a-zA-Z][a-zA-Z0-9_]*$/;
/** V3.1's idShort (AASd-002): hyphens too, but not at the end. */
export const ID_SHORT_V31 = /^[a-zA-Z]([a-zA-Z0-9_-]*[a-zA-Z0-9_])?$/;

/** The longest Identifier (and path) of each version. */
export const IDENTIFIER_MAX: Readonly<Record<AasVersion, number>> = { '3.0': 2000, '3.1': 2048 };
/** The longest ContentType of each version. */
export const CONTENT_TYPE_MAX: Readonly<Record<AasVersion, number>> = { '3.0': 100, '3.1': 128 };

/** AASd-090 (V3.0 only): the categories a data element may have. */
export const DATA_ELEMENT_CATEGORIES: ReadonlySet<string> = new Set(['CONSTANT', 'PARAMETER', 'VARIABLE']);
/** The data elements AASd-090 is about. */
export const DATA_ELEMENTS: ReadonlySet<string> = new Set(['Property', 'MultiLanguageProperty', 'Range', 'ReferenceElement', 'File', 'Blob']);

/** Which property of an element holds its child elements. */
export const CHILDREN: Readonly<Record<string, string>> = {
  SubmodelElementCollection: 'value',
  SubmodelElementList: 'value',
  Entity: 'statements',
  AnnotatedRelationshipElement: 'annotations',
};
/** The lists of an Operation whose items hold an element under `value`. */
export const OPERATION_VARIABLES = ['inputVariables', 'outputVariables', 'inoutputVariables'];

export const isObject = (value: unknown): value is JsonObject => value !== null && typeof value === 'object' && !Array.isArray(value);

/** The properties whose value is an Identifier (or a path, of the same length) where they are, by owner. */
const IDENTIFIER_PROPERTIES = ['id', 'globalAssetId', 'assetType', 'templateId'];

/** Whether `value` is a text that only the longer limit of V3.1 allows. */
const onlyV31Length = (value: unknown, limits: Readonly<Record<AasVersion, number>>) =>
  typeof value === 'string' && value.length > limits['3.0'] && value.length <= limits['3.1'];

/** Whether `value` (anywhere in an identifiable) uses something V3.0 does not have; `parentKey` is where it is. */
function needsV31(value: unknown, parentKey: string, inList: boolean): boolean {
  if (Array.isArray(value)) {
    for (const item of value) if (needsV31(item, parentKey, inList)) return true;
    return false;
  }
  if (!isObject(value)) return false;
  const type = value.modelType;
  if (typeof value.idShort === 'string') {
    if (!ID_SHORT_V30.test(value.idShort) && ID_SHORT_V31.test(value.idShort)) return true; // AASd-002
    if (inList && typeof type === 'string') return true; // AASd-120
  }
  for (const key of IDENTIFIER_PROPERTIES) if (onlyV31Length(value[key], IDENTIFIER_MAX)) return true;
  if ((parentKey === 'keys' || parentKey === 'specificAssetIds' || type === 'File') && onlyV31Length(value.value, IDENTIFIER_MAX)) return true;
  if (parentKey === 'defaultThumbnail' && onlyV31Length(value.path, IDENTIFIER_MAX)) return true;
  if (onlyV31Length(value.contentType, CONTENT_TYPE_MAX)) return true;
  if (parentKey === 'assetInformation' && value.assetKind === 'Role') return true;
  switch (type) {
    case 'File':
    case 'Blob':
      if (value.contentType === undefined) return true;
      break;
    case 'Entity':
      if (value.entityType === undefined) return true;
      // AASd-014 of V3.0: a co-managed entity has no asset id.
      if (value.entityType === 'CoManagedEntity' && (value.globalAssetId !== undefined || (Array.isArray(value.specificAssetIds) && value.specificAssetIds.length > 0))) return true;
      break;
    case 'RelationshipElement':
    case 'AnnotatedRelationshipElement':
      if (value.first === undefined || value.second === undefined) return true;
      break;
  }
  if (typeof type === 'string' && DATA_ELEMENTS.has(type) && typeof value.category === 'string' && !DATA_ELEMENT_CATEGORIES.has(value.category)) return true;
  // A walk of every element of a large submodel: `for...in` makes no array of entries per object.
  for (const key in value) {
    const inner = value[key];
    if (inner !== null && typeof inner === 'object' && needsV31(inner, key, type === 'SubmodelElementList' && key === 'value')) return true;
  }
  return false;
}

/**
 * The newest version of the metamodel the content of `identifiable` (a shell, submodel or concept description, in
 * its JSON form) needs: '3.1' when it uses anything V3.0 does not have (the literal `Role`, an Entity without
 * `entityType`, a File or Blob without `contentType`, a relationship without an end) or a constraint V3.1 relaxed
 * allows what V3.0 forbids (a hyphen in an idShort, an idShort on a list's item, a data element's category of any
 * value, a co-managed Entity with an asset id, an Identifier of 2,001 to 2,048 characters, a ContentType of 101 to
 * 128); else '3.0' (V3.0 content is also V3.1 content). What is invalid in both versions does not count.
 */
export function neededVersion(identifiable: unknown): AasVersion {
  return needsV31(identifiable, '', false) ? '3.1' : '3.0';
}
