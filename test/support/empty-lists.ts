import { CHOICES, CLASSES } from '../../src/aas/xml/schema-table';

type Json = Record<string, unknown>;

/**
 * An environment whose documents hold every list of the metamodel empty: `keys: []`, `valueReferencePairs: []`,
 * `preferredName: []` (lists the schemas require) and every optional list (`description: []`, an empty collection,
 * an operation without variables, ...). Neither the JSON schema (minItems 1) nor AAS.xsd (minOccurs 1) allows an
 * empty list and the metamodel's verification reports each one, but an import stores such documents with warnings,
 * and every export must carry them unchanged. One shell, so that it is a package the import takes; a File naming
 * the package's `/aasx/files/manual.pdf` (see `minimalPackage`).
 */
export function emptyListsEnvironment(): Json {
  const none = (type = 'ExternalReference') => ({ type, keys: [] });
  const some = { type: 'ExternalReference', keys: [{ type: 'GlobalReference', value: 'urn:empty:ref' }] };
  return {
    assetAdministrationShells: [
      {
        modelType: 'AssetAdministrationShell',
        id: 'urn:empty:shell',
        idShort: 'Empty',
        extensions: [],
        displayName: [],
        description: [],
        administration: { embeddedDataSpecifications: [], version: '1' },
        embeddedDataSpecifications: [],
        derivedFrom: none('ModelReference'),
        assetInformation: { assetKind: 'Instance', globalAssetId: 'urn:empty:asset', specificAssetIds: [] },
        submodels: [],
      },
    ],
    submodels: [
      {
        modelType: 'Submodel',
        id: 'urn:empty:sm',
        idShort: 'Empty',
        extensions: [{ name: 'x', supplementalSemanticIds: [], refersTo: [] }],
        displayName: [],
        description: [],
        semanticId: none(),
        supplementalSemanticIds: [],
        qualifiers: [{ type: 'q', valueType: 'xs:string', supplementalSemanticIds: [], valueId: none() }],
        embeddedDataSpecifications: [],
        submodelElements: [
          { modelType: 'Property', idShort: 'P', valueType: 'xs:string', value: 'v', valueId: none(), qualifiers: [], extensions: [] },
          { modelType: 'MultiLanguageProperty', idShort: 'Mlp', value: [], displayName: [] },
          { modelType: 'SubmodelElementCollection', idShort: 'Smc', value: [], description: [] },
          { modelType: 'SubmodelElementList', idShort: 'Sml', typeValueListElement: 'Property', value: [], supplementalSemanticIds: [] },
          {
            modelType: 'Entity',
            idShort: 'Ent',
            entityType: 'SelfManagedEntity',
            globalAssetId: 'urn:empty:entity',
            statements: [],
            specificAssetIds: [{ name: 'n', value: 'v', supplementalSemanticIds: [], externalSubjectId: none() }],
          },
          { modelType: 'AnnotatedRelationshipElement', idShort: 'Rel', first: none('ModelReference'), second: some, annotations: [] },
          { modelType: 'Operation', idShort: 'Op', inputVariables: [], outputVariables: [], inoutputVariables: [] },
          { modelType: 'ReferenceElement', idShort: 'Ref', value: none() },
          { modelType: 'File', idShort: 'Manual', contentType: 'application/pdf', value: '/aasx/files/manual.pdf', embeddedDataSpecifications: [] },
        ],
      },
      { modelType: 'Submodel', id: 'urn:empty:sm2', idShort: 'NoElements', submodelElements: [] },
    ],
    conceptDescriptions: [
      {
        modelType: 'ConceptDescription',
        id: 'urn:empty:cd',
        idShort: 'Empty',
        isCaseOf: [],
        embeddedDataSpecifications: [
          {
            dataSpecification: some,
            dataSpecificationContent: {
              modelType: 'DataSpecificationIec61360',
              preferredName: [],
              shortName: [],
              definition: [],
              unitId: none(),
              valueList: { valueReferencePairs: [] },
            },
          },
        ],
      },
      {
        modelType: 'ConceptDescription',
        id: 'urn:empty:cd2',
        embeddedDataSpecifications: [
          {
            dataSpecification: none(),
            dataSpecificationContent: {
              modelType: 'DataSpecificationIec61360',
              preferredName: [{ language: 'en', text: 'Two' }],
              valueList: { valueReferencePairs: [{ value: 'a', valueId: none() }] },
            },
          },
        ],
      },
    ],
  };
}

const lowerFirst = (name: string) => name[0].toLowerCase() + name.slice(1);

/** The lists of the metamodel by name and item type (`keys: key`, `value: langStringTextType`), environment's aside. */
export function listKinds(): Set<string> {
  const kinds = new Set<string>();
  for (const [name, cls] of Object.entries(CLASSES)) {
    if (name === 'environment') continue;
    for (const prop of cls.properties) if (prop.kind === 'list' || prop.kind === 'choiceList') kinds.add(`${prop.name}: ${prop.type}`);
  }
  return kinds;
}

/** The list kinds (as `listKinds`) that are empty somewhere in `json`, an instance of the class `cls`. */
export function emptyListKinds(cls: string, json: Json, found = new Set<string>()): Set<string> {
  for (const prop of CLASSES[cls].properties) {
    const value = json[prop.name];
    if (value === undefined) continue;
    const items = Array.isArray(value) ? value : [value];
    if (Array.isArray(value) && value.length === 0) found.add(`${prop.name}: ${prop.type}`);
    for (const item of items as Json[]) {
      if (prop.kind === 'class' || prop.kind === 'list') emptyListKinds(prop.type!, item, found);
      else if ((prop.kind === 'choice' || prop.kind === 'choiceList') && CHOICES[prop.type!].includes(lowerFirst(item.modelType as string))) {
        emptyListKinds(lowerFirst(item.modelType as string), item, found);
      }
    }
  }
  return found;
}
