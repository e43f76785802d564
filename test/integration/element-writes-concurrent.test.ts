import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { TenantEntity } from '../../src/management/tenants/tenant.entity';
import pg from 'pg';
import { TestServer, b64, startTestServer } from '../support/server';
import { statementTexts } from '../support/statement-recorder';

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
 * queue can run a statement outside its request's context, and their writes may go together in one group: they are
 * not told apart here).
 */
async function statementsOf(run: () => Promise<unknown>): Promise<string[]> {
  const sent: string[] = [];
  const original = pg.Client.prototype.query;
  pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    for (const text of statementTexts(args[0])) sent.push(text.replace(/\s+/g, ' ').trim());
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

  it(`${WRITERS} PATCHes of one Property's value: one statement each, one of the values stays`, async () => {
    const url = await postSubmodel('urn:concurrent:same-value');
    let answers: { status: number; text: string }[] = [];
    const statements = await statementsOf(async () => {
      answers = await Promise.all(numbers(WRITERS).map((i) => send(`${url}/submodel-elements/P3/$value`, 'PATCH', `s${i}`)));
    });
    expect(answers.map((a) => a.status)).toEqual(numbers(WRITERS).map(() => 204));
    // Each the one statement of a Property's value (docs/benchmarks.md): waiting for the lock behind the others, it
    // still writes (only element writes came between its start and the lock); no read, no turn again.
    expect(inTransaction(statements)).toEqual([]);
    expect(elementReads(statements)).toEqual([]);
    expect(statements.filter((text) => text.startsWith('WITH snap AS MATERIALIZED') && text.includes('new_row AS MATERIALIZED'))).toHaveLength(WRITERS);
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

  /** The element rows of the submodel `id`: `ord` (as text) and path, in `ord` order. */
  const rowsOf = (id: string) =>
    server.dataSource.query(
      `SELECT e.ord::text AS ord, e.path FROM submodel_elements e JOIN submodels s ON s.tenant_id = e.tenant_id AND s.seq = e.submodel_seq
        WHERE s.tenant_id = $1 AND s.id = $2 ORDER BY e.ord`,
      [tenant.id, id],
    ) as Promise<{ ord: string; path: string }[]>;
  /** The children of `parent` ('' for the top level) among `rows`: their paths, in `ord` order, each `ord` once. */
  const childrenIn = (rows: { ord: string; path: string }[], parent: string) => {
    const children = rows.filter((row) => (parent ? row.path.startsWith(`${parent}.`) && !row.path.slice(parent.length + 1).includes('.') : !/[.[]/.test(row.path)));
    expect(new Set(children.map((row) => row.ord)).size).toBe(children.length);
    expect(new Set(rows.map((row) => row.ord)).size).toBe(rows.length);
    return children.map((row) => row.path);
  };

  it(`${WRITERS} POSTs of different idShorts to the top level: two statements each, all land once, after the elements there were`, async () => {
    const id = 'urn:concurrent:adds-top';
    const url = await postSubmodel(id);
    await send(`${url}/submodel-elements`, 'POST', property('Warm', 'w'));
    let answers: { status: number; text: string }[] = [];
    const statements = await statementsOf(async () => {
      answers = await Promise.all(numbers(WRITERS).map((i) => send(`${url}/submodel-elements`, 'POST', property(`Add${i}`, `a${i}`))));
    });
    expect(answers.map((a) => a.status)).toEqual(numbers(WRITERS).map(() => 201));
    // None read again, none took the lock in a transaction: no add depends on another's.
    expectOneTurnEach(statements, WRITERS);
    const top = childrenIn(await rowsOf(id), '');
    expect(top.slice(0, WRITERS + 3)).toEqual([...numbers(WRITERS).map((i) => `P${i}`), 'C', 'L', 'Warm']);
    expect(top.slice(WRITERS + 3).sort()).toEqual(numbers(WRITERS).map((i) => `Add${i}`).sort());
    const { submodelElements } = await readSubmodel(url);
    expect(submodelElements.map((e) => e.idShort)).toEqual(top);
    for (const i of numbers(WRITERS)) expect(byIdShort(submodelElements, `Add${i}`).value).toBe(`a${i}`);
  });

  it(`${WRITERS} POSTs of different idShorts into one collection: two statements each, all land once`, async () => {
    const id = 'urn:concurrent:adds-nested';
    const url = await postSubmodel(id);
    let answers: { status: number; text: string }[] = [];
    const statements = await statementsOf(async () => {
      answers = await Promise.all(
        numbers(WRITERS).map((i) => send(`${url}/submodel-elements/C`, 'POST', { modelType: 'SubmodelElementCollection', idShort: `Sub${i}`, value: [property('Inner', `i${i}`)] })),
      );
    });
    expect(answers.map((a) => a.status)).toEqual(numbers(WRITERS).map(() => 201));
    expectOneTurnEach(statements, WRITERS);
    const rows = await rowsOf(id);
    const inC = childrenIn(rows, 'C');
    expect(inC.slice(0, WRITERS)).toEqual(numbers(WRITERS).map((i) => `C.Q${i}`));
    expect(inC.slice(WRITERS).sort()).toEqual(numbers(WRITERS).map((i) => `C.Sub${i}`).sort());
    for (const i of numbers(WRITERS)) expect(childrenIn(rows, `C.Sub${i}`)).toEqual([`C.Sub${i}.Inner`]);
    for (const i of numbers(WRITERS)) {
      const res = await send(`${url}/submodel-elements/C.Sub${i}.Inner`, 'GET');
      expect(JSON.parse(res.text)).toMatchObject({ value: `i${i}` });
    }
  });

  it(`${WRITERS} DELETEs of different elements, at the top level and in a collection: two statements each, all go`, async () => {
    const id = 'urn:concurrent:deletes';
    const url = await postSubmodel(id);
    let answers: { status: number; text: string }[] = [];
    const statements = await statementsOf(async () => {
      answers = await Promise.all([
        ...numbers(WRITERS / 2).map((i) => send(`${url}/submodel-elements/P${i * 2}`, 'DELETE')),
        ...numbers(WRITERS / 2).map((i) => send(`${url}/submodel-elements/C.Q${i * 2 + 1}`, 'DELETE')),
      ]);
    });
    expect(answers.map((a) => a.status)).toEqual(numbers(WRITERS).map(() => 204));
    expectOneTurnEach(statements, WRITERS);
    const rows = await rowsOf(id);
    expect(childrenIn(rows, '')).toEqual([...numbers(WRITERS / 2).map((i) => `P${i * 2 + 1}`), 'C', 'L']);
    expect(childrenIn(rows, 'C')).toEqual(numbers(WRITERS / 2).map((i) => `C.Q${i * 2}`));
  });

  it('adds and deletes at once: the submodel ends as a serial order of them leaves it, an add after the last child there was', async () => {
    const id = 'urn:concurrent:mixed';
    const url = await postSubmodel(id);
    const answers = await Promise.all([
      ...numbers(6).map((i) => send(`${url}/submodel-elements`, 'POST', property(`M${i}`, 'm'))),
      ...numbers(6).map((i) => send(`${url}/submodel-elements/P${i}`, 'DELETE')),
      ...numbers(4).map((i) => send(`${url}/submodel-elements/C`, 'POST', property(`N${i}`, 'n'))),
      ...numbers(4).map((i) => send(`${url}/submodel-elements/C.Q${i}`, 'DELETE')),
      // The last top-level element, deleted while elements are appended after it.
      send(`${url}/submodel-elements/L`, 'DELETE'),
    ]);
    expect(answers.map((a) => a.status)).toEqual([...numbers(6).map(() => 201), ...numbers(6).map(() => 204), ...numbers(4).map(() => 201), ...numbers(5).map(() => 204)]);
    const rows = await rowsOf(id);
    const top = childrenIn(rows, '');
    expect(top.slice(0, WRITERS - 6 + 1)).toEqual([...numbers(WRITERS - 6).map((i) => `P${i + 6}`), 'C']);
    expect(top.slice(WRITERS - 6 + 1).sort()).toEqual(numbers(6).map((i) => `M${i}`));
    const inC = childrenIn(rows, 'C');
    expect(inC.slice(0, WRITERS - 4)).toEqual(numbers(WRITERS - 4).map((i) => `C.Q${i + 4}`));
    expect(inC.slice(WRITERS - 4).sort()).toEqual(numbers(4).map((i) => `C.N${i}`));
    expect(rows.filter((row) => row.path.startsWith('L'))).toEqual([]);
    // What is read is what the rows say.
    expect((await readSubmodel(url)).submodelElements.map((e) => e.idShort)).toEqual(top);
  });

  it('adds into a collection while it is deleted: each add lands before the delete (201) or finds nothing (404); no row stays behind', async () => {
    const id = 'urn:concurrent:add-delete-parent';
    const url = await postSubmodel(id);
    const answers = await Promise.all([
      ...numbers(8).map((i) => send(`${url}/submodel-elements/C`, 'POST', property(`Late${i}`, 'l'))),
      send(`${url}/submodel-elements/C`, 'DELETE'),
      ...numbers(8).map((i) => send(`${url}/submodel-elements/C`, 'POST', property(`Later${i}`, 'l'))),
    ]);
    for (const answer of [...answers.slice(0, 8), ...answers.slice(9)]) expect([201, 404]).toContain(answer.status);
    expect(answers[8].status).toBe(204);
    expect((await rowsOf(id)).filter((row) => row.path.startsWith('C'))).toEqual([]);
  });

  it('adds into a collection beside a PUT that replaces it: the collection ends as a serial order leaves it', async () => {
    const id = 'urn:concurrent:add-put-parent';
    const url = await postSubmodel(id);
    const replacement = { modelType: 'SubmodelElementCollection', idShort: 'C', value: [...numbers(WRITERS + 4).map((i) => property(`Q${i}`, 'put'))] };
    const answers = await Promise.all([
      ...numbers(8).map((i) => send(`${url}/submodel-elements/C`, 'POST', property(`Q${WRITERS + i}`, 'add'))),
      send(`${url}/submodel-elements/C`, 'PUT', replacement),
    ]);
    // An add of Q16..Q19 after the PUT finds its idShort taken (409); any add before it is replaced by the PUT.
    for (const [i, answer] of answers.slice(0, 8).entries()) expect(i < 4 ? [201, 409] : [201]).toContain(answer.status);
    expect(answers[8].status).toBe(204);
    const inC = childrenIn(await rowsOf(id), 'C');
    expect(inC.slice(0, WRITERS + 4)).toEqual(numbers(WRITERS + 4).map((i) => `C.Q${i}`));
    // The adds after the PUT, each once; those before it went with the PUT.
    expect(new Set(inC).size).toBe(inC.length);
  });

  it('POSTs into a list: every item lands at its own index, the list dense', async () => {
    const id = 'urn:concurrent:list-adds';
    const url = await postSubmodel(id);
    const answers = await Promise.all(numbers(8).map((i) => send(`${url}/submodel-elements/L`, 'POST', property(undefined, String(100 + i), 'xs:int'))));
    expect(answers.map((a) => a.status)).toEqual(numbers(8).map(() => 201));
    const list = byIdShort((await readSubmodel(url)).submodelElements, 'L') as Element & { value: Element[] };
    expect(list.value.slice(0, 10).map((e) => e.value)).toEqual(numbers(10).map(String));
    expect(list.value.slice(10).map((e) => e.value).sort()).toEqual(numbers(8).map((i) => String(100 + i)));
    const rows = (await rowsOf(id)).filter((row) => row.path.startsWith('L['));
    expect(rows.map((row) => row.path)).toEqual(numbers(18).map((i) => `L[${i}]`));
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
