import DataLoader from 'dataloader';
import { GraphQLJSONObject } from 'graphql-scalars';
import { Arg, Authorized, Ctx, FieldResolver, Int, Mutation, Query, Resolver, Root } from 'type-graphql';
import { DEFAULT_LIMIT } from '../../common/cursor';
import { Context, tenantOf } from '../../graphql/context';
import { badRequest, notFound } from '../../graphql/errors';
import type { TenantEntity } from '../../management/tenants/tenant.entity';
import { JsonObject } from '../model/parse';
import { originOf } from '../store/identifiable-store';
import { SubmodelElement } from '../submodels/element.types';
import { Submodel } from '../submodels/submodel.types';
import { dictionaryFormat, entriesOfText } from './dictionary-import';
import type { Page, Resolution, SemanticMatching } from './semantic.service';
import {
  EquivalenceSetInput,
  EquivalenceSetPage,
  EquivalenceSetType,
  SemanticDictionaryPage,
  SemanticDictionaryType,
  SemanticEntryPage,
  SemanticMatchingArg,
  SemanticResolutionType,
  SemanticUsagePage,
  ShellIdPage,
} from './semantic.types';

const pageResult = <T>(page: Page<T>) => ({ result: page.items, pagingMetadata: { cursor: page.cursor ?? undefined } });

/** The first key value of a semanticId, or null. */
function semanticIdOf(node: JsonObject): string | null {
  const keys = (node.semanticId as { keys?: { value?: unknown }[] } | undefined)?.keys;
  const value = Array.isArray(keys) ? keys[0]?.value : undefined;
  return typeof value === 'string' && value.trim() !== '' ? value : null;
}

/** The request's resolution loaders, per tenant and matching: the `meaning` fields of a page are one batch. */
const loaders = new WeakMap<Context, Map<string, DataLoader<string, Resolution>>>();

function meaningLoader(ctx: Context, tenant: TenantEntity, matching: SemanticMatching): DataLoader<string, Resolution> {
  let byKey = loaders.get(ctx);
  if (!byKey) loaders.set(ctx, (byKey = new Map()));
  const key = `${tenant.id}:${matching}`;
  let loader = byKey.get(key);
  if (!loader) {
    // As the context's loaders: batched, not memoized (a mutation document must see its own writes).
    loader = new DataLoader((ids: readonly string[]) => ctx.services.semantics.resolveMany(tenant, [...ids], matching), { maxBatchSize: 250, cache: false });
    byKey.set(key, loader);
  }
  return loader;
}

/**
 * The tenant of an element's `meaning`: elements carry no tenant of their own, so it is the one the request was
 * admitted to (every element is read through a tenant's query), or, where a request reads several, the one named.
 */
function elementTenant(ctx: Context, name: string | null): TenantEntity {
  if (name != null) {
    const tenant = ctx.authorizedTenants.get(name);
    if (!tenant) throw notFound(`meaning: the request reads no tenant '${name.slice(0, 100)}'.`);
    return tenant;
  }
  const tenants = [...ctx.authorizedTenants.values()];
  if (tenants.length !== 1) throw badRequest('meaning: this request reads several tenants; name the tenant of the element (meaning(tenant: ...)).');
  return tenants[0];
}

const MATCHING_ARG = { defaultValue: SemanticMatchingArg.exact, description: 'exact (default) or equivalent.' } as const;

@Resolver(() => Submodel)
export class SubmodelMeaningResolver {
  @FieldResolver(() => SemanticResolutionType, { nullable: true, description: 'What its semanticId (first key) means: the tenant\'s concept descriptions and dictionary entries; null without a semanticId.' })
  async meaning(@Root() submodel: JsonObject, @Ctx() ctx: Context, @Arg('matching', () => SemanticMatchingArg, MATCHING_ARG) matching: SemanticMatchingArg): Promise<Resolution | null> {
    const id = semanticIdOf(submodel);
    const origin = originOf(submodel);
    if (!id || !origin) return null;
    return meaningLoader(ctx, origin.tenant, matching).load(id);
  }
}

