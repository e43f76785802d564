import type { AasVersion } from '../versions';
import { AAS_VERSION_ARGUMENT, AasVersionArg } from '../versions/graphql-types';
import { GraphQLJSON, GraphQLJSONObject } from 'graphql-scalars';
import { Arg, Args, ArgsType, Authorized, Ctx, Field, FieldResolver, InputType, Int, Mutation, ObjectType, Query, Resolver, Root, registerEnumType } from 'type-graphql';
import { DEFAULT_LIMIT } from '../../common/cursor';
import { Context, tenantOf } from '../../graphql/context';
import { methodNotAllowed, notImplemented } from '../../graphql/errors';
import { ConceptDescription } from '../concept-descriptions/concept-description.types';
import { PagingMetadata, Reference } from '../model/graphql-types';
import { referenceKeyOf, valueKey } from '../model/reference-keys';
import { JsonObject } from '../model/parse';
import { QUERY_ARGUMENT_DESCRIPTION, usesQuery } from '../query/query.resolver';
import { SemanticMatchingArg } from '../semantics/semantic.types';
import type { TenantEntity } from '../../management/tenants/tenant.entity';
import { IdentifiableJson } from '../store/identifiable-json';
import { markedIfMapped, seenAs, versionOf, viewOf, viewedText } from '../versions/view';
import { Page, originOf } from '../store/identifiable-store';
import { Level, descendantPaths, formatIdShortPath, metadataOf, shapeForOutput, storedIndexPaths } from './element-tree';
import { leftOutInV30 } from '../model/v31-mapping';
import { SubmodelElement } from './element.types';
import { ElementAt, SubmodelFilter } from './submodel.service';
import { ModellingKind, PathPage, Submodel, SubmodelPage } from './submodel.types';
import { SEMANTIC_ID_MATCHING_DESCRIPTION, equivalenceOf } from '../semantics/equivalence';
import { elementValue, hasValue, submodelValue } from './value-only';

export enum Extent {
  WithBLOBValue = 'WithBLOBValue',
  WithoutBLOBValue = 'WithoutBLOBValue',
}
registerEnumType(Extent, { name: 'Extent', description: 'Whether Blob elements carry their value (base64) or only their content type.' });

export enum LevelArg {
  deep = 'deep',
  core = 'core',
}
registerEnumType(LevelArg, { name: 'Level', description: '`core`: the direct children only, without theirs.' });

/** Where a submodel write goes: through which shell, if any, and under which `If-Match`. */
@ArgsType()
class WriteScope {
  @Field(() => String, { nullable: true, description: 'Address the submodel through this shell; it must reference it.' })
  shellId?: string | null;

  @Field(() => String, { nullable: true, description: 'The If-Match header: the write happens only when it matches the current entity tag.' })
  ifMatch?: string | null;
}

@InputType()
export class SubmodelFilterInput {
  @Field(() => GraphQLJSONObject, { nullable: true, description: 'Submodels whose semantic id is this Reference (type and keys equal).' })
  semanticId?: JsonObject;

  @Field({ nullable: true, description: 'Submodels whose semantic id has a key with this value.' })
  semanticIdValue?: string;

  @Field(() => SemanticMatchingArg, { nullable: true, description: 'How semanticId or semanticIdValue matches: exact (default) or equivalent (by its first key).' })
  semanticIdMatching?: SemanticMatchingArg;

  @Field({ nullable: true })
  idShort?: string;

  @Field(() => ModellingKind, { nullable: true, description: 'Instance or Template; absent means all kinds.' })
  kind?: ModellingKind;

  @Field({ nullable: true, description: 'Submodels whose idShort starts with this text (case-sensitive; `%` and `_` are plain characters).' })
  idShortStartsWith?: string;

  @Field({ nullable: true, description: 'Submodels whose idShort contains this text (case-sensitive).' })
  idShortContains?: string;

  @Field({ nullable: true, description: 'Submodels whose id starts with this text (case-sensitive).' })
  idStartsWith?: string;

  @Field({ nullable: true, description: 'Submodels whose id contains this text (case-sensitive).' })
  idContains?: string;
}

@ObjectType({ description: 'A submodel element with its place: its idShortPath in the submodel.' })
export class SubmodelElementAtPath {
  @Field()
  idShortPath: string;

  @Field(() => SubmodelElement)
  element: JsonObject;
}

