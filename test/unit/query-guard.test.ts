import Router from '@koa/router';
import { describe, expect, it } from 'vitest';
import { FacadeError } from '../../rest-facade/facade-error';
import { checkQuery, declaredQueries, guardQueries } from '../../rest-facade/query-guard';

const DOC = {
  components: { parameters: { Limit: { name: 'limit', in: 'query' }, Id: { name: 'aasIdentifier', in: 'path' } } },
  paths: {
    '/shells': { get: { parameters: [{ $ref: '#/components/parameters/Limit' }, { name: 'idShort', in: 'query' }, { name: 'If-Match', in: 'header' }] } },
    '/shells/{aasIdentifier}': { parameters: [{ $ref: '#/components/parameters/Id' }], get: {}, delete: { parameters: [{ name: 'force', in: 'query' }] } },
    '/sphere/files': {
      servers: [{ url: 'tenant' }],
      get: { parameters: [{ name: 'attribute', in: 'query', style: 'form', explode: true, schema: { type: 'object', propertyNames: { pattern: '^attribute\\..+' } } }] },
    },
  },
};

/** The message of what `checkQuery` throws, or undefined. */
function refusal(key: string, names: string[]): string | undefined {
  const declared = declaredQueries(DOC, '/api').get(key);
  if (!declared) throw new Error(`no ${key}`);
  try {
    checkQuery(declared, names);
    return undefined;
  } catch (err) {
    expect(err).toBeInstanceOf(FacadeError);
    expect((err as FacadeError).status).toBe(400);
    return (err as FacadeError).message;
  }
}

describe('declared query parameters', () => {
  it('reads each operation\'s query parameters ($ref resolved, path and header parameters left out), by method and path shape', () => {
    const declared = declaredQueries(DOC, '/api');
    expect([...declared.keys()]).toEqual(['GET /api/shells', 'GET /api/shells/{}', 'DELETE /api/shells/{}', 'GET /sphere/files']);
    expect(declared.get('GET /api/shells')?.accepted).toEqual(['limit', 'idShort']);
    expect(declared.get('DELETE /api/shells/{}')?.accepted).toEqual(['force']);
    expect(declared.get('GET /sphere/files')?.accepted).toEqual(['attribute.{key}']);
  });

  it('accepts what is declared and refuses anything else, naming it and the accepted ones', () => {
    expect(refusal('GET /api/shells', ['limit', 'idShort'])).toBeUndefined();
    expect(refusal('GET /api/shells', ['limit', 'id'])).toBe("Unknown query parameter 'id': GET /shells accepts limit, idShort.");
    expect(refusal('GET /api/shells', ['Limit'])).toMatch(/'Limit'/);
    expect(refusal('GET /api/shells', ['If-Match'])).toMatch(/'If-Match'/);
    expect(refusal('GET /api/shells/{}', ['aasIdentifier'])).toBe("Unknown query parameter 'aasIdentifier': GET /shells/{aasIdentifier} takes no query parameters.");
    expect(refusal('GET /sphere/files', ['attribute.batch', 'attribute.site'])).toBeUndefined();
    for (const name of ['attribute', 'attribute.', 'attributes.x']) {
      expect(refusal('GET /sphere/files', [name])).toBe(`Unknown query parameter '${name}': GET /sphere/files accepts attribute.{key}.`);
    }
  });

  it('refuses to guard a router with a route no document describes', () => {
    const router = new Router();
    router.get('/api/shells', () => undefined);
    router.post('/api/shells', () => undefined);
    const declared = declaredQueries(DOC, '/api');
    expect(() => guardQueries(router, (method, path) => declared.get(`${method} ${path}`))).toThrow(/No documented operation for POST \/api\/shells/);
  });
});
