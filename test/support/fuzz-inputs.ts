import { deflateSync, gzipSync } from 'node:zlib';
import type { RouteSpec } from '../../rest-facade/route';
import type { Rnd } from './seeded-random';

/**
 * The malformed pieces the fuzz test (test/integration/fuzz.test.ts) combines, and the small fixture it runs on.
 * Nothing here draws random numbers itself: every choice goes through the `Rnd` the test passes in, so one seed
 * gives one sequence of requests.
 */

export const KB = 1024;
export const MB = 1024 * 1024;

/** The body limit the fuzzed server runs with: small, so oversized bodies and bombs are refused fast. */
export const BODY_LIMIT = MB;

export const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64url');

// --- The fixture: a shell referencing a submodel with a few element kinds, a concept description

export const AAS = 'urn:fuzz:aas:1';
export const SM = 'urn:fuzz:sm:1';
export const CD = 'urn:fuzz:cd:1';

const ref = (type: string, value: string) => ({ type: 'ModelReference', keys: [{ type, value }] });
const external = (value: string) => ({ type: 'ExternalReference', keys: [{ type: 'GlobalReference', value }] });
export const prop = (idShort: string, value = '5') => ({ modelType: 'Property', idShort, valueType: 'xs:int', value });

export const SUBMODEL = {
  modelType: 'Submodel',
  id: SM,
  idShort: 'Fuzz',
  semanticId: external('urn:fuzz:semantic'),
  description: [{ language: 'en', text: 'fuzz fixture' }],
  administration: { version: '1', revision: '0' },
  submodelElements: [
    prop('P'),
    { modelType: 'MultiLanguageProperty', idShort: 'M', value: [{ language: 'en', text: 'hi' }] },
    { modelType: 'Range', idShort: 'R', valueType: 'xs:double', min: '0', max: '1' },
    { modelType: 'ReferenceElement', idShort: 'Ref', value: external('urn:fuzz:target') },
    { modelType: 'Blob', idShort: 'B', contentType: 'application/octet-stream', value: 'AAEC' },
    { modelType: 'File', idShort: 'F', contentType: 'text/plain', value: '/aasx/readme.txt' },
    { modelType: 'SubmodelElementCollection', idShort: 'C', value: [prop('x'), { modelType: 'SubmodelElementCollection', idShort: 'inner', value: [prop('y')] }] },
    { modelType: 'SubmodelElementList', idShort: 'L', typeValueListElement: 'Property', valueTypeListElement: 'xs:int', value: [{ modelType: 'Property', valueType: 'xs:int', value: '1' }, { modelType: 'Property', valueType: 'xs:int', value: '2' }] },
    { modelType: 'Entity', idShort: 'E', entityType: 'SelfManagedEntity', globalAssetId: 'urn:fuzz:entity', statements: [prop('s')] },
    { modelType: 'RelationshipElement', idShort: 'Rel', first: external('urn:fuzz:a'), second: external('urn:fuzz:b') },
    { modelType: 'Operation', idShort: 'Op', inputVariables: [{ value: prop('in') }] },
    { modelType: 'Capability', idShort: 'Cap' },
  ],
};

export const SHELL = {
  modelType: 'AssetAdministrationShell',
  id: AAS,
  idShort: 'FuzzShell',
  assetInformation: { assetKind: 'Instance', globalAssetId: 'urn:fuzz:asset', specificAssetIds: [{ name: 'serial', value: '42' }] },
  submodels: [ref('Submodel', SM)],
};

export const CONCEPT = {
  modelType: 'ConceptDescription',
  id: CD,
  idShort: 'FuzzConcept',
  description: [{ language: 'en', text: 'fuzz concept' }],
  isCaseOf: [external('urn:fuzz:case')],
};

/** The idShorts of the submodel's top-level elements, and the shell's submodel ids: what no fuzzed request may change. */
export const FIXTURE_ELEMENTS = SUBMODEL.submodelElements.map((e) => `${e.modelType}:${e.idShort}`);

/** Valid idShortPaths of the fixture, URL-encoded. */
export const GOOD_PATHS = ['P', 'M', 'R', 'Ref', 'B', 'F', 'C', 'C.x', 'C.inner.y', 'L[0]', 'L[1]', 'E', 'E.s', 'Rel', 'Op', 'Cap'].map(encodeURIComponent);

// --- Path parameters

