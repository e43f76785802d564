import { GraphQLJSON, GraphQLJSONObject } from 'graphql-scalars';
import { Arg, Authorized, Ctx, FieldResolver, Int, Mutation, Query, Resolver, Root } from 'type-graphql';
import { DEFAULT_LIMIT } from '../../common/cursor';
import { Context, tenantOf } from '../../graphql/context';
import { badRequest } from '../../graphql/errors';
import type { TenantEntity } from '../../management/tenants/tenant.entity';
import { AssetKind, Reference } from '../model/graphql-types';
import { JsonObject } from '../model/parse';
import { referenceKeyOf, valueKey } from '../model/reference-keys';
import { referencedSubmodelIds } from '../shells/shell.service';
import { Shell, SpecificAssetIdInput } from '../shells/shell.types';
import { Page, originOf } from '../store/identifiable-store';
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
} from './registry.types';
import type { AssetIdPair, Stored } from './stored';

/**
 * Registries and discovery. `instance` names an explicit instance of the tenant (a discovery service or an AAS
 * registry, with data of its own); without it, a query reads the tenant's implicit services, derived from its
 * shells and submodels, which are read-only. Thin: arguments in, one service call, the answer out.
 */

const INSTANCE_DESCRIPTION = 'An explicit instance of the tenant, by name; absent: the implicit service, derived from the repository.';

const page = <T>(p: Page<T>) => ({ result: p.items, pagingMetadata: { cursor: p.cursor } });

const jsonOf = (root: Stored) => root.json;

const NO_EXPLICIT_SUBMODEL_REGISTRY =
  'There is no explicit submodel registry: in an AAS registry instance, submodel descriptors live under their shell descriptor (give aasId); ' +
  "the tenant's implicit submodel registry (no instance) has every submodel it stores.";

function semanticKeyOf(semanticId: JsonObject | null | undefined, semanticIdValue: string | null | undefined, name: string): string | undefined {
  if (semanticId != null && semanticIdValue != null) throw badRequest(`Give ${name} as a Reference or as a key value, not both.`);
  return semanticIdValue != null ? valueKey(semanticIdValue) : referenceKeyOf(semanticId, name);
}

const pairs = (ids: SpecificAssetIdInput[] | null | undefined): AssetIdPair[] => (ids ?? []).map(({ name, value }) => ({ name, value }));

@Resolver(() => ShellDescriptor)
export class ShellDescriptorResolver {
  @FieldResolver(() => String)
  id(@Root() root: Stored): unknown {
    return root.json.id;
  }

  @FieldResolver(() => String, { nullable: true })
  idShort(@Root() root: Stored): unknown {
    return root.json.idShort;
  }

  @FieldResolver(() => AssetKind, { nullable: true })
  assetKind(@Root() root: Stored): unknown {
    return root.json.assetKind;
  }

  @FieldResolver(() => String, { nullable: true })
  assetType(@Root() root: Stored): unknown {
    return root.json.assetType;
  }

  @FieldResolver(() => String, { nullable: true })
  globalAssetId(@Root() root: Stored): unknown {
    return root.json.globalAssetId;
  }

  @FieldResolver(() => GraphQLJSONObject)
  json(@Root() root: Stored): JsonObject {
    return jsonOf(root);
  }

  @FieldResolver(() => [SubmodelDescriptor])
  submodelDescriptors(@Root() root: Stored): Stored[] {
    return ((root.json.submodelDescriptors as JsonObject[] | undefined) ?? []).map((json) => ({ json, etag: root.etag }));
  }
}

@Resolver(() => SubmodelDescriptor)
export class SubmodelDescriptorResolver {
  @FieldResolver(() => String)
  id(@Root() root: Stored): unknown {
    return root.json.id;
  }

  @FieldResolver(() => String, { nullable: true })
  idShort(@Root() root: Stored): unknown {
    return root.json.idShort;
  }

  @FieldResolver(() => Reference, { nullable: true })
  semanticId(@Root() root: Stored): unknown {
    return root.json.semanticId;
  }

