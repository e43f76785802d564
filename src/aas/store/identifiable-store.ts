import { setImmediate as nextTurn } from 'node:timers/promises';
import { DataSource, EntityManager, EntityTarget, ObjectLiteral } from 'typeorm';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import { checkLimit, cursorList, decodeCursor, encodeCursor } from '../../common/cursor';
import { etagOf, ifMatchAdmits, ifMatchTags } from '../../common/etag';
import { compactJsonbText } from '../../common/jsonb-text';
import { stringifyJsonInSlices } from '../../common/json-slices';
import { onCitus } from '../../db/citus';
import { readRows, rethrowClientError, writeRows } from '../../db/read';
import { rowsWritten } from '../../db/statistics';
import { readBudget, responseTooLarge } from '../../db/read-budget';
import { MAX_ID_LENGTH } from '../../graphql/limits';
import type { EventEntityType } from '../../events/change-event';
import { changeRecordCte, outboxWritten, recordChange } from '../../events/outbox';
import { badRequest, conflict, notFound, preconditionFailed } from '../../graphql/errors';
import { TenantEntity } from '../../management/tenants/tenant.entity';
import { JsonObject } from '../model/parse';
import { type AasVersion, mapDownToV30, mergeV30Write } from '../versions';
import { ElementRow, RowSignatures, assemble, hasMoreElementsThan, signaturesOf, splitSubmodel, splitSubmodelInTurns } from '../submodels/element-rows';
import { ElementEdit, LockNeeded, Step, ordOf, pathText, readElementById } from './element-edit';
import { CacheSync, announceSql } from './cache-sync';
import { Db, elementRowsCtes, elementsTextSql, lockSubmodel, readRowsOf, replaceRows, writePropertyValueOnce } from './element-rows-sql';
import { MANY_ROWS_BATCH, RowOf, deleteRowsOfMany, insertRowsOfMany } from './element-rows-sql';
import { CachedRead, ReadCache } from './read-cache';

export interface Page<T> {
  items: T[];
  cursor?: string;
}

type Change = { kind: 'created' | 'updated'; doc: JsonObject } | { kind: 'deleted' };

export interface WriteOptions {
  /** The request's `If-Match` header: the write happens only when it admits the current entity tag. */
  ifMatch?: string | null;
  /** Whether the change fires a change event (element-level changes do not). Default true. */
  event?: boolean;
  /** Join this transaction instead of opening one. */
  manager?: EntityManager;
  /**
   * The version of the metamodel the write comes through (default '3.0'). A V3.0 replacement of a document that
   * needs V3.1 is made from the stored one as V3.0 sees it (`mapDownToV30`) and merged onto it (`mergeV30Write`):
   * the V3.1 parts it did not touch stay.
   */
  aasVersion?: AasVersion;
}

/** One element of a stored submodel, read from its rows. */
export interface StoredElement {
  /** The entity tag of the document it is in. */
  etag: string;
  element: JsonObject;
  /** The modelType of each step. */
  types: string[];
}

export type { Step } from './element-edit';

/** A filter condition: SQL with one `?` for its parameter. */
export type Condition = [sql: string, value: unknown];

export interface IdentifiableTable<E extends ObjectLiteral> {
  table: string;
  entity: EntityTarget<E>;
  /** The AAS model type, for change events and messages (`Submodel`). */
  modelType: EventEntityType;
  /** The entity columns pulled out of a document, beside the document itself. */
  columns(doc: JsonObject): QueryDeepPartialEntity<E>;
  /**
   * Submodels: the elements live in rows of their own (`submodel_elements`, see `submodels/element-rows.ts`);
   * `doc` holds the rest and `doc_bytes` the size of the whole document, both kept here.
   */
  elementRows?: boolean;
}

/** Where a document a read or write returned came from: its tenant, entity tag and row. */
export interface Origin {
  tenant: TenantEntity;
  etag: string;
  /** The row's insertion number, the key `page` sorts by: for cursors of lists that page within documents. */
  seq: number;
  /**
   * What was mapped down for a V3.0 reader of a document that needs V3.1 (`mapDownToV30`), so the answer can say
   * so; absent when nothing was.
   */
  mapped?: string[];
  /** The document as stored, where what a V3.0 reader got is mapped down from it. */
  stored?: JsonObject;
  /**
   * Read by a V3.0 reader, the document needs V3.1 (its row says so), whether or not anything was mapped: it may hold
   * only what V3.1's relaxed constraints allow (a hyphen in an idShort), served as it is and marked all the same.
   */
  needs31?: boolean;
  /**
   * The metamodel version the stored document needs, as its row (`aas_version`) or the write that stored it says:
   * a reader's view of a document that needs only V3.0 need not walk it to find out.
   */
  needs?: AasVersion;
}

/** A side table, so documents stay plain AAS JSON: resolvers of related fields find the tenant here. */
const origins = new WeakMap<object, Origin>();

function tagged(doc: JsonObject, tenant: TenantEntity, seq: string, version: number, needs?: unknown): JsonObject {
  origins.set(doc, { tenant, etag: etagOf(seq, version), seq: Number(seq), ...(needs === '3.0' || needs === '3.1' ? { needs } : {}) });
  return doc;
}

/**
 * `doc` as a reader of metamodel `view` sees it: as stored, but mapped down for a V3.0 reader where the row says
 * the document needs V3.1 (`needs`, its `aas_version`), then tagged as `tagged` does, with what was mapped.
 */
function viewed(doc: JsonObject, needs: string | undefined, view: AasVersion, tenant: TenantEntity, seq: string, version: number): JsonObject {
  if (view === '3.1' || needs !== '3.1') return tagged(doc, tenant, seq, version, needs);
  const { json, mapped } = mapDownToV30(doc);
  tagged(json, tenant, seq, version, needs);
  Object.assign(origins.get(json)!, mapped.length ? { mapped, stored: doc, needs31: true } : { needs31: true });
  return json;
}

/** The text of a document stored as `text`, as a V3.0 reader sees it (its row needs V3.1: `mapDownToV30`). */
function textForV30(text: string): string {
  return JSON.stringify(mapDownToV30(JSON.parse(text) as JsonObject).json);
}

/** SQL: `usable` (a condition over the row), for a reader of `view`: V3.0 readers take the stored text only where it needs nothing of V3.1. */
const usableFor = (usable: string, view: AasVersion) => (view === '3.1' ? usable : usable === 'true' ? `aas_version = '3.0'` : `(${usable}) AND aas_version = '3.0'`);

export function originOf(doc: object): Origin | undefined {
  return origins.get(doc);
}

const PG_UNIQUE_VIOLATION = '23505';

/** Turns of a one-statement replacement that found another write first, before it takes the row lock (`replace`). */
const RETRIES = 4;

/** The top-level field of a submodel that element rows hold. */
const ELEMENTS = 'submodelElements';

/** Documents per batch of `putMany` (an import): a few hundred shells make a statement of a few hundred KB. */
const PUT_MANY_DOCS = 500;

/** Element rows a write's split of a submodel makes between turns of the event loop (some milliseconds of work). */
const SPLIT_ROWS_PER_TURN = 10_000;

/** The size of a whole document as the read budget counts it. */
const bytesOf = (doc: JsonObject) => Buffer.byteLength(JSON.stringify(doc));

/** `doc` when `bytes` (SQL) stays within the budget `remaining` (a parameter), else null: what is over is never loaded. */
function docWithin(bytes: string, remaining: string, doc = 'doc'): string {
  return `CASE WHEN ${bytes} <= ${remaining}::bigint THEN ${doc} END`;
}

/**
 * The document without the top-level fields `omit` names (fixed names from the code, never a client's), which
 * then never leave PostgreSQL. The read budget still counts the whole document: an upper bound.
 */
function docWithout(omit: readonly string[] | undefined): string {
  if (!omit?.length) return 'doc';
  if (!omit.every((key) => /^[A-Za-z]+$/.test(key))) throw new Error(`bad field names to omit: ${omit.join(', ')}`);
  return `(doc - '{${omit.join(',')}}'::text[])`;
}

