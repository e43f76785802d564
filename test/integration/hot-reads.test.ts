import { Writable } from 'node:stream';
import pino from 'pino';
import { type MockInstance, afterAll, afterEach, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import type { TenantEntity } from '../../src/management/tenants/tenant.entity';
import { RoleAssignmentEntity } from '../../src/management/role-assignments/role-assignment.entity';
import { assignRole } from '../support/grants';
import { newServiceAccount } from '../support/identity';
import { TestServer, b64, sampleShell, startTestServer } from '../support/server';

/**
 * Hot reads (rest-facade/hot-reads.ts): a GET by id (from the read cache, else in one statement from the database) or
 * a cached list page is answered before routing and GraphQL, with the same bytes and headers as the route, for callers
 * the route admits, and only then; everything else reaches the route.
 */

const submodel = (id: string) => ({
  modelType: 'Submodel',
  id,
  idShort: 'Hot',
  submodelElements: [{ modelType: 'Property', idShort: 'P', valueType: 'xs:string', value: 'v' }],
});
const conceptDescription = (id: string) => ({ modelType: 'ConceptDescription', id, idShort: 'Hot' });

const KINDS = [
  { collection: 'shells', service: 'shells', list: 'listText', doc: (id: string) => sampleShell(id) },
  { collection: 'submodels', service: 'submodels', list: 'list', doc: submodel },
  { collection: 'concept-descriptions', service: 'conceptDescriptions', list: 'list', doc: conceptDescription },
] as const;

type Read = MockInstance<() => Promise<unknown>>;

const auth = (token?: string): Record<string, string> => (token ? { authorization: `Bearer ${token}` } : {});

/** Status, the headers that do not change between requests, and the body as bytes. */
async function answer(url: string, headers: Record<string, string> = {}, method = 'GET') {
  const res = await fetch(url, { method, headers });
  const kept = [...res.headers].filter(([name]) => !['date', 'x-request-id'].includes(name));
  return { status: res.status, headers: Object.fromEntries(kept), body: await res.text() };
}

describe('hot reads', () => {
  let server: TestServer;
  let tenant: TenantEntity;
  let api: string;
  /** Calls of the routes' reads (GraphQL) and of the hot path's, per kind; and of the routes' list reads. */
  let routeReads: Record<string, Read>;
  let hotReads: Record<string, Read>;
  let routeLists: Record<string, Read>;

  beforeAll(async () => {
    server = await startTestServer(inject('databaseUrl'));
    tenant = await server.createTenant({ showcase: true });
    api = server.api(tenant.name);
  });
  afterAll(() => server?.close());
  afterEach(() => vi.restoreAllMocks());

  const spy = () => {
    const services = server.services as unknown as Record<string, Record<'getText' | 'storedText', () => Promise<unknown>>>;
    routeReads = Object.fromEntries(KINDS.map((k) => [k.collection, vi.spyOn(services[k.service], 'getText')]));
    hotReads = Object.fromEntries(KINDS.map((k) => [k.collection, vi.spyOn(services[k.service], 'storedText')]));
    routeLists = Object.fromEntries(KINDS.map((k) => [k.collection, vi.spyOn(services[k.service] as unknown as Record<string, () => Promise<unknown>>, k.list)]));
  };

  const create = async (base: string, kind: (typeof KINDS)[number], id: string, headers: Record<string, string> = {}) => {
    const res = await fetch(`${base}/${kind.collection}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(kind.doc(id)) });
    expect(res.status, await res.text()).toBe(201);
  };

  it.each(KINDS)('answers a $collection from the database and then from the cache with the bytes and headers of the route, and a write is read at once', async (kind) => {
    const id = `urn:hot:${kind.collection}`;
    await create(api, kind, id);
    const url = `${api}/${kind.collection}/${b64(id)}`;
    spy();
    // Not cached yet: read from the database by the hot path, which caches it.
    const fromDatabase = await answer(url);
    const fromCache = await answer(url);
    expect(hotReads[kind.collection]).toHaveBeenCalledTimes(2);
    expect(routeReads[kind.collection]).not.toHaveBeenCalled();
    // The route's answer, the hot path told to pass.
    hotReads[kind.collection].mockResolvedValueOnce(undefined);
    const fromRoute = await answer(url);
    expect(routeReads[kind.collection]).toHaveBeenCalledTimes(1);
    expect(fromRoute.status).toBe(200);
    expect(fromDatabase).toEqual(fromRoute);
    expect(fromCache).toEqual(fromRoute);
    expect(JSON.parse(fromCache.body).id).toBe(id);

    const changed = { ...kind.doc(id), idShort: 'Changed' };
    const put = await fetch(url, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify(changed) });
    expect(put.status, await put.text()).toBe(204);
    const after = await answer(url);
    expect(JSON.parse(after.body).idShort).toBe('Changed');
    expect(after.headers.etag).not.toBe(fromRoute.headers.etag);
  });

  it.each(KINDS)('answers a cached list of $collection with the bytes and headers of the route; any write of one drops it', async (kind) => {
    const own = server.api((await server.createTenant({ showcase: true })).name);
    const ids = [1, 2, 3].map((n) => `urn:hot:list:${kind.collection}:${n}`);
    for (const id of ids) await create(own, kind, id);
    spy();
    const urls = [`${own}/${kind.collection}`, `${own}/${kind.collection}?limit=2`, `${own}/${kind.collection}?idShort=${kind.doc(ids[0]).idShort}&limit=1`];
    for (const url of urls) {
      const fromRoute = await answer(url);
      expect(fromRoute.status, fromRoute.body).toBe(200);
      const calls = routeLists[kind.collection].mock.calls.length;
      expect(calls).toBeGreaterThan(0);
      const fromCache = await answer(url);
      // Served by the hot path: the route's list did not run again, and the answer is the route's to the byte.
      expect(routeLists[kind.collection]).toHaveBeenCalledTimes(calls);
      expect(fromCache).toEqual(fromRoute);
    }
    const second = JSON.parse((await answer(urls[1])).body);
    expect(second.result.map((doc: { id: string }) => doc.id)).toEqual(ids.slice(0, 2));
    // The next page by its cursor: a query string of its own, cached as well.
    const next = `${urls[1]}&cursor=${second.paging_metadata.cursor}`;
    expect(JSON.parse((await answer(next)).body).result.map((doc: { id: string }) => doc.id)).toEqual([ids[2]]);
    const calls = routeLists[kind.collection].mock.calls.length;
    expect(JSON.parse((await answer(next)).body).result.map((doc: { id: string }) => doc.id)).toEqual([ids[2]]);
    expect(routeLists[kind.collection]).toHaveBeenCalledTimes(calls);

    // A write of the third drops every cached page of the collection in the tenant, also the first page's, which does not list it.
    const put = await fetch(`${own}/${kind.collection}/${b64(ids[2])}`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ...kind.doc(ids[2]), idShort: 'Changed' }),
    });
    expect(put.status, await put.text()).toBe(204);
    const pages = await Promise.all([answer(urls[0]), answer(urls[1]), answer(next)]);
    expect(routeLists[kind.collection]).toHaveBeenCalledTimes(calls + 3);
    expect(JSON.parse(pages[0].body).result.map((doc: { idShort: string }) => doc.idShort)).toEqual([kind.doc(ids[0]).idShort, kind.doc(ids[1]).idShort, 'Changed']);
    expect(JSON.parse(pages[2].body).result.map((doc: { idShort: string }) => doc.idShort)).toEqual(['Changed']);
    // A bad query string is the route's 400 each time, never kept.
    for (let n = 0; n < 2; n++) expect((await answer(`${own}/${kind.collection}?limit=-1`)).status).toBe(400);
    // A write through a larger path (a new one, then its deletion) drops the pages too.
    await create(own, kind, 'urn:hot:list:late');
    expect(JSON.parse((await answer(urls[0])).body).result).toHaveLength(4);
    expect((await fetch(`${own}/${kind.collection}/${b64('urn:hot:list:late')}`, { method: 'DELETE' })).status).toBe(204);
    expect(JSON.parse((await answer(urls[0])).body).result).toHaveLength(3);
  });

  it('leaves to the route: query parameters, other methods, malformed ids, a path below the document, escapes', async () => {
    const id = 'urn:hot:passing';
    await create(api, KINDS[1], id);
    const url = `${api}/submodels/${b64(id)}`;
    await answer(url); // cached now
    spy();
    const passing: [string, string, number][] = [
      [`${url}?level=core`, 'GET', 200],
      [`${url}?extent=withBlobValue`, 'GET', 200],
      [`${url}?level=nonsense`, 'GET', 400],
      [url, 'HEAD', 200],
      [`${url}/`, 'GET', 200],
      [`${url}/$metadata`, 'GET', 200],
      [`${api}/submodels/not*base64`, 'GET', 400],
      [`${api}/submodels/${b64('nul\u0000inside')}`, 'GET', 400],
      [`${api.replace(`/tenants/${tenant.name}/`, `/tenants/${encodeURIComponent(tenant.name).replace(/./, (c) => `%${c.charCodeAt(0).toString(16)}`)}/`)}/submodels/${b64(id)}`, 'GET', 200],
    ];
    for (const [target, method, status] of passing) {
      const res = await answer(target, {}, method);
      expect(res.status, `${method} ${target}: ${res.body}`).toBe(status);
      // None of these is answered by the hot path: it did not look.
      const answered = await Promise.all(hotReads.submodels.mock.results.map((r) => r.value));
      expect(answered.filter((a) => a !== undefined), `${method} ${target}`).toEqual([]);
    }
    // An id of no submodel: the hot path answers the route's 404 itself.
    const absent = await answer(`${api}/submodels/${b64('urn:hot:absent')}`);
    expect(absent.status).toBe(404);
    expect(JSON.parse(absent.body).messages[0]).toMatchObject({ code: '404', messageType: 'Error', text: "Submodel 'urn:hot:absent' not found." });
    expect(await Promise.all(hotReads.submodels.mock.results.map((r) => r.value))).toEqual([{ absent: "Submodel 'urn:hot:absent' not found." }]);
    hotReads.submodels.mockClear();
    // The control: the plain path is answered there.
    expect((await answer(url)).status).toBe(200);
    expect((await Promise.all(hotReads.submodels.mock.results.map((r) => r.value))).filter((a) => a !== undefined)).toHaveLength(1);
  });

  it('admits by the route rule on every request: no token 401, a stranger 404, a member 200 until its role is taken away', async () => {
    const closed = await server.createTenant({ showcase: false });
    const closedApi = server.api(closed.name);
    const member = await newServiceAccount(server, closed.organizationId);
    await assignRole(server, closed.organizationId, { type: 'service-account', id: member.id }, 'contributor', closed.id);
    const token = await member.token();
    const other = await server.createTenant({ showcase: false });
    const stranger = await newServiceAccount(server, other.organizationId);
    await assignRole(server, other.organizationId, { type: 'service-account', id: stranger.id }, 'reader', other.id);
    const strangerToken = await stranger.token();

    for (const kind of KINDS) {
      const id = `urn:hot:closed:${kind.collection}`;
      await create(closedApi, kind, id, auth(token));
      const url = `${closedApi}/${kind.collection}/${b64(id)}`;
      const first = await answer(url, auth(token));
      expect(first.status).toBe(200);
      spy();
      expect(await answer(url, auth(token))).toEqual(first);
      expect(routeReads[kind.collection]).not.toHaveBeenCalled();

      const anonymous = await answer(url);
      expect(anonymous.status).toBe(401);
      expect(anonymous.headers['www-authenticate']).toBe('Bearer realm="asset-platform"');
      expect(JSON.parse(anonymous.body).messages[0].code).toBe('401');
      expect((await answer(url, auth(strangerToken))).status).toBe(404);
      expect((await answer(url, auth('not.a.token'))).status).toBe(401);
      // No answer of these came from the cache.
      expect(hotReads[kind.collection].mock.calls.length).toBe(1);

      // The list likewise: cached for the member, refused to the others.
      const listUrl = `${closedApi}/${kind.collection}`;
      const listed = await answer(listUrl, auth(token));
      expect(listed.status).toBe(200);
      expect(JSON.parse(listed.body).result.map((doc: { id: string }) => doc.id)).toEqual([id]);
      const calls = routeLists[kind.collection].mock.calls.length;
      expect(await answer(listUrl, auth(token))).toEqual(listed);
      expect(routeLists[kind.collection]).toHaveBeenCalledTimes(calls);
      expect((await answer(listUrl)).status).toBe(401);
      expect((await answer(listUrl, auth(strangerToken))).status).toBe(404);
      expect((await answer(listUrl, auth('not.a.token'))).status).toBe(401);
      vi.restoreAllMocks();
    }

    // What the route answers after the hot path looked (a miss, a refusal) verifies the token once, not twice.
    const verify = vi.spyOn(server.services.tokens, 'verify');
    const cached = `${closedApi}/shells/${b64('urn:hot:closed:shells')}`;
    expect((await answer(`${closedApi}/shells/${b64('urn:hot:closed:absent')}`, auth(token))).status).toBe(404);
    expect(verify).toHaveBeenCalledTimes(1);
    expect((await answer(`${closedApi}/shells?limit=1&cursor=bm90LWEtY3Vyc29y`, auth(token))).status).toBe(400);
    expect(verify).toHaveBeenCalledTimes(2);
    expect((await answer(cached, auth(strangerToken))).status).toBe(404);
    expect(verify).toHaveBeenCalledTimes(3);
    expect((await answer(cached, auth(token))).status).toBe(200);
    expect(verify).toHaveBeenCalledTimes(4);
    vi.restoreAllMocks();

    await server.dataSource.manager.delete(RoleAssignmentEntity, { principalId: member.id });
    for (const kind of KINDS) {
      const refused = await answer(`${closedApi}/${kind.collection}/${b64(`urn:hot:closed:${kind.collection}`)}`, auth(token));
      expect(refused.status).toBe(404);
      expect(JSON.parse(refused.body).messages[0].text).toBe(`Tenant '${closed.name}' not found.`);
      expect((await answer(`${closedApi}/${kind.collection}`, auth(token))).status).toBe(404);
    }
  });
});

describe('hot reads answered before Koa', () => {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  let logged: TestServer;
  let cors: TestServer;

  beforeAll(async () => {
    logged = await startTestServer(inject('databaseUrl'), {}, pino({ level: 'info' }, sink));
    cors = await startTestServer(inject('databaseUrl'), { corsOrigins: ['https://app.invalid'] });
  });
  afterAll(async () => {
    await logged?.close();
    await cors?.close();
  });

  const cachedShell = async (on: TestServer) => {
    const api = on.api((await on.createTenant({ showcase: true })).name);
    const id = `urn:hot:edge:${Math.random()}`;
    const res = await fetch(`${api}/shells`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(sampleShell(id)) });
    expect(res.status).toBe(201);
    const url = `${api}/shells/${b64(id)}`;
    expect((await fetch(url)).status).toBe(200);
    return url;
  };

  it('keeps the request id a client sends (a malformed one is replaced), the baseline headers, and logs each hit at info level', async () => {
    const url = await cachedShell(logged);
    const hot = vi.spyOn(logged.services.shells, 'storedText');
    const route = vi.spyOn(logged.services.shells, 'getText');
    const kept = await fetch(url, { headers: { 'x-request-id': 'trace-42.a_b' } });
    const replaced = await fetch(url, { headers: { 'x-request-id': 'not a request id' } });
    const list = await fetch(url.replace(/\/shells\/.*$/, '/shells'));
    expect(route).not.toHaveBeenCalled();
    expect(hot).toHaveBeenCalledTimes(2);
    vi.restoreAllMocks();
    for (const res of [kept, replaced, list]) {
      expect(res.status).toBe(200);
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(res.headers.get('x-frame-options')).toBe('DENY');
      expect(res.headers.get('content-security-policy')).toBe("frame-ancestors 'none'");
      expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    }
    expect(kept.headers.get('x-request-id')).toBe('trace-42.a_b');
    expect(replaced.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    for (const res of [kept, replaced]) {
      const line = lines.find((l) => l.msg === 'request' && l.requestId === res.headers.get('x-request-id'));
      expect(line).toMatchObject({ level: 30, method: 'GET', url: new URL(url).pathname, status: 200, client: '127.0.0.1' });
      expect(typeof line!.ms).toBe('number');
    }
  });

  it.each(KINDS)('answers a $collection from the database with the read cache off, with the bytes and headers of the route', async (kind) => {
    const uncached = await startTestServer(inject('databaseUrl'), { readCache: { maxBytes: 0, ttlMs: 60_000 } });
    try {
      const api = uncached.api((await uncached.createTenant({ showcase: true })).name);
      const id = `urn:hot:uncached:${kind.collection}`;
      const created = await fetch(`${api}/${kind.collection}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(kind.doc(id)) });
      expect(created.status).toBe(201);
      const services = uncached.services as unknown as Record<string, Record<'getText' | 'storedText', () => Promise<unknown>>>;
      const hot = vi.spyOn(services[kind.service], 'storedText');
      const route = vi.spyOn(services[kind.service], 'getText');
      const url = `${api}/${kind.collection}/${b64(id)}`;
      const first = await answer(url);
      const second = await answer(url);
      expect(route).not.toHaveBeenCalled();
      expect(hot).toHaveBeenCalledTimes(2);
      hot.mockResolvedValueOnce(undefined);
      const fromRoute = await answer(url);
      expect(route).toHaveBeenCalledTimes(1);
      expect(fromRoute.status).toBe(200);
      expect(first).toEqual(fromRoute);
      expect(second).toEqual(fromRoute);
      // An absent one: the route's 404, to the byte but the Result's time and request id, answered by the hot path.
      const absentUrl = `${api}/${kind.collection}/${b64('urn:hot:uncached:absent')}`;
      const absent = await answer(absentUrl);
      expect(route).toHaveBeenCalledTimes(1);
      hot.mockResolvedValueOnce(undefined);
      const absentFromRoute = await answer(absentUrl);
      expect(route).toHaveBeenCalledTimes(2);
      const timeless = (a: Awaited<ReturnType<typeof answer>>) => ({
        ...a,
        headers: { ...a.headers, 'content-length': undefined },
        body: JSON.parse(a.body).messages.map((m: Record<string, unknown>) => ({ ...m, timestamp: typeof m.timestamp, correlationId: typeof m.correlationId })),
      });
      expect(absent.status).toBe(404);
      expect(timeless(absent)).toEqual(timeless(absentFromRoute));
      expect(absent.body.length).toBe(absentFromRoute.body.length);
    } finally {
      vi.restoreAllMocks();
      await uncached.close();
    }
  });

  it('answers hits through the CORS middleware when CORS is on: allowed origins get their headers, every answer varies by Origin', async () => {
    const url = await cachedShell(cors);
    const allowed = await fetch(url, { headers: { origin: 'https://app.invalid' } });
    expect(allowed.status).toBe(200);
    expect(allowed.headers.get('access-control-allow-origin')).toBe('https://app.invalid');
    expect(allowed.headers.get('access-control-expose-headers')).toContain('ETag');
    const plain = await fetch(url);
    expect(plain.status).toBe(200);
    expect(plain.headers.get('vary')).toBe('Origin');
    expect(plain.headers.get('access-control-allow-origin')).toBeNull();
  });
});
