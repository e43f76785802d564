import type { JsonObject } from './parse';

/**
 * An environment of the AAS metamodel V3.1 (IDTA-01001-3-1), in its JSON form (read from JSON, or from V3.1 XML
 * by the reader with the V3.1 dialect), mapped onto V3.0, the metamodel this server stores and serves. V3.1 is V3.0
 * with relaxations; the ones V3.0 cannot read at all are mapped here, each with a warning naming the place:
 *
 * | V3.1                                                   | read as (V3.0)                                        |
 * | ------------------------------------------------------ | ----------------------------------------------------- |
 * | AssetInformation/assetKind `Role`                      | `NotApplicable`                                       |
 * | Entity without entityType                              | `SelfManagedEntity` with a globalAssetId or specific  |
 * |                                                        | asset ids (AASd-014), else `CoManagedEntity`          |
 * | File without contentType                               | the content type of the package part its value names, |
 * |                                                        | else `application/octet-stream`                       |
 * | Blob without contentType                               | `application/octet-stream`                            |
 * | (Annotated)RelationshipElement without first or second | left out (V3.0 has no such element)                   |
 *
 * The constraints V3.1 relaxed (a hyphen in an idShort, AASd-002; an idShort on a list's items, AASd-120; a category
 * of any value, AASd-090; an Entity that is co-managed with a globalAssetId, AASd-014; identifiers up to 2048
 * characters, content types up to 128) are left as they are: the V3.0 verification of the import reports each as a
 * warning and the document is stored as it was written, as any V3.0 document with those violations is.
 * A V3.0 document never has what this maps (V3.0 requires those attributes and has no `Role`), so every JSON
 * environment goes through it.
 */
export interface V31MappingOptions {
  /** The content type of the package part a File value names; undefined when it names none. */
  contentTypeOf?(value: string): string | undefined;
}

const OCTET_STREAM = 'application/octet-stream';

/** Which property of an element holds its child elements. */
const CHILDREN: Readonly<Record<string, string>> = {
  SubmodelElementCollection: 'value',
  SubmodelElementList: 'value',
  Entity: 'statements',
  AnnotatedRelationshipElement: 'annotations',
};
const OPERATION_VARIABLES = ['inputVariables', 'outputVariables', 'inoutputVariables'];

const isObject = (value: unknown): value is JsonObject => value !== null && typeof value === 'object' && !Array.isArray(value);

/** Maps `env` in place (see above); the warnings say what was mapped, where. */
export function mapV31Environment(env: unknown, warnings: string[], options: V31MappingOptions = {}): void {
  if (!isObject(env)) return;
  const shells = env.assetAdministrationShells;
  if (Array.isArray(shells)) shells.forEach((shell, i) => mapV31Shell(shell, `$.assetAdministrationShells[${i}]`, warnings));
  const submodels = env.submodels;
  if (Array.isArray(submodels)) submodels.forEach((submodel, i) => mapV31Submodel(submodel, `$.submodels[${i}]`, warnings, options));
}

/** Maps one shell in place (its `Role`), `path` naming it in the warnings. */
export function mapV31Shell(shell: unknown, path: string, warnings: string[]): void {
  const info = isObject(shell) ? shell.assetInformation : undefined;
  if (isObject(info) && info.assetKind === 'Role') {
    info.assetKind = 'NotApplicable';
    warnings.push(`${path}.assetInformation.assetKind: AssetKind Role (new in V3.1): read as NotApplicable`);
  }
}

/** Maps one submodel's elements in place, `path` naming it in the warnings. */
export function mapV31Submodel(submodel: unknown, path: string, warnings: string[], options: V31MappingOptions = {}): void {
  if (isObject(submodel)) mapElements(submodel, 'submodelElements', path, '', false, warnings, options);
}

