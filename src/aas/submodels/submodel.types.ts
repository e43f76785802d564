import { GraphQLJSONObject } from 'graphql-scalars';
import { Field, ObjectType, registerEnumType } from 'type-graphql';
import {
  AdministrativeInformation,
  LangString,
  PagingMetadata,
  Reference,
  jsonFieldResolver,
} from '../model/graphql-types';
import { JsonObject } from '../model/parse';
import { Qualifier, SubmodelElement } from './element.types';

export enum ModellingKind {
  Template = 'Template',
  Instance = 'Instance',
}
registerEnumType(ModellingKind, { name: 'ModellingKind' });

@ObjectType('Submodel', { description: 'A submodel, as its AAS JSON serialization.' })
export class Submodel {
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

  @Field(() => ModellingKind, { nullable: true, description: 'Absent in the document means Instance.' })
  kind?: ModellingKind;

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

  @Field(() => [SubmodelElement], { nullable: true })
  submodelElements?: SubmodelElement[];
}

@ObjectType('SubmodelPage')
export class SubmodelPage {
  @Field(() => [Submodel])
  result: Submodel[];

  @Field(() => PagingMetadata)
  pagingMetadata: PagingMetadata;
}

export const submodelJsonResolvers = [Submodel].map(jsonFieldResolver);
