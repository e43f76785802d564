import { Field, ObjectType, registerEnumType } from 'type-graphql';
import {
  Identifiable,
  PagingMetadata,
  Reference,
  jsonFieldResolver,
} from '../model/graphql-types';
import { Qualifier, SubmodelElement } from './element.types';

export enum ModellingKind {
  Template = 'Template',
  Instance = 'Instance',
}
registerEnumType(ModellingKind, { name: 'ModellingKind' });

@ObjectType('Submodel', { implements: Identifiable, description: 'A submodel, as its AAS JSON serialization.' })
export class Submodel extends Identifiable {
  @Field(() => ModellingKind, { nullable: true, description: 'Absent in the document means Instance.' })
  kind?: ModellingKind;

  @Field(() => Reference, { nullable: true })
  semanticId?: Reference;

  @Field(() => [Reference], { nullable: true })
  supplementalSemanticIds?: Reference[];

  @Field(() => [Qualifier], { nullable: true })
  qualifiers?: Qualifier[];

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

@ObjectType('PathPage', { description: 'A page of idShortPaths (GetPathItemsResult).' })
export class PathPage {
  @Field(() => [String])
  result: string[];

  @Field(() => PagingMetadata)
  pagingMetadata: PagingMetadata;
}

export const submodelJsonResolvers = [Submodel].map(jsonFieldResolver);