@ObjectType()
export class SubmodelElementPage {
  @Field(() => [SubmodelElementAtPath])
  result: SubmodelElementAtPath[];

  @Field(() => PagingMetadata)
  pagingMetadata: PagingMetadata;
}

/** How many items a page holds, where it starts, and how deep its submodels or elements go. */
@ArgsType()
class PageArgs {
  @Field(() => Int, { defaultValue: DEFAULT_LIMIT })
  limit: number;

  @Field(() => String, { nullable: true })
  cursor: string | null;

  @Field(() => LevelArg, { defaultValue: LevelArg.deep })
  level: LevelArg;
}

/** A page of the tenant's submodels, or of their paths. */
@ArgsType()
class SubmodelListArgs extends PageArgs {
  @Field()
  tenant: string;

  @Field(() => SubmodelFilterInput, { nullable: true })
  filter: SubmodelFilterInput | null;
}

/** A page of one submodel's elements or paths: which submodel, through which shell. */
@ArgsType()
class ElementPageArgs extends PageArgs {
  @Field()
  tenant: string;

  @Field()
  submodelId: string;

  @Field(() => String, { nullable: true })
  shellId: string | null;

  @Field(() => AasVersionArg, { nullable: true, description: AAS_VERSION_ARGUMENT })
  aasVersion: AasVersion | null;
}

/** An element write: where it goes, and the version of the metamodel it is written in. */
@ArgsType()
class ElementWriteScope extends WriteScope {
  @Field(() => AasVersionArg, { nullable: true, description: AAS_VERSION_ARGUMENT })
  aasVersion?: AasVersion | null;
}

/** What the resolvers hand on for an element: the service's ElementAt, with its path as text. */
interface ElementRoot extends ElementAt {
  idShortPath: string;
}

const shape = (doc: JsonObject, level: LevelArg, extent: Extent, depth = 0) =>
  shapeForOutput(doc, level as Level, extent === Extent.WithBLOBValue, depth);

const pageResult = <T>(page: Page<T>) => ({ result: page.items, pagingMetadata: { cursor: page.cursor } });

async function submodelFilter(ctx: Context, tenant: TenantEntity, filter: SubmodelFilterInput | null): Promise<SubmodelFilter> {
  const semanticKey = filter?.semanticIdValue != null ? valueKey(filter.semanticIdValue) : referenceKeyOf(filter?.semanticId, 'semanticId');
  // With equivalence, the semantic connector's keys of the id stand in for the exact key (src/aas/semantics/).
  const equivalent = semanticKey !== undefined && filter?.semanticIdMatching === SemanticMatchingArg.equivalent;
  const firstKey = filter?.semanticIdValue ?? ((filter?.semanticId?.keys as { value: string }[] | undefined)?.[0]?.value as string);
  return {
    ...(equivalent ? { semanticNorms: (await ctx.services.semantics.equivalentKeys(tenant, [firstKey]))[0] } : { semanticKey }),
    idShort: filter?.idShort,
    kind: filter?.kind,
    idShortStartsWith: filter?.idShortStartsWith,
    idShortContains: filter?.idShortContains,
    idStartsWith: filter?.idStartsWith,
    idContains: filter?.idContains,
  };
}

function elementRoot(at: ElementAt): ElementRoot {
  return { ...at, idShortPath: formatIdShortPath(at.path) };
}

/** Marks the request (`X-AAS-Version-Mapped` on REST answers) when what a V3.0 reader got of elements is V3.1 content. */
function markMapped(ctx: Context, aasVersion: AasVersion | null | undefined, mapped: boolean | undefined): void {
  if (mapped) viewOf(ctx, aasVersion).versionMapped = true;
}

function submodelReference(id: unknown) {
  return { type: 'ModelReference', keys: [{ type: 'Submodel', value: id }] };
}

@Resolver(() => SubmodelElementAtPath)
export class SubmodelElementAtPathResolver {
  @FieldResolver(() => GraphQLJSON, {
    nullable: true,
    description: 'The value-only serialization (Part 2). Operation and Capability have none: an error, or null when `strict` is false.',
  })
  value(@Root() root: ElementRoot, @Arg('strict', { defaultValue: true }) strict: boolean): unknown {
    if (!strict && !hasValue(root.element)) return null;
    return elementValue(root.element, { withBlobValue: true });
  }

