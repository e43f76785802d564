import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { TestServer, b64, sampleShell, startTestServer } from '../support/server';

/**
 * Every JSON answer is compact, as `JSON.stringify` writes it: a GET of a stored document answers the same bytes
 * a POST of it does (PostgreSQL writes `jsonb` with a space after every `,` and `:`; those are not passed on).
 */
let server: TestServer;
let api: string;

beforeAll(async () => {
  server = await startTestServer(inject('databaseUrl'));
  api = server.api((await server.createTenant({ showcase: true })).name);
});
afterAll(() => server?.close());

const compact = (text: string) => JSON.stringify(JSON.parse(text));

describe('JSON answers', () => {
  it('are compact for a POST, a GET by id (read from the database and from the read cache), a page and a submodel', async () => {
    const shell = sampleShell('urn:compact:1', { idShort: 'Compact', description: [{ language: 'en', text: 'a, b: "c", d' }] });
    const posted = await fetch(`${api}/shells`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(shell) });
    expect(posted.status).toBe(201);
    const postedText = await posted.text();
    expect(postedText).toBe(compact(postedText));
    for (const round of ['first', 'second']) {
      const text = await (await fetch(`${api}/shells/${b64('urn:compact:1')}`)).text();
      expect(text, round).toBe(compact(text));
      expect(JSON.parse(text), round).toEqual(JSON.parse(postedText));
    }
    const page = await (await fetch(`${api}/shells?limit=5`)).text();
    expect(page).toBe(compact(page));
    expect(page).toContain('"a, b: \\"c\\", d"');

    const submodel = {
      modelType: 'Submodel',
      id: 'urn:compact:sm:1',
      idShort: 'Data',
      submodelElements: [{ modelType: 'Property', idShort: 'P', valueType: 'xs:string', value: 'x, y: z' }],
    };
    expect((await fetch(`${api}/submodels`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(submodel) })).status).toBe(201);
    const read = await (await fetch(`${api}/submodels/${b64('urn:compact:sm:1')}`)).text();
    expect(read).toBe(compact(read));
    expect(JSON.parse(read).submodelElements[0].value).toBe('x, y: z');
  });
});
