import { createHash } from 'node:crypto';
import { badRequest } from '../../graphql/errors';
import type { Condition, Field, Operand, Query, QueryTarget, ValueType } from './ast';
import { Chunk, ElementPattern, elementPattern, fieldChunks } from './fields';
import { isDateTime } from './parse';

/**
 * Translates a parsed query into one parameterized SQL condition over the stored JSON documents, for
 *
 *   SELECT ... FROM <table> WHERE tenant_id = $1 AND (<where>)
 *
 * Semantics (IDTA-01002-3, "Query Language"):
 * - A field yields the atomic values it addresses (none when absent); a comparison holds when it holds for some
 *   value (`[]` is "any element"). Reference attributes without `.keys` stand for the first key's value.
 * - Comparisons are typed. A bare field is a string unless the other operand has a type (a literal or an
 *   explicit cast): then the field's value is cast to that type. Two typed operands of different types, or a
 *   value that does not cast, are a type error: the comparison is invalid (SQL NULL), never an SQL error, so the
 *   object is not returned (and `$not` of it is not true either). Strings compare by code point.
 * - `$match` evaluates its conditions on the same element of the lists its fields share (the longest common
 *   `[]` prefix); `$sme#...` without a path searches all elements at any depth, so `$match` over `$sme#...` fields
 *   means "the same element".
 * Every value the client sent is a `$n` parameter; the SQL/JSON paths are built from the grammar's fixed names
 * and carry idShorts as path variables.
 *
 * `$sme` fields read the submodel document through SQL/JSON paths (`fieldChunks`); once elements are stored as
 * rows of their own, `sourcesOf` is the one place that changes: a field's values then come from element rows.
 */
export interface SqlCondition {
  /** The table the condition is evaluated on (its `doc` column). */
  table: string;
  where: string;
  params: unknown[];
}

export interface SqlOptions {
  /** The SQL expression of the stored document; `doc` unless the caller aliases the table. */
  doc?: string;
  /** The number of the first parameter (the caller's own parameters come first, e.g. the tenant id as $1). */
  firstParam?: number;
  /** The SQL alias of the row (its `tenant_id` and `seq`), when the caller aliases the table: `$sme` conditions join element rows on it. */
  row?: string;
  /**
   * The SQL expression of the tenant id (the caller's parameter, e.g. `$1`): element rows are joined on it, so that
   * every table of the statement names the tenant (Citus routes such a statement to the tenant's shard). Without
   * it, on the row's `tenant_id`.
   */
  tenant?: string;
  /**
   * The semantic connector's equivalence (src/aas/semantics/): for each string a `$eq` compares a `semanticId` field
   * with (semanticIdLiterals), the equivalence keys it matches; such a comparison then holds for a semanticId whose
   * key (`semantic_norm`) is one of them. Absent: semantic ids compare as written.
   */
  semanticKeys?: ReadonlyMap<string, readonly string[]>;
  /**
   * How many comparisons on element rows a conjunction may have before all but its first are read in one pass over the
   * submodel's element rows (`ELEMENT_FOLD_ABOVE` unless given; tests lower it to compare both forms).
   */
  foldElementsAbove?: number;
  /** How many `$sme` fields the query may read (QUERY_MAX_ELEMENT_CONDITIONS); more: 400. Absent or 0: no bound. */
  maxElementConditions?: number;
}

/** Whether `o` is a field that reads a semanticId (its first key's value). */
const isSemanticIdField = (o: Operand): boolean =>
  o.kind === 'field' && o.attribute.length === 1 && o.attribute[0].name === 'semanticId' && o.attribute[0].index === undefined;

/** The strings the condition compares semanticIds with by `$eq` (what `SqlOptions.semanticKeys` maps). */
export function semanticIdLiterals(c: Condition, out = new Set<string>()): string[] {
  if (c.kind === 'and' || c.kind === 'or' || c.kind === 'match') for (const item of c.items) semanticIdLiterals(item, out);
  else if (c.kind === 'not') semanticIdLiterals(c.item, out);
  else if (c.kind === 'compare' && c.op === '$eq') {
    for (const [field, other] of [[c.left, c.right], [c.right, c.left]]) {
      if (isSemanticIdField(field) && other.kind === 'literal' && other.type === 'string') out.add(other.value as string);
    }
  }
  return [...out];
}

/**
 * The tables of the targets the SQL translation serves. Descriptors: those of explicit AAS registries (a submodel
 * descriptor is an element of its shell descriptor's `submodelDescriptors`, so `doc` names that element); the
 * implicit registries evaluate the same conditions on descriptors derived in SQL (registry/descriptor-query.service.ts).
 */
