import { createHash, randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { checkLimit, cursorList, decodeCursor, encodeCursor } from '../../common/cursor';
import { readRows } from '../../db/read';
import { isUuid } from '../../common/uuid';
import { badRequest, notFound } from '../../graphql/errors';
import type { TenantEntity } from '../../management/tenants/tenant.entity';
import { DictionaryEntry, DictionaryFormat, MAX_ID, Meaning, meaningOfConceptDescription, searchTextOf } from './dictionary-content';
import { entriesOfFile } from './dictionary-import';
import { semanticKey } from './semantic-key';

export { DICTIONARY_FORMATS, type DictionaryFormat } from './dictionary-content';

/** How semantic ids are compared: as written (`exact`), or by the equivalence rules (`equivalent`, docs/semantic-connector.md). */
export type SemanticMatching = 'exact' | 'equivalent';
export const SEMANTIC_MATCHINGS: readonly SemanticMatching[] = ['exact', 'equivalent'];

/** What is known of one semantic id: the tenant's concept descriptions and dictionary entries that match it. */
export interface Resolution {
  semanticId: string;
  /** Its equivalence key (`semantic_norm`). */
  key: string;
  matching: SemanticMatching;
  /** The keys it was matched by: its own, and with `equivalent` those of its equivalents. */
  equivalentKeys: string[];
  conceptDescriptions: { id: string; idShort: string | null; meaning: Meaning }[];
  entries: { dictionaryId: string; dictionaryName: string; conceptId: string; meaning: Meaning }[];
}

export interface DictionaryView {
  id: string;
  name: string;
  format: DictionaryFormat;
  entryCount: number;
  createdAt: Date;
}

export interface EntryView {
  dictionaryId: string;
  dictionaryName: string;
  conceptId: string;
  key: string;
  meaning: Meaning;
  isCaseOf: string[];
}

export interface EquivalenceSetView {
  id: string;
  name: string | null;
  members: string[];
  createdAt: Date;
}

/** A place of the tenant that carries a semantic id: a submodel (no path) or an element of one. */
export interface Usage {
  submodelId: string;
  idShortPath: string | null;
  modelType: string;
  semanticId: string;
}


export interface Page<T> {
  items: T[];
  cursor: string | null;
}

export const LIMITS = {
  /** Entries of one dictionary: a full ECLASS release has ~60,000 properties per language. */
  entriesPerDictionary: 500_000,
  dictionariesPerTenant: 100,
  equivalenceSetsPerTenant: 10_000,
  membersPerSet: 100,
  name: 128,
  searchText: 256,
  /** Rounds of the equivalence closure: a set, then a concept's isCaseOf, then the set of that, ... */
  closureRounds: 4,
  /** Keys one closure may reach; more is a tenant's declarations gone wide, refused rather than matched slowly. */
  closureKeys: 1000,
  /** Ids resolved at once (a Reference's keys, a DataLoader batch). */
  idsPerResolve: 250,
} as const;

/** Rows one INSERT of entries writes: the parameters of one statement stay far below PostgreSQL's 65,535. */
const INSERT_BATCH = 2000;

/** The LIKE pattern of a contains match of `text`: its `\`, `%` and `_` escaped (LIKE's escape character is `\`). */
const contains = (text: string) => `%${text.replace(/[\\%_]/g, '\\$&')}%`;

const md5 = (text: string) => createHash('md5').update(text, 'utf8').digest('hex');

interface EntryRow {
  dictionary_id: string;
  dictionary_name: string;
  concept_id: string;
  norm: string;
  content: Meaning;
  is_case_of: string[];
  seq: string;
}

interface CdRow {
  id: string;
  id_short: string | null;
  doc: Record<string, unknown>;
  norm: string;
}

/**
 * The semantic connector: what the tenant's semantic ids mean (its concept descriptions, the dictionaries it
 * imported) and which ids are equivalent (IRDI spellings and versions, `isCaseOf`, declared equivalence sets).
 * The equivalence key of an id is computed in SQL (`semantic_norm`, migration SemanticConnector), so that matching
 * in the lists' filters uses the same rule as the expression indexes.
 */
export class SemanticService {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * The keys equivalent to each of `ids` (its own key first, then by the steps they are away and as text): the closure
   * over declared equivalence sets and the `isCaseOf` of concept descriptions and imported entries, both ways, for at
   * most LIMITS.closureRounds steps. One statement (CLOSURE).
   */
  async equivalentKeys(tenant: TenantEntity, ids: string[]): Promise<string[][]> {
    const own = ids.map(semanticKey);
    const [{ keys }] = await readRows<{ keys: ClosureKeys }>(this.dataSource, `${CLOSURE} SELECT ${CLOSURE_KEYS} AS keys`, [tenant.id, own, closureCap(own.length)], true);
    return keysOfClosure(own, keys);
  }

  /**
   * What is known of each of `ids` (a DataLoader's batch, a Reference's keys): one resolution per id, in order. One
   * named statement either way; with `equivalent` it computes the equivalence keys (CLOSURE) and reads what matches
   * any of them in the same statement.
   */
  async resolveMany(tenant: TenantEntity, ids: string[], matching: SemanticMatching): Promise<Resolution[]> {
    if (ids.length > LIMITS.idsPerResolve) throw badRequest(`At most ${LIMITS.idsPerResolve} semantic ids are resolved at once.`);
    for (const id of ids) checkId(id);
    const own = ids.map(semanticKey);
    const exact = matching === 'exact';
    // A hot statement of two texts (exact, equivalent): named, planned once per connection.
    const [row] = await readRows<{ keys?: ClosureKeys; cds: CdRow[] | null; entries: EntryRow[] | null }>(
      this.dataSource,
      resolveStatement(matching),
      exact ? [tenant.id, [...new Set(own)].map(md5), ids.map(md5), ids] : [tenant.id, own, closureCap(own.length)],
      true,
    );
    const keySets = exact ? own.map((k) => [k]) : keysOfClosure(own, row.keys!);
    const cds = row.cds ?? [];
    const entries = row.entries ?? [];
    return ids.map((semanticId, i) => {
      const keys = new Set(keySets[i]);
      const matches = (id: string, norm: string) => (exact ? id === semanticId : keys.has(norm));
      return {
        semanticId,
        key: own[i],
        matching,
        equivalentKeys: keySets[i],
        conceptDescriptions: cds.filter((cd) => matches(cd.id, cd.norm)).map((cd) => ({ id: cd.id, idShort: cd.id_short, meaning: meaningOfConceptDescription(cd.doc) })),
        entries: entries.filter((e) => matches(e.concept_id, e.norm)).map((e) => ({ dictionaryId: e.dictionary_id, dictionaryName: e.dictionary_name, conceptId: e.concept_id, meaning: e.content })),
      };
    });
  }

  async resolve(tenant: TenantEntity, id: string, matching: SemanticMatching): Promise<Resolution> {
    return (await this.resolveMany(tenant, [id], matching))[0];
  }

  /**
   * Imports a dictionary: all of its entries and the dictionary row in one transaction (nothing is stored when any
   * line or concept description is refused). Entries keep the order of the source.
   */
  async importDictionary(tenant: TenantEntity, name: string, format: DictionaryFormat, entries: DictionaryEntry[]): Promise<DictionaryView> {
    checkName(name, true);
    if (!entries.length) throw badRequest('The dictionary has no entries: nothing to import.');
    if (entries.length > LIMITS.entriesPerDictionary) throw badRequest(`A dictionary has at most ${LIMITS.entriesPerDictionary} entries; this one has ${entries.length}.`);
    const id = randomUUID();
    await this.dataSource.transaction(async (manager) => {
      // Serializes imports of one tenant, so the count below holds; the key-share locks of other writes stay compatible.
      await manager.query('SELECT id FROM tenants WHERE id = $1 FOR NO KEY UPDATE', [tenant.id]);
      const [{ count }] = await manager.query('SELECT count(*)::int AS count FROM semantic_dictionaries WHERE tenant_id = $1', [tenant.id]);
      if (count >= LIMITS.dictionariesPerTenant) throw badRequest(`A tenant has at most ${LIMITS.dictionariesPerTenant} dictionaries; delete one first.`);
      await manager.query('INSERT INTO semantic_dictionaries (tenant_id, id, name, format, entry_count) VALUES ($1, $2, $3, $4, $5)', [tenant.id, id, name, format, entries.length]);
      for (let start = 0; start < entries.length; start += INSERT_BATCH) {
        const batch = entries.slice(start, start + INSERT_BATCH);
        await manager.query(
          `INSERT INTO semantic_entries (tenant_id, dictionary_id, concept_id, norm, content, search_text, is_case_of)
           SELECT $1, $2, c, semantic_norm(c), t::jsonb, s, ARRAY(SELECT semantic_norm(v) FROM jsonb_array_elements_text(i::jsonb) AS v)
             FROM unnest($3::text[], $4::text[], $5::text[], $6::text[]) WITH ORDINALITY AS u(c, t, s, i, n) ORDER BY n`,
          [tenant.id, id, batch.map((e) => e.conceptId), batch.map((e) => JSON.stringify(e.meaning)), batch.map(searchTextOf), batch.map((e) => JSON.stringify(e.isCaseOf))],
        );
      }
    });
    return this.dictionary(tenant, id);
  }

  /** Imports an uploaded dictionary file (a path on disk): `format` as the client named it, else detected (entriesOfFile). */
  async importDictionaryFile(tenant: TenantEntity, file: string, info: { contentType: string; fileName: string }, name: string | undefined, format: DictionaryFormat | undefined): Promise<DictionaryView> {
    const read = await entriesOfFile(file, info, format);
    return this.importDictionary(tenant, name ?? info.fileName, read.format, read.entries);
  }

  async dictionaries(tenant: TenantEntity, limit: number, cursor: string | null): Promise<Page<DictionaryView>> {
    const list = cursorList('semantic-dictionaries', tenant.id);
    const after = afterOf(list, limit, cursor);
    const rows: DictionaryRow[] = await this.dataSource.query('SELECT * FROM semantic_dictionaries WHERE tenant_id = $1 AND seq > $2 ORDER BY seq LIMIT $3', [tenant.id, after, limit + 1]);
    return pageOf(list, rows, limit, dictionaryView);
  }

  async dictionary(tenant: TenantEntity, id: string): Promise<DictionaryView> {
    if (!isUuid(id)) throw dictionaryNotFound(id);
    const [row]: DictionaryRow[] = await this.dataSource.query('SELECT * FROM semantic_dictionaries WHERE tenant_id = $1 AND id = $2', [tenant.id, id]);
    if (!row) throw dictionaryNotFound(id);
    return dictionaryView(row);
  }

  /** Deletes a dictionary with all of its entries (one statement: the entries go by their foreign key). */
  async deleteDictionary(tenant: TenantEntity, id: string): Promise<void> {
    if (!isUuid(id)) throw dictionaryNotFound(id);
    const [, deleted] = (await this.dataSource.query('DELETE FROM semantic_dictionaries WHERE tenant_id = $1 AND id = $2', [tenant.id, id])) as [unknown[], number];
    if (!deleted) throw dictionaryNotFound(id);
  }

  /**
   * The entries whose id, names or definitions contain `text` (case-insensitive), of one dictionary or of all, in
   * import order, paged. A `LIKE '%text%'` on the lower-cased search text, which the trigram index of migration
   * SemanticSearchAndClosure serves for texts of three characters and more; the planner reads along the primary key
   * instead where it expects a page to fill soon (a common text) or the text is shorter.
   */
  async searchEntries(tenant: TenantEntity, text: string, dictionaryId: string | null, limit: number, cursor: string | null): Promise<Page<EntryView>> {
    if (text.trim() === '') throw badRequest('The search text is empty.');
    if (text.length > LIMITS.searchText) throw badRequest(`The search text is longer than ${LIMITS.searchText} characters.`);
    if (dictionaryId != null) await this.dictionary(tenant, dictionaryId);
    const needle = text.trim().toLowerCase();
    const list = cursorList('semantic-entries', tenant.id, needle, dictionaryId);
    const after = afterOf(list, limit, cursor);
    const rows: EntryRow[] = await this.dataSource.query(
      `SELECT e.dictionary_id, d.name AS dictionary_name, e.concept_id, e.norm, e.content, e.is_case_of, e.seq FROM semantic_entries e
         JOIN semantic_dictionaries d ON d.tenant_id = $1 AND d.id = e.dictionary_id
        WHERE e.tenant_id = $1 AND e.seq > $2 AND e.search_text LIKE $3 ${dictionaryId != null ? 'AND e.dictionary_id = $5' : ''}
        ORDER BY e.seq LIMIT $4`,
      dictionaryId != null ? [tenant.id, after, contains(needle), limit + 1, dictionaryId] : [tenant.id, after, contains(needle), limit + 1],
    );
    return pageOf(list, rows, limit, (row) => ({
      dictionaryId: row.dictionary_id,
      dictionaryName: row.dictionary_name,
      conceptId: row.concept_id,
      key: row.norm,
      meaning: row.content,
      isCaseOf: row.is_case_of,
    }));
  }

  /** Declares `members` equivalent (2 to LIMITS.membersPerSet ids). */
  async createEquivalenceSet(tenant: TenantEntity, name: string | null, members: string[]): Promise<EquivalenceSetView> {
    if (name != null) checkName(name, false);
    if (!Array.isArray(members) || members.length < 2) throw badRequest('An equivalence set has at least 2 members.');
    if (members.length > LIMITS.membersPerSet) throw badRequest(`An equivalence set has at most ${LIMITS.membersPerSet} members.`);
    members.forEach((member, i) => checkId(member, `members[${i}]`));
    if (new Set(members).size !== members.length) throw badRequest('An equivalence set names each member once.');
    const id = randomUUID();
    await this.dataSource.transaction(async (manager) => {
      await manager.query('SELECT id FROM tenants WHERE id = $1 FOR NO KEY UPDATE', [tenant.id]);
      const [{ count }] = await manager.query('SELECT count(*)::int AS count FROM semantic_equivalence_sets WHERE tenant_id = $1', [tenant.id]);
      if (count >= LIMITS.equivalenceSetsPerTenant) throw badRequest(`A tenant has at most ${LIMITS.equivalenceSetsPerTenant} equivalence sets; delete one first.`);
      await manager.query('INSERT INTO semantic_equivalence_sets (tenant_id, id, name) VALUES ($1, $2, $3)', [tenant.id, id, name]);
      await manager.query(
        'INSERT INTO semantic_equivalences (tenant_id, set_id, ord, member, norm) SELECT $1, $2, n, m, semantic_norm(m) FROM unnest($3::text[]) WITH ORDINALITY AS u(m, n)',
        [tenant.id, id, members],
      );
    });
    return this.equivalenceSet(tenant, id);
  }

  async equivalenceSets(tenant: TenantEntity, limit: number, cursor: string | null): Promise<Page<EquivalenceSetView>> {
    const list = cursorList('semantic-equivalence-sets', tenant.id);
    const after = afterOf(list, limit, cursor);
    const rows: SetRow[] = await this.dataSource.query(`${SET_SELECT} AND s.seq > $2 ORDER BY s.seq LIMIT $3`, [tenant.id, after, limit + 1]);
    return pageOf(list, rows, limit, setView);
  }

  async equivalenceSet(tenant: TenantEntity, id: string): Promise<EquivalenceSetView> {
    if (!isUuid(id)) throw setNotFound(id);
    const [row]: SetRow[] = await this.dataSource.query(`${SET_SELECT} AND s.id = $2`, [tenant.id, id]);
    if (!row) throw setNotFound(id);
    return setView(row);
  }

  async deleteEquivalenceSet(tenant: TenantEntity, id: string): Promise<void> {
    if (!isUuid(id)) throw setNotFound(id);
    const [, deleted] = (await this.dataSource.query('DELETE FROM semantic_equivalence_sets WHERE tenant_id = $1 AND id = $2', [tenant.id, id])) as [unknown[], number];
    if (!deleted) throw setNotFound(id);
  }

  /**
   * The submodels and elements of the tenant whose semanticId (an element's first key) matches `id`, in insertion
   * order of the submodels, each submodel before its elements in document order, paged.
   */
  async whereUsed(tenant: TenantEntity, id: string, matching: SemanticMatching, limit: number, cursor: string | null): Promise<Page<Usage>> {
    checkId(id);
    const keys = matching === 'equivalent' ? (await this.equivalentKeys(tenant, [id]))[0] : null;
    const list = cursorList('semantic-where-used', tenant.id, id, matching);
    const problem = checkLimit(limit);
    if (problem) throw badRequest(problem);
    let after: { seq: number; ord: number[] } = { seq: 0, ord: [] };
    if (cursor != null) {
      const key = decodeCursor(list, cursor);
      const match = typeof key === 'string' ? /^(\d{1,15}):((?:\d{1,10}(?:,\d{1,10})*)?)$/.exec(key) : null;
      if (!match) throw badRequest('The cursor is not one this list issued.');
      after = { seq: Number(match[1]), ord: match[2] ? match[2].split(',').map(Number) : [] };
    }
    const submodelMatch = keys ? 'semantic_norms(s.semantic_keys) && $2::text[]' : "s.semantic_keys @> ARRAY['value:' || $2::text]";
    const elementMatch = keys ? 'md5(semantic_norm(e.semantic_key)) = ANY($5::text[])' : 'md5(semantic_norm(e.semantic_key)) = md5(semantic_norm($2::text)) AND e.semantic_key = $2::text';
    const rows: { seq: string; ord: number[]; submodel_id: string; path: string | null; model_type: string; semantic_id: string }[] = await this.dataSource.query(
      `SELECT * FROM (
         SELECT s.seq, '{}'::int[] AS ord, s.id AS submodel_id, NULL AS path, 'Submodel' AS model_type, s.doc #>> '{semanticId,keys,0,value}' AS semantic_id
           FROM submodels s WHERE s.tenant_id = $1 AND ${submodelMatch}
         UNION ALL
         SELECT e.submodel_seq, e.ord, s.id, e.path, e.model_type, e.semantic_key
           FROM submodel_elements e JOIN submodels s ON s.tenant_id = $1 AND s.seq = e.submodel_seq
          WHERE e.tenant_id = $1 AND e.semantic_key IS NOT NULL AND ${elementMatch}
       ) u WHERE (u.seq, u.ord) > ($3::bigint, $4::int[]) ORDER BY u.seq, u.ord LIMIT ${limit + 1}`,
      keys ? [tenant.id, keys, after.seq, after.ord, keys.map(md5)] : [tenant.id, id, after.seq, after.ord],
    );
    const more = rows.length > limit;
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    return {
      items: page.map((r) => ({ submodelId: r.submodel_id, idShortPath: r.path, modelType: r.model_type, semanticId: r.semantic_id })),
      cursor: more ? encodeCursor(list, `${last.seq}:${last.ord.join(',')}`) : null,
    };
  }

  /**
   * The shells of the tenant that reference a submodel carrying `id` (the submodel's semanticId or one of its
   * elements'), in insertion order, paged: their ids.
   */
  async shellsUsing(tenant: TenantEntity, id: string, matching: SemanticMatching, limit: number, cursor: string | null): Promise<Page<string>> {
    checkId(id);
    const keys = matching === 'equivalent' ? (await this.equivalentKeys(tenant, [id]))[0] : null;
    const list = cursorList('semantic-shells-using', tenant.id, id, matching);
    const after = afterOf(list, limit, cursor);
    const submodelMatch = keys ? 'semantic_norms(s.semantic_keys) && $2::text[]' : "s.semantic_keys @> ARRAY['value:' || $2::text]";
    const elementMatch = keys ? 'md5(semantic_norm(e.semantic_key)) = ANY($5::text[])' : 'md5(semantic_norm(e.semantic_key)) = md5(semantic_norm($2::text)) AND e.semantic_key = $2::text';
    const rows: { seq: string; id: string }[] = await this.dataSource.query(
      `WITH carrying AS (
         SELECT s.id FROM submodels s WHERE s.tenant_id = $1 AND ${submodelMatch}
         UNION
         SELECT s.id FROM submodel_elements e JOIN submodels s ON s.tenant_id = $1 AND s.seq = e.submodel_seq
          WHERE e.tenant_id = $1 AND e.semantic_key IS NOT NULL AND ${elementMatch})
       SELECT sh.seq, sh.id FROM shells sh WHERE sh.tenant_id = $1 AND sh.seq > $3 AND sh.submodel_ids && ARRAY(SELECT id FROM carrying)
        ORDER BY sh.seq LIMIT $4`,
      keys ? [tenant.id, keys, after, limit + 1, keys.map(md5)] : [tenant.id, id, after, limit + 1],
    );
    return pageOf(list, rows, limit, (row) => row.id);
  }
}

/**
 * The equivalence closure of the keys `$2` (one per id asked for, numbered `i` from 1), as CTEs `closure` (every key
 * reached, with the steps it is away) and `closure_keys` (each key of each id once). A step leads from a key to the
 * members of its sets, its concepts' isCaseOf and the concepts that are a case of it (`semantic_neighbours`, migration
 * SemanticSearchAndClosure, in PL/pgSQL since SemanticNeighboursPlanned: index lookups, the GIN indexes on the isCaseOf keys among them). `$3` caps the rows read from the recursion (closureCap): a closure gone wider than
 * LIMITS.closureKeys stops there instead of being walked to its end.
 * The keys are read through a sub-select (`(SELECT $2::text[])`), which hides their number from the planner: with
 * `unnest($2)` a plan made for the values (a custom plan) knew it (1 key, not the generic plan's guess of 10) and was
 * always estimated cheaper than the generic one, so PostgreSQL planned the statement anew at every execution (0.5 ms,
 * more than its execution); now the generic plan of the named statement serves after five executions.
 */
const CLOSURE = `
  WITH RECURSIVE closure(i, key, depth) AS (
    SELECT u.i, u.key, 0 FROM unnest((SELECT $2::text[])) WITH ORDINALITY AS u(key, i)
    UNION
    SELECT c.i, n.key, c.depth + 1 FROM closure c CROSS JOIN LATERAL semantic_neighbours($1, c.key) AS n(key)
     WHERE c.depth < ${LIMITS.closureRounds} AND n.key IS NOT NULL),
  closure_read AS MATERIALIZED (SELECT i, key, depth FROM closure LIMIT $3),
  closure_keys AS MATERIALIZED (SELECT i, key, min(depth) AS depth FROM closure_read GROUP BY i, key)`;

/**
 * The statement of a resolve (SemanticService.resolveMany): the concept descriptions and the dictionary entries, each
 * as one JSON array. Exact: those with the id as written (`$1` tenant, `$2` their keys' md5, `$3` the ids' md5, `$4`
 * the ids); equivalent: the keys of the closure (CLOSURE: `$1` tenant, `$2` the ids' keys, `$3` the cap) and those
 * with any of them (hashes computed in SQL).
 */
export function resolveStatement(matching: SemanticMatching): string {
  const exact = matching === 'exact';
  const hashes = exact ? '$2::text[]' : 'ARRAY(SELECT DISTINCT md5(key) FROM closure_keys)';
  const cdMatch = exact ? `md5(c.id) = ANY($3::text[]) AND c.id = ANY($4::text[])` : `md5(semantic_norm(c.id)) = ANY(${hashes})`;
  return `${exact ? '' : CLOSURE}
       SELECT ${exact ? '' : `${CLOSURE_KEYS} AS keys,`}
         (SELECT json_agg(json_build_object('id', c.id, 'id_short', c.id_short, 'doc', c.doc, 'norm', semantic_norm(c.id)) ORDER BY c.seq)
            FROM concept_descriptions c WHERE c.tenant_id = $1 AND ${cdMatch}) AS cds,
         (SELECT json_agg(x ORDER BY x.dseq, x.seq) FROM (
            SELECT e.dictionary_id, d.name AS dictionary_name, d.seq AS dseq, e.concept_id, e.norm, e.content, e.seq FROM semantic_entries e
              JOIN semantic_dictionaries d ON d.tenant_id = $1 AND d.id = e.dictionary_id
             WHERE e.tenant_id = $1 AND md5(e.norm) = ANY(${hashes})${exact ? ' AND e.concept_id = ANY($4::text[])' : ''}
             ORDER BY d.seq, e.seq LIMIT 1000) x) AS entries`;
}

/** The closure's answer: `[i, keys]` per id (keys nearest first), and whether the cap of rows was reached. */
const CLOSURE_KEYS = `json_build_object(
    'capped', (SELECT count(*) FROM closure_read) >= $3,
    'keys', (SELECT json_agg(json_build_array(i, keys)) FROM (SELECT i, array_agg(key ORDER BY depth, key) AS keys FROM closure_keys GROUP BY i) AS k))`;

interface ClosureKeys {
  capped: boolean;
  keys: [number, string[]][] | null;
}

/**
 * Rows the closure may read for `ids` ids: each id's keys appear at most once per step (0 to closureRounds), so
 * more rows than this mean some id reached more than LIMITS.closureKeys keys.
 */
const closureCap = (ids: number) => ids * (LIMITS.closureRounds + 1) * LIMITS.closureKeys + 1;

/** The keys of each id from the closure's answer, its own key first; a closure wider than LIMITS.closureKeys is a 400. */
function keysOfClosure(own: string[], closure: ClosureKeys): string[][] {
  const byId = new Map((closure.keys ?? []).map(([i, keys]) => [i, keys]));
  const sets = own.map((key, i) => [key, ...(byId.get(i + 1) ?? []).filter((k) => k !== key)]);
  if (closure.capped || sets.some((keys) => keys.length > LIMITS.closureKeys)) {
    throw badRequest(`The equivalents of this semantic id are more than ${LIMITS.closureKeys} ids: narrow the tenant's equivalence sets.`);
  }
  return sets;
}

const SET_SELECT = `SELECT s.id, s.name, s.created_at, s.seq, ARRAY(SELECT m.member FROM semantic_equivalences m WHERE m.tenant_id = $1 AND m.set_id = s.id ORDER BY m.ord) AS members
  FROM semantic_equivalence_sets s WHERE s.tenant_id = $1`;

interface DictionaryRow {
  id: string;
  seq: string;
  name: string;
  format: DictionaryFormat;
  entry_count: number;
  created_at: Date;
}

interface SetRow {
  id: string;
  seq: string;
  name: string | null;
  created_at: Date;
  members: string[];
}

const dictionaryView = (row: DictionaryRow): DictionaryView => ({ id: row.id, name: row.name, format: row.format, entryCount: row.entry_count, createdAt: row.created_at });
const setView = (row: SetRow): EquivalenceSetView => ({ id: row.id, name: row.name, members: row.members, createdAt: row.created_at });

function afterOf(list: string, limit: number, cursor: string | null): number {
  const problem = checkLimit(limit);
  if (problem) throw badRequest(problem);
  if (cursor == null) return 0;
  const key = decodeCursor(list, cursor);
  if (typeof key !== 'number') throw badRequest('The cursor is not one this list issued.');
  return key;
}

function pageOf<R extends { seq: string }, T>(list: string, rows: R[], limit: number, view: (row: R) => T): Page<T> {
  const more = rows.length > limit;
  const page = rows.slice(0, limit);
  return { items: page.map(view), cursor: more ? encodeCursor(list, Number(page[page.length - 1].seq)) : null };
}

function checkId(id: string, what = 'The semantic id'): void {
  if (typeof id !== 'string' || id.trim() === '') throw badRequest(`${what} is empty.`);
  if (id.length > MAX_ID) throw badRequest(`${what} is longer than ${MAX_ID} characters.`);
}

function checkName(name: string, required: boolean): void {
  if (required && (typeof name !== 'string' || name.trim() === '')) throw badRequest('The dictionary needs a name.');
  if (name.length > LIMITS.name) throw badRequest(`A name has at most ${LIMITS.name} characters.`);
}

const dictionaryNotFound = (id: string) => notFound(`No dictionary with id '${id.slice(0, 100)}'.`);
const setNotFound = (id: string) => notFound(`No equivalence set with id '${id.slice(0, 100)}'.`);
