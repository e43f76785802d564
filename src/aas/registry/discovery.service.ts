import { jsonization } from '@aas-core-works/aas-core3.0-typescript';
import { DataSource } from 'typeorm';
import { readRows, rethrowClientError } from '../../db/read';
import { AppError, badRequest, conflict, notFound } from '../../graphql/errors';
import type { TenantEntity } from '../../management/tenants/tenant.entity';
import { JsonObject, parseVerified } from '../model/parse';
import type { Condition, Page } from '../store/identifiable-store';
import { FOREIGN_KEY_VIOLATION, instanceGone } from './instance.service';
import type { RegistryInstanceEntity } from './registry.entities';
import { AssetIdPair, assetIdPairs, checkId, instancePage } from './stored';

const LIST = 'asset-links';
const BY_AAS = 'instance_id = $1 AND tenant_id = $2 AND md5(aas_id) = md5($3) AND aas_id = $3';
/** More asset links than any asset has; a bound on what one request stores. */
export const MAX_ASSET_LINKS = 1_000;

/**
 * Explicit discovery services (full profile SSP-001): which shells are linked to which asset ids. The links of a
 * shell are stored as posted; a lookup finds the shells linked to all the given name/value pairs with one GIN
 * index lookup (`asset_ids @> ...`).
 */
/**
 * `assetKind` and `assetType` on an instance: the links of shells whose asset, in the tenant's repository, is of
 * that kind and type (the shell of that id's assetInformation). An instance holds links, not shells; a link to a
 * shell the tenant does not hold matches no such filter.
 */
const SHELL_OF_ASSET = `EXISTS (SELECT 1 FROM shells s, (SELECT ?::jsonb AS f) p
  WHERE s.tenant_id = (p.f->>'tenant')::uuid AND md5(s.id) = md5(asset_links.aas_id) AND s.id = asset_links.aas_id
    AND (p.f->>'kind' IS NULL OR s.asset_kind = p.f->>'kind') AND (p.f->>'type' IS NULL OR s.asset_type = p.f->>'type'))`;

export class DiscoveryService {
  constructor(private readonly dataSource: DataSource) {}

  /** The ids of the shells linked to every one of `assetIds` (all shells when none), in the order they were linked. */
  async lookup(
    tenant: TenantEntity,
    instance: RegistryInstanceEntity,
    assetIds: readonly AssetIdPair[],
    limit: number,
    cursor?: string | null,
    asset: { assetKind?: string | null; assetType?: string | null } = {},
  ): Promise<Page<string>> {
    const conditions: Condition[] = assetIds.length ? [['asset_ids @> ?::jsonb', JSON.stringify(assetIdPairs(assetIds))]] : [];
    if (asset.assetKind != null || asset.assetType != null) {
      // One parameter (a condition binds one): the tenant as the subquery's own parameter, not the outer row's column.
      const filter = JSON.stringify({ tenant: tenant.id, kind: asset.assetKind ?? null, type: asset.assetType ?? null });
      conditions.push([SHELL_OF_ASSET, filter]);
    }
    const page = await instancePage<{ seq: string; aas_id: string }>(this.dataSource, LIST, 'asset_links', 'seq, aas_id', { tenant, instance }, conditions, limit, cursor);
    return { items: page.items.map((row) => row.aas_id), cursor: page.cursor };
  }

  /** The asset links of a shell, as posted (404 when it has none). */
  async links(tenant: TenantEntity, instance: RegistryInstanceEntity, aasId: string): Promise<JsonObject[]> {
    checkId(aasId);
    const rows = await readRows<{ links: JsonObject[] }>(this.dataSource, `SELECT links FROM asset_links WHERE ${BY_AAS}`, [instance.id, tenant.id, aasId]);
    if (!rows.length) throw linksNotFound(aasId);
    return rows[0].links;
  }

  /**
   * Links a shell to asset ids (each a SpecificAssetId, verified with the metamodel; `globalAssetId` as a name
   * stands for the global asset id, AASd-116). 409 when the shell has links already (V3.0.4: POST creates).
   */
  async create(tenant: TenantEntity, instance: RegistryInstanceEntity, aasId: string, json: unknown): Promise<JsonObject[]> {
    checkId(aasId);
    if (aasId === '') throw badRequest('The shell id must not be empty.');
    const links = parseLinks(json);
    try {
      await this.dataSource.manager.query(
        'INSERT INTO asset_links (tenant_id, instance_id, aas_id, links, asset_ids) VALUES ($1, $2, $3, $4::jsonb, $5::jsonb)',
        [tenant.id, instance.id, aasId, JSON.stringify(links), JSON.stringify(assetIdPairs(links as unknown as AssetIdPair[]))],
      );
    } catch (err) {
      const code = (err as { driverError?: { code?: string }; code?: string }).driverError?.code ?? (err as { code?: string }).code;
      if (code === '23505') throw conflict(`Shell '${aasId.slice(0, 200)}' has asset links already; delete them first to link it anew.`);
      if (code === FOREIGN_KEY_VIOLATION) throw instanceGone(instance);
      rethrowClientError(err);
    }
    return links;
  }

