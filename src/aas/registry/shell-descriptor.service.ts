import { DataSource, EntityManager } from 'typeorm';
import { cursorList } from '../../common/cursor';
import { etagOf, ifMatchAdmits } from '../../common/etag';
import { readRows, rethrowClientError } from '../../db/read';
import { badRequest, conflict, notFound, preconditionFailed } from '../../graphql/errors';
import type { TenantEntity } from '../../management/tenants/tenant.entity';
import type { JsonObject } from '../model/parse';
import type { Condition, Page } from '../store/identifiable-store';
import type { AasVersion } from '../versions';
import { parseShellDescriptor, parseSubmodelDescriptor, shellDescriptorColumns } from './descriptor';
import { FOREIGN_KEY_VIOLATION, instanceGone } from './instance.service';
import type { RegistryInstanceEntity } from './registry.entities';
import { assetIdPairs, checkId, instancePage, submodelDescriptorIn, submodelDescriptorPage, submodelDescriptorsOf, type DescriptorFilter, type Stored } from './stored';

const LIST = 'shell-descriptors';
const BY_ID = 'instance_id = $1 AND tenant_id = $2 AND md5(id) = md5($3) AND id = $3';

/** An AAS Registry's write options: the request's `If-Match`, and the version of the API it comes through (V3.0 unless given). */
export interface DescriptorWrite {
  ifMatch?: string | null;
  aasVersion?: AasVersion;
}

/**
 * The shell descriptors of explicit AAS registries (full profile SSP-001), each instance its own: CRUD, with the
 * submodel descriptors kept inside their shell descriptor's document (so a shell descriptor and its submodel
 * descriptors change together, under one row lock and one entity tag).
 */
export class ShellDescriptorService {
  constructor(private readonly dataSource: DataSource) {}

  async list(tenant: TenantEntity, instance: RegistryInstanceEntity, filter: DescriptorFilter, limit: number, cursor?: string | null): Promise<Page<Stored>> {
    const conditions: Condition[] = [];
    if (filter.assetKind != null) conditions.push(['asset_kind = ?', filter.assetKind]);
    if (filter.assetType != null) conditions.push(['asset_type = ?', filter.assetType]);
    if (filter.assetIds?.length) conditions.push(['asset_ids @> ?::jsonb', JSON.stringify(assetIdPairs(filter.assetIds))]);
    if (filter.submodelSemanticKey != null) conditions.push(['submodel_semantic_ids @> ARRAY[?::text]', filter.submodelSemanticKey]);
    const page = await instancePage<Row>(this.dataSource, LIST, 'shell_descriptors', 'seq, version, doc', { tenant, instance }, conditions, limit, cursor);
    return { items: page.items.map(stored), cursor: page.cursor };
  }

  async get(tenant: TenantEntity, instance: RegistryInstanceEntity, id: string): Promise<Stored> {
    checkId(id);
    const rows = await readRows<Row>(
      this.dataSource,
      `SELECT seq, version, doc FROM shell_descriptors WHERE ${BY_ID}`,
      [instance.id, tenant.id, id],
    );
    if (!rows.length) throw descriptorNotFound(id);
    return stored(rows[0]);
  }

  async create(tenant: TenantEntity, instance: RegistryInstanceEntity, json: unknown, options: DescriptorWrite = {}): Promise<Stored> {
    const doc = parseShellDescriptor(json, options.aasVersion);
    return this.write(tenant, instance, doc.id as string, {}, (current) => {
      if (current) throw conflict(`Shell descriptor '${doc.id}' is registered already.`);
      return doc;
    });
  }

