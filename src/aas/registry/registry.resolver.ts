import { GraphQLJSON, GraphQLJSONObject } from 'graphql-scalars';
import { Arg, Authorized, Ctx, FieldResolver, Int, Mutation, Query, Resolver, Root } from 'type-graphql';
import { DEFAULT_LIMIT } from '../../common/cursor';
import { Context, tenantOf } from '../../graphql/context';
import { badRequest } from '../../graphql/errors';
import type { TenantEntity } from '../../management/tenants/tenant.entity';
import { AssetKind } from '../model/graphql-types';
import { JsonObject } from '../model/parse';
import { referenceKeyOf, valueKey } from '../model/reference-keys';
import { referencedSubmodelIds } from '../shells/shell.service';
import { Shell, SpecificAssetIdInput } from '../shells/shell.types';
import { Page, originOf } from '../store/identifiable-store';
import { versionOf } from '../versions/view';
import { Submodel } from '../submodels/submodel.types';
import { parseAssetLinks } from './discovery.service';
import type { InstanceKind, RegistryInstanceEntity } from './registry.entities';
import {
  ShellDescriptor,
  ShellDescriptorFilterInput,
  ShellDescriptorPage,
  ShellIdPage,
  SubmodelDescriptor,
  SubmodelDescriptorFilterInput,
  SubmodelDescriptorPage,
  descriptorObject,
} from './registry.types';
import { type AssetIdPair, type Stored, assetIdPairs } from './stored';

/**
 * Registries and discovery. `instance` names an explicit instance of the tenant (a discovery service or an AAS
 * registry, with data of its own); without it, a query reads the tenant's implicit services, derived from its
 * shells and submodels, which are read-only. Thin: arguments in, one service call, the answer out.
 */

const INSTANCE_DESCRIPTION = 'An explicit instance of the tenant, by name; absent: the implicit service, derived from the repository.';

const page = <T>(p: Page<T>) => ({ result: p.items, pagingMetadata: { cursor: p.cursor } });

const descriptorPage = (ctx: Context, p: Page<Stored>) => page({ items: p.items.map((d) => descriptorObject(seen(ctx, d))), cursor: p.cursor });

/**
 * A descriptor as the request's version sees it. Through V3.1 as stored; through V3.0, V3.1's asset kind `Role` (of a
 * descriptor an explicit registry stores) read as `NotApplicable`, as in the shells, and the answer marked, as it is
 * for an implicit descriptor of a shell the store mapped down.
 */
function seen(ctx: Context, stored: Stored): Stored {
  if (versionOf(ctx, null) !== '3.0') return stored;
  if (stored.json.assetKind === 'Role') {
    ctx.versionMapped = true;
    return { ...stored, json: { ...stored.json, assetKind: 'NotApplicable' } };
  }
  if (stored.mapped) ctx.versionMapped = true;
  return stored;
}

/** The version the implicit services read the tenant's shells in: the request's. */
const viewOfRequest = (ctx: Context) => versionOf(ctx, null);

const NO_EXPLICIT_SUBMODEL_REGISTRY =
  'There is no explicit submodel registry: in an AAS registry instance, submodel descriptors live under their shell descriptor (give aasId); ' +
  "the tenant's implicit submodel registry (no instance) has every submodel it stores.";

function semanticKeyOf(semanticId: JsonObject | null | undefined, semanticIdValue: string | null | undefined, name: string): string | undefined {
  if (semanticId != null && semanticIdValue != null) throw badRequest(`Give ${name} as a Reference or as a key value, not both.`);
  return semanticIdValue != null ? valueKey(semanticIdValue) : referenceKeyOf(semanticId, name);
}

const pairs = (ids: SpecificAssetIdInput[] | null | undefined): AssetIdPair[] => assetIdPairs(ids ?? []);

const QUERY_DESCRIPTION =
  'An AAS Query Language query (IDTA-01002-3, JSON: `{"$condition": ...}`) instead of `filter`: the descriptors it selects, paged in ' +
  "registration order (implicit: the repository's). `$select: \"id\"` does not change this answer (select `id`); REST answers identifiers for it.";

/** A query replaces the list's other filters (400 when both are given). */
function queryAlone(given: Record<string, unknown>): void {
  const also = Object.entries(given).filter(([, v]) => v != null).map(([k]) => k);
  if (also.length) throw badRequest(`Give query or ${also.join(' and ')}, not both: a query is the whole condition.`);
}

