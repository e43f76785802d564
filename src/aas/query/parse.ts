import Ajv, { ErrorObject, ValidateFunction } from 'ajv';
import { badRequest } from '../../graphql/errors';
import {
  COMPARISONS,
  ComparisonOperator,
  Condition,
  Field,
  Index,
  Operand,
  PathSegment,
  AttributeSegment,
  Query,
  QueryTarget,
  ROOT_TARGET,
  ROOTS,
  Root,
  STRING_OPERATIONS,
  StringOperator,
  ValueType,
} from './ast';
import { fieldChunks } from './fields';
import schema from './query-json-schema.json';

/**
 * Parses an AAS Query Language query in its JSON form (`{ "$condition": ..., "$select"?: "id" }`): validates it
 * against the specification's JSON schema (query-json-schema.json), then checks what the schema cannot (field
 * syntax, one kind of identifiable per query, `$match` lists, `$regex` patterns) and returns the typed AST.
 * Anything wrong throws `badRequest` whose messages name the offending part by JSON pointer.
 *
 * query-json-schema.json is the specification's schema, vendored unchanged from admin-shell-io/aas-specs-api
 * (IDTA-01002-3, CC BY 4.0; its `$comment` names the commit). Only its `Query` definition is used here; the
 * access rule definitions beside it belong to the AAS security specification.
 */
export function parseQuery(input: unknown): Query {
  checkDepth(input);
  if (!validator()(input)) throw schemaFailure(validator().errors ?? []);
  const query = input as { $condition: unknown; $select?: 'id' };
  const roots = new Set<Root>();
  const condition = logical(query.$condition, '/$condition', roots, false);
  const targets = new Set([...roots].map((root) => ROOT_TARGET[root]));
  if (targets.size > 1) {
    const list = [...roots].join(', ');
    throw fail('/$condition', `a query addresses one kind of object, but its fields have the roots ${list} ($sm and $sme may be combined)`);
  }
  const [target] = targets as Set<QueryTarget>;
  return { ...(query.$select ? { select: query.$select } : {}), condition, target: target ?? null };
}

/** Limits beyond the schema: a query is small. */
export const QUERY_LIMITS = { maxRegexLength: 256, maxIndex: 1_000_000, maxIdShortLength: 128, maxRepetition: 255, maxDepth: 128, maxCasts: 4 };

/**
 * A query nests at most `maxDepth` JSON levels, checked without recursion before anything recurses over it (the
 * schema validator and the parser do, and a deep enough document overflows their stack).
 */
function checkDepth(input: unknown): void {
  const stack: [unknown, number][] = [[input, 1]];
  while (stack.length) {
    const [node, depth] = stack.pop()!;
    if (node === null || typeof node !== 'object') continue;
    if (depth > QUERY_LIMITS.maxDepth) throw fail('/', `a query nests at most ${QUERY_LIMITS.maxDepth} levels`);
    for (const child of Object.values(node)) stack.push([child, depth + 1]);
  }
}

let compiled: ValidateFunction | undefined;
function validator(): ValidateFunction {
  if (!compiled) {
    // strict: false because the vendored schema has keywords ajv's strict mode flags (e.g. additionalProperties
    // on a string enum); date-time is RFC 3339 as the schema's format says (ajv's formats are a separate package).
    const ajv = new Ajv({ strict: false, allErrors: false, verbose: true, formats: { 'date-time': isDateTime } });
    compiled = ajv.compile({ ...schema, $ref: '#/definitions/Query' });
  }
  return compiled;
}

function fail(pointer: string, expected: string, more: string[] = []) {
  const text = `Invalid query at ${pointer || '/'}: ${expected}`;
  return badRequest(text, [text, ...more]);
}

