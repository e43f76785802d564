import { describe, expect, it } from 'vitest';
import { AppError } from '../../src/graphql/errors';
import { parseQuery, regexProblem } from '../../src/aas/query/parse';
import { ACCEPTED_PATTERNS } from '../support/query-patterns';

const eq = (field: string, value: unknown) => ({ $eq: [{ $field: field }, value] });
const str = (s: string) => ({ $strVal: s });

/** The JSON examples of IDTA-01002-3 "Query Language" (field strings joined where the document wraps them). */
const SPEC_EXAMPLES: Record<string, unknown> = {
  'single comparison': { $condition: { $eq: [{ $field: '$aas#idShort' }, { $field: '$aas#assetInformation.assetType' }] } },
  'HandoverDocumentation $match': {
    $condition: {
      $match: [
        eq('$sme.Documents[].DocumentClassification.Class#value', str('03-01')),
        eq('$sme.Documents[].DocumentVersion.SMLLanguages[]#language', str('nl')),
      ],
    },
  },
  'TechnicalData motor starter': {
    $condition: {
      $and: [
        { $match: [eq('$sm#idShort', str('TechnicalData')), eq('$sme.ProductClassifications[].ProductClassId#value', str('27-37-09-05'))] },
        {
          $match: [
            eq('$sm#idShort', str('TechnicalData')),
            eq('$sme#semanticId', str('0173-1#02-BAF016#006')),
            { $lt: [{ $field: '$sme#value' }, { $numVal: 100 }] },
          ],
        },
      ],
    },
  },
  'specificAssetIds $or of $match': {
    $condition: {
      $or: [
        { $match: [eq('$aas#assetInformation.specificAssetIds[].name', str('supplierId')), eq('$aas#assetInformation.specificAssetIds[].value', str('aas-1'))] },
        { $match: [eq('$aas#assetInformation.specificAssetIds[].name', str('customerId')), eq('$aas#assetInformation.specificAssetIds[].value', str('aas-2'))] },
      ],
    },
  },
};

const VALID: Record<string, unknown> = {
  ...SPEC_EXAMPLES,
  'select id': { $select: 'id', $condition: { $boolean: true } },
  'contains on id': { $condition: { $contains: [{ $field: '$aas#id' }, str('https://example.com/asset-administration')] } },
  'casts': { $condition: { $ge: [{ $numCast: { $field: '$sme.A.B#value' } }, { $numCast: str('12') }] } },
  'dateTime': { $condition: { $lt: [{ $dateTimeCast: { $field: '$sme#value' } }, { $dateTimeVal: '2024-02-29T10:00:00Z' }] } },
  'time, hex, bool': {
    $condition: {
      $and: [
        { $eq: [{ $timeCast: { $field: '$sme#value' } }, { $timeVal: '10:30' }] },
        { $eq: [{ $hexCast: { $field: '$sme#value' } }, { $hexVal: '16#FF' }] },
        { $eq: [{ $boolCast: { $field: '$sme#value' } }, { $boolean: true }] },
      ],
    },
  },
  'day parts': { $condition: { $eq: [{ $dayOfWeek: '2024-01-01T00:00:00Z' }, { $numVal: 1 }] } },
  'regex': { $condition: { $regex: [{ $field: '$cd#idShort' }, str('^Max[A-Z]\\w+$')] } },
  'nested $match and indexes': {
    $condition: {
      $match: [
        eq('$sme.L[]#idShort', str('x')),
        { $match: [eq('$sme.L[].M[]#value', str('1')), eq('$sme.L[].M[]#valueType', str('xs:int'))] },
      ],
    },
  },
  'sm semanticId keys': { $condition: { $not: eq('$sm#semanticId.keys[0].value', str('urn:x')) } },
  'descriptors parse': { $condition: eq('$aasdesc#submodelDescriptors[].endpoints[0].protocolinformation.href', str('http://x')) },
};

