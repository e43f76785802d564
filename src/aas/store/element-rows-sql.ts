import { ElementRow, RowSignatures, StoredRow, rowChanges } from '../submodels/element-rows';
import { JsonObject } from '../model/parse';
import { rowsWritten } from '../../db/statistics';
import { announceSql } from './cache-sync';

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
  /** The row version's `xmin` as text, where the read asked for it (`subtreeQuery`): what a later write compares. */
  x?: string;
}

const ordText = (ord: number[]) => `{${ord.join(',')}}`;

/**
 * Row fields as `json_to_recordset` takes them. `ord` goes as a JSON array, which the record's `integer[]` column
 * reads: a cast of a column (`text::integer[]`) in an UPDATE or DELETE is a STABLE function call Citus refuses.
 */
const recordOf = (row: ElementRow) => ({
  ord: row.ord,
  path: row.path,
  id_short: row.idShort,
  model_type: row.modelType,
  semantic_key: row.semanticKey,
  v_text: row.value,
  json: row.json,
});
const RECORD = 'r (ord integer[], path text, id_short text, model_type text, semantic_key text, v_text text, json json)';
const ROW_COLUMNS = 'tenant_id, submodel_seq, ord, path, id_short, model_type, semantic_key, v_text, json';
/** SQL: the rows of the JSON array of records in `param` (`recordOf`), for an INSERT into the submodel `$2` of tenant `$1`. */
const ROWS_FROM_RECORDS = (param: string) =>
  `SELECT $1, $2, r.ord, r.path, r.id_short, r.model_type, r.semantic_key, r.v_text, r.json FROM json_to_recordset(${param}::json) AS ${RECORD}`;

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
      `INSERT INTO submodel_elements (${ROW_COLUMNS}) VALUES ${values.join(', ')}`,
      params,
    );
    rowsWritten(db, 'submodel_elements', rows.length);
    return;
  }
  for (let start = 0; start < rows.length; start += INSERT_BATCH) {
    await db.query(`INSERT INTO submodel_elements (${ROW_COLUMNS}) ${ROWS_FROM_RECORDS('$3')}`, [
      tenantId,
      seq,
      JSON.stringify(rows.slice(start, start + INSERT_BATCH).map(recordOf)),
    ]);
  }
  rowsWritten(db, 'submodel_elements', rows.length);
}

/** The columns of a FROM item of `rowsFrom`, as an INSERT into `submodel_elements` takes them after `$1, seq`. */
const ROW_FIELDS = 'r.ord, r.path, r.id_short, r.model_type, r.semantic_key, r.v_text, r.json';

/**
 * SQL: `rows` as a FROM item `r (ord, path, id_short, model_type, semantic_key, v_text, json)` of a statement whose
 * parameters `bind` adds to: a VALUES list for a few rows (`VALUES_ROWS`), a JSON recordset for more.
 */
function rowsFrom(rows: ElementRow[], bind: (value: unknown) => string): string {
  if (rows.length > VALUES_ROWS) return `json_to_recordset(${bind(JSON.stringify(rows.map(recordOf)))}::json) AS ${RECORD}`;
  const values = rows.map(
    (row) =>
      `(${bind(ordText(row.ord))}::integer[], ${bind(row.path)}::text, ${bind(row.idShort)}::text, ${bind(row.modelType)}::text, ` +
      `${bind(row.semanticKey)}::text, ${bind(row.value)}::text, ${bind(JSON.stringify(row.json))}::json)`,
  );
  return `(VALUES ${values.join(', ')}) AS r (ord, path, id_short, model_type, semantic_key, v_text, json)`;
}

/**
 * Data-modifying CTEs (for a statement's WITH) that write the element rows of a submodel written in the same
 * statement: its row is the one row of the CTE `head` (`seq`), and its rows become `rows`. A created submodel
 * (`created`) gets them inserted. A replaced one gets, compared in PostgreSQL with the rows as stored, only the rows
 * that differ written: the ones at a position the new rows do not have deleted, the ones whose path or JSON differs
 * changed in place, the new positions inserted; no two of these share a key, so their order does not matter. The
 * stored rows are read as of the statement's snapshot: the statement must write the submodel's row only when its
 * version is still the one of that snapshot (compare-and-set), else rows changed since would be missed. The CTE
 * `added` returns a row for each row inserted.
 */
export function elementRowsCtes(rows: ElementRow[], head: string, created: boolean, bind: (value: unknown) => string): string[] {
  const insert = (where: string) =>
    `added AS (INSERT INTO submodel_elements (${ROW_COLUMNS}) SELECT $1, ${head}.seq, ${ROW_FIELDS} FROM ${head}, new_rows r${where} RETURNING 1)`;
  if (created) return rows.length ? [`new_rows AS (SELECT * FROM ${rowsFrom(rows, bind)})`, insert('')] : [];
  const stored = `e.tenant_id = $1 AND e.submodel_seq = ${head}.seq`;
  if (!rows.length) return [`removed AS (DELETE FROM submodel_elements e USING ${head} WHERE ${stored})`];
  return [
    `new_rows AS MATERIALIZED (SELECT * FROM ${rowsFrom(rows, bind)})`,
    `removed AS (DELETE FROM submodel_elements e USING ${head} WHERE ${stored} AND NOT EXISTS (SELECT 1 FROM new_rows r WHERE r.ord = e.ord))`,
    `changed AS (UPDATE submodel_elements e SET path = r.path, id_short = r.id_short, model_type = r.model_type, semantic_key = r.semantic_key,
        v_text = r.v_text, json = r.json
      FROM ${head}, new_rows r WHERE ${stored} AND e.ord = r.ord AND (e.path <> r.path OR e.json::jsonb <> r.json::jsonb))`,
    insert(` WHERE NOT EXISTS (SELECT 1 FROM submodel_elements e WHERE ${stored} AND e.ord = r.ord)`),
  ];
}

/** SQL: the entries `g (x)` of a submodel's `element_log` (the column `column`, null when empty). */
const LOG_OF = (column: string) => `jsonb_array_elements(coalesce(${column}, '[]'::jsonb)) AS g (x)`;
/** SQL: the `ord` of an entry `g.x` of the log. */
const LOGGED_ORD = `((g.x->>'o')::integer[])`;

/** SQL: the positions in the JSON parameter `param` (`ordsJson`) as rows `k (ord)`. */
const ORDS_FROM = (param: string) => `json_to_recordset(${param}::json) AS k (ord integer[])`;
const ordsJson = (ords: number[][]) => JSON.stringify(ords.map((ord) => ({ ord })));