/** Identifiers that cannot be one: each [label, path segment]. */
export const BAD_IDS: [string, string][] = [
  ['not base64url', '%%%'],
  ['not base64url (*)', '****'],
  ['not base64url (+/)', 'ab+/cd'],
  ['bad padding', 'AAAA='],
  ['one char', '_'],
  ['stray bits', b64(SM).slice(0, -1) + 'B'],
  ['percent-encoded non-ASCII', encodeURIComponent('é')],
  ['malformed percent-encoding', '%E0%A4%A'],
  ['invalid UTF-8', Buffer.from([0xc3, 0x28, 0xff]).toString('base64url')],
  ['NUL', b64('urn:fuzz:sm:1\u0000')],
  ['NUL only', b64('\u0000')],
  ['garbage', b64('\u0001\u0002{"}<>\\')],
  ['unknown', b64('urn:fuzz:nope')],
  ['10 KB id', b64('i'.repeat(10 * KB))],
  ['100 KB id', b64('x'.repeat(100 * KB))],
  ['dots', '..'],
];

/** idShortPaths that are not one, or are absurd: each [label, path segment]. */
export const BAD_PATHS: [string, string][] = [
  ['empty segment', '.'],
  ['dot dot', '..'],
  ['leading dot', '.P'],
  ['trailing dot', 'C.x.'],
  ['unclosed bracket', 'L%5B0'],
  ['open bracket', 'a%5B'],
  ['negative index', 'L%5B-1%5D'],
  ['huge index', 'L%5B99999999999999999999%5D'],
  ['index on a property', 'P%5B0%5D'],
  ['bracket only', '%5B0%5D'],
  ['nested brackets', 'L%5B%5B0%5D%5D'],
  ['NUL', 'P%00'],
  ['malformed percent-encoding', 'P%E0%A4%A'],
  ['lone percent', '%'],
  ['raw brackets', 'L[0]'],
  ['slash inside', 'C%2Fx'],
  ['unknown', 'Nope'],
  ['child of a property', 'P.x'],
  ['6 KB of dots', `${'a.'.repeat(3 * KB)}a`],
  ['12 KB', 'x'.repeat(12 * KB)],
  ['1 MB', 'x'.repeat(MB)],
  ['deeply bracketed (3,000)', `L${'%5B0%5D'.repeat(1_000)}${'[0]'.repeat(2_000)}`],
  ['deeply bracketed (1 MB)', `L${'[0]'.repeat(MB / 3)}`],
];

// --- Query parameters

/** [label, query string]; `cursors` are real ones, issued by other lists of the fixture. */
export function badQueries(cursors: string[]): [string, string][] {
  return [
    ['limit=0', 'limit=0'],
    ['limit=-1', 'limit=-1'],
    ['limit=251', 'limit=251'],
    ['limit=1e9', 'limit=1e9'],
    ['limit=999999999', 'limit=999999999'],
    ['limit=99999999999999999999', 'limit=99999999999999999999'],
    ['limit=abc', 'limit=abc'],
    ['limit empty', 'limit='],
    ['limit=1.5', 'limit=1.5'],
    ['limit repeated', 'limit=1&limit=2'],
    ['limit[]', 'limit[]=1'],
    ['cursor garbage', 'cursor=garbage!!'],
    ['cursor empty', 'cursor='],
    ['cursor repeated', 'cursor=a&cursor=b'],
    ['cursor of JSON of another list', `cursor=${b64('["shells",5]')}`],
    ['cursor with a negative key', `cursor=${b64('["submodel-elements",-1]')}`],
    ['cursor with a huge key', `cursor=${b64('["submodels",1e309]')}`],
    ['cursor with an object key', `cursor=${b64('["submodels",{"a":1}]')}`],
    ['cursor of JSON nested 5,000 deep', `cursor=${b64(`${'['.repeat(5_000)}${']'.repeat(5_000)}`)}`],
    ['cursor of 10 KB', `cursor=${b64('c'.repeat(10 * KB))}`],
    ...cursors.map((c, i): [string, string] => [`cursor issued by another list #${i}`, `cursor=${c}&limit=1`]),
    ['level=wide', 'level=wide'],
    ['level repeated', 'level=core&level=deep'],
    ['level empty', 'level='],
    ['extent=all', 'extent=all'],
    ['extent=withBlobValue', 'extent=withBlobValue'],
    ['extent repeated', 'extent=withBlobValue&extent=withoutBlobValue'],
    ['unknown parameter', 'unknown=1&__proto__=x&constructor=y'],
    ['10 KB idShort', `idShort=${'x'.repeat(10 * KB)}`],
    ['idShort with NUL', 'idShort=a%00b'],
    ['semanticId JSON of the wrong shape', `semanticId=${b64('{"type":1,"keys":"x"}')}`],
    ['semanticId deep', `semanticId=${b64(`${'{"a":'.repeat(3_000)}1${'}'.repeat(3_000)}`)}`],
    ['semanticId not base64url', 'semanticId=%%%'],
    ['assetIds garbage', 'assetIds=%%%'],
    ['assetIds empty JSON array', `assetIds=${b64('[]')}`],
    ['assetIds deep', `assetIds=${b64(`${'['.repeat(3_000)}${']'.repeat(3_000)}`)}`],
    ['isCaseOf garbage', `isCaseOf=${b64('nope')}`],
    ['dataSpecificationRef array', `dataSpecificationRef=${b64('[1,2]')}`],
    ['kind=Nope', 'kind=Nope'],
    ['assetKind=Nope', 'assetKind=Nope'],
    ['malformed percent-encoding', 'idShort=%E0%A4%A&limit=%'],
    ['many parameters', Array.from({ length: 1_000 }, (_, i) => `p${i}=${i}`).join('&')],
  ];
}

