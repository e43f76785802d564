import { GraphQLJSONObject } from 'graphql-scalars';
import { ClassType, Ctx, Field, FieldResolver, InterfaceType, ObjectType, Resolver, Root, registerEnumType } from 'type-graphql';
import { type VersionedRequest, objectForVersion } from '../versions/view';
import { JsonObject } from './parse';

/**
 * GraphQL types for the parts of the AAS metamodel that people query. Each maps 1:1 onto the AAS JSON
 * serialization, so a stored document resolves without conversion; `json` carries the whole object.
 */

export enum AssetKind {
  Instance = 'Instance',
  Type = 'Type',
  NotApplicable = 'NotApplicable',
  /** New in AAS V3.1: only in documents read through V3.1 (`aasVersion: V3_1`); V3.0 reads it as NotApplicable. */
  Role = 'Role',
}
registerEnumType(AssetKind, { name: 'AssetKind' });

export enum ReferenceTypes {
  ExternalReference = 'ExternalReference',
  ModelReference = 'ModelReference',
}
registerEnumType(ReferenceTypes, { name: 'ReferenceTypes' });

export enum KeyTypes {
  AnnotatedRelationshipElement = 'AnnotatedRelationshipElement',
  AssetAdministrationShell = 'AssetAdministrationShell',
  BasicEventElement = 'BasicEventElement',
  Blob = 'Blob',
  Capability = 'Capability',
  ConceptDescription = 'ConceptDescription',
  DataElement = 'DataElement',
  Entity = 'Entity',
  EventElement = 'EventElement',
  File = 'File',
  FragmentReference = 'FragmentReference',
  GlobalReference = 'GlobalReference',
  Identifiable = 'Identifiable',
  MultiLanguageProperty = 'MultiLanguageProperty',
  Operation = 'Operation',
  Property = 'Property',
  Range = 'Range',
  Referable = 'Referable',
  ReferenceElement = 'ReferenceElement',
  RelationshipElement = 'RelationshipElement',
  Submodel = 'Submodel',
  SubmodelElement = 'SubmodelElement',
  SubmodelElementCollection = 'SubmodelElementCollection',
  SubmodelElementList = 'SubmodelElementList',
}
registerEnumType(KeyTypes, { name: 'KeyTypes' });

/**
 * Adds the field `json` (the whole object in the AAS JSON serialization) to an AAS object type. The objects
 * resolved are the stored AAS JSON itself, so the field returns its root, as the request's version sees it.
 */
export function jsonFieldResolver(type: ClassType): ClassType {
  @Resolver(() => type)
  class JsonFieldResolver {
    @FieldResolver(() => GraphQLJSONObject, { description: 'The whole object in the AAS JSON serialization.' })
    json(@Root() root: JsonObject, @Ctx() ctx: VersionedRequest | undefined): JsonObject {
      // As the request's version sees it (V3.0: V3.1 content mapped down, src/aas/versions/view.ts).
      return objectForVersion(ctx, root);
    }
  }
  return JsonFieldResolver;
}

@ObjectType({ description: 'A string in one language (LangStringNameType, LangStringTextType and kin).' })
export class LangString {
  @Field()
  language: string;

  @Field()
  text: string;
}

@ObjectType()
export class Key {
  @Field(() => KeyTypes)
  type: KeyTypes;

  @Field()
  value: string;
}

@ObjectType()
export class Reference {
  @Field(() => ReferenceTypes)
  type: ReferenceTypes;

  @Field(() => Reference, { nullable: true })
  referredSemanticId?: Reference;

  @Field(() => [Key])
  keys: Key[];
}

@ObjectType()
export class SpecificAssetId {
  @Field()
  name: string;

  @Field()
  value: string;

  @Field(() => Reference, { nullable: true })
  externalSubjectId?: Reference;

  @Field(() => Reference, { nullable: true })
  semanticId?: Reference;
}

@ObjectType()
export class Resource {
  @Field()
  path: string;

  @Field({ nullable: true })
  contentType?: string;
}

@ObjectType()
export class AdministrativeInformation {
  @Field({ nullable: true })
  version?: string;

  @Field({ nullable: true })
  revision?: string;

  @Field(() => Reference, { nullable: true })
  creator?: Reference;

  @Field({ nullable: true })
  templateId?: string;
}

/** The attributes every identifiable (shell, submodel, concept description) has; their types implement it. */
@InterfaceType({ description: 'An identifiable of the AAS metamodel: a shell, a submodel or a concept description.' })
export abstract class Identifiable {
  @Field()
  id: string;

  @Field({ nullable: true })
  idShort?: string;

  @Field({ nullable: true })
  category?: string;

  @Field(() => [LangString], { nullable: true })
  displayName?: LangString[];

  @Field(() => [LangString], { nullable: true })
  description?: LangString[];

  @Field(() => AdministrativeInformation, { nullable: true })
  administration?: AdministrativeInformation;

  @Field(() => [GraphQLJSONObject], { nullable: true })
  extensions?: JsonObject[];

  @Field(() => [GraphQLJSONObject], { nullable: true })
  embeddedDataSpecifications?: JsonObject[];
}

@ObjectType({ description: 'Paging information; `cursor` is absent on the last page.' })
export class PagingMetadata {
  @Field({ nullable: true })
  cursor?: string;
}

export const modelJsonResolvers = [Reference, SpecificAssetId, AdministrativeInformation].map(jsonFieldResolver);
