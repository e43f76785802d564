import { DataSource, EntityManager } from 'typeorm';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import { checkLimit, decodeCursor, encodeCursor } from '../../common/cursor';
import { readRows, rethrowClientError } from '../../db/read';
import { recordChange } from '../../events/outbox';
import { badRequest, conflict, notFound } from '../../graphql/errors';
import { TenantEntity } from '../../management/tenants/tenant.entity';
import { JsonObject, parseAssetInformation, parseReference, parseShell } from '../model/parse';
import { ShellEntity } from './shell.entity';

export interface AssetIdFilter {
  name: string;
  value: string;
}

/** Absent and null both mean "no condition" (GraphQL clients may send an explicit null). */
export interface ShellFilter {
  assetIds?: AssetIdFilter[] | null;
  idShort?: string | null;
  assetKind?: string | null;
}

export interface Page<T> {
  items: T[];
  cursor?: string;
}

const PG_UNIQUE_VIOLATION = '23505';

/** One shell by id: the MD5 finds it in the unique index, the full comparison makes it exact. */
const BY_ID = 'tenant_id = $1 AND md5(id) = md5($2) AND id = $2';

type Change = { kind: 'created' | 'updated'; doc: JsonObject } | { kind: 'deleted' };

function pageOf<T>(list: string, rows: T[], limit: number, keyOf: (row: T) => string | number): Page<T> {
  if (rows.length <= limit) return { items: rows };
  const items = rows.slice(0, limit);
  return { items, cursor: encodeCursor(list, keyOf(items[items.length - 1])) };
}

function cursorKey(list: string, cursor: string | undefined | null): number | undefined {
  if (cursor === undefined || cursor === null) return undefined;
  const key = decodeCursor(list, cursor);
  if (typeof key !== 'number') throw badRequest('The cursor is not one this server issued for this list.');
  return key;
}

function assertLimit(limit: number): void {
  const problem = checkLimit(limit);
  if (problem) throw badRequest(problem);
}

function isSubmodelReference(ref: JsonObject): boolean {
  const keys = ref.keys as { type: string }[];
  return ref.type === 'ModelReference' && keys.length === 1 && keys[0].type === 'Submodel';
}

function submodelIdOf(ref: JsonObject): string {
  return (ref.keys as { value: string }[])[0].value;
}

/**
 * Where a page of submodel references resumes: after the submodel the cursor names, found again even when
 * references before it were removed meanwhile; at its old position when it was removed itself.
 */
function refsResumeAt(refs: JsonObject[], cursor: string): number {
  const key = decodeCursor('submodel-refs', cursor);
  const match = typeof key === 'string' ? /^(\d+):(.*)$/s.exec(key) : null;
  if (!match) throw badRequest('The cursor is not one this server issued for this list.');
  const found = refs.findIndex((ref) => submodelIdOf(ref) === match[2]);
  return found >= 0 ? found + 1 : Number(match[1]);
}

/** The AAS Repository's shells. Every change to a shell goes through `write`, the one write path. */
export class ShellService {
  constructor(private readonly dataSource: DataSource) {}

  async list(tenant: TenantEntity, filter: ShellFilter, limit: number, cursor?: string | null): Promise<Page<JsonObject>> {
    assertLimit(limit);
    const after = cursorKey('shells', cursor);
    const params: unknown[] = [tenant.id];
    const where = ['tenant_id = $1'];
    if (after !== undefined) where.push(`seq > $${params.push(after)}`);
    if (filter.idShort != null) where.push(`id_short = $${params.push(filter.idShort)}`);
    if (filter.assetKind != null) where.push(`asset_kind = $${params.push(filter.assetKind)}`);
    if (filter.assetIds?.length) {
      const pairs = filter.assetIds.map(({ name, value }) => ({ name, value }));
      where.push(`asset_ids @> $${params.push(JSON.stringify(pairs))}::jsonb`);
    }
    // Keyset paging on the insertion order: one index range scan, as cheap on page 1,000 as on page 1.
    const rows = await readRows<{ seq: string; doc: JsonObject }>(
      this.dataSource,
      `SELECT seq, doc FROM shells WHERE ${where.join(' AND ')} ORDER BY seq LIMIT $${params.push(limit + 1)}`,
      params,
    );
    const page = pageOf('shells', rows, limit, (row) => Number(row.seq));
    return { items: page.items.map((row) => row.doc), cursor: page.cursor };
  }

  async get(tenant: TenantEntity, id: string): Promise<JsonObject> {
    const rows = await readRows<{ doc: JsonObject }>(this.dataSource, `SELECT doc FROM shells WHERE ${BY_ID}`, [tenant.id, id]);
    if (rows.length === 0) throw notFound(`Shell '${id}' not found.`);
    return rows[0].doc;
  }

  async submodelRefs(tenant: TenantEntity, id: string, limit: number, cursor?: string | null): Promise<Page<JsonObject>> {
    assertLimit(limit);
    const refs = ((await this.get(tenant, id)).submodels ?? []) as JsonObject[];
    const start = cursor === undefined || cursor === null ? 0 : refsResumeAt(refs, cursor);
    const rows = refs.slice(start, start + limit + 1).map((ref, i) => ({ ref, index: start + i }));
    const page = pageOf('submodel-refs', rows, limit, (row) => `${row.index}:${submodelIdOf(row.ref)}`);
    return { items: page.items.map((row) => row.ref), cursor: page.cursor };
  }

