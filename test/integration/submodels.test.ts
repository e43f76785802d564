import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { TestServer, b64, json, sampleShell, startTestServer } from '../support/server';

/**
 * The Submodel Repository over REST: submodels, their modifiers and lists, the elements inside them, the same
 * routes under a shell, change events, and concurrent element writes.
 */

let server: TestServer;
let api: string;

beforeAll(async () => {
  server = await startTestServer(inject('databaseUrl'));
  api = server.api((await server.createTenant()).name);
});
afterAll(() => server?.close());

type Json = Record<string, unknown>;

/** Requests against one tenant API; a body is sent as JSON. */
function client(base: () => string) {
  const send = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
    fetch(`${base()}${path}`, {
      method,
      headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  return {
    get: (path: string) => send('GET', path),
    post: (path: string, body?: unknown) => send('POST', path, body),
    put: (path: string, body: unknown) => send('PUT', path, body),
    patch: (path: string, body: unknown) => send('PATCH', path, body),
    del: (path: string) => send('DELETE', path),
  };
}
const { get, post, put, patch, del } = client(() => api);

/** An unsuccessful response: the status, and an AAS Result whose messages carry it. */
async function expectResult(res: Response, status: number, text?: RegExp) {
  expect(res.status).toBe(status);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  const body = await json(res);
  expect(Object.keys(body)).toEqual(['messages']);
  expect(body.messages.length).toBeGreaterThan(0);
  for (const message of body.messages) {
    expect(message).toMatchObject({ code: String(status), messageType: status >= 500 ? 'Exception' : 'Error' });
    expect(typeof message.text).toBe('string');
    expect(Number.isNaN(Date.parse(message.timestamp))).toBe(false);
    expect(message.correlationId).toBe(res.headers.get('x-request-id'));
  }
  if (text) expect(body.messages.map((m: { text: string }) => m.text).join('\n')).toMatch(text);
  return body;
}

let counter = 0;
const uid = (what: string) => `urn:test:${what}:${++counter}`;
const sm = (id: string) => `/submodels/${b64(id)}`;
const el = (id: string, path: string) => `${sm(id)}/submodel-elements/${encodeURIComponent(path)}`;

const property = (idShort: string, value: string, valueType = 'xs:string') => ({ modelType: 'Property', idShort, valueType, value });
const ext = (value: string) => ({ type: 'ExternalReference', keys: [{ type: 'GlobalReference', value }] });

/** A submodel with one of most element kinds, nested: a collection holding a list, an entity, a blob, an operation. */
function richSubmodel(id: string): Json {
  return {
    modelType: 'Submodel',
    id,
    idShort: 'Rich',
    kind: 'Instance',
    semanticId: ext('urn:sem:rich'),
    description: [{ language: 'en', text: 'A rich submodel' }],
    submodelElements: [
      property('P', '5', 'xs:int'),
      {
        modelType: 'SubmodelElementCollection',
        idShort: 'C',
        value: [
          property('Q', 'x'),
          {
            modelType: 'SubmodelElementList',
            idShort: 'L',
            typeValueListElement: 'Property',
            valueTypeListElement: 'xs:string',
            value: [{ modelType: 'Property', valueType: 'xs:string', value: 'a' }],
          },
        ],
      },
      {
        modelType: 'Entity',
        idShort: 'E',
        entityType: 'SelfManagedEntity',
        globalAssetId: 'urn:asset:e',
        statements: [property('S0', 'true', 'xs:boolean')],
      },
      { modelType: 'Blob', idShort: 'B', contentType: 'application/octet-stream', value: 'AQID' },
      { modelType: 'Operation', idShort: 'Op' },
    ],
  };
}

/** The rich submodel as a default GET gives it: the Blob without its value. */
function withoutBlobValue(doc: Json): Json {
  const copy = structuredClone(doc);
  for (const element of copy.submodelElements as Json[]) if (element.modelType === 'Blob') delete element.value;
  return copy;
}

const RICH_VALUE = {
  P: 5,
  C: { Q: 'x', L: ['a'] },
  E: { statements: { S0: true }, entityType: 'SelfManagedEntity', globalAssetId: 'urn:asset:e' },
  B: { contentType: 'application/octet-stream' },
};

const RICH_PATHS = ['P', 'C', 'C.Q', 'C.L', 'C.L[0]', 'E', 'E.S0', 'B', 'Op'];

/** Every page of a path list (`$path` of a list route) at `limit`, following the cursors to the last page. */
async function pathPages(getter: (path: string) => Promise<Response>, url: string, limit: number): Promise<string[][]> {
  const pages: string[][] = [];
  let cursor: string | undefined;
  do {
    const res = await getter(`${url}${url.includes('?') ? '&' : '?'}limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`);
    expect(res.status).toBe(200);
    const body = await json(res);
    expect(body.result.every((p: unknown) => typeof p === 'string'), JSON.stringify(body.result)).toBe(true);
    pages.push(body.result);
    cursor = body.paging_metadata.cursor;
    if (!cursor) expect(body.paging_metadata).toEqual({});
  } while (cursor && pages.length < 100);
  return pages;
}

/** Pages of `limit` items each but the last, which is not empty (unless the whole list is). */
function chunks(all: string[], limit: number): string[][] {
  const out: string[][] = [];
  for (let i = 0; i < all.length; i += limit) out.push(all.slice(i, i + limit));
  return out.length ? out : [[]];
}

async function created(id: string, doc: Json = richSubmodel(id)): Promise<Json> {
  const res = await post('/submodels', doc);
  expect(res.status, JSON.stringify(await json(res.clone()))).toBe(201);
  return doc;
}

describe('submodel CRUD', () => {
  it('creates with 201, Location, ETag and the stored document; 409 on a duplicate id', async () => {
    const id = uid('crud');
    const doc = richSubmodel(id);
    const res = await post('/submodels', doc);
    expect(res.status).toBe(201);
    expect(res.headers.get('location')).toBe(`${api}/submodels/${b64(id)}`);
    expect(res.headers.get('etag')).toMatch(/^"[^"]+"$/);
    // The creation answers with the document as accepted, blob value included.
    expect(await json(res)).toEqual(doc);

    await expectResult(await post('/submodels', { ...doc, idShort: 'Second' }), 409);
    expect((await json(get(sm(id)))).idShort).toBe('Rich');
  });

  it('reads, replaces, patches and deletes', async () => {
    const id = uid('crud');
    const doc = await created(id);
    const got = await get(sm(id));
    expect(got.status).toBe(200);
    expect(got.headers.get('etag')).toMatch(/^"[^"]+"$/);
    expect(await json(got)).toEqual(withoutBlobValue(doc));

    const replaced = { modelType: 'Submodel', id, idShort: 'Replaced', submodelElements: [property('Only', '1')] };
    const putRes = await put(sm(id), replaced);
    expect(putRes.status).toBe(204);
    expect(await putRes.text()).toBe('');
    expect(await json(get(sm(id)))).toEqual(replaced);

    // PATCH: the attributes given replace the submodel's, the others (its elements) stay.
    const patchRes = await patch(sm(id), { modelType: 'Submodel', id, idShort: 'Patched', semanticId: ext('urn:sem:patched') });
    expect(patchRes.status).toBe(204);
    expect(await json(get(sm(id)))).toEqual({ ...replaced, idShort: 'Patched', semanticId: ext('urn:sem:patched') });

    const delRes = await del(sm(id));
    expect(delRes.status).toBe(204);
    await expectResult(await get(sm(id)), 404);
    await expectResult(await del(sm(id)), 404);
  });

  it('rejects a PUT or PATCH whose id differs from the path, an absent submodel, and invalid documents', async () => {
    const id = uid('crud');
    const doc = await created(id);
    await expectResult(await put(sm(id), { ...doc, id: uid('other') }), 400);
    await expectResult(await patch(sm(id), { modelType: 'Submodel', id: uid('other'), idShort: 'X' }), 400);
    const absent = uid('absent');
    await expectResult(await put(sm(absent), { ...doc, id: absent }), 404);
    await expectResult(await patch(sm(absent), { modelType: 'Submodel', id: absent }), 404);
    // Two elements with one idShort (AASd-022) and a Property without valueType: the model says no.
    await expectResult(await put(sm(id), { ...doc, submodelElements: [property('D', '1'), property('D', '2')] }), 400);
    await expectResult(await post('/submodels', { modelType: 'Submodel', id: uid('bad'), submodelElements: [{ modelType: 'Property', idShort: 'X' }] }), 400);
    await expectResult(await post('/submodels', { modelType: 'Submodel' }), 400);
    expect(await json(get(sm(id)))).toEqual(withoutBlobValue(doc));
  });
});

describe('listing submodels', () => {
  let listApi: string;
  const L = client(() => listApi);
  const semA = ext('urn:sem:A');
  // s0..s4 in insertion order; s2 has no kind (counts as Instance); s4's semantic id has A's key value in another reference.
  const docs: Json[] = [
    { modelType: 'Submodel', id: 'urn:list:0', idShort: 'Alpha', kind: 'Instance', semanticId: semA },
    { modelType: 'Submodel', id: 'urn:list:1', idShort: 'Beta', kind: 'Template', semanticId: ext('urn:sem:B') },
    { modelType: 'Submodel', id: 'urn:list:2', idShort: 'Beta', semanticId: semA },
    { modelType: 'Submodel', id: 'urn:list:3', idShort: 'Alpha', kind: 'Template' },
    { modelType: 'Submodel', id: 'urn:list:4', idShort: 'Gamma', kind: 'Instance', semanticId: { type: 'ModelReference', keys: [{ type: 'ConceptDescription', value: 'urn:sem:A' }] } },
  ];
  beforeAll(async () => {
    listApi = server.api((await server.createTenant()).name);
    for (const doc of docs) expect((await L.post('/submodels', doc)).status).toBe(201);
  });
  const ids = async (query: string) => {
    const res = await L.get(`/submodels${query}`);
    expect(res.status, query).toBe(200);
    const body = await json(res);
    expect(body.paging_metadata, query).toEqual({});
    return (body.result as Json[]).map((s) => s.id);
  };
  const enc = (value: unknown) => Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url');

  it('lists all submodels with their documents', async () => {
    const body = await json(L.get('/submodels'));
    expect(body).toEqual({ paging_metadata: {}, result: docs });
  });

  it('filters by semanticId given as a Reference in JSON, or as a key value', async () => {
    expect(await ids(`?semanticId=${enc(semA)}`)).toEqual(['urn:list:0', 'urn:list:2']);
    expect(await ids(`?semanticId=${enc('urn:sem:A')}`)).toEqual(['urn:list:0', 'urn:list:2', 'urn:list:4']);
    expect(await ids(`?semanticId=${enc(ext('urn:sem:B'))}`)).toEqual(['urn:list:1']);
    expect(await ids(`?semanticId=${enc('urn:sem:B')}`)).toEqual(['urn:list:1']);
    expect(await ids(`?semanticId=${enc({ type: 'ModelReference', keys: [{ type: 'ConceptDescription', value: 'urn:sem:A' }] })}`)).toEqual(['urn:list:4']);
    expect(await ids(`?semanticId=${enc('urn:sem:none')}`)).toEqual([]);
  });

  it('filters by idShort and kind; absent kind means all, a submodel without kind is an Instance', async () => {
    expect(await ids('?idShort=Beta')).toEqual(['urn:list:1', 'urn:list:2']);
    expect(await ids('?idShort=Nothing')).toEqual([]);
    expect(await ids('?kind=Instance')).toEqual(['urn:list:0', 'urn:list:2', 'urn:list:4']);
    expect(await ids('?kind=Template')).toEqual(['urn:list:1', 'urn:list:3']);
    expect(await ids('')).toEqual(docs.map((d) => d.id));
    expect(await ids('?kind=Template&idShort=Alpha')).toEqual(['urn:list:3']);
    expect(await ids(`?kind=Instance&semanticId=${enc('urn:sem:A')}&idShort=Beta`)).toEqual(['urn:list:2']);
  });

  it('pages to the end with cursors, the last page without one', async () => {
    for (const limit of [1, 2, 3, 4]) {
      const seen: unknown[] = [];
      let cursor: string | undefined;
      let pages = 0;
      do {
        const res = await json(L.get(`/submodels?limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`));
        expect(res.result.length).toBeLessThanOrEqual(limit);
        seen.push(...res.result.map((s: Json) => s.id));
        cursor = res.paging_metadata.cursor;
        pages++;
        if (!cursor) expect(res.paging_metadata).toEqual({});
      } while (cursor && pages < 10);
      expect(pages, `limit ${limit}`).toBe(Math.ceil(docs.length / limit));
      expect(seen).toEqual(docs.map((d) => d.id));
    }
    // Exactly one full page, and the largest page: no cursor.
    expect((await json(L.get('/submodels?limit=5'))).paging_metadata).toEqual({});
    expect((await json(L.get('/submodels?limit=250'))).result).toHaveLength(5);
  });

  it('pages through a filtered list', async () => {
    const first = await json(L.get('/submodels?kind=Instance&limit=2'));
    expect(first.result.map((s: Json) => s.id)).toEqual(['urn:list:0', 'urn:list:2']);
    expect(typeof first.paging_metadata.cursor).toBe('string');
    const second = await json(L.get(`/submodels?kind=Instance&limit=2&cursor=${first.paging_metadata.cursor}`));
    expect(second).toEqual({ paging_metadata: {}, result: [docs[4]] });
  });

  it('rejects bad paging and filter parameters with 400', async () => {
    for (const query of ['?limit=0', '?limit=251', '?limit=x', '?kind=instance', '?kind=Type', '?cursor=forged', '?semanticId=%21%21', '?idShort=a&idShort=b', `?semanticId=${enc({ type: 'NoReference', keys: [] })}`, `?cursor=${Buffer.from('["submodel-elements","0:P"]').toString('base64url')}`]) {
      await expectResult(await L.get(`/submodels${query}`), 400);
    }
  });

  it('lists metadata, values, references and paths of the submodels', async () => {
    const richApi = server.api((await server.createTenant()).name);
    const R = client(() => richApi);
    const a = richSubmodel('urn:rich:a');
    const b = { modelType: 'Submodel', id: 'urn:rich:b', idShort: 'Plain', submodelElements: [property('P', '5', 'xs:int'), { modelType: 'SubmodelElementCollection', idShort: 'C', value: [property('Q', 'x')] }] };
    expect((await R.post('/submodels', a)).status).toBe(201);
    expect((await R.post('/submodels', b)).status).toBe(201);

    const { submodelElements: _a, ...aMeta } = a;
    const { submodelElements: _b, ...bMeta } = b;
    expect(await json(R.get('/submodels/$metadata'))).toEqual({ paging_metadata: {}, result: [aMeta, bMeta] });
    expect(await json(R.get('/submodels/$value'))).toEqual({ paging_metadata: {}, result: [RICH_VALUE, { P: 5, C: { Q: 'x' } }] });
    expect(await json(R.get('/submodels/$value?extent=withBlobValue'))).toEqual({
      paging_metadata: {},
      result: [{ ...RICH_VALUE, B: { contentType: 'application/octet-stream', value: 'AQID' } }, { P: 5, C: { Q: 'x' } }],
    });
    expect(await json(R.get('/submodels/$reference'))).toEqual({
      paging_metadata: {},
      result: ['urn:rich:a', 'urn:rich:b'].map((id) => ({ type: 'ModelReference', keys: [{ type: 'Submodel', value: id }] })),
    });
    // GetPathItemsResult: one flat list of idShortPaths, the submodels' one after the other.
    expect(await json(R.get('/submodels/$path'))).toEqual({ paging_metadata: {}, result: [...RICH_PATHS, 'P', 'C', 'C.Q'] });
    expect(await json(R.get('/submodels/$path?level=core'))).toEqual({ paging_metadata: {}, result: ['P', 'C', 'E', 'B', 'Op', 'P', 'C'] });
    expect(await json(R.get('/submodels/$path?idShort=Plain'))).toEqual({ paging_metadata: {}, result: ['P', 'C', 'C.Q'] });

    // The filters and paging apply to the modifier lists too.
    const page = await json(R.get(`/submodels/$metadata?limit=1&idShort=Plain`));
    expect(page).toEqual({ paging_metadata: {}, result: [bMeta] });
    const first = await json(R.get('/submodels/$reference?limit=1'));
    expect(first.result).toEqual([{ type: 'ModelReference', keys: [{ type: 'Submodel', value: 'urn:rich:a' }] }]);
    const second = await json(R.get(`/submodels/$reference?limit=1&cursor=${first.paging_metadata.cursor}`));
    expect(second).toEqual({ paging_metadata: {}, result: [{ type: 'ModelReference', keys: [{ type: 'Submodel', value: 'urn:rich:b' }] }] });
    // $metadata takes no level, $reference only core.
    await expectResult(await R.get('/submodels/$metadata?level=deep'), 400);
    await expectResult(await R.get('/submodels/$reference?level=deep'), 400);
  });
});

describe('path lists ($path of /submodels and of submodel-elements), paged over the paths', () => {
  it('pages a submodel\'s element paths: at most `limit` paths a page, the last page without a cursor', async () => {
    const id = uid('paths');
    await created(id);
    const url = `${sm(id)}/submodel-elements/$path`;
    for (const limit of [1, 2, 4, 8, 9, 10, 250]) {
      expect(await pathPages(get, url, limit), `limit=${limit}`).toEqual(chunks(RICH_PATHS, limit));
    }
    expect(await pathPages(get, `${url}?level=core`, 2)).toEqual([['P', 'C'], ['E', 'B'], ['Op']]);
    // Without limit: the default of 100.
    expect(await json(get(url))).toEqual({ paging_metadata: {}, result: RICH_PATHS });
    // A submodel without elements has an empty list.
    const bare = uid('paths-bare');
    await created(bare, { modelType: 'Submodel', id: bare });
    expect(await json(get(`${sm(bare)}/submodel-elements/$path?limit=1`))).toEqual({ paging_metadata: {}, result: [] });
    await expectResult(await get(`${sm(uid('absent'))}/submodel-elements/$path`), 404);
  });

  it('resumes a page of element paths after the last path given, also when elements before it went away', async () => {
    const id = uid('paths-change');
    await created(id);
    const url = `${sm(id)}/submodel-elements/$path`;
    const first = await json(get(`${url}?limit=4`));
    expect(first.result).toEqual(['P', 'C', 'C.Q', 'C.L']);
    expect((await del(el(id, 'P'))).status).toBe(204);
    const rest = await json(get(`${url}?limit=10&cursor=${first.paging_metadata.cursor}`));
    expect(rest).toEqual({ paging_metadata: {}, result: ['C.L[0]', 'E', 'E.S0', 'B', 'Op'] });
  });

  it('pages /submodels/$path over the paths of all submodels: a page ends and the next resumes inside a submodel', async () => {
    const pathsApi = server.api((await server.createTenant()).name);
    const R = client(() => pathsApi);
    const empty = (n: number) => ({ modelType: 'Submodel', id: `urn:paths:empty:${n}`, idShort: 'Empty' });
    const plain = { modelType: 'Submodel', id: 'urn:paths:plain', idShort: 'Plain', submodelElements: [property('P', '5', 'xs:int'), { modelType: 'SubmodelElementCollection', idShort: 'C', value: [property('Q', 'x')] }] };
    // Insertion order: rich, 3 without elements, plain, then 40 without elements (more than one read of submodels).
    for (const doc of [richSubmodel('urn:paths:rich'), empty(1), empty(2), empty(3), plain]) expect((await R.post('/submodels', doc)).status).toBe(201);
    for (let n = 4; n < 44; n++) expect((await R.post('/submodels', empty(n))).status).toBe(201);
    const all = [...RICH_PATHS, 'P', 'C', 'C.Q'];
    for (const limit of [1, 2, 4, 9, 10, 11, 12, 13, 250]) {
      expect(await pathPages(R.get, '/submodels/$path', limit), `limit=${limit}`).toEqual(chunks(all, limit));
    }
    expect(await pathPages(R.get, '/submodels/$path?level=core', 3)).toEqual([['P', 'C', 'E'], ['B', 'Op', 'P'], ['C']]);
    // Filters select the submodels whose paths are listed; a list with no paths is an empty page.
    expect(await pathPages(R.get, '/submodels/$path?idShort=Plain', 2)).toEqual([['P', 'C'], ['C.Q']]);
    expect(await pathPages(R.get, '/submodels/$path?idShort=Empty', 1)).toEqual([[]]);

    // The cursor names the submodel and the place in its paths: the next page resumes right there ...
    const first = await json(R.get('/submodels/$path?limit=4'));
    expect(first.result).toEqual(['P', 'C', 'C.Q', 'C.L']);
    const second = await json(R.get(`/submodels/$path?limit=4&cursor=${first.paging_metadata.cursor}`));
    expect(second.result).toEqual(['C.L[0]', 'E', 'E.S0', 'B']);
    // ... a submodel created meanwhile comes last, and when the submodel it stopped in is gone, the next one follows.
    const later = { modelType: 'Submodel', id: 'urn:paths:later', submodelElements: [property('Z', 'z')] };
    expect((await R.post('/submodels', later)).status).toBe(201);
    expect((await R.del(`/submodels/${b64('urn:paths:rich')}`)).status).toBe(204);
    expect(await json(R.get(`/submodels/$path?limit=4&cursor=${second.paging_metadata.cursor}`))).toEqual({ paging_metadata: {}, result: ['P', 'C', 'C.Q', 'Z'] });
  });

  it('rejects bad limits and cursors of other lists on both path lists with 400', async () => {
    const id = uid('paths-bad');
    await created(id);
    await created(uid('paths-bad'));
    const lists = ['/submodels/$path', `${sm(id)}/submodel-elements/$path`];
    const cursorOf = async (url: string) => {
      const cursor = (await json(get(`${url}?limit=1`))).paging_metadata.cursor;
      expect(typeof cursor, url).toBe('string');
      return cursor as string;
    };
    // The lists these once shared their cursors with, and each other's.
    const foreign = await Promise.all(['/submodels', '/submodels/$value', `${sm(id)}/submodel-elements`, `${sm(id)}/submodel-elements/$value`, ...lists].map(cursorOf));
    // Keys no page of the list ends with, under the list's own name: `seq:index` of a submodel, `index:path` of an element.
    const forgedKeys: unknown[][] = [
      ['1', '1:', ':1', '1:-1', 'x:1', '1:1:1', '1.5:0', 7, '1234567890123456:0'],
      ['P', 'x:P', ':P', '-1:P', '1.5:P', 7],
    ];
    for (const [i, url] of lists.entries()) {
      for (const limit of ['0', '251', 'abc', '-1']) await expectResult(await get(`${url}?limit=${limit}`), 400, /limit/);
      const own = await cursorOf(url);
      for (const cursor of foreign.filter((c) => c !== own)) await expectResult(await get(`${url}?cursor=${cursor}`), 400, /cursor/);
      // The list's name and a key in base64url JSON: what a cursor of this list was before cursors were sealed.
      const list = ['submodel-paths', 'submodel-element-paths'][i];
      for (const key of forgedKeys[i]) {
        const forged = Buffer.from(JSON.stringify([list, key])).toString('base64url');
        await expectResult(await get(`${url}?cursor=${forged}`), 400, /cursor/);
      }
    }
  });
});

describe('submodel modifiers', () => {
  it('$metadata has no elements, $value the values only, $reference a ModelReference, $path every idShortPath', async () => {
    const id = uid('mod');
    const doc = await created(id);
    const { submodelElements: _, ...meta } = doc;
    const metadata = await get(`${sm(id)}/$metadata`);
    expect(metadata.status).toBe(200);
    expect(metadata.headers.get('etag')).toBe((await get(sm(id))).headers.get('etag'));
    expect(await json(metadata)).toEqual(meta);
    expect(await json(get(`${sm(id)}/$value`))).toEqual(RICH_VALUE);
    expect(await json(get(`${sm(id)}/$value?extent=withBlobValue`))).toEqual({ ...RICH_VALUE, B: { contentType: 'application/octet-stream', value: 'AQID' } });
    expect(await json(get(`${sm(id)}/$reference`))).toEqual({ type: 'ModelReference', keys: [{ type: 'Submodel', value: id }] });
    expect(await json(get(`${sm(id)}/$path`))).toEqual(RICH_PATHS);
    expect(await json(get(`${sm(id)}/$path?level=core`))).toEqual(['P', 'C', 'E', 'B', 'Op']);
  });

  it('gives the value-only form of a small submodel exactly', async () => {
    const id = uid('value');
    await created(id, { modelType: 'Submodel', id, submodelElements: [property('P', '5', 'xs:int'), { modelType: 'SubmodelElementCollection', idShort: 'C', value: [property('Q', 'x')] }] });
    const res = await get(`${sm(id)}/$value`);
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('{"P":5,"C":{"Q":"x"}}');
  });

  it('level=core keeps the direct children without theirs; extent adds blob values', async () => {
    const id = uid('mod');
    const doc = await created(id);
    const core = await json(get(`${sm(id)}?level=core`));
    const expected = withoutBlobValue(doc);
    const elements = expected.submodelElements as Json[];
    delete elements.find((e) => e.idShort === 'C')!.value;
    delete elements.find((e) => e.idShort === 'E')!.statements;
    expect(core).toEqual(expected);
    expect((core.submodelElements as Json[]).find((e) => e.idShort === 'C')).toEqual({ modelType: 'SubmodelElementCollection', idShort: 'C' });

    const blobOf = (body: Json) => (body.submodelElements as Json[]).find((e) => e.idShort === 'B');
    expect(blobOf(await json(get(sm(id))))).toEqual({ modelType: 'Blob', idShort: 'B', contentType: 'application/octet-stream' });
    expect(blobOf(await json(get(`${sm(id)}?extent=withoutBlobValue`)))).not.toHaveProperty('value');
    expect(blobOf(await json(get(`${sm(id)}?extent=withBlobValue`)))).toEqual({ modelType: 'Blob', idShort: 'B', contentType: 'application/octet-stream', value: 'AQID' });
    expect(blobOf(await json(get(`${sm(id)}?extent=WithBLOBValue`)))).toHaveProperty('value', 'AQID');
    expect(await json(get(`${sm(id)}?extent=withBlobValue`))).toEqual(doc);
    expect((await json(get('/submodels?extent=withBlobValue&limit=250'))).result).toContainEqual(doc);

    await expectResult(await get(`${sm(id)}?level=shallow`), 400);
    await expectResult(await get(`${sm(id)}?extent=all`), 400);
    await expectResult(await get(`${sm(id)}/$metadata?extent=withBlobValue`), 400);
    await expectResult(await get(`${sm(id)}/$reference?level=core`), 400);
  });

  it('PATCH $metadata changes the metadata and keeps the elements', async () => {
    const id = uid('mod');
    const doc = await created(id);
    const res = await patch(`${sm(id)}/$metadata`, { idShort: 'Renamed', description: [{ language: 'de', text: 'Umbenannt' }] });
    expect(res.status).toBe(204);
    expect(res.headers.get('etag')).toMatch(/^"[^"]+"$/);
    expect(await json(get(`${sm(id)}?extent=withBlobValue`))).toEqual({ ...doc, idShort: 'Renamed', description: [{ language: 'de', text: 'Umbenannt' }] });
    const { submodelElements: _, ...meta } = doc;
    expect(await json(get(`${sm(id)}/$metadata`))).toEqual({ ...meta, idShort: 'Renamed', description: [{ language: 'de', text: 'Umbenannt' }] });

    // Elements are not metadata; another id or modelType is refused; nothing changes.
    await expectResult(await patch(`${sm(id)}/$metadata`, { submodelElements: [] }), 400);
    await expectResult(await patch(`${sm(id)}/$metadata`, { id: uid('other') }), 400);
    await expectResult(await patch(`${sm(id)}/$metadata`, { modelType: 'AssetAdministrationShell' }), 400);
    expect((await json(get(sm(id)))).idShort).toBe('Renamed');
  });

  it('PATCH $value sets values, and GET shows them', async () => {
    const id = uid('mod');
    const doc = await created(id);
    const res = await patch(`${sm(id)}/$value`, { P: 7, C: { Q: 'y', L: ['b'] }, E: { statements: { S0: false } } });
    expect(res.status).toBe(204);
    expect(await json(get(`${sm(id)}/$value`))).toEqual({
      ...RICH_VALUE,
      P: 7,
      C: { Q: 'y', L: ['b'] },
      E: { ...RICH_VALUE.E, statements: { S0: false } },
    });
    expect(await json(get(`${el(id, 'P')}`))).toEqual(property('P', '7', 'xs:int'));
    // Everything but the values stays.
    const after = await json(get(`${sm(id)}?extent=withBlobValue`));
    expect(after.idShort).toBe(doc.idShort);
    expect(after.semanticId).toEqual(doc.semanticId);

    // Value-only cannot add elements, nor put a value of the wrong kind: 400, nothing changes.
    await expectResult(await patch(`${sm(id)}/$value`, { P: 1, Missing: 3 }), 400);
    await expectResult(await patch(`${sm(id)}/$value`, { C: { L: ['b', 'c'] } }), 400);
    await expectResult(await patch(`${sm(id)}/$value`, { P: 'not an int' }), 400);
    await expectResult(await patch(`${sm(id)}/$value`, [1]), 400);
    expect((await json(get(`${sm(id)}/$value`))).P).toBe(7);
  });
});

describe('submodel elements', () => {
  it('lists the top-level elements, paged, and their $metadata, $value, $reference and $path', async () => {
    const id = uid('els');
    const doc = await created(id);
    const all = withoutBlobValue(doc).submodelElements as Json[];
    const seen: Json[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const res = await get(`${sm(id)}/submodel-elements?limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      expect(res.status).toBe(200);
      const body = await json(res);
      seen.push(...body.result);
      cursor = body.paging_metadata.cursor;
      if (!cursor) expect(body.paging_metadata).toEqual({});
      pages++;
    } while (cursor && pages < 10);
    expect(pages).toBe(3);
    expect(seen).toEqual(all);
    expect(await json(get(`${sm(id)}/submodel-elements`))).toEqual({ paging_metadata: {}, result: all });
    expect((await json(get(`${sm(id)}/submodel-elements?extent=withBlobValue`))).result).toEqual(doc.submodelElements);

    const meta = await json(get(`${sm(id)}/submodel-elements/$metadata`));
    expect(meta).toEqual({
      paging_metadata: {},
      result: [
        { modelType: 'Property', idShort: 'P', valueType: 'xs:int' },
        { modelType: 'SubmodelElementCollection', idShort: 'C' },
        { modelType: 'Entity', idShort: 'E' },
        { modelType: 'Blob', idShort: 'B' },
        { modelType: 'Operation', idShort: 'Op' },
      ],
    });
    expect(await json(get(`${sm(id)}/submodel-elements/$value`))).toEqual({ paging_metadata: {}, result: RICH_VALUE });
    const refs = await json(get(`${sm(id)}/submodel-elements/$reference`));
    expect(refs).toEqual({
      paging_metadata: {},
      result: all.map((e) => ({ type: 'ModelReference', keys: [{ type: 'Submodel', value: id }, { type: e.modelType, value: e.idShort }] })),
    });
    expect(await json(get(`${sm(id)}/submodel-elements/$path`))).toEqual({ paging_metadata: {}, result: RICH_PATHS });
    expect(await json(get(`${sm(id)}/submodel-elements/$path?level=core`))).toEqual({ paging_metadata: {}, result: ['P', 'C', 'E', 'B', 'Op'] });
    // limit counts paths, not top-level elements.
    const onePath = await json(get(`${sm(id)}/submodel-elements/$path?limit=1`));
    expect(onePath.result).toEqual(['P']);
    expect(typeof onePath.paging_metadata.cursor).toBe('string');

    // Paging applies to the modifier lists.
    const firstMeta = await json(get(`${sm(id)}/submodel-elements/$metadata?limit=1`));
    expect(firstMeta.result).toEqual([{ modelType: 'Property', idShort: 'P', valueType: 'xs:int' }]);
    const secondMeta = await json(get(`${sm(id)}/submodel-elements/$metadata?limit=1&cursor=${firstMeta.paging_metadata.cursor}`));
    expect(secondMeta.result).toEqual([{ modelType: 'SubmodelElementCollection', idShort: 'C' }]);
    const valuePage = await json(get(`${sm(id)}/submodel-elements/$value?limit=2`));
    expect(valuePage.result).toEqual({ P: 5, C: RICH_VALUE.C });
    expect(typeof valuePage.paging_metadata.cursor).toBe('string');

    // level=core on the list: each element without its children.
    const core = await json(get(`${sm(id)}/submodel-elements?level=core`));
    expect(core.result[1]).toEqual({ modelType: 'SubmodelElementCollection', idShort: 'C' });
    expect(core.result[2]).toEqual({ modelType: 'Entity', idShort: 'E', entityType: 'SelfManagedEntity', globalAssetId: 'urn:asset:e' });

    await expectResult(await get(`${sm(uid('absent'))}/submodel-elements`), 404);
    await expectResult(await get(`${sm(id)}/submodel-elements?limit=251`), 400);
    const submodelsCursor = (await json(get('/submodels?limit=1'))).paging_metadata.cursor;
    expect(typeof submodelsCursor).toBe('string');
    await expectResult(await get(`${sm(id)}/submodel-elements?cursor=${submodelsCursor}`), 400);
  });

  it('reads elements at nested idShortPaths, list items by index', async () => {
    const id = uid('els');
    await created(id);
    const q = await get(el(id, 'C.Q'));
    expect(q.status).toBe(200);
    expect(q.headers.get('etag')).toBe((await get(sm(id))).headers.get('etag'));
    expect(await json(q)).toEqual(property('Q', 'x'));
    const item = await get(`${sm(id)}/submodel-elements/C.L%5B0%5D`);
    expect(item.status).toBe(200);
    expect(await json(item)).toEqual({ modelType: 'Property', valueType: 'xs:string', value: 'a' });
    expect(await json(get(el(id, 'E.S0')))).toEqual(property('S0', 'true', 'xs:boolean'));
    expect(await json(get(el(id, 'C.L')))).toMatchObject({ modelType: 'SubmodelElementList', idShort: 'L', value: [{ value: 'a' }] });

    // `1C` and `C L` break AASd-002 but are idShortPaths: an import may have stored such idShorts.
    for (const missing of ['X', 'C.X', 'C.L[1]', 'P.X', 'C.Q.R', 'C[0]', 'C.L.X', 'E.S1', '1C', 'C L']) {
      await expectResult(await get(el(id, missing)), 404);
    }
    for (const malformed of ['C..Q', '.C', 'C.', 'C.L[x]', 'C.L[', ' ', 'C.L]']) {
      await expectResult(await get(el(id, malformed)), 400);
    }
  });

  it('element $metadata, $value, $reference (a key per step, list items by index) and $path', async () => {
    const id = uid('els');
    await created(id);
    const get200 = async (path: string) => {
      const res = await get(path);
      expect(res.status, path).toBe(200);
      return json(res);
    };
    expect(await get200(`${el(id, 'P')}/$metadata`)).toEqual({ modelType: 'Property', idShort: 'P', valueType: 'xs:int' });
    expect(await get200(`${el(id, 'C.L')}/$metadata`)).toEqual({ modelType: 'SubmodelElementList', idShort: 'L', typeValueListElement: 'Property', valueTypeListElement: 'xs:string' });
    expect(await get200(`${el(id, 'P')}/$value`)).toBe(5);
    expect(await get200(`${el(id, 'C')}/$value`)).toEqual({ Q: 'x', L: ['a'] });
    expect(await get200(`${el(id, 'C.L')}/$value`)).toEqual(['a']);
    expect(await get200(`${el(id, 'E')}/$value`)).toEqual(RICH_VALUE.E);
    expect(await get200(`${el(id, 'B')}/$value`)).toEqual({ contentType: 'application/octet-stream' });
    expect(await get200(`${el(id, 'B')}/$value?extent=withBlobValue`)).toEqual({ contentType: 'application/octet-stream', value: 'AQID' });
    await expectResult(await get(`${el(id, 'Op')}/$value`), 400);

    expect(await get200(`${sm(id)}/submodel-elements/C.L%5B0%5D/$reference`)).toEqual({
      type: 'ModelReference',
      keys: [
        { type: 'Submodel', value: id },
        { type: 'SubmodelElementCollection', value: 'C' },
        { type: 'SubmodelElementList', value: 'L' },
        { type: 'Property', value: '0' },
      ],
    });
    expect(await get200(`${el(id, 'E.S0')}/$reference`)).toEqual({
      type: 'ModelReference',
      keys: [{ type: 'Submodel', value: id }, { type: 'Entity', value: 'E' }, { type: 'Property', value: 'S0' }],
    });

    expect(await get200(`${el(id, 'C')}/$path`)).toEqual(['C', 'C.Q', 'C.L', 'C.L[0]']);
    expect(await get200(`${el(id, 'C')}/$path?level=core`)).toEqual(['C', 'C.Q', 'C.L']);
    expect(await get200(`${el(id, 'C.L')}/$path`)).toEqual(['C.L', 'C.L[0]']);
    expect(await get200(`${el(id, 'P')}/$path`)).toEqual(['P']);

    // level=core on an element: its children without theirs.
    expect(await get200(`${el(id, 'C')}?level=core`)).toEqual({
      modelType: 'SubmodelElementCollection',
      idShort: 'C',
      value: [property('Q', 'x'), { modelType: 'SubmodelElementList', idShort: 'L', typeValueListElement: 'Property', valueTypeListElement: 'xs:string' }],
    });
    expect(await get200(el(id, 'B'))).toEqual({ modelType: 'Blob', idShort: 'B', contentType: 'application/octet-stream' });
    expect(await get200(`${el(id, 'B')}?extent=withBlobValue`)).toEqual({ modelType: 'Blob', idShort: 'B', contentType: 'application/octet-stream', value: 'AQID' });
    await expectResult(await get(`${el(id, 'P')}/$metadata?level=core`), 400);
  });

  it('POSTs elements to the submodel, into a collection, a list and an entity', async () => {
    const id = uid('post');
    await created(id);
    const base = `${api}${sm(id)}/submodel-elements`;

    const top = await post(`${sm(id)}/submodel-elements`, property('N', 'new'));
    expect(top.status).toBe(201);
    expect(top.headers.get('location')).toBe(`${base}/N`);
    expect(top.headers.get('etag')).toMatch(/^"[^"]+"$/);
    expect(await json(top)).toEqual(property('N', 'new'));
    expect(await json(get(el(id, 'N')))).toEqual(property('N', 'new'));
    expect((await json(get(`${sm(id)}/$path?level=core`))).at(-1)).toBe('N');

    const inCollection = await post(el(id, 'C'), property('R', 'r'));
    expect(inCollection.status).toBe(201);
    expect(inCollection.headers.get('location')).toBe(`${base}/C.R`);
    expect(await json(get(el(id, 'C.R')))).toEqual(property('R', 'r'));

    const item = { modelType: 'Property', valueType: 'xs:string', value: 'b' };
    const inList = await post(el(id, 'C.L'), item);
    expect(inList.status).toBe(201);
    expect(inList.headers.get('location')).toBe(`${base}/C.L%5B1%5D`);
    expect(await json(inList)).toEqual(item);
    expect(await json(get(`${sm(id)}/submodel-elements/C.L%5B1%5D`))).toEqual(item);
    expect(await json(get(`${el(id, 'C.L')}/$value`))).toEqual(['a', 'b']);

    const statement = await post(el(id, 'E'), property('S1', '1', 'xs:int'));
    expect(statement.status).toBe(201);
    expect(statement.headers.get('location')).toBe(`${base}/E.S1`);
    expect(await json(get(el(id, 'E.S1')))).toEqual(property('S1', '1', 'xs:int'));

    // Nested collection created, then filled through its new path.
    expect((await post(`${sm(id)}/submodel-elements`, { modelType: 'SubmodelElementCollection', idShort: 'D' })).status).toBe(201);
    const deep = await post(el(id, 'D'), property('Z', 'z'));
    expect(deep.headers.get('location')).toBe(`${base}/D.Z`);

    expect(await json(get(`${sm(id)}/$path`))).toEqual([
      'P', 'C', 'C.Q', 'C.L', 'C.L[0]', 'C.L[1]', 'C.R', 'E', 'E.S0', 'E.S1', 'B', 'Op', 'N', 'D', 'D.Z',
    ]);
  });

  it('refuses POSTs that would break the submodel, and changes nothing', async () => {
    const id = uid('post');
    const doc = await created(id);
    await expectResult(await post(`${sm(id)}/submodel-elements`, property('P', 'again')), 409);
    await expectResult(await post(el(id, 'C'), property('Q', 'again')), 409);
    await expectResult(await post(el(id, 'P'), property('X', 'x')), 400);
    await expectResult(await post(el(id, 'C.Missing'), property('X', 'x')), 404);
    // A list of Properties takes no collection (AASd-108), and its items carry no idShort (AASd-120).
    await expectResult(await post(el(id, 'C.L'), { modelType: 'SubmodelElementCollection' }), 400);
    await expectResult(await post(el(id, 'C.L'), property('Named', 'x')), 400);
    // Not an element; an element without idShort at the top level (AASd-117).
    await expectResult(await post(`${sm(id)}/submodel-elements`, { modelType: 'Submodel', id: 'x' }), 400);
    await expectResult(await post(`${sm(id)}/submodel-elements`, { modelType: 'Property', valueType: 'xs:string' }), 400);
    await expectResult(await post(`${sm(uid('absent'))}/submodel-elements`, property('X', 'x')), 404);
    expect(await json(get(`${sm(id)}?extent=withBlobValue`))).toEqual(doc);
  });

  it('PUT, PATCH and DELETE elements', async () => {
    const id = uid('write');
    const doc = await created(id);

    const replaced = { ...property('Q', 'replaced'), description: [{ language: 'en', text: 'Q' }] };
    const putRes = await put(el(id, 'C.Q'), replaced);
    expect(putRes.status).toBe(204);
    expect(putRes.headers.get('etag')).toMatch(/^"[^"]+"$/);
    expect(await json(get(el(id, 'C.Q')))).toEqual(replaced);
    const newItem = { modelType: 'Property', valueType: 'xs:string', value: 'A' };
    expect((await put(`${sm(id)}/submodel-elements/C.L%5B0%5D`, newItem)).status).toBe(204);
    expect(await json(get(`${el(id, 'C.L')}/$value`))).toEqual(['A']);
    await expectResult(await put(el(id, 'C.Q'), property('Other', 'x')), 400);
    await expectResult(await put(el(id, 'C.X'), property('X', 'x')), 404);

    // PATCH: what the body has replaces, the rest (the value here) stays.
    const patchRes = await patch(el(id, 'P'), { modelType: 'Property', idShort: 'P', valueType: 'xs:int', category: 'PARAMETER' });
    expect(patchRes.status).toBe(204);
    expect(await json(get(el(id, 'P')))).toEqual({ ...property('P', '5', 'xs:int'), category: 'PARAMETER' });
    const patchedC = await patch(el(id, 'C'), { modelType: 'SubmodelElementCollection', idShort: 'C', semanticId: ext('urn:sem:c') });
    expect(patchedC.status).toBe(204);
    const c = await json(get(el(id, 'C')));
    expect(c.semanticId).toEqual(ext('urn:sem:c'));
    expect(c.value.map((e: Json) => e.idShort)).toEqual(['Q', 'L']);
    await expectResult(await patch(el(id, 'P'), { modelType: 'Range', idShort: 'P', valueType: 'xs:int' }), 400);

    const delRes = await del(el(id, 'C.Q'));
    expect(delRes.status).toBe(204);
    await expectResult(await get(el(id, 'C.Q')), 404);
    await expectResult(await del(el(id, 'C.Q')), 404);
    expect((await del(`${sm(id)}/submodel-elements/C.L%5B0%5D`)).status).toBe(204);
    await expectResult(await get(`${sm(id)}/submodel-elements/C.L%5B0%5D`), 404);
    expect((await del(el(id, 'E.S0'))).status).toBe(204);
    expect((await del(el(id, 'Op'))).status).toBe(204);
    expect(await json(get(`${sm(id)}/$path`))).toEqual(['P', 'C', 'C.L', 'E', 'B']);
    // The submodel's own attributes stay through it all.
    const after = await json(get(sm(id)));
    expect(after.idShort).toBe(doc.idShort);
    expect(after.description).toEqual(doc.description);
  });

  it('answers an element $value as JSON whatever its type: a string is a JSON string, no Property value null, no language strings []', async () => {
    const id = uid('value-json');
    await created(id, {
      modelType: 'Submodel',
      id,
      submodelElements: [
        property('S', 'a'),
        property('H', '<b>hi</b>'),
        { modelType: 'Property', idShort: 'N', valueType: 'xs:string' },
        { modelType: 'MultiLanguageProperty', idShort: 'M' },
        { modelType: 'SubmodelElementList', idShort: 'L', typeValueListElement: 'Property', valueTypeListElement: 'xs:string', value: [{ modelType: 'Property', valueType: 'xs:string', value: 'a' }] },
      ],
    });
    // The submodel's $value has them all, as JSON.
    expect(await json(get(`${sm(id)}/$value`))).toEqual({ S: 'a', H: '<b>hi</b>', N: null, M: [], L: ['a'] });
    for (const [path, value] of [['S', 'a'], ['H', '<b>hi</b>'], ['N', null], ['M', []], ['L[0]', 'a']] as const) {
      const res = await get(`${el(id, path)}/$value`);
      expect(res.status, path).toBe(200);
      expect(res.headers.get('content-type'), path).toMatch(/^application\/json/);
      expect(await res.text(), path).toBe(JSON.stringify(value));
    }
  });

  it('clears a Property value with a null $value, the value-only form of "no value"', async () => {
    const id = uid('value-null');
    await created(id, { modelType: 'Submodel', id, submodelElements: [property('S', 'a'), property('T', 'b')] });
    // Through the submodel's $value, null clears a value ...
    expect((await patch(`${sm(id)}/$value`, { T: null })).status).toBe(204);
    expect(await json(get(el(id, 'T')))).toEqual({ modelType: 'Property', idShort: 'T', valueType: 'xs:string' });
    // ... and so it does through the element's own.
    const res = await patch(`${el(id, 'S')}/$value`, null);
    expect(res.status).toBe(204);
    expect(await json(get(el(id, 'S')))).toEqual({ modelType: 'Property', idShort: 'S', valueType: 'xs:string' });
  });

  it('answers [] for a MultiLanguageProperty without language strings, in collections too, and takes [] back', async () => {
    const id = uid('mlp-empty');
    const mlp = (idShort: string, texts?: string) => ({
      modelType: 'MultiLanguageProperty',
      idShort,
      ...(texts !== undefined && { value: [{ language: 'en', text: texts }] }),
    });
    const doc = { modelType: 'Submodel', id, submodelElements: [mlp('M'), { modelType: 'SubmodelElementCollection', idShort: 'C', value: [mlp('Empty'), mlp('Full', 'hi')] }] };
    await created(id, doc);
    expect(await json(get(`${sm(id)}/$value`))).toEqual({ M: [], C: { Empty: [], Full: [{ en: 'hi' }] } });
    expect(await json(get(`${el(id, 'C')}/$value`))).toEqual({ Empty: [], Full: [{ en: 'hi' }] });
    // PATCH back what GET gave: nothing changes.
    expect((await patch(`${sm(id)}/$value`, await json(get(`${sm(id)}/$value`)))).status).toBe(204);
    expect(await json(get(sm(id)))).toEqual(doc);
    // [] clears language strings, through the submodel and through the element, and leaves an empty one empty.
    expect((await patch(`${el(id, 'C')}/$value`, { Full: [], Empty: [] })).status).toBe(204);
    expect(await json(get(el(id, 'C.Full')))).toEqual(mlp('Full'));
    expect((await patch(`${el(id, 'M')}/$value`, [{ de: 'Hallo' }])).status).toBe(204);
    expect(await json(get(`${el(id, 'M')}/$value`))).toEqual([{ de: 'Hallo' }]);
    expect((await patch(`${el(id, 'M')}/$value`, [])).status).toBe(204);
    expect(await json(get(el(id, 'M')))).toEqual(mlp('M'));
    expect(await json(get(`${sm(id)}/$value`))).toEqual({ M: [], C: { Empty: [], Full: [] } });
  });

  it('PATCH element $metadata and $value, then GET shows the change', async () => {
    const id = uid('write');
    await created(id);
    expect((await patch(`${el(id, 'C.Q')}/$metadata`, { category: 'VARIABLE', semanticId: ext('urn:sem:q') })).status).toBe(204);
    expect(await json(get(el(id, 'C.Q')))).toEqual({ ...property('Q', 'x'), category: 'VARIABLE', semanticId: ext('urn:sem:q') });
    await expectResult(await patch(`${el(id, 'C.Q')}/$metadata`, { value: 'no' }), 400);

    const res = await patch(`${el(id, 'C.Q')}/$value`, 'changed');
    expect(res.status).toBe(204);
    expect(res.headers.get('etag')).toMatch(/^"[^"]+"$/);
    expect(await json(get(el(id, 'C.Q')))).toEqual({ ...property('Q', 'changed'), category: 'VARIABLE', semanticId: ext('urn:sem:q') });
    expect((await patch(`${el(id, 'P')}/$value`, 42)).status).toBe(204);
    expect(await json(get(el(id, 'P')))).toEqual(property('P', '42', 'xs:int'));
    expect((await patch(`${el(id, 'C')}/$value`, { L: ['z'] })).status).toBe(204);
    expect(await json(get(`${sm(id)}/submodel-elements/C.L%5B0%5D`))).toEqual({ modelType: 'Property', valueType: 'xs:string', value: 'z' });
    expect((await patch(`${el(id, 'B')}/$value`, { contentType: 'text/plain', value: 'aGk=' })).status).toBe(204);
    expect(await json(get(`${el(id, 'B')}?extent=withBlobValue`))).toEqual({ modelType: 'Blob', idShort: 'B', contentType: 'text/plain', value: 'aGk=' });

    await expectResult(await patch(`${el(id, 'P')}/$value`, 'abc'), 400);
    await expectResult(await patch(`${el(id, 'Op')}/$value`, {}), 400);
    await expectResult(await patch(`${el(id, 'C')}/$value`, { Nope: 1 }), 400);
    expect(await json(get(`${sm(id)}/$value`))).toMatchObject({ P: 42, C: { Q: 'changed', L: ['z'] } });
  });

  it('does not execute operations: 501 on an Operation, 405 on another kind', async () => {
    const id = uid('invoke');
    await created(id);
    for (const suffix of ['/invoke', '/invoke/$value', '/invoke-async', '/invoke-async/$value']) {
      const body = await expectResult(await post(`${el(id, 'Op')}${suffix}`, { inputArguments: [] }), 501);
      expect(body.messages[0].text, suffix).toMatch(/does not execute/);
      await expectResult(await post(`${el(id, 'P')}${suffix}`, { inputArguments: [] }), 405);
      await expectResult(await post(`${el(id, 'Nope')}${suffix}`, { inputArguments: [] }), 404);
    }
  });
});

describe('submodels through a shell', () => {
  let shellId: string;
  let a: string;
  let b: string;
  const shellPath = () => `/shells/${b64(shellId)}`;
  const via = (id: string, rest = '') => `${shellPath()}/submodels/${b64(id)}${rest}`;
  const subRef = (id: string) => ({ type: 'ModelReference', keys: [{ type: 'Submodel', value: id }] });

  beforeAll(async () => {
    shellId = uid('shell');
    a = uid('sm-a');
    b = uid('sm-b');
    await created(a);
    await created(b);
    expect((await post('/shells', sampleShell(shellId, { submodels: [subRef(a)] }))).status).toBe(201);
  });

  it('reads the referenced submodel and its modifiers; the other is 404', async () => {
    expect(await json(get(via(a)))).toEqual(withoutBlobValue(richSubmodel(a)));
    expect(await json(get(via(a, '/$value')))).toEqual(RICH_VALUE);
    expect(await json(get(via(a, '/$metadata')))).toMatchObject({ id: a, idShort: 'Rich' });
    expect(await json(get(via(a, '/$reference')))).toEqual(subRef(a));
    expect(await json(get(via(a, '/$path')))).toEqual(RICH_PATHS);
    expect((await json(get(via(a, '/submodel-elements')))).result).toHaveLength(5);
    expect(await pathPages(get, via(a, '/submodel-elements/$path'), 4)).toEqual(chunks(RICH_PATHS, 4));
    for (const rest of ['', '/$value', '/$metadata', '/$reference', '/$path', '/submodel-elements', '/submodel-elements/$path', '/submodel-elements/P', '/submodel-elements/P/$value']) {
      await expectResult(await get(via(b, rest)), 404);
    }
    await expectResult(await get(`/shells/${b64(uid('no-shell'))}/submodels/${b64(a)}`), 404);
  });

  it('lists the shell\'s submodels; a shell without submodels has an empty result', async () => {
    expect(await json(get(`${shellPath()}/submodels`))).toEqual({ paging_metadata: {}, result: [withoutBlobValue(richSubmodel(a))] });
    expect(await json(get(`${shellPath()}/submodels?extent=withBlobValue`))).toEqual({ paging_metadata: {}, result: [richSubmodel(a)] });
    const core = await json(get(`${shellPath()}/submodels?level=core`));
    expect(core.result[0].submodelElements.find((e: Json) => e.idShort === 'C')).toEqual({ modelType: 'SubmodelElementCollection', idShort: 'C' });
    const bare = uid('bare-shell');
    expect((await post('/shells', sampleShell(bare))).status).toBe(201);
    const res = await get(`/shells/${b64(bare)}/submodels`);
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('{"paging_metadata":{},"result":[]}');
    await expectResult(await get(`/shells/${b64(uid('no-shell'))}/submodels`), 404);
  });

  it('pages the shell\'s submodels in the order of its references', async () => {
    const owner = uid('shell');
    const ids = [uid('p'), uid('p'), uid('p')];
    for (const id of ids) await created(id, { modelType: 'Submodel', id });
    expect((await post('/shells', sampleShell(owner, { submodels: [...ids].reverse().map(subRef) }))).status).toBe(201);
    const seen: unknown[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const body = await json(get(`/shells/${b64(owner)}/submodels?limit=1${cursor ? `&cursor=${cursor}` : ''}`));
      seen.push(...body.result.map((s: Json) => s.id));
      cursor = body.paging_metadata.cursor;
      if (!cursor) expect(body.paging_metadata).toEqual({});
      pages++;
    } while (cursor && pages < 10);
    expect(pages).toBe(3);
    expect(seen).toEqual([...ids].reverse());
    await expectResult(await get(`/shells/${b64(owner)}/submodels?limit=0`), 400);
    await expectResult(await get(`/shells/${b64(owner)}/submodels?cursor=forged`), 400);
  });

  it('skips a referenced submodel that does not exist in the list, and answers 404 for it', async () => {
    const dangling = uid('dangling');
    const owner = uid('shell');
    expect((await post('/shells', sampleShell(owner, { submodels: [subRef(dangling), subRef(a)] }))).status).toBe(201);
    expect((await json(get(`/shells/${b64(owner)}/submodels`))).result.map((s: Json) => s.id)).toEqual([a]);
    await expectResult(await get(`/shells/${b64(owner)}/submodels/${b64(dangling)}`), 404);
    await expectResult(await del(`/shells/${b64(owner)}/submodels/${b64(dangling)}`), 404);
  });

  it('writes to the referenced submodel at every level; the other is 404 and unchanged', async () => {
    const bBefore = await json(get(`${sm(b)}?extent=withBlobValue`));

    expect((await put(via(a), { ...richSubmodel(a), idShort: 'ViaShell' })).status).toBe(204);
    await expectResult(await put(via(b), { ...richSubmodel(b), idShort: 'ViaShell' }), 404);
    expect((await json(get(sm(a)))).idShort).toBe('ViaShell');

    expect((await patch(via(a), { modelType: 'Submodel', id: a, category: 'CONSTANT' })).status).toBe(204);
    await expectResult(await patch(via(b), { modelType: 'Submodel', id: b, category: 'CONSTANT' }), 404);
    expect((await json(get(sm(a)))).category).toBe('CONSTANT');

    expect((await patch(via(a, '/$value'), { P: 9 })).status).toBe(204);
    await expectResult(await patch(via(b, '/$value'), { P: 9 }), 404);
    expect((await json(get(`${sm(a)}/$value`))).P).toBe(9);

    expect((await patch(via(a, '/$metadata'), { idShort: 'Meta' })).status).toBe(204);
    await expectResult(await patch(via(b, '/$metadata'), { idShort: 'Meta' }), 404);

    const posted = await post(via(a, '/submodel-elements'), property('V', 'v'));
    expect(posted.status).toBe(201);
    expect(posted.headers.get('location')).toBe(`${api}${via(a)}/submodel-elements/V`);
    await expectResult(await post(via(b, '/submodel-elements'), property('V', 'v')), 404);
    const nested = await post(via(a, '/submodel-elements/C.L'), { modelType: 'Property', valueType: 'xs:string', value: 'n' });
    expect(nested.headers.get('location')).toBe(`${api}${via(a)}/submodel-elements/C.L%5B1%5D`);
    await expectResult(await post(via(b, '/submodel-elements/C.L'), { modelType: 'Property', valueType: 'xs:string', value: 'n' }), 404);

    expect(await json(get(via(a, '/submodel-elements/V')))).toEqual(property('V', 'v'));
    expect((await put(via(a, '/submodel-elements/V'), property('V', 'w'))).status).toBe(204);
    await expectResult(await put(via(b, '/submodel-elements/P'), property('P', '1', 'xs:int')), 404);
    expect((await patch(via(a, '/submodel-elements/V/$value'), 'u')).status).toBe(204);
    await expectResult(await patch(via(b, '/submodel-elements/P/$value'), 1), 404);
    expect(await json(get(el(a, 'V')))).toEqual(property('V', 'u'));

    expect((await del(via(a, '/submodel-elements/V'))).status).toBe(204);
    await expectResult(await del(via(b, '/submodel-elements/P')), 404);
    await expectResult(await get(el(a, 'V')), 404);

    expect(await json(get(`${sm(b)}?extent=withBlobValue`))).toEqual(bBefore);
  });

  it('invokes through the shell as directly: 501', async () => {
    await expectResult(await post(via(a, '/submodel-elements/Op/invoke'), {}), 501);
    await expectResult(await post(via(b, '/submodel-elements/Op/invoke'), {}), 404);
  });

  it('DELETE through the shell removes the submodel and the shell\'s reference', async () => {
    const owner = uid('shell');
    const c = uid('sm-c');
    const d = uid('sm-d');
    await created(c);
    await created(d);
    expect((await post('/shells', sampleShell(owner, { submodels: [subRef(c), subRef(d)] }))).status).toBe(201);
    const other = uid('other');
    await created(other);

    await expectResult(await del(`/shells/${b64(owner)}/submodels/${b64(other)}`), 404);
    expect((await get(sm(other))).status).toBe(200);

    expect((await del(`/shells/${b64(owner)}/submodels/${b64(c)}`)).status).toBe(204);
    await expectResult(await get(sm(c)), 404);
    expect((await json(get(`/shells/${b64(owner)}`))).submodels).toEqual([subRef(d)]);
    expect(await json(get(`/shells/${b64(owner)}/submodel-refs`))).toEqual({ paging_metadata: {}, result: [subRef(d)] });
    await expectResult(await get(`/shells/${b64(owner)}/submodels/${b64(c)}`), 404);
    await expectResult(await del(`/shells/${b64(owner)}/submodels/${b64(c)}`), 404);
    expect((await get(sm(d))).status).toBe(200);
  });
});

describe('change events', () => {
  const outbox = async (tenantId: string) =>
    (await server.dataSource.query('SELECT kind, entity_type, entity_id FROM outbox WHERE tenant_id = $1 ORDER BY seq', [tenantId])) as {
      kind: string;
      entity_type: string;
      entity_id: string;
    }[];

  it('submodel-level changes write an outbox event, element-level ones do not', async () => {
    const tenant = await server.createTenant({ eventsEnabled: true });
    const E = client(() => server.api(tenant.name));
    const id = 'urn:ev:sm';
    const path = (rest = '') => `/submodels/${b64(id)}${rest}`;
    const elPath = (p: string, rest = '') => `/submodels/${b64(id)}/submodel-elements/${encodeURIComponent(p)}${rest}`;

    expect((await E.post('/submodels', richSubmodel(id))).status).toBe(201);
    expect(await outbox(tenant.id)).toEqual([{ kind: 'created', entity_type: 'Submodel', entity_id: id }]);

    // Element level: none of these adds an event.
    expect((await E.post(path('/submodel-elements'), property('N', 'n'))).status).toBe(201);
    expect((await E.post(elPath('C'), property('R', 'r'))).status).toBe(201);
    expect((await E.put(elPath('N'), property('N', 'm'))).status).toBe(204);
    expect((await E.patch(elPath('N'), { modelType: 'Property', idShort: 'N', valueType: 'xs:string', category: 'VARIABLE' })).status).toBe(204);
    expect((await E.patch(elPath('N', '/$metadata'), { category: 'PARAMETER' })).status).toBe(204);
    expect((await E.patch(elPath('N', '/$value'), 'v')).status).toBe(204);
    expect((await E.del(elPath('N'))).status).toBe(204);
    expect(await outbox(tenant.id)).toHaveLength(1);

    // Submodel level: one event each.
    expect((await E.put(path(), { ...richSubmodel(id), idShort: 'Put' })).status).toBe(204);
    expect((await E.patch(path(), { modelType: 'Submodel', id, idShort: 'Patched' })).status).toBe(204);
    expect((await E.patch(path('/$metadata'), { idShort: 'Meta' })).status).toBe(204);
    expect((await E.patch(path('/$value'), { P: 1 })).status).toBe(204);
    // Rejected writes record nothing.
    expect((await E.patch(path('/$value'), { Nope: 1 })).status).toBe(400);
    expect((await E.del(path())).status).toBe(204);
    expect(await outbox(tenant.id)).toEqual([
      { kind: 'created', entity_type: 'Submodel', entity_id: id },
      { kind: 'updated', entity_type: 'Submodel', entity_id: id },
      { kind: 'updated', entity_type: 'Submodel', entity_id: id },
      { kind: 'updated', entity_type: 'Submodel', entity_id: id },
      { kind: 'updated', entity_type: 'Submodel', entity_id: id },
      { kind: 'deleted', entity_type: 'Submodel', entity_id: id },
    ]);
    const payloads = (await server.dataSource.query('SELECT payload FROM outbox WHERE tenant_id = $1 ORDER BY seq', [tenant.id])) as { payload: Json | null }[];
    expect(payloads.map((p) => p.payload?.idShort ?? null)).toEqual(['Rich', 'Put', 'Patched', 'Meta', 'Meta', null]);
  });

  it('element changes through a shell write no event; a delete through it writes the submodel\'s and the shell\'s', async () => {
    const tenant = await server.createTenant({ eventsEnabled: true });
    const E = client(() => server.api(tenant.name));
    const id = 'urn:ev:sm2';
    const shell = 'urn:ev:shell';
    expect((await E.post('/submodels', richSubmodel(id))).status).toBe(201);
    expect((await E.post('/shells', sampleShell(shell, { submodels: [{ type: 'ModelReference', keys: [{ type: 'Submodel', value: id }] }] }))).status).toBe(201);
    const via = `/shells/${b64(shell)}/submodels/${b64(id)}`;
    expect((await E.post(`${via}/submodel-elements`, property('N', 'n'))).status).toBe(201);
    expect((await E.put(`${via}/submodel-elements/N`, property('N', 'o'))).status).toBe(204);
    expect((await E.patch(`${via}/submodel-elements/N/$value`, 'm')).status).toBe(204);
    expect((await E.del(`${via}/submodel-elements/N`)).status).toBe(204);
    expect(await outbox(tenant.id)).toEqual([
      { kind: 'created', entity_type: 'Submodel', entity_id: id },
      { kind: 'created', entity_type: 'AssetAdministrationShell', entity_id: shell },
    ]);
    // A submodel-level change through the shell is one.
    expect((await E.patch(`${via}/$value`, { P: 6 })).status).toBe(204);
    expect((await outbox(tenant.id))[2]).toEqual({ kind: 'updated', entity_type: 'Submodel', entity_id: id });
    expect((await E.del(via)).status).toBe(204);
    const events = await outbox(tenant.id);
    expect(events.slice(3)).toHaveLength(2);
    expect(events.slice(3)).toEqual(
      expect.arrayContaining([
        { kind: 'deleted', entity_type: 'Submodel', entity_id: id },
        { kind: 'updated', entity_type: 'AssetAdministrationShell', entity_id: shell },
      ]),
    );
  });
});

describe('concurrent element writes', () => {
  it('accepts 50 distinct elements POSTed in parallel to one submodel, and keeps all 50', async () => {
    const id = uid('parallel');
    await created(id, { modelType: 'Submodel', id, idShort: 'Parallel' });
    const names = Array.from({ length: 50 }, (_, i) => `E${i}`);
    const responses = await Promise.all(names.map((name) => post(`${sm(id)}/submodel-elements`, property(name, name))));
    const statuses = await Promise.all(responses.map(async (res) => [res.status, res.status === 201 ? '' : await res.text()]));
    expect(statuses).toEqual(names.map(() => [201, '']));
    const locations = responses.map((res) => res.headers.get('location'));
    expect(new Set(locations).size).toBe(50);
    expect(locations.sort()).toEqual(names.map((n) => `${api}${sm(id)}/submodel-elements/${n}`).sort());

    const list = await json(get(`${sm(id)}/submodel-elements?limit=250`));
    expect(list.paging_metadata).toEqual({});
    expect(list.result).toHaveLength(50);
    expect(list.result.map((e: Json) => e.idShort).sort()).toEqual([...names].sort());
    for (const element of list.result) expect(element).toEqual(property(element.idShort as string, element.idShort as string));
    // And each is addressable.
    const got = await Promise.all(names.map((name) => get(el(id, name))));
    expect(got.map((r) => r.status)).toEqual(names.map(() => 200));
  });

  it('lets exactly one of 20 parallel POSTs of one idShort win; the others are 409', async () => {
    const id = uid('parallel');
    await created(id, { modelType: 'Submodel', id });
    const responses = await Promise.all(Array.from({ length: 20 }, (_, i) => post(`${sm(id)}/submodel-elements`, property('Same', String(i)))));
    const statuses = responses.map((r) => r.status).sort();
    expect(statuses).toEqual([201, ...Array(19).fill(409)]);
    const list = await json(get(`${sm(id)}/submodel-elements`));
    expect(list.result).toHaveLength(1);
    const winner = responses.find((r) => r.status === 201)!;
    expect(list.result[0]).toEqual(await json(winner));
  });

  it('keeps all 20 values PATCHed in parallel on different properties of one submodel', async () => {
    const id = uid('parallel');
    const names = Array.from({ length: 20 }, (_, i) => `V${i}`);
    await created(id, { modelType: 'Submodel', id, submodelElements: names.map((name) => property(name, '0', 'xs:int')) });
    const responses = await Promise.all(names.map((name, i) => patch(`${el(id, name)}/$value`, 100 + i)));
    expect(responses.map((r) => r.status)).toEqual(names.map(() => 204));
    expect(await json(get(`${sm(id)}/$value`))).toEqual(Object.fromEntries(names.map((name, i) => [name, 100 + i])));
    // Every write got its own entity tag: the writes were serialized, none lost.
    expect(new Set(responses.map((r) => r.headers.get('etag'))).size).toBe(20);
  });
});

describe('whole-submodel reads passed through from the database', () => {
  const blob = (idShort: string) => ({ modelType: 'Blob', idShort, contentType: 'text/plain', value: 'aGVsbG8=' });

  it('answers the stored document as JSON, equal to the parsed read', async () => {
    const id = uid('passthrough');
    const doc = { modelType: 'Submodel', id, submodelElements: [property('P', '1'), { modelType: 'SubmodelElementCollection', idShort: 'C', value: [property('Q', 'x')] }] };
    expect((await post('/submodels', doc)).status).toBe(201);
    const res = await get(sm(id));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.headers.get('etag')).toMatch(/^"\d+-1"$/);
    expect(await json(res)).toEqual(doc);
    const core = await json(get(`${sm(id)}?level=core`));
    expect(core.submodelElements[1]).toEqual({ modelType: 'SubmodelElementCollection', idShort: 'C' });
  });

  it('still leaves out Blob values once a Blob arrives by an element write, inside an operation too', async () => {
    const id = uid('blob-later');
    expect((await post('/submodels', { modelType: 'Submodel', id, submodelElements: [property('P', '1')] })).status).toBe(201);
    expect((await post(`${sm(id)}/submodel-elements`, blob('B'))).status).toBe(201);
    let read = await json(get(sm(id)));
    expect(read.submodelElements[1]).toEqual({ modelType: 'Blob', idShort: 'B', contentType: 'text/plain' });
    expect((await json(get(`${sm(id)}?extent=withBlobValue`))).submodelElements[1]).toEqual(blob('B'));

    expect((await del(el(id, 'B'))).status).toBe(204);
    const operation = { modelType: 'Operation', idShort: 'Op', inputVariables: [{ value: blob('In') }] };
    expect((await post(`${sm(id)}/submodel-elements`, operation)).status).toBe(201);
    read = await json(get(sm(id)));
    expect(read.submodelElements[1].inputVariables[0].value).toEqual({ modelType: 'Blob', idShort: 'In', contentType: 'text/plain' });
  });
});
