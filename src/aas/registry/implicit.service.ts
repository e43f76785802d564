import { createHash } from 'node:crypto';
import { encodeBase64Url } from '../../common/base64url';
import { cursorList } from '../../common/cursor';
import { badRequest, notFound } from '../../graphql/errors';
import type { TenantEntity } from '../../management/tenants/tenant.entity';
import type { JsonObject } from '../model/parse';
import { ShellService, referencedSubmodelIds } from '../shells/shell.service';
import { type Page, originOf } from '../store/identifiable-store';
import type { AasVersion } from '../versions';
import type { SubmodelService } from '../submodels/submodel.service';
import { checkId, submodelDescriptorIn, submodelDescriptorPage, type AssetIdPair, type DescriptorFilter, type Stored } from './stored';

/** The interfaces of the endpoints of implicit descriptors (V3.0.4, Part 2, "Interface"). */
export const AAS_INTERFACE = 'AAS-3.0';
export const SUBMODEL_INTERFACE = 'SUBMODEL-3.0';

/** Filters of implicit lookups and descriptor lists. */
export interface ImplicitFilter {
  assetIds?: AssetIdPair[] | null;
  assetKind?: string | null;
  assetType?: string | null;
}

/**
 * The tenant's implicit discovery service and registries (read profiles SSP-002): derived at request time from
 * its own shells and submodels, so they never drift from the repository. A lookup is the shells' own asset-id
 * index; a descriptor is built from the stored shell and the heads (no elements) of the submodels it references
 * and the tenant stores. Endpoints point at this tenant's repository URLs.
 */
export class ImplicitRegistryService {
  constructor(
    private readonly shells: ShellService,
    private readonly submodels: SubmodelService,
    /** `{tenant_url}/api/v3.0` of a tenant, for the endpoints' `href` (also of the descriptors the query service derives in SQL). */
    readonly apiUrlOf: (tenantName: string) => string,
  ) {}

  /** Discovery: the ids of the tenant's shells with all of `filter`'s asset ids (and kind, type). */
  lookup(tenant: TenantEntity, filter: ImplicitFilter, limit: number, cursor?: string | null): Promise<Page<string>> {
    return this.shells.ids(tenant, filter, limit, cursor);
  }

  /** Discovery: a shell's asset links, its global asset id (as `globalAssetId`, AASd-116) and its specific asset ids. */
  async links(tenant: TenantEntity, aasId: string): Promise<JsonObject[]> {
    const info = (await this.shells.get(tenant, aasId)).assetInformation as JsonObject;
    const links = [...((info.specificAssetIds as JsonObject[] | undefined) ?? [])];
    if (typeof info.globalAssetId === 'string') links.unshift({ name: 'globalAssetId', value: info.globalAssetId });
    return links;
  }

  /**
   * The shells' descriptors. `view`, here and below: the metamodel version the shells are read in, so a V3.0 reader
   * gets a shell that needs V3.1 mapped down (`Role` read as `NotApplicable`), its descriptor marked `mapped`.
   */
  async shellDescriptors(tenant: TenantEntity, filter: DescriptorFilter, limit: number, cursor?: string | null, view: AasVersion = '3.0'): Promise<Page<Stored>> {
    if (filter.submodelSemanticKey != null) {
      throw badRequest(
        'The implicit AAS registry has no filter by submodel semanticId: use the implicit submodel registry (/submodel-descriptors?semanticId=) or the repository (/submodels?semanticId=).',
      );
    }
    const page = await this.shells.list(tenant, filter, limit, cursor, view);
    const heads = await this.submodels.heads(tenant, [...new Set(page.items.flatMap(referencedSubmodelIds))]);
    return { items: page.items.map((shell) => this.describeShell(tenant, shell, heads)), cursor: page.cursor };
  }

  async shellDescriptor(tenant: TenantEntity, aasId: string, view: AasVersion = '3.0'): Promise<Stored> {
    const shell = await this.shells.get(tenant, aasId, view);
    return this.describeShell(tenant, shell, await this.submodels.heads(tenant, referencedSubmodelIds(shell)));
  }