  async create(tenant: TenantEntity, json: unknown): Promise<JsonObject> {
    const doc = parseShell(json);
    await this.write(tenant, doc.id as string, (current) => {
      if (current) throw conflict(`Shell '${doc.id}' already exists.`);
      return { kind: 'created', doc };
    });
    return doc;
  }

  async replace(tenant: TenantEntity, id: string, json: unknown): Promise<JsonObject> {
    const doc = parseShell(json);
    if (doc.id !== id) throw badRequest(`The shell's id '${doc.id}' differs from the id in the path '${id}'.`);
    await this.write(tenant, id, (current) => {
      if (!current) throw notFound(`Shell '${id}' not found.`);
      return { kind: 'updated', doc };
    });
    return doc;
  }

  async delete(tenant: TenantEntity, id: string): Promise<void> {
    await this.write(tenant, id, (current) => {
      if (!current) throw notFound(`Shell '${id}' not found.`);
      return { kind: 'deleted' };
    });
  }

  async replaceAssetInformation(tenant: TenantEntity, id: string, json: unknown): Promise<JsonObject> {
    const assetInformation = parseAssetInformation(json);
    // Re-verify the whole shell: shell-level constraints may span the new asset information.
    const doc = await this.update(tenant, id, (current) => parseShell({ ...current, assetInformation }));
    return doc.assetInformation as JsonObject;
  }

  async addSubmodelRef(tenant: TenantEntity, id: string, json: unknown): Promise<JsonObject> {
    const ref = parseReference(json);
    if (!isSubmodelReference(ref)) {
      throw badRequest('A submodel reference is a ModelReference with exactly one key, of type Submodel.');
    }
    const submodelId = submodelIdOf(ref);
    await this.update(tenant, id, (current) => {
      const refs = (current.submodels ?? []) as JsonObject[];
      if (refs.some((r) => submodelIdOf(r) === submodelId)) {
        throw conflict(`Shell '${id}' already references submodel '${submodelId}'.`);
      }
      return { ...current, submodels: [...refs, ref] };
    });
    return ref;
  }

  async removeSubmodelRef(tenant: TenantEntity, id: string, submodelId: string): Promise<void> {
    await this.update(tenant, id, (current) => {
      const refs = (current.submodels ?? []) as JsonObject[];
      const kept = refs.filter((r) => submodelIdOf(r) !== submodelId);
      if (kept.length === refs.length) throw notFound(`Shell '${id}' has no reference to submodel '${submodelId}'.`);
      const { submodels: _dropped, ...rest } = current;
      return kept.length ? { ...rest, submodels: kept } : rest;
    });
  }

  /** Read-modify-write of an existing shell, under its row lock. */
  private async update(tenant: TenantEntity, id: string, modify: (current: JsonObject) => JsonObject): Promise<JsonObject> {
    let next: JsonObject | undefined;
    await this.write(tenant, id, (current) => {
      if (!current) throw notFound(`Shell '${id}' not found.`);
      next = modify(current);
      return { kind: 'updated', doc: next };
    });
    return next!;
  }

  /**
   * The single write path: locks the shell's row (or its absence), lets `decide` turn the current document
   * into a change, applies it and records the change event, all in one transaction.
   */
  private async write(tenant: TenantEntity, id: string, decide: (current: JsonObject | null) => Change): Promise<void> {
    try {
      await this.dataSource.transaction(async (manager) => {
        const rows: { seq: string; doc: JsonObject }[] = await manager.query(`SELECT seq, doc FROM shells WHERE ${BY_ID} FOR UPDATE`, [
          tenant.id,
          id,
        ]);
        const change = decide(rows[0]?.doc ?? null);
        // Only a create may find no row; an update or delete addresses the row it locked, by primary key.
        if (change.kind !== 'created' && rows.length !== 1) throw new Error(`shell ${change.kind} without its row`);
        const key = { tenantId: tenant.id, seq: rows[0]?.seq };
        if (change.kind === 'deleted') {
          await manager.delete(ShellEntity, key);
          await recordChange(manager, tenant, 'deleted', 'AssetAdministrationShell', id, null);
          return;
        }
        await this.store(manager, key, change.kind, change.doc);
        await recordChange(manager, tenant, change.kind, 'AssetAdministrationShell', id, change.doc);
      });
    } catch (err) {
      const code = (err as { driverError?: { code?: string } }).driverError?.code;
      // Two creates of one id racing past the row check: the unique index on the id decides.
      if (code === PG_UNIQUE_VIOLATION) throw conflict(`Shell '${id}' already exists.`);
      rethrowClientError(err);
    }
  }

  private async store(manager: EntityManager, key: { tenantId: string; seq?: string }, kind: 'created' | 'updated', doc: JsonObject) {
    const info = doc.assetInformation as { assetKind: string; globalAssetId?: string; specificAssetIds?: AssetIdFilter[] };
    const assetIds = (info.specificAssetIds ?? []).map(({ name, value }) => ({ name, value }));
    if (info.globalAssetId !== undefined) assetIds.unshift({ name: 'globalAssetId', value: info.globalAssetId });
    const columns: QueryDeepPartialEntity<ShellEntity> = {
      idShort: (doc.idShort as string | undefined) ?? null,
      assetKind: info.assetKind,
      globalAssetId: info.globalAssetId ?? null,
      assetIds,
      doc: doc as QueryDeepPartialEntity<ShellEntity['doc']>,
    };
    if (kind === 'created') {
      await manager.insert(ShellEntity, { tenantId: key.tenantId, id: doc.id as string, version: 1, ...columns });
    } else {
      await manager.update(ShellEntity, key, { ...columns, version: () => 'version + 1' });
    }
  }
}