  async replace(tenant: TenantEntity, instance: RegistryInstanceEntity, id: string, json: unknown, options: DescriptorWrite = {}): Promise<Stored> {
    const doc = parseShellDescriptor(json, options.aasVersion);
    if (doc.id !== id) throw badRequest(`The descriptor's id '${String(doc.id).slice(0, 200)}' differs from the id in the path '${id.slice(0, 200)}'.`);
    return this.write(tenant, instance, id, options, (current) => {
      if (!current) throw descriptorNotFound(id);
      // A V3.0 client read V3.1's `Role` as `NotApplicable`: written back unchanged, it stays `Role`.
      if ((options.aasVersion ?? '3.0') === '3.0' && current.assetKind === 'Role' && doc.assetKind === 'NotApplicable') return { ...doc, assetKind: 'Role' };
      return doc;
    });
  }

  async delete(tenant: TenantEntity, instance: RegistryInstanceEntity, id: string, options: DescriptorWrite = {}): Promise<void> {
    await this.write(tenant, instance, id, options, (current) => {
      if (!current) throw descriptorNotFound(id);
      return null;
    });
  }

  /** The submodel descriptors of a shell descriptor, in their order, paged; optionally only those with a semanticId. */
  async submodelDescriptors(
    tenant: TenantEntity,
    instance: RegistryInstanceEntity,
    aasId: string,
    semanticKey: string | null | undefined,
    limit: number,
    cursor?: string | null,
  ): Promise<Page<Stored>> {
    return submodelDescriptorPage(cursorList('submodel-descriptors', tenant.id, instance.id, aasId), await this.get(tenant, instance, aasId), semanticKey, limit, cursor);
  }

  async submodelDescriptor(tenant: TenantEntity, instance: RegistryInstanceEntity, aasId: string, submodelId: string): Promise<Stored> {
    checkId(submodelId);
    const found = submodelDescriptorIn(await this.get(tenant, instance, aasId), submodelId);
    if (!found) throw submodelDescriptorNotFound(aasId, submodelId);
    return found;
  }

  async createSubmodelDescriptor(tenant: TenantEntity, instance: RegistryInstanceEntity, aasId: string, json: unknown, options: DescriptorWrite = {}): Promise<Stored> {
    const descriptor = parseSubmodelDescriptor(json, options.aasVersion);
    const saved = await this.write(tenant, instance, aasId, options, (current) => {
      if (!current) throw descriptorNotFound(aasId);
      const list = submodelDescriptorsOf(current);
      if (list.some((sm) => sm.id === descriptor.id)) throw conflict(`Shell descriptor '${aasId}' has a submodel descriptor '${descriptor.id}' already.`);
      return { ...current, submodelDescriptors: [...list, descriptor] };
    });
    return { json: descriptor, etag: saved.etag };
  }

  async replaceSubmodelDescriptor(
    tenant: TenantEntity,
    instance: RegistryInstanceEntity,
    aasId: string,
    submodelId: string,
    json: unknown,
    options: DescriptorWrite = {},
  ): Promise<Stored> {
    const descriptor = parseSubmodelDescriptor(json, options.aasVersion);
    if (descriptor.id !== submodelId) {
      throw badRequest(`The descriptor's id '${String(descriptor.id).slice(0, 200)}' differs from the id in the path '${submodelId.slice(0, 200)}'.`);
    }
    const saved = await this.write(tenant, instance, aasId, options, (current) => {
      if (!current) throw descriptorNotFound(aasId);
      const list = submodelDescriptorsOf(current);
      const at = list.findIndex((sm) => sm.id === submodelId);
      if (at < 0) throw submodelDescriptorNotFound(aasId, submodelId);
      return { ...current, submodelDescriptors: list.map((sm, i) => (i === at ? descriptor : sm)) };
    });
    return { json: descriptor, etag: saved.etag };
  }

  async deleteSubmodelDescriptor(tenant: TenantEntity, instance: RegistryInstanceEntity, aasId: string, submodelId: string, options: DescriptorWrite = {}): Promise<void> {
    await this.write(tenant, instance, aasId, options, (current) => {
      if (!current) throw descriptorNotFound(aasId);
      const list = submodelDescriptorsOf(current);
      const kept = list.filter((sm) => sm.id !== submodelId);
      if (kept.length === list.length) throw submodelDescriptorNotFound(aasId, submodelId);
      const { submodelDescriptors: _dropped, ...rest } = current;
      return kept.length ? { ...rest, submodelDescriptors: kept } : rest;
    });
  }