/** Whether V3.0 has no form of `element` at all (a relationship without both ends): the mapping leaves it out. */
export function leftOutInV30(element: unknown): boolean {
  return isObject(element) && (element.modelType === 'RelationshipElement' || element.modelType === 'AnnotatedRelationshipElement') && (element.first === undefined || element.second === undefined);
}

/** Maps the elements `owner[key]` holds, leaving out those V3.0 cannot have. */
function mapElements(owner: JsonObject, key: string, path: string, idShortPath: string, byIndex: boolean, warnings: string[], options: V31MappingOptions): void {
  const elements = owner[key];
  if (!Array.isArray(elements)) return;
  const kept = elements.filter((element, i) => {
    const at = `${path}.${key}[${i}]`;
    const idShort = isObject(element) && typeof element.idShort === 'string' ? element.idShort : undefined;
    const named = byIndex ? `${idShortPath}[${i}]` : `${idShortPath}${idShortPath && idShort !== undefined ? '.' : ''}${idShort ?? `[${i}]`}`;
    return mapElement(element, at, named, warnings, options);
  });
  if (kept.length !== elements.length) setList(owner, key, kept);
}

/** `owner[key] = list`, or no such property when the list is empty (V3.0 lists hold at least one item). */
function setList(owner: JsonObject, key: string, list: unknown[]): void {
  if (list.length) owner[key] = list;
  else delete owner[key];
}

/** Maps one element and its children; false when V3.0 cannot have it (it is left out, with a warning). */
function mapElement(element: unknown, path: string, idShortPath: string, warnings: string[], options: V31MappingOptions): boolean {
  if (!isObject(element)) return true; // not an element at all: the verification refuses it
  const where = `${path} (idShort path ${idShortPath})`;
  const type = element.modelType;
  switch (type) {
    case 'File':
    case 'Blob':
      if (element.contentType === undefined) {
        const named = type === 'File' && typeof element.value === 'string' && element.value !== '' ? options.contentTypeOf?.(element.value) : undefined;
        element.contentType = named ?? OCTET_STREAM;
        warnings.push(`${where}: ${type} without contentType (optional since V3.1): read as ${element.contentType}${named ? ' (the content type of the package part it names)' : ''}`);
      }
      break;
    case 'Entity':
      if (element.entityType === undefined) {
        const identified = element.globalAssetId !== undefined || (Array.isArray(element.specificAssetIds) && element.specificAssetIds.length > 0);
        element.entityType = identified ? 'SelfManagedEntity' : 'CoManagedEntity';
        warnings.push(`${where}: Entity without entityType (optional since V3.1): read as ${element.entityType}${identified ? ' (it has an asset id)' : ''}`);
      }
      break;
    case 'RelationshipElement':
    case 'AnnotatedRelationshipElement': {
      const missing = ['first', 'second'].filter((name) => element[name] === undefined);
      if (missing.length) {
        const annotations = Array.isArray(element.annotations) && element.annotations.length ? ` and its ${element.annotations.length} annotation(s)` : '';
        warnings.push(`${where}: ${type} without ${missing.join(' and ')} (optional since V3.1) cannot be a V3.0 one: left out${annotations}`);
        return false;
      }
      break;
    }
    case 'Operation':
      for (const key of OPERATION_VARIABLES) {
        const variables = element[key];
        if (!Array.isArray(variables)) continue;
        const kept = variables.filter((variable, i) => {
          if (!isObject(variable) || !isObject(variable.value)) return true;
          const idShort = typeof variable.value.idShort === 'string' ? variable.value.idShort : `[${i}]`;
          return mapElement(variable.value, `${path}.${key}[${i}].value`, `${idShortPath}.${idShort}`, warnings, options);
        });
        if (kept.length !== variables.length) setList(element, key, kept);
      }
      break;
  }
  const children = typeof type === 'string' ? CHILDREN[type] : undefined;
  if (children) mapElements(element, children, path, idShortPath, type === 'SubmodelElementList', warnings, options);
  return true;
}
