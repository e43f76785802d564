import { ElementRow, RowSignatures, StoredRow, rowChanges } from '../submodels/element-rows';
import { JsonObject } from '../model/parse';
import { rowsWritten } from '../../db/statistics';

/**
 * The SQL of submodel element rows (`submodel_elements`; the layout is in `submodels/element-rows.ts`), for the
 * identifiable store, which alone writes them. `Db` is a transaction's manager or a one-statement reader.
 */
export type Db = { query(sql: string, params: unknown[]): Promise<unknown> };

/** Rows per INSERT statement: a 10,000-element submodel is two statements. */
const INSERT_BATCH = 5_000;

/** A stored row with where it is: its submodel, `ord` as PostgreSQL's array text (`{1,2}`) and its path. */
export interface ReadRow<J> extends StoredRow<J> {
  seq: string;
  ord: string;
  path: string;
}

const ordText = (ord: number[]) => `{${ord.join(',')}}`;

/**
 * Up to this many rows are inserted as a VALUES list with a parameter per column: for a few rows, PostgreSQL
 * inserts those three times faster than it unpacks a JSON recordset (0.07 against 0.24 ms for one row).
 */
const VALUES_ROWS = 20;

export async function insertRows(db: Db, tenantId: string, seq: string, rows: ElementRow[]): Promise<void> {
  if (rows.length && rows.length <= VALUES_ROWS) {
    const params: unknown[] = [tenantId, seq];
    const values = rows.map((row) => {
      const at = params.push(ordText(row.ord), row.path, row.idShort, row.modelType, row.semanticKey, row.value, JSON.stringify(row.json)) - 6;
      return `($1, $2, $${at}::integer[], $${at + 1}, $${at + 2}, $${at + 3}, $${at + 4}, $${at + 5}, $${at + 6}::json)`;
    });
    await db.query(
      `INSERT INTO submodel_elements (tenant_id, submodel_seq, ord, path, id_short, model_type, semantic_key, v_text, json) VALUES ${values.join(', ')}`,
      params,
    );
    rowsWritten(db, 'submodel_elements', rows.length);
    return;
  }
  for (let start = 0; start < rows.length; start += INSERT_BATCH) {
    const batch = rows.slice(start, start + INSERT_BATCH).map((row) => ({
      ord: ordText(row.ord),
      path: row.path,
      id_short: row.idShort,
      model_type: row.modelType,
      semantic_key: row.semanticKey,
      v_text: row.value,
      json: row.json,
    }));
    await db.query(
      `INSERT INTO submodel_elements (tenant_id, submodel_seq, ord, path, id_short, model_type, semantic_key, v_text, json)
        SELECT $1, $2, r.ord::integer[], r.path, r.id_short, r.model_type, r.semantic_key, r.v_text, r.json
        FROM json_to_recordset($3::json) AS r (ord text, path text, id_short text, model_type text, semantic_key text, v_text text, json json)`,
      [tenantId, seq, JSON.stringify(batch)],
    );
  }
  rowsWritten(db, 'submodel_elements', rows.length);
}

export async function deleteRows(db: Db, tenantId: string, seq: string, ords: number[][]): Promise<void> {
  if (!ords.length) return;
  await db.query(
    `DELETE FROM submodel_elements e USING unnest($3::text[]) AS k (ord)
      WHERE e.tenant_id = $1 AND e.submodel_seq = $2 AND e.ord = k.ord::integer[]`,
    [tenantId, seq, ords.map(ordText)],
  );
}

/**
 * Replaces the rows `before` (their signatures, as stored) with `after`: only the rows that differ are deleted
 * and inserted, so a change to one element of a large submodel writes that element's rows.
 */
export async function replaceRows(db: Db, tenantId: string, seq: string, before: RowSignatures, after: ElementRow[]): Promise<void> {
  const { remove, add } = await rowChanges(before, after);
  await deleteRows(db, tenantId, seq, remove);
  await insertRows(db, tenantId, seq, add);
}

/** The element rows of the submodels `seqs`, in `ord` order per submodel. */
export async function readRowsOf(db: Db, tenantId: string, seqs: readonly string[]): Promise<Map<string, ReadRow<JsonObject>[]>> {
  const found = new Map<string, ReadRow<JsonObject>[]>(seqs.map((seq) => [seq, []]));
  if (!seqs.length) return found;
  // One submodel: its rows in primary key order, no sort. `e.ord`, the array: a bare `ord` would sort by the
  // text column of the same name.
  const which = seqs.length === 1 ? 'e.submodel_seq = $2' : 'e.submodel_seq = ANY ($2::bigint[])';
  const rows = (await db.query(
    `SELECT e.submodel_seq AS seq, e.ord::text AS ord, cardinality(e.ord) AS depth, e.model_type AS type, e.path, e.json
      FROM submodel_elements e WHERE e.tenant_id = $1 AND ${which} ORDER BY e.submodel_seq, e.ord`,
    [tenantId, seqs.length === 1 ? seqs[0] : seqs],
  )) as ReadRow<JsonObject>[];
  for (const row of rows) found.get(String(row.seq))!.push(row);
  return found;
}

