import type { DataSource } from 'typeorm';
import type { QueryTarget } from '../../src/aas/query/ast';
import { parseQuery } from '../../src/aas/query/parse';
import { SqlOptions, toSql } from '../../src/aas/query/sql';
import type { TenantEntity } from '../../src/management/tenants/tenant.entity';
import type { TestServer } from './server';

/**
 * Shared by the query language tests (query-sql, query-corpus, query-no-500): small builders for the AAS JSON
 * of test data and for queries in the JSON form of IDTA-01002-3, and the one way the tests run a query against
 * the database (parseQuery + toSql, as the routes will), so a change of the translation's calling convention
 * changes one place.
 */

export type Json = Record<string, unknown>;

// --- AAS JSON -----------------------------------------------------------------------------------------------

/** An ExternalReference with one GlobalReference key per value. */
export const ref = (...values: string[]): Json => ({ type: 'ExternalReference', keys: values.map((value) => ({ type: 'GlobalReference', value })) });
/** A ModelReference with one key. */
export const modelRef = (type: string, value: string): Json => ({ type: 'ModelReference', keys: [{ type, value }] });

export function prop(idShort: string | undefined, value: string, valueType = 'xs:string', semanticId?: Json): Json {
  return { modelType: 'Property', ...(idShort ? { idShort } : {}), ...(semanticId ? { semanticId } : {}), valueType, value };
}

export const collection = (idShort: string | undefined, value: Json[]): Json => ({
  modelType: 'SubmodelElementCollection',
  ...(idShort ? { idShort } : {}),
  value,
});

/** A SubmodelElementList (its elements have no idShort); `valueType` for lists of Properties. */
export function list(idShort: string | undefined, typeValueListElement: string, value: Json[], valueType?: string): Json {
  return {
    modelType: 'SubmodelElementList',
    ...(idShort ? { idShort } : {}),
    typeValueListElement,
    ...(valueType ? { valueTypeListElement: valueType } : {}),
    value,
  };
}

/** A MultiLanguageProperty from [language, text] pairs. */
export const mlp = (idShort: string | undefined, texts: [string, string][]): Json => ({
  modelType: 'MultiLanguageProperty',
  ...(idShort ? { idShort } : {}),
  value: texts.map(([language, text]) => ({ language, text })),
});

// --- queries ------------------------------------------------------------------------------------------------

export const f = (field: string) => ({ $field: field });
export const s = (value: string) => ({ $strVal: value });
export const n = (value: number) => ({ $numVal: value });
export const op = (operator: string, a: unknown, b: unknown) => ({ $condition: { [operator]: [a, b] } });
export const cond = (c: unknown) => ({ $condition: c });
export const sorted = (ids: string[]) => [...ids].sort();

/**
 * Runs a query over one tenant's objects of `target` and returns their ids in code point order: the query is
 * parsed and translated as the routes do, then evaluated by the database.
 */
export async function runQuery(dataSource: DataSource, tenantId: string, target: QueryTarget, query: unknown): Promise<string[]> {
  // The table aliased as the query routes alias it (`row`: the row `$sme` conditions join element rows on), the tenant $1.
  const options: SqlOptions = { doc: 'd.doc', row: 'd', tenant: '$1', firstParam: 2 };
  const sql = toSql(parseQuery(query), target, options);
  const rows: { id: string }[] = await dataSource.transaction(async (manager) => {
    // Without this, PostgreSQL JIT-compiles most of these plans (the row estimates of nested jsonb_path_query
    // scans multiply far past jit_above_cost): ~0.35 s per query on a plan that runs in well under 1 ms.
    await manager.query(`SELECT set_config('jit', 'off', true)`);
    return manager.query(`SELECT d.id FROM ${sql.table} d WHERE d.tenant_id = $1 AND (${sql.where}) ORDER BY d.id COLLATE "C"`, [tenantId, ...sql.params]);
  });
  return rows.map((r) => r.id);
}

// --- Test data ----------------------------------------------------------------------------------------------

/** Creates a data set in `tenant` through the services: its shells, then its submodels, then its concept descriptions, each in order. */
export async function createDataSet(
  server: Pick<TestServer, 'services'>,
  tenant: TenantEntity,
  data: { shells: readonly unknown[]; submodels: readonly unknown[]; conceptDescriptions: readonly unknown[] },
): Promise<void> {
  for (const s of data.shells) await server.services.shells.create(tenant, s);
  for (const s of data.submodels) await server.services.submodels.create(tenant, s);
  for (const c of data.conceptDescriptions) await server.services.conceptDescriptions.create(tenant, c);
}