@Resolver(() => SubmodelElement)
export class ElementMeaningResolver {
  @FieldResolver(() => SemanticResolutionType, {
    nullable: true,
    description:
      "What its semanticId (first key) means: the tenant's concept descriptions and dictionary entries; null without a semanticId. `tenant`: only " +
      'where the request reads elements of several tenants.',
  })
  async meaning(
    @Root() element: JsonObject,
    @Ctx() ctx: Context,
    @Arg('matching', () => SemanticMatchingArg, MATCHING_ARG) matching: SemanticMatchingArg,
    @Arg('tenant', () => String, { nullable: true }) tenant: string | null,
  ): Promise<Resolution | null> {
    const id = semanticIdOf(element);
    if (!id) return null;
    return meaningLoader(ctx, elementTenant(ctx, tenant), matching).load(id);
  }
}

@Resolver()
export class SemanticResolver {
  @Authorized('reader')
  @Query(() => [SemanticResolutionType], {
    description:
      'What the tenant knows of a semantic id (`semanticId`), or of each key of a Reference (`reference`): its concept descriptions and the ' +
      'entries of its dictionaries, matched exactly (default) or by equivalence.',
  })
  async resolveSemanticId(
    @Ctx() ctx: Context,
    @Arg('tenant') tenant: string,
    @Arg('semanticId', () => String, { nullable: true }) semanticId: string | null,
    @Arg('reference', () => GraphQLJSONObject, { nullable: true }) reference: JsonObject | null,
    @Arg('matching', () => SemanticMatchingArg, MATCHING_ARG) matching: SemanticMatchingArg,
  ): Promise<Resolution[]> {
    return ctx.services.semantics.resolveMany(tenantOf(ctx, tenant), idsToResolve(semanticId, reference), matching);
  }

  @Authorized('reader')
  @Query(() => SemanticDictionaryPage, { description: "The tenant's dictionaries, in import order, paged." })
  async semanticDictionaries(
    @Ctx() ctx: Context,
    @Arg('tenant') tenant: string,
    @Arg('limit', () => Int, { defaultValue: DEFAULT_LIMIT }) limit: number,
    @Arg('cursor', () => String, { nullable: true }) cursor: string | null,
  ) {
    return pageResult(await ctx.services.semantics.dictionaries(tenantOf(ctx, tenant), limit, cursor));
  }

  @Authorized('reader')
  @Query(() => SemanticDictionaryType)
  semanticDictionary(@Ctx() ctx: Context, @Arg('tenant') tenant: string, @Arg('id') id: string) {
    return ctx.services.semantics.dictionary(tenantOf(ctx, tenant), id);
  }

  @Authorized('contributor')
  @Mutation(() => SemanticDictionaryType, {
    description:
      'Imports a dictionary given as text: `aas-json` or `aas-xml` (the concept descriptions of an AAS environment) or `eclass-csv` (an ECLASS ' +
      'Basic CSV property table). All entries or none are stored. An AASX package is uploaded through REST.',
  })
  async importSemanticDictionary(@Ctx() ctx: Context, @Arg('tenant') tenant: string, @Arg('name') name: string, @Arg('format') format: string, @Arg('content') content: string) {
    const checked = dictionaryFormat(format);
    return ctx.services.semantics.importDictionary(tenantOf(ctx, tenant), name, checked, entriesOfText(checked, content));
  }

  @Authorized('contributor')
  @Mutation(() => Boolean, { description: 'Deletes a dictionary and all its entries.' })
  async deleteSemanticDictionary(@Ctx() ctx: Context, @Arg('tenant') tenant: string, @Arg('id') id: string): Promise<boolean> {
    await ctx.services.semantics.deleteDictionary(tenantOf(ctx, tenant), id);
    return true;
  }

  @Authorized('reader')
  @Query(() => SemanticEntryPage, { description: 'Dictionary entries whose id, names or definitions contain `text` (case-insensitive), in import order, paged.' })
  async searchSemanticEntries(
    @Ctx() ctx: Context,
    @Arg('tenant') tenant: string,
    @Arg('text') text: string,
    @Arg('dictionaryId', () => String, { nullable: true }) dictionaryId: string | null,
    @Arg('limit', () => Int, { defaultValue: DEFAULT_LIMIT }) limit: number,
    @Arg('cursor', () => String, { nullable: true }) cursor: string | null,
  ) {
    return pageResult(await ctx.services.semantics.searchEntries(tenantOf(ctx, tenant), text, dictionaryId, limit, cursor));
  }