  @FieldResolver(() => GraphQLJSONObject)
  json(@Root() root: Stored): JsonObject {
    return jsonOf(root);
  }
}

/** The implicit descriptors of the repository's own shells and submodels, as fields of theirs. */
@Resolver(() => Shell)
export class ShellDescriptorFieldResolver {
  @FieldResolver(() => ShellDescriptor, {
    nullable: true,
    description: "The shell's descriptor in the tenant's implicit AAS registry (submodel heads loaded in one batch per request).",
  })
  async descriptor(@Root() shell: JsonObject, @Ctx() ctx: Context): Promise<Stored | null> {
    const origin = originOf(shell);
    if (!origin) return null;
    const ids = referencedSubmodelIds(shell);
    const heads = await ctx.loaders.submodelHead(origin.tenant).loadMany(ids);
    const found = new Map<string, JsonObject>();
    ids.forEach((id, i) => {
      const head = heads[i];
      if (head && !(head instanceof Error)) found.set(id, head);
    });
    return ctx.services.implicitRegistry.describeShell(origin.tenant, shell, found);
  }
}

@Resolver(() => Submodel)
export class SubmodelDescriptorFieldResolver {
  @FieldResolver(() => SubmodelDescriptor, { nullable: true, description: "The submodel's descriptor in the tenant's implicit submodel registry." })
  descriptor(@Root() submodel: JsonObject, @Ctx() ctx: Context): Stored | null {
    const origin = originOf(submodel);
    return origin ? ctx.services.implicitRegistry.describeSubmodel(origin.tenant, submodel) : null;
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
    const t = tenantOf(ctx, tenant);
    if (instance == null) return ctx.services.implicitRegistry.links(t, aasId);
    return ctx.services.discovery.links(t, await resolve(ctx, t, instance, 'discovery'), aasId);
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
  ): Promise<ShellDescriptorPage> {
    const t = tenantOf(ctx, tenant);
    const descriptorFilter = {
      assetKind: filter?.assetKind,
      assetType: filter?.assetType,
      assetIds: pairs(filter?.assetIds),
      submodelSemanticKey: semanticKeyOf(filter?.submodelSemanticId, filter?.submodelSemanticIdValue, 'submodelSemanticId'),
    };
    const found =
      instance == null
        ? await ctx.services.implicitRegistry.shellDescriptors(t, descriptorFilter, limit, cursor)
        : await ctx.services.shellDescriptors.list(t, await resolve(ctx, t, instance, 'aas-registry'), descriptorFilter, limit, cursor);
    return page(found) as unknown as ShellDescriptorPage;
  }

  @Authorized('reader')
  @Query(() => ShellDescriptor)
  async shellDescriptor(
    @Ctx() ctx: Context,
    @Arg('tenant') tenant: string,
    @Arg('instance', () => String, { nullable: true, description: INSTANCE_DESCRIPTION }) instance: string | null,
    @Arg('id') id: string,
  ): Promise<ShellDescriptor> {
    const t = tenantOf(ctx, tenant);
    const found =
      instance == null
        ? await ctx.services.implicitRegistry.shellDescriptor(t, id)
        : await ctx.services.shellDescriptors.get(t, await resolve(ctx, t, instance, 'aas-registry'), id);
    return found as unknown as ShellDescriptor;
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
  ): Promise<SubmodelDescriptorPage> {
    const t = tenantOf(ctx, tenant);
    const key = semanticKeyOf(filter?.semanticId, filter?.semanticIdValue, 'semanticId');
    let found: Page<Stored>;
    if (instance == null) {
      found = aasId == null
        ? await ctx.services.implicitRegistry.submodelDescriptors(t, key, limit, cursor)
        : await ctx.services.implicitRegistry.submodelDescriptorsOfShell(t, aasId, key, limit, cursor);
    } else {
      const registry = await resolve(ctx, t, instance, 'aas-registry');
      if (aasId == null) throw badRequest(NO_EXPLICIT_SUBMODEL_REGISTRY);
      found = await ctx.services.shellDescriptors.submodelDescriptors(t, registry, aasId, key, limit, cursor);
    }
    return page(found) as unknown as SubmodelDescriptorPage;
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
    const t = tenantOf(ctx, tenant);
    let found: Stored;
    if (instance == null) {
      found = aasId == null ? await ctx.services.implicitRegistry.submodelDescriptor(t, id) : await ctx.services.implicitRegistry.submodelDescriptorOfShell(t, aasId, id);
    } else {
      const registry = await resolve(ctx, t, instance, 'aas-registry');
      if (aasId == null) throw badRequest(NO_EXPLICIT_SUBMODEL_REGISTRY);
      found = await ctx.services.shellDescriptors.submodelDescriptor(t, registry, aasId, id);
    }
    return found as unknown as SubmodelDescriptor;
  }

