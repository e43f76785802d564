import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { newOrganization } from '../support/management';
import { TestServer, b64, json, sampleShell, startTestServer } from '../support/server';

let server: TestServer;
let tenantA: string;
let tenantB: string;

const SHELLS = ['urn:cursor:shell:1', 'urn:cursor:shell:2'];
const SUBMODELS = ['urn:cursor:sm:1', 'urn:cursor:sm:2'];
const ref = (id: string) => ({ type: 'ModelReference', keys: [{ type: 'Submodel', value: id }] });
const submodel = (id: string) => ({
  modelType: 'Submodel',
  id,
  idShort: 'S',
  submodelElements: ['A', 'B', 'C'].map((idShort) => ({ modelType: 'Property', idShort, valueType: 'xs:string', value: idShort })),
});

/** Every paged list of a tenant's API, each with two items or more: `[what, method, path, body]`. */
const LISTS: [string, 'GET' | 'POST', string, unknown?][] = [
  ['shells', 'GET', '/shells?limit=1'],
  ['shells by idShort', 'GET', '/shells?limit=1&idShort=Sample'],
  ['submodel references', 'GET', `/shells/${b64(SHELLS[0])}/submodel-refs?limit=1`],
  ['submodels', 'GET', '/submodels?limit=1'],
  ['submodel elements', 'GET', `/submodels/${b64(SUBMODELS[0])}/submodel-elements?limit=1`],
  ['submodel element paths', 'GET', `/submodels/${b64(SUBMODELS[0])}/submodel-elements/$path?limit=1`],
  ['paths of all submodels', 'GET', '/submodels/$path?limit=1'],
  ['concept descriptions', 'GET', '/concept-descriptions?limit=1'],
  ['shell descriptors', 'GET', '/shell-descriptors?limit=1'],
  ['submodel descriptors of a shell', 'GET', `/shell-descriptors/${b64(SHELLS[0])}/submodel-descriptors?limit=1`],
  ['submodel descriptors', 'GET', '/submodel-descriptors?limit=1'],
  ['lookup', 'GET', '/lookup/shells?limit=1&assetKind=Instance'],
  ['query', 'POST', '/query/shells?limit=1', { $condition: { $eq: [{ $field: '$aas#idShort' }, { $strVal: 'Sample' }] } }],
];

const send = (tenant: string, method: string, path: string, body?: unknown) =>
  fetch(`${server.api(tenant)}${path}`, {
    method,
    ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
  });

async function fill(tenant: string): Promise<void> {
  for (const id of SUBMODELS) expect((await send(tenant, 'POST', '/submodels', submodel(id))).status).toBe(201);
  for (const id of SHELLS) expect((await send(tenant, 'POST', '/shells', sampleShell(id, { submodels: SUBMODELS.map(ref) }))).status).toBe(201);
  for (const id of ['urn:cursor:cd:1', 'urn:cursor:cd:2']) {
    expect((await send(tenant, 'POST', '/concept-descriptions', { modelType: 'ConceptDescription', id })).status).toBe(201);
  }
}

/** The cursor of the first page of `path` on `tenant`. */
async function firstCursor(tenant: string, method: string, path: string, body?: unknown): Promise<string> {
  const res = await send(tenant, method, path, body);
  expect(res.status, `${method} ${path}`).toBe(200);
  const cursor = (await json(res)).paging_metadata?.cursor;
  expect(cursor, `${method} ${path}`).toEqual(expect.any(String));
  return cursor;
}

const withCursor = (path: string, cursor: string) => `${path}&cursor=${encodeURIComponent(cursor)}`;

beforeAll(async () => {
  server = await startTestServer(inject('databaseUrl'));
  tenantA = (await server.createTenant()).name;
  tenantB = (await server.createTenant()).name;
  await fill(tenantA);
  await fill(tenantB);
});

afterAll(async () => {
  await server?.close();
});