  /**
   * The write path: locks the descriptor's row (or its absence), checks `If-Match`, lets `decide` turn the
   * current document into the new one (null: delete), and stores it with its lookup columns.
   */
  private async write(
    tenant: TenantEntity,
    instance: RegistryInstanceEntity,
    id: string,
    options: DescriptorWrite,
    decide: (current: JsonObject | null) => JsonObject | null,
  ): Promise<Stored> {
    checkId(id);
    const run = async (m: EntityManager): Promise<Stored> => {
      const rows: Row[] = await m.query(`SELECT seq, version, doc FROM shell_descriptors WHERE ${BY_ID} FOR UPDATE`, [
        instance.id,
        tenant.id,
        id,
      ]);
      const row = rows[0];
      if (options.ifMatch != null && !ifMatchAdmits(options.ifMatch, row ? etagOf(row.seq, row.version) : null)) {
        throw preconditionFailed(`Shell descriptor '${id}' has changed or does not exist: If-Match does not match its current entity tag.`);
      }
      const doc = decide(row?.doc ?? null);
      if (doc === null) {
        await m.query('DELETE FROM shell_descriptors WHERE tenant_id = $1 AND instance_id = $2 AND seq = $3', [tenant.id, instance.id, row.seq]);
        return { json: row.doc, etag: etagOf(row.seq, row.version) };
      }
      const columns = columnsOf(doc);
      if (!row) {
        const inserted: { seq: string }[] = await m.query(
          `INSERT INTO shell_descriptors (tenant_id, instance_id, id, id_short, asset_kind, asset_type, global_asset_id, asset_ids, submodel_semantic_ids, doc)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8::jsonb, $9::text[], $10::jsonb) RETURNING seq`,
          [tenant.id, instance.id, id, ...columns, JSON.stringify(doc)],
        );
        return { json: doc, etag: etagOf(inserted[0].seq, 1) };
      }
      await m.query(
        `UPDATE shell_descriptors SET id_short = $4, asset_kind = $5, asset_type = $6, global_asset_id = $7, asset_ids = $8::jsonb,
           submodel_semantic_ids = $9::text[], doc = $10::jsonb, version = version + 1, updated_at = now()
         WHERE tenant_id = $1 AND instance_id = $2 AND seq = $3`,
        [tenant.id, instance.id, row.seq, ...columns, JSON.stringify(doc)],
      );
      return { json: doc, etag: etagOf(row.seq, row.version + 1) };
    };
    try {
      return await this.dataSource.transaction(run);
    } catch (err) {
      // Two creates of one id racing past the row check: the unique index decides.
      const code = (err as { driverError?: { code?: string } }).driverError?.code;
      if (code === '23505') throw conflict(`Shell descriptor '${id}' is registered already.`);
      if (code === FOREIGN_KEY_VIOLATION) throw instanceGone(instance);
      rethrowClientError(err);
    }
  }
}

/** A row of `shell_descriptors` as the reads select it. */
type Row = { seq: string; version: number; doc: JsonObject };

const stored = (row: Row): Stored => ({ json: row.doc, etag: etagOf(row.seq, row.version) });

/** The lookup columns of a descriptor, in the order the statements above take them. */
function columnsOf(doc: JsonObject): unknown[] {
  const c = shellDescriptorColumns(doc);
  return [c.idShort, c.assetKind, c.assetType, c.globalAssetId, JSON.stringify(c.assetIds), c.submodelSemanticIds];
}

const descriptorNotFound = (id: string) => notFound(`No shell descriptor '${id.slice(0, 200)}' in this registry.`);
const submodelDescriptorNotFound = (aasId: string, id: string) =>
  notFound(`Shell descriptor '${aasId.slice(0, 200)}' has no submodel descriptor '${id.slice(0, 200)}'.`);
