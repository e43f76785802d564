import { GraphQLJSONObject } from 'graphql-scalars';
import { Field, InterfaceType, ObjectType, registerEnumType } from 'type-graphql';
import { LangString, Reference, SpecificAssetId, jsonFieldResolver } from '../model/graphql-types';
import { JsonObject } from '../model/parse';

/**
 * GraphQL types for submodel elements: one interface, one object type per element kind. Like the other AAS
 * types they map 1:1 onto the AAS JSON serialization (field names, enum values), so a stored element resolves
 * as it is; `modelType` picks the object type.
 *
 * Fields of the same name but different shape in different kinds (`value` is a String in Property, a
 * [LangString] in MultiLanguageProperty, a Reference in ReferenceElement, a list of elements in collections)
 * cannot be selected side by side in one selection set without aliases; that is GraphQL's rule, not ours.
 */

export enum QualifierKind {
  ValueQualifier = 'ValueQualifier',
  ConceptQualifier = 'ConceptQualifier',
  TemplateQualifier = 'TemplateQualifier',
}
registerEnumType(QualifierKind, { name: 'QualifierKind' });

export enum EntityType {
  CoManagedEntity = 'CoManagedEntity',
  SelfManagedEntity = 'SelfManagedEntity',
}
registerEnumType(EntityType, { name: 'EntityType' });

// The AAS JSON spells these in lower case; GraphQL enum names are the serialized values, so they are too.
export enum Direction {
  input = 'input',
  output = 'output',
}
registerEnumType(Direction, { name: 'Direction' });

export enum StateOfEvent {
  on = 'on',
  off = 'off',
}
registerEnumType(StateOfEvent, { name: 'StateOfEvent' });

@ObjectType('Qualifier')
export class Qualifier {
  @Field()
  type: string;

  @Field({ description: 'An xs: data type, e.g. `xs:string`.' })
  valueType: string;

  @Field({ nullable: true })
  value?: string;

  @Field(() => Reference, { nullable: true })
  valueId?: Reference;

  @Field(() => QualifierKind, { nullable: true })
  kind?: QualifierKind;

  @Field(() => Reference, { nullable: true })
  semanticId?: Reference;

  @Field(() => [Reference], { nullable: true })
  supplementalSemanticIds?: Reference[];
}

@InterfaceType('SubmodelElement', {
  description: 'A submodel element; `modelType` names its kind, which is also its GraphQL type.',
  resolveType: (element: JsonObject) => element.modelType as string,
})
export class SubmodelElement {
  @Field({ nullable: true, description: 'Absent for the elements of a SubmodelElementList.' })
  idShort?: string;

  @Field({ nullable: true })
  category?: string;

  @Field(() => [LangString], { nullable: true })
  displayName?: LangString[];

  @Field(() => [LangString], { nullable: true })
  description?: LangString[];

  @Field(() => Reference, { nullable: true })
  semanticId?: Reference;

  @Field(() => [Reference], { nullable: true })
  supplementalSemanticIds?: Reference[];

  @Field(() => [Qualifier], { nullable: true })
  qualifiers?: Qualifier[];

  @Field(() => [GraphQLJSONObject], { nullable: true })
  embeddedDataSpecifications?: JsonObject[];

  @Field(() => [GraphQLJSONObject], { nullable: true })
  extensions?: JsonObject[];

  @Field({ description: 'The kind of element, e.g. `Property`.' })
  modelType: string;
}

@ObjectType('Property', { implements: SubmodelElement })
export class Property extends SubmodelElement {
  @Field({ description: 'An xs: data type, e.g. `xs:double`.' })
  valueType: string;

  @Field({ nullable: true })
  value?: string;

  @Field(() => Reference, { nullable: true })
  valueId?: Reference;
}

@ObjectType('MultiLanguageProperty', { implements: SubmodelElement })
export class MultiLanguageProperty extends SubmodelElement {
  @Field(() => [LangString], { nullable: true })
  value?: LangString[];

  @Field(() => Reference, { nullable: true })
  valueId?: Reference;
}

@ObjectType('Range', { implements: SubmodelElement })
export class Range extends SubmodelElement {
  @Field({ description: 'An xs: data type, e.g. `xs:int`.' })
  valueType: string;

  @Field({ nullable: true })
  min?: string;

  @Field({ nullable: true })
  max?: string;
}

@ObjectType('ReferenceElement', { implements: SubmodelElement })
export class ReferenceElement extends SubmodelElement {
  @Field(() => Reference, { nullable: true })
  value?: Reference;
}

