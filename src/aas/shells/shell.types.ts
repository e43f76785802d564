import { Field, InputType, ObjectType } from 'type-graphql';
import {
  Identifiable,
  AssetKind,
  PagingMetadata,
  Reference,
  Resource,
  SpecificAssetId,
  jsonFieldResolver,
} from '../model/graphql-types';

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

@ObjectType({ implements: Identifiable, description: 'An Asset Administration Shell.' })
export class Shell extends Identifiable {
  @Field(() => Reference, { nullable: true })
  derivedFrom?: Reference;

  @Field(() => AssetInformation)
  assetInformation: AssetInformation;
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

@InputType({
  description:
    'Shells matching every filter given. Text filters (`...StartsWith`, `...Contains`, `displayName`) compare case-sensitively, ' +
    'by code point; `%` and `_` are plain characters. `displayName` filters match a text of any language.',
})
export class ShellFilterInput {
  @Field(() => [SpecificAssetIdInput], { nullable: true, description: 'Shells that carry all of these asset ids.' })
  assetIds?: SpecificAssetIdInput[];

  @Field({ nullable: true })
  idShort?: string;

  @Field(() => AssetKind, { nullable: true, description: 'Instance or Type; absent means all kinds.' })
  assetKind?: AssetKind;

  @Field({ nullable: true, description: 'Shells whose idShort starts with this text.' })
  idShortStartsWith?: string;

  @Field({ nullable: true, description: 'Shells whose idShort contains this text.' })
  idShortContains?: string;

  @Field({ nullable: true, description: 'Shells whose id starts with this text.' })
  idStartsWith?: string;

  @Field({ nullable: true, description: 'Shells whose id contains this text.' })
  idContains?: string;

  @Field({ nullable: true, description: 'Shells with a displayName text (any language) equal to this text.' })
  displayName?: string;

  @Field({ nullable: true, description: 'Shells with a displayName text (any language) that starts with this text.' })
  displayNameStartsWith?: string;

  @Field({ nullable: true, description: 'Shells with a displayName text (any language) that contains this text.' })
  displayNameContains?: string;
}

export const shellJsonResolvers = [Shell, AssetInformation].map(jsonFieldResolver);
