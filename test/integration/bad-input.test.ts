import http from 'node:http';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { TestServer, b64, json, sampleShell, startTestServer } from '../support/server';

let server: TestServer;
let api: string;

beforeAll(async () => {
  server = await startTestServer(inject('databaseUrl'), { bodyLimitBytes: 8 * 1024 * 1024 });
});
afterAll(() => server?.close());

async function expectResult(res: Response, status: number) {
  expect(res.status).toBe(status);
  const body = await json(res);
  expect(body.messages.length).toBeGreaterThan(0);
  expect(body.messages[0]).toMatchObject({ code: String(status), messageType: 'Error' });
  expect(typeof body.messages[0].text).toBe('string');
  expect(body.messages[0].correlationId).toBe(res.headers.get('x-request-id'));
  return body;
}

const send = (method: string, path: string, body: string | undefined, contentType = 'application/json') =>
  fetch(`${api}${path}`, { method, headers: contentType ? { 'content-type': contentType } : {}, body });

// Through both versions of the API (a tenant each: the tests look at what was stored): the same 4xx answers.
describe.each(['v3.0', 'v3.1'])('through /api/%s', (version) => {
  beforeAll(async () => {
    api = server.api((await server.createTenant()).name).replace(/\/api\/v3\.0$/, `/api/${version}`);
  });

  describe('bad bodies', () => {
    it.each([
      ['{}', '{}'],
      ['truncated JSON', '{"modelType":"AssetAdministrationShell","id":"x"'],
      ['a JSON array', '[]'],
      ['JSON null', 'null'],
      ['a JSON string', '"shell"'],
      ['a wrong modelType', JSON.stringify({ ...sampleShell('urn:bad:1'), modelType: 'Submodel' })],
      ['an unknown property', JSON.stringify({ ...sampleShell('urn:bad:2'), colour: 'red' })],
      ['an invalid idShort', JSON.stringify(sampleShell('urn:bad:3', { idShort: '1 not valid' }))],
      ['a missing asset id (AASd-131)', JSON.stringify(sampleShell('urn:bad:4', { assetInformation: { assetKind: 'Instance' } }))],
    ])('POST /shells with %s is 400 and stores nothing', async (_name, body) => {
      await expectResult(await send('POST', '/shells', body), 400);
      expect((await json(fetch(`${api}/shells`))).result).toEqual([]);
    });

    it('answers 400 to a body nested too deeply for the model, not a stack overflow', async () => {
      let reference: Record<string, unknown> = { type: 'ExternalReference', keys: [{ type: 'GlobalReference', value: 'x' }] };
      for (let i = 0; i < 3000; i++) reference = { type: 'ExternalReference', keys: [{ type: 'GlobalReference', value: 'x' }], referredSemanticId: reference };
      const body = await expectResult(await send('POST', '/shells', JSON.stringify(sampleShell('urn:bad:deep', { derivedFrom: reference }))), 400);
      expect(body.messages[0].text).toMatch(/nests deeper than/);
    });

    it('names the JSON path of each violation', async () => {
      const body = await expectResult(await send('POST', '/shells', JSON.stringify(sampleShell('', { idShort: '1x' }))), 400);
      const texts = body.messages.map((m: { text: string }) => m.text);
      expect(texts).toEqual(expect.arrayContaining([expect.stringMatching(/^\$\.id: /), expect.stringMatching(/^\$\.idShort: /)]));
    });

    it('answers 415 to another media type and 400 to no body', async () => {
      await expectResult(await send('POST', '/shells', JSON.stringify(sampleShell('urn:bad:ct')), 'text/plain'), 415);
      await expectResult(await send('POST', '/shells', 'a=b', 'application/x-www-form-urlencoded'), 415);
      await expectResult(await send('POST', '/shells', undefined, ''), 400);
    });

    it('answers 413 past the body limit', async () => {
      const huge = JSON.stringify(sampleShell('urn:bad:huge', { extensions: [{ name: 'x', value: 'x'.repeat(9 * 1024 * 1024) }] }));
      await expectResult(await send('POST', '/shells', huge), 413);
    });

    it('accepts a multi-megabyte shell, well above a 1 MB default', async () => {
      const extensions = [0, 1, 2].map((n) => ({ name: `blob${n}`, value: 'v'.repeat(1024 * 1024) }));
      const res = await send('POST', '/shells', JSON.stringify(sampleShell('urn:big:3mb', { extensions })));
      expect(res.status).toBe(201);
      const got = await json(fetch(`${api}/shells/${b64('urn:big:3mb')}`));
      expect(got.extensions).toHaveLength(3);
      expect(got.extensions[2].value).toHaveLength(1024 * 1024);
    });

    it('leaves a shell unchanged when a PUT is invalid', async () => {
      await send('POST', '/shells', JSON.stringify(sampleShell('urn:bad:put')));
      await expectResult(await send('PUT', `/shells/${b64('urn:bad:put')}`, JSON.stringify(sampleShell('urn:bad:put', { idShort: '' }))), 400);
      await expectResult(await send('PUT', `/shells/${b64('urn:bad:put')}`, '{"id":'), 400);
      expect((await json(fetch(`${api}/shells/${b64('urn:bad:put')}`))).idShort).toBe('Sample');
    });

    it('rejects a submodel reference that is not one', async () => {
      await send('POST', '/shells', JSON.stringify(sampleShell('urn:bad:ref')));
      const path = `/shells/${b64('urn:bad:ref')}/submodel-refs`;
      await expectResult(await send('POST', path, '{}'), 400);
      await expectResult(await send('POST', path, JSON.stringify({ type: 'ModelReference', keys: [] })), 400);
      await expectResult(await send('POST', path, JSON.stringify({ type: 'ModelReference', keys: [{ type: 'Property', value: 'x' }] })), 400);
    });
  });

  describe('bad paths', () => {
    it('answers 400 to identifiers that are not base64url', async () => {
      for (const id of ['!!', 'a+b', 'YQ=', 'Y', '%00']) {
        await expectResult(await fetch(`${api}/shells/${id}`), 400);
        await expectResult(await fetch(`${api}/shells/${id}/asset-information`), 400);
      }
      await expectResult(await fetch(`${api}/shells/${b64('urn:x')}/submodel-refs/!!`, { method: 'DELETE' }), 400);
    });

    it('answers 400 to text PostgreSQL cannot store (U+0000), in paths, filters and asset ids', async () => {
      const nulId = Buffer.from('a\u0000b').toString('base64url');
      await expectResult(await fetch(`${api}/shells/${nulId}`), 400);
      await expectResult(await fetch(`${api}/shells/${nulId}`, { method: 'DELETE' }), 400);
      await expectResult(await fetch(`${api}/shells?idShort=a%00b`), 400);
      const nulAssetId = Buffer.from(JSON.stringify({ name: 'serial', value: 'a\u0000b' })).toString('base64url');
      await expectResult(await fetch(`${api}/shells?assetIds=${nulAssetId}`), 400);
    });

    it('answers 404 to an absent shell on every shell route', async () => {
      const id = b64('urn:absent');
      await expectResult(await fetch(`${api}/shells/${id}`), 404);
      await expectResult(await fetch(`${api}/shells/${id}/$reference`), 404);
      await expectResult(await fetch(`${api}/shells/${id}/asset-information`), 404);
      await expectResult(await fetch(`${api}/shells/${id}/submodel-refs`), 404);
      await expectResult(await send('PUT', `/shells/${id}/asset-information`, JSON.stringify({ assetKind: 'Type', globalAssetId: 'x' })), 404);
      await expectResult(await send('POST', `/shells/${id}/submodel-refs`, JSON.stringify({ type: 'ModelReference', keys: [{ type: 'Submodel', value: 'x' }] })), 404);
    });

    it('answers 404 to unknown paths and 405 to unknown methods, with a Result', async () => {
      await expectResult(await fetch(`${api}/nothing-here`), 404);
      await expectResult(await fetch(`${server.url}/nothing-here`), 404);
      await expectResult(await fetch(`${api}/shells/${b64('urn:x')}`, { method: 'PATCH' }), 405);
    });

    it('answers a request with a malformed URL encoding without a 500', async () => {
      const status = await new Promise<number>((resolve, reject) => {
        http.get(`${api}/shells/%E0%A4%A`, (res) => resolve(res.statusCode ?? 0)).on('error', reject);
      });
      expect(status).toBeGreaterThanOrEqual(400);
      expect(status).toBeLessThan(500);
    });
  });
});
