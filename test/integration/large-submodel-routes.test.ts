import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { TenantEntity } from '../../src/management/tenants/tenant.entity';
import { statusOfCode } from '../../src/graphql/errors';
import { firstDifference } from '../support/json-difference';
import { TestServer, b64, startTestServer } from '../support/server';

/**
 * Every element route on a submodel of 10,000 elements (9,000 top-level Properties, a list of 500 Properties, a
 * collection of 500), over REST and GraphQL: reading an element, POST at the top level and into the collection
 * and the list, PUT, PATCH, PATCH $metadata, PATCH $value, DELETE (a top-level element; a list item in the middle,
 * after which the following items are one index down), and the attachment of a File element. Every write is
 * first sent with a stale If-Match (412, nothing changes), then with the current ETag; the ETag changes with
 * each write, and the whole document read afterwards equals the expected tree. No timing is asserted.
 */

type Json = Record<string, unknown>;

const TOP = 9_000;
const ITEMS = 500;
const CHILDREN = 500;

let server: TestServer;
let tenant: TenantEntity;
let api: string;

const prop = (idShort: string | undefined, valueType: string, value: string): Json => ({
  modelType: 'Property',
  ...(idShort === undefined ? {} : { idShort }),
  valueType,
  value,
});

function largeSubmodel(id: string): Json {
  return {
    modelType: 'Submodel',
    id,
    idShort: 'Large',
    submodelElements: [
      ...Array.from({ length: TOP }, (_, i) => prop(`P${i}`, 'xs:int', String(i))),
      {
        modelType: 'SubmodelElementList',
        idShort: 'List',
        typeValueListElement: 'Property',
        valueTypeListElement: 'xs:int',
        value: Array.from({ length: ITEMS }, (_, i) => prop(undefined, 'xs:int', String(1_000_000 + i))),
      },
      {
        modelType: 'SubmodelElementCollection',
        idShort: 'Coll',
        value: Array.from({ length: CHILDREN }, (_, i) => prop(`C${i}`, 'xs:string', `child ${i}`)),
      },
      { modelType: 'File', idShort: 'Manual', contentType: 'application/pdf' },
    ],
  };
}

beforeAll(async () => {
  server = await startTestServer(inject('databaseUrl'));
  tenant = await server.createTenant();
  api = server.api(tenant.name);
});
afterAll(() => server?.close());

/** The expected tree's parts, to change them as the writes do. */
const top = (doc: Json) => doc.submodelElements as Json[];
const named = (doc: Json, idShort: string) => top(doc).find((e) => e.idShort === idShort)!;
const listItems = (doc: Json) => named(doc, 'List').value as Json[];
const collChildren = (doc: Json) => named(doc, 'Coll').value as Json[];

const elementUrl = (id: string, path: string | null, suffix = '') =>
  `${api}/submodels/${b64(id)}/submodel-elements${path === null ? '' : `/${encodeURIComponent(path)}`}${suffix}`;

/** The outcome of a write, REST or GraphQL alike: the HTTP status (a GraphQL error's mapped), the ETag it gave. */
interface Written {
  status: number;
  etag?: string | null;
  body?: unknown;
  location?: string | null;
  errors?: unknown;
}

type Write = (ifMatch: string | null) => Promise<Written>;