/** The schema's errors, the deepest first (the oneOf alternatives of a parent say less than the child's own). */
function schemaFailure(errors: ErrorObject[]) {
  const depth = (e: ErrorObject) => e.instancePath.split('/').length;
  const sorted = [...errors].sort((a, b) => depth(b) - depth(a));
  // The alternatives of a oneOf each report their missing member: one message lists them all.
  const missing = new Map<string, { names: string[]; data: unknown }>();
  for (const e of sorted) {
    if (e.keyword !== 'required') continue;
    const entry = missing.get(e.instancePath) ?? { names: [], data: e.data };
    entry.names.push(String((e.params as Record<string, unknown>).missingProperty));
    missing.set(e.instancePath, entry);
  }
  const texts = [
    ...new Set(
      sorted.map((e) => {
        const m = e.keyword === 'required' ? missing.get(e.instancePath) : undefined;
        if (!m) return describe(e);
        const got = m.data && typeof m.data === 'object' ? Object.keys(m.data).map((k) => JSON.stringify(clip(k))).join(', ') : '';
        return `${e.instancePath || '/'}: expected exactly one of ${m.names.join(', ')}${got ? ` (got ${got})` : ''}`;
      }),
    ),
  ];
  const text = `Invalid query: ${texts[0] ?? 'does not match the query schema'}`;
  return badRequest(text, texts.map((t) => `Invalid query: ${t}`));
}

function describe(e: ErrorObject): string {
  const at = e.instancePath || '/';
  const params = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case 'additionalProperty':
    case 'additionalProperties':
      return `${at}: unknown member "${String(params.additionalProperty)}"`;
    case 'oneOf':
      return `${at}: expected exactly one operator or operand, e.g. {"$eq": [..., ...]} or {"$field": "..."}`;
    case 'pattern':
      return `${at}: ${patternMeaning(at)} (got ${JSON.stringify(clip(e.data))})`;
    case 'format':
      return `${at}: expected an RFC 3339 date-time (got ${JSON.stringify(clip(e.data))})`;
    default:
      return `${at}: ${e.message ?? 'is invalid'}`;
  }
}

function patternMeaning(at: string): string {
  if (at.endsWith('/$field')) return 'expected a field identifier such as "$aas#idShort", "$sm#semanticId" or "$sme.Path.To[]#value"';
  if (at.endsWith('/$select')) return 'expected "id"';
  if (at.endsWith('/$hexVal')) return 'expected a hex literal "16#" followed by digits 0-9A-F';
  if (at.endsWith('/$timeVal')) return 'expected a time hh:mm or hh:mm:ss';
  if (at.endsWith('/$strVal')) return 'expected a string that does not start with "$"';
  return 'does not match the expected pattern';
}

const clip = (v: unknown) => (typeof v === 'string' && v.length > 80 ? `${v.slice(0, 80)}...` : v);

type Json = Record<string, unknown>;

function single(node: Json): [string, unknown] {
  const [entry] = Object.entries(node);
  return entry;
}

function logical(node: unknown, at: string, roots: Set<Root>, inMatch: boolean): Condition {
  const [op, arg] = single(node as Json);
  const here = `${at}/${op}`;
  switch (op) {
    case '$and':
    case '$or':
      return { kind: op === '$and' ? 'and' : 'or', items: (arg as unknown[]).map((c, i) => logical(c, `${here}/${i}`, roots, inMatch)) };
    case '$not':
      return { kind: 'not', item: logical(arg, here, roots, inMatch) };
    case '$match': {
      const items = (arg as unknown[]).map((c, i) => logical(c, `${here}/${i}`, roots, true));
      checkMatchLists(items, here);
      return { kind: 'match', items };
    }
    case '$boolean':
      return { kind: 'boolean', value: arg as boolean };
    default: {
      const [left, right] = (arg as unknown[]).map((v, i) => operand(v, `${here}/${i}`, roots));
      if ((STRING_OPERATIONS as readonly string[]).includes(op)) {
        if (op === '$regex') checkRegex(right, `${here}/1`);
        return { kind: 'compare', op: op as StringOperator, left, right };
      }
      if ((COMPARISONS as readonly string[]).includes(op)) return { kind: 'compare', op: op as ComparisonOperator, left, right };
      throw fail(here, 'unknown operator');
    }
  }
}

const CASTS: Record<string, ValueType> = {
  $strCast: 'string',
  $numCast: 'number',
  $hexCast: 'hex',
  $boolCast: 'boolean',
  $dateTimeCast: 'dateTime',
  $timeCast: 'time',
};

