import { badRequest } from '../../graphql/errors';
import type { Condition, Field, Operand, Query, QueryTarget, ValueType } from './ast';
import { Chunk, fieldChunks } from './fields';
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
}

/** The tables of the targets the SQL translation serves today (descriptors come with the registries' queries). */
export const TARGET_TABLES: Partial<Record<QueryTarget, string>> = {
  shells: 'shells',
  submodels: 'submodels',
  conceptDescriptions: 'concept_descriptions',
};

export function toSql(query: Query, target: QueryTarget, options: SqlOptions = {}): SqlCondition {
  const table = TARGET_TABLES[target];
  if (!table) throw badRequest(`Queries over ${target} are not supported yet`);
  if (query.target && query.target !== target) {
    throw badRequest(`Invalid query at /$condition: its fields address ${query.target}, but the query is over ${target}`);
  }
  const compiler = new Compiler(options.doc ?? 'doc', options.firstParam ?? 1);
  const where = compiler.condition(query.condition, new Map());
  return { table, where, params: compiler.params };
}

/** A list element bound by an enclosing `$match`: chunk key -> SQL alias of the element (`alias.e`). */
type Bindings = Map<string, string>;

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

/** A typed SQL expression, or a type error. */
type Typed = { sql: string; type: ValueType | 'untyped' } | { error: true };