describe('cursors', () => {
  it('continue the list that issued them', async () => {
    for (const [what, method, path, body] of LISTS) {
      const cursor = await firstCursor(tenantA, method, path, body);
      const res = await send(tenantA, method, withCursor(path, cursor), body);
      expect({ what, status: res.status }).toEqual({ what, status: 200 });
      expect((await json(res)).result.length, what).toBeGreaterThan(0);
    }
  });

  it("are 400 on another tenant's list, on every paged route: another tenant's cursor continues nothing here", async () => {
    for (const [what, method, path, body] of LISTS) {
      const foreign = await firstCursor(tenantB, method, path, body);
      const res = await send(tenantA, method, withCursor(path, foreign), body);
      expect({ what, status: res.status }).toEqual({ what, status: 400 });
      expect((await json(res)).messages[0].text, what).toMatch(/cursor/i);
    }
  });

  it('are 400 when made up, or taken from another list or another filter of the same tenant', async () => {
    const madeUp = [
      Buffer.from('["shells",3]').toString('base64url'),
      Buffer.from('["submodels",1]').toString('base64url'),
      Buffer.from('3').toString('base64url'),
      'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
    ];
    const shellsCursor = await firstCursor(tenantA, 'GET', '/shells?limit=1');
    for (const [what, method, path, body] of LISTS) {
      // The implicit shell descriptors (and the lookup by asset kind) page the tenant's shells: the same rows in the same
      // order, so a cursor of `/shells` continues those lists alike.
      const sameRows = path.startsWith('/shells?') || path.startsWith('/shell-descriptors?');
      for (const cursor of [...madeUp, ...(sameRows ? [] : [shellsCursor])]) {
        const res = await send(tenantA, method, withCursor(path, cursor), body);
        expect({ what, cursor, status: res.status }).toEqual({ what, cursor, status: 400 });
      }
    }
    // The same route with another filter is another list.
    const filtered = await firstCursor(tenantA, 'GET', '/shells?limit=1&idShort=Sample');
    expect((await send(tenantA, 'GET', withCursor('/shells?limit=1', filtered))).status).toBe(400);
    expect((await send(tenantA, 'GET', withCursor('/shells?limit=1', shellsCursor))).status).toBe(200);
  });

  it('reveal nothing of the position they hold, and differ between tenants at the same position', async () => {
    const a = await firstCursor(tenantA, 'GET', '/shells?limit=1');
    const b = await firstCursor(tenantB, 'GET', '/shells?limit=1');
    expect(a).not.toBe(b);
    for (const cursor of [a, b]) {
      // Sealed bytes: no name, no JSON, no number in clear. (Two digits in a row occur in random bytes by chance, about
      // one cursor in twenty; four in a row about one in a hundred thousand.)
      const bytes = Buffer.from(cursor, 'base64url').toString('latin1');
      expect(bytes).not.toMatch(/shells|\["|\d{4,}/);
    }
  });

  it('are 400 on the management lists when made up or taken from another organization', async () => {
    const x = await newOrganization(server);
    const y = await newOrganization(server);
    for (const { owner, organization } of [x, y]) {
      for (const name of ['one', 'two']) {
        const created = await owner.call('POST', `/organizations/${organization.id}/tenants`, { name: `c-${randomBytes(5).toString('hex')}-${name}` });
        expect(created.status).toBe(201);
      }
    }
    const tenantsOf = (org: { id: string }) => `/organizations/${org.id}/tenants?limit=1`;
    const own = (await x.owner.call('GET', tenantsOf(x.organization))).body.paging_metadata.cursor;
    const foreign = (await y.owner.call('GET', tenantsOf(y.organization))).body.paging_metadata.cursor;
    expect((await x.owner.call('GET', `${tenantsOf(x.organization)}&cursor=${own}`)).status).toBe(200);
    // What a cursor of this list looked like when it was the list's name and the last row's number in base64url.
    const madeUp = Buffer.from(JSON.stringify([`tenants:${x.organization.id}`, '1'])).toString('base64url');
    for (const cursor of [foreign, madeUp]) {
      const res = await x.owner.call('GET', `${tenantsOf(x.organization)}&cursor=${cursor}`);
      expect(res.status).toBe(400);
    }
  });
});

describe('a cursor from another server of the same database', () => {
  it('is accepted: every replica seals cursors with the key the database holds', async () => {
    const replica = await startTestServer(inject('databaseUrl'));
    try {
      const cursor = await firstCursor(tenantA, 'GET', '/shells?limit=1');
      const res = await fetch(`${replica.api(tenantA)}${withCursor('/shells?limit=1', cursor)}`);
      expect(res.status).toBe(200);
      expect((await json(res)).result).toHaveLength(1);
    } finally {
      await replica.close();
    }
  });
});