function operand(node: unknown, at: string, roots: Set<Root>): Operand {
  const [key, value] = single(node as Json);
  const here = `${at}/${key}`;
  switch (key) {
    case '$field': {
      const field = parseField(value as string, here);
      roots.add(field.root);
      return field;
    }
    case '$strVal':
      // PostgreSQL stores no U+0000 in text: such a string can equal no value.
      if ((value as string).includes('\u0000')) throw fail(here, 'a string without the character U+0000');
      return { kind: 'literal', type: 'string', value: value as string };
    case '$numVal':
      return { kind: 'literal', type: 'number', value: value as number };
    case '$hexVal':
      return { kind: 'literal', type: 'hex', value: (value as string).slice(3) };
    case '$dateTimeVal':
      return { kind: 'literal', type: 'dateTime', value: value as string };
    case '$timeVal':
      return { kind: 'literal', type: 'time', value: value as string };
    case '$boolean':
      return { kind: 'literal', type: 'boolean', value: value as boolean };
    case '$dayOfWeek':
    case '$dayOfMonth':
    case '$month':
    case '$year':
      return { kind: 'dateTimePart', part: key.slice(1) as 'dayOfWeek', value: value as string };
    default:
      if (key in CASTS) {
        // A cast of a cast of ... says nothing more after a few, and each one repeats its operand in the SQL.
        if (here.split('Cast').length - 1 > QUERY_LIMITS.maxCasts) throw fail(here, `casts nest at most ${QUERY_LIMITS.maxCasts} deep`);
        return { kind: 'cast', to: CASTS[key], operand: operand(value, here, roots) };
      }
      throw fail(here, 'unknown operand');
  }
}