/** The implicit descriptors of the repository's own shells and submodels, as fields of theirs. */
@Resolver(() => Shell)
export class ShellDescriptorFieldResolver {
  @FieldResolver(() => ShellDescriptor, {
    nullable: true,
    description: "The shell's descriptor in the tenant's implicit AAS registry (submodel heads loaded in one batch per request).",
  })
  async descriptor(@Root() shell: JsonObject, @Ctx() ctx: Context): Promise<ShellDescriptor | null> {
    const origin = originOf(shell);
    if (!origin) return null;
    const ids = referencedSubmodelIds(shell);
    const heads = await ctx.loaders.submodelHead(origin.tenant).loadMany(ids);
    const found = new Map<string, JsonObject>();
    ids.forEach((id, i) => {
      const head = heads[i];
      if (head && !(head instanceof Error)) found.set(id, head);
    });
    return descriptorObject(ctx.services.implicitRegistry.describeShell(origin.tenant, shell, found));
  }
}

@Resolver(() => Submodel)
export class SubmodelDescriptorFieldResolver {
  @FieldResolver(() => SubmodelDescriptor, { nullable: true, description: "The submodel's descriptor in the tenant's implicit submodel registry." })
  descriptor(@Root() submodel: JsonObject, @Ctx() ctx: Context): SubmodelDescriptor | null {
    const origin = originOf(submodel);
    return origin ? descriptorObject(ctx.services.implicitRegistry.describeSubmodel(origin.tenant, submodel)) : null;
  }
}

@Resolver()
export class RegistryResolver {
  @Authorized('reader')
  @Query(() => ShellIdPage, {
    description:
      'Discovery: the ids of the shells linked to all of `assetIds` (`globalAssetId` names the global asset id), paged. ' +
      'Implicit: the tenant\'s shells (also by assetKind, assetType); explicit: the asset links of a discovery instance.',
  })
  async lookupShells(
    @Ctx() ctx: Context,
    @Arg('tenant') tenant: string,
    @Arg('instance', () => String, { nullable: true, description: INSTANCE_DESCRIPTION }) instance: string | null,
    @Arg('assetIds', () => [SpecificAssetIdInput], { nullable: true }) assetIds: SpecificAssetIdInput[] | null,
    @Arg('assetKind', () => AssetKind, { nullable: true }) assetKind: AssetKind | null,
    @Arg('assetType', () => String, { nullable: true }) assetType: string | null,
    @Arg('limit', () => Int, { defaultValue: DEFAULT_LIMIT }) limit: number,
    @Arg('cursor', () => String, { nullable: true }) cursor: string | null,
  ): Promise<ShellIdPage> {
    return page(await lookup(ctx, tenant, instance, pairs(assetIds), { assetKind, assetType }, limit, cursor));
  }

  @Authorized('reader')
  @Query(() => ShellIdPage, {
    description:
      'Discovery by asset links (SearchAllAssetAdministrationShellIdsByAssetLink, AAS API V3.1): `assetLinks` is a JSON array of ' +
      '{name, value} (name 1..64, value 1..2048 characters); the shells linked to all of them, paged.',
  })
  async lookupShellsByAssetLink(
    @Ctx() ctx: Context,
    @Arg('tenant') tenant: string,
    @Arg('instance', () => String, { nullable: true, description: INSTANCE_DESCRIPTION }) instance: string | null,
    @Arg('assetLinks', () => GraphQLJSON) assetLinks: unknown,
    @Arg('limit', () => Int, { defaultValue: DEFAULT_LIMIT }) limit: number,
    @Arg('cursor', () => String, { nullable: true }) cursor: string | null,
  ): Promise<ShellIdPage> {
    return page(await lookup(ctx, tenant, instance, parseAssetLinks(assetLinks), {}, limit, cursor));
  }

  @Authorized('reader')
  @Query(() => [GraphQLJSONObject], {
    description: "Discovery: a shell's asset links. Implicit: its global asset id (as `globalAssetId`) and specific asset ids.",
  })
  async assetLinks(
    @Ctx() ctx: Context,
    @Arg('tenant') tenant: string,
    @Arg('instance', () => String, { nullable: true, description: INSTANCE_DESCRIPTION }) instance: string | null,
    @Arg('aasId') aasId: string,
  ): Promise<JsonObject[]> {
    const [t, discovery] = await target(ctx, tenant, instance, 'discovery');
    return discovery ? ctx.services.discovery.links(t, discovery, aasId) : ctx.services.implicitRegistry.links(t, aasId);
  }

