import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { TenantEntity } from '../../src/management/tenants/tenant.entity';
import pg from 'pg';
import { TestServer, b64, startTestServer } from '../support/server';

/**
 * Element writes sent at the same time to one submodel. Each is read without a lock and written in one statement
 * that takes the submodel's lock and compares only what the edit depends on (docs/benchmarks.md, "Statements per
 * request"): writers of different elements, and PUTs of one leaf, never make each other read again (two statements
 * each, no transaction); writers whose edits depend on each other (adds to one collection, deletes of list items, a
 * whole-document write) read again or take the lock, and the submodel ends as some order of the writes leaves it.
 */

let server: TestServer;
let tenant: TenantEntity;
let api: string;

beforeAll(async () => {
  server = await startTestServer(inject('databaseUrl'), { readCache: { maxBytes: 0, ttlMs: 60_000 } });
  tenant = await server.createTenant({ prefix: 'concurrent' });
  api = server.api(tenant.name);
}, 120_000);

afterAll(async () => {
  await server?.close();
});

const WRITERS = 16;
const property = (idShort: string | undefined, value: string, valueType = 'xs:string') => ({ modelType: 'Property', ...(idShort ? { idShort } : {}), valueType, value });
const numbers = (n: number) => Array.from({ length: n }, (_, i) => i);

/** A submodel of `WRITERS` Properties, a collection of as many, and a list of ten integers. */
async function postSubmodel(id: string): Promise<string> {
  const doc = {
    modelType: 'Submodel',
    id,
    idShort: 'Concurrent',
    submodelElements: [
      ...numbers(WRITERS).map((i) => property(`P${i}`, 'start')),
      { modelType: 'SubmodelElementCollection', idShort: 'C', value: numbers(WRITERS).map((i) => property(`Q${i}`, 'start')) },
      { modelType: 'SubmodelElementList', idShort: 'L', typeValueListElement: 'Property', valueTypeListElement: 'xs:int', value: numbers(10).map((i) => property(undefined, String(i), 'xs:int')) },
    ],
  };
  const res = await fetch(`${api}/submodels`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(doc) });
  expect(res.status, await res.text()).toBe(201);
  return `${api}/submodels/${b64(id)}`;
}

const send = (url: string, method: string, body?: unknown) =>
  fetch(url, { method, headers: body === undefined ? {} : { 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) }).then(async (res) => ({
    status: res.status,
    text: await res.text(),
  }));

type Element = { idShort?: string; value?: unknown; modelType: string };
const readSubmodel = async (url: string) => {
  const res = await fetch(url);
  expect(res.status).toBe(200);
  return (await res.json()) as { submodelElements: Element[] };
};
const byIdShort = (elements: Element[], idShort: string) => elements.find((e) => e.idShort === idShort)!;

/**
 * Every statement the driver sends while `run` runs, whoever sends it (requests sent at once share the pool, whose
 * queue can run a statement outside its request's context: they are not told apart here).
 */
async function statementsOf(run: () => Promise<unknown>): Promise<string[]> {
  const sent: string[] = [];
  const original = pg.Client.prototype.query;
  pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    const first = args[0] as string | { text?: string } | undefined;
    const text = typeof first === 'string' ? first : first?.text;
    if (text) sent.push(text.replace(/\s+/g, ' ').trim());
    return (original as (...a: unknown[]) => unknown).apply(this, args);
  } as typeof pg.Client.prototype.query;
  try {
    await run();
  } finally {
    pg.Client.prototype.query = original;
  }
  return sent;
}

/** The statements of element writes: the read without a lock, the write with it. */
const elementReads = (statements: string[]) => statements.filter((text) => text.startsWith('WITH head AS MATERIALIZED (SELECT seq, version, top_elements_version'));
const elementWrites = (statements: string[]) => statements.filter((text) => text.startsWith('WITH lk AS MATERIALIZED'));
/** No statement of a transaction: every request went as statements in autocommit. */
const inTransaction = (statements: string[]) => statements.filter((text) => /^(START|BEGIN|COMMIT|ROLLBACK)\b/i.test(text));