/**
 * A read of stored documents under the request's read budget: `read` gets the bytes still allowed, its rows
 * name their document's size (`bytes`) and carry a null `doc` where the budget ran out, which fails the request.
 * `counts` says which rows' documents are part of the answer.
 */
async function budgeted<R extends { bytes: string | number | null; doc?: unknown }>(
  read: (remaining: number) => Promise<R[]>,
  counts: (row: R, index: number) => boolean = () => true,
): Promise<R[]> {
  const budget = readBudget();
  return budget.run(async (remaining) => {
    const rows = await read(remaining);
    rows.forEach((row, i) => {
      if (!counts(row, i)) return;
      if ('doc' in row && row.doc === null) throw responseTooLarge(budget.limit);
      budget.charge(Number(row.bytes ?? 0));
    });
    return rows;
  });
}

/** An AAS Identifier is at most 2,048 characters (V3.1; 2,000 in V3.0): a longer one can name nothing here, and is not looked up. */
function checkId(modelType: string, id: string): void {
  if (id.length > MAX_ID_LENGTH) throw badRequest(`A ${modelType} id is at most ${MAX_ID_LENGTH} characters long; this one has ${id.length}.`);
}

/**
 * SQL: whether the tenant (`$1`) has push targets, asked in the statement that locks or inserts the row: a change
 * records an outbox row only where events are on or a push target may take it (`recordChange`).
 */
const HAS_PUSH_TARGETS = 'EXISTS (SELECT 1 FROM push_targets WHERE tenant_id = $1)';

/** One identifiable by id: the MD5 finds it in the unique index, the full comparison makes it exact. */
const BY_ID = 'tenant_id = $1 AND md5(id) = md5($2) AND id = $2';

/** A page size, checked: 400 outside 1..250. */
export function assertLimit(limit: number): void {
  const problem = checkLimit(limit);
  if (problem) throw badRequest(problem);
}

/** The first `limit` items, and a cursor naming the last one when more follow. */
export function pageOf<T>(list: string, rows: T[], limit: number, keyOf: (row: T) => string | number): Page<T> {
  if (rows.length <= limit) return { items: rows };
  const items = rows.slice(0, limit);
  return { items, cursor: encodeCursor(list, keyOf(items[items.length - 1])) };
}

/** A keyset page's statement parts: `WHERE ${where} ORDER BY seq LIMIT ${limitParam}` with `params`. */
export interface KeysetQuery {
  where: string;
  params: unknown[];
  limitParam: string;
  /** The list its cursors are bound to (`pageOf`): the list's name, its scope and its conditions. */
  list: string;
}

/**
 * The WHERE clause and parameters of a page of rows in `seq` order (the list `list`'s cursors): `scope` (which
 * rows the list holds), the cursor's position, the filter `conditions`, and the limit (one row more than the page,
 * which tells whether another follows: `pageOf`). 400 for a bad limit or a cursor of another list: the cursor is
 * bound to `list`, `scope` (the tenant) and `conditions` (the filter), so it continues only the list that issued it.
 * `extra` binds it to what else selects the rows beside the conditions (a query's text).
 */
export function keysetQuery(list: string, scope: Condition[], conditions: Condition[], limit: number, cursor: string | null | undefined, ...extra: unknown[]): KeysetQuery {
  assertLimit(limit);
  const bound = cursorList(list, scope, conditions, ...extra);
  const params: unknown[] = [];
  const bind = ([sql, value]: Condition) => sql.replace('?', `$${params.push(value)}`);
  const where = scope.map(bind);
  if (cursor !== undefined && cursor !== null) {
    const after = decodeCursor(bound, cursor);
    if (typeof after !== 'number') throw badRequest('The cursor is not one this server issued for this list.');
    where.push(bind(['seq > ?', after]));
  }
  where.push(...conditions.map(bind));
  const limitParam = `$${params.push(limit + 1)}`;
  return { where: where.join(' AND '), params, limitParam, list: bound };
}

/**
 * Where a page of an ordered list resumes: after the item the cursor names (`index:key`), found again even when
 * items before it were removed meanwhile; at its old position when it was removed itself.
 */
function resumeAfter(list: string, keys: string[], cursor: string | null | undefined): number {
  if (cursor === undefined || cursor === null) return 0;
  const key = decodeCursor(list, cursor);
  const match = typeof key === 'string' ? /^(\d+):(.*)$/s.exec(key) : null;
  if (!match) throw badRequest('The cursor is not one this server issued for this list.');
  const found = keys.indexOf(match[2]);
  return found >= 0 ? found + 1 : Number(match[1]);
}

/** One page of an ordered in-document list, keyed for `resumeAfter`. */
export function pageOfList<T>(list: string, items: T[], keyOf: (item: T) => string, limit: number, cursor?: string | null): Page<T> {
  assertLimit(limit);
  const start = resumeAfter(list, items.map(keyOf), cursor);
  const rows = items.slice(start, start + limit + 1).map((item, i) => ({ item, index: start + i }));
  const page = pageOf(list, rows, limit, (row) => `${row.index}:${keyOf(row.item)}`);
  return { items: page.items.map((row) => row.item), cursor: page.cursor };
}

/** A document's text as stored, for a hot read; or, where it is absent, the text of the 404 its route answers. */
export type StoredText = { text: string; etag: string } | { absent: string };

/**
 * The stored identifiables of one kind (shells, submodels, concept descriptions): AAS JSON documents with
 * their query columns (a submodel's elements as rows of their own), a version for entity tags, keyset paging,
 * and the write path, which checks `If-Match`, applies the change and records the change event: in one statement
 * where it can (`create`, `replace`, `delete`: `writeOnce`), else in one transaction under the row's lock (`write`;
 * for a submodel's elements, `editElements`, which reads and writes only the rows a change touches).
 */
export class IdentifiableStore<E extends ObjectLiteral> {
  /** One-statement reads on the pool, for element rows read outside a transaction (named statements: few texts). */
  private readonly reader: Db;

  /**
   * `sync`: the read cache of `findText` answers and its invalidation. Every write of this kind of identifiable
   * goes through `write` or `editElements`, which mark it in the cache (DESIGN: one module owns each identifiable's
   * writes); without `sync`, nothing is cached.
   */
  constructor(
    private readonly dataSource: DataSource,
    private readonly spec: IdentifiableTable<E>,
    private readonly sync?: CacheSync,
  ) {
    this.reader = { query: (sql, params) => readRows(dataSource, sql, params, true) };
  }

  /** One-statement writes of the identifiable `key` in autocommit, for element writes (`writeElementsOnce`; named: few texts). */
  private writer(key: string): Db {
    return { query: (sql, params) => writeRows(this.dataSource, sql, params, true, key) };
  }

  /**
   * A write of `key` in the transaction of `manager`, for the read cache (CacheSync): marked pending here. Once the
   * write has locked the row, or created it (for the cached list pages, which would miss it), `announce` tells the
   * other replicas, by a notification that PostgreSQL delivers only when the transaction commits. It is a statement of its own, naming no table: on Citus
   * the coordinator runs it, where the replicas listen, never a worker in the middle of a two-phase commit, which
   * refuses a transaction that notified.
   */
  private writing(manager: EntityManager, key: string): { announce(): Promise<void> } {
    this.sync?.writing(manager, key);
    const payload = this.sync?.notification(key);
    return {
      announce: async () => {
        if (payload !== undefined) await manager.query(`SELECT ${announceSql('$1', await onCitus(this.dataSource, manager))}`, [payload]);
      },
    };
  }

  /**
   * SQL: a submodel's elements as the text of its `submodelElements` array without the brackets (`elementsTextSql`),
   * as a column of the statement that reads its row, so a document and its elements are one round trip; null where
   * `within` (SQL) is false (the read budget ran out) or for identifiables stored whole.
   */
  private elementsColumn(within: string, seq: string): string {
    if (!this.spec.elementRows) return '';
    return `, CASE WHEN ${within} THEN ${elementsTextSql('$1', seq)} END AS elements`;
  }

  /** Puts the elements read by `elementsColumn` into their document (submodels); others as they are. */
  private withElements<T extends { doc: JsonObject | null; elements?: string | null }>(row: T): JsonObject {
    const doc = row.doc!;
    if (row.elements != null) doc[ELEMENTS] = JSON.parse(`[${row.elements}]`) as JsonObject[];
    return doc;
  }

