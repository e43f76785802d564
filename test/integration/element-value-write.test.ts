import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { onCitus } from '../../src/db/citus';
import type { TenantEntity } from '../../src/management/tenants/tenant.entity';
import { StatementRecorder } from '../support/statement-recorder';
import { TestServer, b64, startTestServer } from '../support/server';

/**
 * `PATCH …/$value` of a Property is one statement that reads nothing first: it writes only where it finds a Property
 * whose valueType takes the value (and `If-Match` met); everything else it leaves to the usual element write (a read,
 * then the write), which answers as it always did. Each refusal here is checked for its answer and for nothing
 * written (the entity tag and the element as they were), and the value written for its JSON (members in their order).
 */

let server: TestServer;
let tenant: TenantEntity;
let api: string;
const recorder = new StatementRecorder();

/** Whether the database is Citus, where every write takes the row lock in a transaction (docs/scale-out.md). */
let citus = false;

beforeAll(async () => {
  recorder.start();
  server = await startTestServer(inject('databaseUrl'), { readCache: { maxBytes: 0, ttlMs: 60_000 } });
  citus = await onCitus(server.dataSource);
  tenant = await server.createTenant({ prefix: 'valuewrite' });
  api = server.api(tenant.name);
}, 120_000);

afterAll(async () => {
  recorder.stop();
  await server?.close();
});

const TENANT_LOOKUP = /^SELECT "TenantEntity"\./;
const json = { 'content-type': 'application/json' };
let n = 0;

/** A submodel with Properties of several kinds, a Range, a collection and a list; its URL. */
async function postSubmodel(): Promise<string> {
  const id = `urn:valuewrite:${n++}`;
  const doc = {
    modelType: 'Submodel',
    id,
    idShort: 'Values',
    submodelElements: [
      { modelType: 'Property', idShort: 'Int', category: 'PARAMETER', valueType: 'xs:int', value: '1', description: [{ language: 'en', text: 'a "value": 1' }] },
      { idShort: 'Empty', valueType: 'xs:string', modelType: 'Property' },
      { modelType: 'Range', idShort: 'Span', valueType: 'xs:int', min: '1', max: '2' },
      { modelType: 'SubmodelElementCollection', idShort: 'C', value: [{ modelType: 'Property', idShort: 'Deep', valueType: 'xs:boolean', value: 'true' }] },
      { modelType: 'SubmodelElementList', idShort: 'L', typeValueListElement: 'Property', valueTypeListElement: 'xs:double', value: [{ modelType: 'Property', valueType: 'xs:double', value: '1.5' }] },
    ],
  };
  const res = await fetch(`${api}/submodels`, { method: 'POST', headers: json, body: JSON.stringify(doc) });
  expect(res.status, await res.text()).toBe(201);
  return `${api}/submodels/${b64(id)}`;
}

async function patchValue(submodel: string, path: string, value: unknown, headers: Record<string, string> = {}) {
  let status = 0;
  let text = '';
  const statements = await recorder.during(async () => {
    const res = await fetch(`${submodel}/submodel-elements/${encodeURIComponent(path)}/$value`, { method: 'PATCH', headers: { ...json, ...headers }, body: JSON.stringify(value) });
    status = res.status;
    text = await res.text();
  });
  return { status, text, statements: statements.map((s) => s.text).filter((t) => !TENANT_LOOKUP.test(t)) };
}

/** One statement in autocommit; on Citus, one transaction (docs/benchmarks.md, "Statements per request"). */
function expectOneStatement(statements: string[]) {
  if (!citus) return expect(statements).toHaveLength(1);
  expect(statements[0]).toBe('START TRANSACTION');
  expect(statements[statements.length - 1]).toBe('COMMIT');
}

const etagOf = async (submodel: string) => (await fetch(submodel, { method: 'GET' })).headers.get('etag');
const element = async (submodel: string, path: string) => {
  const res = await fetch(`${submodel}/submodel-elements/${encodeURIComponent(path)}`);
  return { status: res.status, text: await res.text() };
};

/** The answer is `status`, and nothing of the submodel changed. */
async function refusedUnchanged(submodel: string, path: string, value: unknown, status: number, headers: Record<string, string> = {}) {
  const tag = await etagOf(submodel);
  const before = await element(submodel, path);
  const res = await patchValue(submodel, path, value, headers);
  expect(res.status, res.text).toBe(status);
  expect(await etagOf(submodel)).toBe(tag);
  expect(await element(submodel, path)).toEqual(before);
  return res;
}

