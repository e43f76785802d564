import { GraphQLJSONObject } from 'graphql-scalars';
import { Field, ObjectType } from 'type-graphql';
import {
  AdministrativeInformation,
  LangString,
  PagingMetadata,
  Reference,
  jsonFieldResolver,
} from '../model/graphql-types';
import { JsonObject } from '../model/parse';

@ObjectType('ConceptDescription', { description: 'A concept description, as its AAS JSON serialization.' })
export class ConceptDescription {
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

  @Field(() => [Reference], { nullable: true })
  isCaseOf?: Reference[];

  @Field(() => [GraphQLJSONObject], { nullable: true })
  embeddedDataSpecifications?: JsonObject[];

  @Field(() => [GraphQLJSONObject], { nullable: true })
  extensions?: JsonObject[];
}

@ObjectType('ConceptDescriptionPage')
export class ConceptDescriptionPage {
  @Field(() => [ConceptDescription])
  result: ConceptDescription[];

  @Field(() => PagingMetadata)
  pagingMetadata: PagingMetadata;
}

export const conceptDescriptionJsonResolvers = [ConceptDescription].map(jsonFieldResolver);
