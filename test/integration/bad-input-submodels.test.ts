import { isDeepStrictEqual } from 'node:util';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { conceptDescriptionRoutes } from '../../rest-facade/concept-description-repository';
import { submodelRepositoryRoutes } from '../../rest-facade/submodel-repository';
import { TestServer, b64, sampleShell, startTestServer } from '../support/server';

/**
 * Bad input on every route of the Submodel Repository (also under /shells/{aasId}/submodels/{smId}) and the
 * Concept Description Repository: a 4xx with an AAS Result (text, correlationId), never a 500, and no write.
 * The routes come from the facade's exported tables, so a new route is covered without editing this file;
 * what each route should accept comes from the OpenAPI documents (written out below), not from those tables.
 */

interface Route {
  method: string;
  path: string;
  body?: boolean | 'any';
}
const ROUTES: Route[] = [...submodelRepositoryRoutes, ...conceptDescriptionRoutes].map(({ method, path, body }) => ({ method, path, body }));

/** A route's place with both submodel bases folded into `{sm}`, e.g. `PATCH {sm}/submodel-elements/:idShortPath`. */
const key = (r: Route) => `${r.method} ${r.path.replace(/^(\/shells\/:aasIdentifier)?\/submodels\/:submodelIdentifier/, '{sm}')}`;
const ID_PARAMS = ['aasIdentifier', 'submodelIdentifier', 'cdIdentifier'] as const;
const idParams = (r: Route) => ID_PARAMS.filter((p) => r.path.includes(`:${p}`));
const isElementRoute = (r: Route) => r.path.includes(':idShortPath');
const isPaged = (r: Route) => r.method === 'GET' && /\/(submodels|submodel-elements|concept-descriptions)(\/\$\w+)?$/.test(r.path);

// The modifiers each route takes per SSP-001 of the Submodel Repository and the Concept Description Repository
// (V3.0.4); a route not listed takes none. GET /shells/{aasId}/submodels is the platform's own list (not in V3.0.4)
// and takes what GET /submodels takes.
type Modifiers = { level?: string[]; extent?: boolean };
const LE: Modifiers = { level: ['deep', 'core'], extent: true };
const DC: Modifiers = { level: ['deep', 'core'] };
const CORE: Modifiers = { level: ['core'] };
const DEEP: Modifiers = { level: ['deep'] };
const E = '{sm}/submodel-elements';
const SPEC_MODIFIERS: Record<string, Modifiers> = {
  'GET /submodels': LE, 'GET /submodels/$value': LE, 'GET /submodels/$reference': CORE, 'GET /submodels/$path': DC,
  'GET /shells/:aasIdentifier/submodels': LE,
  'GET {sm}': LE, 'PATCH {sm}': CORE, 'GET {sm}/$value': LE, 'PATCH {sm}/$value': CORE, 'GET {sm}/$path': DC,
  [`GET ${E}`]: LE, [`GET ${E}/$value`]: LE, [`GET ${E}/$reference`]: CORE, [`GET ${E}/$path`]: DC,
  [`GET ${E}/:idShortPath`]: LE, [`PUT ${E}/:idShortPath`]: DEEP, [`PATCH ${E}/:idShortPath`]: CORE,
  [`GET ${E}/:idShortPath/$value`]: LE, [`PATCH ${E}/:idShortPath/$value`]: CORE, [`GET ${E}/:idShortPath/$path`]: DC,
};

// The routes whose V3.1.2 operation takes `level` where V3.0.4's does not (the same modifiers otherwise).
const V31_LEVEL = new Set(['PATCH /submodels/:submodelIdentifier/$metadata']);

// --- Fixture: a shell referencing two submodels, a third submodel it does not reference, two concept descriptions.
const AAS = 'urn:bad-sm:aas';
const SM = 'urn:bad-sm:sm:1';
const SM2 = 'urn:bad-sm:sm:2';
const FREE = 'urn:bad-sm:sm:unreferenced';
const CD = 'urn:bad-sm:cd:1';
const CD2 = 'urn:bad-sm:cd:2';
const ABSENT = 'urn:bad-sm:absent';

