import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { TestServer, b64, json, sampleShell, startTestServer } from '../support/server';

let server: TestServer;
let api: string;

const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${api}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
const put = (path: string, body: unknown) =>
  fetch(`${api}${path}`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

beforeAll(async () => {
  server = await startTestServer(inject('databaseUrl'));
  api = server.api((await server.createTenant()).name);
});
afterAll(() => server?.close());

describe('shell repository', () => {
  it('creates with 201 and Location, reads, replaces, deletes', async () => {
    const shell = sampleShell('urn:test:crud');
    const created = await post('/shells', shell);
    expect(created.status).toBe(201);
    expect(created.headers.get('location')).toBe(`${api}/shells/${b64('urn:test:crud')}`);
    expect(await json(created)).toEqual(shell);

    const got = await fetch(`${api}/shells/${b64('urn:test:crud')}`);
    expect(got.status).toBe(200);
    expect(await json(got)).toEqual(shell);

    const changed = { ...shell, idShort: 'Changed' };
    expect((await put(`/shells/${b64('urn:test:crud')}`, changed)).status).toBe(204);
    expect(await json(fetch(`${api}/shells/${b64('urn:test:crud')}`))).toEqual(changed);

    expect((await fetch(`${api}/shells/${b64('urn:test:crud')}`, { method: 'DELETE' })).status).toBe(204);
    expect((await fetch(`${api}/shells/${b64('urn:test:crud')}`)).status).toBe(404);
    expect((await fetch(`${api}/shells/${b64('urn:test:crud')}`, { method: 'DELETE' })).status).toBe(404);
  });

  it('answers 409 on a duplicate id and keeps the first', async () => {
    expect((await post('/shells', sampleShell('urn:test:dup'))).status).toBe(201);
    const again = await post('/shells', sampleShell('urn:test:dup', { idShort: 'Second' }));
    expect(again.status).toBe(409);
    const body = await json(again);
    expect(body.messages[0]).toMatchObject({ code: '409', messageType: 'Error' });
    expect((await json(fetch(`${api}/shells/${b64('urn:test:dup')}`))).idShort).toBe('Sample');
  });

  it('accepts identifiers with and without base64url padding', async () => {
    const id = 'urn:test:pad1'; // base64url needs padding for this length
    await post('/shells', sampleShell(id));
    const padded = Buffer.from(id).toString('base64').replace(/\+/g, '-').replace(/\//g, '_');
    expect(padded.endsWith('=')).toBe(true);
    expect((await fetch(`${api}/shells/${padded}`)).status).toBe(200);
    expect((await fetch(`${api}/shells/${b64(id)}`)).status).toBe(200);
  });

  it('rejects a PUT whose body id differs from the path, and a PUT of an absent shell', async () => {
    await post('/shells', sampleShell('urn:test:put'));
    expect((await put(`/shells/${b64('urn:test:put')}`, sampleShell('urn:test:other'))).status).toBe(400);
    expect((await put(`/shells/${b64('urn:test:absent')}`, sampleShell('urn:test:absent'))).status).toBe(404);
  });

  it('reads and replaces the asset information', async () => {
    await post('/shells', sampleShell('urn:test:ai'));
    const path = `/shells/${b64('urn:test:ai')}/asset-information`;
    expect(await json(fetch(`${api}${path}`))).toEqual({ assetKind: 'Instance', globalAssetId: 'urn:test:ai#asset' });
    const info = { assetKind: 'Type', globalAssetId: 'urn:new', specificAssetIds: [{ name: 'serial', value: '7' }] };
    expect((await put(path, info)).status).toBe(204);
    expect(await json(fetch(`${api}${path}`))).toEqual(info);
    // Invalid asset information (AASd-131 needs a global or a specific asset id) changes nothing.
    const bad = await put(path, { assetKind: 'Type' });
    expect(bad.status).toBe(400);
    expect(await json(fetch(`${api}${path}`))).toEqual(info);
  });

  it('adds, pages and removes submodel references', async () => {
    const id = b64('urn:test:refs');
    await post('/shells', sampleShell('urn:test:refs'));
    const ref = (n: number) => ({ type: 'ModelReference', keys: [{ type: 'Submodel', value: `urn:sm:${n}` }] });
    for (let n = 0; n < 5; n++) {
      const added = await post(`/shells/${id}/submodel-refs`, ref(n));
      expect(added.status).toBe(201);
      expect(added.headers.get('location')).toBe(`${api}/shells/${id}/submodel-refs/${b64(`urn:sm:${n}`)}`);
    }
    expect((await post(`/shells/${id}/submodel-refs`, ref(0))).status).toBe(409);
    expect((await post(`/shells/${id}/submodel-refs`, { type: 'ExternalReference', keys: [{ type: 'GlobalReference', value: 'x' }] })).status).toBe(400);

    const seen: unknown[] = [];
    let cursor: string | undefined;
    do {
      const page = await json(fetch(`${api}/shells/${id}/submodel-refs?limit=2${cursor ? `&cursor=${cursor}` : ''}`));
      seen.push(...page.result);
      cursor = page.paging_metadata.cursor;
    } while (cursor);
    expect(seen).toEqual([0, 1, 2, 3, 4].map(ref));

    expect((await fetch(`${api}/shells/${id}/submodel-refs/${b64('urn:sm:2')}`, { method: 'DELETE' })).status).toBe(204);
    expect((await fetch(`${api}/shells/${id}/submodel-refs/${b64('urn:sm:2')}`, { method: 'DELETE' })).status).toBe(404);
    const all = await json(fetch(`${api}/shells/${id}/submodel-refs`));
    expect(all.result).toEqual([0, 1, 3, 4].map(ref));
    expect(all.paging_metadata).toEqual({});
  });

  it('returns references to a shell and to all shells', async () => {
    await post('/shells', sampleShell('urn:test:refof'));
    const one = await json(fetch(`${api}/shells/${b64('urn:test:refof')}/$reference`));
    expect(one).toEqual({ type: 'ModelReference', keys: [{ type: 'AssetAdministrationShell', value: 'urn:test:refof' }] });
    const all = await json(fetch(`${api}/shells/$reference?limit=250`));
    expect(all.result).toContainEqual(one);
  });

  it('describes its profiles', async () => {
    const body = await json(fetch(`${api}/description`));
    expect(body.profiles).toContain('https://admin-shell.io/aas/API/3/0/AssetAdministrationShellRepositoryServiceSpecification/SSP-001');
  });
});

describe('listing shells', () => {
  let listApi: string;
  beforeAll(async () => {
    listApi = server.api((await server.createTenant()).name);
    for (let n = 0; n < 7; n++) {
      const kind = n % 2 === 0 ? 'Instance' : 'Type';
      const shell = sampleShell(`urn:list:${n}`, {
        idShort: n < 3 ? 'Pump' : 'Valve',
        assetInformation: { assetKind: kind, globalAssetId: `urn:asset:${n}`, specificAssetIds: [{ name: 'serial', value: `S${n % 3}` }] },
      });
      await fetch(`${listApi}/shells`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(shell) });
    }
  });
  const ids = async (query: string) => {
    const res = await fetch(`${listApi}/shells${query}`);
    expect(res.status).toBe(200);
    return ((await json(res)).result as { id: string }[]).map((s) => s.id);
  };
  const assetId = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');

  it('pages through every shell in insertion order, without a cursor on the last page', async () => {
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const res = await json(fetch(`${listApi}/shells?limit=3${cursor ? `&cursor=${cursor}` : ''}`));
      seen.push(...res.result.map((s: { id: string }) => s.id));
      cursor = res.paging_metadata.cursor;
      pages++;
    } while (cursor);
    expect(pages).toBe(3);
    expect(seen).toEqual([0, 1, 2, 3, 4, 5, 6].map((n) => `urn:list:${n}`));
  });

  it('filters by idShort, assetKind and assetIds', async () => {
    expect(await ids('?idShort=Pump')).toEqual(['urn:list:0', 'urn:list:1', 'urn:list:2']);
    expect(await ids('?assetKind=Type')).toEqual(['urn:list:1', 'urn:list:3', 'urn:list:5']);
    expect(await ids('?assetKind=Instance&idShort=Valve')).toEqual(['urn:list:4', 'urn:list:6']);
    expect(await ids(`?assetIds=${assetId({ name: 'serial', value: 'S1' })}`)).toEqual(['urn:list:1', 'urn:list:4']);
    expect(await ids(`?assetIds=${assetId({ name: 'globalAssetId', value: 'urn:asset:4' })}`)).toEqual(['urn:list:4']);
    // Several asset ids: a shell must carry all of them.
    expect(
      await ids(`?assetIds=${assetId({ name: 'serial', value: 'S1' })}&assetIds=${assetId({ name: 'globalAssetId', value: 'urn:asset:1' })}`),
    ).toEqual(['urn:list:1']);
    expect(await ids('?idShort=Nothing')).toEqual([]);
  });

  it('rejects bad paging and filter parameters with 400 and a Result', async () => {
    const bad = [
      '?limit=0',
      '?limit=251',
      '?limit=abc',
      '?limit=-1',
      '?limit=1.5',
      '?limit=1&limit=2',
      '?cursor=forged',
      `?cursor=${Buffer.from('["shells","x"]').toString('base64url')}`,
      `?cursor=${Buffer.from('["submodel-refs",1]').toString('base64url')}`,
      '?assetKind=NotApplicable',
      '?assetKind=instance',
      '?assetIds=notbase64!',
      `?assetIds=${Buffer.from('just-a-value').toString('base64url')}`,
      `?assetIds=${assetId({ name: 'serial' })}`,
    ];
    for (const query of bad) {
      const res = await fetch(`${listApi}/shells${query}`);
      expect(res.status, query).toBe(400);
      const body = await json(res);
      expect(body.messages[0].code, query).toBe('400');
      expect(body.messages[0].messageType).toBe('Error');
    }
  });
});

