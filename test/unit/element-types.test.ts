import 'reflect-metadata';
import { jsonization } from '@aas-core-works/aas-core3.0-typescript';
import { GraphQLSchema, graphql } from 'graphql';
import { Query, Resolver, buildSchema } from 'type-graphql';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  ConceptDescription,
  conceptDescriptionJsonResolvers,
} from '../../src/aas/concept-descriptions/concept-description.types';
import { modelJsonResolvers } from '../../src/aas/model/graphql-types';
import { JsonObject, parseVerified } from '../../src/aas/model/parse';
import { ELEMENT_TYPES, elementJsonResolvers } from '../../src/aas/submodels/element.types';
import { Submodel, submodelJsonResolvers } from '../../src/aas/submodels/submodel.types';

const SUBMODEL_ID = 'https://example.com/ids/sm/1';

const external = (value: string) => ({ type: 'ExternalReference', keys: [{ type: 'GlobalReference', value }] });
const inSubmodel = (type: string, idShort: string) => ({
  type: 'ModelReference',
  keys: [
    { type: 'Submodel', value: SUBMODEL_ID },
    { type, value: idShort },
  ],
});

const temperature = {
  extensions: [{ name: 'origin', valueType: 'xs:string', value: 'sensor' }],
  category: 'PARAMETER',
  idShort: 'Temperature',
  displayName: [{ language: 'en', text: 'Temperature' }],
  description: [
    { language: 'en', text: 'Measured temperature' },
    { language: 'de', text: 'Gemessene Temperatur' },
  ],
  semanticId: external('https://example.com/semantics/temperature'),
  supplementalSemanticIds: [external('https://example.com/semantics/measurement')],
  qualifiers: [{ kind: 'ConceptQualifier', type: 'unit', valueType: 'xs:string', value: 'degC' }],
  modelType: 'Property',
  valueType: 'xs:double',
  value: '21.5',
  valueId: external('https://example.com/values/room'),
};
const manufacturer = {
  idShort: 'Manufacturer',
  modelType: 'MultiLanguageProperty',
  value: [
    { language: 'en', text: 'ACME' },
    { language: 'de', text: 'ACME GmbH' },
  ],
};
const speed = { idShort: 'Speed', modelType: 'Range', valueType: 'xs:int', min: '1', max: '10' };
const payloadRef = { idShort: 'PayloadRef', modelType: 'ReferenceElement', value: inSubmodel('Blob', 'Payload') };
const payload = { idShort: 'Payload', modelType: 'Blob', value: 'AAEC', contentType: 'application/octet-stream' };
const manual = { idShort: 'Manual', modelType: 'File', value: '/aasx/files/manual.pdf', contentType: 'application/pdf' };
const serialNumber = { idShort: 'SerialNumber', modelType: 'Property', valueType: 'xs:string', value: 'SN-1' };
const part = { modelType: 'SubmodelElementCollection', value: [serialNumber] };
const parts = {
  idShort: 'Parts',
  modelType: 'SubmodelElementList',
  orderRelevant: true,
  semanticIdListElement: external('https://example.com/semantics/part'),
  typeValueListElement: 'SubmodelElementCollection',
  value: [{ ...part, semanticId: external('https://example.com/semantics/part') }],
};
const motor = {
  idShort: 'Motor',
  modelType: 'Entity',
  statements: [parts],
  entityType: 'SelfManagedEntity',
  // AASd-014 as aas-core verifies it: a self-managed entity has a global asset id or specific ones, not both.
  specificAssetIds: [{ name: 'serialNumber', value: 'M-42' }],
};
const drives = {
  idShort: 'Drives',
  modelType: 'RelationshipElement',
  first: inSubmodel('Entity', 'Motor'),
  second: external('https://example.com/assets/pump'),
};
const rate = { idShort: 'Rate', modelType: 'Property', valueType: 'xs:double', value: '3.5' };
const feeds = {
  idShort: 'Feeds',
  modelType: 'AnnotatedRelationshipElement',
  first: external('https://example.com/assets/pump'),
  second: external('https://example.com/assets/tank'),
  annotations: [rate],
};
const overheat = {
  idShort: 'Overheat',
  modelType: 'BasicEventElement',
  observed: inSubmodel('Property', 'Temperature'),
  direction: 'output',
  state: 'on',
  messageTopic: 'plant/motor/overheat',
  messageBroker: { type: 'ModelReference', keys: [{ type: 'Submodel', value: 'https://example.com/ids/sm/broker' }] },
  lastUpdate: '2024-05-01T12:00:00Z',
  minInterval: 'PT1S',
  maxInterval: 'PT1M',
};
const start = {
  idShort: 'Start',
  modelType: 'Operation',
  inputVariables: [{ value: { idShort: 'Rpm', modelType: 'Property', valueType: 'xs:int' } }],
  outputVariables: [{ value: { idShort: 'Started', modelType: 'Property', valueType: 'xs:boolean', value: 'true' } }],
  inoutputVariables: [{ value: { idShort: 'Limits', modelType: 'Range', valueType: 'xs:int', min: '0' } }],
};
const welding = { idShort: 'Welding', modelType: 'Capability' };