  @Authorized('contributor')
  @Mutation(() => ShellDescriptor, { description: 'Registers a shell descriptor (with its submodel descriptors) in an AAS registry instance; the id must be new.' })
  async createShellDescriptor(
    @Ctx() ctx: Context,
    @Arg('tenant') tenant: string,
    @Arg('instance') instance: string,
    @Arg('descriptor', () => GraphQLJSONObject) descriptor: JsonObject,
  ): Promise<ShellDescriptor> {
    const t = tenantOf(ctx, tenant);
    return (await ctx.services.shellDescriptors.create(t, await resolve(ctx, t, instance, 'aas-registry'), descriptor)) as unknown as ShellDescriptor;
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
    const t = tenantOf(ctx, tenant);
    const registry = await resolve(ctx, t, instance, 'aas-registry');
    return (await ctx.services.shellDescriptors.replace(t, registry, id, descriptor, { ifMatch })) as unknown as ShellDescriptor;
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
    const t = tenantOf(ctx, tenant);
    await ctx.services.shellDescriptors.delete(t, await resolve(ctx, t, instance, 'aas-registry'), id, { ifMatch });
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
    const t = tenantOf(ctx, tenant);
    const registry = await resolve(ctx, t, instance, 'aas-registry');
    return (await ctx.services.shellDescriptors.createSubmodelDescriptor(t, registry, aasId, descriptor, { ifMatch })) as unknown as SubmodelDescriptor;
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
    const t = tenantOf(ctx, tenant);
    const registry = await resolve(ctx, t, instance, 'aas-registry');
    return (await ctx.services.shellDescriptors.replaceSubmodelDescriptor(t, registry, aasId, id, descriptor, { ifMatch })) as unknown as SubmodelDescriptor;
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
    const t = tenantOf(ctx, tenant);
    await ctx.services.shellDescriptors.deleteSubmodelDescriptor(t, await resolve(ctx, t, instance, 'aas-registry'), aasId, id, { ifMatch });
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
    const t = tenantOf(ctx, tenant);
    return ctx.services.discovery.create(t, await resolve(ctx, t, instance, 'discovery'), aasId, links);
  }

  @Authorized('contributor')
  @Mutation(() => Boolean, { description: 'Removes all asset links of a shell from a discovery instance.' })
  async deleteAssetLinks(@Ctx() ctx: Context, @Arg('tenant') tenant: string, @Arg('instance') instance: string, @Arg('aasId') aasId: string): Promise<boolean> {
    const t = tenantOf(ctx, tenant);
    await ctx.services.discovery.delete(t, await resolve(ctx, t, instance, 'discovery'), aasId);
    return true;
  }
}

function resolve(ctx: Context, tenant: TenantEntity, name: string, kind: InstanceKind): Promise<RegistryInstanceEntity> {
  return ctx.services.registryInstances.resolve(tenant, name, kind);
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
  const t = tenantOf(ctx, tenant);
  if (instance == null) return ctx.services.implicitRegistry.lookup(t, { assetIds, ...asset }, limit, cursor);
  const discovery = await resolve(ctx, t, instance, 'discovery');
  if (asset.assetKind != null || asset.assetType != null) {
    throw badRequest('A discovery instance knows asset links only: assetKind and assetType filter the implicit discovery (no instance).');
  }
  return ctx.services.discovery.lookup(t, discovery, assetIds, limit, cursor);
}
