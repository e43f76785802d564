import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { TenantEntity } from '../../src/management/tenants/tenant.entity';
import { TestServer, b64, json, startTestServer } from '../support/server';

/**
 * Submodel elements stored as rows of their own (`submodel_elements`): what the rows hold, and that a write
 * touches the rows of what it changes and no others (PostgreSQL's `xmin` of a row is the transaction that
 * wrote it last).
 */

let server: TestServer;
let tenant: TenantEntity;
let api: string;

beforeAll(async () => {
  server = await startTestServer(inject('databaseUrl'));
  tenant = await server.createTenant();
  api = server.api(tenant.name);
});
afterAll(() => server?.close());

type Json = Record<string, unknown>;
const send = (method: string, path: string, body?: unknown) =>
  fetch(`${api}${path}`, { method, headers: body === undefined ? {} : { 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
const ref = (value: string) => ({ type: 'ExternalReference', keys: [{ type: 'GlobalReference', value }] });
const prop = (idShort: string | undefined, value: string, valueType = 'xs:double', semanticId?: string): Json => ({
  modelType: 'Property',
  ...(idShort ? { idShort } : {}),
  ...(semanticId ? { semanticId: ref(semanticId) } : {}),
  valueType,
  value,
});

function sample(id: string): Json {
  return {
    modelType: 'Submodel',
    id,
    idShort: 'Sample',
    submodelElements: [
      prop('Pressure', '16.5', 'xs:double', '0173-1#02-AAA001#001'),
      {
        modelType: 'SubmodelElementCollection',
        idShort: 'C',
        value: [prop('When', '2024-05-01T10:00:00+02:00', 'xs:dateTime'), { modelType: 'MultiLanguageProperty', idShort: 'Name', value: [{ language: 'en', text: 'pump' }] }],
      },
      {
        modelType: 'SubmodelElementList',
        idShort: 'L',
        typeValueListElement: 'SubmodelElementCollection',
        value: [
          { modelType: 'SubmodelElementCollection', value: [prop('X', '1')] },
          { modelType: 'SubmodelElementCollection', value: [prop('X', '2')] },
        ],
      },
    ],
  };
}

interface Row {
  ord: string;
  path: string;
  id_short: string | null;
  model_type: string;
  semantic_key: string | null;
  v_text: string | null;
  v_num: string | null;
  v_time: Date | null;
  json: Json;
  xmin: string;
}

async function rowsOf(id: string): Promise<Row[]> {
  return server.dataSource.query(
    `SELECT e.ord::text AS ord, e.path, e.id_short, e.model_type, e.semantic_key, e.v_text, e.v_num::text AS v_num, e.v_time, e.json, e.xmin::text AS xmin
      FROM submodel_elements e JOIN submodels s ON s.tenant_id = e.tenant_id AND s.seq = e.submodel_seq
      WHERE s.tenant_id = $1 AND s.id = $2 ORDER BY e.ord`,
    [tenant.id, id],
  );
}

const xmins = (rows: Row[]) => Object.fromEntries(rows.map((r) => [r.path, r.xmin]));

describe('element rows', () => {
  it('hold each element without its children, its path, semanticId and typed value; the head holds the rest', async () => {
    const id = 'urn:rows:layout';
    expect((await send('POST', '/submodels', sample(id))).status).toBe(201);
    const rows = await rowsOf(id);
    expect(rows.map((r) => [r.ord, r.path, r.id_short, r.model_type])).toEqual([
      ['{0}', 'Pressure', 'Pressure', 'Property'],
      ['{1}', 'C', 'C', 'SubmodelElementCollection'],
      ['{1,0}', 'C.When', 'When', 'Property'],
      ['{1,1}', 'C.Name', 'Name', 'MultiLanguageProperty'],
      ['{2}', 'L', 'L', 'SubmodelElementList'],
      ['{2,0}', 'L[0]', null, 'SubmodelElementCollection'],
      ['{2,0,0}', 'L[0].X', 'X', 'Property'],
      ['{2,1}', 'L[1]', null, 'SubmodelElementCollection'],
      ['{2,1,0}', 'L[1].X', 'X', 'Property'],
    ]);
    expect(rows[0]).toMatchObject({ semantic_key: '0173-1#02-AAA001#001', v_text: '16.5', v_num: '16.5' });
    expect(rows[2].v_time?.toISOString()).toBe('2024-05-01T08:00:00.000Z');
    expect(rows[2].v_num).toBeNull();
    expect(rows[3].v_text).toBeNull();
    expect(rows[1].json).toEqual({ modelType: 'SubmodelElementCollection', idShort: 'C' });
    const [head] = await server.dataSource.query('SELECT doc, doc_bytes FROM submodels WHERE tenant_id = $1 AND id = $2', [tenant.id, id]);
    expect(head.doc).toEqual({ modelType: 'Submodel', id, idShort: 'Sample' });
    expect(Number(head.doc_bytes)).toBe(Buffer.byteLength(JSON.stringify(sample(id))));
    expect(await json(send('GET', `/submodels/${b64(id)}`))).toEqual(sample(id));
  });

  it('a value PATCH rewrites the rows of that element only', async () => {
    const id = 'urn:rows:value';
    expect((await send('POST', '/submodels', sample(id))).status).toBe(201);
    const before = xmins(await rowsOf(id));
    expect((await send('PATCH', `/submodels/${b64(id)}/submodel-elements/L[1].X/$value`, '3.5')).status).toBe(204);
    const after = await rowsOf(id);
    const changed = after.filter((r) => before[r.path] !== r.xmin).map((r) => r.path);
    expect(changed).toEqual(['L[1].X']);
    expect(after.find((r) => r.path === 'L[1].X')).toMatchObject({ v_text: '3.5', v_num: '3.5' });
    // A collection's value: the rows of the children whose values change.
    expect((await send('PATCH', `/submodels/${b64(id)}/submodel-elements/C/$value`, { When: '2025-01-01T00:00:00Z', Name: [{ en: 'pump' }] })).status).toBe(204);
    const again = await rowsOf(id);
    expect(again.filter((r) => xmins(after)[r.path] !== r.xmin).map((r) => r.path)).toEqual(['C.When']);
    const expected = sample(id);
    ((expected.submodelElements as Json[])[2].value as Json[])[1] = { modelType: 'SubmodelElementCollection', value: [prop('X', '3.5')] };
    (((expected.submodelElements as Json[])[1].value as Json[])[0] as Json).value = '2025-01-01T00:00:00Z';
    expect(await json(send('GET', `/submodels/${b64(id)}`))).toEqual(expected);
    const [head] = await server.dataSource.query('SELECT doc_bytes FROM submodels WHERE tenant_id = $1 AND id = $2', [tenant.id, id]);
    expect(Number(head.doc_bytes)).toBe(Buffer.byteLength(JSON.stringify(expected)));
  });

  it('a PUT of the same document writes no row; a changed one writes the rows that changed', async () => {
    const id = 'urn:rows:put';
    expect((await send('POST', '/submodels', sample(id))).status).toBe(201);
    const before = xmins(await rowsOf(id));
    expect((await send('PUT', `/submodels/${b64(id)}`, sample(id))).status).toBe(204);
    expect(xmins(await rowsOf(id))).toEqual(before);
    const changed = sample(id);
    (changed.submodelElements as Json[])[0] = prop('Pressure', '20', 'xs:double', '0173-1#02-AAA001#001');
    expect((await send('PUT', `/submodels/${b64(id)}`, changed)).status).toBe(204);
    const after = await rowsOf(id);
    expect(after.filter((r) => before[r.path] !== r.xmin).map((r) => r.path)).toEqual(['Pressure']);
  });

  it('structural changes: a new element adds its rows, a deleted list item moves the later items up', async () => {
    const id = 'urn:rows:structure';
    expect((await send('POST', '/submodels', sample(id))).status).toBe(201);
    expect((await send('POST', `/submodels/${b64(id)}/submodel-elements/C`, prop('Extra', '1'))).status).toBe(201);
    const before = await rowsOf(id);
    expect(before.find((r) => r.path === 'C.Extra')?.ord).toBe('{1,2}');
    expect((await send('DELETE', `/submodels/${b64(id)}/submodel-elements/L[0]`)).status).toBe(204);
    const after = await rowsOf(id);
    expect(after.filter((r) => r.path.startsWith('L')).map((r) => [r.ord, r.path, r.v_text])).toEqual([
      ['{2}', 'L', null],
      ['{2,0}', 'L[0]', null],
      ['{2,0,0}', 'L[0].X', '2'],
    ]);
    // Rows outside the list are untouched.
    const untouched = before.filter((r) => !r.path.startsWith('L'));
    expect(after.filter((r) => !r.path.startsWith('L')).map((r) => r.xmin)).toEqual(untouched.map((r) => r.xmin));
    expect(await json(send('GET', `/submodels/${b64(id)}/submodel-elements/L[0].X`))).toEqual(prop('X', '2'));
    expect(await json(send('GET', `/submodels/${b64(id)}/submodel-elements/L[0]`))).toEqual({ modelType: 'SubmodelElementCollection', value: [prop('X', '2')] });
    expect((await send('GET', `/submodels/${b64(id)}/submodel-elements/L[1]`)).status).toBe(404);
  });

  it('an element read finds nothing by a path the document does not have', async () => {
    const id = 'urn:rows:absent';
    expect((await send('POST', '/submodels', sample(id))).status).toBe(201);
    for (const path of ['C.Nope', 'L.X', 'Pressure.X', 'C[0]', 'L[2]', 'L[0].Y']) {
      expect((await send('GET', `/submodels/${b64(id)}/submodel-elements/${path}`)).status, path).toBe(404);
    }
  });

  it('go with their submodel, and with their tenant', async () => {
    const id = 'urn:rows:gone';
    expect((await send('POST', '/submodels', sample(id))).status).toBe(201);
    const [{ seq }] = await server.dataSource.query('SELECT seq FROM submodels WHERE tenant_id = $1 AND id = $2', [tenant.id, id]);
    expect((await send('DELETE', `/submodels/${b64(id)}`)).status).toBe(204);
    const left = await server.dataSource.query('SELECT count(*)::int AS n FROM submodel_elements WHERE tenant_id = $1 AND submodel_seq = $2', [tenant.id, seq]);
    expect(left[0].n).toBe(0);

    const other = await server.createTenant();
    const otherApi = server.api(other.name);
    const res = await fetch(`${otherApi}/submodels`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(sample(id)) });
    expect(res.status).toBe(201);
    expect((await server.dataSource.query('SELECT count(*)::int AS n FROM submodel_elements WHERE tenant_id = $1', [other.id]))[0].n).toBe(9);
    await server.services.tenants.deleteIn(other.organizationId, other.id, null);
    expect((await server.dataSource.query('SELECT count(*)::int AS n FROM submodel_elements WHERE tenant_id = $1', [other.id]))[0].n).toBe(0);
  });
});
