import { GraphQLJSONObject } from 'graphql-scalars';
import { Field, InputType, ObjectType } from 'type-graphql';
import {
  AdministrativeInformation,
  AssetKind,
  LangString,
  PagingMetadata,
  Reference,
  Resource,
  SpecificAssetId,
  jsonFieldResolver,
} from '../model/graphql-types';
import { JsonObject } from '../model/parse';

@ObjectType()
export class AssetInformation {
  @Field(() => AssetKind)
  assetKind: AssetKind;

  @Field({ nullable: true })
  globalAssetId?: string;

  @Field(() => [SpecificAssetId], { nullable: true })
  specificAssetIds?: SpecificAssetId[];

  @Field({ nullable: true })
  assetType?: string;

  @Field(() => Resource, { nullable: true })
  defaultThumbnail?: Resource;
}

@ObjectType({ description: 'An Asset Administration Shell.' })
export class Shell {
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

  @Field(() => Reference, { nullable: true })
  derivedFrom?: Reference;

  @Field(() => AssetInformation)
  assetInformation: AssetInformation;

  @Field(() => [GraphQLJSONObject], { nullable: true })
  extensions?: JsonObject[];

  @Field(() => [GraphQLJSONObject], { nullable: true })
  embeddedDataSpecifications?: JsonObject[];
}

@ObjectType()
export class ShellPage {
  @Field(() => [Shell])
  result: Shell[];

  @Field(() => PagingMetadata)
  pagingMetadata: PagingMetadata;
}

@ObjectType()
export class ReferencePage {
  @Field(() => [Reference])
  result: Reference[];

  @Field(() => PagingMetadata)
  pagingMetadata: PagingMetadata;
}

@InputType({ description: 'A specific asset id to match; name `globalAssetId` matches the global asset id.' })
export class SpecificAssetIdInput {
  @Field()
  name: string;

  @Field()
  value: string;
}

@InputType()
export class ShellFilterInput {
  @Field(() => [SpecificAssetIdInput], { nullable: true, description: 'Shells that carry all of these asset ids.' })
  assetIds?: SpecificAssetIdInput[];

  @Field({ nullable: true })
  idShort?: string;

  @Field(() => AssetKind, { nullable: true, description: 'Instance or Type; absent means all kinds.' })
  assetKind?: AssetKind;
}

export const shellJsonResolvers = [Shell, AssetInformation].map(jsonFieldResolver);