describe('PATCH $value of a Property in one statement', () => {
  it('writes the value in one statement, the element its members in their order, the rest as it was', async () => {
    const sm = await postSubmodel();
    const tag = await etagOf(sm);
    const before = JSON.parse((await element(sm, 'Int')).text) as Record<string, unknown>;
    const res = await patchValue(sm, 'Int', '42');
    expect(res.status, res.text).toBe(204);
    expectOneStatement(res.statements);
    expect(await etagOf(sm)).not.toBe(tag);
    const after = JSON.parse((await element(sm, 'Int')).text) as Record<string, unknown>;
    expect(Object.keys(after)).toEqual(Object.keys(before));
    expect(after).toEqual({ ...before, value: '42' });
    // A Property without a value gets it last, as JSON.stringify({ ...element, value }) has it.
    const empty = JSON.parse((await element(sm, 'Empty')).text) as Record<string, unknown>;
    expectOneStatement((await patchValue(sm, 'Empty', 'text "quoted" \\ é\n')).statements);
    const filled = JSON.parse((await element(sm, 'Empty')).text) as Record<string, unknown>;
    expect(Object.keys(filled)).toEqual([...Object.keys(empty), 'value']);
    expect(filled.value).toBe('text "quoted" \\ é\n');
    // Deeper down, and a list's item; a number and a boolean as the value-only form has them.
    expectOneStatement((await patchValue(sm, 'C.Deep', false)).statements);
    expectOneStatement((await patchValue(sm, 'L[0]', 2.25)).statements);
    const whole = (await (await fetch(sm)).json()) as { submodelElements: { value?: unknown }[] };
    expect(whole.submodelElements.map((e) => e.value)).toEqual([
      '42',
      'text "quoted" \\ é\n',
      undefined,
      [{ modelType: 'Property', idShort: 'Deep', valueType: 'xs:boolean', value: 'false' }],
      [{ modelType: 'Property', valueType: 'xs:double', value: '2.25' }],
    ]);
  });

  it('with If-Match: writes on the current entity tag, 412 and nothing written on another', async () => {
    const sm = await postSubmodel();
    const stale = await refusedUnchanged(sm, 'Int', '7', 412, { 'if-match': '"0-0"' });
    // The one statement wrote nothing; the usual write read and refused.
    expect(stale.statements.length).toBeGreaterThan(1);
    const res = await patchValue(sm, 'Int', '7', { 'if-match': (await etagOf(sm))! });
    expect(res.status, res.text).toBe(204);
    expectOneStatement(res.statements);
  });

  it('leaves to the usual write, which refuses it as before: a value the valueType refuses, no element, no submodel', async () => {
    const sm = await postSubmodel();
    const refused = await refusedUnchanged(sm, 'Int', 'seven', 400);
    expect(refused.text).toContain('consistent with the value type');
    expect(refused.statements.length).toBeGreaterThan(1);
    await refusedUnchanged(sm, 'C.Deep', 'maybe', 400);
    await refusedUnchanged(sm, 'L[0]', 'x', 400);
    // A character XML cannot carry (AASd-130): no valueType takes it, so the statement is not sent.
    await refusedUnchanged(sm, 'Empty', 'bell\u0007', 400);
    expect((await patchValue(sm, 'Nothing', '1')).status).toBe(404);
    expect((await patchValue(sm, 'C.Nothing', '1')).status).toBe(404);
    expect((await patchValue(sm, 'L[5]', '1')).status).toBe(404);
    expect((await patchValue(`${api}/submodels/${b64('urn:valuewrite:absent')}`, 'Int', '1')).status).toBe(404);
  });

  it('leaves to the usual write what is not a Property, or not a value the statement takes', async () => {
    const sm = await postSubmodel();
    // A Range with a scalar: refused by the usual write, nothing written.
    await refusedUnchanged(sm, 'Span', '3', 400);
    // A Range's value-only form: written the usual way.
    const range = await patchValue(sm, 'Span', { min: 3, max: 4 });
    expect(range.status, range.text).toBe(204);
    expect(range.statements.length).toBeGreaterThan(1);
    expect(JSON.parse((await element(sm, 'Span')).text)).toMatchObject({ min: '3', max: '4' });
    // A collection with a scalar.
    await refusedUnchanged(sm, 'C', '1', 400);
    // null removes the value: the usual write.
    const removed = await patchValue(sm, 'Int', null);
    expect(removed.status, removed.text).toBe(204);
    expect(JSON.parse((await element(sm, 'Int')).text)).not.toHaveProperty('value');
  });

  it('meets other writes of the same submodel: every write lands, in some order', async () => {
    const sm = await postSubmodel();
    const writes = await Promise.all([
      ...Array.from({ length: 8 }, (_, i) => patchValue(sm, 'Int', String(100 + i))),
      ...Array.from({ length: 4 }, (_, i) =>
        fetch(`${sm}/submodel-elements/Empty`, { method: 'PUT', headers: json, body: JSON.stringify({ modelType: 'Property', idShort: 'Empty', valueType: 'xs:string', value: `put${i}` }) }).then((res) => ({ status: res.status, text: '' })),
      ),
      ...Array.from({ length: 4 }, (_, i) => patchValue(sm, 'C.Deep', i % 2 === 0)),
    ]);
    for (const write of writes) expect(write.status, write.text).toBe(204);
    const after = (await (await fetch(sm)).json()) as { submodelElements: { idShort: string; value?: unknown }[] };
    expect(String(after.submodelElements[0].value)).toMatch(/^10[0-7]$/);
    expect(String(after.submodelElements[1].value)).toMatch(/^put[0-3]$/);
    // The element rows and the submodel's size agree with a whole read: a replacement with the same document is a
    // write of nothing, so the entity tag moves but the content reads the same.
    const whole = await (await fetch(sm)).text();
    const replaced = await fetch(sm, { method: 'PUT', headers: json, body: whole });
    expect(replaced.status).toBe(204);
    expect(await (await fetch(sm)).text()).toBe(whole);
  });
});