export const TARGET_TABLES: Partial<Record<QueryTarget, string>> = {
  shells: 'shells',
  submodels: 'submodels',
  conceptDescriptions: 'concept_descriptions',
  shellDescriptors: 'shell_descriptors',
  submodelDescriptors: 'shell_descriptors',
};

/**
 * Refuses (400) a query that reads more `$sme` fields than `max` (QUERY_MAX_ELEMENT_CONDITIONS; absent or 0: no
 * bound). `toSql` checks it; a service checks it first as well, so that a query refused by it costs nothing else.
 */
export function checkElementConditions(query: Query, max: number | undefined): void {
  if (!max) return;
  const elementConditions = elementFields(query.condition);
  if (elementConditions > max) {
    throw badRequest(
      `Invalid query at /$condition: it reads ${elementConditions} submodel element fields ($sme), more than the ${max} ` +
        `this server allows in one query (QUERY_MAX_ELEMENT_CONDITIONS)`,
    );
  }
}

export function toSql(query: Query, target: QueryTarget, options: SqlOptions = {}): SqlCondition {
  const table = TARGET_TABLES[target];
  if (!table) throw badRequest(`Queries over ${target} are not supported yet`);
  if (query.target && query.target !== target) {
    throw badRequest(`Invalid query at /$condition: its fields address ${query.target}, but the query is over ${target}`);
  }
  checkElementConditions(query, options.maxElementConditions);
  const row = options.row ?? table;
  // The id columns are the document's only where the document is the row's own.
  const idColumns = IDENTIFIABLE_TABLES.has(target) && (options.doc === undefined || options.doc === `${row}.doc`);
  const compiler = new Compiler(options.doc ?? 'doc', row, options.tenant ?? `${row}.tenant_id`, options.firstParam ?? 1, idColumns, options.semanticKeys, options.foldElementsAbove ?? ELEMENT_FOLD_ABOVE);
  const where = compiler.condition(query.condition, new Map(), true);
  return { table, where, params: compiler.params };
}

/** How many `$sme` fields a condition reads (each operand that names one; casts looked through). */
function elementFields(c: Condition): number {
  const fields = (o: Operand): number => (o.kind === 'cast' ? fields(o.operand) : o.kind === 'field' && o.root === '$sme' ? 1 : 0);
  switch (c.kind) {
    case 'and':
    case 'or':
    case 'match':
      return c.items.reduce((sum, item) => sum + elementFields(item), 0);
    case 'not':
      return elementFields(c.item);
    case 'compare':
      return fields(c.left) + fields(c.right);
    case 'boolean':
      return 0;
  }
}

/**
 * What an enclosing `$match` bound: a list element (chunk key -> SQL alias of the element, `alias.e`) or an
 * element row (`row:` pattern key -> SQL alias of the `submodel_elements` row).
 */
type Bindings = Map<string, string>;

/** Where a comparison's field values come from: FROM items and the conditions that join them. */
interface Sources {
  from: string[];
  where: string[];
}

/**
 * A comparison whose values come from FROM items (`sources`), before it becomes an `EXISTS` (or, under a `$not`, a
 * `bool_or` over them): `cmp` holds for a row of the sources.
 */
interface Sourced {
  sources: Sources;
  cmp: string;
}

/**
 * How many comparisons on element rows one conjunction compiles to `EXISTS` sub-queries of their own. PostgreSQL
 * turns each into a semi-join and searches the join orders of all of them: with 200 such conditions, planning alone
 * took over a minute on the embedded database (which no timeout interrupts), and seconds on PostgreSQL. Beyond the
 * bound, the first stays an `EXISTS` (an index lookup that finds the candidate submodels) and the others are
 * evaluated in one pass over the candidate's element rows (`Compiler.foldElements`).
 */
export const ELEMENT_FOLD_ABOVE = 4;

/** The targets whose rows have `id` and `id_short` columns beside their document (the identifiable store's tables). */
const IDENTIFIABLE_TABLES = new Set<QueryTarget>(['shells', 'submodels', 'conceptDescriptions']);

/** The PostgreSQL type each query type compares as. */
const SQL_TYPE: Record<ValueType, string> = {
  string: 'text',
  number: 'numeric',
  hex: 'text',
  dateTime: 'timestamptz',
  time: 'time',
  boolean: 'boolean',
};

/** A constant operand: its type and its value in the form the parameter takes. */
interface Constant {
  type: ValueType;
  value: string | boolean;
}