  @Authorized('reader')
  @Query(() => ShellDescriptorPage, { description: 'Shell descriptors, paged.' })
  async shellDescriptors(
    @Ctx() ctx: Context,
    @Arg('tenant') tenant: string,
    @Arg('instance', () => String, { nullable: true, description: INSTANCE_DESCRIPTION }) instance: string | null,
    @Arg('filter', () => ShellDescriptorFilterInput, { nullable: true }) filter: ShellDescriptorFilterInput | null,
    @Arg('limit', () => Int, { defaultValue: DEFAULT_LIMIT }) limit: number,
    @Arg('cursor', () => String, { nullable: true }) cursor: string | null,
    @Arg('query', () => GraphQLJSON, { nullable: true, description: QUERY_DESCRIPTION }) query: unknown,
  ): Promise<ShellDescriptorPage> {
    if (query != null) {
      queryAlone({ filter });
      const [t, registry] = await target(ctx, tenant, instance, 'aas-registry');
      return descriptorPage(ctx, await ctx.services.descriptorQueries.shellDescriptors(t, registry, query, limit, cursor, viewOfRequest(ctx)));
    }
    const descriptorFilter = {
      assetKind: filter?.assetKind,
      assetType: filter?.assetType,
      assetIds: pairs(filter?.assetIds),
      submodelSemanticKey: semanticKeyOf(filter?.submodelSemanticId, filter?.submodelSemanticIdValue, 'submodelSemanticId'),
    };
    const [t, registry] = await target(ctx, tenant, instance, 'aas-registry');
    return descriptorPage(
      ctx,
      registry
        ? await ctx.services.shellDescriptors.list(t, registry, descriptorFilter, limit, cursor)
        : await ctx.services.implicitRegistry.shellDescriptors(t, descriptorFilter, limit, cursor, viewOfRequest(ctx)),
    );
  }

  @Authorized('reader')
  @Query(() => ShellDescriptor)
  async shellDescriptor(
    @Ctx() ctx: Context,
    @Arg('tenant') tenant: string,
    @Arg('instance', () => String, { nullable: true, description: INSTANCE_DESCRIPTION }) instance: string | null,
    @Arg('id') id: string,
  ): Promise<ShellDescriptor> {
    const [t, registry] = await target(ctx, tenant, instance, 'aas-registry');
    return descriptorObject(seen(ctx, registry ? await ctx.services.shellDescriptors.get(t, registry, id) : await ctx.services.implicitRegistry.shellDescriptor(t, id, viewOfRequest(ctx))));
  }

  @Authorized('reader')
  @Query(() => SubmodelDescriptorPage, {
    description:
      'Submodel descriptors, paged: with `aasId`, those of that shell descriptor; without, the implicit submodel registry ' +
      '(an explicit AAS registry has no submodel registry of its own, so an instance needs `aasId`).',
  })
  async submodelDescriptors(
    @Ctx() ctx: Context,
    @Arg('tenant') tenant: string,
    @Arg('instance', () => String, { nullable: true, description: INSTANCE_DESCRIPTION }) instance: string | null,
    @Arg('aasId', () => String, { nullable: true }) aasId: string | null,
    @Arg('filter', () => SubmodelDescriptorFilterInput, { nullable: true }) filter: SubmodelDescriptorFilterInput | null,
    @Arg('limit', () => Int, { defaultValue: DEFAULT_LIMIT }) limit: number,
    @Arg('cursor', () => String, { nullable: true }) cursor: string | null,
    @Arg('query', () => GraphQLJSON, {
      nullable: true,
      description: `${QUERY_DESCRIPTION} Without \`aasId\`: in an instance, every submodel descriptor of its shell descriptors.`,
    })
    query: unknown,
  ): Promise<SubmodelDescriptorPage> {
    if (query != null) {
      queryAlone({ aasId, filter });
      const [t, registry] = await target(ctx, tenant, instance, 'aas-registry');
      return descriptorPage(ctx, await ctx.services.descriptorQueries.submodelDescriptors(t, registry, query, limit, cursor));
    }
    const key = semanticKeyOf(filter?.semanticId, filter?.semanticIdValue, 'semanticId');
    const [t, registry] = await target(ctx, tenant, instance, 'aas-registry');
    let found: Page<Stored>;
    if (registry) found = await ctx.services.shellDescriptors.submodelDescriptors(t, registry, shellOf(aasId), key, limit, cursor);
    else if (aasId == null) found = await ctx.services.implicitRegistry.submodelDescriptors(t, key, limit, cursor);
    else found = await ctx.services.implicitRegistry.submodelDescriptorsOfShell(t, aasId, key, limit, cursor, viewOfRequest(ctx));
    return descriptorPage(ctx, found);
  }

