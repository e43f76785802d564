import type { AasVersion } from '../versions';
import { AAS_VERSION_ARGUMENT, AasVersionArg } from '../versions/graphql-types';
import { GraphQLJSON, GraphQLJSONObject } from 'graphql-scalars';
import { Arg, Authorized, Ctx, FieldResolver, Int, Mutation, Query, Resolver, Root } from 'type-graphql';
import { DEFAULT_LIMIT } from '../../common/cursor';
import { Context, tenantOf } from '../../graphql/context';
import { Reference } from '../model/graphql-types';
import { JsonObject } from '../model/parse';
import { QUERY_ARGUMENT_DESCRIPTION, usesQuery } from '../query/query.resolver';
import { IdentifiableJson, IdentifiableJsonPage } from '../store/identifiable-json';
import { markedIfMapped, seenAs, textsForVersion, versionOf, viewOf, viewedText } from '../versions/view';
import { Page, originOf } from '../store/identifiable-store';
import { Submodel } from '../submodels/submodel.types';
import { referencedSubmodelIds } from './shell.service';
import { SemanticMatchingArg } from '../semantics/semantic.types';
import { SEMANTIC_ID_MATCHING_DESCRIPTION, equivalenceOf } from '../semantics/equivalence';
import { ReferencePage, Shell, ShellFilterInput, ShellPage } from './shell.types';

const pageResult = <T>(page: Page<JsonObject>) => ({
  result: page.items as unknown as T[],
  pagingMetadata: { cursor: page.cursor },
});

@Resolver(() => Shell)
export class ShellResolver {
  @FieldResolver(() => Reference, { description: 'A ModelReference to this shell.' })
  reference(@Root() shell: JsonObject): JsonObject {
    return { type: 'ModelReference', keys: [{ type: 'AssetAdministrationShell', value: shell.id }] };
  }

  @FieldResolver(() => [Reference], { nullable: true, description: 'References to the submodels of the shell.' })
  submodelRefs(@Root() shell: JsonObject): JsonObject[] | undefined {
    return shell.submodels as JsonObject[] | undefined;
  }

  @FieldResolver(() => [Submodel], { description: 'The submodels the shell references and this tenant stores, in order (batched).' })
  async submodels(@Root() shell: JsonObject, @Ctx() ctx: Context): Promise<JsonObject[]> {
    const origin = originOf(shell);
    if (!origin) return [];
    const found = await ctx.loaders.submodel(origin.tenant).loadMany(referencedSubmodelIds(shell));
    return found.filter((doc): doc is JsonObject => doc !== null && !(doc instanceof Error));
  }

  @FieldResolver(() => String, { nullable: true, description: 'The entity tag, for If-Match.' })
  etag(@Root() shell: JsonObject): string | undefined {
    return originOf(shell)?.etag;
  }

  @FieldResolver(() => [String], { description: 'What was mapped down for a V3.0 reader of a shell that needs V3.1 (empty when nothing was).' })
  mappedForV30(@Root() shell: JsonObject): string[] {
    return originOf(shell)?.mapped ?? [];
  }

  @Authorized('reader')
  @Query(() => ShellPage, { description: 'Shells of the tenant, in insertion order, paged.' })
  async shells(
    @Ctx() ctx: Context,
    @Arg('tenant') tenant: string,
    @Arg('filter', () => ShellFilterInput, { nullable: true }) filter: ShellFilterInput | null,
    @Arg('limit', () => Int, { defaultValue: DEFAULT_LIMIT }) limit: number,
    @Arg('cursor', () => String, { nullable: true }) cursor: string | null,
    @Arg('query', () => GraphQLJSON, { nullable: true, description: QUERY_ARGUMENT_DESCRIPTION }) query: unknown,
    @Arg('semanticIdMatching', () => SemanticMatchingArg, { defaultValue: SemanticMatchingArg.exact, description: SEMANTIC_ID_MATCHING_DESCRIPTION }) semanticIdMatching: SemanticMatchingArg,
    @Arg('aasVersion', () => AasVersionArg, { nullable: true, description: AAS_VERSION_ARGUMENT }) aasVersion: AasVersion | null,
  ): Promise<ShellPage> {
    const page = usesQuery(query, filter)
      ? await ctx.services.query.objects(tenantOf(ctx, tenant), 'shells', query, limit, cursor, equivalenceOf(ctx, tenantOf(ctx, tenant), semanticIdMatching), versionOf(ctx, aasVersion))
      : await ctx.services.shells.list(tenantOf(ctx, tenant), filter ?? {}, limit, cursor, versionOf(ctx, aasVersion));
    return pageResult<Shell>(seenAs(ctx, aasVersion, page));
  }

