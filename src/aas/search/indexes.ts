import { badRequest } from '../../graphql/errors';
import type { ComparisonOperator, Condition, Literal, Operand, StringOperator } from '../query/ast';
import { isDateTime, parseField } from '../query/parse';

/**
 * The search indexes of POST /search: named, documented search surfaces over the tenant's submodels of one
 * submodel template. A search names an index and a condition; the answer is the shells that reference a submodel
 * of the index's template satisfying the condition (search.service.ts).
 *
 * Conditions are AAS Query Language conditions (IDTA-01002-3, src/aas/query/ast.ts) over submodels (`$sm`,
 * `$sme` fields). An index contributes two things in that language, never SQL of its own:
 * - `submodels`: which submodels it reads (their semanticIds), added to every search as `$sm#semanticId`;
 * - `simple`: the simple form of a condition (for scripts), a small JSON object, turned into a query condition.
 * toSql translates the result like any query, so element conditions are evaluated however `$sme` fields are stored.
 */
export interface SearchIndex {
  name: string;
  /** What the index holds (GraphQL `searchIndexes`). */
  description: string;
  /** The semanticIds (first key) of the submodels the index reads: one of them. */
  submodelSemanticIds: readonly string[];
  /** The members a simple condition of this index may have. */
  members: readonly string[];
  /** A simple condition (its members checked against `members` already) as a query condition; 400 if it is wrong. */
  simple(condition: Record<string, unknown>, at: string): Condition;
}

/**
 * IDTA 02003-1-2 "Generic Frame for Technical Data for Industrial Equipment in Manufacturing" (admin-shell-io/
 * submodel-templates, deprecated/Technical_Data/1/2/IDTA_02003-1-2_Template_TechnicalData.json): the semanticIds
 * of the submodel and the elements the indexes read. Instances name the items of a collection with a counter
 * (`ProductClassificationItem01`, ...), so elements are found by semanticId, never by idShort.
 */
export const TECHNICAL_DATA = {
  submodel: 'https://admin-shell.io/ZVEI/TechnicalData/Submodel/1/2',
  generalInformation: 'https://admin-shell.io/ZVEI/TechnicalData/GeneralInformation/1/1',
  manufacturerName: '0173-1#02-AAO677#002',
  manufacturerProductDesignation: '0173-1#02-AAW338#001',
  manufacturerArticleNumber: '0173-1#02-AAO676#003',
  manufacturerOrderCode: '0173-1#02-AAO227#002',
  productClassifications: 'https://admin-shell.io/ZVEI/TechnicalData/ProductClassifications/1/1',
  productClassificationItem: 'https://admin-shell.io/ZVEI/TechnicalData/ProductClassificationItem/1/1',
  productClassificationSystem: 'https://admin-shell.io/ZVEI/TechnicalData/ProductClassificationSystem/1/1',
  classificationSystemVersion: 'https://admin-shell.io/ZVEI/TechnicalData/ClassificationSystemVersion/1/1',
  productClassId: 'https://admin-shell.io/ZVEI/TechnicalData/ProductClassId/1/1',
  technicalProperties: 'https://admin-shell.io/ZVEI/TechnicalData/TechnicalProperties/1/1',
  furtherInformation: 'https://admin-shell.io/ZVEI/TechnicalData/FurtherInformation/1/1',
} as const;

/**
 * IDTA 02003-2-0 (published/Technical_Data/2/0/1/IDTA 02003_2-0-1_Template_TechnicalData.json): the submodel's ECLASS
 * semanticId, and its ProductClassifications, a SubmodelElementList of collections whose elements have fixed idShorts.
 */
export const TECHNICAL_DATA_2 = {
  submodel: '0173-1#01-AHX837#002',
  productClassifications: '0173-1#02-ABK162#002',
  classificationSystem: '0173-1#02-ABL424#001',
  classificationSystemVersion: '0173-1#02-AAR710#003',
  productClassId: '0173-1#02-ABG776#003',
  technicalPropertyAreas: '0173-1#02-ABK163#002',
} as const;

/** The Technical Data submodels the indexes read: versions 1.2 and 2.0. */
const TECHNICAL_DATA_SUBMODELS = [TECHNICAL_DATA.submodel, TECHNICAL_DATA_2.submodel];

const submodelIs = (semanticId: string): Condition => ({ kind: 'compare', op: '$eq', left: field('$sm#semanticId'), right: string(semanticId) });