  /** The descriptor of a stored shell (GraphQL's `Shell.descriptor`), given the heads of its submodels. */
  describeShell(tenant: TenantEntity, shell: JsonObject, heads: ReadonlyMap<string, JsonObject>): Stored {
    const info = shell.assetInformation as JsonObject;
    const submodelDescriptors = referencedSubmodelIds(shell).flatMap((id) => {
      const head = heads.get(id);
      return head ? [this.submodelDescriptorJson(tenant, head)] : [];
    });
    const json = pick(shell, ['description', 'displayName', 'extensions', 'administration']);
    Object.assign(json, { idShort: shell.idShort, id: shell.id, assetKind: info.assetKind, assetType: info.assetType, globalAssetId: info.globalAssetId });
    Object.assign(json, { specificAssetIds: info.specificAssetIds, endpoints: [endpoint(AAS_INTERFACE, `${this.apiUrlOf(tenant.name)}/shells/${encodeBase64Url(shell.id as string)}`)] });
    if (submodelDescriptors.length) json.submodelDescriptors = submodelDescriptors;
    const described = tag(dropUndefined(json));
    // Read through the store's V3.0 view: what it mapped is on the shell's origin.
    return originOf(shell)?.mapped?.length ? { ...described, mapped: true } : described;
  }

  /**
   * The submodel descriptors of a shell: of the submodels it references that this tenant stores, in order;
   * `semanticKey` (a filter key, `model/reference-keys`) keeps those with that semanticId.
   */
  async submodelDescriptorsOfShell(
    tenant: TenantEntity,
    aasId: string,
    semanticKey: string | null | undefined,
    limit: number,
    cursor?: string | null,
    view: AasVersion = '3.0',
  ): Promise<Page<Stored>> {
    // As in an explicit registry, a submodel descriptor under a shell descriptor carries the shell descriptor's tag.
    return submodelDescriptorPage(cursorList('implicit-submodel-descriptors', tenant.id, aasId), await this.shellDescriptor(tenant, aasId, view), semanticKey, limit, cursor);
  }

  async submodelDescriptorOfShell(tenant: TenantEntity, aasId: string, submodelId: string, view: AasVersion = '3.0'): Promise<Stored> {
    // Looked up in the shell's list, not the store: its length is checked here, as the store checks ids.
    checkId(submodelId);
    const found = submodelDescriptorIn(await this.shellDescriptor(tenant, aasId, view), submodelId);
    if (!found) throw notFound(`Shell '${aasId.slice(0, 200)}' references no submodel '${submodelId.slice(0, 200)}' that this tenant stores.`);
    return found;
  }

  /** The submodel registry: one descriptor per stored submodel, in insertion order; `semanticKey` as in `SubmodelFilter`. */
  async submodelDescriptors(tenant: TenantEntity, semanticKey: string | null | undefined, limit: number, cursor?: string | null): Promise<Page<Stored>> {
    const page = await this.submodels.listHeads(tenant, { semanticKey }, limit, cursor);
    return { items: page.items.map((head) => tag(this.submodelDescriptorJson(tenant, head))), cursor: page.cursor };
  }

  async submodelDescriptor(tenant: TenantEntity, submodelId: string): Promise<Stored> {
    const head = (await this.submodels.heads(tenant, [submodelId])).get(submodelId);
    if (!head) throw notFound(`Submodel '${submodelId.slice(0, 200)}' not found.`);
    return tag(this.submodelDescriptorJson(tenant, head));
  }

  /** The descriptor of a stored submodel (GraphQL's `Submodel.descriptor`), with its entity tag. */
  describeSubmodel(tenant: TenantEntity, submodel: JsonObject): Stored {
    return tag(this.submodelDescriptorJson(tenant, submodel));
  }

  /** The descriptor of a submodel: its head, and where the repository serves it. */
  submodelDescriptorJson(tenant: TenantEntity, submodel: JsonObject): JsonObject {
    const json = pick(submodel, ['description', 'displayName', 'extensions', 'administration']);
    Object.assign(json, { idShort: submodel.idShort, id: submodel.id, semanticId: submodel.semanticId, supplementalSemanticId: submodel.supplementalSemanticIds });
    json.endpoints = [endpoint(SUBMODEL_INTERFACE, `${this.apiUrlOf(tenant.name)}/submodels/${encodeBase64Url(submodel.id as string)}`)];
    return dropUndefined(json);
  }
}

function endpoint(iface: string, href: string): JsonObject {
  return { interface: iface, protocolInformation: { href, endpointProtocol: 'HTTP', endpointProtocolVersion: ['1.1'] } };
}

function pick(doc: JsonObject, keys: string[]): JsonObject {
  const out: JsonObject = {};
  for (const key of keys) if (doc[key] !== undefined) out[key] = doc[key];
  return out;
}

function dropUndefined(json: JsonObject): JsonObject {
  for (const key of Object.keys(json)) if (json[key] === undefined) delete json[key];
  return json;
}

/**
 * A derived descriptor's entity tag: a hash of its JSON, so it changes exactly when the descriptor does (a
 * shell's or one of its submodels' change that shows in it).
 */
function tag(json: JsonObject): Stored {
  const digest = createHash('sha256').update(JSON.stringify(json)).digest('base64url').slice(0, 27);
  return { json, etag: `"d-${digest}"` };
}