const prop = (idShort: string | undefined, valueType = 'xs:int', value = '5') => ({ modelType: 'Property', ...(idShort && { idShort }), valueType, value });
const range = (idShort?: string) => ({ modelType: 'Range', ...(idShort && { idShort }), valueType: 'xs:int', min: '1', max: '9' });
const blob = (idShort: string, value: string) => ({ modelType: 'Blob', idShort, contentType: 'application/octet-stream', value });
const submodel = (id: string, extra: Record<string, unknown> = {}) => ({ modelType: 'Submodel', id, idShort: 'Sm', ...extra });
const cd = (id: string, extra: Record<string, unknown> = {}) => ({ modelType: 'ConceptDescription', id, idShort: 'Cd', ...extra });
const ref = (id: string) => ({ type: 'ModelReference', keys: [{ type: 'Submodel', value: id }] });
const ELEMENTS = [
  prop('P'),
  { modelType: 'SubmodelElementCollection', idShort: 'C', value: [prop('x', 'xs:string', 'a')] },
  { modelType: 'SubmodelElementList', idShort: 'L', typeValueListElement: 'Property', valueTypeListElement: 'xs:int', value: [prop(undefined, 'xs:int', '1'), prop(undefined, 'xs:int', '2')] },
  range('R'),
  { modelType: 'MultiLanguageProperty', idShort: 'MLP', value: [{ language: 'en', text: 'hi' }] },
  blob('B', 'AAEC'),
  { modelType: 'File', idShort: 'F', contentType: 'text/plain', value: '/x.txt' },
  { modelType: 'Operation', idShort: 'Op' },
  { modelType: 'Capability', idShort: 'Cap' },
  { modelType: 'Entity', idShort: 'E', entityType: 'SelfManagedEntity', globalAssetId: 'urn:bad-sm:asset', statements: [prop('s')] },
];

let server: TestServer;
/** The tenant's API V3.0 (the fixture is written through it), and the base the tests run against. */
let base: string;
let api: string;
let version: 'v3.0' | 'v3.1' = 'v3.0';