  @Authorized('reader')
  @Query(() => SubmodelDescriptor, { description: 'A submodel descriptor: with `aasId`, of that shell descriptor; without, of the implicit submodel registry.' })
  async submodelDescriptor(
    @Ctx() ctx: Context,
    @Arg('tenant') tenant: string,
    @Arg('instance', () => String, { nullable: true, description: INSTANCE_DESCRIPTION }) instance: string | null,
    @Arg('aasId', () => String, { nullable: true }) aasId: string | null,
    @Arg('id') id: string,
  ): Promise<SubmodelDescriptor> {
    const [t, registry] = await target(ctx, tenant, instance, 'aas-registry');
    let found: Stored;
    if (registry) found = await ctx.services.shellDescriptors.submodelDescriptor(t, registry, shellOf(aasId), id);
    else if (aasId == null) found = await ctx.services.implicitRegistry.submodelDescriptor(t, id);
    else found = await ctx.services.implicitRegistry.submodelDescriptorOfShell(t, aasId, id, viewOfRequest(ctx));
    return descriptorObject(seen(ctx, found));
  }

  @Authorized('contributor')
  @Mutation(() => ShellDescriptor, { description: 'Registers a shell descriptor (with its submodel descriptors) in an AAS registry instance; the id must be new.' })
  async createShellDescriptor(
    @Ctx() ctx: Context,
    @Arg('tenant') tenant: string,
    @Arg('instance') instance: string,
    @Arg('descriptor', () => GraphQLJSONObject) descriptor: JsonObject,
  ): Promise<ShellDescriptor> {
    const [t, registry] = await explicit(ctx, tenant, instance, 'aas-registry');
    return descriptorObject(seen(ctx, await ctx.services.shellDescriptors.create(t, registry, descriptor, { aasVersion: viewOfRequest(ctx) })));
  }

  @Authorized('contributor')
  @Mutation(() => ShellDescriptor, { description: 'Replaces a shell descriptor; the id in the body must equal `id`.' })
  async replaceShellDescriptor(
    @Ctx() ctx: Context,
    @Arg('tenant') tenant: string,
    @Arg('instance') instance: string,
    @Arg('id') id: string,
    @Arg('descriptor', () => GraphQLJSONObject) descriptor: JsonObject,
    @Arg('ifMatch', () => String, { nullable: true }) ifMatch: string | null,
  ): Promise<ShellDescriptor> {
    const [t, registry] = await explicit(ctx, tenant, instance, 'aas-registry');
    return descriptorObject(seen(ctx, await ctx.services.shellDescriptors.replace(t, registry, id, descriptor, { ifMatch, aasVersion: viewOfRequest(ctx) })));
  }

  @Authorized('contributor')
  @Mutation(() => Boolean)
  async deleteShellDescriptor(
    @Ctx() ctx: Context,
    @Arg('tenant') tenant: string,
    @Arg('instance') instance: string,
    @Arg('id') id: string,
    @Arg('ifMatch', () => String, { nullable: true }) ifMatch: string | null,
  ): Promise<boolean> {
    const [t, registry] = await explicit(ctx, tenant, instance, 'aas-registry');
    await ctx.services.shellDescriptors.delete(t, registry, id, { ifMatch });
    return true;
  }

  @Authorized('contributor')
  @Mutation(() => SubmodelDescriptor, { description: 'Adds a submodel descriptor to a shell descriptor; its id must be new there. `ifMatch`: the shell descriptor\'s.' })
  async createSubmodelDescriptor(
    @Ctx() ctx: Context,
    @Arg('tenant') tenant: string,
    @Arg('instance') instance: string,
    @Arg('aasId') aasId: string,
    @Arg('descriptor', () => GraphQLJSONObject) descriptor: JsonObject,
    @Arg('ifMatch', () => String, { nullable: true }) ifMatch: string | null,
  ): Promise<SubmodelDescriptor> {
    const [t, registry] = await explicit(ctx, tenant, instance, 'aas-registry');
    return descriptorObject(await ctx.services.shellDescriptors.createSubmodelDescriptor(t, registry, aasId, descriptor, { ifMatch, aasVersion: viewOfRequest(ctx) }));
  }