// --- Bodies

export interface BadBody {
  label: string;
  body: string | Buffer;
  /** Replaces the request's headers of the same names; '' removes one. */
  headers?: Record<string, string>;
}

const deepArrays = (n: number) => `${'['.repeat(n)}1${']'.repeat(n)}`;
const deepObjects = (n: number) => `${'{"a":'.repeat(n)}1${'}'.repeat(n)}`;
/** Built once: gzip of 32 MB of spaces is 32 KB, far past the body limit once inflated. */
const GZIP_BOMB = gzipSync(Buffer.alloc(32 * MB, ' '), { level: 9 });
const DEFLATE_BOMB = deflateSync(Buffer.alloc(32 * MB, '['), { level: 9 });
/** Flat JSON: `[{},{},...]` of about `bytes`, the costliest kind to parse per byte (one object per 3 bytes). */
export const flatObjects = (bytes: number) => `[${Array.from({ length: Math.floor(bytes / 3) }, () => '{}').join(',')}]`;
/**
 * A nesting bomb: `prefix` and then 60 MB of `[` (or of `{"a":`), gzipped (level 9) to about 61 KB. Inflated and
 * parsed whole it held the event loop for 9 to 14 s and took 1.8 GB per request.
 */
export function nestingBomb(prefix = '', unit = '[', inflatedBytes = 60 * MB): Buffer {
  return gzipSync(Buffer.concat([Buffer.from(prefix), Buffer.alloc(inflatedBytes, unit)]), { level: 9 });
}
const NESTING_BOMB = nestingBomb();
const TOO_BIG = Buffer.from(JSON.stringify({ modelType: 'Submodel', id: 'urn:fuzz:big', idShort: 'x'.repeat(Math.round(1.5 * MB)) }));

export const BAD_BODIES: BadBody[] = [
  { label: 'not JSON', body: 'garbage' },
  { label: 'empty', body: '' },
  { label: 'truncated JSON', body: '{"modelType":"Submodel","id":' },
  { label: 'truncated string', body: '{"id":"urn:x' },
  { label: 'trailing garbage', body: '{} {}' },
  { label: 'BOM', body: '\uFEFF{}' },
  { label: 'lone surrogate', body: '{"id":"\\ud800"}' },
  { label: 'JSON array', body: '[]' },
  { label: 'JSON string', body: '"x"' },
  { label: 'JSON number', body: '42' },
  { label: 'JSON null', body: 'null' },
  { label: 'JSON true', body: 'true' },
  { label: 'empty object', body: '{}' },
  { label: '__proto__', body: '{"__proto__":{"polluted":true},"constructor":{"prototype":{"x":1}}}' },
  { label: 'duplicate keys', body: '{"id":"a","id":"b","modelType":"Submodel","modelType":"Property"}' },
  { label: 'deep arrays (5,000)', body: deepArrays(5_000) },
  { label: 'deep objects (5,000)', body: deepObjects(5_000) },
  { label: 'deep arrays (100,000)', body: deepArrays(100_000) },
  { label: 'big string (900 KB)', body: JSON.stringify({ modelType: 'Submodel', id: 'x'.repeat(900 * KB), idShort: 'Big' }) },
  { label: 'many keys', body: JSON.stringify(Object.fromEntries(Array.from({ length: 30_000 }, (_, i) => [`k${i}`, i]))) },
  { label: 'long array', body: JSON.stringify({ modelType: 'Submodel', id: 'urn:fuzz:long', submodelElements: Array.from({ length: 50_000 }, () => 1) }) },
  { label: 'over the body limit (1.5 MB)', body: TOO_BIG },
  { label: 'no content-type', body: '{}', headers: { 'content-type': '' } },
  { label: 'text/plain', body: '{}', headers: { 'content-type': 'text/plain' } },
  { label: 'form', body: 'a=b&c=d', headers: { 'content-type': 'application/x-www-form-urlencoded' } },
  { label: 'multipart without boundary', body: '--x\r\n\r\n', headers: { 'content-type': 'multipart/form-data' } },
  { label: 'garbage content-type', body: '{}', headers: { 'content-type': ';;;=/' } },
  { label: 'charset=latin1', body: Buffer.from('{"idShort":"\xe9"}', 'latin1'), headers: { 'content-type': 'application/json; charset=latin1' } },
  { label: 'charset=utf-16', body: Buffer.from('{}', 'utf16le'), headers: { 'content-type': 'application/json; charset=utf-16' } },
  { label: 'gzip, bad stream', body: 'not gzip at all', headers: { 'content-encoding': 'gzip' } },
  { label: 'gzip, truncated stream', body: gzipSync(Buffer.from('{"a":1}')).subarray(0, 12), headers: { 'content-encoding': 'gzip' } },
  { label: 'gzip bomb', body: GZIP_BOMB, headers: { 'content-encoding': 'gzip' } },
  { label: 'deflate bomb', body: DEFLATE_BOMB, headers: { 'content-encoding': 'deflate' } },
  { label: 'br, bad stream', body: 'not brotli', headers: { 'content-encoding': 'br' } },
  { label: 'unknown content-encoding', body: '{}', headers: { 'content-encoding': 'x-fuzz' } },
  { label: 'gzip nesting bomb (60 MB of [ in 61 KB)', body: NESTING_BOMB, headers: { 'content-encoding': 'gzip' } },
  { label: 'gzip nesting bomb of objects (10 MB of {"a":)', body: nestingBomb('', '{"a":', 10 * MB), headers: { 'content-encoding': 'gzip' } },
  { label: 'flat [{},{},...] (900 KB)', body: flatObjects(900 * KB) },
  { label: 'flat [{},{},...] gzipped (18 MB inflated)', body: gzipSync(flatObjects(18 * MB)), headers: { 'content-encoding': 'gzip' } },
  { label: 'Content-Encoding of 8 KB', body: '{}', headers: { 'content-encoding': 'x'.repeat(8 * KB) } },
  { label: 'Content-Encoding list of 1,000 codings', body: '{}', headers: { 'content-encoding': Array.from({ length: 1_000 }, () => 'gzip').join(', ') } },
  { label: 'gzip twice named, once applied', body: gzipSync(Buffer.from('{}')), headers: { 'content-encoding': 'gzip, gzip' } },
];