  @FieldResolver(() => Boolean, { description: 'Whether the element kind has a value-only serialization.' })
  hasValue(@Root() root: ElementRoot): boolean {
    return hasValue(root.element);
  }

  @FieldResolver(() => GraphQLJSONObject, { description: 'The element without its values and children.' })
  metadata(@Root() root: ElementRoot): JsonObject {
    return metadataOf(root.element);
  }

  @FieldResolver(() => [String], { description: 'The idShortPaths of the element and its descendants.' })
  paths(@Root() root: ElementRoot): string[] {
    // Mapped down for V3.0: list items keep the index they are stored at, which is how V3.0 addresses them.
    if (root.stored) return [root.idShortPath, ...storedIndexPaths(root.element, root.stored, root.path, leftOutInV30)];
    return [root.idShortPath, ...descendantPaths(root.element, root.path, false)];
  }

  @FieldResolver(() => Reference, { description: 'A ModelReference to the element: the submodel, then one key per step (list items by index).' })
  reference(@Root() root: ElementRoot): JsonObject {
    const steps = root.path.map((segment, i) => ({ type: root.types[i], value: 'index' in segment ? String(segment.index) : segment.idShort }));
    return { type: 'ModelReference', keys: [...submodelReference(root.submodelId).keys, ...steps] };
  }

  @FieldResolver(() => String, { description: 'The entity tag of the submodel the element is in.' })
  etag(@Root() root: ElementRoot): string {
    return root.etag;
  }
}

@Resolver(() => Submodel)
export class SubmodelResolver {
  @FieldResolver(() => [String], { description: 'What was mapped down for a V3.0 reader of a submodel that needs V3.1 (empty when nothing was).' })
  mappedForV30(@Root() submodel: JsonObject): string[] {
    return originOf(submodel)?.mapped ?? [];
  }

  @FieldResolver(() => Reference, { description: 'A ModelReference to this submodel.' })
  reference(@Root() submodel: JsonObject): JsonObject {
    return submodelReference(submodel.id);
  }

  @FieldResolver(() => String, { nullable: true, description: 'The entity tag, for If-Match.' })
  etag(@Root() submodel: JsonObject): string | undefined {
    return originOf(submodel)?.etag;
  }

  @FieldResolver(() => GraphQLJSONObject, { description: 'The value-only serialization (Part 2).' })
  value(@Root() submodel: JsonObject): JsonObject {
    return submodelValue(submodel, { withBlobValue: true });
  }

  @FieldResolver(() => GraphQLJSONObject, { description: 'The submodel without its elements.' })
  metadata(@Root() submodel: JsonObject): JsonObject {
    return metadataOf(submodel);
  }

  @FieldResolver(() => [String], { description: 'The idShortPaths of all its elements.' })
  paths(@Root() submodel: JsonObject): string[] {
    const stored = originOf(submodel)?.stored;
    // Mapped down for V3.0: list items keep the index they are stored at, which is how V3.0 addresses them.
    return stored ? storedIndexPaths(submodel, stored, [], leftOutInV30) : descendantPaths(submodel, [], false);
  }

  @FieldResolver(() => ConceptDescription, { nullable: true, description: 'The concept description its semantic id names, if stored here.' })
  async semanticConceptDescription(@Root() submodel: JsonObject, @Ctx() ctx: Context): Promise<JsonObject | null> {
    const key = ((submodel.semanticId as JsonObject | undefined)?.keys as { value: string }[] | undefined)?.[0];
    const origin = originOf(submodel);
    if (!key || !origin) return null;
    return ctx.loaders.conceptDescription(origin.tenant).load(key.value);
  }

  @Authorized('reader')
  @Query(() => SubmodelPage, { description: 'Submodels of the tenant, in insertion order, paged.' })
  async submodels(
    @Ctx() ctx: Context,
    @Args() { tenant, filter, limit, cursor, level }: SubmodelListArgs,
    @Arg('extent', () => Extent, { defaultValue: Extent.WithoutBLOBValue }) extent: Extent,
    @Arg('query', () => GraphQLJSON, { nullable: true, description: QUERY_ARGUMENT_DESCRIPTION }) query: unknown,
    @Arg('semanticIdMatching', () => SemanticMatchingArg, { defaultValue: SemanticMatchingArg.exact, description: SEMANTIC_ID_MATCHING_DESCRIPTION }) semanticIdMatching: SemanticMatchingArg,
    @Arg('aasVersion', () => AasVersionArg, { nullable: true, description: AAS_VERSION_ARGUMENT }) aasVersion: AasVersion | null,
  ) {
    const page = usesQuery(query, filter)
      ? await ctx.services.query.objects(tenantOf(ctx, tenant), 'submodels', query, limit, cursor, equivalenceOf(ctx, tenantOf(ctx, tenant), semanticIdMatching), versionOf(ctx, aasVersion))
      : await ctx.services.submodels.list(tenantOf(ctx, tenant), await submodelFilter(ctx, tenantOf(ctx, tenant), filter), limit, cursor, versionOf(ctx, aasVersion));
    return pageResult(seenAs(ctx, aasVersion, { ...page, items: page.items.map((doc) => shape(doc, level, extent)) }));
  }

