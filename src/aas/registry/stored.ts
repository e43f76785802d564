import type { DataSource } from 'typeorm';
import { cursorList } from '../../common/cursor';
import { readRows } from '../../db/read';
import { badRequest } from '../../graphql/errors';
import { MAX_ID_LENGTH } from '../../graphql/limits';
import type { TenantEntity } from '../../management/tenants/tenant.entity';
import type { JsonObject } from '../model/parse';
import { referenceFilterKeys } from '../model/reference-keys';
import { type Condition, type Page, keysetQuery, pageOf, pageOfList } from '../store/identifiable-store';
import type { RegistryInstanceEntity } from './registry.entities';

/** A descriptor or a list of asset links as the registry services hand it out: the JSON and its entity tag. */
export interface Stored {
  json: JsonObject;
  etag: string;
  /** An implicit descriptor of a shell read through V3.0 that had to be mapped down (the answer says so). */
  mapped?: boolean;
}

/** A name and value of an asset id (a SpecificAssetId's, or `globalAssetId` with the global asset id). */
export interface AssetIdPair {
  name: string;
  value: string;
}

/** Filters of shell descriptor lists; absent and null both mean "no condition". */
export interface DescriptorFilter {
  assetKind?: string | null;
  assetType?: string | null;
  /** Descriptors carrying all of these asset ids. */
  assetIds?: AssetIdPair[] | null;
  /** Descriptors with a submodel descriptor of this semanticId (a filter key, `model/reference-keys`). */
  submodelSemanticKey?: string | null;
}

/** Only the name and value of each asset id: what lookups compare (AAS Part 2, discovery). */
export function assetIdPairs(ids: readonly AssetIdPair[]): AssetIdPair[] {
  return ids.map(({ name, value }) => ({ name, value }));
}

/** 400 for an identifier longer than any the registries store. */
export function checkId(id: string): void {
  if (id.length > MAX_ID_LENGTH) throw badRequest(`An identifier is at most ${MAX_ID_LENGTH} characters long; this one has ${id.length}.`);
}

/** The submodel descriptors of a shell descriptor's JSON, in order (none: empty). */
export const submodelDescriptorsOf = (json: JsonObject): JsonObject[] => (json.submodelDescriptors as JsonObject[] | undefined) ?? [];

/**
 * A page of a shell descriptor's submodel descriptors (the list `list`'s cursors, `list` naming the tenant and the
 * shell descriptor: `cursorList`), optionally only those with a
 * semanticId (a filter key). Each carries the shell descriptor's entity tag: it is part of that document.
 */
export function submodelDescriptorPage(list: string, shell: Stored, semanticKey: string | null | undefined, limit: number, cursor?: string | null): Page<Stored> {
  let found = submodelDescriptorsOf(shell.json);
  if (semanticKey != null) found = found.filter((sm) => referenceFilterKeys(sm.semanticId as JsonObject | undefined).includes(semanticKey));
  const page = pageOfList(cursorList(list, semanticKey ?? null), found, (sm) => sm.id as string, limit, cursor);
  return { items: page.items.map((json) => ({ json, etag: shell.etag })), cursor: page.cursor };
}

/** A shell descriptor's submodel descriptor `id`, with the shell descriptor's entity tag; undefined when it has none. */
export function submodelDescriptorIn(shell: Stored, id: string): Stored | undefined {
  const json = submodelDescriptorsOf(shell.json).find((sm) => sm.id === id);
  return json && { json, etag: shell.etag };
}

/**
 * A page of an explicit instance's rows of `table` in insertion (`seq`) order, the list `list`'s cursors:
 * `columns` (with `seq`) of the rows that meet `conditions`. One index range scan, whichever the page.
 */
export async function instancePage<R extends { seq: string }>(
  dataSource: DataSource,
  list: string,
  table: string,
  columns: string,
  scope: { tenant: TenantEntity; instance: RegistryInstanceEntity },
  conditions: Condition[],
  limit: number,
  cursor: string | null | undefined,
): Promise<Page<R>> {
  const instanceOfTenant: Condition[] = [
    ['instance_id = ?', scope.instance.id],
    ['tenant_id = ?', scope.tenant.id],
  ];
  const keyset = keysetQuery(list, instanceOfTenant, conditions, limit, cursor);
  const rows = await readRows<R>(dataSource, `SELECT ${columns} FROM ${table} WHERE ${keyset.where} ORDER BY seq LIMIT ${keyset.limitParam}`, keyset.params);
  return pageOf(keyset.list, rows, limit, (row) => Number(row.seq));
}