// --- Headers

export const BAD_HEADERS: [string, Record<string, string>][] = [
  ['If-Match garbage', { 'if-match': 'garbage' }],
  ['If-Match unquoted list', { 'if-match': 'a, b, , ,' }],
  ['If-Match 8 KB', { 'if-match': `"${'x'.repeat(8 * KB)}"` }],
  ['If-None-Match garbage', { 'if-none-match': '"x", garbage' }],
  ['Authorization 16 KB', { authorization: `Bearer ${'a'.repeat(16 * KB)}` }],
  ['Authorization 8 KB', { authorization: `Bearer ${'a'.repeat(8 * KB)}` }],
  ['Bearer garbage', { authorization: 'Bearer garbage' }],
  ['Bearer alone', { authorization: 'Bearer' }],
  ['Bearer JWT-shaped garbage', { authorization: 'Bearer eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.' }],
  ['Basic', { authorization: 'Basic Zm9vOmJhcg==' }],
  ['X-Request-Id garbage', { 'x-request-id': '<script>alert(1)</script>' }],
  ['Accept XML', { accept: 'application/xml' }],
  ['Accept garbage', { accept: ';;q=x' }],
  ['X-Forwarded garbage', { 'x-forwarded-host': 'evil.example:99999', 'x-forwarded-proto': 'gopher', 'x-forwarded-for': 'not an ip' }],
];

// --- Methods

/** Methods no route of the server takes (some of which Node's fetch refuses to send). */
export const FOREIGN_METHODS = ['TRACE', 'PROPFIND', 'LOCK', 'MKCOL'];
export const ODD_METHODS = [...FOREIGN_METHODS, 'OPTIONS', 'HEAD'];
export const TABLE_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

// --- Valid bodies, and one field of them made the wrong type

/** A valid body for `route`, so one mutation of it reaches the route logic past the first check. */
export function validBody(route: RouteSpec): unknown {
  const p = route.path;
  if (p.startsWith('/query/')) {
    const field = { '/query/shells': '$aas#idShort', '/query/submodels': '$sme.P#value', '/query/concept-descriptions': '$cd#id' }[p] ?? '$aas#id';
    return { $select: 'id', $condition: { $and: [{ $eq: [{ $field: field }, { $strVal: 'x' }] }, { $not: { $boolean: false } }] } };
  }
  if (p === '/shells') return { ...SHELL, id: 'urn:fuzz:aas:new' };
  if (p.endsWith('/asset-information')) return SHELL.assetInformation;
  if (p.endsWith('/submodel-refs')) return ref('Submodel', 'urn:fuzz:sm:other');
  if (p.startsWith('/shells/:aasIdentifier') && !p.includes('/submodels')) return SHELL;
  if (p === '/concept-descriptions') return { ...CONCEPT, id: 'urn:fuzz:cd:new' };
  if (p.startsWith('/concept-descriptions')) return CONCEPT;
  if (p === '/submodels') return { ...SUBMODEL, id: 'urn:fuzz:sm:new' };
  if (p.includes('/submodel-elements')) {
    if (p.endsWith('/$value')) return '6';
    if (p.endsWith('/$metadata')) return { modelType: 'Property', idShort: 'P', valueType: 'xs:int' };
    if (route.method === 'POST') return prop('Q');
    return prop('P', '7');
  }
  if (p.endsWith('/$value')) return { P: '6', C: { x: '1', inner: { y: '2' } }, L: ['1', '2'] };
  if (p.endsWith('/$metadata')) {
    const { submodelElements: _elements, ...metadata } = SUBMODEL;
    return metadata;
  }
  return SUBMODEL;
}