describe('parseQuery: valid queries', () => {
  for (const [name, query] of Object.entries(VALID)) {
    it(name, () => {
      expect(() => parseQuery(query)).not.toThrow();
    });
  }

  it('builds the typed AST', () => {
    const q = parseQuery({ $select: 'id', $condition: { $ge: [{ $numCast: { $field: '$sme.A[2].B#semanticId.keys[].value' } }, { $numVal: 3 }] } });
    expect(q).toEqual({
      select: 'id',
      target: 'submodels',
      condition: {
        kind: 'compare',
        op: '$ge',
        left: {
          kind: 'cast',
          to: 'number',
          operand: {
            kind: 'field',
            text: '$sme.A[2].B#semanticId.keys[].value',
            root: '$sme',
            path: [
              { idShort: 'A', indexes: [2] },
              { idShort: 'B', indexes: [] },
            ],
            attribute: [{ name: 'semanticId' }, { name: 'keys', index: 'any' }, { name: 'value' }],
          },
        },
        right: { kind: 'literal', type: 'number', value: 3 },
      },
    });
    expect(parseQuery(SPEC_EXAMPLES['specificAssetIds $or of $match']).target).toBe('shells');
    expect(parseQuery({ $condition: { $boolean: false } }).target).toBeNull();
  });
});

