import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import Router from '@koa/router';
import Koa from 'koa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routesBySegment, segmentOf } from '../../rest-facade/segment-dispatch';

describe('segmentOf', () => {
  it('is the segment after the one /api/vX.Y/ of a path or pattern, lowercase', () => {
    expect(segmentOf('/tenants/:tenant/api/v3.0/shells/:aasIdentifier')).toBe('shells');
    expect(segmentOf('/tenants/:tenant/:instance/api/v3.0/shell-descriptors')).toBe('shell-descriptors');
    expect(segmentOf('/tenants/:tenant/sphere/api/v1.0/push-targets')).toBe('push-targets');
    expect(segmentOf('/TENANTS/a/API/V3.0/Shells/abc')).toBe('shells');
    expect(segmentOf('/tenants/a/api/v3.0/')).toBeUndefined();
    expect(segmentOf('/health/live')).toBeUndefined();
    // Two places a route's /api/vX.Y/ could be: the path goes to the whole router.
    expect(segmentOf('/tenants/api/v3.0/api/v3.0/shell-descriptors')).toBeUndefined();
  });
});

/**
 * The same routes served by the whole router and by routesBySegment: every request must get the same answer,
 * including the routes that only the whole router can find (a path with two /api/vX.Y/) and 404/405/501.
 */
describe('routesBySegment answers as the whole router does', () => {
  const servers: Server[] = [];
  const urls: string[] = [];

  function app(split: boolean): Koa {
    const router = new Router();
    const route = (name: string) => (ctx: Koa.Context) => {
      ctx.body = { route: name, params: (ctx as unknown as { params: unknown }).params };
    };
    const passOn: Koa.Middleware = async (ctx, next) => {
      ctx.set('X-Passed', 'yes');
      await next();
    };
    router.get('/tenants/:tenant/api/v3.0/shells', route('list shells'));
    router.post('/tenants/:tenant/api/v3.0/shells', route('post shell'));
    router.get('/tenants/:tenant/api/v3.0/shells/:id', passOn, route('get shell'));
    router.get('/tenants/:tenant/api/v3.0/shells/$reference', route('shell references'));
    router.delete('/tenants/:tenant/api/v3.0/shells/:id', route('delete shell'));
    router.get('/tenants/:tenant/api/v3.0/submodels/:id', route('get submodel'));
    router.get('/tenants/:tenant/:instance/api/v3.0/shell-descriptors', route('instance descriptors'));
    router.get('/tenants/:tenant/api/v3.0/shell-descriptors', route('implicit descriptors'));
    router.post('/tenants/:tenant/sphere/api/v1.0/push-targets', route('push target'));
    const koa = new Koa();
    koa.use(split ? routesBySegment(router) : router.routes());
    koa.use(router.allowedMethods());
    koa.use((ctx) => {
      ctx.status = 404;
      ctx.body = { fallThrough: true };
    });
    return koa;
  }

  beforeAll(async () => {
    for (const split of [false, true]) {
      const server = app(split).listen(0, '127.0.0.1');
      await new Promise((resolve) => server.once('listening', resolve));
      servers.push(server);
      urls.push(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    }
  });
  afterAll(() => servers.forEach((s) => s.close()));

  const requests: [string, string][] = [
    ['GET', '/tenants/a/api/v3.0/shells'],
    ['POST', '/tenants/a/api/v3.0/shells'],
    ['GET', '/tenants/a/api/v3.0/shells/abc'],
    ['HEAD', '/tenants/a/api/v3.0/shells/abc'],
    ['GET', '/tenants/a/api/v3.0/shells/$reference'],
    ['DELETE', '/tenants/a/api/v3.0/shells/abc'],
    ['PUT', '/tenants/a/api/v3.0/shells/abc'],
    ['PATCH', '/tenants/a/api/v3.0/shells'],
    // A method whose group exists but has no route for the path: 405 from the whole router's routes.
    ['DELETE', '/tenants/a/api/v3.0/shells'],
    ['GET', '/tenants/a/api/v3.0/shells/abc/extra'],
    ['GET', '/TENANTS/A/API/V3.0/SHELLS/abc'],
    ['GET', '/tenants/a/api/v3.0/shells/abc/'],
    ['GET', '/tenants/a/api/v3.0/submodels/xyz'],
    ['POST', '/tenants/a/api/v3.0/submodels/xyz'],
    ['GET', '/tenants/a/api/v3.0/unknown'],
    ['GET', '/tenants/a/reg/api/v3.0/shell-descriptors'],
    ['GET', '/tenants/a/api/v3.0/shell-descriptors'],
    // The tenant 'api' and the instance 'v3.0': two /api/vX.Y/ in the path, only the whole router finds the route.
    ['GET', '/tenants/api/v3.0/api/v3.0/shell-descriptors'],
    ['POST', '/tenants/a/sphere/api/v1.0/push-targets'],
    ['GET', '/tenants/a/sphere/api/v1.0/push-targets'],
    ['GET', '/elsewhere'],
    ['PROPFIND', '/tenants/a/api/v3.0/shells'],
  ];

  it.each(requests)('%s %s', async (method, path) => {
    const [whole, split] = await Promise.all(
      urls.map(async (url) => {
        const res = await fetch(url + path, { method });
        return { status: res.status, allow: res.headers.get('allow'), passed: res.headers.get('x-passed'), body: await res.text() };
      }),
    );
    expect(split).toEqual(whole);
  });

  it('serves the routes it is given (the comparison is not between two failures)', async () => {
    const res = await fetch(`${urls[1]}/tenants/a/api/v3.0/shells/abc`);
    expect(await res.json()).toEqual({ route: 'get shell', params: { tenant: 'a', id: 'abc' } });
    expect(res.headers.get('x-passed')).toBe('yes');
    const instance = await fetch(`${urls[1]}/tenants/api/v3.0/api/v3.0/shell-descriptors`);
    expect(await instance.json()).toEqual({ route: 'instance descriptors', params: { tenant: 'api', instance: 'v3.0' } });
  });
});
