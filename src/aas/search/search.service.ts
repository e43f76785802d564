import { DataSource } from 'typeorm';
import { boundedRead } from '../../db/bounded-read';
import { AppError, badRequest } from '../../graphql/errors';
import { TenantEntity } from '../../management/tenants/tenant.entity';
import type { Condition, Query } from '../query/ast';
import { parseField, parseQuery } from '../query/parse';
import { checkElementConditions, toSql } from '../query/sql';
import { type SemanticEquivalence, semanticKeysOf } from '../query/query.service';
import { JsonObject } from '../model/parse';
import type { ShellService } from '../shells/shell.service';
import { keysetQuery, pageOf } from '../store/identifiable-store';
import type { AasVersion } from '../versions';
import { SearchIndex, searchIndex } from './indexes';

/** A search as clients send it (REST body members, GraphQL arguments): an index and a full or simple condition. */
export interface SearchRequest {
  index: unknown;
  /** The full form: an AAS Query Language query (`$condition`, `$select`) over the index's submodels. */
  query?: unknown;
  /** The simple form: one condition of the index (REST: its members beside `index` in the body)... */
  condition?: unknown;
  /** ... or several, all of which must hold. */
  conditions?: unknown;
  /** The simple form's `$select`: `"id"` answers shell ids only. */
  select?: unknown;
}

/** One shell of the answer: its id, its document (absent for `$select: "id"`), the submodels that matched. */
export interface SearchHit {
  id: string;
  shell?: JsonObject;
  /** The ids of the shell's submodels (of the index's template) that satisfy the condition, in insertion order. */
  submodelIds: string[];
}

export interface SearchPage {
  select?: 'id';
  items: SearchHit[];
  cursor?: string;
}

export interface SearchOptions {
  /** How long the statement of one page may run (QUERY_TIMEOUT_MS, as the query language's); beyond it: 400. */
  timeoutMs: number;
  /** How many `$sme` fields one condition may read (QUERY_MAX_ELEMENT_CONDITIONS); more: 400. 0: no bound. */
  maxElementConditions?: number;
  /** Up to this many matching submodels in the tenant, a page starts from them; default FEW_SUBMODELS (tests set 0: always a scan). */
  fewSubmodels?: number;
}

const MAX_CONDITIONS = 32;

/** Up to this many matching submodels in the tenant, a page starts from them (see SearchService). */
export const FEW_SUBMODELS = 1_000;

/**
 * POST /search: the shells of a tenant that reference a submodel of an index's template satisfying a condition
 * (indexes.ts). The condition is an AAS Query Language condition over submodels, the full form as the client
 * wrote it and the simple form as its index translates it, restricted to the index's submodels
 * (`$sm#semanticId`); toSql turns it into SQL. One statement per page finds the shells, under QUERY_TIMEOUT_MS
 * (`boundedRead`), by one of two plans, chosen inside the statement: it first looks for the tenant's submodels that
 * satisfy the condition, stopping after FEW_SUBMODELS + 1 (element conditions are index lookups on element rows).
 * - Few: the shells that reference one of them (GIN index on `shells.submodel_ids`), in insertion order: a rare
 *   condition costs its matches, not a scan of the tenant's shells.
 * - More: a keyset page of shells in insertion order, each joined through `submodel_ids` to its submodels (by the
 *   unique id index) where the condition holds: a common condition fills the page after a few shells.
 * The page's shell documents are then read through ShellService (its read budget).
 */