const FIELD = /^(\$[a-z]+)(?:\.([^#]*))?#(.*)$/;
const PATH_SEGMENT = /^([A-Za-z][A-Za-z0-9_-]*)((?:\[[0-9]*\])*)$/;
const ATTRIBUTE_SEGMENT = /^([A-Za-z]+)(?:\[([0-9]*)\])?$/;

/**
 * The attribute declarations each root allows (IDTA-01002-3, "Attribute Elements for Field Identifiers", as
 * the schema's modelStringPattern spells them), with indexes written `[]`.
 */
const REFERENCE = ['', '.type', '.keys[].type', '.keys[].value'];
const ref = (prefix: string) => REFERENCE.map((r) => prefix + r);
const ENDPOINT = ['endpoints[].interface', 'endpoints[].protocolinformation.href'];
const SPECIFIC_ASSET_ID = (prefix: string) => [`${prefix}.name`, `${prefix}.value`, ...ref(`${prefix}.externalSubjectId`)];
const ATTRIBUTES: Record<Root, Set<string>> = {
  $aas: new Set([
    'idShort',
    'id',
    'assetInformation.assetKind',
    'assetInformation.assetType',
    'assetInformation.globalAssetId',
    ...SPECIFIC_ASSET_ID('assetInformation.specificAssetIds[]'),
    ...ref('submodels[]').slice(1),
  ]),
  $sm: new Set([...ref('semanticId'), 'idShort', 'id']),
  $sme: new Set([...ref('semanticId'), 'idShort', 'value', 'valueType', 'language']),
  $cd: new Set(['idShort', 'id']),
  $aasdesc: new Set([
    'idShort',
    'id',
    'assetKind',
    'assetType',
    'globalAssetId',
    ...SPECIFIC_ASSET_ID('specificAssetIds[]'),
    ...ENDPOINT,
    ...ref('submodelDescriptors[].semanticId'),
    'submodelDescriptors[].idShort',
    'submodelDescriptors[].id',
    ...ENDPOINT.map((e) => `submodelDescriptors[].${e}`),
  ]),
  $smdesc: new Set([...ref('semanticId'), 'idShort', 'id', ...ENDPOINT]),
};

function index(text: string, field: string, at: string): Index {
  if (text === '') return 'any';
  const n = Number(text);
  if (!(n <= QUERY_LIMITS.maxIndex)) throw fail(at, `list index ${text} in "${field}" is too large (at most ${QUERY_LIMITS.maxIndex})`);
  return n;
}

/** A field identifier: `<root>(.<idShortPath>)?#<attribute>`. */
export function parseField(text: string, at: string): Field {
  const m = FIELD.exec(text);
  if (!m) throw fail(at, `expected a field identifier "<root>#<attribute>", got "${text}"`);
  const [, rootText, pathText, attributeText] = m;
  if (!(ROOTS as readonly string[]).includes(rootText)) throw fail(at, `unknown root "${rootText}" (expected one of ${ROOTS.join(', ')})`);
  const root = rootText as Root;
  const path: PathSegment[] = [];
  if (pathText !== undefined) {
    if (root !== '$sme') throw fail(at, `only $sme takes an idShortPath ("${text}")`);
    for (const part of pathText.split('.')) {
      const s = PATH_SEGMENT.exec(part);
      if (!s) throw fail(at, `"${part}" in "${text}" is not an idShort optionally followed by [index] or []`);
      if (s[1].length > QUERY_LIMITS.maxIdShortLength) throw fail(at, `an idShort in "${text}" is longer than ${QUERY_LIMITS.maxIdShortLength} characters`);
      const indexes = [...s[2].matchAll(/\[([0-9]*)\]/g)].map((i) => index(i[1], text, at));
      path.push({ idShort: s[1], indexes });
    }
  }
  const attribute: AttributeSegment[] = [];
  for (const part of attributeText.split('.')) {
    const s = ATTRIBUTE_SEGMENT.exec(part);
    if (!s) throw fail(at, `"${part}" in "${text}" is not an attribute name optionally followed by [index] or []`);
    attribute.push(s[2] === undefined ? { name: s[1] } : { name: s[1], index: index(s[2], text, at) });
  }
  const shape = attribute.map((a) => (a.index === undefined ? a.name : `${a.name}[]`)).join('.');
  if (!ATTRIBUTES[root].has(shape)) {
    throw fail(at, `"${attributeText}" is not an attribute of ${root} (expected one of ${[...ATTRIBUTES[root]].join(', ')})`);
  }
  return { kind: 'field', text, root, path, attribute };
}

/** The fields of a condition's own comparisons (not those of nested `$match`es). */
function directFields(items: Condition[]): Field[] {
  const fields: Field[] = [];
  const visit = (o: Operand): void => {
    if (o.kind === 'field') fields.push(o);
    else if (o.kind === 'cast') visit(o.operand);
  };
  for (const c of items) {
    if (c.kind === 'compare') {
      visit(c.left);
      visit(c.right);
    } else if (c.kind !== 'match' && c.kind !== 'boolean') {
      throw new Error('logical expressions inside $match are excluded by the schema');
    }
  }
  return fields;
}

/**
 * The fields of a `$match` that reach into lists must share the first list: the conditions hold for one
 * element of it (IDTA-01002-3, "Match of Elements in Lists", note 1: otherwise an error).
 */
function checkMatchLists(items: Condition[], at: string): void {
  const listed = directFields(items)
    .map((f) => ({ f, chunks: fieldChunks(f) }))
    .filter((x) => x.chunks.length > 1);
  const first = new Map<string, string>();
  for (const { f, chunks } of listed) first.set(`${f.root === '$sm' ? '$sme' : f.root}${chunks[0].key}`, f.text);
  if (first.size > 1) {
    throw fail(at, `the fields of a $match must address the same list, but ${[...first.values()].map((t) => `"${t}"`).join(' and ')} address different ones`);
  }
}

/** RFC 3339 date-time, with a real calendar day: what the SQL translation can hand to PostgreSQL safely. */
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[Tt ]([01]\d|2[0-3]):([0-5]\d):([0-5]\d)(\.\d{1,9})?([Zz]|[+-]([01]\d|2[0-3]):[0-5]\d)$/;

export function isDateTime(text: string): boolean {
  const m = DATE_TIME.exec(text);
  if (!m) return false;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (year < 1 || month < 1 || month > 12 || day < 1) return false;
  return day <= new Date(Date.UTC(2000, month, 0)).getUTCDate() - (month === 2 && !isLeap(year) ? 1 : 0);
}

const isLeap = (y: number) => (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;

/**
 * A `$regex` pattern is a literal (a pattern read from the data could fail in PostgreSQL mid-query), short, and
 * within the subset PostgreSQL's ARE and XPath regular expressions agree on: escapes limited to classes and
 * escaped metacharacters (`\b` is a backspace in PostgreSQL, a word boundary elsewhere), no named groups,
 * repetition bounds up to 255 (PostgreSQL's limit), and no bounded repetition of a group that has a quantifier
 * inside (which can make PostgreSQL's automaton "too complex").
 */
function checkRegex(pattern: Operand, at: string): void {
  let value: Operand = pattern;
  let where = at;
  while (value.kind === 'cast' && value.to === 'string') {
    value = value.operand;
    where += '/$strCast';
  }
  if (value.kind !== 'literal' || value.type !== 'string') throw fail(at, 'the pattern of $regex must be a string literal ($strVal)');
  const text = value.value as string;
  const here = `${where}/$strVal`;
  if (text.length > QUERY_LIMITS.maxRegexLength) throw fail(here, `the pattern is longer than ${QUERY_LIMITS.maxRegexLength} characters`);
  try {
    // Unicode mode: no lone braces or quantified lookaheads, which PostgreSQL rejects and legacy JS accepts.
    new RegExp(text, 'u');
  } catch (e) {
    throw fail(here, `the pattern does not compile: ${(e as Error).message}`);
  }
  const problem = regexProblem(text);
  if (problem) throw fail(here, problem);
}

const SIMPLE_ESCAPES = new Set([...'dDsSwWntr', ...'.\\*+?()[]{}|^$/-']);

export function regexProblem(p: string): string | undefined {
  // Per open group: whether it contains a quantifier; for the last closed group, the same.
  const groups: boolean[] = [];
  let lastGroupQuantified = false;
  let inClass = false;
  const quantified = () => {
    if (groups.length) groups[groups.length - 1] = true;
  };
  for (let i = 0; i < p.length; i++) {
    const c = p[i];
    const afterGroup = lastGroupQuantified;
    lastGroupQuantified = false;
    if (c === '\\') {
      const next = p[i + 1];
      if (next === 'u' && /^[0-9A-Fa-f]{4}$/.test(p.slice(i + 2, i + 6))) {
        i += 5;
        continue;
      }
      if (next === undefined || !SIMPLE_ESCAPES.has(next)) return `the escape \\${next ?? ''} is not supported (supported: \\d \\D \\s \\S \\w \\W \\n \\t \\r \\uXXXX and escaped metacharacters)`;
      i++;
      continue;
    }
    if (inClass) {
      if (c === ']') inClass = false;
      continue;
    }
    if (c === '[') {
      if (p.startsWith('[:', i + 1) || p.startsWith('[=', i + 1) || p.startsWith('[.', i + 1)) return 'POSIX bracket classes are not supported';
      inClass = true;
    } else if (c === '(') {
      if (p[i + 1] === '?' && !/^\(\?[:=!]/.test(p.slice(i))) return 'only (?:...), (?=...) and (?!...) groups are supported';
      groups.push(false);
      if (p[i + 1] === '?') i += 2;
    } else if (c === ')') {
      lastGroupQuantified = groups.pop() ?? false;
      if (lastGroupQuantified) quantified();
    } else if (c === '{') {
      const m = /^\{(\d+)(,(\d*))?\}/.exec(p.slice(i));
      if (m) {
        if (Math.max(Number(m[1]), m[3] ? Number(m[3]) : 0) > QUERY_LIMITS.maxRepetition) return `repetition bounds are at most ${QUERY_LIMITS.maxRepetition}`;
        if (afterGroup) return 'a bounded repetition ({n,m}) of a group with a quantifier inside is too complex';
        quantified();
        i += m[0].length - 1;
      }
    } else if (c === '*' || c === '+' || c === '?') {
      quantified();
      // A lazy quantifier's "?" belongs to the quantifier.
      if (p[i + 1] === '?') i++;
    }
  }
  return undefined;
}