  @Authorized('reader')
  @Query(() => PathPage, {
    description:
      "The idShortPaths of the elements of the tenant's submodels as one list: each submodel's paths depth-first (`core`: its top-level ones), " +
      'the submodels in insertion order; paged over the paths, so a page may end and the next resume inside a submodel.',
  })
  async submodelPaths(@Ctx() ctx: Context, @Args() { tenant, filter, limit, cursor, level }: SubmodelListArgs) {
    return pageResult(await ctx.services.submodels.paths(tenantOf(ctx, tenant), await submodelFilter(ctx, tenantOf(ctx, tenant), filter), level as Level, limit, cursor));
  }

  @Authorized('reader')
  @Query(() => SubmodelPage, { description: 'The submodels a shell references, in the order of its references, paged.' })
  async shellSubmodels(
    @Ctx() ctx: Context,
    @Arg('tenant') tenant: string,
    @Arg('shellId') shellId: string,
    @Arg('limit', () => Int, { defaultValue: DEFAULT_LIMIT }) limit: number,
    @Arg('cursor', () => String, { nullable: true }) cursor: string | null,
    @Arg('level', () => LevelArg, { defaultValue: LevelArg.deep }) level: LevelArg,
    @Arg('extent', () => Extent, { defaultValue: Extent.WithoutBLOBValue }) extent: Extent,
  ) {
    const page = await ctx.services.submodels.ofShell(tenantOf(ctx, tenant), shellId, limit, cursor);
    return pageResult({ ...page, items: page.items.map((doc) => shape(doc, level, extent)) });
  }

  @Authorized('reader')
  @Query(() => Submodel, { description: 'One submodel; with `shellId`, only if that shell references it.' })
  async submodel(
    @Ctx() ctx: Context,
    @Arg('tenant') tenant: string,
    @Arg('id') id: string,
    @Arg('shellId', () => String, { nullable: true }) shellId: string | null,
    @Arg('level', () => LevelArg, { defaultValue: LevelArg.deep }) level: LevelArg,
    @Arg('extent', () => Extent, { defaultValue: Extent.WithoutBLOBValue }) extent: Extent,
    @Arg('aasVersion', () => AasVersionArg, { nullable: true, description: AAS_VERSION_ARGUMENT }) aasVersion: AasVersion | null,
  ) {
    return seenAs(ctx, aasVersion, shape(markedIfMapped(viewOf(ctx, aasVersion), await ctx.services.submodels.get(tenantOf(ctx, tenant), id, { shellId }, versionOf(ctx, aasVersion))), level, extent));
  }

  @Authorized('reader')
  @Query(() => IdentifiableJson, {
    description: 'One submodel as AAS JSON text: a stored document that needs no shaping is passed through unparsed (fast for large submodels).',
  })
  async submodelJson(
    @Ctx() ctx: Context,
    @Arg('tenant') tenant: string,
    @Arg('id') id: string,
    @Arg('shellId', () => String, { nullable: true }) shellId: string | null,
    @Arg('level', () => LevelArg, { defaultValue: LevelArg.deep }) level: LevelArg,
    @Arg('extent', () => Extent, { defaultValue: Extent.WithoutBLOBValue }) extent: Extent,
    @Arg('aasVersion', () => AasVersionArg, { nullable: true, description: AAS_VERSION_ARGUMENT }) aasVersion: AasVersion | null,
  ): Promise<IdentifiableJson> {
    // Through the store's view of the request's version (the read cache's variant the hot reads ask for too).
    return viewedText(viewOf(ctx, aasVersion), await ctx.services.submodels.getText(tenantOf(ctx, tenant), id, { shellId }, level as Level, extent === Extent.WithBLOBValue, versionOf(ctx, aasVersion)));
  }