  async delete(tenant: TenantEntity, instance: RegistryInstanceEntity, aasId: string): Promise<void> {
    checkId(aasId);
    // TypeORM answers a DELETE on PostgreSQL with [rows, affected count].
    const [rows] = (await this.dataSource.manager.query(`DELETE FROM asset_links WHERE ${BY_AAS} RETURNING seq`, [instance.id, tenant.id, aasId])) as [unknown[], number];
    if (!rows.length) throw linksNotFound(aasId);
  }
}

/** A JSON array of SpecificAssetIds, each verified; 400 naming the first that is not one. */
export function parseLinks(json: unknown): JsonObject[] {
  if (!Array.isArray(json)) throw badRequest('The body must be a JSON array of SpecificAssetIds.');
  if (json.length === 0) throw badRequest('The body must hold at least one SpecificAssetId.');
  if (json.length > MAX_ASSET_LINKS) throw badRequest(`At most ${MAX_ASSET_LINKS} asset links per shell; the body has ${json.length}.`);
  return json.map((item, i) => {
    try {
      return parseVerified('SpecificAssetId', jsonization.specificAssetIdFromJsonable, item);
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      const messages = ((err.extensions.messages as string[] | undefined) ?? [err.message]).map((m) => `[${i}]: ${m}`);
      throw badRequest(messages[0], messages);
    }
  });
}

const linksNotFound = (aasId: string) => notFound(`Shell '${aasId.slice(0, 200)}' has no asset links in this discovery service.`);

/** AssetLink (AAS API V3.1): `name` 1..64 characters, `value` 1..2048, nothing else. */
const ASSET_LINK_LIMITS = { name: 64, value: 2048 } as const;

/**
 * The body of `SearchAllAssetAdministrationShellIdsByAssetLink` (V3.1): a JSON array of AssetLinks, each
 * `{name, value}`; `globalAssetId` as a name stands for the global asset id (AASd-116). 400 naming every path
 * that is wrong.
 */
export function parseAssetLinks(json: unknown): AssetIdPair[] {
  if (!Array.isArray(json)) throw badRequest('The body must be a JSON array of AssetLinks ({"name": ..., "value": ...}).');
  if (json.length > MAX_ASSET_LINKS) throw badRequest(`At most ${MAX_ASSET_LINKS} asset links per search; the body has ${json.length}.`);
  const problems: string[] = [];
  const links = json.map((item, i): AssetIdPair => {
    if (item === null || typeof item !== 'object' || Array.isArray(item)) {
      problems.push(`[${i}]: an AssetLink must be a JSON object with a name and a value.`);
      return { name: '', value: '' };
    }
    const link = item as Record<string, unknown>;
    for (const key of Object.keys(link)) if (!(key in ASSET_LINK_LIMITS)) problems.push(`[${i}].${key.slice(0, 64)}: an AssetLink has no such property (only name and value).`);
    for (const key of ['name', 'value'] as const) {
      const text = link[key];
      if (text === undefined) problems.push(`[${i}].${key}: is required.`);
      else if (typeof text !== 'string') problems.push(`[${i}].${key}: must be a string.`);
      else if (text.length < 1 || text.length > ASSET_LINK_LIMITS[key]) problems.push(`[${i}].${key}: must be 1 to ${ASSET_LINK_LIMITS[key]} characters long, has ${text.length}.`);
      else if (!XML_CHARACTERS.test(text)) problems.push(`[${i}].${key}: holds a character XML cannot carry.`);
    }
    return { name: link.name as string, value: link.value as string };
  });
  if (problems.length) throw badRequest(problems[0], problems.slice(0, 50));
  return links;
}

/** The schema's pattern for AAS strings: the characters XML 1.0 admits (no unpaired surrogates). */
// eslint-disable-next-line no-control-regex -- the XML schema's pattern names tab, line feed and carriage return
const XML_CHARACTERS = /^[\u0009\u000a\u000d\u0020-\ud7ff\ue000-\ufffd\u{10000}-\u{10ffff}]*$/u;