function rest(method: string, url: string, body?: unknown): Write {
  return async (ifMatch) => {
    const headers: Record<string, string> = {};
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (ifMatch !== null) headers['if-match'] = ifMatch;
    const res = await fetch(url, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    return { status: res.status, etag: res.headers.get('etag'), body: text ? JSON.parse(text) : undefined, location: res.headers.get('location') };
  };
}

async function graphql(query: string, variables: Json): Promise<{ data?: Json; status: number; errors?: unknown }> {
  const res = await fetch(`${server.url}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query, variables }) });
  const answer = (await res.json()) as { data?: Json; errors?: { extensions?: { code?: string } }[] };
  if (answer.errors?.length) return { status: statusOfCode(answer.errors[0].extensions?.code), errors: answer.errors };
  return { status: 200, data: answer.data };
}

/** A GraphQL element mutation as a write: `field` is the mutation, `args` its arguments besides tenant, submodel, If-Match. */
function mutation(field: string, args: Json, selection = '{ etag }'): Write {
  // createSubmodelElement's idShortPath is optional (none: the top level).
  const types = field === 'createSubmodelElement' ? { ...ARG_TYPES, idShortPath: 'String' } : ARG_TYPES;
  const declared = Object.keys(args).map((name) => `$${name}: ${types[name]}`);
  const passed = Object.keys(args).map((name) => `${name}: $${name}`);
  const query = `mutation W($tenant: String!, $submodelId: String!, $ifMatch: String${declared.map((d) => `, ${d}`).join('')}) {
    ${field}(tenant: $tenant, submodelId: $submodelId, ifMatch: $ifMatch${passed.map((p) => `, ${p}`).join('')}) ${selection} }`;
  return async (ifMatch) => {
    const answer = await graphql(query, { tenant: tenant.name, submodelId: currentId, ifMatch, ...args });
    const result = answer.data?.[field] as Json | boolean | undefined;
    return { status: answer.status, etag: typeof result === 'object' ? (result.etag as string) : undefined, body: result, errors: answer.errors };
  };
}

const ARG_TYPES: Record<string, string> = {
  idShortPath: 'String!',
  element: 'JSONObject!',
  metadata: 'JSONObject!',
  value: 'JSON',
};

let currentId = '';

async function readDocument(id: string): Promise<{ doc: Json; etag: string }> {
  const res = await fetch(`${api}/submodels/${b64(id)}?extent=withBlobValue`);
  expect(res.status).toBe(200);
  return { doc: (await res.json()) as Json, etag: res.headers.get('etag')! };
}

async function expectDocument(id: string, expected: Json): Promise<string> {
  const { doc, etag } = await readDocument(id);
  const difference = firstDifference(doc, expected);
  expect(difference, 'GET /submodels/{id} equals the expected tree').toBeUndefined();
  return etag;
}

async function readElement(id: string, path: string): Promise<{ element: Json; etag: string | null }> {
  const res = await fetch(`${elementUrl(id, path)}?extent=withBlobValue`);
  expect(res.status, `GET ${path}`).toBe(200);
  return { element: (await res.json()) as Json, etag: res.headers.get('etag') };
}

async function graphqlElement(id: string, path: string): Promise<{ element: Json; etag: string }> {
  const answer = await graphql(
    `query E($tenant: String!, $id: String!, $path: String!) {
      submodelElement(tenant: $tenant, submodelId: $id, idShortPath: $path, extent: WithBLOBValue) { etag element { json } } }`,
    { tenant: tenant.name, id, path },
  );
  expect(answer.errors, JSON.stringify(answer.errors)).toBeUndefined();
  const found = answer.data!.submodelElement as { etag: string; element: { json: Json } };
  return { element: found.element.json, etag: found.etag };
}

/**
 * One submodel of 10,000 elements and the ETags of its writes: `write` sends a write with the ETag before the
 * previous write (412, nothing changes), then with the current one, applies `change` to the expected tree and
 * compares the whole document.
 */
async function largeSubmodelSession(id: string) {
  currentId = id;
  const created = await fetch(`${api}/submodels`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(largeSubmodel(id)) });
  expect(created.status, await created.clone().text()).toBe(201);
  const expected = largeSubmodel(id);
  let etag = await expectDocument(id, expected);
  let stale: string | null = null;
  const figures: string[] = [];

  async function write(
    label: string,
    send: Write,
    status: number,
    change: (doc: Json, answer: Written) => void | Promise<void>,
  ): Promise<Written> {
    if (stale !== null) {
      const refused = await send(stale);
      expect(refused.status, `${label} with a stale If-Match: ${JSON.stringify(refused.errors ?? refused.body)?.slice(0, 500)}`).toBe(412);
      expect(await expectDocument(id, expected), `${label}: a refused write keeps the ETag`).toBe(etag);
    }
    const started = performance.now();
    const answer = await send(etag);
    const elapsed = performance.now() - started;
    expect(answer.status, `${label}: ${JSON.stringify(answer.body ?? answer.errors)?.slice(0, 500)}`).toBe(status);
    await change(expected, answer);
    const next = await expectDocument(id, expected);
    expect(next, `${label} changes the ETag`).not.toBe(etag);
    if (answer.etag) expect(answer.etag, `${label} answers the new ETag`).toBe(next);
    figures.push(`${label}: ${Math.round(elapsed)} ms`);
    stale = etag;
    etag = next;
    return answer;
  }

  return { expected, write, figures, etag: () => etag };
}

/** Reads of single elements (top level, in the collection, in the list) answer them with the submodel's ETag. */
async function expectSingleReads(
  id: string,
  session: Awaited<ReturnType<typeof largeSubmodelSession>>,
  read: (id: string, path: string) => Promise<{ element: Json; etag: string | null }>,
): Promise<void> {
  const { expected } = session;
  for (const [path, element] of [
    ['P4500', named(expected, 'P4500')],
    ['Coll.C250', collChildren(expected)[250]],
    ['List[250]', listItems(expected)[250]],
  ] as [string, Json][]) {
    const found = await read(id, path);
    expect(found.element).toEqual(element);
    expect(found.etag).toBe(session.etag());
  }
}

describe('element routes on a submodel of 10,000 elements', () => {
  it('REST: GET element, POST (top level, collection, list), PUT, PATCH, $metadata, $value, DELETE (top level, list middle), attachment', async () => {
    const id = 'urn:large:rest';
    const session = await largeSubmodelSession(id);
    const { expected, write, figures } = session;

    await expectSingleReads(id, session, readElement);

    // A first write without If-Match, so that the ones after it have a stale ETag to be refused with.
    await write('PATCH $value P0', rest('PATCH', elementUrl(id, 'P0', '/$value'), 77), 204, (doc) => {
      named(doc, 'P0').value = '77';
    });

    const posted = prop('NewTop', 'xs:string', 'appended');
    await write('POST top level', rest('POST', elementUrl(id, null), posted), 201, (doc, answer) => {
      top(doc).push(posted);
      expect(answer.body).toEqual(posted);
      expect(answer.location).toBe(elementUrl(id, 'NewTop'));
    });
    const child = prop('NewChild', 'xs:string', 'in the collection');
    await write('POST into the collection', rest('POST', elementUrl(id, 'Coll'), child), 201, (doc, answer) => {
      collChildren(doc).push(child);
      expect(answer.location).toBe(elementUrl(id, 'Coll.NewChild'));
    });
    const item = prop(undefined, 'xs:int', '2000000');
    await write('POST into the list', rest('POST', elementUrl(id, 'List'), item), 201, (doc, answer) => {
      listItems(doc).push(item);
      expect(answer.location).toBe(elementUrl(id, `List[${ITEMS}]`));
    });
    expect((await readElement(id, `List[${ITEMS}]`)).element).toEqual(item);

    const replaced = { ...prop('P100', 'xs:string', 'replaced'), description: [{ language: 'en', text: 'put' }] };
    await write('PUT P100', rest('PUT', elementUrl(id, 'P100'), replaced), 204, (doc) => {
      top(doc)[100] = replaced;
    });
    await write('PATCH P200', rest('PATCH', elementUrl(id, 'P200'), prop('P200', 'xs:int', '-200')), 204, (doc) => {
      named(doc, 'P200').value = '-200';
    });
    await write('PATCH $metadata Coll.C10', rest('PATCH', elementUrl(id, 'Coll.C10', '/$metadata'), { category: 'PARAMETER' }), 204, (doc) => {
      collChildren(doc)[10].category = 'PARAMETER';
    });
    await write('PATCH $value List[10]', rest('PATCH', elementUrl(id, 'List[10]', '/$value'), 4242), 204, (doc) => {
      listItems(doc)[10].value = '4242';
    });
    await write('DELETE P400', rest('DELETE', elementUrl(id, 'P400')), 204, (doc) => {
      top(doc).splice(400, 1);
    });
    expect((await fetch(elementUrl(id, 'P400'))).status).toBe(404);

    const following = (await readElement(id, 'List[251]')).element;
    await write('DELETE List[250]', rest('DELETE', elementUrl(id, 'List[250]')), 204, (doc) => {
      listItems(doc).splice(250, 1);
    });
    expect((await readElement(id, 'List[250]')).element, 'List[250] now holds what List[251] held').toEqual(following);
    expect(listItems(expected)).toHaveLength(ITEMS);

    // The attachment of a File element: stored as a file, the element points at it.
    const form = new FormData();
    form.append('file', new Blob(['%PDF-large'], { type: 'application/pdf' }), 'manual.pdf');
    await write(
      'PUT attachment Manual',
      async (ifMatch) => ({ status: (await fetch(elementUrl(id, 'Manual', '/attachment'), { method: 'PUT', body: form, headers: ifMatch ? { 'if-match': ifMatch } : {} })).status }),
      204,
      async (doc) => {
        const stored = (await readElement(id, 'Manual')).element;
        expect(stored).toMatchObject({ modelType: 'File', idShort: 'Manual', contentType: 'application/pdf', value: expect.any(String) });
        named(doc, 'Manual').value = stored.value;
      },
    );
    expect(await (await fetch(elementUrl(id, 'Manual', '/attachment'))).text()).toBe('%PDF-large');

    console.log(`REST on ${TOP + ITEMS + CHILDREN + 3} elements:\n${figures.join('\n')}`);
  }, 600_000);

  it('GraphQL: submodelElement, createSubmodelElement (top level, collection, list), replace, patch, metadata, value, delete (top level, list middle)', async () => {
    const id = 'urn:large:graphql';
    const session = await largeSubmodelSession(id);
    const { write, figures } = session;

    await expectSingleReads(id, session, graphqlElement);

    await write('patchSubmodelElementValue P0', mutation('patchSubmodelElementValue', { idShortPath: 'P0', value: '77' }), 200, (doc) => {
      named(doc, 'P0').value = '77';
    });
    const created = '{ idShortPath etag element { json } }';
    const posted = prop('NewTop', 'xs:string', 'appended');
    await write('createSubmodelElement top level', mutation('createSubmodelElement', { idShortPath: null, element: posted }, created), 200, (doc, answer) => {
      top(doc).push(posted);
      expect(answer.body).toMatchObject({ idShortPath: 'NewTop', element: { json: posted } });
    });
    const child = prop('NewChild', 'xs:string', 'in the collection');
    await write('createSubmodelElement into the collection', mutation('createSubmodelElement', { idShortPath: 'Coll', element: child }, created), 200, (doc, answer) => {
      collChildren(doc).push(child);
      expect(answer.body).toMatchObject({ idShortPath: 'Coll.NewChild' });
    });
    const item = prop(undefined, 'xs:int', '2000000');
    await write('createSubmodelElement into the list', mutation('createSubmodelElement', { idShortPath: 'List', element: item }, created), 200, (doc, answer) => {
      listItems(doc).push(item);
      expect(answer.body).toMatchObject({ idShortPath: `List[${ITEMS}]` });
    });
    const replaced = prop('P100', 'xs:string', 'replaced');
    await write('replaceSubmodelElement P100', mutation('replaceSubmodelElement', { idShortPath: 'P100', element: replaced }), 200, (doc) => {
      top(doc)[100] = replaced;
    });
    await write('patchSubmodelElement P200', mutation('patchSubmodelElement', { idShortPath: 'P200', element: prop('P200', 'xs:int', '-200') }), 200, (doc) => {
      named(doc, 'P200').value = '-200';
    });
    await write(
      'patchSubmodelElementMetadata Coll.C10',
      mutation('patchSubmodelElementMetadata', { idShortPath: 'Coll.C10', metadata: { description: [{ language: 'en', text: 'ten' }] } }),
      200,
      (doc) => {
        collChildren(doc)[10].description = [{ language: 'en', text: 'ten' }];
      },
    );
    await write('patchSubmodelElementValue List[10]', mutation('patchSubmodelElementValue', { idShortPath: 'List[10]', value: 4242 }), 200, (doc) => {
      listItems(doc)[10].value = '4242';
    });
    await write('deleteSubmodelElement P400', mutation('deleteSubmodelElement', { idShortPath: 'P400' }, ''), 200, (doc) => {
      top(doc).splice(400, 1);
    });
    const following = (await graphqlElement(id, 'List[251]')).element;
    await write('deleteSubmodelElement List[250]', mutation('deleteSubmodelElement', { idShortPath: 'List[250]' }, ''), 200, (doc) => {
      listItems(doc).splice(250, 1);
    });
    expect((await graphqlElement(id, 'List[250]')).element, 'List[250] now holds what List[251] held').toEqual(following);

    console.log(`GraphQL on ${TOP + ITEMS + CHILDREN + 3} elements:\n${figures.join('\n')}`);
  }, 600_000);

  // The optional idShortPath left out (rather than null): the top level, not a 500.
  it('GraphQL: createSubmodelElement without idShortPath adds the element at the top level', async () => {
    const id = 'urn:large:graphql-top-level';
    const small = { modelType: 'Submodel', id, submodelElements: [prop('A', 'xs:int', '1')] };
    expect((await fetch(`${api}/submodels`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(small) })).status).toBe(201);
    const answer = await graphql(
      `mutation C($tenant: String!, $id: String!, $element: JSONObject!) {
        createSubmodelElement(tenant: $tenant, submodelId: $id, element: $element) { idShortPath } }`,
      { tenant: tenant.name, id, element: prop('B', 'xs:int', '2') },
    );
    expect(answer.errors, JSON.stringify(answer.errors)).toBeUndefined();
    expect(answer.data).toEqual({ createSubmodelElement: { idShortPath: 'B' } });
    await expectDocument(id, { ...small, submodelElements: [prop('A', 'xs:int', '1'), prop('B', 'xs:int', '2')] });
  });
});