  /** The document, tagged with its entity tag, or null; as a reader of metamodel `view` sees it (`viewed`). */
  async find(tenant: TenantEntity, id: string, view: AasVersion = '3.0'): Promise<JsonObject | null> {
    checkId(this.spec.modelType, id);
    const { table } = this.spec;
    // The head and its elements in one statement: one round trip.
    const rows = await budgeted((remaining) =>
      readRows<{ seq: string; version: number; needs: string; bytes: string; doc: JsonObject | null; elements?: string | null }>(
        this.dataSource,
        `SELECT seq, version, aas_version AS needs, doc_bytes AS bytes, ${docWithin('doc_bytes', '$3')} AS doc${this.elementsColumn('doc_bytes <= $3::bigint', `${table}.seq`)}
          FROM ${table} WHERE ${BY_ID}`,
        [tenant.id, id, remaining],
        true,
      ),
    );
    if (!rows.length) return null;
    return viewed(this.withElements(rows[0]), rows[0].needs, view, tenant, rows[0].seq, rows[0].version);
  }

  /**
   * The document as JSON text, straight from PostgreSQL, without parsing it here; `text` is null when the row
   * fails `usable` (SQL over the row's columns), e.g. because the document needs shaping first. Null when absent.
   * For a V3.0 reader (`view`) a document that needs V3.1 is such a row: it is read with `find`, which maps it down.
   */
  async findText(tenant: TenantEntity, id: string, usable = 'true', view: AasVersion = '3.0'): Promise<{ etag: string; text: string | null } | null> {
    checkId(this.spec.modelType, id);
    usable = usableFor(usable, view);
    const cache = this.sync?.cache;
    const key = cache?.on ? ReadCache.key(this.spec.table, tenant.id, id) : undefined;
    const hit = key ? await this.charged(cache!.get(key, usable)) : undefined;
    if (hit) return hit;
    const token = cache?.token() ?? 0;
    const { table } = this.spec;
    // A submodel's elements in the same statement as its head: one round trip.
    const elements = this.spec.elementRows
      ? `, CASE WHEN ${usable} THEN ${docWithin('doc_bytes', '$3', elementsTextSql('$1', `${table}.seq`))} END AS elements`
      : '';
    const rows = await budgeted((remaining) =>
      readRows<{ seq: string; version: number; bytes: string; usable: boolean; doc: string | null; elements?: string | null }>(
        this.dataSource,
        `SELECT seq, version, doc_bytes AS bytes, ${usable} AS usable, CASE WHEN ${usable} THEN ${docWithin('doc_bytes', '$3', 'doc::text')} END AS doc${elements}
          FROM ${table} WHERE ${BY_ID}`,
        [tenant.id, id, remaining],
        true,
      ),
      // A document that needs shaping is read again in full (`find`), which charges it then.
      (row) => row.usable,
    );
    if (!rows.length) return null;
    let text = rows[0].doc === null ? null : compactJsonbText(rows[0].doc);
    const elementsText = rows[0].elements;
    if (text !== null && elementsText != null) text = `${text.slice(0, text.lastIndexOf('}'))},"${ELEMENTS}":[${elementsText}]}`;
    const etag = etagOf(rows[0].seq, rows[0].version);
    if (key) cache!.fill(key, usable, token, { etag, text, docBytes: Number(rows[0].bytes) });
    return { etag, text };
  }

  /**
   * The text `findText` answers (from the read cache, else from the database in one statement, then cached) where
   * the stored text serves as it is. Null where the document is absent; undefined where it needs shaping first (its
   * route answers those). For the façade's hot reads (`rest-facade/hot-reads.ts`).
   */
  async storedText(tenant: TenantEntity, id: string, usable = 'true', view: AasVersion = '3.0'): Promise<{ etag: string; text: string } | null | undefined> {
    const stored = await this.findText(tenant, id, usable, view);
    if (!stored) return null;
    return stored.text === null ? undefined : { etag: stored.etag, text: stored.text };
  }

  /**
   * The cache of whole list answers of this kind in `tenant` (the façade's hot reads of `GET /shells` and the like),
   * keyed by what selects the page; undefined with the read cache off. A page goes whenever any identifiable of
   * this kind in the tenant is written, so it is exactly as stale as a GET by id (README, "Read cache").
   */
  listAnswers(tenant: TenantEntity): ListAnswers | undefined {
    const cache = this.sync?.cache;
    if (!cache?.on) return undefined;
    const scope = ReadCache.scope(this.spec.table, tenant.id);
    return {
      get: async (query) => {
        const hit = cache.getPage(scope, query);
        return hit?.text == null ? undefined : ((await this.charged(hit))?.text ?? undefined);
      },
      token: () => cache.token(),
      fill: (query, token, text) => cache.fillPage(scope, query, token, { etag: '', text, docBytes: text.length }),
    };
  }

  /** A cached answer, charged to the read budget as the database read would be. */
  private async charged(hit: CachedRead | undefined): Promise<{ etag: string; text: string | null } | undefined> {
    if (!hit) return undefined;
    // The same rule at once when no read of the request is under way: no promise chain for what is in memory.
    const budget = readBudget();
    if (hit.text !== null && budget.idle) {
      budget.chargeWhole(hit.docBytes);
      return { etag: hit.etag, text: hit.text };
    }
    await budgeted(async (remaining) => [{ bytes: hit.docBytes, doc: hit.docBytes > remaining ? null : hit.text }], () => hit.text !== null);
    return { etag: hit.etag, text: hit.text };
  }

  /**
   * Several documents by id in one statement, for DataLoaders; absent ids are absent from the map. `omit`: top-level
   * fields left in the database (a submodel's elements, where only its head is wanted).
   */
  async findMany(tenant: TenantEntity, ids: readonly string[], omit?: readonly string[], view: AasVersion = '3.0'): Promise<Map<string, JsonObject>> {
    for (const id of ids) checkId(this.spec.modelType, id);
    const { table } = this.spec;
    const within = 'sum(doc_bytes) OVER (ORDER BY seq) <= $3::bigint';
    // The documents with their elements in one statement.
    const elements = omit?.includes(ELEMENTS) ? '' : this.elementsColumn(within, `${table}.seq`);
    const rows = await budgeted((remaining) =>
      readRows<{ id: string; seq: string; version: number; needs: string; bytes: string; doc: JsonObject | null; elements?: string | null }>(
        this.dataSource,
        `SELECT id, seq, version, aas_version AS needs, doc_bytes AS bytes, ${docWithin('sum(doc_bytes) OVER (ORDER BY seq)', '$3', docWithout(omit))} AS doc${elements} FROM ${table}
          WHERE tenant_id = $1 AND md5(id) = ANY (SELECT md5(x) FROM unnest($2::text[]) AS x) AND id = ANY ($2::text[])`,
        [tenant.id, ids, remaining],
        true,
      ),
    );
    return new Map(rows.map((row) => [row.id, viewed(this.withElements(row), row.needs, view, tenant, row.seq, row.version)]));
  }

  /** A page in insertion order; one index range scan, as cheap on page 1,000 as on page 1. `omit` as for `findMany`. */
  async page(tenant: TenantEntity, conditions: Condition[], limit: number, cursor?: string | null, omit?: readonly string[], view: AasVersion = '3.0'): Promise<Page<JsonObject>> {
    const page = await this.pageRows<JsonObject>(tenant, conditions, limit, cursor, docWithout(omit), !omit?.includes(ELEMENTS));
    return { items: page.items.map((row) => viewed(this.withElements(row), row.needs, view, tenant, row.seq, row.version)), cursor: page.cursor };
  }

