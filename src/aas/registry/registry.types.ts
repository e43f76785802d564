import { GraphQLJSONObject } from 'graphql-scalars';
import { Field, InputType, ObjectType } from 'type-graphql';
import { AssetKind, PagingMetadata, Reference } from '../model/graphql-types';
import { SpecificAssetIdInput } from '../shells/shell.types';
import { type Stored, submodelDescriptorsOf } from './stored';

/**
 * GraphQL types of the registries and discovery. A descriptor resolves from what the services hand out, a
 * `Stored` ({json, etag}), made into an object of its type by `descriptorObject`: the typed fields read the
 * descriptor's JSON, `json` is all of it.
 */

@ObjectType({ description: 'A SubmodelDescriptor (AAS Part 2): a submodel and the endpoints it is served at.' })
export class SubmodelDescriptor {
  @Field()
  id: string;

  @Field({ nullable: true })
  idShort?: string;

  @Field(() => Reference, { nullable: true })
  semanticId?: Reference;

  @Field({
    description:
      "The entity tag, for If-Match. Under a shell descriptor, that shell descriptor's (it is part of its document; in an explicit registry its writes lock it); in the implicit submodel registry, a hash of the descriptor.",
  })
  etag: string;

  @Field(() => GraphQLJSONObject, { description: 'The whole descriptor, as the registry API serves it.' })
  json: Record<string, unknown>;
}

@ObjectType({ description: 'An AssetAdministrationShellDescriptor (AAS Part 2): a shell, its asset, its endpoints and its submodel descriptors.' })
export class ShellDescriptor {
  @Field()
  id: string;

  @Field({ nullable: true })
  idShort?: string;

  @Field(() => AssetKind, { nullable: true })
  assetKind?: AssetKind;

  @Field({ nullable: true })
  assetType?: string;

  @Field({ nullable: true })
  globalAssetId?: string;

  @Field({ description: 'The entity tag, for If-Match.' })
  etag: string;

  @Field(() => GraphQLJSONObject, { description: 'The whole descriptor, as the registry API serves it.' })
  json: Record<string, unknown>;

  @Field(() => [SubmodelDescriptor], { description: 'Its submodel descriptors, in order (each with this descriptor\'s entity tag).' })
  submodelDescriptors: SubmodelDescriptor[];
}

/**
 * The GraphQL object of a stored descriptor, a shell's or a submodel's (a field its type lacks is never read): the
 * typed fields are the JSON's members of their names, `json` and `etag` as stored; a shell descriptor's submodel
 * descriptors carry its entity tag (they are part of its document).
 */
export function descriptorObject({ json, etag }: Stored): ShellDescriptor & SubmodelDescriptor {
  const submodelDescriptors = submodelDescriptorsOf(json).map((sm) => descriptorObject({ json: sm, etag }));
  return { ...json, json, etag, submodelDescriptors } as unknown as ShellDescriptor & SubmodelDescriptor;
}

@ObjectType()
export class ShellDescriptorPage {
  @Field(() => [ShellDescriptor])
  result: ShellDescriptor[];

  @Field(() => PagingMetadata)
  pagingMetadata: PagingMetadata;
}

@ObjectType()
export class SubmodelDescriptorPage {
  @Field(() => [SubmodelDescriptor])
  result: SubmodelDescriptor[];

  @Field(() => PagingMetadata)
  pagingMetadata: PagingMetadata;
}

@ObjectType({ description: 'A page of shell ids (discovery).' })
export class ShellIdPage {
  @Field(() => [String])
  result: string[];

  @Field(() => PagingMetadata)
  pagingMetadata: PagingMetadata;
}

@InputType({ description: 'Which shell descriptors: all conditions given must hold.' })
export class ShellDescriptorFilterInput {
  @Field(() => AssetKind, { nullable: true })
  assetKind?: AssetKind;

  @Field({ nullable: true })
  assetType?: string;

  @Field(() => [SpecificAssetIdInput], { nullable: true, description: 'Descriptors that carry all of these asset ids (`globalAssetId` names the global asset id).' })
  assetIds?: SpecificAssetIdInput[];

  @Field(() => GraphQLJSONObject, {
    nullable: true,
    description: 'Descriptors with a submodel descriptor whose semanticId is this Reference (type and keys equal). Explicit registries only.',
  })
  submodelSemanticId?: Record<string, unknown>;

  @Field({ nullable: true, description: 'Descriptors with a submodel descriptor whose semanticId has a key with this value. Explicit registries only.' })
  submodelSemanticIdValue?: string;
}

@InputType({ description: 'Which submodel descriptors.' })
export class SubmodelDescriptorFilterInput {
  @Field(() => GraphQLJSONObject, { nullable: true, description: 'Submodel descriptors whose semanticId is this Reference (type and keys equal).' })
  semanticId?: Record<string, unknown>;

  @Field({ nullable: true, description: 'Submodel descriptors whose semanticId has a key with this value.' })
  semanticIdValue?: string;
}