/** Each of `n` element writes read once and wrote once: none read again, none took the lock in a transaction. */
function expectOneTurnEach(statements: string[], n: number): void {
  expect(inTransaction(statements)).toEqual([]);
  expect(elementReads(statements)).toHaveLength(n);
  expect(elementWrites(statements)).toHaveLength(n);
}

describe('element writes at the same time on one submodel', () => {
  it(`${WRITERS} PUTs of ${WRITERS} top-level Properties: two statements each, every value lands`, async () => {
    const url = await postSubmodel('urn:concurrent:top');
    await send(`${url}/submodel-elements/P0`, 'PUT', property('P0', 'warm'));
    let answers: { status: number; text: string }[] = [];
    const statements = await statementsOf(async () => {
      answers = await Promise.all(numbers(WRITERS).map((i) => send(`${url}/submodel-elements/P${i}`, 'PUT', property(`P${i}`, `v${i}`))));
    });
    expect(answers.map((a) => a.status)).toEqual(numbers(WRITERS).map(() => 204));
    expectOneTurnEach(statements, WRITERS);
    const { submodelElements } = await readSubmodel(url);
    for (const i of numbers(WRITERS)) expect(byIdShort(submodelElements, `P${i}`).value).toBe(`v${i}`);
  });

  it(`${WRITERS} PUTs of ${WRITERS} Properties in one collection: two statements each, every value lands`, async () => {
    const url = await postSubmodel('urn:concurrent:nested');
    let answers: { status: number; text: string }[] = [];
    const statements = await statementsOf(async () => {
      answers = await Promise.all(numbers(WRITERS).map((i) => send(`${url}/submodel-elements/C.Q${i}`, 'PUT', property(`Q${i}`, `w${i}`))));
    });
    expect(answers.map((a) => a.status)).toEqual(numbers(WRITERS).map(() => 204));
    expectOneTurnEach(statements, WRITERS);
    const collection = byIdShort((await readSubmodel(url)).submodelElements, 'C') as Element & { value: Element[] };
    expect(collection.value.map((e) => [e.idShort, e.value])).toEqual(numbers(WRITERS).map((i) => [`Q${i}`, `w${i}`]));
  });

  it(`${WRITERS} PUTs of one Property: two statements each, one of the values stays`, async () => {
    const url = await postSubmodel('urn:concurrent:same');
    let answers: { status: number; text: string }[] = [];
    const statements = await statementsOf(async () => {
      answers = await Promise.all(numbers(WRITERS).map((i) => send(`${url}/submodel-elements/P3`, 'PUT', property('P3', `s${i}`))));
    });
    expect(answers.map((a) => a.status)).toEqual(numbers(WRITERS).map(() => 204));
    expectOneTurnEach(statements, WRITERS);
    const { submodelElements } = await readSubmodel(url);
    expect(numbers(WRITERS).map((i) => `s${i}`)).toContain(byIdShort(submodelElements, 'P3').value);
    expect(submodelElements).toHaveLength(WRITERS + 2);
  });

  it(`${WRITERS} PATCHes of one Property's value: two statements each, one of the values stays`, async () => {
    const url = await postSubmodel('urn:concurrent:same-value');
    let answers: { status: number; text: string }[] = [];
    const statements = await statementsOf(async () => {
      answers = await Promise.all(numbers(WRITERS).map((i) => send(`${url}/submodel-elements/P3/$value`, 'PATCH', `s${i}`)));
    });
    expect(answers.map((a) => a.status)).toEqual(numbers(WRITERS).map(() => 204));
    expectOneTurnEach(statements, WRITERS);
    const { submodelElements } = await readSubmodel(url);
    expect(numbers(WRITERS).map((i) => `s${i}`)).toContain(byIdShort(submodelElements, 'P3').value);
  });

  it(`${WRITERS} PATCHes of one Property, each setting its value and category: two statements each, the rest stays`, async () => {
    const url = await postSubmodel('urn:concurrent:same-patch');
    let answers: { status: number; text: string }[] = [];
    const statements = await statementsOf(async () => {
      answers = await Promise.all(
        numbers(WRITERS).map((i) => send(`${url}/submodel-elements/P4?level=core`, 'PATCH', { ...property('P4', `p${i}`), category: 'PARAMETER' })),
      );
    });
    expect(answers.map((a) => a.status)).toEqual(numbers(WRITERS).map(() => 204));
    expectOneTurnEach(statements, WRITERS);
    const patched = byIdShort((await readSubmodel(url)).submodelElements, 'P4');
    expect(patched).toMatchObject({ valueType: 'xs:string', category: 'PARAMETER' });
    expect(numbers(WRITERS).map((i) => `p${i}`)).toContain(patched.value);
  });

  it('PATCHes of a Property beside a PUT that changes what they keep: each keeps the element as it is when it writes', async () => {
    const url = await postSubmodel('urn:concurrent:patch-keeps');
    const answers = await Promise.all([
      ...numbers(8).map((i) => send(`${url}/submodel-elements/P6?level=core`, 'PATCH', property('P6', `k${i}`))),
      send(`${url}/submodel-elements/P6`, 'PUT', { ...property('P6', 'put'), category: 'VARIABLE' }),
    ]);
    expect(answers.map((a) => a.status)).toEqual(numbers(9).map(() => 204));
    // Whatever the order, the category the PUT set stays: a PATCH made from the element before the PUT is made again.
    expect(byIdShort((await readSubmodel(url)).submodelElements, 'P6')).toMatchObject({ category: 'VARIABLE' });
  });

  it('value PATCHes beside a PUT that changes the valueType: no value is written that the type in place refuses', async () => {
    const url = await postSubmodel('urn:concurrent:value-type');
    const answers = await Promise.all([
      ...numbers(8).map(() => send(`${url}/submodel-elements/P5/$value`, 'PATCH', 'not a boolean')),
      send(`${url}/submodel-elements/P5`, 'PUT', property('P5', 'true', 'xs:boolean')),
    ]);
    // A value PATCH made before the PUT is 204 (the PUT then replaces it); one after it is refused.
    for (const answer of answers.slice(0, 8)) expect([204, 400]).toContain(answer.status);
    expect(answers[8].status).toBe(204);
    expect(byIdShort((await readSubmodel(url)).submodelElements, 'P5')).toMatchObject({ valueType: 'xs:boolean', value: 'true' });
  });

  it('adds of different idShorts to one collection and to the top level all land, each once', async () => {
    const url = await postSubmodel('urn:concurrent:adds');
    const answers = await Promise.all([
      ...numbers(8).map((i) => send(`${url}/submodel-elements/C`, 'POST', property(`New${i}`, 'n'))),
      ...numbers(8).map((i) => send(`${url}/submodel-elements`, 'POST', property(`Top${i}`, 't'))),
    ]);
    expect(answers.map((a) => a.status)).toEqual(numbers(16).map(() => 201));
    const { submodelElements } = await readSubmodel(url);
    const collection = byIdShort(submodelElements, 'C') as Element & { value: Element[] };
    expect(collection.value.map((e) => e.idShort).sort()).toEqual([...numbers(WRITERS).map((i) => `Q${i}`), ...numbers(8).map((i) => `New${i}`)].sort());
    expect(submodelElements.map((e) => e.idShort).filter((s) => s?.startsWith('Top')).sort()).toEqual(numbers(8).map((i) => `Top${i}`));
    for (const i of numbers(8)) expect((await send(`${url}/submodel-elements/C.New${i}`, 'GET')).status).toBe(200);
  });

  it('adds of one idShort: one is created, the others are 409', async () => {
    const url = await postSubmodel('urn:concurrent:same-add');
    const nested = await Promise.all(numbers(8).map((i) => send(`${url}/submodel-elements/C`, 'POST', property('Twin', `t${i}`))));
    const top = await Promise.all(numbers(8).map((i) => send(`${url}/submodel-elements`, 'POST', property('Twin', `t${i}`))));
    for (const answers of [nested, top]) expect(answers.map((a) => a.status).sort()).toEqual([201, ...numbers(7).map(() => 409)]);
    const { submodelElements } = await readSubmodel(url);
    expect(submodelElements.filter((e) => e.idShort === 'Twin')).toHaveLength(1);
    const collection = byIdShort(submodelElements, 'C') as Element & { value: Element[] };
    expect(collection.value.filter((e) => e.idShort === 'Twin')).toHaveLength(1);
  });

  it('deletes of the first list item: each deletes the item first at its time, the rest move up', async () => {
    const url = await postSubmodel('urn:concurrent:list');
    const answers = await Promise.all(numbers(5).map(() => send(`${url}/submodel-elements/${encodeURIComponent('L[0]')}`, 'DELETE')));
    expect(answers.map((a) => a.status)).toEqual(numbers(5).map(() => 204));
    const list = byIdShort((await readSubmodel(url)).submodelElements, 'L') as Element & { value: Element[] };
    expect(list.value.map((e) => e.value)).toEqual(['5', '6', '7', '8', '9']);
    for (const i of numbers(5)) {
      const res = await send(`${url}/submodel-elements/${encodeURIComponent(`L[${i}]`)}`, 'GET');
      expect(JSON.parse(res.text)).toMatchObject({ value: String(i + 5) });
    }
    expect((await send(`${url}/submodel-elements/${encodeURIComponent('L[5]')}`, 'GET')).status).toBe(404);
  });

  it('a PUT of the whole submodel among element PUTs and deletes: the submodel ends as one order of them leaves it', async () => {
    const url = await postSubmodel('urn:concurrent:whole');
    const whole = {
      modelType: 'Submodel',
      id: 'urn:concurrent:whole',
      idShort: 'Concurrent',
      submodelElements: [
        ...numbers(WRITERS).map((i) => property(`P${i}`, 'whole')),
        { modelType: 'SubmodelElementCollection', idShort: 'C', value: [property('Q0', 'whole'), property('Extra', 'whole')] },
      ],
    };
    const answers = await Promise.all([
      ...numbers(8).map((i) => send(`${url}/submodel-elements/P${i}`, 'PUT', property(`P${i}`, `e${i}`))),
      send(`${url}/submodel-elements/C.Q0`, 'PUT', property('Q0', 'element')),
      send(`${url}/submodel-elements/C.Q1`, 'DELETE'),
      send(url, 'PUT', whole),
    ]);
    // An element write after the whole PUT finds C.Q1 gone (404); before it, it is 204 and the PUT replaces all.
    expect(answers.slice(0, 9).map((a) => a.status)).toEqual(numbers(9).map(() => 204));
    expect([204, 404]).toContain(answers[9].status);
    expect(answers[10].status).toBe(204);
    const { submodelElements } = await readSubmodel(url);
    expect(submodelElements.map((e) => e.idShort)).toEqual([...numbers(WRITERS).map((i) => `P${i}`), 'C']);
    for (const i of numbers(8)) expect(['whole', `e${i}`]).toContain(byIdShort(submodelElements, `P${i}`).value);
    const collection = byIdShort(submodelElements, 'C') as Element & { value: Element[] };
    // The whole PUT's collection, with Q0 as the PUT or the element write left it: nothing else of the old one.
    expect(collection.value.map((e) => e.idShort)).toEqual(['Q0', 'Extra']);
    expect(['whole', 'element']).toContain(collection.value[0].value);
  });
});