  /**
   * The documents of `page` as JSON text, as PostgreSQL renders them, never parsed here: a list answer is their
   * texts joined. Only for identifiables stored whole (not submodels, whose elements are rows of their own).
   *
   * With the read cache on, the page's statement reads no document: it reads each row's id, version and size, takes
   * the text of every row whose cached entity tag is the row's own (so never an outdated one, whatever the cache's
   * staleness), and reads the others' texts in one statement by primary key, filling the cache with them.
   */
  async pageText(tenant: TenantEntity, conditions: Condition[], limit: number, cursor?: string | null, view: AasVersion = '3.0'): Promise<Page<string>> {
    if (this.spec.elementRows) throw new Error(`${this.spec.modelType} documents are not stored whole`);
    const cache = this.sync?.cache;
    // A V3.0 reader reads a document that needs V3.1 mapped down (the cache holds texts as stored).
    const seen = (text: string, needs: string) => (view === '3.0' && needs === '3.1' ? textForV30(text) : text);
    if (!cache?.on) {
      const page = await this.pageRows<string>(tenant, conditions, limit, cursor, 'doc::text');
      return { items: page.items.map((row) => seen(compactJsonbText(row.doc!), row.needs)), cursor: page.cursor };
    }
    const token = cache.token();
    const { where, params, limitParam, list } = this.pageQuery(tenant, conditions, limit, cursor);
    const rows = await readRows<{ seq: string; id: string; version: number; needs: string; bytes: string }>(
      this.dataSource,
      `SELECT seq, id, version, aas_version AS needs, doc_bytes AS bytes FROM ${this.spec.table} WHERE ${where} ORDER BY seq LIMIT ${limitParam}`,
      params,
    );
    const page = pageOf(list, rows, limit, (row) => Number(row.seq));
    // Charged as the one-statement page is: the documents' sizes in order, failing where they pass the budget.
    let sum = 0;
    await budgeted(async (remaining) => page.items.map((row) => ({ bytes: row.bytes, doc: (sum += Number(row.bytes)) > remaining ? null : '' })));
    const keys = new Map(page.items.map((row) => [row.seq, ReadCache.key(this.spec.table, tenant.id, row.id)]));
    const texts = new Map<string, string>();
    const missing: string[] = [];
    for (const row of page.items) {
      const hit = cache.get(keys.get(row.seq)!, 'true');
      if (hit?.text != null && hit.etag === etagOf(row.seq, row.version)) texts.set(row.seq, hit.text);
      else missing.push(row.seq);
    }
    if (missing.length) {
      const read = await readRows<{ seq: string; version: number; bytes: string; doc: string }>(
        this.dataSource,
        `SELECT seq, version, doc_bytes AS bytes, doc::text AS doc FROM ${this.spec.table} WHERE tenant_id = $1 AND seq = ANY ($2::bigint[])`,
        [tenant.id, missing],
      );
      for (const row of read) {
        const text = compactJsonbText(row.doc);
        texts.set(row.seq, text);
        cache.fill(keys.get(row.seq)!, 'true', token, { etag: etagOf(row.seq, row.version), text, docBytes: Number(row.bytes) });
      }
    }
    // A document deleted between the two statements is not in the answer.
    return { items: page.items.flatMap((row) => { const text = texts.get(row.seq); return text === undefined ? [] : [seen(text, row.needs)]; }), cursor: page.cursor };
  }

  /**
   * The rows of a page, `doc` being `docExpression` (SQL over the row), within the read budget; `elements`: with the
   * elements of each document of the page (submodels) in the same statement (not of the row after the page).
   */
  private async pageRows<D>(tenant: TenantEntity, conditions: Condition[], limit: number, cursor: string | null | undefined, docExpression: string, elements = false) {
    const { where, params, limitParam, list } = this.pageQuery(tenant, conditions, limit, cursor);
    const remainingParam = `$${params.length + 1}`;
    const { table } = this.spec;
    const elementsColumn = elements
      ? this.elementsColumn(`sum(doc_bytes) OVER (ORDER BY seq) <= ${remainingParam}::bigint AND row_number() OVER (ORDER BY seq) < ${limitParam}`, `${table}.seq`)
      : '';
    const rows = await budgeted((remaining) =>
      readRows<{ seq: string; version: number; needs: string; bytes: string; doc: D | null; elements?: string | null }>(
        this.dataSource,
        `SELECT seq, version, aas_version AS needs, doc_bytes AS bytes, ${docWithin('sum(doc_bytes) OVER (ORDER BY seq)', remainingParam, docExpression)} AS doc${elementsColumn}
          FROM ${table} WHERE ${where} ORDER BY seq LIMIT ${limitParam}`,
        [...params, remaining],
        true,
      ),
      // The row after the page only tells whether there is a next page: its document is not part of the answer.
      (_row, i) => i < limit,
    );
    return pageOf(list, rows, limit, (row) => Number(row.seq));
  }

  /** The ids of a page, as `page` selects it (same cursors): no document leaves PostgreSQL. */
  async pageIds(tenant: TenantEntity, conditions: Condition[], limit: number, cursor?: string | null): Promise<Page<string>> {
    const { where, params, limitParam, list } = this.pageQuery(tenant, conditions, limit, cursor);
    const rows = await readRows<{ seq: string; id: string }>(
      this.dataSource,
      `SELECT seq, id FROM ${this.spec.table} WHERE ${where} ORDER BY seq LIMIT ${limitParam}`,
      params,
    );
    const page = pageOf(list, rows, limit, (row) => Number(row.seq));
    return { items: page.items.map((row) => row.id), cursor: page.cursor };
  }

  /** The WHERE clause and parameters of a page: the tenant, the cursor's position, the conditions, the limit. */
  private pageQuery(tenant: TenantEntity, conditions: Condition[], limit: number, cursor: string | null | undefined): KeysetQuery {
    return keysetQuery(this.spec.table, [['tenant_id = ?', tenant.id]], conditions, limit, cursor);
  }

  /**
   * One element of a submodel, read from its rows: the element's row and its descendants', whatever the
   * submodel's size. Null when the document does not exist; `found` null when it has nothing at `steps`.
   */
  async findElement(tenant: TenantEntity, id: string, steps: Step[]): Promise<{ etag: string; found: StoredElement | null } | null> {
    checkId(this.spec.modelType, id);
    // The submodel's row and the element's rows in one statement.
    const [read] = await budgeted(async () => {
      const read = await readElementById(this.reader, this.spec.table, BY_ID, tenant.id, id, steps);
      return [{ bytes: read?.found?.bytes ?? 0, read }];
    });
    if (!read.read) return null;
    const { seq, version, found } = read.read;
    const etag = etagOf(seq, version);
    return { etag, found: found ? { etag, element: found.element, types: found.types } : null };
  }