/** Invalid queries, with a part of the message that must name the offending place or what was expected. */
const INVALID: [string, unknown, string][] = [
  ['not an object', 'x', 'Invalid query: /'],
  ['empty object', {}, '$condition'],
  ['null', null, 'Invalid query'],
  ['unknown top-level member', { $condition: { $boolean: true }, limit: 3 }, 'unknown member "limit"'],
  ['select other than id', { $select: 'idShort', $condition: { $boolean: true } }, '/$select: expected "id"'],
  ['unknown operator', { $condition: { $like: [str('a'), str('b')] } }, '/$condition'],
  ['two operators in one object', { $condition: { $boolean: true, $not: { $boolean: true } } }, '/$condition'],
  ['$and with one item', { $condition: { $and: [{ $boolean: true }] } }, '/$condition/$and'],
  ['comparison with three operands', { $condition: { $eq: [str('a'), str('b'), str('c')] } }, '/$condition/$eq'],
  ['comparison with a bare string', { $condition: { $eq: ['a', str('b')] } }, '/$condition/$eq/0'],
  ['$strVal starting with $', { $condition: { $eq: [{ $field: '$aas#id' }, str('$aas#id')] } }, '/$condition/$eq/1/$strVal'],
  ['$numVal a string', { $condition: { $eq: [{ $field: '$aas#id' }, { $numVal: '1' }] } }, '/$condition/$eq/1/$numVal'],
  ['bad hex', { $condition: { $eq: [{ $field: '$aas#id' }, { $hexVal: 'FF' }] } }, '/$condition/$eq/1/$hexVal'],
  ['bad time', { $condition: { $eq: [{ $field: '$aas#id' }, { $timeVal: '25h' }] } }, '/$condition/$eq/1/$timeVal'],
  ['bad dateTime', { $condition: { $eq: [{ $field: '$aas#id' }, { $dateTimeVal: '2024-02-30T00:00:00Z' }] } }, '/$condition/$eq/1/$dateTimeVal'],
  ['dateTime without offset', { $condition: { $eq: [{ $field: '$aas#id' }, { $dateTimeVal: '2024-01-01T00:00:00' }] } }, 'RFC 3339'],
  ['unknown root', { $condition: eq('$shell#id', str('x')) }, '/$condition/$eq/0/$field'],
  ['unknown attribute', { $condition: eq('$aas#displayName', str('x')) }, '/$condition/$eq/0/$field'],
  ['sm attribute on aas', { $condition: eq('$aas#semanticId', str('x')) }, '/$condition/$eq/0/$field'],
  ['idShortPath on $aas', { $condition: eq('$aas.A#idShort', str('x')) }, '/$condition/$eq/0/$field'],
  ['idShort starting with a digit', { $condition: eq('$sme.1A#value', str('x')) }, '/$condition/$eq/0/$field'],
  ['field in $contains', { $condition: { $contains: [{ $field: '$aas#id' }, { $numVal: 1 }] } }, '/$condition/$contains/1'],
  ['index too large', { $condition: eq('$sm#semanticId.keys[99999999].value', str('x')) }, 'too large'],
  ['$aas and $sm mixed', { $condition: { $and: [eq('$aas#id', str('a')), eq('$sm#id', str('b'))] } }, 'one kind of object'],
  ['$cd and $sme mixed', { $condition: { $or: [eq('$cd#id', str('a')), eq('$sme#value', str('b'))] } }, '$cd, $sme'],
  ['$match over different lists', { $condition: { $match: [eq('$aas#assetInformation.specificAssetIds[].name', str('a')), eq('$aas#submodels[].keys[].value', str('b'))] } }, '/$condition/$match: the fields of a $match'],
  ['logical expression inside $match', { $condition: { $match: [{ $or: [eq('$sm#id', str('a')), eq('$sm#id', str('b'))] }] } }, '/$condition/$match/0'],
  ['regex does not compile', { $condition: { $regex: [{ $field: '$sm#idShort' }, str('a(')] } }, '/$condition/$regex/1/$strVal: the pattern does not compile'],
  ['regex too long', { $condition: { $regex: [{ $field: '$sm#idShort' }, str('a'.repeat(300))] } }, 'longer than 256'],
  ['regex from a field', { $condition: { $regex: [{ $field: '$sm#idShort' }, { $field: '$sm#id' }] } }, '/$condition/$regex/1: the pattern of $regex must be a string literal'],
  ['regex repetition too large', { $condition: { $regex: [{ $field: '$sm#idShort' }, str('a{1000}')] } }, 'at most 255'],
  ['regex nested bounded repetition', { $condition: { $regex: [{ $field: '$sm#idShort' }, str('(a{10}){10}')] } }, 'too complex'],
  ['regex unbounded inside bounded', { $condition: { $regex: [{ $field: '$sm#idShort' }, str('(.*x){255}')] } }, 'too complex'],
  ['regex quantified lookahead', { $condition: { $regex: [{ $field: '$sm#idShort' }, str('(?=a)*')] } }, 'does not compile'],
  ['regex unbalanced brace', { $condition: { $regex: [{ $field: '$sm#idShort' }, str('a{1,2')] } }, 'does not compile'],
  ['regex POSIX class', { $condition: { $regex: [{ $field: '$sm#idShort' }, str('[[:alpha:]')] } }, 'POSIX'],
  ['regex \\b', { $condition: { $regex: [{ $field: '$sm#idShort' }, str('\\bx')] } }, 'escape \\b'],
  ['regex named group', { $condition: { $regex: [{ $field: '$sm#idShort' }, str('(?<n>x)')] } }, 'groups are supported'],
  ['cast of nothing', { $condition: { $eq: [{ $numCast: {} }, { $numVal: 1 }] } }, '/$condition/$eq/0/$numCast'],
  ['$not with an array', { $condition: { $not: [{ $boolean: true }] } }, '/$condition/$not'],
  // The snapshot's http-rest-api/test/query/test1.json predates the schema's $-prefixed members ("select",
  // "filter", "strModel", an empty condition): the schema rejects it.
  [
    'the snapshot test1.json (old syntax)',
    {
      $schema: '../../query-json-schema.json',
      select: 'id',
      filter: { $and: [{ $eq: [{ strModel: '$sm.semanticId.keys.value' }, { strVal: 'https://example.org/value' }] }, {}] },
      option: { sort: { id: 'asc' }, limit: 10, offset: 0 },
    },
    'Invalid query',
  ],
];

describe('parseQuery: invalid queries answer 400 naming the part', () => {
  it('has enough cases', () => expect(INVALID.length).toBeGreaterThanOrEqual(25));
  for (const [name, query, part] of INVALID) {
    it(name, () => {
      let error: unknown;
      try {
        parseQuery(query);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(AppError);
      const e = error as AppError;
      expect(e.extensions.code).toBe('BAD_REQUEST');
      expect([e.message, ...(e.extensions.messages as string[])].join('\n')).toContain(part);
    });
  }
});

describe('regexProblem', () => {
  it('accepts the usual patterns', () => {
    for (const p of ACCEPTED_PATTERNS) {
      expect(regexProblem(p)).toBeUndefined();
      expect(() => parseQuery({ $condition: { $regex: [{ $field: '$sm#idShort' }, { $strVal: p }] } })).not.toThrow();
    }
  });
});