describe('paging submodel references while they change', () => {
  it('resumes after the last reference seen, even when earlier ones were removed', async () => {
    const id = b64('urn:test:refs-change');
    await post('/shells', sampleShell('urn:test:refs-change'));
    const ref = (n: string) => ({ type: 'ModelReference', keys: [{ type: 'Submodel', value: `urn:sm:${n}` }] });
    for (const n of ['A', 'B', 'C', 'D']) await post(`/shells/${id}/submodel-refs`, ref(n));
    const first = await json(fetch(`${api}/shells/${id}/submodel-refs?limit=2`));
    expect(first.result).toEqual([ref('A'), ref('B')]);
    await fetch(`${api}/shells/${id}/submodel-refs/${b64('urn:sm:A')}`, { method: 'DELETE' });
    const second = await json(fetch(`${api}/shells/${id}/submodel-refs?limit=2&cursor=${first.paging_metadata.cursor}`));
    expect(second.result).toEqual([ref('C'), ref('D')]);
    expect(second.paging_metadata).toEqual({});
  });
});

describe('long identifiers', () => {
  it('stores and finds shells whose 2,000-character id is far larger than a B-tree entry', async () => {
    // Random CJK characters: 3 bytes each in UTF-8 and incompressible, about 6 KB of identifier.
    let seed = 7;
    const id = Array.from({ length: 2000 }, () => String.fromCodePoint(0x4e00 + ((seed = (seed * 48271) % 2147483647) % 20000))).join('');
    const shell = (extra = {}) => sampleShell(id, { assetInformation: { assetKind: 'Instance', globalAssetId: 'urn:long' }, ...extra });
    expect((await post('/shells', shell())).status).toBe(201);
    expect((await post('/shells', shell())).status).toBe(409);
    expect((await json(fetch(`${api}/shells/${b64(id)}`))).id).toBe(id);
    expect((await put(`/shells/${b64(id)}`, shell({ idShort: 'Long' }))).status).toBe(204);
    expect((await fetch(`${api}/shells/${b64(id)}`, { method: 'DELETE' })).status).toBe(204);
    expect((await fetch(`${api}/shells/${b64(id)}`)).status).toBe(404);
  });
});