/** The operators of simple conditions, as the query language's. `between` is `$ge` and `$le` of one element. */
const OPERATORS: Record<string, ComparisonOperator | StringOperator | 'between'> = {
  '=': '$eq',
  '!=': '$ne',
  '<': '$lt',
  '<=': '$le',
  '>': '$gt',
  '>=': '$ge',
  contains: '$contains',
  'starts-with': '$starts-with',
  'ends-with': '$ends-with',
  between: 'between',
};

/** The value types of simple conditions (the query language's literal types). */
const VALUE_TYPES = ['number', 'string', 'dateTime', 'boolean'] as const;
type ValueType = (typeof VALUE_TYPES)[number];

/** The longest text a simple condition may carry: an AAS Identifier's maximum length. */
const MAX_TEXT = 2_000;

/** Numbers as the query language reads them from texts (sql.ts), for `"type": "number"` with a string value. */
const NUMBER_TEXT = /^\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d{1,3})?\s*$/;

function fail(at: string, text: string): never {
  throw badRequest(`Invalid search at ${at || '/'}: ${text}`);
}

function text(condition: Record<string, unknown>, name: string, at: string, required: boolean): string | undefined {
  const value = condition[name];
  if (value === undefined || value === null) {
    if (required) fail(at, `"${name}" is missing`);
    return undefined;
  }
  if (typeof value !== 'string' || value === '') fail(`${at}/${name}`, 'expected a non-empty string');
  if (value.length > MAX_TEXT) fail(`${at}/${name}`, `at most ${MAX_TEXT} characters`);
  if (value.includes('\u0000')) fail(`${at}/${name}`, 'contains a NUL character');
  return value;
}

const field = (name: string): Operand => parseField(name, '/');
const string = (value: string): Literal => ({ kind: 'literal', type: 'string', value });

/** The element of a submodel that has `semanticId` and a value satisfying `comparisons` (one `$match`: the same element). */
function element(semanticId: string, comparisons: { op: ComparisonOperator | StringOperator; value: Literal }[]): Condition {
  return {
    kind: 'match',
    items: [
      { kind: 'compare', op: '$eq', left: field('$sme#semanticId'), right: string(semanticId) },
      ...comparisons.map(({ op, value }) => ({ kind: 'compare' as const, op, left: field('$sme#value'), right: value })),
    ],
  };
}

/** A simple condition's value as a literal of `type` (given, or the JSON value's own). */
function literal(value: unknown, type: ValueType | undefined, at: string): Literal {
  const own: ValueType | undefined = typeof value === 'number' ? 'number' : typeof value === 'boolean' ? 'boolean' : typeof value === 'string' ? 'string' : undefined;
  if (own === undefined) fail(at, 'expected a number, a string or a boolean');
  const wanted = type ?? own;
  if (typeof value === 'string' && (value.length > MAX_TEXT || value.includes('\u0000'))) fail(at, `expected at most ${MAX_TEXT} characters without NUL`);
  switch (wanted) {
    case 'number':
      if (typeof value === 'number') {
        if (!Number.isFinite(value)) fail(at, 'the number is out of range');
        return { kind: 'literal', type: 'number', value };
      }
      if (typeof value === 'string' && NUMBER_TEXT.test(value)) return { kind: 'literal', type: 'number', value: Number(value) };
      return fail(at, `expected a number, got ${JSON.stringify(value)}`);
    case 'boolean':
      if (typeof value !== 'boolean') fail(at, `expected true or false, got ${JSON.stringify(value)}`);
      return { kind: 'literal', type: 'boolean', value };
    case 'dateTime':
      if (typeof value !== 'string' || !isDateTime(value)) fail(at, `expected an RFC 3339 date-time with offset (e.g. "2024-01-01T00:00:00Z"), got ${JSON.stringify(value)}`);
      return { kind: 'literal', type: 'dateTime', value };
    case 'string':
      if (typeof value !== 'string') fail(at, `expected a string for "type": "string", got ${JSON.stringify(value)}`);
      return string(value);
  }
}