/**
 * SQL of the elements of the submodel (`tenant`, `seq`: SQL expressions, such as the columns of the submodel's row
 * in the statement around it) as the JSON text of its `submodelElements` array without the brackets, built by
 * PostgreSQL from the rows' JSON texts: a large submodel leaves the database as one value, not as a row per
 * element to be put together here, and with its head, in the same statement. Each row's text is followed by what
 * the next row's depth says: the opening of its child list (the next row is its child), or the closing of the
 * lists the next row is outside of and a comma. Null when the submodel has no elements.
 */
export function elementsTextSql(tenant: string, seq: string): string {
  return `(SELECT string_agg(CASE WHEN nd > d THEN left(j, -1) || ',"' || k || '":['
        ELSE j || repeat(']}', d - greatest(nd, 1)) || CASE WHEN nd > 0 THEN ',' ELSE '' END END, '')
      FROM (
        SELECT e.json::text AS j, cardinality(e.ord) AS d, lead(cardinality(e.ord), 1, 0) OVER (ORDER BY e.ord) AS nd,
            CASE e.model_type WHEN 'Entity' THEN 'statements' WHEN 'AnnotatedRelationshipElement' THEN 'annotations' ELSE 'value' END AS k
          FROM submodel_elements e WHERE e.tenant_id = ${tenant} AND e.submodel_seq = ${seq} ORDER BY e.ord
      ) AS x)`;
}

/**
 * The element at `path` of submodel `seq` and its descendants, in `ord` order (the element first), and the
 * modelTypes of the elements on the way to it (the element's own last). Empty `rows` when nothing is there.
 *
 * Each read of the rows is written so that its plan needs no planner statistics (a submodel just written has
 * none until the next ANALYZE): the bounds of the descendants' `ord` range are the results of subqueries, which
 * are values to the planner (parameters of an index scan, never a join it could turn around), and the descendants
 * and each element above are read in `ord` order, which the primary key gives and the path index would have to
 * sort. Without that order the two indexes tie (both lead with the submodel; the estimates of either are one row
 * without statistics) and PostgreSQL took the smaller one, the path index, filtering every row of the submodel.
 * The elements above are looked up one at a time by primary key (LATERAL ... OFFSET 0 keeps the lookup inside the
 * loop over their depths), each as the range [prefix, prefix], for the same order. Their number is a parameter
 * (an idShort has neither `.` nor `[`, so the path's separators count the elements above): a number of rows the
 * planner knows, where `generate_series` over a column would be estimated at 1,000, which made the statement's
 * estimated cost pass `jit_above_cost` and spend 90 ms compiling it.
 */
export async function readSubtree(db: Db, tenantId: string, seq: string, path: string): Promise<{ rows: ReadRow<JsonObject>[]; types: string[] }> {
  const rows = (await db.query(
    `WITH target AS MATERIALIZED (
        SELECT ord FROM submodel_elements WHERE tenant_id = $1 AND submodel_seq = $2 AND left(path, 256) = left($3, 256) AND path = $3
      )
      SELECT * FROM (
        SELECT e.ord AS o, e.ord::text AS ord, cardinality(e.ord) AS depth, e.model_type AS type, e.path, e.json, false AS above
          FROM submodel_elements e
          WHERE e.tenant_id = $1 AND e.submodel_seq = $2 AND e.ord >= (SELECT ord FROM target) AND e.ord < (SELECT ord || 2147483647 FROM target)
          ORDER BY e.ord
      ) AS subtree
      UNION ALL
      SELECT a.* FROM target t CROSS JOIN generate_series(1, $4::int) AS k CROSS JOIN LATERAL (
        SELECT e.ord, e.ord::text, cardinality(e.ord), e.model_type, e.path, NULL::json, true
          FROM submodel_elements e
          WHERE e.tenant_id = $1 AND e.submodel_seq = $2 AND e.ord >= t.ord[1:k] AND e.ord <= t.ord[1:k]
          ORDER BY e.ord OFFSET 0
      ) AS a
      ORDER BY o`,
    [tenantId, seq, path, path.split(/[.[]/).length - 1],
  )) as (ReadRow<JsonObject> & { above: boolean })[];
  const above = rows.filter((row) => row.above);
  const subtree = rows.filter((row) => !row.above);
  return { rows: subtree, types: subtree.length ? [...above.map((row) => row.type), subtree[0].type] : [] };
}
