import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { TestServer, b64, json, sampleShell, startTestServer } from '../support/server';

/**
 * Optimistic concurrency: entity tags on shells, submodels (element routes carry their submodel's tag) and
 * concept descriptions, and `If-Match` on every write, where a stale tag is 412 and changes nothing.
 */

let server: TestServer;
let api: string;

beforeAll(async () => {
  server = await startTestServer(inject('databaseUrl'));
  api = server.api((await server.createTenant()).name);
});
afterAll(() => server?.close());

type Json = Record<string, unknown>;

const send = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
  fetch(`${api}${path}`, {
    method,
    headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
const ifMatch = (tag: string) => ({ 'if-match': tag });

/** A 412 with an AAS Result saying so. */
async function expectPreconditionFailed(res: Response) {
  expect(res.status).toBe(412);
  const body = await json(res);
  expect(body.messages.length).toBeGreaterThan(0);
  expect(body.messages[0]).toMatchObject({ code: '412', messageType: 'Error', correlationId: res.headers.get('x-request-id') });
  expect(body.messages[0].text).toMatch(/If-Match/);
}

const TAG = /^"[^"]+"$/;

/** The resource's current body and tag, read back. */
async function current(path: string): Promise<{ status: number; tag: string | null; body: unknown }> {
  const res = await send('GET', path);
  return { status: res.status, tag: res.headers.get('etag'), body: res.status === 200 ? await json(res) : undefined };
}

let counter = 0;
const uid = (what: string) => `urn:etag:${what}:${++counter}`;

const property = (idShort: string, value: string) => ({ modelType: 'Property', idShort, valueType: 'xs:string', value });

interface Kind {
  name: string;
  collection: string;
  doc(id: string): Json;
}

const kinds: Kind[] = [
  { name: 'shells', collection: '/shells', doc: (id) => sampleShell(id) },
  { name: 'submodels', collection: '/submodels', doc: (id) => ({ modelType: 'Submodel', id, idShort: 'Tagged', submodelElements: [property('P', 'p')] }) },
  { name: 'concept descriptions', collection: '/concept-descriptions', doc: (id) => ({ modelType: 'ConceptDescription', id, idShort: 'Tagged' }) },
];

describe.each(kinds)('entity tags of $name', ({ collection, doc }) => {
  const path = (id: string) => `${collection}/${b64(id)}`;

  async function createOne(id = uid('x')): Promise<{ id: string; tag: string }> {
    const res = await send('POST', collection, doc(id));
    expect(res.status).toBe(201);
    const tag = res.headers.get('etag');
    expect(tag).toMatch(TAG);
    return { id, tag: tag! };
  }

  it('gives an ETag on POST and GET, the same until the resource changes', async () => {
    const { id, tag } = await createOne();
    const got = await current(path(id));
    expect(got.status).toBe(200);
    expect(got.tag).toBe(tag);
    expect((await current(path(id))).tag).toBe(tag);
  });

  it('refuses a PUT with a stale If-Match with 412 and keeps the document', async () => {
    const { id, tag: first } = await createOne();
    const changed = await send('PUT', path(id), { ...doc(id), idShort: 'Second' });
    expect(changed.status).toBe(204);
    const second = changed.headers.get('etag');
    expect(second).toMatch(TAG);
    expect(second).not.toBe(first);

    const before = await current(path(id));
    expect(before.tag).toBe(second);
    await expectPreconditionFailed(await send('PUT', path(id), { ...doc(id), idShort: 'Stale' }, ifMatch(first)));
    await expectPreconditionFailed(await send('PUT', path(id), { ...doc(id), idShort: 'Stale' }, ifMatch('"made-up"')));
    // A weak tag never matches under If-Match's strong comparison.
    await expectPreconditionFailed(await send('PUT', path(id), { ...doc(id), idShort: 'Stale' }, ifMatch(`W/${second}`)));
    expect(await current(path(id))).toEqual(before);
  });

  it('accepts a PUT with the current tag and answers a new, different one', async () => {
    const { id, tag } = await createOne();
    const res = await send('PUT', path(id), { ...doc(id), idShort: 'Current' }, ifMatch(tag));
    expect(res.status).toBe(204);
    const next = res.headers.get('etag');
    expect(next).toMatch(TAG);
    expect(next).not.toBe(tag);
    const after = await current(path(id));
    expect(after.tag).toBe(next);
    expect((after.body as Json).idShort).toBe('Current');

    // One of several listed tags is enough.
    const listed = await send('PUT', path(id), { ...doc(id), idShort: 'Listed' }, ifMatch(`"nope", ${next}`));
    expect(listed.status).toBe(204);
    expect((await current(path(id))).tag).toBe(listed.headers.get('etag'));
  });

  it('accepts If-Match: * for an existing resource; an absent one stays 404', async () => {
    const { id, tag } = await createOne();
    const res = await send('PUT', path(id), { ...doc(id), idShort: 'Star' }, ifMatch('*'));
    expect(res.status).toBe(204);
    expect(res.headers.get('etag')).not.toBe(tag);
    expect(((await current(path(id))).body as Json).idShort).toBe('Star');
    const absent = uid('absent');
    expect((await send('PUT', path(absent), doc(absent), ifMatch('*'))).status).toBe(404);
    expect((await send('DELETE', path(absent), undefined, ifMatch('*'))).status).toBe(404);
  });

  it('keeps the tag when a write is refused for its content', async () => {
    const { id, tag } = await createOne();
    expect((await send('PUT', path(id), { ...doc(id), id: uid('other') }, ifMatch(tag))).status).toBe(400);
    expect((await current(path(id))).tag).toBe(tag);
  });

  it('refuses a DELETE with a stale tag, keeping the resource; deletes with the current one', async () => {
    const { id, tag: first } = await createOne();
    const second = (await send('PUT', path(id), { ...doc(id), idShort: 'Second' })).headers.get('etag')!;
    await expectPreconditionFailed(await send('DELETE', path(id), undefined, ifMatch(first)));
    const still = await current(path(id));
    expect(still.status).toBe(200);
    expect(still.tag).toBe(second);
    expect((await send('DELETE', path(id), undefined, ifMatch(second))).status).toBe(204);
    expect((await current(path(id))).status).toBe(404);
  });

  it('never matches a tag of a deleted and re-created resource', async () => {
    const { id, tag: old } = await createOne();
    expect((await send('DELETE', path(id))).status).toBe(204);
    const { tag: fresh } = await createOne(id);
    expect(fresh).not.toBe(old);
    await expectPreconditionFailed(await send('PUT', path(id), { ...doc(id), idShort: 'Old' }, ifMatch(old)));
    await expectPreconditionFailed(await send('DELETE', path(id), undefined, ifMatch(old)));
    expect((await current(path(id))).tag).toBe(fresh);
    expect((await send('PUT', path(id), { ...doc(id), idShort: 'Fresh' }, ifMatch(fresh))).status).toBe(204);
  });
});

describe('entity tags of shell parts', () => {
  it('asset information and submodel references take the shell\'s tag', async () => {
    const id = uid('shell');
    const tag = (await send('POST', '/shells', sampleShell(id))).headers.get('etag')!;
    const shell = `/shells/${b64(id)}`;
    const info = await current(`${shell}/asset-information`);
    expect(info.tag).toBe(tag);

    const changed = await send('PUT', `${shell}/asset-information`, { assetKind: 'Type', globalAssetId: 'urn:g' }, ifMatch(tag));
    expect(changed.status).toBe(204);
    const next = changed.headers.get('etag')!;
    expect(next).not.toBe(tag);
    await expectPreconditionFailed(await send('PUT', `${shell}/asset-information`, { assetKind: 'Instance', globalAssetId: 'urn:h' }, ifMatch(tag)));
    expect((await current(`${shell}/asset-information`)).body).toEqual({ assetKind: 'Type', globalAssetId: 'urn:g' });

    const ref = { type: 'ModelReference', keys: [{ type: 'Submodel', value: 'urn:etag:ref' }] };
    await expectPreconditionFailed(await send('POST', `${shell}/submodel-refs`, ref, ifMatch(tag)));
    expect((await json(send('GET', `${shell}/submodel-refs`))).result).toEqual([]);
    expect((await send('POST', `${shell}/submodel-refs`, ref, ifMatch(next))).status).toBe(201);
    await expectPreconditionFailed(await send('DELETE', `${shell}/submodel-refs/${b64('urn:etag:ref')}`, undefined, ifMatch(next)));
    expect((await json(send('GET', `${shell}/submodel-refs`))).result).toEqual([ref]);
    const latest = (await current(shell)).tag!;
    expect((await send('DELETE', `${shell}/submodel-refs/${b64('urn:etag:ref')}`, undefined, ifMatch(latest))).status).toBe(204);
  });
});

describe('entity tags of submodel parts and elements', () => {
  const sm = (id: string) => `/submodels/${b64(id)}`;
  const el = (id: string, path: string) => `${sm(id)}/submodel-elements/${encodeURIComponent(path)}`;

  async function submodel(): Promise<{ id: string; stale: string; tag: string }> {
    const id = uid('sm');
    const doc = {
      modelType: 'Submodel',
      id,
      idShort: 'Tagged',
      submodelElements: [property('P', 'p'), { modelType: 'SubmodelElementCollection', idShort: 'C', value: [property('Q', 'q')] }],
    };
    const stale = (await send('POST', '/submodels', doc)).headers.get('etag')!;
    // One change makes the creation's tag stale.
    const res = await send('PATCH', `${sm(id)}/$value`, { P: 'p2' });
    expect(res.status).toBe(204);
    const tag = res.headers.get('etag')!;
    expect(tag).not.toBe(stale);
    return { id, stale, tag };
  }

  it('element reads carry the submodel\'s tag; element writes change it', async () => {
    const { id, tag } = await submodel();
    for (const path of [el(id, 'P'), el(id, 'C.Q'), `${el(id, 'C')}/$value`, `${el(id, 'P')}/$metadata`, `${sm(id)}/$value`, `${sm(id)}/$metadata`]) {
      expect((await current(path)).tag, path).toBe(tag);
    }
    const res = await send('PATCH', `${el(id, 'C.Q')}/$value`, 'q2');
    expect(res.status).toBe(204);
    const next = res.headers.get('etag');
    expect(next).toMatch(TAG);
    expect(next).not.toBe(tag);
    expect((await current(sm(id))).tag).toBe(next);
    expect((await current(el(id, 'P'))).tag).toBe(next);
  });

  it('refuses every element write with the submodel\'s stale tag, and changes nothing', async () => {
    const { id, stale, tag } = await submodel();
    const before = await current(`${sm(id)}`);
    const writes: [string, string, unknown][] = [
      ['POST', `${sm(id)}/submodel-elements`, property('N', 'n')],
      ['POST', el(id, 'C'), property('N', 'n')],
      ['PUT', el(id, 'P'), property('P', 'put')],
      ['PATCH', el(id, 'P'), { ...property('P', 'patch'), category: 'VARIABLE' }],
      ['PATCH', `${el(id, 'P')}/$metadata`, { category: 'PARAMETER' }],
      ['PATCH', `${el(id, 'P')}/$value`, 'value'],
      ['PATCH', `${el(id, 'C')}/$value`, { Q: 'value' }],
      ['DELETE', el(id, 'C.Q'), undefined],
      ['DELETE', el(id, 'P'), undefined],
      // and the submodel-level writes
      ['PUT', sm(id), { modelType: 'Submodel', id, idShort: 'Put' }],
      ['PATCH', sm(id), { modelType: 'Submodel', id, idShort: 'Patch' }],
      ['PATCH', `${sm(id)}/$metadata`, { idShort: 'Meta' }],
      ['PATCH', `${sm(id)}/$value`, { P: 'value' }],
      ['DELETE', sm(id), undefined],
    ];
    for (const [method, path, body] of writes) {
      const res = await send(method, path, body, ifMatch(stale));
      expect(res.status, `${method} ${path}`).toBe(412);
      await expectPreconditionFailed(res);
    }
    expect(await current(sm(id))).toEqual(before);
    expect(before.tag).toBe(tag);
  });

  it('accepts each element write with the current tag, each answering the next tag', async () => {
    const { id, tag: first } = await submodel();
    let tag = first;
    const writes: [string, string, unknown, number][] = [
      ['POST', `${sm(id)}/submodel-elements`, property('N', 'n'), 201],
      ['POST', el(id, 'C'), property('R', 'r'), 201],
      ['PUT', el(id, 'N'), property('N', 'put'), 204],
      ['PATCH', el(id, 'N'), { ...property('N', 'patch'), category: 'VARIABLE' }, 204],
      ['PATCH', `${el(id, 'N')}/$metadata`, { category: 'PARAMETER' }, 204],
      ['PATCH', `${el(id, 'N')}/$value`, 'value', 204],
      ['DELETE', el(id, 'C.R'), undefined, 204],
    ];
    const seen = new Set([tag]);
    for (const [method, path, body, status] of writes) {
      const res = await send(method, path, body, ifMatch(tag));
      expect(res.status, `${method} ${path}`).toBe(status);
      const after = (await current(sm(id))).tag!;
      expect(seen.has(after), `${method} ${path} gives a new tag`).toBe(false);
      if (method !== 'DELETE') expect(res.headers.get('etag'), `${method} ${path}`).toBe(after);
      seen.add(after);
      tag = after;
    }
    expect(await json(send('GET', el(id, 'N')))).toEqual({ ...property('N', 'value'), category: 'PARAMETER' });
    expect((await send('GET', el(id, 'C.R'))).status).toBe(404);
    // The first tag is long stale.
    await expectPreconditionFailed(await send('DELETE', el(id, 'N'), undefined, ifMatch(first)));
    expect((await send('DELETE', el(id, 'N'), undefined, ifMatch('*'))).status).toBe(204);
  });

  it('checks the tag through a shell as directly', async () => {
    const { id, stale, tag } = await submodel();
    const shell = uid('shell');
    expect((await send('POST', '/shells', sampleShell(shell, { submodels: [{ type: 'ModelReference', keys: [{ type: 'Submodel', value: id }] }] }))).status).toBe(201);
    const via = `/shells/${b64(shell)}/submodels/${b64(id)}`;
    expect((await current(via)).tag).toBe(tag);
    expect((await current(`${via}/submodel-elements/P`)).tag).toBe(tag);
    await expectPreconditionFailed(await send('PATCH', `${via}/submodel-elements/P/$value`, 'x', ifMatch(stale)));
    await expectPreconditionFailed(await send('POST', `${via}/submodel-elements`, property('N', 'n'), ifMatch(stale)));
    await expectPreconditionFailed(await send('DELETE', via, undefined, ifMatch(stale)));
    expect((await current(sm(id))).tag).toBe(tag);
    // The shell still references it: the refused delete removed nothing.
    expect((await json(send('GET', `/shells/${b64(shell)}`))).submodels).toHaveLength(1);
    expect((await send('PATCH', `${via}/submodel-elements/P/$value`, 'x', ifMatch(tag))).status).toBe(204);
  });

  it('never matches the tag of a deleted and re-created submodel on element writes', async () => {
    const { id, tag: old } = await submodel();
    expect((await send('DELETE', sm(id))).status).toBe(204);
    const created = await send('POST', '/submodels', { modelType: 'Submodel', id, submodelElements: [property('P', 'p')] });
    const fresh = created.headers.get('etag')!;
    expect(fresh).not.toBe(old);
    await expectPreconditionFailed(await send('PATCH', `${el(id, 'P')}/$value`, 'old', ifMatch(old)));
    await expectPreconditionFailed(await send('POST', `${sm(id)}/submodel-elements`, property('N', 'n'), ifMatch(old)));
    expect((await current(sm(id))).tag).toBe(fresh);
    expect((await send('PATCH', `${el(id, 'P')}/$value`, 'fresh', ifMatch(fresh))).status).toBe(204);
  });
});