/**
 * A typed SQL expression, or a type error. `columns`: where the value's casts are stored already (an element's
 * typed value columns), by type.
 */
type Typed = { sql: string; type: ValueType | 'untyped'; columns?: Partial<Record<ValueType, string>> } | { error: true };

const HEX_WIDTH = 64;
/** A comparison of unknown truth: its operands' types do not fit (a type error is neither true nor false). */
const UNKNOWN = 'NULL::boolean';
const STRING_OPS = new Set(['$contains', '$starts-with', '$ends-with', '$regex']);
const NUMBER = /^\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d{1,3})?\s*$/;
const TIME = /^([01]\d|2[0-3]):[0-5]\d(:[0-5]\d(\.\d{1,6})?)?$/;
const HEX = /^(16#)?[0-9A-Fa-f]+$/;

const sqlRegex = (re: RegExp) => `'${re.source.replace(/'/g, "''")}'`;

class Compiler {
  readonly params: unknown[] = [];
  private aliases = 0;

  constructor(
    private readonly doc: string,
    private readonly row: string,
    /** The tenant id's SQL expression (`SqlOptions.tenant`). */
    private readonly tenant: string,
    private readonly firstParam: number,
    /** Whether the row is an identifiable's, whose `id` and `id_short` columns conditions may read. */
    private readonly idColumns: boolean,
    private readonly semanticKeys: ReadonlyMap<string, readonly string[]> | undefined,
    private readonly foldAbove: number,
  ) {}

  /** While set, an `$sme` field's element row is this alias, and `elementRows` leaves out its join to the submodel row. */
  private foldRow?: string;

  private param(value: unknown, type: string): string {
    this.params.push(value);
    return `$${this.firstParam + this.params.length - 1}::${type}`;
  }

  /**
   * `positive`: the condition is under an even number of `$not`s. There a comparison may be two-valued (an
   * `EXISTS`, which PostgreSQL turns into an index lookup and a join), because in Kleene logic an unknown that
   * becomes false there never changes whether the whole condition is true. Under a `$not` it keeps its third
   * value: a comparison on no value, or only on values of another type, is unknown, and so is its negation.
   */
  condition(c: Condition, bound: Bindings, positive: boolean): string {
    switch (c.kind) {
      case 'and':
      case 'or': {
        // Constants are folded here, as PostgreSQL would (a false conjunct, a true disjunct decides), so that no
        // subquery reaches PostgreSQL with a constant among its conditions, which it folds away with the subquery's
        // joins: Citus cannot plan what is left. A constant carries no parameters (they are dropped with it).
        const mark = this.params.length;
        const [decides, neutral] = c.kind === 'and' ? ['FALSE', 'TRUE'] : ['TRUE', 'FALSE'];
        const compiled = c.kind === 'and' && positive ? this.foldElements(c.items, bound) : c.items.map((i) => this.condition(i, bound, positive));
        const parts = compiled.filter((part) => part !== neutral);
        if (parts.includes(decides)) {
          this.params.length = mark;
          return decides;
        }
        if (!parts.length) return neutral;
        return `(${parts.join(c.kind === 'and' ? ' AND ' : ' OR ')})`;
      }
      case 'not': {
        const item = this.condition(c.item, bound, !positive);
        return item === 'TRUE' ? 'FALSE' : item === 'FALSE' ? 'TRUE' : item === UNKNOWN ? UNKNOWN : `(NOT ${item})`;
      }
      case 'boolean':
        return c.value ? 'TRUE' : 'FALSE';
      case 'match':
        return this.match(c.items, bound, positive);
      case 'compare':
        return this.compare(c.op, c.left, c.right, bound, positive);
    }
  }

  /** The rows of `submodel_elements` an `$sme` pattern reads, joined to the submodel row, as `alias`. */
  private elementRows(pattern: ElementPattern, alias: string, sources: Sources): void {
    sources.from.push(`submodel_elements ${alias}`);
    if (alias !== this.foldRow) sources.where.push(`${alias}.tenant_id = ${this.tenant}`, `${alias}.submodel_seq = ${this.row}.seq`);
    if (pattern.idShort !== undefined) sources.where.push(`${alias}.id_short = ${this.param(pattern.idShort, 'text')}`);
    if (pattern.path !== undefined) sources.where.push(`${alias}.path ~ ${this.param(pattern.path, 'text')}`);
  }

  /**
   * The chunks of a field still to evaluate and what they start from: the document, an element row, or a list
   * element a `$match` bound. An `$sme` field whose element row is not bound gets one in `sources`.
   */
  private resolve(field: Field, bound: Bindings, sources: Sources): { base: string; chunks: Chunk[]; row?: string } {
    if (field.root === '$sme') {
      const pattern = elementPattern(field);
      let row = bound.get(`row:${pattern.key}`);
      if (!row) {
        row = this.foldRow ?? `e${this.aliases++}`;
        this.elementRows(pattern, row, sources);
      }
      // The row's JSON is stored as text (`json`): SQL/JSON paths take it as `jsonb`.
      return { ...this.boundChunks(`${row}.json::jsonb`, pattern.chunks, bound), row };
    }
    return this.boundChunks(this.doc, fieldChunks(field), bound);
  }

  private boundChunks(base: string, chunks: Chunk[], bound: Bindings): { base: string; chunks: Chunk[] } {
    for (let k = chunks.length - 2; k >= 0; k--) {
      const alias = bound.get(chunks[k].key);
      if (alias) return { base: `${alias}.e`, chunks: chunks.slice(k + 1) };
    }
    return { base, chunks };
  }

  private from(base: string, chunks: Chunk[], into: string[]): { base: string; keyAliases: [string, string][] } {
    const keyAliases: [string, string][] = [];
    for (const chunk of chunks) {
      const alias = `q${this.aliases++}`;
      into.push(`jsonb_path_query(${base}, ${this.param(chunk.path, 'jsonpath')}, ${this.param(JSON.stringify(chunk.vars), 'jsonb')}) AS ${alias}(e)`);
      keyAliases.push([chunk.key, alias]);
      base = `${alias}.e`;
    }
    return { base, keyAliases };
  }

  /**
   * `$match`: its conditions hold for the same element. `$sme` fields with the same path read one element row;
   * fields with different paths read rows whose stored paths agree up to the binding point the paths share
   * (the element the paths start at, or the list item a `[]` picks). Then the lists the fields reach with `[]`
   * inside the same document or row are bound to the same list element, as far as the fields share them.
   */
  private match(items: Condition[], outer: Bindings, positive: boolean): string {
    const mark = this.params.length;
    const bound = new Map(outer);
    const sources: Sources = { from: [], where: [] };
    const fields: Field[] = [];
    const visit = (o: Operand): void => {
      if (o.kind === 'cast') visit(o.operand);
      if (o.kind === 'field') fields.push(o);
    };
    for (const c of items) if (c.kind === 'compare') [c.left, c.right].forEach(visit);

    // Element rows: one per pattern, and the stored paths of different patterns agree where the patterns do.
    const patterns = new Map<string, { pattern: ElementPattern; alias: string }>();
    for (const field of fields) {
      if (field.root !== '$sme') continue;
      const pattern = elementPattern(field);
      if (bound.has(`row:${pattern.key}`) || patterns.has(pattern.key)) continue;
      const alias = `e${this.aliases++}`;
      this.elementRows(pattern, alias, sources);
      patterns.set(pattern.key, { pattern, alias });
      bound.set(`row:${pattern.key}`, alias);
    }
    const rows = [...patterns.values()];
    if (rows.length > 1) {
      let shared = rows[0].pattern.bindings.map((b) => b.key);
      for (const { pattern } of rows) shared = shared.filter((key) => pattern.bindings.some((b) => b.key === key));
      const point = shared[shared.length - 1];
      if (point !== undefined) {
        const prefixOf = ({ pattern, alias }: { pattern: ElementPattern; alias: string }) =>
          `substring(${alias}.path from ${this.param(pattern.bindings.find((b) => b.key === point)!.capture, 'text')})`;
        for (const other of rows.slice(1)) sources.where.push(`${prefixOf(other)} = ${prefixOf(rows[0])}`);
      }
    }

    // Lists inside one document or row: the longest chain of list chunks all list fields share.
    const listed: { base: string; chunks: Chunk[] }[] = [];
    for (const field of fields) {
      const resolved = this.resolve(field, bound, { from: [], where: [] });
      if (resolved.chunks.length > 1) listed.push({ base: resolved.base, chunks: resolved.chunks.slice(0, -1) });
    }
    let common = listed.length ? listed[0].chunks.length : 0;
    for (const { chunks } of listed) {
      let k = 0;
      while (k < common && k < chunks.length && chunks[k].key === listed[0].chunks[k].key) k++;
      common = k;
    }
    if (common > 0) {
      const { keyAliases } = this.from(listed[0].base, listed[0].chunks.slice(0, common), sources.from);
      for (const [key, alias] of keyAliases) bound.set(key, alias);
    }
    const conditions = items.map((i) => this.condition(i, bound, positive));
    if (sources.from.length && conditions.some((condition) => condition === UNKNOWN || condition === 'FALSE')) {
      // A conjunct false or of unknown truth (a type error): no row matches, so the EXISTS is false. Said here rather
      // than left to PostgreSQL, which folds the subquery's joins away with it: Citus cannot plan what is left.
      this.params.length = mark;
      return 'FALSE';
    }
    if (conditions.includes('FALSE')) {
      this.params.length = mark;
      return 'FALSE';
    }
    const parts = conditions.filter((condition) => condition !== 'TRUE');
    const body = parts.join(' AND ') || 'TRUE';
    if (!sources.from.length) return !parts.length ? 'TRUE' : parts.length === 1 && parts[0] === UNKNOWN ? UNKNOWN : `(${body})`;
    return `EXISTS (SELECT 1 FROM ${sources.from.join(', ')} WHERE ${[...sources.where, `(${body})`].join(' AND ')})`;
  }

  private compare(op: string, left: Operand, right: Operand, bound: Bindings, positive: boolean): string {
    const compared = this.comparison(op, left, right, bound, positive);
    if (typeof compared === 'string') return compared;
    const { sources, cmp } = compared;
    if (!sources.from.length) return `(${cmp})`;
    const from = sources.from.join(', ');
    if (positive) return `EXISTS (SELECT 1 FROM ${from} WHERE ${[...sources.where, `(${cmp})`].join(' AND ')})`;
    return `(SELECT bool_or(${cmp}) FROM ${from}${sources.where.length ? ` WHERE ${sources.where.join(' AND ')}` : ''})`;
  }

  /**
   * A conjunction's items under an even number of `$not`s, compiled. When more than `foldAbove` of them are
   * comparisons that read one element row each (`$sme...#value`, `#semanticId`, `#idShort`), the first of these
   * stays an `EXISTS` and the others become one sub-query over the submodel's element rows, true when each of them
   * holds for some row: `bool_or(c1) AND bool_or(c2) ...`. That is the conjunction of their `EXISTS`s (a `bool_or`
   * over no row, or over rows where its comparison is unknown, is NULL where the `EXISTS` is false: the same under
   * an even number of `$not`s), planned as one sub-plan instead of one semi-join each.
   */
  private foldElements(items: Condition[], bound: Bindings): string[] {
    // Each item is compiled once (a conjunction nests others: compiling one twice would double the work per level).
    // A comparison on one element row reads it as `alias`: below the bound it becomes an `EXISTS` of its own over
    // `alias` (sibling sub-queries may each name their row so), beyond it a test in the pass over `alias`.
    const alias = `f${this.aliases++}`;
    const join = [`${alias}.tenant_id = ${this.tenant}`, `${alias}.submodel_seq = ${this.row}.seq`];
    const compiled: (string | { row: string })[] = [];
    for (const item of items) {
      const start = this.params.length;
      this.foldRow = alias;
      let compared: string | Sourced | undefined;
      try {
        compared = item.kind === 'compare' ? this.comparison(item.op, item.left, item.right, bound, true) : undefined;
      } finally {
        this.foldRow = undefined;
      }
      if (compared && typeof compared !== 'string' && compared.sources.from.length === 1 && compared.sources.from[0] === `submodel_elements ${alias}`) {
        compiled.push({ row: [...compared.sources.where, `(${compared.cmp})`].join(' AND ') });
      } else {
        this.params.length = start;
        compiled.push(this.condition(item, bound, true));
      }
    }
    const exists = (row: string) => `EXISTS (SELECT 1 FROM submodel_elements ${alias} WHERE ${[...join, row].join(' AND ')})`;
    const rows = compiled.flatMap((part) => (typeof part === 'string' ? [] : [part.row]));
    if (rows.length <= this.foldAbove) return compiled.map((part) => (typeof part === 'string' ? part : exists(part.row)));
    const [first, ...rest] = rows;
    const all = `(SELECT ${rest.map((row) => `bool_or(${row})`).join(' AND ')} FROM submodel_elements ${alias} WHERE ${join.join(' AND ')})`;
    return [exists(first), all, ...compiled.filter((part): part is string => typeof part === 'string')];
  }

  /** A comparison: its SQL when it needs no FROM items (or is a constant), else its sources and its test on their rows. */
  private comparison(op: string, left: Operand, right: Operand, bound: Bindings, positive: boolean): string | Sourced {
    const sources: Sources = { from: [], where: [] };
    // A type error found after an operand added its parameters drops them with the comparison.
    const mark = this.params.length;
    const invalid = () => {
      this.params.length = mark;
      return UNKNOWN;
    };
    const stringOp = STRING_OPS.has(op);
    const [lt, rt] = [typeOf(left), typeOf(right)];
    let type: ValueType;
    if (stringOp) type = 'string';
    else if (lt && rt && lt !== rt) return UNKNOWN;
    else type = lt ?? rt ?? 'string';
    const a = this.operand(left, type, bound, sources);
    if (a === null) return invalid();
    let cmp: string;
    // `$eq` is symmetric: the semanticId field may be either operand.
    const [field, literal] = isSemanticIdField(left) ? [left, right] : [right, left];
    const keys = op === '$eq' && isSemanticIdField(field) && literal.kind === 'literal' && literal.type === 'string' ? this.semanticKeys?.get(literal.value as string) : undefined;
    if (keys && field !== left) {
      this.params.length = mark;
      return this.comparison(op, right, left, bound, positive);
    }
    if (keys) {
      // Equivalence: the semanticId's key is one of the literal's equivalence keys. On an element row, by the md5 the
      // row's key index holds (migration SemanticConnector).
      const hashes = keys.map((k) => createHash('md5').update(k, 'utf8').digest('hex'));
      cmp = /\.semantic_key$/.test(a) ? `md5(semantic_norm(${a})) = ANY(${this.param(hashes, 'text[]')})` : `semantic_norm(${a}) = ANY(${this.param(keys, 'text[]')})`;
      return { sources, cmp };
    }
    const pattern = stringOp && op !== '$regex' ? constantOf(right) : undefined;
    if (pattern === null) return invalid();
    if (pattern) {
      // A constant pattern becomes one LIKE parameter, its wildcards escaped.
      const text = escapeLike(String(pattern.value));
      const like = op === '$contains' ? `%${text}%` : op === '$starts-with' ? `${text}%` : `%${text}`;
      cmp = `${a} LIKE ${this.param(like, 'text')}`;
    } else {
      const b = this.operand(right, type, bound, sources);
      if (b === null) return invalid();
      cmp = comparison(op, type, a, b);
    }
    const prefix = ELEMENT_TEXT.test(a) && (op === '$regex' || op === '$starts-with') ? literalPrefix(op, right) : '';
    if (prefix) {
      // The same answer, found through the index on the value's first characters (text_pattern_ops).
      cmp = `(${cmp} AND left(${a}, ${INDEXED_PREFIX}) LIKE ${this.param(`${escapeLike(prefix)}%`, 'text')})`;
    }
    return { sources, cmp };
  }

  /** An operand as an SQL expression of `type`'s PostgreSQL type; null for a type error known now. */
  private operand(o: Operand, type: ValueType, bound: Bindings, sources: Sources): string | null {
    const typed = this.typed(o, bound, sources);
    if ('error' in typed) return null;
    if (typed.type === type) return typed.sql;
    return typed.columns?.[type] ?? coerce(typed.sql, typed.type, type);
  }

  private typed(o: Operand, bound: Bindings, sources: Sources): Typed {
    const constant = constantOf(o);
    if (constant !== undefined) {
      if (constant === null) return { error: true };
      const v = constant.type === 'hex' ? hexKey(constant.value as string) : constant.value;
      return { sql: this.param(v, SQL_TYPE[constant.type]), type: constant.type };
    }
    if (o.kind === 'field') return this.fieldValue(o, bound, sources);
    if (o.kind === 'cast') {
      const inner = this.typed(o.operand, bound, sources);
      if ('error' in inner) return inner;
      if (inner.type === o.to) return inner;
      return { sql: inner.columns?.[o.to] ?? coerce(inner.sql, inner.type, o.to), type: o.to };
    }
    throw new Error('constant operands are folded above');
  }

  /**
   * One value of a field, adding the FROM items that yield its values to `sources`. An element's value,
   * semanticId and idShort are columns of its row (`v_text`, with `v_num` and `v_time` as the casts to number and
   * dateTime, the same functions as `coerce`'s; `semantic_key`): comparisons on them are index lookups.
   */
  private fieldValue(field: Field, bound: Bindings, sources: Sources): Typed {
    const [attribute] = field.attribute;
    // An identifiable's id and idShort are columns of its row (indexed), equal to the document's.
    if (field.root !== '$sme' && this.idColumns && field.attribute.length === 1 && attribute.index === undefined) {
      if (attribute.name === 'id') return { sql: `${this.row}.id`, type: 'untyped' };
      if (attribute.name === 'idShort') return { sql: `${this.row}.id_short`, type: 'untyped' };
    }
    const { base, chunks, row } = this.resolve(field, bound, sources);
    if (row && field.attribute.length === 1 && attribute.index === undefined && chunks.length === 1) {
      if (attribute.name === 'value') {
        return { sql: `${row}.v_text`, type: 'untyped', columns: { number: `${row}.v_num`, dateTime: `${row}.v_time` } };
      }
      if (attribute.name === 'semanticId') return { sql: `${row}.semantic_key`, type: 'untyped' };
      if (attribute.name === 'idShort') return { sql: `${row}.id_short`, type: 'untyped' };
    }
    return { sql: `(${this.from(base, chunks, sources.from).base} #>> '{}')`, type: 'untyped' };
  }
}

/** An element row's text value (`e3.v_text`, or `f3.v_text` in a fold): its first characters are indexed with the row's idShort. */
const ELEMENT_TEXT = /^[ef]\d+\.v_text$/;
/** How many characters of an element's text value its index holds (migration ElementRows). */
const INDEXED_PREFIX = 256;

/**
 * The text every value a `$starts-with` or `$regex` with a constant pattern accepts begins with, at most
 * INDEXED_PREFIX characters; '' when there is none to tell. A regular expression has one when it is anchored
 * (`^`), has no alternation, and begins with literal characters; a literal followed by `?`, `*` or `{` may be
 * absent and is left out.
 */
function literalPrefix(op: string, pattern: Operand): string {
  const constant = constantOf(pattern);
  if (!constant || constant.type !== 'string') return '';
  const text = String(constant.value);
  let prefix: string[];
  if (op === '$starts-with') prefix = Array.from(text);
  else {
    if (!text.startsWith('^') || text.includes('|')) return '';
    prefix = [];
    for (const c of Array.from(text.slice(1))) {
      if ('?*{'.includes(c)) {
        prefix.pop();
        break;
      }
      if ('\\.^$+()[]}'.includes(c)) break;
      prefix.push(c);
    }
  }
  return prefix.slice(0, INDEXED_PREFIX).join('');
}

function typeOf(o: Operand): ValueType | undefined {
  switch (o.kind) {
    case 'field':
      return undefined;
    case 'literal':
      return o.type;
    case 'cast':
      return o.to;
    case 'dateTimePart':
      return 'number';
  }
}

/**
 * A string literal cast as the translation folds it here, never in PostgreSQL (`{ "$numCast": { "$strVal": ... } }`);
 * null where it does not convert. A field's value is cast in PostgreSQL, by `aas_number`/`aas_datetime` (migration
 * 1764700000000-ElementRows); tests hold the two to each other.
 */
export function castLiteral(text: string, to: 'number' | 'dateTime'): string | null {
  const cast = castConstant({ type: 'string', value: text }, to);
  return cast === null ? null : String(cast.value);
}

/** The text SQL expression `t` as `to`, NULL where it does not convert. */
function coerce(sql: string, from: ValueType | 'untyped', to: ValueType): string {
  const t = from === 'untyped' || from === 'string' ? sql : `(${sql})::text`;
  switch (to) {
    case 'string':
      return t;
    case 'number':
      return `aas_number(${t})`;
    case 'boolean':
      return `(CASE lower(btrim(${t})) WHEN 'true' THEN TRUE WHEN '1' THEN TRUE WHEN 'false' THEN FALSE WHEN '0' THEN FALSE END)`;
    case 'time':
      return `(CASE WHEN ${t} ~ ${sqlRegex(TIME)} THEN (${t})::time END)`;
    case 'hex':
      return `(CASE WHEN ${t} ~ '^(16#)?[0-9A-Fa-f]{1,${HEX_WIDTH}}$' THEN lpad(upper(regexp_replace(${t}, '^16#', '')), ${HEX_WIDTH}, '0') END)`;
    case 'dateTime':
      return `aas_datetime(${t})`;
  }
}

const hexKey = (digits: string) => digits.toUpperCase().padStart(HEX_WIDTH, '0');

const OPERATORS: Record<string, string> = { $eq: '=', $ne: '<>', $gt: '>', $ge: '>=', $lt: '<', $le: '<=' };

/** LIKE's wildcards and escape character, escaped (the default escape character is the backslash). */
export const escapeLike = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);
const escapeLikeSql = (sql: string) => `replace(replace(replace(${sql}, '\\', '\\\\'), '%', '\\%'), '_', '\\_')`;