  @Authorized('reader')
  @Query(() => SubmodelElementPage, { description: "A submodel's top-level elements, paged." })
  async submodelElements(
    @Ctx() ctx: Context,
    @Args() { tenant, submodelId, shellId, limit, cursor, level, aasVersion }: ElementPageArgs,
    @Arg('extent', () => Extent, { defaultValue: Extent.WithoutBLOBValue }) extent: Extent,
  ) {
    // As the submodel is read in the request's version: through V3.0 mapped down, marked.
    const page = await ctx.services.submodels.elements(tenantOf(ctx, tenant), submodelId, { shellId }, limit, cursor, versionOf(ctx, aasVersion));
    markMapped(ctx, aasVersion, page.items.some((at) => at.mapped));
    return pageResult(seenAs(ctx, aasVersion, { ...page, items: page.items.map((at) => elementRoot({ ...at, element: shape(at.element, level, extent, 1) })) }));
  }

  @Authorized('reader')
  @Query(() => PathPage, {
    description: "The idShortPaths of a submodel's elements, depth-first (`core`: the top-level ones), paged over the paths; with `shellId`, only if that shell references it.",
  })
  async submodelElementPaths(@Ctx() ctx: Context, @Args() { tenant, submodelId, shellId, limit, cursor, level, aasVersion }: ElementPageArgs) {
    const page = await ctx.services.submodels.elementPaths(tenantOf(ctx, tenant), submodelId, { shellId }, level as Level, limit, cursor, versionOf(ctx, aasVersion));
    markMapped(ctx, aasVersion, page.mapped);
    return pageResult({ items: page.items, cursor: page.cursor });
  }

  @Authorized('reader')
  @Query(() => SubmodelElementAtPath, { description: 'The element at an idShortPath (`a.b[2].c`).' })
  async submodelElement(
    @Ctx() ctx: Context,
    @Arg('tenant') tenant: string,
    @Arg('submodelId') submodelId: string,
    @Arg('idShortPath') idShortPath: string,
    @Arg('shellId', () => String, { nullable: true }) shellId: string | null,
    @Arg('level', () => LevelArg, { defaultValue: LevelArg.deep }) level: LevelArg,
    @Arg('extent', () => Extent, { defaultValue: Extent.WithoutBLOBValue }) extent: Extent,
    @Arg('aasVersion', () => AasVersionArg, { nullable: true, description: AAS_VERSION_ARGUMENT }) aasVersion: AasVersion | null,
  ) {
    // Through the store's view of the request's version: what V3.0 does not see (a relationship without an end) is 404.
    const at = await ctx.services.submodels.element(tenantOf(ctx, tenant), submodelId, idShortPath, { shellId }, versionOf(ctx, aasVersion));
    markMapped(ctx, aasVersion, at.mapped);
    return elementRoot({ ...at, element: seenAs(ctx, aasVersion, shape(at.element, level, extent)) });
  }

  @Authorized('contributor')
  @Mutation(() => Submodel, { description: 'Creates a submodel from its AAS JSON; the id must be new.' })
  async createSubmodel(
    @Ctx() ctx: Context,
    @Arg('tenant') tenant: string,
    @Arg('submodel', () => GraphQLJSONObject) submodel: JsonObject,
    @Arg('aasVersion', () => AasVersionArg, { nullable: true, description: AAS_VERSION_ARGUMENT }) aasVersion: AasVersion | null,
  ) {
    return seenAs(ctx, aasVersion, await ctx.services.submodels.create(tenantOf(ctx, tenant), submodel, { aasVersion: versionOf(ctx, aasVersion) }));
  }

  @Authorized('contributor')
  @Mutation(() => Submodel, { description: 'Replaces a submodel; the id in the body must equal `id`.' })
  async replaceSubmodel(
    @Ctx() ctx: Context,
    @Arg('tenant') tenant: string,
    @Arg('id') id: string,
    @Arg('submodel', () => GraphQLJSONObject) submodel: JsonObject,
    @Args() { shellId, ifMatch }: WriteScope,
    @Arg('aasVersion', () => AasVersionArg, { nullable: true, description: AAS_VERSION_ARGUMENT }) aasVersion: AasVersion | null,
  ) {
    return seenAs(ctx, aasVersion, await ctx.services.submodels.replace(tenantOf(ctx, tenant), id, submodel, { shellId, ifMatch, aasVersion: versionOf(ctx, aasVersion) }));
  }