  @Authorized('contributor')
  @Mutation(() => SubmodelDescriptor, { description: "Replaces a submodel descriptor of a shell descriptor. `ifMatch`: the shell descriptor's." })
  async replaceSubmodelDescriptor(
    @Ctx() ctx: Context,
    @Arg('tenant') tenant: string,
    @Arg('instance') instance: string,
    @Arg('aasId') aasId: string,
    @Arg('id') id: string,
    @Arg('descriptor', () => GraphQLJSONObject) descriptor: JsonObject,
    @Arg('ifMatch', () => String, { nullable: true }) ifMatch: string | null,
  ): Promise<SubmodelDescriptor> {
    const [t, registry] = await explicit(ctx, tenant, instance, 'aas-registry');
    return descriptorObject(await ctx.services.shellDescriptors.replaceSubmodelDescriptor(t, registry, aasId, id, descriptor, { ifMatch, aasVersion: viewOfRequest(ctx) }));
  }

  @Authorized('contributor')
  @Mutation(() => Boolean, { description: "Removes a submodel descriptor from its shell descriptor. `ifMatch`: the shell descriptor's." })
  async deleteSubmodelDescriptor(
    @Ctx() ctx: Context,
    @Arg('tenant') tenant: string,
    @Arg('instance') instance: string,
    @Arg('aasId') aasId: string,
    @Arg('id') id: string,
    @Arg('ifMatch', () => String, { nullable: true }) ifMatch: string | null,
  ): Promise<boolean> {
    const [t, registry] = await explicit(ctx, tenant, instance, 'aas-registry');
    await ctx.services.shellDescriptors.deleteSubmodelDescriptor(t, registry, aasId, id, { ifMatch });
    return true;
  }

  @Authorized('contributor')
  @Mutation(() => [GraphQLJSONObject], {
    description: 'Links a shell to asset ids in a discovery instance: `links` is a JSON array of SpecificAssetIds. 409 when it has links already.',
  })
  async createAssetLinks(
    @Ctx() ctx: Context,
    @Arg('tenant') tenant: string,
    @Arg('instance') instance: string,
    @Arg('aasId') aasId: string,
    @Arg('links', () => GraphQLJSON) links: unknown,
  ): Promise<JsonObject[]> {
    const [t, discovery] = await explicit(ctx, tenant, instance, 'discovery');
    return ctx.services.discovery.create(t, discovery, aasId, links);
  }

  @Authorized('contributor')
  @Mutation(() => Boolean, { description: 'Removes all asset links of a shell from a discovery instance.' })
  async deleteAssetLinks(@Ctx() ctx: Context, @Arg('tenant') tenant: string, @Arg('instance') instance: string, @Arg('aasId') aasId: string): Promise<boolean> {
    const [t, discovery] = await explicit(ctx, tenant, instance, 'discovery');
    await ctx.services.discovery.delete(t, discovery, aasId);
    return true;
  }
}

/** The tenant and its explicit instance `name` of `kind` (404 when it has none): what a write goes to. */
async function explicit(ctx: Context, tenant: string, name: string, kind: InstanceKind): Promise<[TenantEntity, RegistryInstanceEntity]> {
  const t = tenantOf(ctx, tenant);
  return [t, await ctx.services.registryInstances.resolve(t, name, kind)];
}

/** The tenant, and its explicit instance `instance` of `kind` when one is named (404 when it has none); null: the implicit service. */
async function target(ctx: Context, tenant: string, instance: string | null, kind: InstanceKind): Promise<[TenantEntity, RegistryInstanceEntity | null]> {
  return instance == null ? [tenantOf(ctx, tenant), null] : explicit(ctx, tenant, instance, kind);
}

/** The shell descriptor an explicit AAS registry's submodel descriptor is asked under: it has no submodel registry of its own. */
function shellOf(aasId: string | null): string {
  if (aasId == null) throw badRequest(NO_EXPLICIT_SUBMODEL_REGISTRY);
  return aasId;
}

async function lookup(
  ctx: Context,
  tenant: string,
  instance: string | null,
  assetIds: AssetIdPair[],
  asset: { assetKind?: string | null; assetType?: string | null },
  limit: number,
  cursor: string | null,
): Promise<Page<string>> {
  const [t, discovery] = await target(ctx, tenant, instance, 'discovery');
  if (!discovery) return ctx.services.implicitRegistry.lookup(t, { assetIds, ...asset }, limit, cursor);
  return ctx.services.discovery.lookup(t, discovery, assetIds, limit, cursor, asset);
}