function comparison(op: string, type: ValueType, a: string, b: string): string {
  if (op in OPERATORS) {
    if (type === 'boolean') {
      if (op === '$gt' || op === '$lt') return `(${a} IS NOT NULL AND ${b} IS NOT NULL AND FALSE)`;
      return `${a} ${op === '$ne' ? '<>' : '='} ${b}`;
    }
    // Strings order by code point (COLLATE "C"). Equality needs no collation: under any deterministic one it is
    // the bytes' equality, and without one the column's indexes (in the database's collation) serve it.
    const ordering = op !== '$eq' && op !== '$ne';
    const collate = ordering && (type === 'string' || type === 'hex') ? ' COLLATE "C"' : '';
    return `${a}${collate} ${OPERATORS[op]} ${b}`;
  }
  // A pattern read from a field has its LIKE wildcards escaped in SQL.
  const pattern = (before: string, after: string) => `'${before}' || ${escapeLikeSql(b)} || '${after}'`;
  switch (op) {
    case '$contains':
      return `${a} LIKE ${pattern('%', '%')}`;
    case '$starts-with':
      return `${a} LIKE ${pattern('', '%')}`;
    case '$ends-with':
      return `${a} LIKE ${pattern('%', '')}`;
    case '$regex':
      return `${a} ~ ${b}`;
  }
  throw new Error(`unknown operator ${op}`);
}