  @Authorized('contributor')
  @Mutation(() => Submodel, { description: 'Updates a submodel (level core): the attributes given replace its own; the others stay.' })
  async patchSubmodel(
    @Ctx() ctx: Context,
    @Arg('tenant') tenant: string,
    @Arg('id') id: string,
    @Arg('submodel', () => GraphQLJSONObject) submodel: JsonObject,
    @Args() { shellId, ifMatch }: WriteScope,
    @Arg('aasVersion', () => AasVersionArg, { nullable: true, description: AAS_VERSION_ARGUMENT }) aasVersion: AasVersion | null,
  ) {
    return seenAs(ctx, aasVersion, await ctx.services.submodels.patch(tenantOf(ctx, tenant), id, submodel, { shellId, ifMatch, aasVersion: versionOf(ctx, aasVersion) }));
  }

  @Authorized('contributor')
  @Mutation(() => Submodel, { description: "Updates a submodel's metadata; its elements stay." })
  async patchSubmodelMetadata(
    @Ctx() ctx: Context,
    @Arg('tenant') tenant: string,
    @Arg('id') id: string,
    @Arg('metadata', () => GraphQLJSONObject) metadata: JsonObject,
    @Args() { shellId, ifMatch }: WriteScope,
    @Arg('aasVersion', () => AasVersionArg, { nullable: true, description: AAS_VERSION_ARGUMENT }) aasVersion: AasVersion | null,
  ) {
    return seenAs(ctx, aasVersion, await ctx.services.submodels.patchMetadata(tenantOf(ctx, tenant), id, metadata, { shellId, ifMatch, aasVersion: versionOf(ctx, aasVersion) }));
  }

  @Authorized('contributor')
  @Mutation(() => Submodel, { description: "Sets a submodel's element values from their value-only serialization." })
  async patchSubmodelValue(
    @Ctx() ctx: Context,
    @Arg('tenant') tenant: string,
    @Arg('id') id: string,
    @Arg('value', () => GraphQLJSON, { nullable: true, description: 'null clears a value' }) value: unknown,
    @Args() { shellId, ifMatch }: WriteScope,
    @Arg('aasVersion', () => AasVersionArg, { nullable: true, description: AAS_VERSION_ARGUMENT }) aasVersion: AasVersion | null,
  ) {
    return seenAs(ctx, aasVersion, await ctx.services.submodels.patchValue(tenantOf(ctx, tenant), id, value, { shellId, ifMatch, aasVersion: versionOf(ctx, aasVersion) }));
  }

  @Authorized('contributor')
  @Mutation(() => Boolean, { description: 'Deletes a submodel; with `shellId`, also that shell\'s reference to it.' })
  async deleteSubmodel(
    @Ctx() ctx: Context,
    @Arg('tenant') tenant: string,
    @Arg('id') id: string,
    @Args() { shellId, ifMatch }: WriteScope,
  ): Promise<boolean> {
    await ctx.services.submodels.delete(tenantOf(ctx, tenant), id, { shellId, ifMatch });
    return true;
  }

  @Authorized('contributor')
  @Mutation(() => SubmodelElementAtPath, { description: 'Adds an element to the submodel, or to the container at `idShortPath`.' })
  async createSubmodelElement(
    @Ctx() ctx: Context,
    @Arg('tenant') tenant: string,
    @Arg('submodelId') submodelId: string,
    @Arg('idShortPath', () => String, { nullable: true }) idShortPath: string | null,
    @Arg('element', () => GraphQLJSONObject) element: JsonObject,
    @Args() { shellId, ifMatch, aasVersion }: ElementWriteScope,
  ) {
    return seenAs(ctx, aasVersion, elementRoot(await ctx.services.submodels.createElement(tenantOf(ctx, tenant), submodelId, idShortPath, element, { shellId, ifMatch, aasVersion: versionOf(ctx, aasVersion) })));
  }