  @Authorized('reader')
  @Query(() => IdentifiableJsonPage, {
    description: 'Shells of the tenant as AAS JSON texts, as stored, paged and filtered as `shells` (without `query`): what GET /shells answers.',
  })
  async shellsJson(
    @Ctx() ctx: Context,
    @Arg('tenant') tenant: string,
    @Arg('filter', () => ShellFilterInput, { nullable: true }) filter: ShellFilterInput | null,
    @Arg('limit', () => Int, { defaultValue: DEFAULT_LIMIT }) limit: number,
    @Arg('cursor', () => String, { nullable: true }) cursor: string | null,
    @Arg('aasVersion', () => AasVersionArg, { nullable: true, description: AAS_VERSION_ARGUMENT }) aasVersion: AasVersion | null,
  ): Promise<IdentifiableJsonPage> {
    // Read as stored, seen in the request's version here (textsForVersion): the mapping and its mark in one place.
    const page = await ctx.services.shells.listText(tenantOf(ctx, tenant), filter ?? {}, limit, cursor, '3.1');
    return { result: textsForVersion(viewOf(ctx, aasVersion), page.items), pagingMetadata: { cursor: page.cursor } };
  }

  @Authorized('reader')
  @Query(() => Shell)
  async shell(@Ctx() ctx: Context, @Arg('tenant') tenant: string, @Arg('id') id: string, @Arg('aasVersion', () => AasVersionArg, { nullable: true, description: AAS_VERSION_ARGUMENT }) aasVersion: AasVersion | null): Promise<Shell> {
    return seenAs(ctx, aasVersion, markedIfMapped(viewOf(ctx, aasVersion), await ctx.services.shells.get(tenantOf(ctx, tenant), id, versionOf(ctx, aasVersion)))) as unknown as Shell;
  }

  @Authorized('reader')
  @Query(() => IdentifiableJson, { description: 'One shell as AAS JSON text, as stored (from the read cache when it holds it).' })
  async shellJson(@Ctx() ctx: Context, @Arg('tenant') tenant: string, @Arg('id') id: string, @Arg('aasVersion', () => AasVersionArg, { nullable: true, description: AAS_VERSION_ARGUMENT }) aasVersion: AasVersion | null): Promise<IdentifiableJson> {
    // Through the store's view of the request's version (the read cache's variant the hot reads ask for too).
    return viewedText(viewOf(ctx, aasVersion), await ctx.services.shells.getText(tenantOf(ctx, tenant), id, versionOf(ctx, aasVersion)));
  }

  @Authorized('reader')
  @Query(() => ReferencePage, { description: "The shell's submodel references, paged." })
  async shellSubmodelRefs(
    @Ctx() ctx: Context,
    @Arg('tenant') tenant: string,
    @Arg('id') id: string,
    @Arg('limit', () => Int, { defaultValue: DEFAULT_LIMIT }) limit: number,
    @Arg('cursor', () => String, { nullable: true }) cursor: string | null,
  ): Promise<ReferencePage> {
    return pageResult<Reference>(await ctx.services.shells.submodelRefs(tenantOf(ctx, tenant), id, limit, cursor));
  }

  @Authorized('contributor')
  @Mutation(() => Shell, { description: 'Creates a shell from its AAS JSON; the id must be new.' })
  async createShell(
    @Ctx() ctx: Context,
    @Arg('tenant') tenant: string,
    @Arg('shell', () => GraphQLJSONObject) shell: JsonObject,
    @Arg('aasVersion', () => AasVersionArg, { nullable: true, description: AAS_VERSION_ARGUMENT }) aasVersion: AasVersion | null,
  ): Promise<Shell> {
    return seenAs(ctx, aasVersion, await ctx.services.shells.create(tenantOf(ctx, tenant), shell, { aasVersion: versionOf(ctx, aasVersion) })) as unknown as Shell;
  }