  /**
   * The write path of elements: `edit` reads and writes the rows its change touches through an `ElementEdit` (never
   * the whole submodel), and the submodel gets a new version (entity tag), its size and Blob flag updated, its cached
   * reads invalidated on commit. Element-level: no change event (platform spec, Events 4). `at`: the element the
   * edit looks at first (its own row, or with `descendants` its subtree; with `children`, where its next child goes
   * and whether a child has that idShort), read in the first statement.
   *
   * Where writes go as one statement (`oneStatement`): the rows are read without a lock (one statement), the edit is
   * made, and written in one statement that takes the submodel's row lock and writes only if what the edit depends
   * on is still as read (`writeElementsOnce`): two statements in autocommit, the lock held for the second only. When
   * another write changed it first, the edit is made again from a new read; after `RETRIES` such turns, or for an
   * edit that must write before it reads (deleting a list item), it is made under the lock (`editElementsLocked`).
   *
   * `needs31`: whether the edit made (its result) needs metamodel V3.1 (an element written through V3.1 with what
   * V3.0 lacks): the document's recorded version (`aas_version`) becomes '3.1' in the statement that writes the edit
   * (the submodel's row is written there anyway), so that no V3.0 reader gets the new content unmapped and no other
   * write lands between the two. It is never lowered by an element write (a document recorded '3.1' that no longer
   * needs it is read correctly).
   */
  async editElements<T>(
    tenant: TenantEntity,
    id: string,
    edit: (elements: ElementEdit) => Promise<T>,
    options: WriteOptions = {},
    at?: { steps: Step[]; descendants: boolean; children?: { idShort?: string } },
    needs31?: (result: T) => boolean,
  ): Promise<{ result: T; etag: string }> {
    const { table, modelType } = this.spec;
    if (!this.spec.elementRows) throw new Error(`${modelType} documents have no element rows`);
    checkId(modelType, id);
    if (!(await this.oneStatement(options))) return this.editElementsLocked(tenant, id, edit, options, at, needs31);
    const key = ReadCache.key(table, tenant.id, id);
    const payload = this.sync?.notification(key);
    const notify = payload === undefined ? undefined : { payload };
    const tags = options.ifMatch != null ? ifMatchTags(options.ifMatch) : null;
    const where = at && { path: pathText(at.steps), descendants: at.descendants, children: at.children };
    try {
      for (let turn = 0; turn < RETRIES; turn++) {
        const read = await lockSubmodel(this.reader, table, BY_ID, tenant.id, id, where, undefined, false);
        if (!read) throw notFound(`${modelType} '${id}' not found.`);
        this.checkIfMatch(id, options, read.seq, read.version);
        const elements = new ElementEdit(this.reader, tenant.id, read.seq, read.doc, read.rows, { version: read.version, top: read.top });
        let result: T;
        try {
          result = await edit(elements);
        } catch (err) {
          if (err instanceof LockNeeded) break;
          throw err;
        }
        const send = () => elements.finishOnce(this.writer(key), tags, notify, needs31?.(result) ?? false);
        const done = await (this.sync ? this.sync.writingOnce(key, send) : send());
        // Its row gone (deleted, perhaps made anew): read again.
        if (!done) continue;
        if (!done.admitted) this.checkIfMatch(id, options, read.seq, done.version);
        if (done.written !== null) {
          if (done.added) rowsWritten(this.dataSource.manager, 'submodel_elements', done.added);
          return { result, etag: etagOf(read.seq, done.written) };
        }
      }
    } catch (err) {
      rethrowClientError(err);
    }
    return this.editElementsLocked(tenant, id, edit, options, at, needs31);
  }

  /**
   * PATCH `$value` of a Property at `steps` as one statement that reads nothing first (`writePropertyValueOnce`): the
   * common value write, where the valueType is all that judges the value. Null where that statement wrote nothing
   * (no such Property there, a valueType that refuses the value, `If-Match` not met, a write of another kind in
   * between, or inside a transaction or on Citus): the caller then makes the write with `editElements`, which
   * finds what refuses it or makes it. The document's recorded version stays: a value the valueType takes changes
   * nothing a version needs.
   */
  async writePropertyValue(
    tenant: TenantEntity,
    id: string,
    steps: Step[],
    value: { text: string; valueTypes: string[] },
    options: WriteOptions = {},
  ): Promise<{ json: JsonObject; above: string[]; etag: string } | null> {
    const { table, modelType } = this.spec;
    if (!this.spec.elementRows || !steps.length || !value.valueTypes.length) return null;
    checkId(modelType, id);
    if (!(await this.oneStatement(options))) return null;
    const key = ReadCache.key(table, tenant.id, id);
    const payload = this.sync?.notification(key);
    const notify = payload === undefined ? undefined : { payload };
    const tags = options.ifMatch != null ? ifMatchTags(options.ifMatch) : null;
    const send = () => writePropertyValueOnce(this.writer(key), table, BY_ID, tenant.id, id, pathText(steps), value, tags, notify);
    try {
      const done = await (this.sync ? this.sync.writingOnce(key, send) : send());
      return done && { json: done.json, above: done.above, etag: etagOf(done.seq, done.version) };
    } catch (err) {
      rethrowClientError(err);
    }
  }

  /**
   * `editElements` under the submodel's row lock, in one transaction: the lock and the rows the edit looks at first
   * in one statement (`lockSubmodel`), then what else it reads and writes, then COMMIT. `manager`: inside that
   * transaction (a change that goes with a stored file). On Citus, where the notification is a statement of its own.
   */
  private async editElementsLocked<T>(
    tenant: TenantEntity,
    id: string,
    edit: (elements: ElementEdit) => Promise<T>,
    options: WriteOptions,
    at?: { steps: Step[]; descendants: boolean; children?: { idShort?: string } },
    needs31?: (result: T) => boolean,
  ): Promise<{ result: T; etag: string }> {
    const { table, modelType } = this.spec;
    // The notification goes with the lock, except on Citus (`writing`).
    const citus = await onCitus(this.dataSource, options.manager);
    const run = async (manager: EntityManager) => {
      const key = ReadCache.key(table, tenant.id, id);
      const writing = this.writing(manager, key);
      const payload = citus ? undefined : this.sync?.notification(key);
      const head = await lockSubmodel(
        manager,
        table,
        BY_ID,
        tenant.id,
        id,
        at && { path: pathText(at.steps), descendants: at.descendants, children: at.children },
        payload === undefined ? undefined : { payload },
      );
      if (!head) throw notFound(`${modelType} '${id}' not found.`);
      if (citus) await writing.announce();
      if (options.ifMatch != null && !ifMatchAdmits(options.ifMatch, etagOf(head.seq, head.version))) {
        throw preconditionFailed(`${modelType} '${id}' has changed: If-Match does not match its current entity tag.`);
      }
      const elements = new ElementEdit(manager, tenant.id, head.seq, head.doc, head.rows);
      const result = await edit(elements);
      await elements.finish(needs31?.(result) ?? false);
      return { result, etag: etagOf(head.seq, head.version + 1) };
    };
    try {
      return options.manager ? await run(options.manager) : await this.dataSource.transaction(run);
    } catch (err) {
      rethrowClientError(err);
    }
  }

  /**
   * Whether a write goes as one statement in autocommit (`writeOnce`): not inside a transaction of the caller's
   * (`manager`), and not on Citus, where a notification must be a statement of its own naming no table (`writing`)
   * and an INSERT may not read from a CTE; there, and for what `writeOnce` does not cover, `write` holds the row lock
   * over a transaction.
   */
  private async oneStatement(options: WriteOptions): Promise<boolean> {
    return !options.manager && !(await onCitus(this.dataSource));
  }

  /**
   * Whether `doc` is a submodel of more element rows than a statement of an import's batch writes: it is written by
   * `write`, in statements of a batch of rows each. As one statement, its rows would be one parameter of megabytes
   * (12 MB for 100,000 elements), which the driver copies into its message in one go, holding the event loop for a
   * tenth of a second and more; the statements of a batch each cost a few milliseconds, with turns between them.
   */
  private manyElements(doc: JsonObject): boolean {
    return Boolean(this.spec.elementRows) && hasMoreElementsThan(doc, MANY_ROWS_BATCH);
  }

  /**
   * Creates the document (verified by the caller): one statement (INSERT … ON CONFLICT DO NOTHING, the element rows
   * and the outbox row with it). `exists`: the error when a document of that id exists.
   */
  async create(tenant: TenantEntity, doc: JsonObject, exists: () => Error, options: WriteOptions = {}): Promise<JsonObject> {
    const id = doc.id as string;
    checkId(this.spec.modelType, id);
    // With `If-Match` a create is refused (nothing to match), as `write` judges it.
    if (options.ifMatch != null || this.manyElements(doc) || !(await this.oneStatement(options))) {
      const decide = (current: JsonObject | null): Change => {
        if (current) throw exists();
        return { kind: 'created', doc };
      };
      return (await this.write(tenant, id, decide, options))!;
    }
    const done = await this.writeOnce(tenant, id, { kind: 'created', doc }, options);
    if (!done) throw exists();
    return tagged(doc, tenant, done.seq, done.version, done.wrote);
  }