  @Authorized('contributor')
  @Mutation(() => SubmodelElementAtPath)
  async replaceSubmodelElement(
    @Ctx() ctx: Context,
    @Arg('tenant') tenant: string,
    @Arg('submodelId') submodelId: string,
    @Arg('idShortPath') idShortPath: string,
    @Arg('element', () => GraphQLJSONObject) element: JsonObject,
    @Args() { shellId, ifMatch, aasVersion }: ElementWriteScope,
  ) {
    return seenAs(ctx, aasVersion, elementRoot(await ctx.services.submodels.replaceElement(tenantOf(ctx, tenant), submodelId, idShortPath, element, { shellId, ifMatch, aasVersion: versionOf(ctx, aasVersion) })));
  }

  @Authorized('contributor')
  @Mutation(() => SubmodelElementAtPath, { description: 'Updates an element (level core): the attributes given replace its own; the others stay.' })
  async patchSubmodelElement(
    @Ctx() ctx: Context,
    @Arg('tenant') tenant: string,
    @Arg('submodelId') submodelId: string,
    @Arg('idShortPath') idShortPath: string,
    @Arg('element', () => GraphQLJSONObject) element: JsonObject,
    @Args() { shellId, ifMatch, aasVersion }: ElementWriteScope,
  ) {
    return seenAs(ctx, aasVersion, elementRoot(await ctx.services.submodels.patchElement(tenantOf(ctx, tenant), submodelId, idShortPath, element, { shellId, ifMatch, aasVersion: versionOf(ctx, aasVersion) })));
  }

  @Authorized('contributor')
  @Mutation(() => SubmodelElementAtPath)
  async patchSubmodelElementMetadata(
    @Ctx() ctx: Context,
    @Arg('tenant') tenant: string,
    @Arg('submodelId') submodelId: string,
    @Arg('idShortPath') idShortPath: string,
    @Arg('metadata', () => GraphQLJSONObject) metadata: JsonObject,
    @Args() { shellId, ifMatch, aasVersion }: ElementWriteScope,
  ) {
    return seenAs(ctx, aasVersion, elementRoot(await ctx.services.submodels.patchElementMetadata(tenantOf(ctx, tenant), submodelId, idShortPath, metadata, { shellId, ifMatch, aasVersion: versionOf(ctx, aasVersion) })));
  }

  @Authorized('contributor')
  @Mutation(() => SubmodelElementAtPath, { description: "Sets an element's values from their value-only serialization." })
  async patchSubmodelElementValue(
    @Ctx() ctx: Context,
    @Arg('tenant') tenant: string,
    @Arg('submodelId') submodelId: string,
    @Arg('idShortPath') idShortPath: string,
    @Arg('value', () => GraphQLJSON, { nullable: true, description: 'null clears a value' }) value: unknown,
    @Args() { shellId, ifMatch, aasVersion }: ElementWriteScope,
  ) {
    return seenAs(ctx, aasVersion, elementRoot(await ctx.services.submodels.patchElementValue(tenantOf(ctx, tenant), submodelId, idShortPath, value, { shellId, ifMatch, aasVersion: versionOf(ctx, aasVersion) })));
  }

  @Authorized('contributor')
  @Mutation(() => Boolean)
  async deleteSubmodelElement(
    @Ctx() ctx: Context,
    @Arg('tenant') tenant: string,
    @Arg('submodelId') submodelId: string,
    @Arg('idShortPath') idShortPath: string,
    @Args() { shellId, ifMatch, aasVersion }: ElementWriteScope,
  ): Promise<boolean> {
    await ctx.services.submodels.deleteElement(tenantOf(ctx, tenant), submodelId, idShortPath, { shellId, ifMatch, aasVersion: versionOf(ctx, aasVersion) });
    return true;
  }

  @Authorized('contributor')
  @Mutation(() => Boolean, { description: 'Operations are described, not executed, by this platform: always an error (501, or 405 for another kind).' })
  async invokeOperation(
    @Ctx() ctx: Context,
    @Arg('tenant') tenant: string,
    @Arg('submodelId') submodelId: string,
    @Arg('idShortPath') idShortPath: string,
    @Arg('shellId', () => String, { nullable: true }) shellId: string | null,
  ): Promise<boolean> {
    const { element } = await ctx.services.submodels.element(tenantOf(ctx, tenant), submodelId, idShortPath, { shellId });
    if (element.modelType !== 'Operation') throw methodNotAllowed(`The element at '${idShortPath}' is a ${String(element.modelType)}; only an Operation can be invoked.`);
    throw notImplemented('This platform stores Operations but does not execute them: there is no operation runtime behind it.');
  }
}
