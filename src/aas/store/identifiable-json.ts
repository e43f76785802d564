import { Field, ObjectType } from 'type-graphql';
import { PagingMetadata } from '../model/graphql-types';

@ObjectType({ description: 'An identifiable serialized: its AAS JSON as text, and its entity tag.' })
export class IdentifiableJson {
  @Field({ description: 'The AAS JSON of the identifiable, as text.' })
  text: string;

  @Field()
  etag: string;

  @Field(() => [String], { nullable: true, description: 'What was mapped down for a V3.0 reader of a document that needs V3.1 (absent when nothing was).' })
  mappedForV30?: string[];
}

@ObjectType({ description: 'A page of identifiables serialized: their AAS JSON texts, as stored, in insertion order.' })
export class IdentifiableJsonPage {
  @Field(() => [String], { description: 'The AAS JSON of each, as text.' })
  result: string[];

  @Field(() => PagingMetadata)
  pagingMetadata: PagingMetadata;
}
