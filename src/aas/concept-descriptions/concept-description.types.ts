import { Field, ObjectType } from 'type-graphql';
import {
  Identifiable,
  PagingMetadata,
  Reference,
  jsonFieldResolver,
} from '../model/graphql-types';

@ObjectType('ConceptDescription', { implements: Identifiable, description: 'A concept description, as its AAS JSON serialization.' })
export class ConceptDescription extends Identifiable {
  @Field(() => [Reference], { nullable: true })
  isCaseOf?: Reference[];
}

@ObjectType('ConceptDescriptionPage')
export class ConceptDescriptionPage {
  @Field(() => [ConceptDescription])
  result: ConceptDescription[];

  @Field(() => PagingMetadata)
  pagingMetadata: PagingMetadata;
}

export const conceptDescriptionJsonResolvers = [ConceptDescription].map(jsonFieldResolver);
