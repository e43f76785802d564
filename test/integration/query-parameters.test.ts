import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { newOrganization } from '../support/management';
import { TestServer, b64, hostGet, json, sampleShell, startTestServer } from '../support/server';

/**
 * Query parameters: every route takes those its OpenAPI operation declares and refuses any other with a 400 that
 * names it and the accepted ones (cached hot reads included); identifiers in standard base64 instead of base64url
 * are a 400 that says so, whether or not a route could match.
 */

let server: TestServer;
let tenant: string;
let tenantUrl: string;
let api: string;

const UNKNOWN = 'notAParameter';
const SHELL = 'urn:query-params:shell';
const SUBMODEL = 'urn:query-params:sm';

beforeAll(async () => {
  server = await startTestServer(inject('databaseUrl'));
  const created = await server.createTenant({ showcase: true });
  tenant = created.name;
  tenantUrl = `${server.url}/tenants/${tenant}`;
  api = server.api(tenant);
  await server.services.registryInstances.create(created, { name: 'qp-registry', kind: 'aas-registry' });
  const post = (path: string, body: unknown) => fetch(`${api}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  expect((await post('/submodels', { modelType: 'Submodel', id: SUBMODEL, idShort: 'Sm', submodelElements: [{ modelType: 'Property', idShort: 'P', valueType: 'xs:int', value: '1' }] })).status).toBe(201);
  const shell = sampleShell(SHELL, { submodels: [{ type: 'ModelReference', keys: [{ type: 'Submodel', value: SUBMODEL }] }] });
  expect((await post('/shells', shell)).status).toBe(201);
});
afterAll(async () => {
  await server?.close();
});

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Doc = any;

/** Every operation of a document: its URL (below the document's server, or its path's own), method, and declared query parameters. */
function operations(doc: Doc): { method: string; url: string; declared: string[] }[] {
  const out: { method: string; url: string; declared: string[] }[] = [];
  const resolve = (p: Doc) => (p.$ref ? doc.components.parameters[p.$ref.split('/').pop()] : p);
  for (const [path, item] of Object.entries<Doc>(doc.paths)) {
    for (const method of ['get', 'put', 'post', 'patch', 'delete']) {
      const operation = item[method];
      if (!operation) continue;
      const base = (item.servers ?? doc.servers)[0].url;
      const url = base + path.replace(/\{([^}]+)\}/g, (_, name: string) => (name === 'idShortPath' ? 'P' : b64('urn:query-params:nothing')));
      const declared = (operation.parameters ?? []).map(resolve).filter((p: Doc) => p.in === 'query').map((p: Doc) => p.name as string);
      out.push({ method: method.toUpperCase(), url, declared });
    }
  }
  return out;
}

async function send(method: string, url: string, headers: Record<string, string> = {}): Promise<{ status: number; text: string }> {
  const body = ['POST', 'PUT', 'PATCH'].includes(method) ? '{}' : undefined;
  const res = await fetch(url, { method, body, headers: { ...(body ? { 'content-type': 'application/json' } : {}), ...headers } });
  return { status: res.status, text: await res.text() };
}

/** The first message of a Result. */
const messageOf = (text: string): string => JSON.parse(text).messages[0].text;

async function expectEveryOperationRefusesUnknown(doc: Doc): Promise<number> {
  const all = operations(doc);
  for (const { method, url, declared } of all) {
    const { status, text } = await send(method, `${url}?${UNKNOWN}=1`);
    const label = `${method} ${url}`;
    expect(status, `${label}: ${text.slice(0, 300)}`).toBe(400);
    const message = messageOf(text);
    expect(message, label).toContain(`'${UNKNOWN}'`);
    for (const name of declared) expect(message, label).toContain(name);
    if (declared.length === 0) expect(message, label).toMatch(/takes no query parameters/);
  }
  return all.length;
}

describe('unknown query parameters', () => {
  it('every operation of the tenant document refuses one with 400 naming it and the accepted ones', async () => {
    const doc = await json(fetch(`${api}/openapi.json`));
    expect(await expectEveryOperationRefusesUnknown(doc)).toBeGreaterThan(100);
  });

  it('every operation of a registry instance document does', async () => {
    const doc = await json(fetch(`${tenantUrl}/qp-registry/api/v3.0/openapi.json`));
    expect(await expectEveryOperationRefusesUnknown(doc)).toBeGreaterThan(15);
  });

  it('every operation of the Management API document does, before asking for a token', async () => {
    const doc = await json(fetch(`${server.url}/api/v1/openapi.json`));
    expect(await expectEveryOperationRefusesUnknown(doc)).toBeGreaterThan(40);
  });

  it('the misspelled filters of GET /shells are refused, not answered with every shell', async () => {
    for (const query of [`id=${b64(SHELL)}`, `aasId=${b64(SHELL)}`, 'foo=1', 'foo', 'Limit=1', 'idshort=x', '=x', `idShort=Shell&${UNKNOWN}=1`]) {
      const { status, text } = await send('GET', `${api}/shells?${query}`);
      expect(status, query).toBe(400);
      expect(messageOf(text), query).toMatch(/^Unknown query parameter '[^']*': GET \/shells accepts assetIds, idShort, limit, cursor, assetKind, idShortStartsWith/);
    }
  });

  it('the parameters the documents declare still work', async () => {
    const ok = async (url: string) => {
      const { status, text } = await send('GET', url);
      expect(status, `${url}: ${text.slice(0, 300)}`).toBe(200);
      return JSON.parse(text);
    };
    expect((await ok(`${api}/shells?limit=1&idShort=${encodeURIComponent('Shell')}&assetKind=Instance&idStartsWith=urn`)).result).toBeDefined();
    expect((await ok(`${api}/submodels?kind=Instance&idContains=query-params`)).result.map((s: { id: string }) => s.id)).toEqual([SUBMODEL]);
    expect((await ok(`${api}/shells/${b64(SHELL)}/submodels?limit=1&level=core&extent=withoutBlobValue`)).result).toHaveLength(1);
    expect((await ok(`${api}/submodels/${b64(SUBMODEL)}?level=core&extent=withBlobValue`)).id).toBe(SUBMODEL);
    await ok(`${tenantUrl}/sphere/api/v1.0/files?attribute.batch=42&limit=5&displayNameStartsWith=x`);
    // The former location of the files refuses it with its deprecation headers, as its other answers.
    const former = await fetch(`${api}/files?${UNKNOWN}=1`);
    expect(former.status).toBe(400);
    expect(former.headers.get('deprecation')).toMatch(/^@\d+$/);
    // The exploded object parameter takes `attribute.{key}`, not the bare prefix.
    const bare = await send('GET', `${tenantUrl}/sphere/api/v1.0/files?attribute.=1`);
    expect(bare.status).toBe(400);
    expect(messageOf(bare.text)).toMatch(/Unknown query parameter 'attribute\.': GET \/sphere\/api\/v1\.0\/files accepts displayName, .*, fileName, attribute\.\{key\}, limit, cursor\./);
  });

  it('the Management API: paged lists take limit and cursor, invitations status, the rest nothing', async () => {
    const { owner, organization } = await newOrganization(server, 'query parameters');
    const org = `/organizations/${organization.id}`;
    expect((await owner.call('GET', `/organizations?limit=1`)).status).toBe(200);
    expect((await owner.call('GET', `${org}/invitations?status=pending&limit=5`)).status).toBe(200);
    expect((await owner.call('GET', `/me/invitations?status=accepted`)).status).toBe(200);
    for (const path of ['/me?limit=1', `${org}/roles?cursor=x`, `${org}?status=pending`, `${org}/tenants?status=pending`]) {
      const res = await owner.call('GET', path);
      expect(res.status, path).toBe(400);
      expect(res.body.messages[0].text, path).toMatch(/^Unknown query parameter '(limit|cursor|status)'/);
    }
    const me = await fetch(`${server.url}/me?limit=1`, { headers: { authorization: `Bearer ${owner.token}` } });
    expect(me.status).toBe(400);
  });

  it('cached hot reads apply the same rule: a GET by id or a list with an unknown parameter is 400, never a cached 200', async () => {
    const item = `${api}/shells/${b64(SHELL)}`;
    for (let i = 0; i < 2; i++) expect((await send('GET', item)).status).toBe(200);
    for (const url of [`${item}?${UNKNOWN}=1`, `${api}/shells?${UNKNOWN}=1`, `${api}/submodels?${UNKNOWN}=1`, `${api}/concept-descriptions?${UNKNOWN}=1`]) {
      for (let i = 0; i < 2; i++) {
        const { status, text } = await send('GET', url);
        expect(status, url).toBe(400);
        expect(messageOf(text)).toContain(`'${UNKNOWN}'`);
      }
    }
    for (let i = 0; i < 2; i++) expect((await send('GET', `${api}/shells`)).status).toBe(200);
    expect((await send('GET', `${api}/shells?${UNKNOWN}=1`)).status).toBe(400);
  });

  it('host-based tenant routes are held to the same documents', async () => {
    const hosted = await startTestServer(inject('databaseUrl'), { tenantHostSuffix: 'tenants.test' });
    try {
      const { port } = new URL(hosted.url);
      for (const path of [`/api/v3.0/shells?${UNKNOWN}=1`, `/sphere/api/v1.0/files?${UNKNOWN}=1`, `/qp/api/v3.0/shell-descriptors?${UNKNOWN}=1`]) {
        const res = await hostGet(port, `acme.tenants.test:${port}`, path);
        expect(res.status, path).toBe(400);
        expect(messageOf(res.body), path).toContain(`'${UNKNOWN}'`);
      }
      // A host that names no tenant has no tenant API: 404, whatever the query.
      const noTenant = await hostGet(port, `127.0.0.1:${port}`, `/api/v3.0/shells?${UNKNOWN}=1`);
      expect(noTenant.status).toBe(404);
      expect(messageOf(noTenant.body)).toMatch(/tenant hosts/);
    } finally {
      await hosted.close();
    }
  });
});


describe('identifiers in standard base64', () => {
  // Standard base64 of these ids has a '/' inside (no route can match) and a '+' (the route matches, the id does not).
  const SLASHED = Buffer.from('urn:std64:0?>x').toString('base64');
  const PLUS = Buffer.from('urn:std64:100?>x').toString('base64');
  const FILE = Buffer.from('file:/sphere/x?>>').toString('base64');

  it('are refused with a 400 that says path identifiers are base64url, on every kind of identifier', async () => {
    expect(SLASHED).toMatch(/\/./);
    expect(PLUS).toContain('+');
    expect(FILE).toContain('/');
    const sm = b64(SUBMODEL);
    const cases: [string, string, string][] = [];
    for (const [id, unpadded] of [[SLASHED, SLASHED.replace(/=+$/, '')], [PLUS, PLUS.replace(/=+$/, '')]]) {
      for (const raw of [id, unpadded]) {
        cases.push(
          ['GET', `${api}/shells/${raw}`, 'aasIdentifier'],
          ['PUT', `${api}/shells/${raw}`, 'aasIdentifier'],
          ['GET', `${api}/shells/${raw}/submodel-refs`, 'aasIdentifier'],
          ['GET', `${api}/shells/${b64(SHELL)}/submodels/${raw}`, 'submodelIdentifier'],
          ['GET', `${api}/submodels/${raw}`, 'submodelIdentifier'],
          ['GET', `${api}/submodels/${raw}/$value`, 'submodelIdentifier'],
          ['GET', `${api}/submodels/${raw}/submodel-elements/P`, 'submodelIdentifier'],
          ['PATCH', `${api}/submodels/${raw}/submodel-elements/P/$value`, 'submodelIdentifier'],
          ['GET', `${api}/concept-descriptions/${raw}`, 'cdIdentifier'],
          ['GET', `${api}/shell-descriptors/${raw}`, 'aasIdentifier'],
          ['GET', `${api}/shell-descriptors/${b64(SHELL)}/submodel-descriptors/${raw}`, 'submodelIdentifier'],
          ['GET', `${api}/submodel-descriptors/${raw}`, 'submodelIdentifier'],
          ['GET', `${api}/lookup/shells/${raw}`, 'aasIdentifier'],
          ['GET', `${api}/packages/${raw}`, 'packageId'],
          ['GET', `${tenantUrl}/qp-registry/api/v3.0/shell-descriptors/${raw}`, 'aasIdentifier'],
        );
      }
    }
    cases.push(
      ['GET', `${tenantUrl}/sphere/api/v1.0/files/${FILE}`, 'tfp'],
      ['GET', `${tenantUrl}/sphere/api/v1.0/files/${FILE}/metadata`, 'tfp'],
      ['GET', `${api}/files/${FILE}`, 'tfp'],
      ['GET', `${api}/submodels/${sm}/submodel-elements/P`.replace(sm, SLASHED.replace('/', '%2F')), 'submodelIdentifier'],
    );
    for (const [method, url, name] of cases) {
      const { status, text } = await send(method, url);
      expect(status, `${method} ${url}: ${text.slice(0, 300)}`).toBe(400);
      expect(messageOf(text), url).toBe(
        `Path parameter '${name}' is standard base64: path identifiers are base64url-encoded (RFC 4648 §5: '-' and '_' instead of '+' and '/'; padding '=' is optional).`,
      );
    }
  });

  it('base64url with or without padding is read as before, and a path that is no route stays 404', async () => {
    const padded = Buffer.from(SHELL).toString('base64url') + '='.repeat((4 - (Buffer.from(SHELL).toString('base64url').length % 4)) % 4);
    expect(padded).toMatch(/=$/);
    expect((await send('GET', `${api}/shells/${padded}`)).status).toBe(200);
    expect((await send('GET', `${api}/shells/${b64(SHELL)}`)).status).toBe(200);
    for (const path of [`/shells/${b64(SHELL)}/no-such-thing`, '/shells/abc/def-ghi', `/no-such-collection/${SLASHED}`]) {
      const { status, text } = await send('GET', api + path);
      expect(status, path).toBe(404);
      expect(messageOf(text), path).toMatch(/^No route for GET/);
    }
  });
});