  /**
   * Replaces the document: `next` is the new document (verified by the caller), or makes it from the stored one.
   * A new document is written in one statement that reads nothing before (compare-and-set on the version of the
   * statement's snapshot, for the element rows it compares with the stored ones); a document made from the stored one
   * is read first (one statement, no lock) and written in one statement if its version is still the one read. Either
   * is tried again when a concurrent write got there first, and after `RETRIES` such turns goes the locking way
   * (`write`). `absent`: the error when no document has the id.
   */
  async replace(
    tenant: TenantEntity,
    id: string,
    next: JsonObject | ((current: JsonObject) => JsonObject | Promise<JsonObject>),
    absent: () => Error,
    options: WriteOptions = {},
  ): Promise<JsonObject> {
    const { modelType } = this.spec;
    checkId(modelType, id);
    const v30 = (options.aasVersion ?? '3.0') === '3.0';
    // A V3.0 write is made from what V3.0 sees of the stored document and keeps the V3.1 parts it did not touch.
    const made = async (current: JsonObject): Promise<JsonObject> => {
      if (!v30) return typeof next === 'function' ? next(current) : next;
      const doc = typeof next === 'function' ? await next(mapDownToV30(current).json) : next;
      return mergeV30Write(current, doc);
    };
    const locking = () =>
      this.write(
        tenant,
        id,
        async (current) => {
          if (!current) throw absent();
          return { kind: 'updated', doc: await made(current) };
        },
        options,
      ).then((stored) => stored!);
    if ((typeof next !== 'function' && this.manyElements(next)) || !(await this.oneStatement(options))) return locking();
    // A new document of a V3.0 write is written without reading the stored one where that needs nothing of V3.1.
    let reads = typeof next === 'function';
    for (let turn = 0; turn < RETRIES; turn++) {
      let doc: JsonObject;
      let expect: { seq: string; version: number } | undefined;
      if (reads) {
        const current = await this.current(tenant, id);
        if (!current) throw absent();
        this.checkIfMatch(id, options, current.seq, current.version);
        expect = { seq: current.seq, version: current.version };
        doc = await made(current.doc);
        if (this.manyElements(doc)) return locking();
      } else doc = next as JsonObject;
      const done = await this.writeOnce(tenant, id, { kind: 'updated', doc, expect, onlyV30: !reads && v30 }, options);
      if (!done) throw absent();
      if (done.written !== null) return tagged(doc, tenant, done.seq, done.written, done.wrote);
      this.checkIfMatch(id, options, done.seq, done.version);
      if (done.needs === '3.1') {
        reads = true;
        turn--; // not a lost race: the stored document needs V3.1, so the write is merged onto it
      }
    }
    return locking();
  }

  /** Deletes the document, in one statement. `absent`: the error when no document has the id. */
  async delete(tenant: TenantEntity, id: string, absent: () => Error, options: WriteOptions = {}): Promise<void> {
    checkId(this.spec.modelType, id);
    if (!(await this.oneStatement(options))) {
      await this.write(
        tenant,
        id,
        (current) => {
          if (!current) throw absent();
          return { kind: 'deleted' };
        },
        options,
      );
      return;
    }
    const done = await this.writeOnce(tenant, id, { kind: 'deleted' }, options);
    if (!done) throw absent();
    if (done.written !== null) return;
    this.checkIfMatch(id, options, done.seq, done.version);
    // Admitted, yet not deleted: another write deleted it first.
    throw absent();
  }

  /** 412 unless the request's `If-Match` (if any) admits the entity tag of `seq` and `version`. */
  private checkIfMatch(id: string, options: WriteOptions, seq: string, version: number): void {
    if (options.ifMatch != null && !ifMatchAdmits(options.ifMatch, etagOf(seq, version))) {
      throw preconditionFailed(`${this.spec.modelType} '${id}' has changed: If-Match does not match its current entity tag.`);
    }
  }

  /** The stored document with its elements, its row and version, in one statement; for a write, so not budgeted. */
  private async current(tenant: TenantEntity, id: string): Promise<{ seq: string; version: number; doc: JsonObject } | null> {
    const rows = await readRows<{ seq: string; version: number; doc: JsonObject; elements?: string | null }>(
      this.dataSource,
      `SELECT seq, version, doc${this.elementsColumn('true', `${this.spec.table}.seq`)} FROM ${this.spec.table} WHERE ${BY_ID}`,
      [tenant.id, id],
      true,
    );
    return rows.length ? { seq: rows[0].seq, version: rows[0].version, doc: this.withElements(rows[0]) } : null;
  }

  /**
   * A whole-document write as one statement, sent in autocommit (no START or COMMIT around it): data-modifying CTEs
   * that write the row (INSERT … ON CONFLICT DO NOTHING; an UPDATE or DELETE by primary key, whose row lock is held
   * for this statement and its commit only, with the `If-Match` check in its WHERE), the element rows (submodels), the
   * outbox row, and the notification to other replicas' read caches.
   *
   * An update with `expect` (the row and version it was made from) writes only while the row still has that version;
   * a submodel's update always does so against the version of the statement's snapshot, since its element rows are
   * compared with those of that snapshot (`elementRowsCtes`).
   *
   * Returns null when there was no row (an update or delete) or there was one (a create); else the row's `seq` and
   * `version` as the statement found them and `written`, the version written (for a delete, the version deleted),
   * null when nothing was written: `If-Match` did not admit it, or (compare-and-set) another write got there first.
   */
  private async writeOnce(
    tenant: TenantEntity,
    id: string,
    change:
      | { kind: 'created'; doc: JsonObject }
      | { kind: 'updated'; doc: JsonObject; expect?: { seq: string; version: number }; onlyV30?: boolean }
      | { kind: 'deleted' },
    options: WriteOptions,
  ): Promise<{ seq: string; version: number; needs: string | null; written: number | null; wrote?: unknown } | null> {
    const { table, modelType, elementRows } = this.spec;
    const params: unknown[] = [tenant.id, id];
    const bind = (value: unknown) => `$${params.push(value)}`;
    const ctes: string[] = [];
    const tags = options.ifMatch != null ? ifMatchTags(options.ifMatch) : null;
    const admitted = tags ? ` AND ('"' || s.seq::text || '-' || s.version::text || '"') = ANY (${bind(tags)}::text[])` : '';
    let rows: ElementRow[] = [];
    let described: QueryDeepPartialEntity<E> = {};
    if (change.kind === 'deleted') {
      ctes.push(`cur AS (SELECT seq, version FROM ${table} WHERE ${BY_ID})`);
      ctes.push(`head AS (DELETE FROM ${table} s USING cur WHERE s.tenant_id = $1 AND s.seq = cur.seq${admitted} RETURNING s.seq, s.version)`);
    } else {
      const { doc } = change;
      let head = doc;
      if (elementRows) ({ head, rows } = splitSubmodel(doc));
      const sized = elementRows ? { docBytes: String(bytesOf(doc)) } : {};
      described = this.spec.columns(doc);
      const columns = this.columnsSql({ ...described, ...sized, doc: head }, params.length + 1);
      params.push(...columns.params);
      if (change.kind === 'created') {
        ctes.push(`head AS (INSERT INTO ${table} (tenant_id, id, version, ${columns.names.join(', ')}) VALUES ($1, $2, 1, ${columns.values.join(', ')})
          ON CONFLICT DO NOTHING RETURNING seq, version)`);
      } else {
        const { expect, onlyV30 } = change;
        ctes.push(`cur AS (SELECT seq, version, aas_version FROM ${table} WHERE ${BY_ID})`);
        const compareAndSet =
          (expect ? ` AND s.seq = ${bind(expect.seq)}::bigint AND s.version = ${bind(expect.version)}::int` : elementRows ? ' AND s.version = cur.version' : '') +
          (onlyV30 ? ` AND cur.aas_version = '3.0'` : '');
        ctes.push(`head AS (UPDATE ${table} s SET ${columns.names.map((name, i) => `${name} = ${columns.values[i]}`).join(', ')}, version = s.version + 1
          FROM cur WHERE s.tenant_id = $1 AND s.seq = cur.seq${compareAndSet}${admitted} RETURNING s.seq, s.version)`);
      }
      if (elementRows) ctes.push(...elementRowsCtes(rows, 'head', change.kind === 'created', bind));
    }
    const event = options.event ?? true;
    const payload = change.kind === 'deleted' ? null : change.doc;
    if (event) ctes.push(changeRecordCte(tenant, change.kind, modelType, payload, 'head', bind));
    const key = ReadCache.key(table, tenant.id, id);
    const notification = this.sync?.notification(key);
    // Only where the statement wrote: PostgreSQL delivers it with the commit.
    const notify = notification === undefined ? '' : `, CASE WHEN head.seq IS NOT NULL THEN ${announceSql(bind(notification))} END AS notified`;
    const [found, from] = change.kind === 'created' ? ['head.seq, head.version, NULL AS needs', 'head'] : [`cur.seq, cur.version, ${change.kind === 'updated' ? 'cur.aas_version' : 'NULL'} AS needs`, 'cur LEFT JOIN head ON true'];
    const added = elementRows && rows.length ? '(SELECT count(*) FROM added)::int' : '0';
    const sql = `WITH ${ctes.join(',\n')}
      SELECT ${found}, head.version AS written, ${event ? '(SELECT count(*) FROM outbox_row)::int' : '0'} AS recorded, ${added} AS added${notify} FROM ${from}`;
    const send = () => writeRows<{ seq: string; version: number; needs: string | null; written: number | null; recorded: number; added: number }>(this.dataSource, sql, params, true, key);
    let result;
    try {
      result = await (this.sync ? this.sync.writingOnce(key, send) : send());
    } catch (err) {
      // Two creates of one id racing: ON CONFLICT leaves it to the unique index, which decides for the first.
      if ((err as { code?: string }).code === PG_UNIQUE_VIOLATION) throw conflict(`${modelType} '${id}' already exists.`);
      rethrowClientError(err);
    }
    const row = result[0];
    if (!row) return null;
    if (row.recorded) outboxWritten();
    if (row.added) rowsWritten(this.dataSource.manager, 'submodel_elements', row.added);
    // New rows of the table itself count too: until its first ANALYZE, PostgreSQL plans the foreign-key check of
    // each element row against it with an index that reads every submodel of the tenant.
    if (change.kind === 'created') rowsWritten(this.dataSource.manager, table, 1);
    const wrote = (described as { aasVersion?: unknown }).aasVersion;
    return { seq: String(row.seq), version: Number(row.version), needs: row.needs, written: row.written === null ? null : Number(row.written), wrote };
  }