/** A canonical AAS JSON submodel holding one element of each of the 14 kinds. */
const SUBMODEL: JsonObject = {
  idShort: 'Everything',
  id: SUBMODEL_ID,
  administration: { version: '1', revision: '0' },
  kind: 'Instance',
  semanticId: external('https://example.com/semantics/everything'),
  qualifiers: [{ kind: 'ValueQualifier', type: 'quality', valueType: 'xs:string', value: 'One' }],
  modelType: 'Submodel',
  submodelElements: [
    temperature,
    manufacturer,
    speed,
    payloadRef,
    payload,
    manual,
    motor,
    drives,
    feeds,
    overheat,
    start,
    welding,
  ],
};

const CONCEPT_DESCRIPTION: JsonObject = {
  idShort: 'TemperatureConcept',
  displayName: [{ language: 'en', text: 'Temperature' }],
  administration: { version: '2' },
  id: 'https://example.com/semantics/temperature',
  embeddedDataSpecifications: [
    {
      dataSpecification: external('https://admin-shell.io/DataSpecificationTemplates/DataSpecificationIEC61360/3/0'),
      dataSpecificationContent: {
        modelType: 'DataSpecificationIec61360',
        preferredName: [{ language: 'en', text: 'Temperature' }],
        definition: [{ language: 'en', text: 'The temperature of the air in a room.' }],
        unit: 'degC',
      },
    },
  ],
  isCaseOf: [external('https://example.com/eclass/0173-1#02-AAA123#001')],
  modelType: 'ConceptDescription',
};

@Resolver()
class FixtureResolver {
  @Query(() => Submodel)
  submodel(): JsonObject {
    return SUBMODEL;
  }

  @Query(() => ConceptDescription)
  conceptDescription(): JsonObject {
    return CONCEPT_DESCRIPTION;
  }
}

// Every kind's fields, selected on the interface. Fields of one name but another shape carry an alias.
const KINDS = /* GraphQL */ `
  fragment Keys on Reference { type keys { type value } }
  fragment Kinds on SubmodelElement {
    __typename
    idShort
    modelType
    json
    ... on Property { value valueType valueId { ...Keys } }
    ... on MultiLanguageProperty { langValue: value { language text } }
    ... on Range { valueType min max }
    ... on ReferenceElement { refValue: value { ...Keys } }
    ... on Blob { contentType value }
    ... on File { contentType value }
    ... on SubmodelElementList {
      orderRelevant
      typeValueListElement
      valueTypeListElement
      semanticIdListElement { ...Keys }
    }
    ... on Entity { entityType globalAssetId specificAssetIds { name value } }
    ... on RelationshipElement { first { ...Keys } second { ...Keys } }
    ... on AnnotatedRelationshipElement { first { ...Keys } second { ...Keys } annotations { ...Leaf } }
    ... on BasicEventElement {
      observed { ...Keys }
      direction
      state
      messageTopic
      messageBroker { ...Keys }
      lastUpdate
      minInterval
      maxInterval
    }
    ... on Operation {
      inputVariables { value { ...Leaf } }
      outputVariables { value { ...Leaf } }
      inoutputVariables { json value { ...Leaf } }
    }
  }
  fragment Leaf on SubmodelElement {
    __typename
    idShort
    ... on Property { value valueType }
    ... on Range { valueType min max }
  }
`;

const SUBMODEL_QUERY = /* GraphQL */ `
  ${KINDS}
  query {
    submodel {
      id
      idShort
      kind
      __typename
      administration { version revision }
      semanticId { ...Keys }
      qualifiers { type valueType value kind }
      json
      submodelElements {
        ...Kinds
        category
        displayName { language text }
        description { language text }
        semanticId { ...Keys }
        supplementalSemanticIds { ...Keys }
        qualifiers { kind type valueType value valueId { ...Keys } semanticId { ...Keys } json }
        extensions
        embeddedDataSpecifications
        ... on Entity {
          statements {
            ...Kinds
            ... on SubmodelElementList {
              elements: value {
                ...Kinds
                semanticId { ...Keys }
                ... on SubmodelElementCollection { elements: value { ...Kinds } }
              }
            }
          }
        }
      }
    }
  }
`;