/** A value of another JSON type than `value` (never null, which could read as "absent" and so be valid). */
function wrongType(value: unknown, rnd: Rnd): unknown {
  if (typeof value === 'string') return rnd.pick([42, true, [], {}, ['x'], { x: 'y' }, -0.5]);
  if (typeof value === 'number' || typeof value === 'boolean') return rnd.pick(['x', [], {}]);
  if (Array.isArray(value)) return rnd.pick(['x', 42, {}, { 0: value[0] }, false]);
  return rnd.pick(['x', 42, [], [value], true]);
}

/** `body` with one field, anywhere in it, replaced by a value of the wrong type; [label, JSON text]. */
export function mutateBody(body: unknown, rnd: Rnd): [string, string] {
  if (body === null || typeof body !== 'object') return ['value of the wrong type', JSON.stringify(wrongType(body, rnd))];
  const copy = JSON.parse(JSON.stringify(body)) as Record<string, unknown>;
  const slots: [Record<string, unknown>, string, string][] = [];
  const walk = (node: unknown, path: string, depth: number) => {
    if (node === null || typeof node !== 'object' || depth > 4) return;
    for (const [key, inner] of Object.entries(node)) {
      slots.push([node as Record<string, unknown>, key, `${path}.${key}`]);
      walk(inner, `${path}.${key}`, depth + 1);
    }
  };
  walk(copy, '$', 0);
  const [holder, key, path] = rnd.pick(slots);
  // A required key may be nulled too: `id` and `modelType` are never optional.
  holder[key] = (key === 'id' || key === 'modelType') && rnd.next() < 0.3 ? null : wrongType(holder[key], rnd);
  return [`valid body, ${path} of the wrong type`, JSON.stringify(copy)];
}

// --- GraphQL

export interface GraphqlCase {
  label: string;
  method?: string;
  /** Appended to /graphql (for GET). */
  search?: string;
  body?: string | Buffer;
  headers?: Record<string, string>;
}

const gql = (label: string, query: unknown, variables?: unknown, more: Record<string, unknown> = {}): GraphqlCase => ({
  label,
  body: JSON.stringify({ query, ...(variables === undefined ? {} : { variables }), ...more }),
});

/** The doubling chain: F0 spreads F1 twice, ..., F30 selects one field: 2^30 selections if expanded. */
export function fragmentChain(leaf = '__typename', depth = 30): string {
  return ['query { ...F0 }', ...Array.from({ length: depth }, (_, i) => `fragment F${i} on Query { ...F${i + 1} ...F${i + 1} }`), `fragment F${depth} on Query { ${leaf} }`].join('\n');
}

const GRAPHQL_TOKENS = ['{', '}', '(', ')', ':', '$', '...', '@', '!', '[', ']', '=', '"x"', '"""', '1', '-1', '1e999', 'query', 'mutation', 'subscription', 'fragment', 'on', 'Query', 'shells', 'submodel', 'tenant', 'id', 'json', 'result', '__typename', '__schema', 'null', 'true', '#', '\n', '\u0000', '\\u', 'é', '&', '|', ','];

/** A document of random GraphQL tokens: mostly unparsable, sometimes almost right. */
export function garbageDocument(rnd: Rnd): string {
  const n = 1 + rnd.int(200);
  let text = '';
  for (let i = 0; i < n; i++) text += `${rnd.pick(GRAPHQL_TOKENS)} `;
  return text;
}