  /**
   * Creates the document, or overwrites the one with its id (imports): the document was verified by the
   * caller. Says which it did.
   */
  async put(tenant: TenantEntity, doc: JsonObject, options: WriteOptions = {}): Promise<'created' | 'updated'> {
    let kind: 'created' | 'updated' = 'created';
    await this.write(
      tenant,
      doc.id as string,
      (current) => {
        kind = current ? 'updated' : 'created';
        return { kind, doc };
      },
      options,
    );
    return kind;
  }

  /**
   * Creates or overwrites many verified documents (an import), in the transaction of `manager`, a batch of
   * documents at a time: per batch, one statement locks the rows of the ids that exist, one inserts the new ones,
   * one updates the others, the element rows (submodels) go in statements of a few thousand rows (an overwritten
   * submodel's rows are replaced whole), one statement writes the outbox rows and one the notifications to other
   * replicas' read caches. `between` runs after every statement's batch: the caller's pace (it may throw to stop;
   * the transaction then rolls back). Says, per document in order, whether it was created or updated.
   */
  async putMany(
    tenant: TenantEntity,
    docs: JsonObject[],
    manager: EntityManager,
    between: (written: number, elements: number) => Promise<void> = async () => undefined,
  ): Promise<('created' | 'updated')[]> {
    const { table, modelType, elementRows } = this.spec;
    for (const doc of docs) checkId(modelType, doc.id as string);
    const metadata = this.dataSource.getMetadata(this.spec.entity);
    const out: ('created' | 'updated')[] = [];
    let start = 0;
    while (start < docs.length) {
      // A batch: up to PUT_MANY_DOCS documents, fewer where their element rows are many (at least one document).
      const batch: { doc: JsonObject; head: JsonObject; rows: ElementRow[] }[] = [];
      let rowCount = 0;
      while (start < docs.length && batch.length < PUT_MANY_DOCS && (batch.length === 0 || rowCount < MANY_ROWS_BATCH)) {
        const doc = docs[start++];
        const { head, rows } = elementRows ? splitSubmodel(doc) : { head: doc, rows: [] };
        batch.push({ doc, head, rows });
        rowCount += rows.length;
        // Each walk of a submodel of many elements holds the event loop for tens of milliseconds: others go between.
        if (rows.length >= MANY_ROWS_BATCH) await nextTurn();
      }
      const ids = batch.map(({ doc }) => doc.id as string);
      for (const id of ids) this.writing(manager, ReadCache.key(table, tenant.id, id));
      // The record of a row: its id and columns by their database names (json_to_recordset reads arrays and jsonb as they are).
      const fields: { name: string; type: string }[] = [];
      const recordOf = async (entry: (typeof batch)[number]): Promise<Record<string, unknown>> => {
        const columns = this.spec.columns(entry.doc);
        let sized = {};
        if (elementRows) {
          const large = entry.rows.length >= MANY_ROWS_BATCH;
          if (large) await nextTurn();
          sized = { docBytes: String(large ? Buffer.byteLength(await stringifyJsonInSlices(entry.doc)) : bytesOf(entry.doc)) };
        }
        const record: Record<string, unknown> = { id: entry.doc.id };
        for (const [property, value] of Object.entries({ ...columns, ...sized, doc: entry.head })) {
          const column = metadata.findColumnWithPropertyName(property);
          if (!column) throw new Error(`${metadata.name} has no column ${property}`);
          if (!fields.some((field) => field.name === column.databaseName)) {
            fields.push({ name: column.databaseName, type: `${String(column.type)}${column.isArray ? '[]' : ''}` });
          }
          record[column.databaseName] = value;
        }
        return record;
      };
      const records: Record<string, unknown>[] = [];
      for (const entry of batch) records.push(await recordOf(entry));
      const names = fields.map((field) => field.name);
      const columnsOfRecord = `id text, ${fields.map((field) => `${field.name} ${field.type}`).join(', ')}`;
      // New ids are inserted; an id that exists (the unique index on it says so) is left to the update below, which
      // locks its row. No look-up before: an import into an empty tenant writes each row with one statement.
      const inserted: { seq: string; id: string }[] = await manager.query(
        `INSERT INTO ${table} (tenant_id, id, version, ${names.join(', ')})
          SELECT $1, r.id, 1, ${names.map((name) => `r.${name}`).join(', ')} FROM json_to_recordset($2::json) AS r (${columnsOfRecord})
          ON CONFLICT DO NOTHING RETURNING seq, id`,
        [tenant.id, JSON.stringify(records)],
      );
      rowsWritten(manager, table, inserted.length);
      const seqOf = new Map(inserted.map((row) => [row.id, String(row.seq)]));
      const versions = new Map<string, number>(inserted.map((row) => [row.id, 1]));
      const rest = records.filter((record) => !seqOf.has(record.id as string));
      const existed = new Set(rest.map((record) => record.id as string));
      if (rest.length) {
        const written: { seq: string; id: string; version: number }[] = await manager.query(
          // In a CTE: TypeORM answers an UPDATE's rows in another shape than a SELECT's.
          `WITH written AS (UPDATE ${table} s SET ${names.map((name) => `${name} = r.${name}`).join(', ')}, version = s.version + 1
            FROM json_to_recordset($2::json) AS r (${columnsOfRecord})
            WHERE s.tenant_id = $1 AND md5(s.id) = md5(r.id) AND s.id = r.id RETURNING s.seq, s.id, s.version) SELECT seq, id, version FROM written`,
          [tenant.id, JSON.stringify(rest)],
        );
        for (const row of written) {
          seqOf.set(row.id, String(row.seq));
          versions.set(row.id, Number(row.version));
        }
        // Neither inserted nor updated: deleted by another request in between.
        const lost = rest.find((record) => !seqOf.has(record.id as string));
        if (lost) throw conflict(`${modelType} '${String(lost.id)}' was deleted while it was being written; import again.`);
      }
      const updated = batch.filter(({ doc }) => existed.has(doc.id as string));
      await between(0, 0);
      if (elementRows) {
        await deleteRowsOfMany(manager, tenant.id, updated.map(({ doc }) => seqOf.get(doc.id as string)!));
        let pending: RowOf[] = [];
        const flush = async () => {
          await insertRowsOfMany(manager, tenant.id, pending);
          const count = pending.length;
          pending = [];
          await between(0, count);
        };
        for (const { doc, rows } of batch) {
          const seq = seqOf.get(doc.id as string)!;
          for (const row of rows) {
            pending.push({ seq, row });
            if (pending.length >= MANY_ROWS_BATCH) await flush();
          }
        }
        if (pending.length) await flush();
      }
      const changes = ids.map((id, i) => ({ kind: existed.has(id) ? ('updated' as const) : ('created' as const), id, version: versions.get(id), payload: tenant.eventsEnabled ? batch[i].doc : null }));
      await manager.query(
        `INSERT INTO outbox (tenant_id, kind, entity_type, entity_id, version, payload, events)
          SELECT $1, r.kind, $2, r.id, r.version, r.payload, $3 FROM json_to_recordset($4::json) AS r (kind text, id text, version integer, payload json)
          WHERE $3 OR EXISTS (SELECT 1 FROM push_targets WHERE tenant_id = $1)`,
        [tenant.id, modelType, tenant.eventsEnabled, JSON.stringify(changes)],
      );
      const notifications = ids.map((id) => this.sync?.notification(ReadCache.key(table, tenant.id, id))).filter((p): p is string => p !== undefined);
      if (notifications.length) await manager.query(`SELECT count(${announceSql('p', await onCitus(this.dataSource, manager))}) FROM unnest($1::text[]) AS p`, [notifications]);
      out.push(...changes.map((change) => change.kind));
      await between(batch.length, 0);
    }
    return out;
  }