  @Authorized('reader')
  @Query(() => EquivalenceSetPage, { description: "The tenant's equivalence sets, in creation order, paged." })
  async equivalenceSets(
    @Ctx() ctx: Context,
    @Arg('tenant') tenant: string,
    @Arg('limit', () => Int, { defaultValue: DEFAULT_LIMIT }) limit: number,
    @Arg('cursor', () => String, { nullable: true }) cursor: string | null,
  ) {
    return pageResult(await ctx.services.semantics.equivalenceSets(tenantOf(ctx, tenant), limit, cursor));
  }

  @Authorized('reader')
  @Query(() => EquivalenceSetType)
  equivalenceSet(@Ctx() ctx: Context, @Arg('tenant') tenant: string, @Arg('id') id: string) {
    return ctx.services.semantics.equivalenceSet(tenantOf(ctx, tenant), id);
  }

  @Authorized('contributor')
  @Mutation(() => EquivalenceSetType, { description: 'Declares semantic ids equivalent (2 to 100); matching with `equivalent` treats them as one concept.' })
  createEquivalenceSet(@Ctx() ctx: Context, @Arg('tenant') tenant: string, @Arg('set', () => EquivalenceSetInput) set: EquivalenceSetInput) {
    return ctx.services.semantics.createEquivalenceSet(tenantOf(ctx, tenant), set.name ?? null, set.members);
  }

  @Authorized('contributor')
  @Mutation(() => Boolean)
  async deleteEquivalenceSet(@Ctx() ctx: Context, @Arg('tenant') tenant: string, @Arg('id') id: string): Promise<boolean> {
    await ctx.services.semantics.deleteEquivalenceSet(tenantOf(ctx, tenant), id);
    return true;
  }

  @Authorized('reader')
  @Query(() => SemanticUsagePage, { description: 'The submodels and elements of the tenant that carry the semantic id (or, with `equivalent`, one equivalent to it), paged.' })
  async semanticIdUsages(
    @Ctx() ctx: Context,
    @Arg('tenant') tenant: string,
    @Arg('semanticId') semanticId: string,
    @Arg('matching', () => SemanticMatchingArg, MATCHING_ARG) matching: SemanticMatchingArg,
    @Arg('limit', () => Int, { defaultValue: DEFAULT_LIMIT }) limit: number,
    @Arg('cursor', () => String, { nullable: true }) cursor: string | null,
  ) {
    return pageResult(await ctx.services.semantics.whereUsed(tenantOf(ctx, tenant), semanticId, matching, limit, cursor));
  }

  @Authorized('reader')
  @Query(() => ShellIdPage, { description: 'The ids of the shells whose submodels carry the semantic id (on the submodel or an element), paged.' })
  async semanticIdShells(
    @Ctx() ctx: Context,
    @Arg('tenant') tenant: string,
    @Arg('semanticId') semanticId: string,
    @Arg('matching', () => SemanticMatchingArg, MATCHING_ARG) matching: SemanticMatchingArg,
    @Arg('limit', () => Int, { defaultValue: DEFAULT_LIMIT }) limit: number,
    @Arg('cursor', () => String, { nullable: true }) cursor: string | null,
  ) {
    return pageResult(await ctx.services.semantics.shellsUsing(tenantOf(ctx, tenant), semanticId, matching, limit, cursor));
  }
}

/** The ids a resolve names: the semantic id, or every key value of the Reference; exactly one of the two. */
function idsToResolve(semanticId: string | null, reference: JsonObject | null): string[] {
  if ((semanticId == null) === (reference == null)) throw badRequest('Give either semanticId or reference.');
  if (semanticId != null) return [semanticId];
  const keys = reference!.keys;
  if (!Array.isArray(keys) || keys.length === 0) throw badRequest('reference: a Reference has a non-empty list of keys.');
  return keys.map((key, i) => {
    const value = (key as { value?: unknown } | null)?.value;
    if (typeof value !== 'string') throw badRequest(`reference: keys[${i}] has no value.`);
    return value;
  });
}