/** The value of an operand without fields, folded here (casts of constants never reach PostgreSQL); null for a type error; undefined if it reads a field. */
function constantOf(o: Operand): Constant | null | undefined {
  switch (o.kind) {
    case 'field':
      return undefined;
    case 'literal':
      if (o.type === 'number') return { type: 'number', value: String(o.value) };
      if (o.type === 'dateTime') return isDateTime(o.value as string) ? { type: 'dateTime', value: o.value as string } : null;
      if (o.type === 'hex' && (o.value as string).replace(/^0+(?=.)/, '').length > HEX_WIDTH) return null;
      if (o.type === 'hex') return { type: 'hex', value: (o.value as string).replace(/^0+(?=.)/, '') };
      return { type: o.type, value: o.value as string | boolean };
    case 'dateTimePart':
      return { type: 'number', value: String(dateTimePart(o.part, o.value)) };
    case 'cast': {
      const inner = constantOf(o.operand);
      if (inner === undefined || inner === null) return inner;
      return castConstant(inner, o.to);
    }
  }
}

function dateTimePart(part: 'dayOfWeek' | 'dayOfMonth' | 'month' | 'year', text: string): number {
  const [y, m, d] = [Number(text.slice(0, 4)), Number(text.slice(5, 7)), Number(text.slice(8, 10))];
  if (part === 'year') return y;
  if (part === 'month') return m;
  if (part === 'dayOfMonth') return d;
  return new Date(Date.UTC(y, m - 1, d)).getUTCDay();
}