@ObjectType('Blob', { implements: SubmodelElement })
export class Blob extends SubmodelElement {
  @Field()
  contentType: string;

  @Field({ nullable: true, description: 'The content, base64-encoded as in the AAS JSON.' })
  value?: string;
}

@ObjectType('File', { implements: SubmodelElement })
export class File extends SubmodelElement {
  @Field()
  contentType: string;

  @Field({ nullable: true, description: 'A path or URI of the file.' })
  value?: string;
}

@ObjectType('SubmodelElementCollection', { implements: SubmodelElement })
export class SubmodelElementCollection extends SubmodelElement {
  @Field(() => [SubmodelElement], { nullable: true })
  value?: SubmodelElement[];
}

@ObjectType('SubmodelElementList', { implements: SubmodelElement })
export class SubmodelElementList extends SubmodelElement {
  @Field({ nullable: true })
  orderRelevant?: boolean;

  @Field(() => Reference, { nullable: true })
  semanticIdListElement?: Reference;

  @Field({ description: 'The kind of the elements, e.g. `Property`.' })
  typeValueListElement: string;

  @Field({ nullable: true, description: 'The xs: data type of the elements, for data elements.' })
  valueTypeListElement?: string;

  @Field(() => [SubmodelElement], { nullable: true })
  value?: SubmodelElement[];
}

@ObjectType('Entity', { implements: SubmodelElement })
export class Entity extends SubmodelElement {
  @Field(() => [SubmodelElement], { nullable: true })
  statements?: SubmodelElement[];

  @Field(() => EntityType)
  entityType: EntityType;

  @Field({ nullable: true })
  globalAssetId?: string;

  @Field(() => [SpecificAssetId], { nullable: true })
  specificAssetIds?: SpecificAssetId[];
}

@ObjectType('RelationshipElement', { implements: SubmodelElement })
export class RelationshipElement extends SubmodelElement {
  @Field(() => Reference)
  first: Reference;

  @Field(() => Reference)
  second: Reference;
}

@ObjectType('AnnotatedRelationshipElement', { implements: SubmodelElement })
export class AnnotatedRelationshipElement extends SubmodelElement {
  @Field(() => Reference)
  first: Reference;

  @Field(() => Reference)
  second: Reference;

  @Field(() => [SubmodelElement], { nullable: true, description: 'Data elements annotating the relationship.' })
  annotations?: SubmodelElement[];
}

@ObjectType('BasicEventElement', { implements: SubmodelElement })
export class BasicEventElement extends SubmodelElement {
  @Field(() => Reference)
  observed: Reference;

  @Field(() => Direction)
  direction: Direction;

  @Field(() => StateOfEvent)
  state: StateOfEvent;

  @Field({ nullable: true })
  messageTopic?: string;

  @Field(() => Reference, { nullable: true })
  messageBroker?: Reference;

  @Field({ nullable: true, description: 'An xs:dateTime in UTC.' })
  lastUpdate?: string;

  @Field({ nullable: true, description: 'An xs:duration.' })
  minInterval?: string;

  @Field({ nullable: true, description: 'An xs:duration.' })
  maxInterval?: string;
}

@ObjectType('OperationVariable')
export class OperationVariable {
  @Field(() => SubmodelElement)
  value: SubmodelElement;
}

@ObjectType('Operation', { implements: SubmodelElement })
export class Operation extends SubmodelElement {
  @Field(() => [OperationVariable], { nullable: true })
  inputVariables?: OperationVariable[];

  @Field(() => [OperationVariable], { nullable: true })
  outputVariables?: OperationVariable[];

  @Field(() => [OperationVariable], { nullable: true })
  inoutputVariables?: OperationVariable[];
}

@ObjectType('Capability', { implements: SubmodelElement })
export class Capability extends SubmodelElement {}

/** The object types of the 14 element kinds, to register as orphaned types where no field names them. */
export const ELEMENT_TYPES = [
  Property,
  MultiLanguageProperty,
  Range,
  ReferenceElement,
  Blob,
  File,
  SubmodelElementCollection,
  SubmodelElementList,
  Entity,
  RelationshipElement,
  AnnotatedRelationshipElement,
  BasicEventElement,
  Operation,
  Capability,
];

export const elementJsonResolvers = [SubmodelElement, ...ELEMENT_TYPES, OperationVariable, Qualifier].map(
  jsonFieldResolver,
);