describe('GraphQL types of submodels, submodel elements and concept descriptions', () => {
  let schema: GraphQLSchema;
  // The response, checked field by field.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  let submodel: any;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  let elements: Record<string, any>;

  beforeAll(async () => {
    schema = await buildSchema({
      resolvers: [
        FixtureResolver,
        ...modelJsonResolvers,
        ...elementJsonResolvers,
        ...submodelJsonResolvers,
        ...conceptDescriptionJsonResolvers,
      ] as unknown as [Function, ...Function[]],
      orphanedTypes: ELEMENT_TYPES,
      validate: false,
    });
    const result = await graphql({ schema, source: SUBMODEL_QUERY });
    expect(result.errors).toBeUndefined();
    submodel = (result.data as JsonObject).submodel;
    elements = Object.fromEntries(submodel.submodelElements.map((e: JsonObject) => [e.idShort, e]));
  });

  it('uses a fixture that is canonical, valid AAS JSON', () => {
    expect(parseVerified('Submodel', jsonization.submodelFromJsonable, SUBMODEL)).toEqual(SUBMODEL);
    expect(parseVerified('ConceptDescription', jsonization.conceptDescriptionFromJsonable, CONCEPT_DESCRIPTION)).toEqual(
      CONCEPT_DESCRIPTION,
    );
  });

  it('names the 14 element kinds after the AAS, each implementing SubmodelElement', () => {
    const names = ELEMENT_TYPES.map((type) => type.name).sort();
    expect(names).toHaveLength(14);
    for (const name of names) {
      const type = schema.getType(name);
      expect(type && 'getInterfaces' in type && type.getInterfaces().map((i) => i.name)).toEqual(['SubmodelElement']);
    }
    expect(names).toEqual([
      'AnnotatedRelationshipElement',
      'BasicEventElement',
      'Blob',
      'Capability',
      'Entity',
      'File',
      'MultiLanguageProperty',
      'Operation',
      'Property',
      'Range',
      'ReferenceElement',
      'RelationshipElement',
      'SubmodelElementCollection',
      'SubmodelElementList',
    ]);
  });

  it('resolves the submodel as stored', () => {
    expect(submodel).toMatchObject({
      id: SUBMODEL_ID,
      idShort: 'Everything',
      kind: 'Instance',
      __typename: 'Submodel',
      administration: { version: '1', revision: '0' },
      semanticId: SUBMODEL.semanticId,
      qualifiers: SUBMODEL.qualifiers,
      json: SUBMODEL,
    });
    expect(submodel.submodelElements.map((e: JsonObject) => e.__typename)).toEqual([
      'Property',
      'MultiLanguageProperty',
      'Range',
      'ReferenceElement',
      'Blob',
      'File',
      'Entity',
      'RelationshipElement',
      'AnnotatedRelationshipElement',
      'BasicEventElement',
      'Operation',
      'Capability',
    ]);
    for (const element of submodel.submodelElements) {
      expect(element.modelType).toBe(element.__typename);
      expect(element.json).toEqual((SUBMODEL.submodelElements as JsonObject[]).find((e) => e.idShort === element.idShort));
    }
  });

  it('resolves the common fields and a typed Qualifier', () => {
    expect(elements.Temperature).toMatchObject({
      category: 'PARAMETER',
      displayName: temperature.displayName,
      description: temperature.description,
      semanticId: temperature.semanticId,
      supplementalSemanticIds: temperature.supplementalSemanticIds,
      qualifiers: [
        { ...temperature.qualifiers[0], valueId: null, semanticId: null, json: temperature.qualifiers[0] },
      ],
      extensions: temperature.extensions,
      embeddedDataSpecifications: null,
    });
    expect(elements.Welding).toMatchObject({ category: null, qualifiers: null, extensions: null });
  });

  it('resolves the value fields of the data elements', () => {
    expect(elements.Temperature).toMatchObject({ value: '21.5', valueType: 'xs:double', valueId: temperature.valueId });
    expect(elements.Manufacturer).toMatchObject({ langValue: manufacturer.value });
    expect(elements.Speed).toMatchObject({ valueType: 'xs:int', min: '1', max: '10' });
    expect(elements.PayloadRef).toMatchObject({ refValue: payloadRef.value });
    expect(elements.Payload).toMatchObject({ contentType: 'application/octet-stream', value: 'AAEC' });
    expect(elements.Manual).toMatchObject({ contentType: 'application/pdf', value: '/aasx/files/manual.pdf' });
  });

  it('resolves an entity holding a list of collections', () => {
    const entity = elements.Motor;
    expect(entity).toMatchObject({
      __typename: 'Entity',
      entityType: 'SelfManagedEntity',
      globalAssetId: null,
      specificAssetIds: [{ name: 'serialNumber', value: 'M-42' }],
      json: motor,
    });
    const [list] = entity.statements;
    expect(list).toMatchObject({
      __typename: 'SubmodelElementList',
      idShort: 'Parts',
      orderRelevant: true,
      typeValueListElement: 'SubmodelElementCollection',
      valueTypeListElement: null,
      semanticIdListElement: parts.semanticIdListElement,
      json: parts,
    });
    const [collection] = list.elements;
    expect(collection).toMatchObject({
      __typename: 'SubmodelElementCollection',
      idShort: null,
      semanticId: parts.semanticIdListElement,
      json: parts.value[0],
    });
    expect(collection.elements).toEqual([
      {
        __typename: 'Property',
        idShort: 'SerialNumber',
        modelType: 'Property',
        json: serialNumber,
        value: 'SN-1',
        valueType: 'xs:string',
        valueId: null,
      },
    ]);
  });

  it('resolves relationships and events', () => {
    expect(elements.Drives).toMatchObject({ first: drives.first, second: drives.second });
    expect(elements.Feeds).toMatchObject({
      first: feeds.first,
      second: feeds.second,
      annotations: [{ __typename: 'Property', idShort: 'Rate', value: '3.5', valueType: 'xs:double' }],
    });
    expect(elements.Overheat).toMatchObject({
      observed: overheat.observed,
      direction: 'output',
      state: 'on',
      messageTopic: 'plant/motor/overheat',
      messageBroker: overheat.messageBroker,
      lastUpdate: '2024-05-01T12:00:00Z',
      minInterval: 'PT1S',
      maxInterval: 'PT1M',
    });
  });

  it('resolves an operation with its variables, and a capability', () => {
    expect(elements.Start).toMatchObject({
      inputVariables: [{ value: { __typename: 'Property', idShort: 'Rpm', value: null, valueType: 'xs:int' } }],
      outputVariables: [{ value: { __typename: 'Property', idShort: 'Started', value: 'true' } }],
      inoutputVariables: [
        {
          json: start.inoutputVariables[0],
          value: { __typename: 'Range', idShort: 'Limits', valueType: 'xs:int', min: '0', max: null },
        },
      ],
    });
    expect(elements.Welding).toEqual(expect.objectContaining({ __typename: 'Capability', json: welding }));
  });

  it('resolves a concept description', async () => {
    const result = await graphql({
      schema,
      source: /* GraphQL */ `
        query {
          conceptDescription {
            __typename
            id
            idShort
            category
            displayName { language text }
            description { language text }
            administration { version revision json }
            isCaseOf { type keys { type value } }
            embeddedDataSpecifications
            extensions
            json
          }
        }
      `,
    });
    expect(result.errors).toBeUndefined();
    expect((result.data as JsonObject).conceptDescription).toEqual({
      __typename: 'ConceptDescription',
      id: CONCEPT_DESCRIPTION.id,
      idShort: 'TemperatureConcept',
      category: null,
      displayName: CONCEPT_DESCRIPTION.displayName,
      description: null,
      administration: { version: '2', revision: null, json: { version: '2' } },
      isCaseOf: CONCEPT_DESCRIPTION.isCaseOf,
      embeddedDataSpecifications: CONCEPT_DESCRIPTION.embeddedDataSpecifications,
      extensions: null,
      json: CONCEPT_DESCRIPTION,
    });
  });

  it('serializes enums as the AAS JSON strings', () => {
    const values = (name: string) => {
      const type = schema.getType(name);
      return type && 'getValues' in type ? type.getValues().map((v) => v.name) : undefined;
    };
    expect(values('Direction')).toEqual(['input', 'output']);
    expect(values('StateOfEvent')).toEqual(['on', 'off']);
    expect(values('EntityType')).toEqual(['CoManagedEntity', 'SelfManagedEntity']);
    expect(values('QualifierKind')).toEqual(['ValueQualifier', 'ConceptQualifier', 'TemplateQualifier']);
    expect(values('ModellingKind')).toEqual(['Template', 'Instance']);
  });
});