beforeAll(async () => {
  server = await startTestServer(inject('databaseUrl'));
  api = base = server.api((await server.createTenant()).name);
  const created = await Promise.all([
    ['/submodels', submodel(SM, { submodelElements: ELEMENTS })],
    ['/submodels', submodel(SM2, { submodelElements: [prop('P')] })],
    ['/submodels', submodel(FREE)],
    ['/shells', sampleShell(AAS, { submodels: [ref(SM), ref(SM2)] })],
    ['/concept-descriptions', cd(CD)],
    ['/concept-descriptions', cd(CD2)],
  ].map(([path, body]) => fetch(`${api}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })));
  expect(created.map((r) => r.status)).toEqual([201, 201, 201, 201, 201, 201]);
});
afterAll(() => server?.close());

// --- Requests and checks

interface Target {
  aas?: string;
  sm?: string;
  cd?: string;
  /** The idShortPath, URL-encoded as sent. */
  path?: string;
}
/** The route's path with its parameters filled: the fixture's ids unless `target` says otherwise. */
const urlOf = (r: Route, t: Target = {}) =>
  r.path
    .replace(':aasIdentifier', t.aas ?? b64(AAS))
    .replace(':submodelIdentifier', t.sm ?? b64(SM))
    .replace(':cdIdentifier', t.cd ?? b64(CD))
    .replace(':idShortPath', t.path ?? 'P');

/** A body the route accepts for the submodel or concept description `id` (used where a 404 or modifier is the point). */
function validBody(r: Route, id: string): unknown {
  const k = key(r);
  if (k === 'POST /submodels') return submodel(SM); // a duplicate: 409 should it get that far
  if (k === 'POST /concept-descriptions') return cd(CD);
  if (k === 'PUT /concept-descriptions/:cdIdentifier') return cd(id);
  if (k === 'PUT {sm}' || k === 'PATCH {sm}') return submodel(id);
  if (k === 'PATCH {sm}/$metadata') return { idShort: 'Renamed' };
  if (k === 'PATCH {sm}/$value') return {};
  if (k === `POST ${E}` || k === `POST ${E}/:idShortPath`) return prop('New');
  if (k === `PUT ${E}/:idShortPath` || k === `PATCH ${E}/:idShortPath`) return prop('P');
  if (k === `PATCH ${E}/:idShortPath/$metadata`) return { category: 'PARAMETER' };
  if (k === `PATCH ${E}/:idShortPath/$value`) return '7';
  if (!r.body) return undefined;
  throw new Error(`no valid body known for ${k}: add one`);
}

interface Sent {
  method: string;
  url: string;
  /** The raw body; JSON unless `type` says otherwise; undefined sends none. */
  body?: string | Buffer;
  type?: string | null;
  headers?: Record<string, string>;
  label?: string;
}
const jsonBody = (value: unknown) => (value === undefined ? undefined : JSON.stringify(value));

/** What a write must leave as it was: the submodels (with Blob values), concept descriptions and the shell. */
async function snapshot() {
  const read = async (path: string) => {
    const res = await fetch(`${api}${path}`);
    return { status: res.status, etag: res.headers.get('etag'), body: await res.json() };
  };
  return Promise.all([
    `/submodels/${b64(SM)}?extent=withBlobValue`,
    '/submodels?extent=withBlobValue',
    '/concept-descriptions',
    `/shells/${b64(AAS)}`,
  ].map(read));
}

type Snapshot = Awaited<ReturnType<typeof snapshot>>;

/** Puts the data of `before` back after a write that should have been rejected, so one bug does not cascade. */
async function restore(before: Snapshot): Promise<void> {
  const send = (method: string, path: string, body?: unknown) =>
    fetch(`${api}${path}`, { method, headers: { 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  const now = await snapshot();
  for (const [i, kind] of [[1, 'submodels'], [2, 'concept-descriptions']] as const) {
    for (const doc of (now[i].body as { result: { id: string }[] }).result) await send('DELETE', `/${kind}/${b64(doc.id)}`);
    for (const doc of (before[i].body as { result: unknown[] }).result) await send('POST', `/${kind}`, doc);
  }
  await send('DELETE', `/shells/${b64(AAS)}`);
  await send('POST', '/shells', before[3].body);
}

/** Checks requests against expected statuses, collecting every deviation so one run reports them all. */
class Checker {
  readonly problems: string[] = [];
  count = 0;

  async expect(sent: Sent, status: number, text?: RegExp): Promise<void> {
    this.count++;
    const write = sent.method !== 'GET';
    const before = write ? await snapshot() : undefined;
    const headers: Record<string, string> = { ...sent.headers };
    const type = sent.type === undefined ? 'application/json' : sent.type;
    if (type) headers['content-type'] = type;
    const res = await fetch(`${api}${sent.url}`, { method: sent.method, headers, body: sent.body });
    const raw = await res.text();
    const where = `${sent.method} ${sent.url.length > 160 ? `${sent.url.slice(0, 160)}…` : sent.url}${sent.label ? ` [${sent.label}]` : ''}`;
    if (res.status !== status) {
      this.problems.push(`${where}: ${res.status}, expected ${status}: ${raw.slice(0, 300)}`);
    } else if (status >= 400) {
      let message: { text?: unknown; code?: unknown; correlationId?: unknown } | undefined;
      try {
        message = (JSON.parse(raw) as { messages?: (typeof message)[] }).messages?.[0];
      } catch {
        message = undefined;
      }
      if (typeof message?.text !== 'string' || message.text === '') this.problems.push(`${where}: no Result with messages[0].text: ${raw.slice(0, 200)}`);
      else if (text && !text.test(message.text)) this.problems.push(`${where}: message '${message.text}' does not match ${text}`);
      if (message?.code !== String(status)) this.problems.push(`${where}: Result code ${String(message?.code)}, expected ${status}`);
      if (!message?.correlationId || message.correlationId !== res.headers.get('x-request-id')) {
        this.problems.push(`${where}: correlationId ${String(message?.correlationId)} is not the X-Request-Id ${res.headers.get('x-request-id')}`);
      }
    }
    if (before && status >= 400) {
      const after = await snapshot();
      if (!isDeepStrictEqual(before, after)) {
        this.problems.push(`${where}: a rejected write changed the stored data`);
        await restore(before);
      }
    }
  }

  done(): void {
    expect(this.count).toBeGreaterThan(0);
    expect(this.problems).toEqual([]);
  }
}

const routeCases = (routes: Route[]) => routes.map((r) => [r.method, r.path, r] as const);

// --- Input tables

const BAD_IDS: [string, string][] = [
  ['%%%', 'not base64url'],
  ['****', 'not base64url'],
  [b64('a\u0000b'), 'decodes to U+0000'],
  [b64('\u0000'), 'decodes to U+0000 only'],
];

const NUL_REFERENCE = b64(JSON.stringify({ type: 'ExternalReference', keys: [{ type: 'GlobalReference', value: 'a\u0000b' }] }));

/**
 * idShortPaths as sent (URL-encoded), with the exact status: 400 malformed syntax, 404 no element there. An idShort
 * that breaks AASd-002 (`1abc`, `a/b`) is still a path: an import may have stored one.
 */
const ID_SHORT_PATHS: [string, number][] = [
  ['..a', 400], ['a..b', 400], ['a%5B', 400], ['a%5Bx%5D', 400], ['%5B0%5D', 400], ['1abc', 404], ['%20', 400], ['.a', 400],
  ['a.', 400], ['a.b%5D', 400], ['L%5B-1%5D', 400], ['L%5B0%5Dx', 400], ['a%2Fb', 404], ['a%25', 404], ['a%00b', 400],
  ['a%0Ab', 400], ['%20%5B0%5D', 400], ['I40%20Language%20(German)', 404],
  [`${'a.'.repeat(2000)}.`, 400],
  ['P.x', 404], ['L%5B99%5D', 404], ['C%5B0%5D', 404], ['L.x', 404], ['Missing', 404], ['C.missing', 404], ['C.x.y', 404],
  ['L%5B0%5D.x', 404], ['L%5B999999999%5D', 404], ['constructor', 404], ['toString', 404], [`${'a.'.repeat(2000)}a`, 404],
];

/** JSON bodies that are not what a route takes; `$value` routes take any JSON value, so targets are chosen to fit. */
const DEEP_JSON = `${'{"a":'.repeat(20_000)}1${'}'.repeat(20_000)}`;
const GENERIC_BODIES: { label: string; body?: string; type?: string | null; headers?: Record<string, string>; status: number; valuePath?: string }[] = [
  { label: '{}', body: '{}', status: 400, valuePath: 'P' },
  { label: '[]', body: '[]', status: 400, valuePath: 'R' },
  { label: 'null', body: 'null', status: 400, valuePath: 'R' },
  { label: '"x"', body: '"x"', status: 400, valuePath: 'R' },
  { label: 'truncated JSON', body: '{"modelType":"Submodel","id":', status: 400 },
  { label: 'not JSON', body: 'garbage', status: 400 },
  { label: 'empty body with a JSON type', body: '', status: 400 },
  { label: 'no body', type: null, status: 400 },
  { label: 'text/plain', type: 'text/plain', status: 415 },
  { label: 'form-urlencoded', type: 'application/x-www-form-urlencoded', status: 415 },
  { label: 'JSON in UTF-16', type: 'application/json; charset=utf-16', status: 415 },
  { label: 'an unknown Content-Encoding', headers: { 'content-encoding': 'x-unknown' }, status: 415 },
  { label: 'gzip that is not gzip', headers: { 'content-encoding': 'gzip' }, status: 400 },
  { label: 'JSON nested 20,000 deep', body: DEEP_JSON, status: 400 },
  { label: 'a __proto__ key', body: '{"__proto__":{"polluted":true}}', status: 400 },
];
/** `{}` is a valid empty patch of metadata and of a submodel's values. */
const EMPTY_PATCH_OK = new Set(['PATCH {sm}/$metadata', 'PATCH {sm}/$value', `PATCH ${E}/:idShortPath/$metadata`]);

/** The bodies of WRONG_KIND that are wrong in V3.0 only. */
const V30_ONLY_WRONG = new Set(['a list item with an idShort']);

/** Bodies of the wrong kind for their place, and value-only bodies of the wrong shape: [label, method, suffix under {sm}, body, status]. */
const WRONG_KIND: [string, string, string, unknown, number][] = [
  ['a Range into a list of xs:int Properties', 'PUT', '/submodel-elements/L%5B0%5D', range(), 400],
  ['an xs:string Property into a list of xs:int', 'PUT', '/submodel-elements/L%5B0%5D', prop(undefined, 'xs:string', 'a'), 400],
  ['a list item with an idShort', 'PUT', '/submodel-elements/L%5B0%5D', prop('named', 'xs:int', '1'), 400],
  ['a Range appended to a list of Properties', 'POST', '/submodel-elements/L', range(), 400],
  ['a child posted into a Property', 'POST', '/submodel-elements/P', prop('New'), 400],
  ['a child posted into an Operation', 'POST', '/submodel-elements/Op', prop('New'), 400],
  ['a duplicate idShort in a collection', 'POST', '/submodel-elements/C', prop('x', 'xs:string', 'b'), 409],
  ['a duplicate top-level idShort', 'POST', '/submodel-elements', prop('P'), 409],
  ['a top-level element without idShort', 'POST', '/submodel-elements', prop(undefined), 400],
  ['a Submodel as an element', 'POST', '/submodel-elements', submodel('urn:bad-sm:nested'), 400],
  ['a Blob whose value is not base64', 'POST', '/submodel-elements', blob('B2', 'AAE'), 400],
  ['a PATCH of a Property with a Range', 'PATCH', '/submodel-elements/P', range('P'), 400],
  ['a PATCH with another idShort', 'PATCH', '/submodel-elements/P', prop('Q'), 400],
  ['a PATCH with a non-integer xs:int value', 'PATCH', '/submodel-elements/P', prop('P', 'xs:int', 'abc'), 400],
  ['a PUT with another idShort', 'PUT', '/submodel-elements/P', prop('Q'), 400],
  ['a PUT of a Submodel as an element', 'PUT', '/submodel-elements/P', submodel('urn:bad-sm:nested', { idShort: 'P' }), 400],
  ['a PUT of a Blob whose value is not base64', 'PUT', '/submodel-elements/B', blob('B', 'AAE'), 400],
  ['a PUT of a collection with duplicate children', 'PUT', '/submodel-elements/C', { modelType: 'SubmodelElementCollection', idShort: 'C', value: [prop('d'), prop('d')] }, 400],
  ['a submodel whose id differs from the path (PUT)', 'PUT', '', submodel('urn:bad-sm:other'), 400],
  ['a submodel whose id differs from the path (PATCH)', 'PATCH', '', submodel('urn:bad-sm:other'), 400],
  ['a shell as a submodel (PUT)', 'PUT', '', sampleShell(SM), 400],
  ['a shell as a submodel (PATCH)', 'PATCH', '', sampleShell(SM), 400],
  ['a submodel with a non-base64 Blob', 'PUT', '', submodel(SM, { submodelElements: [blob('B', 'AAE')] }), 400],
  ['a submodel with U+0000 in a text', 'PATCH', '', submodel(SM, { description: [{ language: 'en', text: 'a\u0000b' }] }), 400],
  // $value of the submodel
  ['$value: an unknown idShort in a collection', 'PATCH', '/$value', { C: { nope: '1' } }, 400],
  ['$value: an unknown top-level idShort', 'PATCH', '/$value', { Nope: 1 }, 400],
  ['$value: a list of the wrong length', 'PATCH', '/$value', { L: [1] }, 400],
  ['$value: a number for a MultiLanguageProperty', 'PATCH', '/$value', { MLP: 5 }, 400],
  ['$value: a string for a Range', 'PATCH', '/$value', { R: '5' }, 400],
  ['$value: a non-numeric string for xs:int', 'PATCH', '/$value', { P: 'abc' }, 400],
  ['$value: a Blob value that is not base64', 'PATCH', '/$value', { B: { contentType: 'application/octet-stream', value: 'AAE' } }, 400],
  ['$value: a value for an Operation', 'PATCH', '/$value', { Op: 1 }, 400],
  ['$value: a valid change beside a bad one', 'PATCH', '/$value', { P: 6, R: '5' }, 400],
  // $value of an element
  ['$value: an unknown idShort in a collection', 'PATCH', '/submodel-elements/C/$value', { nope: '1' }, 400],
  ['$value: a list too short', 'PATCH', '/submodel-elements/L/$value', [1], 400],
  ['$value: a list too long', 'PATCH', '/submodel-elements/L/$value', [1, 2, 3], 400],
  ['$value: a list item of the wrong type', 'PATCH', '/submodel-elements/L/$value', [1, 'x'], 400],
  ['$value: a number for a MultiLanguageProperty', 'PATCH', '/submodel-elements/MLP/$value', 5, 400],
  ['$value: a MultiLanguageProperty text that is a number', 'PATCH', '/submodel-elements/MLP/$value', [{ en: 1 }], 400],
  ['$value: a string for a Range', 'PATCH', '/submodel-elements/R/$value', '5', 400],
  ['$value: a Range end that is not xs:int', 'PATCH', '/submodel-elements/R/$value', { min: 'abc' }, 400],
  ['$value: a Range with an unknown key', 'PATCH', '/submodel-elements/R/$value', { low: 1 }, 400],
  ['$value: a non-numeric string for xs:int', 'PATCH', '/submodel-elements/P/$value', 'abc', 400],
  ['$value: a fraction for xs:int', 'PATCH', '/submodel-elements/P/$value', 1.5, 400],
  ['$value: an object for a Property', 'PATCH', '/submodel-elements/P/$value', { value: 1 }, 400],
  ['$value: U+0000 in a string', 'PATCH', '/submodel-elements/C.x/$value', 'a\u0000b', 400],
  ['$value: a Blob value that is not base64', 'PATCH', '/submodel-elements/B/$value', { contentType: 'application/octet-stream', value: 'AAE' }, 400],
  ['$value: a string for a Blob', 'PATCH', '/submodel-elements/B/$value', 'AAEC', 400],
  ['$value: a number for a File', 'PATCH', '/submodel-elements/F/$value', 5, 400],
  ['$value: an unknown entityType', 'PATCH', '/submodel-elements/E/$value', { entityType: 'Nope' }, 400],
  ['$value: an unknown statement', 'PATCH', '/submodel-elements/E/$value', { statements: { nope: 1 } }, 400],
  ['$value: PATCH on an Operation', 'PATCH', '/submodel-elements/Op/$value', {}, 400],
  ['$value: PATCH on a Capability', 'PATCH', '/submodel-elements/Cap/$value', 'x', 400],
  // $metadata
  ['$metadata: a value attribute of a Property', 'PATCH', '/submodel-elements/P/$metadata', { value: '7' }, 400],
  ['$metadata: the children of a collection', 'PATCH', '/submodel-elements/C/$metadata', { value: [] }, 400],
  ['$metadata: another modelType', 'PATCH', '/submodel-elements/P/$metadata', { modelType: 'Range' }, 400],
  ['$metadata: an unknown valueType', 'PATCH', '/submodel-elements/P/$metadata', { valueType: 'xs:nope' }, 400],
  ['$metadata: an unknown attribute', 'PATCH', '/submodel-elements/P/$metadata', { colour: 'red' }, 400],
  ['$metadata: an invalid idShort', 'PATCH', '/submodel-elements/P/$metadata', { idShort: '1bad' }, 400],
  ['$metadata: a valueType the value does not fit', 'PATCH', '/submodel-elements/P/$metadata', { valueType: 'xs:boolean' }, 400],
  ['$metadata: the elements of a submodel', 'PATCH', '/$metadata', { submodelElements: [] }, 400],
  ['$metadata: another modelType of the submodel', 'PATCH', '/$metadata', { modelType: 'AssetAdministrationShell' }, 400],
  ['$metadata: another id', 'PATCH', '/$metadata', { id: 'urn:bad-sm:other' }, 400],
  ['$metadata: U+0000 in a description', 'PATCH', '/$metadata', { description: [{ language: 'en', text: 'a\u0000b' }] }, 400],
  // no value-only form
  ['$value of an Operation', 'GET', '/submodel-elements/Op/$value', undefined, 400],
  ['$value of a Capability', 'GET', '/submodel-elements/Cap/$value', undefined, 400],
];

/** The same for the routes outside a submodel: [label, method, path, body, status]. */
const WRONG_KIND_TOP: [string, string, string, unknown, number][] = [
  ['a duplicate submodel id', 'POST', '/submodels', submodel(SM), 409],
  ['a shell posted as a submodel', 'POST', '/submodels', sampleShell('urn:bad-sm:new'), 400],
  ['a submodel with U+0000 in its id', 'POST', '/submodels', submodel('urn:bad-sm:a\u0000b'), 400],
  ['a submodel with a non-base64 Blob', 'POST', '/submodels', submodel('urn:bad-sm:new', { submodelElements: [blob('B', 'AAE')] }), 400],
  ['a submodel with a Range in a Property list', 'POST', '/submodels', submodel('urn:bad-sm:new', { submodelElements: [{ ...(ELEMENTS[2] as object), value: [range()] }] }), 400],
  ['a duplicate concept description id', 'POST', '/concept-descriptions', cd(CD), 409],
  ['a submodel posted as a concept description', 'POST', '/concept-descriptions', submodel('urn:bad-sm:new'), 400],
  ['a concept description with U+0000 in its id', 'POST', '/concept-descriptions', cd('urn:bad-sm:a\u0000b'), 400],
  ['a concept description whose id differs from the path', 'PUT', `/concept-descriptions/${b64(CD)}`, cd(CD2), 400],
  ['a submodel as a concept description', 'PUT', `/concept-descriptions/${b64(CD)}`, submodel(CD), 400],
  ['an unknown attribute', 'PUT', `/concept-descriptions/${b64(CD)}`, cd(CD, { colour: 'red' }), 400],
];

/** Filter values the list routes must reject with 400: [the list routes it applies to, query]. */
const BAD_FILTERS: [RegExp, string][] = [
  [/^\/submodels/, 'semanticId=%25%25%25'],
  [/^\/submodels/, 'semanticId='],
  [/^\/submodels/, `semanticId=${b64('a\u0000b')}`],
  [/^\/submodels/, `semanticId=${NUL_REFERENCE}`],
  [/^\/submodels/, `semanticId=${b64('{"type":"ModelReference"}')}`],
  [/^\/submodels/, 'kind=Foo'],
  [/^\/submodels/, 'kind=Instance&kind=Template'],
  [/^\/submodels/, 'idShort=a%00b'],
  [/^\/submodels/, 'idShort=a&idShort=b'],
  [/^\/concept-descriptions$/, 'isCaseOf=%25%25%25'],
  [/^\/concept-descriptions$/, `isCaseOf=${b64('not json')}`],
  [/^\/concept-descriptions$/, `isCaseOf=${NUL_REFERENCE}`],
  [/^\/concept-descriptions$/, `dataSpecificationRef=${b64('[]')}`],
  [/^\/concept-descriptions$/, `dataSpecificationRef=${b64('{"keys":[]}')}`],
  [/^\/concept-descriptions$/, 'idShort=a%00b'],
  [/^\/concept-descriptions$/, 'idShort=a&idShort=b'],
];

const BAD_LIMITS = ['0', '251', 'abc', '-1', '1.5', '', '1e2', '9999999999', '1&limit=2'];

// --- Tests

// The same bad input through both versions of the API: the same 4xx answers (the fixture is the same data).
describe.each(['v3.0', 'v3.1'] as const)('bad input on the submodel and concept description routes, through /api/%s', (v) => {
  beforeAll(() => {
    version = v;
    api = base.replace(/\/api\/v3\.0$/, `/api/${v}`);
  });

  it('takes its routes from the facade tables: both submodel bases and the concept descriptions', () => {
    const keys = ROUTES.map(key);
    const direct = ROUTES.filter((r) => r.path.startsWith('/submodels/:submodelIdentifier')).map(key).sort();
    const scoped = ROUTES.filter((r) => r.path.startsWith('/shells/:aasIdentifier/submodels/:submodelIdentifier')).map(key).sort();
    expect(direct.length).toBeGreaterThanOrEqual(30);
    expect(scoped).toEqual(direct);
    expect(keys).toEqual(expect.arrayContaining(['GET /concept-descriptions', 'PUT /concept-descriptions/:cdIdentifier', 'POST /submodels', 'GET /shells/:aasIdentifier/submodels']));
    for (const r of ROUTES) expect(() => validBody(r, SM)).not.toThrow();
  });

  it.each(routeCases(ROUTES.filter((r) => idParams(r).length)))('%s %s: bad, unknown and unreferenced ids', async (_m, _p, r) => {
    const check = new Checker();
    const targetPath = key(r).includes('/invoke') ? 'Op' : isElementRoute(r) && r.method === 'POST' ? 'C' : 'P';
    for (const param of idParams(r)) {
      const name = { aasIdentifier: 'aas', submodelIdentifier: 'sm', cdIdentifier: 'cd' }[param];
      for (const [bad, label] of BAD_IDS) {
        const url = urlOf(r, { [name]: bad, path: targetPath });
        await check.expect({ method: r.method, url, body: r.body ? '{}' : undefined, label }, 400, new RegExp(param));
      }
      // Unknown: a well-formed body for the absent id, so nothing but the id can be the reason.
      const body = jsonBody(validBody(r, param === 'aasIdentifier' ? SM : ABSENT));
      await check.expect({ method: r.method, url: urlOf(r, { [name]: b64(ABSENT), path: targetPath }), body, label: `unknown ${param}` }, 404);
    }
    if (r.path.startsWith('/shells/:aasIdentifier/submodels/:submodelIdentifier')) {
      const url = urlOf(r, { sm: b64(FREE), path: targetPath });
      await check.expect({ method: r.method, url, body: jsonBody(validBody(r, FREE)), label: 'a submodel the shell does not reference' }, 404);
    }
    check.done();
  });

  it.each(routeCases(ROUTES.filter(isElementRoute)))('%s %s: malformed idShortPaths are 400, paths to nothing 404', async (_m, _p, r) => {
    const check = new Checker();
    for (const [path, status] of ID_SHORT_PATHS) {
      await check.expect({ method: r.method, url: urlOf(r, { path }), body: jsonBody(validBody(r, SM)), label: `idShortPath ${path.slice(0, 20)}` }, status);
    }
    check.done();
  });

  it.each(routeCases(ROUTES))('%s %s: modifiers the route does not take are 400', async (_m, _p, r) => {
    const check = new Checker();
    const allowed = version === 'v3.1' && V31_LEVEL.has(`${r.method} ${r.path}`) ? { ...SPEC_MODIFIERS[key(r)], level: ['deep', 'core'] } : (SPEC_MODIFIERS[key(r)] ?? {});
    const read = r.method === 'GET';
    // Reads go to the fixture (a wrongly accepted modifier answers 200); writes to an absent submodel or concept
    // description with a valid body (a wrongly accepted modifier answers 404 or 409, and writes nothing).
    const url = (query: string) =>
      `${urlOf(r, read ? { path: 'C' } : { sm: b64(ABSENT), cd: b64(ABSENT), path: 'P' })}?${query}`;
    const body = jsonBody(validBody(r, ABSENT));
    const cases: [string, boolean][] = [
      ['level=deep', !!allowed.level?.includes('deep')],
      ['level=core', !!allowed.level?.includes('core')],
      ['extent=withBlobValue', !!allowed.extent],
      ['extent=withoutBlobValue', !!allowed.extent],
      ['level=shallow', false],
      ['level=DEEP', false],
      ['level=', false],
      ['level=core&level=core', false],
      ['extent=full', false],
      ['extent=', false],
      ['extent=withBlobValue&extent=withoutBlobValue', false],
    ];
    for (const [query, ok] of cases) {
      if (!ok) await check.expect({ method: r.method, url: url(query), body }, 400, /level|extent/);
      else await check.expect({ method: r.method, url: url(query), body, label: 'allowed (control)' }, read ? 200 : 404);
    }
    check.done();
  });

  it.each(routeCases(ROUTES.filter((r) => r.body)))('%s %s: bodies that are not what the route takes', async (_m, _p, r) => {
    const check = new Checker();
    const k = key(r);
    const valueRoute = k === `PATCH ${E}/:idShortPath/$value`;
    for (const c of GENERIC_BODIES) {
      if (c.label === '{}' && EMPTY_PATCH_OK.has(k)) continue;
      const path = valueRoute ? (c.valuePath ?? 'P') : r.method === 'POST' ? 'C' : 'P';
      const valid = jsonBody(validBody(r, SM))!;
      const body = c.body ?? (c.type === null ? undefined : c.type?.includes('utf-16') ? Buffer.from(valid, 'utf16le') : valid);
      await check.expect({ method: r.method, url: urlOf(r, { path }), body, type: c.type, headers: c.headers, label: c.label }, c.status);
    }
    check.done();
  });

  describe.each([
    ['/submodels/{sm}', `/submodels/${b64(SM)}`],
    ['/shells/{aas}/submodels/{sm}', `/shells/${b64(AAS)}/submodels/${b64(SM)}`],
  ])('under %s', (_name, base) => {
    it('rejects elements of the wrong kind for their place and value-only bodies of the wrong shape', async () => {
      const check = new Checker();
      for (const [label, method, suffix, body, status] of WRONG_KIND) {
        // V3.1 takes it (AASd-120 removed): api-v31-elements.test.ts writes it through both versions.
        if (version === 'v3.1' && V30_ONLY_WRONG.has(label)) continue;
        await check.expect({ method, url: `${base}${suffix}`, body: jsonBody(body), label }, status);
      }
      check.done();
    });

    it('answers 405 to an invoke of an element that is not an Operation', async () => {
      const check = new Checker();
      const invokes = ROUTES.filter((r) => r.path.startsWith(base.startsWith('/shells') ? '/shells/' : '/submodels/') && key(r).includes('/invoke'));
      expect(invokes.length).toBeGreaterThanOrEqual(4);
      for (const r of invokes) {
        for (const path of ['P', 'C', 'L%5B0%5D', 'Cap', 'B']) await check.expect({ method: r.method, url: urlOf(r, { path }), label: path }, 405);
      }
      check.done();
    });
  });

  it('rejects wrong bodies on the routes outside a submodel', async () => {
    const check = new Checker();
    for (const [label, method, path, body, status] of WRONG_KIND_TOP) await check.expect({ method, url: path, body: jsonBody(body), label }, status);
    check.done();
  });

  it('rejects filters that are not filters', async () => {
    const check = new Checker();
    for (const r of ROUTES.filter((r) => r.method === 'GET' && !r.path.includes(':'))) {
      for (const [applies, query] of BAD_FILTERS) {
        if (applies.test(r.path)) await check.expect({ method: 'GET', url: `${r.path}?${query}` }, 400);
      }
    }
    check.done();
  });

  it('says which query parameter of a filter is wrong, and that it is a query parameter', async () => {
    const check = new Checker();
    for (const r of ROUTES.filter((r) => r.method === 'GET' && !r.path.includes(':'))) {
      for (const [applies, query] of BAD_FILTERS) {
        const name = query.split('=')[0];
        if (applies.test(r.path)) await check.expect({ method: 'GET', url: `${r.path}?${query}` }, 400, new RegExp(`^(?!Path parameter)[\\s\\S]*\\b${name}\\b`));
      }
    }
    check.done();
  });

  it.each(routeCases(ROUTES.filter(isPaged)))('%s %s: bad limits and forged cursors are 400', async (_m, _p, r) => {
    const check = new Checker();
    const url = urlOf(r);
    for (const limit of BAD_LIMITS) await check.expect({ method: 'GET', url: `${url}?limit=${limit}`, label: `limit=${limit}` }, 400, /limit/);

    // Forgeries of a real cursor of this list, and real cursors of the other lists.
    const first = (await fetch(`${api}${url}?limit=1`).then((res) => res.json())) as { paging_metadata?: { cursor?: string } };
    const cursor: string | undefined = first.paging_metadata?.cursor;
    expect(cursor, `${url}?limit=1 gives a cursor`).toBeTypeOf('string');
    // Cursors are sealed (docs/api.md): nothing in them can be read or made up. The same page of the same list always
    // has the same cursor, so a different cursor of another route belongs to another list.
    const forge = (value: unknown) => Buffer.from(JSON.stringify(value), 'utf8').toString('base64url');
    const sealed = Buffer.from(cursor!, 'base64url');
    const flipped = Buffer.from(sealed);
    flipped[flipped.length >> 1] ^= 1;
    const others = await Promise.all(ROUTES.filter(isPaged).filter((o) => o !== r).map(async (o) => {
      const page = (await fetch(`${api}${urlOf(o)}?limit=1`).then((res) => res.json())) as { paging_metadata?: { cursor?: string } };
      return page.paging_metadata?.cursor;
    }));
    const foreign = [...new Set(others)].filter((c): c is string => !!c && c !== cursor);
    expect(foreign.length).toBeGreaterThan(0);
    const list = r.path.split('/').filter((part) => part && !part.startsWith(':'))[0];
    const forged: [string, string][] = [
      ['', 'empty'], ['!!!', 'not base64url'], [`${cursor}!`, 'appended garbage'], [cursor!.slice(0, -2), 'truncated'],
      [flipped.toString('base64url'), 'one bit changed'], [sealed.subarray(0, 12).toString('base64url'), 'the nonce alone'],
      [b64('not json'), 'not JSON'], [forge({}), 'an object'], [forge([]), 'an empty array'], [forge(null), 'null'],
      [forge([list, 1]), 'a made-up plain cursor'], [forge([list, '1']), 'a made-up plain cursor with a text key'],
      [`${cursor}&cursor=${cursor}`, 'repeated'],
      ...foreign.map((c): [string, string] => [c, 'a cursor of another list']),
    ];
    for (const [value, label] of forged) await check.expect({ method: 'GET', url: `${url}?cursor=${value}`, label: `cursor: ${label}` }, 400);
    check.done();
  });
});