const HEX_WIDTH = 64;
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
    private readonly firstParam: number,
  ) {}

  private param(value: unknown, type: string): string {
    this.params.push(value);
    return `$${this.firstParam + this.params.length - 1}::${type}`;
  }

  condition(c: Condition, bound: Bindings): string {
    switch (c.kind) {
      case 'and':
      case 'or':
        return `(${c.items.map((i) => this.condition(i, bound)).join(c.kind === 'and' ? ' AND ' : ' OR ')})`;
      case 'not':
        return `(NOT ${this.condition(c.item, bound)})`;
      case 'boolean':
        return c.value ? 'TRUE' : 'FALSE';
      case 'match':
        return this.match(c.items, bound);
      case 'compare':
        return this.compare(c.op, c.left, c.right, bound);
    }
  }

  /** The chunks of a field still to evaluate, and what they start from (the document or a bound element). */
  private resolve(field: Field, bound: Bindings): { base: string; chunks: Chunk[] } {
    const chunks = fieldChunks(field);
    for (let k = chunks.length - 2; k >= 0; k--) {
      const alias = bound.get(chunks[k].key);
      if (alias) return { base: `${alias}.e`, chunks: chunks.slice(k + 1) };
    }
    return { base: this.doc, chunks };
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

  private match(items: Condition[], bound: Bindings): string {
    const listed: Chunk[][] = [];
    let start = this.doc;
    const visit = (o: Operand): void => {
      if (o.kind === 'cast') visit(o.operand);
      if (o.kind !== 'field') return;
      const { base, chunks } = this.resolve(o, bound);
      if (chunks.length > 1) {
        if (!listed.length) start = base;
        listed.push(chunks.slice(0, -1));
      }
    };
    for (const c of items) if (c.kind === 'compare') [c.left, c.right].forEach(visit);
    // The longest chain of list chunks all list fields share (parse made sure they share the first one).
    let common = listed.length ? listed[0].length : 0;
    for (const chain of listed) {
      let k = 0;
      while (k < common && k < chain.length && chain[k].key === listed[0][k].key) k++;
      common = k;
    }
    const body = (inner: Bindings) => items.map((i) => this.condition(i, inner)).join(' AND ');
    if (common === 0) return `(${body(bound)})`;
    const fromItems: string[] = [];
    const { keyAliases } = this.from(start, listed[0].slice(0, common), fromItems);
    const inner = new Map([...bound, ...keyAliases]);
    return `EXISTS (SELECT 1 FROM ${fromItems.join(', ')} WHERE ${body(inner)})`;
  }

  private compare(op: string, left: Operand, right: Operand, bound: Bindings): string {
    const sources: string[] = [];
    const stringOp = STRING_OPS.has(op);
    const [lt, rt] = [typeOf(left), typeOf(right)];
    let type: ValueType;
    if (stringOp) type = 'string';
    else if (lt && rt && lt !== rt) return 'NULL::boolean';
    else type = lt ?? rt ?? 'string';
    const a = this.operand(left, type, bound, sources);
    if (a === null) return 'NULL::boolean';
    let cmp: string;
    const pattern = stringOp && op !== '$regex' ? constantOf(right) : undefined;
    if (pattern === null) return 'NULL::boolean';
    if (pattern) {
      // A constant pattern becomes one LIKE parameter, its wildcards escaped.
      const text = escapeLike(String(pattern.value));
      const like = op === '$contains' ? `%${text}%` : op === '$starts-with' ? `${text}%` : `%${text}`;
      cmp = `${a} LIKE ${this.param(like, 'text')}`;
    } else {
      const b = this.operand(right, type, bound, sources);
      if (b === null) return 'NULL::boolean';
      cmp = comparison(op, type, a, b);
    }
    return sources.length ? `(SELECT bool_or(${cmp}) FROM ${sources.join(', ')})` : `(${cmp})`;
  }

  /** An operand as an SQL expression of `type`'s PostgreSQL type; null for a type error known now. */
  private operand(o: Operand, type: ValueType, bound: Bindings, sources: string[]): string | null {
    const typed = this.typed(o, bound, sources);
    if ('error' in typed) return null;
    return typed.type === type ? typed.sql : coerce(typed.sql, typed.type, type);
  }

  private typed(o: Operand, bound: Bindings, sources: string[]): Typed {
    const constant = constantOf(o);
    if (constant !== undefined) {
      if (constant === null) return { error: true };
      const v = constant.type === 'hex' ? hexKey(constant.value as string) : constant.value;
      return { sql: this.param(v, SQL_TYPE[constant.type]), type: constant.type };
    }
    if (o.kind === 'field') return { sql: `(${this.sourcesOf(o, bound, sources)} #>> '{}')`, type: 'untyped' };
    if (o.kind === 'cast') {
      const inner = this.typed(o.operand, bound, sources);
      if ('error' in inner) return inner;
      return { sql: inner.type === o.to ? inner.sql : coerce(inner.sql, inner.type, o.to), type: o.to };
    }
    throw new Error('constant operands are folded above');
  }

  /** Adds the FROM items that yield a field's values; returns the SQL (jsonb) of one value. */
  private sourcesOf(field: Field, bound: Bindings, sources: string[]): string {
    const { base, chunks } = this.resolve(field, bound);
    return this.from(base, chunks, sources).base;
  }
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

/** The text SQL expression `t` as `to`, NULL where it does not convert. */
function coerce(sql: string, from: ValueType | 'untyped', to: ValueType): string {
  const t = from === 'untyped' || from === 'string' ? sql : `(${sql})::text`;
  switch (to) {
    case 'string':
      return t;
    case 'number':
      return `(CASE WHEN ${t} ~ ${sqlRegex(NUMBER)} THEN btrim(${t})::numeric END)`;
    case 'boolean':
      return `(CASE lower(btrim(${t})) WHEN 'true' THEN TRUE WHEN '1' THEN TRUE WHEN 'false' THEN FALSE WHEN '0' THEN FALSE END)`;
    case 'time':
      return `(CASE WHEN ${t} ~ ${sqlRegex(TIME)} THEN (${t})::time END)`;
    case 'hex':
      return `(CASE WHEN ${t} ~ '^(16#)?[0-9A-Fa-f]{1,${HEX_WIDTH}}$' THEN lpad(upper(regexp_replace(${t}, '^16#', '')), ${HEX_WIDTH}, '0') END)`;
    case 'dateTime':
      return dateTimeOf(t);
  }
}

/**
 * A text as timestamptz, NULL unless it is an ISO date-time with a real calendar day (year 1..9999). A
 * date-time without offset is UTC.
 */
function dateTimeOf(t: string): string {
  const shape =
    "'^(000[1-9]|00[1-9][0-9]|0[1-9][0-9]{2}|[1-9][0-9]{3})-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])[Tt ]([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](\\.[0-9]{1,9})?([Zz]|[+-]([01][0-9]|2[0-3]):[0-5][0-9])?$'";
  const lastDay = `extract(day from make_date(substr(${t}, 1, 4)::int, substr(${t}, 6, 2)::int, 1) + interval '1 month - 1 day')`;
  const zoned = `(CASE WHEN ${t} ~ '([Zz]|[+-][0-9]{2}:[0-9]{2})$' THEN upper(${t}) ELSE ${t} || 'Z' END)`;
  return `(CASE WHEN ${t} ~ ${shape} THEN (CASE WHEN substr(${t}, 9, 2)::int <= ${lastDay} THEN ${zoned}::timestamptz END) END)`;
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
    const collate = type === 'string' || type === 'hex' ? ' COLLATE "C"' : '';
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