export class SearchService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly shells: ShellService,
    private readonly options: SearchOptions,
  ) {}

  /**
   * `equivalence`: semantic ids of the condition (the simple form's too) match by the semantic connector's equivalence.
   * `view`: the metamodel version the shells are read in (mapped down for V3.0 where they need V3.1).
   */
  async search(tenant: TenantEntity, request: SearchRequest, limit: number, cursor?: string | null, equivalence?: SemanticEquivalence, view: AasVersion = '3.0'): Promise<SearchPage> {
    const { index, query } = parseSearch(request);
    // Refused before the cursor's list name and the semantic keys are worked out for it.
    checkElementConditions(query, this.options.maxElementConditions);
    const keyset = keysetQuery(`search:${index.name}`, [['s.tenant_id = ?', tenant.id]], [], limit, cursor, query.condition, ...(equivalence ? ['equivalent'] : []));
    const semanticKeys = await semanticKeysOf(query, equivalence);
    const condition = toSql(query, 'submodels', { doc: 'm.doc', row: 'm', tenant: '$1', firstParam: keyset.params.length + 1, semanticKeys, maxElementConditions: this.options.maxElementConditions });
    // keysetQuery writes the cursor's bound as `seq > $n` (and the tenant as $1): in both branches only `s` has a seq
    // at that level. One of the two branches runs, as the one-time filter on `few` says (see the class comment).
    const few = this.options.fewSubmodels ?? FEW_SUBMODELS;
    const sql = `WITH candidates AS MATERIALIZED (
        SELECT m.id, m.seq FROM submodels m WHERE m.tenant_id = $1 AND (${condition.where}) LIMIT ${few + 1}
      ), few AS (SELECT count(*) <= ${few} AS yes FROM candidates)
      (SELECT s.seq, s.id, ARRAY(SELECT c.id FROM candidates c WHERE c.id = ANY (s.submodel_ids) ORDER BY c.seq) AS submodel_ids
         FROM shells s
        WHERE (SELECT yes FROM few) AND ${keyset.where} AND s.submodel_ids && ARRAY(SELECT c.id FROM candidates c)
        ORDER BY s.seq LIMIT ${keyset.limitParam})
      UNION ALL
      (SELECT s.seq, s.id, hit.ids AS submodel_ids FROM shells s
        CROSS JOIN LATERAL (
          SELECT array_agg(m.id ORDER BY m.seq) AS ids FROM submodels m
           WHERE m.tenant_id = $1
             AND md5(m.id) = ANY (ARRAY(SELECT md5(r) FROM unnest(s.submodel_ids) AS r)) AND m.id = ANY (s.submodel_ids)
             AND (${condition.where})
        ) hit
        WHERE NOT (SELECT yes FROM few) AND ${keyset.where} AND hit.ids IS NOT NULL ORDER BY s.seq LIMIT ${keyset.limitParam})
      ORDER BY seq`;
    const rows = await boundedRead<{ seq: string; id: string; submodel_ids: string[] }>(this.dataSource, sql, [...keyset.params, ...condition.params], this.options.timeoutMs, 'search');
    const page = pageOf(keyset.list, rows, limit, (row) => Number(row.seq));
    const hits = page.items.map((row) => ({ id: row.id, submodelIds: row.submodel_ids }));
    if (query.select === 'id') return { select: 'id', items: hits, cursor: page.cursor };
    const found = hits.length ? await this.shells.findMany(tenant, hits.map((h) => h.id), view) : new Map<string, JsonObject>();
    // A shell deleted between the two reads is left out; the cursor still names the page's last row.
    return { items: hits.flatMap((hit) => (found.has(hit.id) ? [{ ...hit, shell: found.get(hit.id) }] : [])), cursor: page.cursor };
  }
}

const FULL_MEMBERS = ['index', 'query'];

/** A search request as its index and the query to evaluate on the index's submodels; 400 naming what is wrong. */
export function parseSearch(request: SearchRequest): { index: SearchIndex; query: Query } {
  if (request.index === undefined || request.index === null) throw badRequest('Invalid search at /index: the index is missing');
  const index = searchIndex(request.index);
  const restriction: Condition = {
    kind: 'or',
    items: index.submodelSemanticIds.map((id) => ({ kind: 'compare', op: '$eq', left: parseField('$sm#semanticId', '/'), right: { kind: 'literal', type: 'string', value: id } })),
  };
  if (request.query !== undefined && request.query !== null) {
    if (request.condition != null || request.conditions != null || request.select != null) {
      throw badRequest(`Invalid search: the full form has the members ${FULL_MEMBERS.join(', ')} only ("$select" goes inside "query")`);
    }
    const query = fullQuery(request.query);
    return { index, query: { ...query, condition: { kind: 'and', items: [restriction, query.condition] }, target: 'submodels' } };
  }
  const select = request.select;
  if (select !== undefined && select !== null && select !== 'id') throw badRequest(`Invalid search at /select: expected "id", got ${JSON.stringify(select)}`);
  let items: Condition[];
  if (request.condition != null) {
    if (request.conditions != null) throw badRequest('Invalid search: give one condition (its members beside "index") or "conditions", not both');
    items = [simpleCondition(index, request.condition, '')];
  } else {
    const conditions = request.conditions;
    if (!Array.isArray(conditions) || conditions.length === 0) {
      throw badRequest(`Invalid search: expected "query" (the full form) or a condition of the index ${index.name} (the simple form: ${index.members.join(', ')})`);
    }
    if (conditions.length > MAX_CONDITIONS) throw badRequest(`Invalid search at /conditions: at most ${MAX_CONDITIONS} conditions`);
    items = conditions.map((c, i) => simpleCondition(index, c, `/conditions/${i}`));
  }
  return { index, query: { ...(select === 'id' ? { select: 'id' as const } : {}), condition: { kind: 'and', items: [restriction, ...items] }, target: 'submodels' } };
}

function fullQuery(body: unknown): Query {
  let query: Query;
  try {
    query = parseQuery(body);
  } catch (err) {
    // The query's own pointers are relative to "query".
    if (!(err instanceof AppError)) throw err;
    const messages = ((err.extensions.messages ?? [err.message]) as string[]).map((m) => m.replace(/^Invalid query/, 'Invalid search: query'));
    throw badRequest(messages[0], messages);
  }
  if (query.target !== null && query.target !== 'submodels') {
    throw badRequest(`Invalid search: query/$condition: a search condition addresses the index's submodels ($sm and $sme fields), but its fields address ${query.target}`);
  }
  return query;
}

function simpleCondition(index: SearchIndex, condition: unknown, at: string): Condition {
  if (condition === null || typeof condition !== 'object' || Array.isArray(condition)) throw badRequest(`Invalid search at ${at || '/'}: expected an object`);
  const unknown = Object.keys(condition).filter((k) => !index.members.includes(k));
  if (unknown.length) {
    throw badRequest(`Invalid search at ${at || '/'}: unknown member ${JSON.stringify(unknown[0])} for index ${index.name} (expected ${index.members.join(', ')})`);
  }
  return index.simple(condition as Record<string, unknown>, at);
}