/** Every GraphQL case but the random ones; `tenant` is the fixture's. */
export function graphqlCases(tenant: string): GraphqlCase[] {
  const t = JSON.stringify(tenant);
  // Deep values are spliced in as text: JSON.stringify itself overflows the stack on them.
  const DEEP = '"__DEEP_ARRAYS__"';
  const DEEP_OBJ = '"__DEEP_OBJECTS__"';
  const deepVar = DEEP.slice(1, -1);
  const deepObj = DEEP_OBJ.slice(1, -1);
  const deep = (c: GraphqlCase): GraphqlCase => ({ ...c, body: String(c.body).replace(DEEP, deepArrays(5_000)).replace(DEEP_OBJ, deepObjects(5_000)) });
  const huge = 'x'.repeat(10 * MB);
  const large = 'x'.repeat(900 * KB);
  const submodelPage = (limit: number) => `submodels(tenant: ${t}, limit: ${limit}) { result { id json submodelElements { idShort modelType } } }`;
  const cases: GraphqlCase[] = [
    gql('fragment chain doubling 30 times', fragmentChain()),
    gql('fragment chain doubling 30 times, a list at the leaf', fragmentChain(`shells(tenant: ${t}, limit: 250) { result { json } }`)),
    gql('fragment chain doubling 60 times', fragmentChain('__typename', 60)),
    // Each fragment nests its selections 50 deep and spreads the next: 6,000 levels in all, while the parser only
    // ever sees 50 at a time. Whatever walks the expanded selections recursively needs 6,000 frames.
    gql('selections 6,000 deep through a chain of fragments', ['query { ...F0 }', ...Array.from({ length: 120 }, (_, i) => `fragment F${i} on Query { ${'a { '.repeat(50)}...F${i + 1}${' }'.repeat(50)} }`), 'fragment F120 on Query { __typename }'].join('\n')),
    gql('fragment chain 2,400 long, each spreading the next', ['query { ...F0 }', ...Array.from({ length: 2_400 }, (_, i) => `fragment F${i} on Query { ...F${i + 1} }`), 'fragment F2400 on Query { __typename }'].join('\n')),
    gql('valid selections 1,900 deep', `{ submodel(tenant: ${t}, id: ${JSON.stringify(SM)}) { semanticId { ${'referredSemanticId { '.repeat(1_900)}type${' }'.repeat(1_900)} } } }`),
    gql('variable of a list type 2,000 deep', `query($v: ${'['.repeat(2_000)}Int${']'.repeat(2_000)}) { __typename @include(if: $v) }`, { v: 1 }),
    gql('fragment cycle', 'query { ...A } fragment A on Query { ...B } fragment B on Query { ...A }'),
    gql('19 aliases of 250-item lists', `{ ${Array.from({ length: 19 }, (_, i) => `a${i}: ${submodelPage(250)}`).join(' ')} }`),
    gql('2,000 aliases of a list', `{ ${Array.from({ length: 2_000 }, (_, i) => `a${i}: shells(tenant: ${t}) { result { id } }`).join(' ')} }`),
    gql('1,500 aliases of a document field', `{ submodel(tenant: ${t}, id: ${JSON.stringify(SM)}) { ${Array.from({ length: 1_500 }, (_, i) => `j${i}: json`).join(' ')} } }`),
    gql('6,000 aliases of __typename', `{ ${Array.from({ length: 6_000 }, (_, i) => `a${i}: __typename`).join(' ')} }`),
    gql('nested selections 5,000 deep', `{ ${'a { '.repeat(5_000)}b${' }'.repeat(5_000)} }`),
    gql('list literal 5,000 deep', `{ submodels(tenant: ${t}, filter: { semanticId: ${'['.repeat(5_000)}${']'.repeat(5_000)} }) { result { id } } }`),
    gql('object literal 3,000 deep', `{ submodels(tenant: ${t}, filter: { semanticId: ${'{ a: '.repeat(3_000)}1${' }'.repeat(3_000)} }) { result { id } } }`),
    gql('directive flood', `{ __typename ${'@skip(if: false) '.repeat(3_000)}}`),
    gql('unbalanced braces', '{'.repeat(5_000)),
    gql('900 KB string literal id', `{ shell(tenant: ${t}, id: ${JSON.stringify(large)}) { id } }`),
    gql('query is a number', 42),
    gql('query is an object', { a: 1 }),
    gql('query is null', null),
    gql('no query', undefined),
    gql('unknown field', '{ nope }'),
    gql('subscription', 'subscription { shells }'),
    gql('two operations, no name', 'query A { __typename } query B { __typename }'),
    gql('unknown operationName', '{ __typename }', undefined, { operationName: 'Nope' }),
    gql('operationName of the wrong type', '{ __typename }', undefined, { operationName: 42 }),
    gql('extensions garbage', '{ __typename }', undefined, { extensions: { persistedQuery: { version: 1, sha256Hash: 'garbage' } } }),
    gql('introspection', '{ __schema { types { name fields { name args { name type { name ofType { name } } } } } } }'),
    gql('unknown tenant', `{ shells(tenant: "fuzz-no-such-tenant") { result { id } } }`),
    // Deeply nested arrays for JSON-typed arguments, in operations that are otherwise valid.
    deep(gql('JSON value nested 5,000 deep', `mutation($v: JSON) { patchSubmodelElementValue(tenant: ${t}, submodelId: ${JSON.stringify(SM)}, idShortPath: "P", value: $v) { etag } }`, { v: deepVar })),
    deep(gql('JSONObject nested 5,000 deep', `mutation($s: JSONObject!) { createShell(tenant: ${t}, shell: $s) { id } }`, { s: { ...SHELL, id: 'urn:fuzz:deep', extensions: deepVar } })),
    deep(gql('JSONObject of objects nested 5,000 deep', `mutation($s: JSONObject!) { replaceSubmodel(tenant: ${t}, id: ${JSON.stringify(SM)}, submodel: $s) { etag } }`, { s: deepObj })),
    deep(gql('filter JSONObject nested 5,000 deep', `query($f: SubmodelFilterInput) { submodels(tenant: ${t}, filter: $f) { result { id } } }`, { f: { semanticId: { keys: deepVar } } })),
    deep(gql('unused variable nested 5,000 deep', '{ __typename }', { unused: deepVar })),
    // Variables of the wrong type.
    gql('Int variable given a string', `query($n: Int) { submodels(tenant: ${t}, limit: $n) { result { id } } }`, { n: 'many' }),
    gql('Int variable given 1e9', `query($n: Int) { submodels(tenant: ${t}, limit: $n) { result { id } } }`, { n: 1e9 }),
    gql('Int variable given 2^53', `query($n: Int) { submodels(tenant: ${t}, limit: $n) { result { id } } }`, { n: 2 ** 53 }),
    gql('Int variable given -1', `query($n: Int) { submodels(tenant: ${t}, limit: $n) { result { id } } }`, { n: -1 }),
    gql('String! variable given a number', `query($id: String!) { shell(tenant: ${t}, id: $id) { id } }`, { id: 42 }),
    gql('String! variable given null', `query($id: String!) { shell(tenant: ${t}, id: $id) { id } }`, { id: null }),
    gql('String! variable given an object', `query($id: String!) { shell(tenant: ${t}, id: $id) { id } }`, { id: { a: 1 } }),
    gql('String! variable with NUL', `query($id: String!) { shell(tenant: ${t}, id: $id) { id } }`, { id: 'a\u0000b' }),
    gql('enum variable given garbage', `query($l: Level!) { submodel(tenant: ${t}, id: ${JSON.stringify(SM)}, level: $l) { id } }`, { l: 'wide' }),
    gql('input variable given a string', `query($f: SubmodelFilterInput) { submodels(tenant: ${t}, filter: $f) { result { id } } }`, { f: 'x' }),
    gql('JSONObject! variable given an array', `mutation($s: JSONObject!) { createSubmodel(tenant: ${t}, submodel: $s) { id } }`, { s: [1, 2] }),
    gql('variables is a string', '{ __typename }', 'x'),
    gql('variables is an array', '{ __typename }', [1]),
    gql('undeclared variable type', 'query($x: Nope) { __typename }', { x: 1 }),
    // Long strings for an id or idShortPath argument.
    gql('10 MB string variable for an id', `query($id: String!) { shell(tenant: ${t}, id: $id) { id } }`, { id: huge }),
    gql('10 MB string variable for an idShortPath', `query($p: String!) { submodelElement(tenant: ${t}, submodelId: ${JSON.stringify(SM)}, idShortPath: $p) { idShortPath } }`, { p: huge }),
    gql('900 KB string variable for an id', `query($id: String!) { submodel(tenant: ${t}, id: $id) { id } }`, { id: large }),
    gql('900 KB string variable for an idShortPath', `query($p: String!) { submodelElement(tenant: ${t}, submodelId: ${JSON.stringify(SM)}, idShortPath: $p) { idShortPath } }`, { p: large }),
    gql('900 KB bracketed idShortPath', `query($p: String!) { submodelElement(tenant: ${t}, submodelId: ${JSON.stringify(SM)}, idShortPath: $p) { idShortPath } }`, { p: `L${'[0]'.repeat(300_000)}` }),
    gql('900 KB string variable for a tenant', `query($t: String!) { shells(tenant: $t) { result { id } } }`, { t: large }),
    gql('limit 250 through a variable, nested', `query($n: Int!) { shells(tenant: ${t}, limit: $n) { result { json submodels { json submodelElements { idShort json } } } } }`, { n: 250 }),
    gql('invokeOperation', `mutation { invokeOperation(tenant: ${t}, submodelId: ${JSON.stringify(SM)}, idShortPath: "Op") }`),
    gql('deleteShell with garbage ifMatch', `mutation { deleteShell(tenant: ${t}, id: ${JSON.stringify(AAS)}, ifMatch: "garbage") }`),
    gql('cursor of another list', `{ conceptDescriptions(tenant: ${t}, cursor: ${JSON.stringify(b64('["submodels",1]'))}) { result { id } } }`),
    // Batches.
    { label: 'batch of two', body: JSON.stringify([{ query: '{ __typename }' }, { query: '{ nope }' }]) },
    { label: 'empty batch', body: '[]' },
    { label: 'batch of numbers', body: '[1,2,3]' },
    { label: 'batch of 5,000', body: JSON.stringify(Array.from({ length: 5_000 }, () => ({ query: '{ __typename }' }))) },
    // GET with a query string.
    { label: 'GET valid query', method: 'GET', search: `?query=${encodeURIComponent(`{ shells(tenant: ${t}) { result { id } } }`)}`, headers: { accept: 'application/json', 'apollo-require-preflight': 'true' } },
    { label: 'GET without preflight header', method: 'GET', search: `?query=${encodeURIComponent('{ __typename }')}`, headers: { accept: 'application/json' } },
    { label: 'GET mutation', method: 'GET', search: `?query=${encodeURIComponent(`mutation { deleteShell(tenant: ${t}, id: "x") }`)}`, headers: { accept: 'application/json', 'apollo-require-preflight': 'true' } },
    { label: 'GET garbage', method: 'GET', search: `?query=${encodeURIComponent('{ nope')}&variables=%7Bnot-json`, headers: { accept: 'application/json', 'apollo-require-preflight': 'true' } },
    { label: 'GET variables deep', method: 'GET', search: `?query=${encodeURIComponent('{ __typename }')}&variables=${encodeURIComponent(`{"v":${deepArrays(2_000)}}`)}`, headers: { accept: 'application/json', 'apollo-require-preflight': 'true' } },
    { label: 'GET fragment chain', method: 'GET', search: `?query=${encodeURIComponent(fragmentChain())}`, headers: { accept: 'application/json', 'apollo-require-preflight': 'true' } },
    { label: 'GET repeated query', method: 'GET', search: '?query=%7B__typename%7D&query=%7Bnope%7D', headers: { accept: 'application/json', 'apollo-require-preflight': 'true' } },
    { label: 'GET malformed percent-encoding', method: 'GET', search: '?query=%E0%A4%A&variables=%', headers: { accept: 'application/json', 'apollo-require-preflight': 'true' } },
    { label: 'GET 1 MB query string', method: 'GET', search: `?query=${'x'.repeat(MB)}`, headers: { accept: 'application/json' } },
    { label: 'POST text/plain', body: JSON.stringify({ query: '{ __typename }' }), headers: { 'content-type': 'text/plain' } },
  ];
  // Bad bodies, as in REST.
  for (const bad of BAD_BODIES) cases.push({ label: `body: ${bad.label}`, body: bad.body, headers: bad.headers });
  // Odd methods.
  for (const method of [...ODD_METHODS, 'PUT', 'PATCH', 'DELETE']) cases.push({ label: `method ${method}`, method });
  return cases;
}