  @Authorized('contributor')
  @Mutation(() => Shell, { description: 'Replaces an existing shell; the id in the body must equal `id`.' })
  async replaceShell(
    @Ctx() ctx: Context,
    @Arg('tenant') tenant: string,
    @Arg('id') id: string,
    @Arg('shell', () => GraphQLJSONObject) shell: JsonObject,
    @Arg('ifMatch', () => String, { nullable: true }) ifMatch: string | null,
    @Arg('aasVersion', () => AasVersionArg, { nullable: true, description: AAS_VERSION_ARGUMENT }) aasVersion: AasVersion | null,
  ): Promise<Shell> {
    return seenAs(ctx, aasVersion, await ctx.services.shells.replace(tenantOf(ctx, tenant), id, shell, { ifMatch, aasVersion: versionOf(ctx, aasVersion) })) as unknown as Shell;
  }

  @Authorized('contributor')
  @Mutation(() => Boolean)
  async deleteShell(
    @Ctx() ctx: Context,
    @Arg('tenant') tenant: string,
    @Arg('id') id: string,
    @Arg('ifMatch', () => String, { nullable: true }) ifMatch: string | null,
  ): Promise<boolean> {
    await ctx.services.shells.delete(tenantOf(ctx, tenant), id, { ifMatch });
    return true;
  }

  @Authorized('contributor')
  @Mutation(() => Shell, { description: "Replaces the shell's asset information; returns the shell." })
  async replaceAssetInformation(
    @Ctx() ctx: Context,
    @Arg('tenant') tenant: string,
    @Arg('id') id: string,
    @Arg('assetInformation', () => GraphQLJSONObject) assetInformation: JsonObject,
    @Arg('ifMatch', () => String, { nullable: true }) ifMatch: string | null,
    @Arg('aasVersion', () => AasVersionArg, { nullable: true, description: AAS_VERSION_ARGUMENT }) aasVersion: AasVersion | null,
  ): Promise<Shell> {
    const shell = await ctx.services.shells.replaceAssetInformation(tenantOf(ctx, tenant), id, assetInformation, { ifMatch, aasVersion: versionOf(ctx, aasVersion) });
    return seenAs(ctx, aasVersion, shell) as unknown as Shell;
  }

  @Authorized('contributor')
  @Mutation(() => Reference, { description: 'Adds a reference to a submodel (a ModelReference with one Submodel key).' })
  async addSubmodelRef(
    @Ctx() ctx: Context,
    @Arg('tenant') tenant: string,
    @Arg('id') id: string,
    @Arg('reference', () => GraphQLJSONObject) reference: JsonObject,
    @Arg('ifMatch', () => String, { nullable: true }) ifMatch: string | null,
    @Arg('aasVersion', () => AasVersionArg, { nullable: true, description: AAS_VERSION_ARGUMENT }) aasVersion: AasVersion | null,
  ): Promise<Reference> {
    return (await ctx.services.shells.addSubmodelRef(tenantOf(ctx, tenant), id, reference, { ifMatch, aasVersion: versionOf(ctx, aasVersion) })) as unknown as Reference;
  }

  @Authorized('contributor')
  @Mutation(() => Boolean)
  async removeSubmodelRef(
    @Ctx() ctx: Context,
    @Arg('tenant') tenant: string,
    @Arg('id') id: string,
    @Arg('submodelId') submodelId: string,
    @Arg('ifMatch', () => String, { nullable: true }) ifMatch: string | null,
    @Arg('aasVersion', () => AasVersionArg, { nullable: true, description: AAS_VERSION_ARGUMENT }) aasVersion: AasVersion | null,
  ): Promise<boolean> {
    await ctx.services.shells.removeSubmodelRef(tenantOf(ctx, tenant), id, submodelId, { ifMatch, aasVersion: versionOf(ctx, aasVersion) });
    return true;
  }
}