function castConstant(c: Constant, to: ValueType): Constant | null {
  const text = String(c.value);
  if (c.type === to) return c;
  switch (to) {
    case 'string':
      return { type: 'string', value: c.type === 'hex' ? `16#${text}` : text };
    case 'number':
      if (c.type === 'boolean') return { type: 'number', value: c.value ? '1' : '0' };
      if (c.type === 'hex') return { type: 'number', value: BigInt(`0x${text}`).toString() };
      return c.type === 'string' && NUMBER.test(text) ? { type: 'number', value: text.trim() } : null;
    case 'boolean': {
      if (c.type === 'number') return { type: 'boolean', value: Number(text) !== 0 };
      const lower = text.trim().toLowerCase();
      if (c.type !== 'string') return null;
      return lower === 'true' || lower === '1' ? { type: 'boolean', value: true } : lower === 'false' || lower === '0' ? { type: 'boolean', value: false } : null;
    }
    case 'dateTime': {
      // As for field values, a date-time without offset is UTC.
      if (c.type !== 'string') return null;
      const zoned = isDateTime(text) ? text : `${text}Z`;
      return isDateTime(zoned) ? { type: 'dateTime', value: zoned } : null;
    }
    case 'time':
      if (c.type === 'dateTime') return { type: 'time', value: text.slice(11, 19) };
      return c.type === 'string' && TIME.test(text) ? { type: 'time', value: text } : null;
    case 'hex': {
      if (c.type === 'number') {
        const n = Number(text);
        return Number.isSafeInteger(n) && n >= 0 ? { type: 'hex', value: n.toString(16).toUpperCase() } : null;
      }
      if (c.type !== 'string' || !HEX.test(text)) return null;
      const digits = text.replace(/^16#/, '').toUpperCase().replace(/^0+(?=.)/, '');
      return digits.length > HEX_WIDTH ? null : { type: 'hex', value: digits };
    }
  }
}
