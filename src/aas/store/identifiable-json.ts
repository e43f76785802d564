import { Field, ObjectType } from 'type-graphql';

@ObjectType({ description: 'An identifiable serialized: its AAS JSON as text, and its entity tag.' })
export class IdentifiableJson {
  @Field({ description: 'The AAS JSON of the identifiable, as text.' })
  text: string;

  @Field()
  etag: string;
}
