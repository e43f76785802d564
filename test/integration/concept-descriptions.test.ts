import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { TestServer, b64, json, startTestServer } from '../support/server';

/** The Concept Description Repository over REST: CRUD, filters and paging. */

let server: TestServer;
let api: string;

beforeAll(async () => {
  server = await startTestServer(inject('databaseUrl'));
  api = server.api((await server.createTenant()).name);
});
afterAll(() => server?.close());

type Json = Record<string, unknown>;

function client(base: () => string) {
  const send = (method: string, path: string, body?: unknown) =>
    fetch(`${base()}${path}`, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  return {
    get: (path: string) => send('GET', path),
    post: (path: string, body: unknown) => send('POST', path, body),
    put: (path: string, body: unknown) => send('PUT', path, body),
    del: (path: string) => send('DELETE', path),
  };
}
const { get, post, put, del } = client(() => api);

async function expectResult(res: Response, status: number) {
  expect(res.status).toBe(status);
  const body = await json(res);
  expect(Object.keys(body)).toEqual(['messages']);
  expect(body.messages.length).toBeGreaterThan(0);
  expect(body.messages[0]).toMatchObject({ code: String(status), messageType: 'Error', correlationId: res.headers.get('x-request-id') });
  expect(typeof body.messages[0].text).toBe('string');
  return body;
}

const ext = (value: string) => ({ type: 'ExternalReference', keys: [{ type: 'GlobalReference', value }] });
const IEC61360 = ext('https://admin-shell.io/DataSpecificationTemplates/DataSpecificationIec61360/3/0');
const OTHER_SPEC = ext('urn:data-specification:other');
const CASE_A = ext('urn:eclass:0173-1#02-AAA001#001');
const CASE_B = { type: 'ModelReference', keys: [{ type: 'ConceptDescription', value: 'urn:cd:base' }] };

/** An embedded data specification with IEC 61360 content: an English preferred name and definition. */
function iec61360(dataSpecification: Json, name: string): Json {
  return {
    dataSpecification,
    dataSpecificationContent: {
      modelType: 'DataSpecificationIec61360',
      preferredName: [
        { language: 'en', text: name },
        { language: 'de', text: `${name} (de)` },
      ],
      shortName: [{ language: 'en', text: name.slice(0, 3) }],
      definition: [{ language: 'en', text: `The ${name.toLowerCase()} of the device` }],
      unit: 'V',
      dataType: 'REAL_MEASURE',
    },
  };
}

function cd(id: string, extra: Json = {}): Json {
  return { modelType: 'ConceptDescription', id, idShort: 'Voltage', category: 'PROPERTY', ...extra };
}

const cdPath = (id: string) => `/concept-descriptions/${b64(id)}`;

let counter = 0;
const uid = (what: string) => `urn:test:cd:${what}:${++counter}`;

describe('concept description CRUD', () => {
  it('creates with 201, Location and ETag; reads, replaces and deletes', async () => {
    const id = uid('crud');
    const doc = cd(id, {
      description: [{ language: 'en', text: 'A voltage' }],
      administration: { version: '1', revision: '0' },
      isCaseOf: [CASE_A],
      embeddedDataSpecifications: [iec61360(IEC61360, 'Voltage')],
    });
    const created = await post('/concept-descriptions', doc);
    expect(created.status).toBe(201);
    expect(created.headers.get('location')).toBe(`${api}${cdPath(id)}`);
    expect(created.headers.get('etag')).toMatch(/^"[^"]+"$/);
    expect(await json(created)).toEqual(doc);

    const got = await get(cdPath(id));
    expect(got.status).toBe(200);
    expect(got.headers.get('etag')).toBe(created.headers.get('etag'));
    expect(await json(got)).toEqual(doc);

    const replaced = cd(id, { idShort: 'Current', embeddedDataSpecifications: [iec61360(IEC61360, 'Current')] });
    const putRes = await put(cdPath(id), replaced);
    expect(putRes.status).toBe(204);
    expect(await putRes.text()).toBe('');
    expect(await json(get(cdPath(id)))).toEqual(replaced);

    const delRes = await del(cdPath(id));
    expect(delRes.status).toBe(204);
    await expectResult(await get(cdPath(id)), 404);
    await expectResult(await del(cdPath(id)), 404);
  });

  it('answers 409 on a duplicate POST and keeps the first', async () => {
    const id = uid('dup');
    expect((await post('/concept-descriptions', cd(id))).status).toBe(201);
    await expectResult(await post('/concept-descriptions', cd(id, { idShort: 'Second' })), 409);
    expect((await json(get(cdPath(id)))).idShort).toBe('Voltage');
    expect((await json(get(`/concept-descriptions?idShort=Second`))).result).toEqual([]);
  });

  it('answers 400 when the PUT id differs from the path, 404 for an absent one; nothing changes', async () => {
    const id = uid('put');
    expect((await post('/concept-descriptions', cd(id))).status).toBe(201);
    const other = uid('other');
    await expectResult(await put(cdPath(id), cd(other)), 400);
    await expectResult(await get(cdPath(other)), 404);
    const absent = uid('absent');
    await expectResult(await put(cdPath(absent), cd(absent)), 404);
    await expectResult(await get(cdPath(absent)), 404);
    expect(await json(get(cdPath(id)))).toEqual(cd(id));
  });

  it('refuses invalid concept descriptions with 400', async () => {
    const id = uid('bad');
    const bad = [
      { modelType: 'ConceptDescription' },
      { modelType: 'Submodel', id },
      cd(id, { isCaseOf: [] }),
      cd(id, { idShort: '1nvalid' }),
      cd(id, { unknownAttribute: true }),
      // IEC 61360 content needs a preferred name in English (AASc-3a-002).
      cd(id, {
        embeddedDataSpecifications: [
          { dataSpecification: IEC61360, dataSpecificationContent: { modelType: 'DataSpecificationIec61360', preferredName: [{ language: 'de', text: 'Spannung' }], definition: [{ language: 'en', text: 'x' }], dataType: 'REAL_MEASURE' } },
        ],
      }),
    ];
    for (const body of bad) await expectResult(await post('/concept-descriptions', body), 400);
    await expectResult(await get(cdPath(id)), 404);
    const good = uid('good');
    expect((await post('/concept-descriptions', cd(good))).status).toBe(201);
    await expectResult(await put(cdPath(good), cd(good, { isCaseOf: [] })), 400);
    expect(await json(get(cdPath(good)))).toEqual(cd(good));
  });

  it('rejects bad identifiers in the path', async () => {
    await expectResult(await get('/concept-descriptions/not*base64'), 400);
    await expectResult(await get(`/concept-descriptions/${Buffer.from('a\u0000b').toString('base64url')}`), 400);
  });
});

describe('listing concept descriptions', () => {
  let listApi: string;
  const L = client(() => listApi);
  const docs: Json[] = [
    cd('urn:cd:0', { isCaseOf: [CASE_A], embeddedDataSpecifications: [iec61360(IEC61360, 'Voltage')] }),
    cd('urn:cd:1', { idShort: 'Current', isCaseOf: [CASE_B, CASE_A], embeddedDataSpecifications: [iec61360(IEC61360, 'Current')] }),
    cd('urn:cd:2', { embeddedDataSpecifications: [iec61360(OTHER_SPEC, 'Voltage')] }),
    cd('urn:cd:3', { idShort: 'Plain' }),
    cd('urn:cd:4', { idShort: 'Power', isCaseOf: [CASE_B], embeddedDataSpecifications: [iec61360(IEC61360, 'Power'), iec61360(OTHER_SPEC, 'Power')] }),
  ];
  beforeAll(async () => {
    listApi = server.api((await server.createTenant()).name);
    for (const doc of docs) {
      const res = await L.post('/concept-descriptions', doc);
      expect(res.status, JSON.stringify(await json(res.clone()))).toBe(201);
    }
  });
  const enc = (ref: unknown) => Buffer.from(JSON.stringify(ref)).toString('base64url');
  const ids = async (query: string) => {
    const res = await L.get(`/concept-descriptions${query}`);
    expect(res.status, query).toBe(200);
    const body = await json(res);
    expect(body.paging_metadata, query).toEqual({});
    return (body.result as Json[]).map((d) => d.id);
  };

  it('lists all of them, as stored', async () => {
    expect(await json(L.get('/concept-descriptions'))).toEqual({ paging_metadata: {}, result: docs });
  });

  it('filters by idShort', async () => {
    expect(await ids('?idShort=Voltage')).toEqual(['urn:cd:0', 'urn:cd:2']);
    expect(await ids('?idShort=Power')).toEqual(['urn:cd:4']);
    expect(await ids('?idShort=voltage')).toEqual([]);
  });

  it('filters by isCaseOf: concept descriptions whose isCaseOf contains that reference', async () => {
    expect(await ids(`?isCaseOf=${enc(CASE_A)}`)).toEqual(['urn:cd:0', 'urn:cd:1']);
    expect(await ids(`?isCaseOf=${enc(CASE_B)}`)).toEqual(['urn:cd:1', 'urn:cd:4']);
    // Same key value, another reference type: no match.
    expect(await ids(`?isCaseOf=${enc({ type: 'ModelReference', keys: [{ type: 'ConceptDescription', value: CASE_A.keys[0].value }] })}`)).toEqual([]);
    expect(await ids(`?isCaseOf=${enc(ext('urn:nothing'))}`)).toEqual([]);
  });

  it('filters by dataSpecificationRef: concept descriptions with an embedded data specification of that reference', async () => {
    expect(await ids(`?dataSpecificationRef=${enc(IEC61360)}`)).toEqual(['urn:cd:0', 'urn:cd:1', 'urn:cd:4']);
    expect(await ids(`?dataSpecificationRef=${enc(OTHER_SPEC)}`)).toEqual(['urn:cd:2', 'urn:cd:4']);
    expect(await ids(`?dataSpecificationRef=${enc(ext('urn:nothing'))}`)).toEqual([]);
  });

  it('combines filters', async () => {
    expect(await ids(`?isCaseOf=${enc(CASE_B)}&dataSpecificationRef=${enc(OTHER_SPEC)}`)).toEqual(['urn:cd:4']);
    expect(await ids(`?idShort=Voltage&dataSpecificationRef=${enc(IEC61360)}`)).toEqual(['urn:cd:0']);
    expect(await ids(`?idShort=Current&isCaseOf=${enc(CASE_A)}&dataSpecificationRef=${enc(IEC61360)}`)).toEqual(['urn:cd:1']);
  });

  it('pages to the end with cursors, the last page without one', async () => {
    for (const limit of [1, 2, 4, 5]) {
      const seen: unknown[] = [];
      let cursor: string | undefined;
      let pages = 0;
      do {
        const res = await L.get(`/concept-descriptions?limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`);
        expect(res.status).toBe(200);
        const body = await json(res);
        expect(body.result.length).toBeLessThanOrEqual(limit);
        seen.push(...body.result);
        cursor = body.paging_metadata.cursor;
        if (!cursor) expect(body.paging_metadata).toEqual({});
        pages++;
      } while (cursor && pages < 10);
      expect(pages, `limit ${limit}`).toBe(Math.ceil(docs.length / limit));
      expect(seen).toEqual(docs);
    }
    // A filtered list pages too.
    const first = await json(L.get(`/concept-descriptions?dataSpecificationRef=${enc(IEC61360)}&limit=2`));
    expect(first.result.map((d: Json) => d.id)).toEqual(['urn:cd:0', 'urn:cd:1']);
    const second = await json(L.get(`/concept-descriptions?dataSpecificationRef=${enc(IEC61360)}&limit=2&cursor=${first.paging_metadata.cursor}`));
    expect(second).toEqual({ paging_metadata: {}, result: [docs[4]] });
  });

  it('rejects bad paging and filter parameters with 400', async () => {
    const submodelsCursor = Buffer.from('["submodels",1]').toString('base64url');
    const bad = [
      '?limit=0',
      '?limit=251',
      '?limit=two',
      '?cursor=forged',
      `?cursor=${submodelsCursor}`,
      `?isCaseOf=${Buffer.from('urn:not-a-reference').toString('base64url')}`,
      `?isCaseOf=${enc({ type: 'ExternalReference' })}`,
      `?dataSpecificationRef=${enc([IEC61360])}`,
      '?dataSpecificationRef=***',
      '?idShort=a&idShort=b',
      '?level=core',
      '?extent=withBlobValue',
    ];
    for (const query of bad) {
      const res = await L.get(`/concept-descriptions${query}`);
      expect(res.status, query).toBe(400);
      await expectResult(res, 400);
    }
  });
});