/** A valid mutation with one field of its document of the wrong type: past parsing and validation, into the rules. */
export function graphqlMutation(tenant: string, rnd: Rnd): GraphqlCase {
  const t = JSON.stringify(tenant);
  const mutations: [string, string, unknown][] = [
    ['createSubmodel', `mutation($d: JSONObject!) { createSubmodel(tenant: ${t}, submodel: $d) { id } }`, { ...SUBMODEL, id: 'urn:fuzz:sm:gql' }],
    ['replaceSubmodel', `mutation($d: JSONObject!) { replaceSubmodel(tenant: ${t}, id: ${JSON.stringify(SM)}, submodel: $d) { etag } }`, SUBMODEL],
    ['replaceShell', `mutation($d: JSONObject!) { replaceShell(tenant: ${t}, id: ${JSON.stringify(AAS)}, shell: $d) { etag } }`, SHELL],
    ['addSubmodelRef', `mutation($d: JSONObject!) { addSubmodelRef(tenant: ${t}, id: ${JSON.stringify(AAS)}, reference: $d) { json } }`, ref('Submodel', 'urn:fuzz:sm:other')],
    ['createSubmodelElement', `mutation($d: JSONObject!) { createSubmodelElement(tenant: ${t}, submodelId: ${JSON.stringify(SM)}, idShortPath: "C", element: $d) { idShortPath } }`, prop('z')],
    ['replaceConceptDescription', `mutation($d: JSONObject!) { replaceConceptDescription(tenant: ${t}, id: ${JSON.stringify(CD)}, conceptDescription: $d) { etag } }`, CONCEPT],
    ['patchSubmodelElementValue', `mutation($d: JSON) { patchSubmodelElementValue(tenant: ${t}, submodelId: ${JSON.stringify(SM)}, idShortPath: "C", value: $d) { etag } }`, { x: '1', inner: { y: '2' } }],
  ];
  const [name, query, document] = rnd.pick(mutations);
  const [label, text] = mutateBody(document, rnd);
  return { label: `${name}: ${label}`, body: `{"query":${JSON.stringify(query)},"variables":{"d":${text}}}` };
}