export async function deleteRows(db: Db, tenantId: string, seq: string, ords: number[][]): Promise<void> {
  if (!ords.length) return;
  await db.query(
    `DELETE FROM submodel_elements e USING ${ORDS_FROM('$3')} WHERE e.tenant_id = $1 AND e.submodel_seq = $2 AND e.ord = k.ord`,
    [tenantId, seq, ordsJson(ords)],
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
 * SQL: the `ord` of the element at the path `$3` of submodel `$2` in tenant `$1`; the first where an import stored two
 * siblings of one idShort. The rows at the path are found by the path index (OFFSET 0 keeps the lookup apart from
 * the ordering, which the primary key could otherwise answer by reading the whole submodel in order).
 */
/** How many elements are above the one at `path`: an idShort has neither `.` nor `[`, so the separators count them. */
const stepsAbove = (path: string) => path.split(/[.[]/).length - 1;

const atPath = (seq: string) => `SELECT ord FROM (
    SELECT ord FROM submodel_elements WHERE tenant_id = $1 AND submodel_seq = ${seq} AND left(path, 256) = left($3, 256) AND path = $3 OFFSET 0
  ) AS at_path ORDER BY ord LIMIT 1`;

/**
 * SQL of the depths `k` (1 to `$4`, the number of elements above) of the elements above the one whose `ord` is
 * `ord`: the positions of `ord` (`unnest ... WITH ORDINALITY`) up to `$4`. Not `generate_series(1, $4)`: a plan made
 * for the values knows its count of rows and the plan for any values guesses 1,000, so the plans for the values
 * always looked cheaper and the named statement was planned at every run (the read of an element write: 0.76 ms a
 * run against 0.33 ms with one plan); hidden in a sub-select (`(SELECT $4)`), both guess 1,000, which in a large
 * submodel passes `jit_above_cost`. Over a column, both plans take `unnest` for 10 rows and the bound for a third
 * of them: the same small estimate, so the statement keeps one plan from its sixth run, and no JIT.
 */
const ABOVE_STEPS = (ord: string) => `SELECT u.k::int AS k FROM unnest(${ord}) WITH ORDINALITY AS u (v, k) WHERE u.k <= $4::int`;

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
 * The elements above are looked up one at a time by primary key (LATERAL ... LIMIT keeps the lookup inside the
 * loop over their depths), each as the range [prefix, prefix] in `ord` order, for the same order, and `LIMIT 1`: a
 * plan for any values guessed 58 rows for the range where the statistics knew many rows per tenant, while a plan for
 * a tenant they did not know yet guessed one, so the plans for the values looked cheaper and were made at every run;
 * the limit makes both estimates one row. (By the whole key, `ord = prefix`, the two indexes tie again without
 * statistics, and the path index was taken, filtering every row of the submodel.) Their number is a parameter (an
 * idShort has neither `.` nor `[`, so the path's separators count the elements above): a number of rows the planner
 * knows, where `generate_series` over a column would be estimated at 1,000, which made the statement's estimated
 * cost pass `jit_above_cost` and spend 90 ms compiling it (`ABOVE_STEPS`). Where an import stored two siblings of
 * one idShort, the first is the one at their path (`atPath`).
 */
export async function readSubtree(db: Db, tenantId: string, seq: string, path: string): Promise<{ rows: ReadRow<JsonObject>[]; types: string[] }> {
  const query = subtreeQuery('$2');
  const rows = (await db.query(`WITH ${query.ctes} ${query.body} ORDER BY o`, [tenantId, seq, path, stepsAbove(path)])) as SubtreeRow[];
  return subtreeOf(rows);
}

/** A row of `subtreeQuery`: one of the subtree, or (`above`) one of an element on the way to it, without its JSON. */
type SubtreeRow = ReadRow<JsonObject> & { above: boolean };

/**
 * SQL of `readSubtree` for the submodel `seq` (SQL: a parameter, or a subquery of the statement around it) of tenant
 * `$1`, the path `$3` and `$4` elements above: `ctes` to go into its WITH, `body` the rows (`SubtreeRow`, and `o`,
 * the `ord` to order them by). Without `descendants`, the element's own row only; with `aboveJson`, the rows above
 * carry their JSON too.
 */
function subtreeQuery(seq: string, descendants = true, aboveJson = false): { ctes: string; body: string } {
  return {
    ctes: `target AS MATERIALIZED (${atPath(seq)})`,
    body: `SELECT * FROM (
        SELECT e.ord AS o, e.ord::text AS ord, cardinality(e.ord) AS depth, e.model_type AS type, e.path, e.json, false AS above,
            e.xmin::text AS x
          FROM submodel_elements e
          WHERE e.tenant_id = $1 AND e.submodel_seq = ${seq} AND e.ord >= (SELECT ord FROM target) AND e.ord ${descendants ? '<' : '<='} (SELECT ${descendants ? 'ord || 2147483647' : 'ord'} FROM target)
          ORDER BY e.ord
      ) AS subtree
      UNION ALL
      SELECT a.* FROM target t CROSS JOIN LATERAL (${ABOVE_STEPS('t.ord')}) AS s CROSS JOIN LATERAL (
        SELECT e.ord, e.ord::text, cardinality(e.ord), e.model_type, e.path, ${aboveJson ? 'e.json' : 'NULL::json'}, true, e.xmin::text
          FROM submodel_elements e
          WHERE e.tenant_id = $1 AND e.submodel_seq = ${seq} AND e.ord >= t.ord[1:s.k] AND e.ord <= t.ord[1:s.k]
          ORDER BY e.ord LIMIT 1
      ) AS a`,
  };
}

function subtreeOf(rows: SubtreeRow[]): { rows: ReadRow<JsonObject>[]; types: string[] } {
  const above = rows.filter((row) => row.above);
  const subtree = rows.filter((row) => !row.above);
  return { rows: subtree, types: subtree.length ? [...above.map((row) => row.type), subtree[0].type] : [] };
}

/**
 * `readSubtree` of the element at `path` in the submodel `id` of `table`, found by `byId` (SQL over `$1`, the tenant,
 * and `$2`, the id), with the submodel's row `seq` and `version`, in one statement: null when the submodel does not exist.
 */
export async function readSubtreeById(
  db: Db,
  table: string,
  byId: string,
  tenantId: string,
  id: string,
  path: string,
): Promise<{ seq: string; version: number; rows: ReadRow<JsonObject>[]; types: string[] } | null> {
  const query = subtreeQuery('(SELECT seq FROM head)');
  const rows = (await db.query(
    `WITH head AS MATERIALIZED (SELECT seq, version FROM ${table} WHERE ${byId}), ${query.ctes}
      SELECT NULL::integer[] AS o, NULL::text AS ord, NULL::int AS depth, NULL::text AS type, NULL::text AS path, NULL::json AS json,
          NULL::boolean AS above, NULL::text AS x, seq AS head_seq, version AS head_version FROM head
      UNION ALL
      SELECT x.*, NULL, NULL FROM (${query.body}) AS x
      ORDER BY o NULLS FIRST`,
    [tenantId, id, path, stepsAbove(path)],
  )) as (SubtreeRow & { head_seq: string | null; head_version: number | null })[];
  if (!rows.length) return null;
  const [head, ...subtree] = rows;
  return { seq: String(head.head_seq), version: Number(head.head_version), ...subtreeOf(subtree) };
}

/** Rows read with the lock of an element write (`lockSubmodel`): the element at `path`, and the elements above it. */
export interface PrefetchedRows {
  /** The element's path; '' for the submodel itself (then `rows` and `above` are empty). */
  path: string;
  /** Whether `rows` hold the element's descendants too (else its own row only). */
  descendants: boolean;
  /** The element's row (and its descendants'), in `ord` order; empty when nothing is at `path`. */
  rows: ReadRow<JsonObject>[];
  /** The rows of the elements above it, from the top, with their JSON. */
  above: ReadRow<JsonObject>[];
  /** Asked with `children`: the position of its last child (-1 when none), and whether a child has the idShort asked. */
  children?: { lastPosition: number; taken?: { path: string; taken: boolean } };
}

/** SQL of `lockSubmodel`'s answers about the children of the element `ord` (SQL) at depth `depth` (SQL). */
function childrenColumns(ord: string, depth: string, takenParam: string | undefined): string {
  const last = `(SELECT e.ord[${depth} + 1] FROM submodel_elements e
      WHERE e.tenant_id = $1 AND e.submodel_seq = head.seq AND e.ord > ${ord} AND e.ord < ${ord} || ${MAX_POSITION}
      ORDER BY e.ord DESC LIMIT 1) AS last_child`;
  const taken = takenParam
    ? `EXISTS (SELECT 1 FROM submodel_elements e WHERE e.tenant_id = $1 AND e.submodel_seq = head.seq
        AND left(e.path, 256) = left(${takenParam}, 256) AND e.path = ${takenParam} AND cardinality(e.ord) = ${depth} + 1) AS taken`
    : 'NULL::boolean AS taken';
  return `, ${last}, ${taken}`;
}

/**
 * The first statement of an element write, in its transaction: locks the submodel's row (`FOR UPDATE`; the one of
 * `table` that `byId` finds, SQL over `$1`, the tenant, and `$2`, the id), reads its head document, and reads, in the
 * same statement, the rows the write will look at first: the element at `at.path` (with its descendants if
 * `at.descendants`) and the elements above it. Those rows are read as of the statement's snapshot, which is the
 * state the lock holds only if no other write committed while the statement waited for the lock: `rows` is given
 * only then (the version the snapshot saw is the version locked; every write of a submodel's rows gives it a new
 * version), else the write reads them again. `notify`: the notification sent with it (on PostgreSQL, where it is
 * delivered on commit; never on Citus, which wants it in a statement of its own). Null when there is no such submodel.
 */
export async function lockSubmodel(
  db: Db,
  table: string,
  byId: string,
  tenantId: string,
  id: string,
  at: { path: string; descendants: boolean; children?: { idShort?: string } } | undefined,
  notify: { payload: string } | undefined,
  lock = true,
): Promise<{ seq: string; version: number; top: number; doc: JsonObject; rows?: PrefetchedRows } | null> {
  // `$3` and `$4`: the path and the number of elements above it, as `subtreeQuery` has them.
  const element = at && at.path !== '' ? at : undefined;
  const params: unknown[] = element ? [tenantId, id, element.path, stepsAbove(element.path)] : [tenantId, id];
  // Without the lock (`readForElementWrite`), the rows are read as they are, for a write that compares them later.
  const ctes = lock
    ? [`snap AS MATERIALIZED (SELECT version FROM ${table} WHERE ${byId})`, `head AS MATERIALIZED (SELECT seq, version, top_elements_version, doc FROM ${table} WHERE ${byId} FOR UPDATE)`]
    : [`head AS MATERIALIZED (SELECT seq, version, top_elements_version, doc FROM ${table} WHERE ${byId})`];
  const notified = notify && lock ? `, (SELECT ${announceSql(`$${params.push(notify.payload)}`)}) AS notified` : '';
  let headColumns = `head.seq AS head_seq, head.version AS head_version, head.top_elements_version AS head_top, head.doc AS head_doc, ${lock ? '(SELECT version FROM snap)' : 'head.version'} AS snap_version`;
  // A child's path and depth: of the element (its `ord` from `target`), or of the submodel itself.
  const childPath = at?.children?.idShort === undefined ? undefined : at.path ? `${at.path}.${at.children.idShort}` : at.children.idShort;
  if (at?.children) {
    const taken = childPath === undefined ? undefined : `$${params.push(childPath)}::text`;
    headColumns += element
      ? childrenColumns('(SELECT ord FROM target)', 'cardinality((SELECT ord FROM target))', taken)
      : childrenColumns(`'{}'::integer[]`, '0', taken);
  }
  let sql = `WITH ${ctes.join(', ')} SELECT ${headColumns} FROM head${notified}`;
  if (element) {
    const query = subtreeQuery('(SELECT seq FROM head)', element.descendants, true);
    sql = `WITH ${ctes.join(', ')}, ${query.ctes}
      SELECT NULL::integer[] AS o, NULL::text AS ord, NULL::int AS depth, NULL::text AS type, NULL::text AS path, NULL::json AS json,
          NULL::boolean AS above, NULL::text AS x, ${headColumns} FROM head${notified}
      UNION ALL
      SELECT x.*, NULL, NULL, NULL, NULL, NULL${at?.children ? ', NULL, NULL' : ''} FROM (${query.body}) AS x
      ORDER BY o NULLS FIRST`;
  }
  const rows = (await db.query(sql, params)) as (SubtreeRow & {
    head_seq: string;
    head_version: number;
    head_top: number;
    head_doc: JsonObject;
    snap_version: number | null;
    last_child?: number | null;
    taken?: boolean | null;
  })[];
  if (!rows.length) return null;
  const [head, ...read] = rows;
  const locked = { seq: String(head.head_seq), version: Number(head.head_version), top: Number(head.head_top), doc: head.head_doc };
  if (!at || Number(head.snap_version) !== locked.version) return locked;
  const children = at.children && {
    lastPosition: head.last_child == null ? -1 : Number(head.last_child),
    taken: childPath === undefined ? undefined : { path: childPath, taken: head.taken === true },
  };
  return {
    ...locked,
    rows: { path: at.path, descendants: at.descendants, rows: read.filter((row) => !row.above), above: read.filter((row) => row.above), children },
  };
}

/** The last position an `ord` can have at a level: `ord || MAX_POSITION` is past every descendant of `ord`. */
const MAX_POSITION = 2147483647;

/** An element as a place: its own row (`json` without child elements) and the modelTypes above it. */
export interface NodeRow {
  ord: string;
  type: string;
  path: string;
  json: JsonObject;
  above: string[];
  /** The row's version (`xmin`), where the read asked for it. */
  x?: string;
}

/** The row of the element at `path` of submodel `seq` (the first, where an import stored a path twice), or null. */
export async function readNode(db: Db, tenantId: string, seq: string, path: string): Promise<NodeRow | null> {
  // Planned as `readSubtree`: the element by primary key at the `ord` its path has, each element above by primary key.
  const rows = (await db.query(
    `WITH target AS MATERIALIZED (${atPath('$2')})
      SELECT e.ord::text AS ord, e.model_type AS type, e.path, e.json,
          ARRAY(SELECT a.model_type FROM (${ABOVE_STEPS('e.ord')}) AS s CROSS JOIN LATERAL (
              SELECT x.model_type FROM submodel_elements x
                WHERE x.tenant_id = $1 AND x.submodel_seq = $2 AND x.ord >= e.ord[1:s.k] AND x.ord <= e.ord[1:s.k] ORDER BY x.ord LIMIT 1
            ) AS a ORDER BY s.k) AS above
        FROM submodel_elements e WHERE e.tenant_id = $1 AND e.submodel_seq = $2 AND e.ord = (SELECT ord FROM target)`,
    [tenantId, seq, path, stepsAbove(path)],
  )) as NodeRow[];
  return rows[0] ?? null;
}

/** The position of the last child of the element at `ord` (the submodel: `[]`); -1 when it has none. */
export async function lastChildPosition(db: Db, tenantId: string, seq: string, ord: number[]): Promise<number> {
  // The last row in the range of `ord`'s descendants is its last child or a descendant of it: one index step back.
  const rows = (await db.query(
    `SELECT e.ord[$4::int] AS position FROM submodel_elements e
      WHERE e.tenant_id = $1 AND e.submodel_seq = $2 AND e.ord > $3::integer[] AND e.ord < $3::integer[] || ${MAX_POSITION}
      ORDER BY e.ord DESC LIMIT 1`,
    [tenantId, seq, ordText(ord), ord.length + 1],
  )) as { position: number }[];
  return rows.length ? Number(rows[0].position) : -1;
}

/** Whether a row of submodel `seq` is at `path` at depth `depth`: a sibling by that idShort exists. */
export async function pathTaken(db: Db, tenantId: string, seq: string, path: string, depth: number): Promise<boolean> {
  const rows = (await db.query(
    `SELECT 1 FROM submodel_elements
      WHERE tenant_id = $1 AND submodel_seq = $2 AND left(path, 256) = left($3, 256) AND path = $3 AND cardinality(ord) = $4 LIMIT 1`,
    [tenantId, seq, path, depth],
  )) as unknown[];
  return rows.length > 0;
}

/** The distinct semanticIds of the children of the element at `ord`, but the child at `except`. */
export async function childSemanticIds(db: Db, tenantId: string, seq: string, ord: number[], except: number[] | null): Promise<JsonObject[]> {
  const rows = (await db.query(
    `SELECT DISTINCT (e.json->'semanticId')::text AS s FROM submodel_elements e
      WHERE e.tenant_id = $1 AND e.submodel_seq = $2 AND e.ord > $3::integer[] AND e.ord < $3::integer[] || ${MAX_POSITION}
        AND cardinality(e.ord) = $4 AND e.json->'semanticId' IS NOT NULL AND ($5::integer[] IS NULL OR e.ord <> $5::integer[])`,
    [tenantId, seq, ordText(ord), ord.length + 1, except ? ordText(except) : null],
  )) as { s: string }[];
  return rows.map((row) => JSON.parse(row.s) as JsonObject);
}

/** SQL: whether a row (`model_type`, `json`) holds a Blob value, itself or in an Operation's variables. */
const HOLDS_BLOB = `(model_type = 'Blob' OR (model_type = 'Operation' AND json::text LIKE '%"Blob"%'))`;

/** Deletes the element at `ord` and its descendants; says how many JSON bytes went and whether a Blob was among them. */
export async function deleteSubtree(db: Db, tenantId: string, seq: string, ord: number[]): Promise<{ bytes: number; blobs: boolean }> {
  const rows = (await db.query(
    `WITH gone AS (
        DELETE FROM submodel_elements
          WHERE tenant_id = $1 AND submodel_seq = $2 AND ord >= $3::integer[] AND ord < $3::integer[] || ${MAX_POSITION}
          RETURNING model_type, json
      )
      SELECT coalesce(sum(octet_length(json::text)), 0) AS bytes, coalesce(bool_or(${HOLDS_BLOB}), false) AS blobs FROM gone`,
    [tenantId, seq, ordText(ord)],
  )) as { bytes: string; blobs: boolean }[];
  return { bytes: Number(rows[0].bytes), blobs: rows[0].blobs };
}

/**
 * After the item at `index` of the list at `listOrd` (idShortPath `listPath`) was deleted, the items after it move
 * up one place: their rows' positions and the index in their paths, descendants included. Two statements, through
 * negative positions, so no two rows ever share a key on the way. The numbers become text by casts: `text || int`
 * is a STABLE function of a column, which Citus refuses in an UPDATE.
 */
export async function closeListGap(db: Db, tenantId: string, seq: string, listOrd: number[], listPath: string, index: number): Promise<void> {
  const level = listOrd.length + 1;
  const list = ordText(listOrd);
  await db.query(
    `UPDATE submodel_elements SET ord[$5::int] = -ord[$5::int],
        path = $6 || '[' || (ord[$5::int] - 1)::text || ']' || substr(path, length($6 || '[' || ord[$5::int]::text || ']') + 1)
      WHERE tenant_id = $1 AND submodel_seq = $2 AND ord > $3::integer[] || $4::int AND ord < $3::integer[] || ${MAX_POSITION}`,
    [tenantId, seq, list, index, level, listPath],
  );
  await db.query(
    `UPDATE submodel_elements SET ord[$4::int] = -ord[$4::int] - 1
      WHERE tenant_id = $1 AND submodel_seq = $2 AND ord >= $3::integer[] || -${MAX_POSITION} AND ord < $3::integer[] || 0`,
    [tenantId, seq, list, level],
  );
}

/** Writes the element row at `ord`'s own JSON (a container whose empty child list goes when a child comes). */
export async function writeNodeJson(db: Db, tenantId: string, seq: string, ord: number[], json: JsonObject): Promise<void> {
  await db.query(`UPDATE submodel_elements SET json = $4::json WHERE tenant_id = $1 AND submodel_seq = $2 AND ord = $3::integer[]`, [
    tenantId,
    seq,
    ordText(ord),
    JSON.stringify(json),
  ]);
}

/** Element rows to write at the end of an element write: rows gone, rows changed in place, rows new. */
export interface PendingRows {
  remove: number[][];
  update: ElementRow[];
  add: ElementRow[];
  /** An element deleted with its descendants (its `ord`), none of which are among the rows above. */
  subtree?: number[];
  /** A list item deleted with its descendants (`writeElementsOnce` only): the list's `ord` and path, the item's index. */
  listItem?: { list: number[]; path: string; index: number };
}


/**
 * The end of an element write, in one statement: the pending rows deleted, changed in place and inserted (no two of
 * which share a key, so their order does not matter), and the submodel's row: a new version, its size (`bytes`
 * more or fewer) and whether it holds a Blob, its head where `head` is given. A pending subtree (`rows.subtree`) is
 * deleted in the same statement, and whether a Blob remains after it is asked there of the other rows. Whether it
 * holds a Blob is looked up again, in a statement of its own that sees the rows written, only where one went with
 * the rows above and none came. With `needs31`, the submodel's recorded version (`aas_version`) becomes '3.1'.
 */
export async function finishElementWrite(
  db: Db,
  tenantId: string,
  seq: string,
  rows: PendingRows,
  change: { bytes: number; blobAdded: boolean; blobRemoved: boolean; head?: JsonObject; needs31?: boolean },
): Promise<void> {
  const params: unknown[] = [tenantId, seq, change.bytes, change.blobAdded];
  const parts: string[] = [];
  if (rows.remove.length) {
    parts.push(`removed AS (DELETE FROM submodel_elements e USING ${ORDS_FROM(`$${params.push(ordsJson(rows.remove))}`)}
      WHERE e.tenant_id = $1 AND e.submodel_seq = $2 AND e.ord = k.ord RETURNING 1)`);
  }
  if (rows.update.length) {
    parts.push(`changed AS (UPDATE submodel_elements e SET path = r.path, id_short = r.id_short, model_type = r.model_type,
        semantic_key = r.semantic_key, v_text = r.v_text, json = r.json
      FROM json_to_recordset($${params.push(JSON.stringify(rows.update.map(recordOf)))}::json) AS ${RECORD}
      WHERE e.tenant_id = $1 AND e.submodel_seq = $2 AND e.ord = r.ord RETURNING 1)`);
  }
  if (rows.add.length) {
    parts.push(`added AS (INSERT INTO submodel_elements (${ROW_COLUMNS})
      ${ROWS_FROM_RECORDS(`$${params.push(JSON.stringify(rows.add.map(recordOf)))}`)} RETURNING 1)`);
  }
  let gone = '';
  let blobs = 'has_blobs OR $4';
  if (rows.subtree) {
    // The subtree's rows go in this statement; whether a Blob remains is asked of the rows as they were, but theirs.
    const ord = `$${params.push(ordText(rows.subtree))}::integer[]`;
    const range = (e: string) => `${e}.ord >= ${ord} AND ${e}.ord < ${ord} || ${MAX_POSITION}`;
    parts.push(`gone AS (DELETE FROM submodel_elements e WHERE e.tenant_id = $1 AND e.submodel_seq = $2 AND ${range('e')} RETURNING e.model_type, e.json)`);
    gone = ' - (SELECT coalesce(sum(octet_length(json::text)), 0) FROM gone)';
    blobs = `CASE WHEN $4 THEN true WHEN NOT has_blobs THEN false WHEN (SELECT coalesce(bool_or(${HOLDS_BLOB}), false) FROM gone)
        THEN EXISTS (SELECT 1 FROM submodel_elements x WHERE x.tenant_id = $1 AND x.submodel_seq = $2 AND ${HOLDS_BLOB} AND NOT (${range('x')}))
        ELSE has_blobs END`;
  }
  const head = change.head ? `, doc = $${params.push(JSON.stringify(change.head))}::jsonb` : '';
  const version31 = change.needs31 ? `, aas_version = '3.1'` : '';
  await db.query(
    `${parts.length ? `WITH ${parts.join(',\n')}\n` : ''}UPDATE submodels SET version = version + 1, updated_at = now(), doc_bytes = doc_bytes + $3${gone}${head}${version31},
        has_blobs = ${blobs}
      WHERE tenant_id = $1 AND seq = $2`,
    params,
  );
  rowsWritten(db, 'submodel_elements', rows.add.length);
  if (change.blobRemoved && !change.blobAdded) {
    await db.query(
      `UPDATE submodels SET has_blobs = EXISTS (SELECT 1 FROM submodel_elements WHERE tenant_id = $1 AND submodel_seq = $2 AND ${HOLDS_BLOB})
        WHERE tenant_id = $1 AND seq = $2`,
      [tenantId, seq],
    );
  }
}

/**
 * How many versions back `submodels.element_log` reaches (migration ElementWriteLog): a write compares with it only
 * where it read no more versions back than this, else it compares the whole version.
 */
export const ELEMENT_LOG_WINDOW = 64;

/** An element row of one of several submodels written together: the submodel's row (`seq`) beside it. */
export interface RowOf {
  seq: string;
  row: ElementRow;
}

const RECORD_OF_MANY = 'r (submodel_seq bigint, ord integer[], path text, id_short text, model_type text, semantic_key text, v_text text, json json)';

/**
 * Inserts the element rows of several submodels (an import's batch) as one statement: a JSON recordset that names
 * each row's submodel. The caller keeps the statement's size bounded (`INSERT_BATCH` rows is a good measure).
 */
export async function insertRowsOfMany(db: Db, tenantId: string, rows: RowOf[]): Promise<void> {
  if (!rows.length) return;
  await db.query(
    `INSERT INTO submodel_elements (${ROW_COLUMNS})
      SELECT $1, r.submodel_seq, ${ROW_FIELDS} FROM json_to_recordset($2::json) AS ${RECORD_OF_MANY}`,
    [tenantId, JSON.stringify(rows.map(({ seq, row }) => ({ submodel_seq: seq, ...recordOf(row) })))],
  );
  rowsWritten(db, 'submodel_elements', rows.length);
}

/** Deletes every element row of the submodels `seqs` (an import overwriting them: their new rows follow). */
export async function deleteRowsOfMany(db: Db, tenantId: string, seqs: string[]): Promise<void> {
  if (!seqs.length) return;
  await db.query('DELETE FROM submodel_elements WHERE tenant_id = $1 AND submodel_seq = ANY ($2::bigint[])', [tenantId, seqs]);
}

/** Rows of element rows per statement of an import's batch write. */
export const MANY_ROWS_BATCH = INSERT_BATCH;

/**
 * What an element write sent as one statement (`writeElementsOnce`) depends on, beyond `If-Match`: the write goes
 * through when the submodel's version is still `version` (nothing was written since the read), or else when every
 * write since was such an element write (`element_writes_from` .. `element_writes_to`, migration
 * ElementWriteChain) and `narrow` still holds: then the writes since touched nothing this one read.
 */
export interface ElementWriteBasis {
  /** The submodel's version when the rows were read. */
  version: number;
  /**
   * A row written whatever it holds: it must still be at `ord` with `path` and `type` (a type without child
   * elements); with `but`, its JSON but the members `but.keys` must still be `but.rest` (what the change took from the
   * element as read: all of it but the members it sets).
   */
  located?: { ord: number[]; path: string; type: string; but?: { keys: string[]; rest: JsonObject } };
  /** Null when only the whole version will do (the edit read more than its rows tell). */
  narrow: {
    /** Element rows (`ord`; with `subtree`, the rows of its whole range) that must still be the row versions read. */
    rows: { ord: number[]; subtree: boolean }[];
    /** `ord@xmin` of each of those rows as read, in `ord` order, joined by spaces. */
    expect: string;
    /** The submodel's `top_elements_version` as read, where the edit depends on its list of top-level elements. */
    top?: number;
  } | null;
}

/** The writes of an element write sent as one statement (`writeElementsOnce`). */
export interface ElementWrites {
  rows: PendingRows;
  /** Element rows given a new row version (their child list changed), with their new JSON where it changed. */
  touch: { ord: number[]; json: JsonObject | null }[];
  /** JSON bytes more (or fewer) in the submodel, as far as known here. */
  bytes: number;
  /** The row `located` replaced: its new JSON size; the stored one's is subtracted in the statement. */
  locatedBytes?: number;
  blobAdded: boolean;
  /** Whether a Blob remains is asked of the rows outside this range (`ord`'s subtree): the one Blob holder replaced. */
  blobRecount?: number[];
  head?: JsonObject;
  /** The top-level list of elements changed. */
  topChanged: boolean;
  /**
   * The rows added are one element appended to the parent `parent` (not a list) at `path`, its position taken in the
   * statement, under the lock: after `last` (the last child read) and after every child appended there since
   * (`element_log`). The write depends on no element appended or renamed to `path` since, nor the rows of the parent
   * or an element above it replaced.
   */
  append?: { parent: number[]; path: string; last: number };
  /** Elements whose rows this write replaced (`ord`), with the path a rename gave one: logged in `element_log`. */
  logged?: { ord: number[]; path?: string }[];
  /** The edit needs metamodel V3.1: the submodel's recorded version (`aas_version`) becomes '3.1' with the write. */
  needs31?: boolean;
  notify?: { payload: string };
}

/**
 * An element write as one statement in autocommit, with the lock of the submodel's row held for that statement only:
 * it locks the row (`FOR UPDATE`, first, as every write of the submodel does), checks `If-Match` and `basis`
 * against the row as it is now, and only then writes the element rows and the submodel's row (a new version, its
 * size, its Blob flag, the run of element writes) and sends the notification.
 *
 * The statement's snapshot may be older than the lock (it waited for it). Rows it locks (`FOR UPDATE`) are read as
 * they are now, so the rows the edit depends on are locked and compared by their row version (`xmin`): a write that
 * changed such a row gave it a new one; a write that added an item to a list gave the list's row a new version too
 * (`touch`). Rows inserted since the snapshot are not seen by its reads: where such rows matter (an add outside a
 * list: its place and idShort; a range of rows compared: an element added in it), the submodel's `element_log`,
 * read with the lock, says where the element writes since the read added elements and replaced rows.
 * Everything else the statement reads (the Blob recount) it reads only where the version is still the one read.
 *
 * Returns null when the submodel's row `seq` is gone; else its version now, whether `If-Match` admitted it, and the
 * version written (null when the basis no longer held: nothing was written, the caller reads again).
 */
export async function writeElementsOnce(
  db: Db,
  tenantId: string,
  seq: string,
  ifMatchTags: string[] | null,
  basis: ElementWriteBasis,
  writes: ElementWrites,
): Promise<{ version: number; admitted: boolean; written: number | null; added: number } | null> {
  const params: unknown[] = [tenantId, seq];
  const bind = (value: unknown) => `$${params.push(value)}`;
  const ctes = [
    `lk AS MATERIALIZED (SELECT seq, version, element_writes_from AS wf, element_writes_to AS wt, top_elements_version AS tv,
        element_log AS lg
      FROM submodels WHERE tenant_id = $1 AND seq = $2 FOR UPDATE)`,
  ];
  const range = (e: string, ord: string) => `(${e}.ord >= ${ord} AND ${e}.ord < ${ord} || ${MAX_POSITION})`;
  const { narrow } = basis;
  const conditions: string[] = [];
  if (narrow) {
    conditions.push(`lk.wt = lk.version AND lk.wf <= ${bind(basis.version)}::int`);
    if (narrow.top !== undefined) conditions.push(`lk.tv = ${bind(narrow.top)}::int`);
    if (narrow.rows.length) {
      const which = narrow.rows.map(({ ord, subtree }) => {
        const at = `${bind(ordText(ord))}::integer[]`;
        return subtree ? range('e', at) : `e.ord = ${at}`;
      });
      // The lock is taken after the submodel's (the subquery runs for `ok`'s row of `lk`), as every write takes them.
      ctes.push(`held AS MATERIALIZED (SELECT e.ord, e.xmin::text AS x FROM submodel_elements e
        WHERE e.tenant_id = $1 AND e.submodel_seq = $2 AND (${which.join(' OR ')}) FOR UPDATE)`);
      conditions.push(`coalesce((SELECT string_agg(h.ord::text || '@' || h.x, ' ' ORDER BY h.ord) FROM held h), '') = ${bind(narrow.expect)}::text`);
    }
    // What the locked rows cannot show: rows inserted since the statement's snapshot, which its reads do not see.
    // The log of the writes since the read says where those went (it reaches back `ELEMENT_LOG_WINDOW` versions).
    const subtrees = narrow.rows.filter((row) => row.subtree);
    const append = writes.append;
    if (subtrees.length || append) {
      const since = bind(basis.version);
      conditions.push(`lk.version - ${since}::int <= ${ELEMENT_LOG_WINDOW}`);
      const related: string[] = [];
      for (const { ord } of subtrees) {
        // An element added or replaced in its range, or one above it replaced.
        const at = `${bind(ordText(ord))}::integer[]`;
        related.push(`${LOGGED_ORD}[1:${ord.length}] = ${at} OR (${at})[1:cardinality(${LOGGED_ORD})] = ${LOGGED_ORD}`);
      }
      if (append) {
        // Its idShortPath taken by an add or a rename since; its parent's rows, or those of an element above it, replaced.
        const parent = `${bind(ordText(append.parent))}::integer[]`;
        related.push(`g.x->>'n' = ${bind(append.path)}::text OR (g.x->>'a' IS NULL AND (${parent})[1:cardinality(${LOGGED_ORD})] = ${LOGGED_ORD})`);
      }
      conditions.push(`NOT EXISTS (SELECT 1 FROM ${LOG_OF('lk.lg')} WHERE (g.x->>'v')::int > ${since}::int AND (${related.map((r) => `(${r})`).join(' OR ')}))`);
    }
  }
  const { located } = basis;
  if (located) {
    ctes.push(`at_row AS MATERIALIZED (SELECT e.path, e.model_type, e.json FROM submodel_elements e
      WHERE e.tenant_id = $1 AND e.submodel_seq = $2 AND e.ord = ${bind(ordText(located.ord))}::integer[] FOR UPDATE)`);
    // Bound only where used: PostgreSQL refuses a parameter no expression gives a type.
    const same = () => (located.but ? ` AND (at_row.json::jsonb - ${bind(located.but.keys)}::text[]) = ${bind(JSON.stringify(located.but.rest))}::jsonb` : '');
    if (narrow) conditions.push(`EXISTS (SELECT 1 FROM at_row WHERE at_row.path = ${bind(located.path)}::text AND at_row.model_type = ${bind(located.type)}::text${same()})`);
  }
  const admitted = ifMatchTags ? `('"' || lk.seq::text || '-' || lk.version::text || '"') = ANY (${bind(ifMatchTags)}::text[])` : 'true';
  const current = `lk.version = ${bind(basis.version)}::int${narrow ? ` OR (${conditions.join(' AND ')})` : ''}`;
  ctes.push(`ok AS MATERIALIZED (SELECT lk.seq, lk.version, ${admitted} AS admitted, (${current}) AS current FROM lk)`);
  ctes.push(`go AS MATERIALIZED (SELECT seq FROM ok WHERE admitted AND current)`);
  const own = (e: string) => `${e}.tenant_id = $1 AND ${e}.submodel_seq = $2`;
  const { rows } = writes;
  if (rows.remove.length) {
    ctes.push(`removed AS (DELETE FROM submodel_elements e USING go, ${ORDS_FROM(bind(ordsJson(rows.remove)))} WHERE ${own('e')} AND e.ord = k.ord RETURNING 1)`);
  }
  if (rows.update.length) {
    ctes.push(`changed AS (UPDATE submodel_elements e SET path = r.path, id_short = r.id_short, model_type = r.model_type,
        semantic_key = r.semantic_key, v_text = r.v_text, json = r.json
      FROM go, json_to_recordset(${bind(JSON.stringify(rows.update.map(recordOf)))}::json) AS ${RECORD}
      WHERE ${own('e')} AND e.ord = r.ord RETURNING 1)`);
  }
  const { append } = writes;
  let appendedAt = '';
  if (append) {
    // After the last child read, and after every child appended there since (the log of the writes since: this
    // statement's reads of the element rows would not see those); the rows' `ord` at the parent's level is replaced.
    const depth = append.parent.length + 1;
    const parent = `${bind(ordText(append.parent))}::integer[]`;
    ctes.push(`place AS MATERIALIZED (SELECT greatest(${bind(append.last)}::int, (SELECT max((${LOGGED_ORD})[${depth}]) FROM lk, ${LOG_OF('lk.lg')}
        WHERE g.x->>'a' IS NOT NULL AND (g.x->>'v')::int > ${bind(basis.version)}::int AND cardinality(${LOGGED_ORD}) = ${depth}
          AND (${LOGGED_ORD})[1:${depth - 1}] = ${parent})) + 1 AS p)`);
    appendedAt = `${parent} || (SELECT p FROM place)`;
    ctes.push(`added AS (INSERT INTO submodel_elements (${ROW_COLUMNS})
      SELECT $1, $2, ${appendedAt} || r.ord[${depth + 1}:], r.path, r.id_short, r.model_type, r.semantic_key, r.v_text, r.json
      FROM go, json_to_recordset(${bind(JSON.stringify(rows.add.map(recordOf)))}::json) AS ${RECORD} RETURNING 1)`);
  } else if (rows.add.length) {
    ctes.push(`added AS (INSERT INTO submodel_elements (${ROW_COLUMNS}) SELECT $1, $2, ${ROW_FIELDS}
      FROM go, json_to_recordset(${bind(JSON.stringify(rows.add.map(recordOf)))}::json) AS ${RECORD} RETURNING 1)`);
  }
  if (writes.touch.length) {
    const touched = JSON.stringify(writes.touch.map(({ ord, json }) => ({ ord, json })));
    ctes.push(`touched AS (UPDATE submodel_elements e SET json = coalesce(t.json, e.json)
      FROM go, json_to_recordset(${bind(touched)}::json) AS t (ord integer[], json json) WHERE ${own('e')} AND e.ord = t.ord RETURNING 1)`);
  }
  let size = `s.doc_bytes + ${bind(writes.bytes)}::bigint`;
  if (writes.locatedBytes !== undefined) size += ` + ${bind(writes.locatedBytes)}::bigint - (SELECT octet_length(json::text) FROM at_row)`;
  const blobAdded = `${bind(writes.blobAdded)}::boolean`;
  let blobs = `s.has_blobs OR ${blobAdded}`;
  if (rows.subtree) {
    const ord = `${bind(ordText(rows.subtree))}::integer[]`;
    ctes.push(`gone AS (DELETE FROM submodel_elements e USING go WHERE ${own('e')} AND ${range('e', ord)} RETURNING e.model_type, e.json)`);
    size += ' - (SELECT coalesce(sum(octet_length(json::text)), 0) FROM gone)';
    // A Blob among the rows gone: the basis was the whole version, so the other rows are read as they are.
    blobs = `CASE WHEN ${blobAdded} THEN true WHEN NOT s.has_blobs THEN false
        WHEN (SELECT coalesce(bool_or(${HOLDS_BLOB}), false) FROM gone)
        THEN EXISTS (SELECT 1 FROM submodel_elements x WHERE ${own('x')} AND ${HOLDS_BLOB} AND NOT ${range('x', ord)})
        ELSE s.has_blobs END`;
  } else if (rows.listItem) {
    // The item's rows and those of the items after it are deleted, and the latter inserted again one index up: in one
    // statement, where an UPDATE of the positions could meet a row not yet moved. The sort takes every row the
    // DELETE returns before the first insert, so no position is taken twice. Read as of the whole version (`whole`).
    const { list, path, index } = rows.listItem;
    const level = `${bind(list.length + 1)}::int`;
    const listOrd = `${bind(ordText(list))}::integer[]`;
    const at = `${bind(index)}::int`;
    const listPath = `${bind(path)}::text`;
    ctes.push(`shifted AS (DELETE FROM submodel_elements e USING go WHERE ${own('e')} AND e.ord >= ${listOrd} || ${at} AND e.ord < ${listOrd} || ${MAX_POSITION}
        RETURNING e.ord, e.path, e.id_short, e.model_type, e.semantic_key, e.v_text, e.json)`);
    ctes.push(`gone AS (SELECT model_type, json FROM shifted WHERE ord[${level}] = ${at})`);
    ctes.push(`moved AS (INSERT INTO submodel_elements (${ROW_COLUMNS})
      SELECT $1, $2, m.ord[1:${level} - 1] || (m.ord[${level}] - 1) || m.ord[${level} + 1:],
          ${listPath} || '[' || (m.ord[${level}] - 1)::text || ']' || substr(m.path, length(${listPath} || '[' || m.ord[${level}]::text || ']') + 1),
          m.id_short, m.model_type, m.semantic_key, m.v_text, m.json
        FROM (SELECT * FROM shifted WHERE ord[${level}] > ${at} ORDER BY ord) AS m RETURNING 1)`);
    const item = `(${listOrd} || ${at})`;
    size += ' - (SELECT coalesce(sum(octet_length(json::text)), 0) FROM gone)';
    blobs = `CASE WHEN ${blobAdded} THEN true WHEN NOT s.has_blobs THEN false
        WHEN (SELECT coalesce(bool_or(${HOLDS_BLOB}), false) FROM gone)
        THEN EXISTS (SELECT 1 FROM submodel_elements x WHERE ${own('x')} AND ${HOLDS_BLOB} AND NOT ${range('x', item)})
        ELSE s.has_blobs END`;
  } else if (writes.blobRecount && !writes.blobAdded) {
    const ord = `${bind(ordText(writes.blobRecount))}::integer[]`;
    blobs = `${blobAdded} OR EXISTS (SELECT 1 FROM submodel_elements x WHERE ${own('x')} AND ${HOLDS_BLOB} AND NOT ${range('x', ord)})`;
  }
  const head = writes.head ? `, doc = ${bind(JSON.stringify(writes.head))}::jsonb` : '';
  // The log keeps the entries of the last `ELEMENT_LOG_WINDOW` versions, and this write's.
  const entries: string[] = [];
  if (writes.logged?.length) {
    entries.push(`SELECT jsonb_set(n.x, '{v}', to_jsonb(s.version + 1)) FROM jsonb_array_elements(${bind(JSON.stringify(writes.logged.map(({ ord, path }) => ({ o: ordText(ord), ...(path !== undefined && { n: path }) }))))}::jsonb) AS n (x)`);
  }
  if (append) entries.push(`SELECT jsonb_build_object('v', s.version + 1, 'a', true, 'o', (${appendedAt})::text, 'n', ${bind(append.path)}::text)`);
  const log = entries.length
    ? `, element_log = (SELECT jsonb_agg(e.x) FROM (SELECT g.x FROM ${LOG_OF('s.element_log')} WHERE (g.x->>'v')::int > s.version + 1 - ${ELEMENT_LOG_WINDOW}
        UNION ALL ${entries.join(' UNION ALL ')}) AS e (x))`
    : '';
  const version31 = writes.needs31 ? `, aas_version = '3.1'` : '';
  ctes.push(`head AS (UPDATE submodels s SET version = s.version + 1, updated_at = now(), doc_bytes = ${size}, has_blobs = ${blobs}${head}${log}${version31},
      element_writes_from = CASE WHEN s.element_writes_to = s.version THEN s.element_writes_from ELSE s.version END,
      element_writes_to = s.version + 1${writes.topChanged ? ', top_elements_version = s.top_elements_version + 1' : ''}
    FROM go WHERE s.tenant_id = $1 AND s.seq = go.seq RETURNING s.version)`);
  const notified = writes.notify
    ? `, CASE WHEN ok.admitted AND ok.current THEN ${announceSql(bind(writes.notify.payload))} END AS notified`
    : '';
  const added = rows.add.length ? '(SELECT count(*) FROM added)::int' : '0';
  const found = (await db.query(
    `WITH ${ctes.join(',\n')}
    SELECT ok.version, ok.admitted, (SELECT version FROM head) AS written, ${added} AS added${notified} FROM ok`,
    params,
  )) as { version: number; admitted: boolean; written: number | null; added: number }[];
  if (!found.length) return null;
  const [row] = found;
  return { version: Number(row.version), admitted: row.admitted, written: row.written === null ? null : Number(row.written), added: Number(row.added) };
}

/**
 * SQL: the JSON text of the element row `row` (a `json` column) with its member `value` set to the JSON string of the
 * text `value` (SQL), as `JSON.stringify({ ...element, value })` writes it: its members in their order and their
 * texts as stored, `value` in its place, or last where it had none.
 */
const WITH_VALUE = (row: string, value: string) => `'{' || coalesce((SELECT string_agg(to_json(m.key)::text || ':' ||
      CASE WHEN m.key = 'value' THEN to_json(${value})::text ELSE m.value::text END, ',' ORDER BY m.n)
    FROM json_each(${row}) WITH ORDINALITY AS m (key, value, n)), '')
  || CASE WHEN ${row}::jsonb ? 'value' THEN '' ELSE ',"value":' || to_json(${value})::text END || '}'`;

/**
 * PATCH `$value` of a Property as one statement, without reading first: it locks the submodel's row (`FOR UPDATE`,
 * first, as every write of the submodel does), finds the element at `path` as the write made after a read would
 * find it (`atPath`) and locks its row, and writes its new value only where
 *
 * - the element is a Property whose valueType is one of `valueTypes` (those that take the value, AASd-020, the
 *   only check a Property's value-only write needs: `propertyValueTypes`), its row still at `path` once locked;
 * - `If-Match`, when given, names the submodel's version as locked;
 * - what the statement read before it had the lock (its snapshot: the element's place) still holds: the submodel's
 *   version is the one of the snapshot, or every write since was an element write (`element_writes_from` ..
 *   `element_writes_to`), none of which puts an element at a path another one has or moves a row without deleting it
 *   (a moved or deleted row is not found once locked).
 *
 * Else it writes nothing and answers null: the caller makes the write the usual way (`editElements`), which finds
 * what refuses it (404, 412, 400) or makes it (a Range, a value the valueType refuses that the element had before).
 * The row gets the new JSON and value text, the submodel's row a new version, its size, and the run of element writes
 * continued; a write of the element, or of a range holding it, made without the lock compares the row's version
 * (`xmin`) and so sees this one. `notify` is sent only with a write. Answers the submodel's `seq` and new version, the
 * element's new JSON and the modelTypes of the elements above it (from the top).
 */
export async function writePropertyValueOnce(
  db: Db,
  table: string,
  byId: string,
  tenantId: string,
  id: string,
  path: string,
  value: { text: string; valueTypes: string[] },
  ifMatchTags: string[] | null,
  notify: { payload: string } | undefined,
): Promise<{ seq: string; version: number; json: JsonObject; above: string[] } | null> {
  // `$1`, `$2`: the tenant and the id (`byId`); `$3`, `$4`: the path and the number of elements above it (`atPath`).
  // The elements above are counted by `ABOVE_STEPS` and each looked up as `readSubtree` does: a plan for any values
  // estimates them as a plan for the values does, so the named statement keeps one plan (planned at every run, it
  // took about 1.0 ms a run against 0.6 ms with its one plan).
  const params: unknown[] = [tenantId, id, path, stepsAbove(path)];
  const bind = (param: unknown) => `$${params.push(param)}`;
  const text = `${bind(value.text)}::text`;
  const admitted = ifMatchTags ? ` AND ('"' || lk.seq::text || '-' || lk.version::text || '"') = ANY (${bind(ifMatchTags)}::text[])` : '';
  const notified = notify ? `, ${announceSql(bind(notify.payload))} AS notified` : '';
  const rows = (await db.query(
    `WITH snap AS MATERIALIZED (SELECT version FROM ${table} WHERE ${byId}),
    lk AS MATERIALIZED (SELECT seq, version, element_writes_from AS wf, element_writes_to AS wt FROM ${table} WHERE ${byId} FOR UPDATE),
    target AS MATERIALIZED (${atPath('(SELECT seq FROM lk)')}),
    at_row AS MATERIALIZED (SELECT e.ord, e.json FROM submodel_elements e
      WHERE e.tenant_id = $1 AND e.submodel_seq = (SELECT seq FROM lk) AND e.ord = (SELECT ord FROM target)
        AND e.path = $3 AND e.model_type = 'Property' AND e.json->>'valueType' = ANY (${bind(value.valueTypes)}::text[]) FOR UPDATE),
    ok AS MATERIALIZED (SELECT lk.seq FROM lk, snap
      WHERE (snap.version = lk.version OR (lk.wt = lk.version AND lk.wf <= snap.version))${admitted} AND EXISTS (SELECT 1 FROM at_row)),
    new_row AS MATERIALIZED (SELECT a.ord, a.json::text AS old, ${WITH_VALUE('a.json', text)} AS j FROM at_row a, ok),
    changed AS (UPDATE submodel_elements e SET json = n.j::json, v_text = ${text}
      FROM new_row n WHERE e.tenant_id = $1 AND e.submodel_seq = (SELECT seq FROM ok) AND e.ord = n.ord RETURNING 1),
    head AS (UPDATE ${table} s SET version = s.version + 1, updated_at = now(),
        doc_bytes = s.doc_bytes + (SELECT octet_length(n.j) - octet_length(n.old) FROM new_row n),
        element_writes_from = CASE WHEN s.element_writes_to = s.version THEN s.element_writes_from ELSE s.version END,
        element_writes_to = s.version + 1
      FROM ok WHERE s.tenant_id = $1 AND s.seq = ok.seq RETURNING s.seq, s.version)
    SELECT head.seq, head.version, n.j AS json,
        ARRAY(SELECT a.model_type FROM (${ABOVE_STEPS('n.ord')}) AS s CROSS JOIN LATERAL (
            SELECT x.model_type FROM submodel_elements x
              WHERE x.tenant_id = $1 AND x.submodel_seq = head.seq AND x.ord >= n.ord[1:s.k] AND x.ord <= n.ord[1:s.k] ORDER BY x.ord LIMIT 1
          ) AS a ORDER BY s.k) AS above${notified}
      FROM head, new_row n`,
    params,
  )) as { seq: string; version: number; json: string; above: string[] }[];
  if (!rows.length) return null;
  const [row] = rows;
  return { seq: String(row.seq), version: Number(row.version), json: JSON.parse(row.json) as JsonObject, above: row.above };
}