  /** Runs `work` in one transaction, for requests that change more than one identifiable. */
  transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.dataSource.transaction(work);
  }

  /**
   * Entity properties and their values as SQL for an INSERT or UPDATE of this table: the column names, each value's
   * placeholder (from `$first`, cast to the column's type) and the parameters. A plain statement: TypeORM's query
   * builder cost more time than the write's own SQL.
   */
  private columnsSql(values: Record<string, unknown>, first: number): { names: string[]; values: string[]; params: unknown[] } {
    const metadata = this.dataSource.getMetadata(this.spec.entity);
    const names: string[] = [];
    const placeholders: string[] = [];
    const params: unknown[] = [];
    for (const [property, value] of Object.entries(values)) {
      const column = metadata.findColumnWithPropertyName(property);
      if (!column) throw new Error(`${metadata.name} has no column ${property}`);
      const type = `${String(column.type)}${column.isArray ? '[]' : ''}`;
      names.push(column.databaseName);
      placeholders.push(`$${first + params.length}::${type}`);
      params.push(type === 'jsonb' ? JSON.stringify(value) : value);
    }
    return { names, values: placeholders, params };
  }

  /**
   * The write path for whole documents: locks the row (or its absence), checks `If-Match`, lets `decide` turn the current
   * document into a change, applies it and records the change event. Returns the stored document, tagged.
   */
  async write(
    tenant: TenantEntity,
    id: string,
    decide: (current: JsonObject | null) => Change | Promise<Change>,
    options: WriteOptions = {},
  ): Promise<JsonObject | null> {
    const { table, entity, modelType } = this.spec;
    checkId(modelType, id);
    const run = async (manager: EntityManager): Promise<JsonObject | null> => {
      const writing = this.writing(manager, ReadCache.key(table, tenant.id, id));
      const rows: { seq: string; version: number; doc: JsonObject; pushes: boolean }[] = await manager.query(
        `SELECT seq, version, doc, ${HAS_PUSH_TARGETS} AS pushes FROM ${table} WHERE ${BY_ID} FOR UPDATE`,
        [tenant.id, id],
      );
      const row = rows[0];
      if (row) await writing.announce();
      if (row && options.ifMatch != null && !ifMatchAdmits(options.ifMatch, etagOf(row.seq, row.version))) {
        throw preconditionFailed(`${modelType} '${id}' has changed: If-Match does not match its current entity tag.`);
      }
      // The element rows as stored, taken before `decide`, which may edit the document in place.
      let before: RowSignatures = new Map();
      if (row && this.spec.elementRows) {
        const stored = (await readRowsOf(manager, tenant.id, [row.seq])).get(String(row.seq))!;
        before = await signaturesOf(stored.map((element) => ({ ord: ordOf(element.ord), path: element.path, json: element.json })));
        assemble(row.doc, stored);
      }
      const change = await decide(row?.doc ?? null);
      if (!row && options.ifMatch != null) throw preconditionFailed(`${modelType} '${id}' does not exist: If-Match cannot match.`);
      // Only a create may find no row; an update or delete addresses the row it locked, by primary key.
      if (change.kind !== 'created' && !row) throw new Error(`${modelType} ${change.kind} without its row`);
      const event = options.event ?? true;
      if (change.kind === 'deleted') {
        await manager.delete(entity, { tenantId: tenant.id, seq: row.seq });
        if (event) recorded = await recordChange(manager, tenant, 'deleted', modelType, id, row.version, null, row.pushes);
        return null;
      }
      const doc = change.doc;
      const { head, rows: elements } = this.spec.elementRows ? await splitSubmodelInTurns(doc, SPLIT_ROWS_PER_TURN) : { head: doc, rows: [] };
      // Each step below walks all of a submodel (tens of milliseconds and more for 100,000 elements): a large one
      // gets turns of the event loop between them, and its text is written in slices.
      const large = elements.length > MANY_ROWS_BATCH;
      if (large) await nextTurn();
      // A large document's text, written in slices, gives its size and the change event's payload.
      const text = large ? await stringifyJsonInSlices(doc) : undefined;
      const sized = this.spec.elementRows ? { docBytes: String(text !== undefined ? Buffer.byteLength(text) : bytesOf(doc)) } : {};
      if (large) await nextTurn();
      const described = this.spec.columns(doc);
      if (large) await nextTurn();
      const columns = this.columnsSql({ ...described, ...sized, doc: head }, 3);
      let seq: string;
      let version: number;
      // Whether the tenant has push targets, where the locking read found it out; else the outbox write asks.
      let pushes: boolean | undefined;
      if (change.kind === 'created') {
        // No subquery in an INSERT: Citus refuses it.
        const [inserted]: { seq: string }[] = await manager.query(
          `INSERT INTO ${table} (tenant_id, id, version, ${columns.names.join(', ')}) VALUES ($1, $2, 1, ${columns.values.join(', ')})
            RETURNING seq`,
          [tenant.id, id, ...columns.params],
        );
        await writing.announce();
        [seq, version, pushes] = [inserted.seq, 1, undefined];
      } else {
        await manager.query(
          `UPDATE ${table} SET ${columns.names.map((name, i) => `${name} = ${columns.values[i]}`).join(', ')}, version = version + 1
            WHERE tenant_id = $1 AND seq = $2`,
          [tenant.id, row.seq, ...columns.params],
        );
        [seq, version, pushes] = [row.seq, row.version + 1, row.pushes];
      }
      if (this.spec.elementRows) await replaceRows(manager, tenant.id, seq, before, elements);
      if (event) recorded = await recordChange(manager, tenant, change.kind, modelType, id, version, text ?? doc, pushes);
      return tagged(doc, tenant, seq, version, (described as { aasVersion?: unknown }).aasVersion);
    };
    // Whether the change recorded an event: after a commit of our own, the publisher is woken at once.
    let recorded = false;
    try {
      if (options.manager) return await run(options.manager);
      const result = await this.dataSource.transaction(run);
      if (recorded) outboxWritten();
      return result;
    } catch (err) {
      const code = (err as { driverError?: { code?: string } }).driverError?.code;
      // Two creates of one id racing past the row check: the unique index on the id decides.
      if (code === PG_UNIQUE_VIOLATION) throw conflict(`${modelType} '${id}' already exists.`);
      rethrowClientError(err);
    }
  }
}

/** Whole list answers of one kind of identifiable in one tenant (`IdentifiableStore.listAnswers`). */
export interface ListAnswers {
  /** The answer held for `query`, charged to the read budget as its reads were. */
  get(query: string): Promise<string | undefined>;
  /** Taken before the page is read; `fill` with it stores nothing if anything was written since. */
  token(): number;
  fill(query: string, token: number, text: string): void;
}