/** `technical-properties`: a property of a Technical Data submodel by semanticId, its value compared typed. */
const technicalProperties: SearchIndex = {
  name: 'technical-properties',
  description:
    'The properties of the Technical Data submodels (IDTA 02003-1-2 and 2.0) the tenant stores, by semanticId: each element with that semanticId and a value (Property), ' +
    'its value compared as the condition\'s type (number, string, dateTime, boolean; a value that does not read as that type is no match).',
  submodelSemanticIds: TECHNICAL_DATA_SUBMODELS,
  members: ['semanticId', 'op', 'value', 'type'],
  simple(condition, at) {
    const semanticId = text(condition, 'semanticId', at, true)!;
    const opText = condition.op;
    if (opText === undefined || opText === null) fail(at, '"op" is missing');
    if (typeof opText !== 'string' || !Object.hasOwn(OPERATORS, opText)) fail(`${at}/op`, `expected one of ${Object.keys(OPERATORS).join(', ')}, got ${JSON.stringify(opText)}`);
    const op = OPERATORS[opText];
    const typeText = condition.type;
    if (typeText !== undefined && typeText !== null && !(VALUE_TYPES as readonly unknown[]).includes(typeText)) {
      fail(`${at}/type`, `expected one of ${VALUE_TYPES.join(', ')}, got ${JSON.stringify(typeText)}`);
    }
    const type = (typeText ?? undefined) as ValueType | undefined;
    const value = condition.value;
    if (value === undefined || value === null) fail(at, '"value" is missing');
    if (op === 'between') {
      if (!Array.isArray(value) || value.length !== 2) fail(`${at}/value`, '"between" takes [lowest, highest] (both included)');
      const [low, high] = value.map((v, i) => literal(v, type, `${at}/value/${i}`));
      if (low.type !== high.type) fail(`${at}/value`, 'both ends of "between" must have one type');
      return element(semanticId, [
        { op: '$ge', value: low },
        { op: '$le', value: high },
      ]);
    }
    const isStringOp = op === '$contains' || op === '$starts-with' || op === '$ends-with';
    if (isStringOp && (typeof value !== 'string' || (type !== undefined && type !== 'string'))) fail(`${at}/value`, `"${opText}" compares texts: expected a string`);
    return element(semanticId, [{ op, value: literal(value, type, `${at}/value`) }]);
  },
};

/** `shell-classifications`: the product classifications of Technical Data submodels (system, version, class id). */
const shellClassifications: SearchIndex = {
  name: 'shell-classifications',
  description:
    'The product classifications of the Technical Data submodels (IDTA 02003-1-2: ProductClassifications/ProductClassificationItem; 2.0: the ' +
    'ProductClassifications list) of each shell: classification system (e.g. ECLASS, ETIM), its version and the product class id, compared as exact texts.',
  submodelSemanticIds: TECHNICAL_DATA_SUBMODELS,
  members: ['system', 'version', 'classId'],
  simple(condition, at) {
    const given = (['system', 'version', 'classId'] as const)
      .map((name) => [name, text(condition, name, at, false)] as const)
      .filter((p): p is readonly [ClassificationMember, string] => p[1] !== undefined);
    if (!given.length) fail(at, 'expected at least one of "system", "version", "classId"');
    // 1.2: each member is an element of the submodel's classifications, found by semanticId. The query language
    // cannot say "siblings in one ProductClassificationItem" for a collection of arbitrarily named collections
    // (README, Search indexes).
    const v1 = given.map(([name, value]) => element(V1_MEMBERS[name], [{ op: '$eq', value: string(value) }]));
    // 2.0: the items are a list, so `$match` over `ProductClassifications[]` holds the members to one item.
    const v2: Condition = {
      kind: 'match',
      items: given.map(([name, value]) => ({ kind: 'compare', op: '$eq', left: field(`$sme.ProductClassifications[].${V2_MEMBERS[name]}#value`), right: string(value) })),
    };
    return {
      kind: 'or',
      items: [
        { kind: 'and', items: [submodelIs(TECHNICAL_DATA.submodel), ...v1] },
        { kind: 'and', items: [submodelIs(TECHNICAL_DATA_2.submodel), v2] },
      ],
    };
  },
};

type ClassificationMember = 'system' | 'version' | 'classId';

/** Where each member of a classification condition is: 1.2 by semanticId, 2.0 by the idShort in a list item. */
const V1_MEMBERS: Record<ClassificationMember, string> = {
  system: TECHNICAL_DATA.productClassificationSystem,
  version: TECHNICAL_DATA.classificationSystemVersion,
  classId: TECHNICAL_DATA.productClassId,
};
const V2_MEMBERS: Record<ClassificationMember, string> = { system: 'ClassificationSystem', version: 'ClassificationSystemVersion', classId: 'ProductClassId' };

export const SEARCH_INDEXES: readonly SearchIndex[] = [shellClassifications, technicalProperties];

export function searchIndex(name: unknown): SearchIndex {
  const index = SEARCH_INDEXES.find((i) => i.name === name);
  if (!index) fail('/index', `unknown index ${JSON.stringify(name)} (expected one of ${SEARCH_INDEXES.map((i) => i.name).join(', ')})`);
  return index;
}
