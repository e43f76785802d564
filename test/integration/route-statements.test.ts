import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { onCitus } from '../../src/db/citus';
import type { TenantEntity } from '../../src/management/tenants/tenant.entity';
import { freshDatabase } from '../support/fresh-database';
import { StatementRecorder } from '../support/statement-recorder';
import { TestServer, b64, sampleShell, startTestServer } from '../support/server';

/**
 * The statements each AAS route sends to the database per request, held to the numbers docs/benchmarks.md documents
 * ("Statements per request"): a write of a shell, submodel or concept description is one statement in autocommit,
 * a read by id or page is one; an element write is two in autocommit (the rows it reads, without a lock; the write,
 * which takes the lock and compares what the edit depends on; a PATCH $value of a Property is the write alone), a PATCH of a whole document or a PUT of one that has
 * violations two (the read it is made or judged from, the write). On PostgreSQL and on the embedded database alike; on Citus writes take the
 * locking transaction (docs/scale-out.md): there the reads are held to their numbers and each write to one transaction. The statements are recorded at the driver (`StatementRecorder`), so a `START` and
 * `COMMIT` count as the statements they are. The read cache is off (every read reaches the database), change events
 * are on for the tenant (the outbox row is written), and every route runs once unrecorded first, so what a process
 * does once (the question whether the database is Citus) is not counted. Nor is the tenant's look-up by name, which
 * the server caches for a few seconds (`TenantService`): it falls into some request once in that time, whichever.
 */

/** The tenant's look-up by name (not counted: see above). */
const TENANT_LOOKUP = /^SELECT "TenantEntity"\./;

/** Statements per request, by route (docs/benchmarks.md). */
const DOCUMENTED: Record<string, number> = {
  'POST /shells': 1,
  'POST /shells (409, exists)': 1,
  'GET /shells': 1,
  'GET /shells/{id}': 1,
  'GET /shells/{id} (404)': 1,
  // The read before Koa finds it must be mapped; the route looks again (the read cache, off here, answers that look
  // when it is on) and reads the document to map it.
  'GET /submodels/{id} (needs V3.1, read through V3.0)': 3,
  'PUT /shells/{id}': 1,
  'PUT /shells/{id} (412, stale If-Match)': 1,
  'GET /shells/{id}/asset-information': 1,
  'PUT /shells/{id}/asset-information': 2,
  'POST /shells/{id}/submodel-refs': 2,
  'GET /shells/{id}/submodel-refs': 1,
  'POST /submodels': 1,
  'GET /submodels': 1,
  'GET /submodels/{id}': 1,
  'GET /submodels/{id}/$value': 1,
  'GET /submodels/{id}/$metadata': 1,
  'GET /shells/{id}/submodels/{id}': 2,
  'PUT /submodels/{id}': 1,
  'PATCH /submodels/{id}': 2,
  'PATCH /submodels/{id}/$metadata': 2,
  'PATCH /submodels/{id}/$value': 2,
  'GET /submodels/{id}/submodel-elements': 1,
  'GET /submodels/{id}/submodel-elements/{path}': 1,
  'POST /submodels/{id}/submodel-elements': 2,
  'POST /submodels/{id}/submodel-elements/{path}': 2,
  'PUT /submodels/{id}/submodel-elements/{path}': 2,
  'PATCH /submodels/{id}/submodel-elements/{path}': 2,
  'PATCH /submodels/{id}/submodel-elements/{path}/$value': 1,
  'PATCH /submodels/{id}/submodel-elements/{path}/$value (400, refused by the valueType)': 2,
  'PATCH /submodels/{id}/submodel-elements/{path}/$value (not a Property)': 2,
  'DELETE /submodels/{id}/submodel-elements/{path}': 2,
  'PUT /api/v3.1/submodels/{id}/submodel-elements/{path} (V3.0 content)': 2,
  'POST /api/v3.1/submodels/{id}/submodel-elements (V3.1 content)': 2,
  'PUT /api/v3.1/submodels/{id}/submodel-elements/{path} (V3.1 content)': 2,
  'DELETE /submodels/{id}/submodel-elements/{list item}': 2,
  'DELETE /shells/{id}/submodel-refs/{id}': 2,
  'DELETE /submodels/{id}': 1,
  'POST /concept-descriptions': 1,
  'GET /concept-descriptions': 1,
  'GET /concept-descriptions/{id}': 1,
  'PUT /concept-descriptions/{id}': 1,
  'DELETE /concept-descriptions/{id}': 1,
  'DELETE /shells/{id}': 1,
  'GET /semantics/resolve': 1,
  'GET /semantics/resolve (equivalent)': 1,
  'GET /semantics/resolve (equivalent, through a set)': 1,
};

const recorder = new StatementRecorder();
let server: TestServer;
let tenant: TenantEntity;

beforeAll(async () => {
  recorder.start();
  server = await startTestServer(inject('databaseUrl'), { readCache: { maxBytes: 0, ttlMs: 60_000 } });
  tenant = await server.createTenant({ prefix: 'stmts', eventsEnabled: true });
}, 120_000);

afterAll(async () => {
  recorder.stop();
  await server?.close();
});

const property = (idShort: string | undefined, value: string, valueType = 'xs:string') => ({ modelType: 'Property', ...(idShort ? { idShort } : {}), valueType, value });
const submodel = (id: string, idShort = 'Counted') => ({
  modelType: 'Submodel',
  id,
  idShort,
  submodelElements: [
    property('Top', 'one'),
    {
      modelType: 'SubmodelElementCollection',
      idShort: 'Outer',
      value: [
        property('Leaf', 'deep'),
        { modelType: 'SubmodelElementList', idShort: 'List', typeValueListElement: 'Property', valueTypeListElement: 'xs:int', value: [property(undefined, '1', 'xs:int'), property(undefined, '2', 'xs:int')] },
      ],
    },
  ],
});

/** One pass over the routes, on documents of their own (`run`): each route's statements, by its label. */
async function sweep(run: string, record: boolean, on: { server: TestServer; tenant: TenantEntity } = { server, tenant }): Promise<Map<string, string[]>> {
  const api = on.server.api(on.tenant.name);
  const counted = new Map<string, string[]>();
  const call = async (label: string, method: string, path: string, body: unknown, expected: number, headers: Record<string, string> = {}) => {
    let status = 0;
    let text = '';
    const send = async () => {
      const res = await fetch(path.startsWith('http') ? path : `${api}${path}`, {
        method,
        headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      status = res.status;
      text = await res.text();
    };
    const statements = record ? await recorder.during(send) : (await send(), []);
    expect(status, `${label}: ${text.slice(0, 300)}`).toBe(expected);
    if (record) counted.set(label, statements.map((s) => s.text.replace(/\s+/g, ' ').trim()).filter((text) => !TENANT_LOOKUP.test(text)));
  };
  const shell = `urn:stmts:${run}:shell`;
  const sm = `urn:stmts:${run}:sm`;
  const cd = `urn:stmts:${run}:cd`;
  const S = `/shells/${b64(shell)}`;
  const M = `/submodels/${b64(sm)}`;
  const C = `/concept-descriptions/${b64(cd)}`;
  const E = (path: string) => `${M}/submodel-elements/${encodeURIComponent(path)}`;
  const smRef = { type: 'ModelReference', keys: [{ type: 'Submodel', value: sm }] };

  await call('POST /shells', 'POST', '/shells', sampleShell(shell), 201);
  await call('POST /shells (409, exists)', 'POST', '/shells', sampleShell(shell), 409);
  await call('GET /shells', 'GET', '/shells?limit=5', undefined, 200);
  await call('GET /shells/{id}', 'GET', S, undefined, 200);
  await call('GET /shells/{id} (404)', 'GET', `/shells/${b64(`${shell}:absent`)}`, undefined, 404);
  await call('PUT /shells/{id}', 'PUT', S, sampleShell(shell, { idShort: 'Renamed' }), 204);
  await call('PUT /shells/{id} (412, stale If-Match)', 'PUT', S, sampleShell(shell), 412, { 'if-match': '"1-1"' });
  await call('GET /shells/{id}/asset-information', 'GET', `${S}/asset-information`, undefined, 200);
  await call('PUT /shells/{id}/asset-information', 'PUT', `${S}/asset-information`, { assetKind: 'Type', globalAssetId: `${shell}#type` }, 204);
  await call('POST /submodels', 'POST', '/submodels', submodel(sm), 201);
  await call('POST /shells/{id}/submodel-refs', 'POST', `${S}/submodel-refs`, smRef, 201);
  await call('GET /shells/{id}/submodel-refs', 'GET', `${S}/submodel-refs`, undefined, 200);
  await call('GET /submodels', 'GET', '/submodels?limit=5', undefined, 200);
  await call('GET /submodels/{id}', 'GET', M, undefined, 200);
  await call('GET /submodels/{id}/$value', 'GET', `${M}/$value`, undefined, 200);
  await call('GET /submodels/{id}/$metadata', 'GET', `${M}/$metadata`, undefined, 200);
  await call('GET /shells/{id}/submodels/{id}', 'GET', `${S}${M}`, undefined, 200);
  await call('PUT /submodels/{id}', 'PUT', M, submodel(sm, 'Replaced'), 204);
  await call('PATCH /submodels/{id}', 'PATCH', M, submodel(sm, 'Patched'), 204);
  await call('PATCH /submodels/{id}/$metadata', 'PATCH', `${M}/$metadata`, { modelType: 'Submodel', id: sm, category: 'PARAMETER' }, 204);
  await call('PATCH /submodels/{id}/$value', 'PATCH', `${M}/$value`, { Top: 'two' }, 204);
  await call('GET /submodels/{id}/submodel-elements', 'GET', `${M}/submodel-elements`, undefined, 200);
  await call('GET /submodels/{id}/submodel-elements/{path}', 'GET', E('Outer.Leaf'), undefined, 200);
  await call('POST /submodels/{id}/submodel-elements', 'POST', `${M}/submodel-elements`, property('Added', 'new'), 201);
  await call('POST /submodels/{id}/submodel-elements/{path}', 'POST', E('Outer'), property('Child', 'new'), 201);
  await call('PUT /submodels/{id}/submodel-elements/{path}', 'PUT', E('Outer.Leaf'), property('Leaf', 'replaced'), 204);
  await call('PATCH /submodels/{id}/submodel-elements/{path}', 'PATCH', E('Outer.Leaf'), property('Leaf', 'patched'), 204);
  await call('PATCH /submodels/{id}/submodel-elements/{path}/$value', 'PATCH', `${E('Outer.Leaf')}/$value`, 'valued', 204);
  // A Property's value is one statement; one its valueType refuses is answered after the usual read (the write
  // statement writes nothing), and a value of another kind of element goes the usual way (docs/benchmarks.md).
  await call('PATCH /submodels/{id}/submodel-elements/{path}/$value (400, refused by the valueType)', 'PATCH', `${E('Outer.List[0]')}/$value`, 'seven', 400);
  await call('PATCH /submodels/{id}/submodel-elements/{path}/$value (not a Property)', 'PATCH', `${E('Outer.List')}/$value`, ['7', '8'], 204);
  await call('DELETE /submodels/{id}/submodel-elements/{path}', 'DELETE', E('Added'), undefined, 204);
  // Through V3.1: V3.0 content costs what it does through V3.0; so does an element that needs V3.1, whose write
  // records in the same statement that the submodel needs V3.1 (docs/aas-versions.md).
  const v31 = api.replace(/\/api\/v3\.0$/, '/api/v3.1');
  await call('PUT /api/v3.1/submodels/{id}/submodel-elements/{path} (V3.0 content)', 'PUT', `${v31}${E('Outer.Leaf')}`, property('Leaf', 'v31'), 204);
  await call('POST /api/v3.1/submodels/{id}/submodel-elements (V3.1 content)', 'POST', `${v31}${M}/submodel-elements`, { modelType: 'Entity', idShort: 'Station' }, 201);
  await call('PUT /api/v3.1/submodels/{id}/submodel-elements/{path} (V3.1 content)', 'PUT', `${v31}${E('Station')}`, { modelType: 'Entity', idShort: 'Station', globalAssetId: 'urn:s' }, 204);
  // Now a submodel that needs V3.1, read through V3.0: the read before Koa leaves it to the route, which maps it down.
  await call('GET /submodels/{id} (needs V3.1, read through V3.0)', 'GET', M, undefined, 200);
  await call('DELETE /submodels/{id}/submodel-elements/{list item}', 'DELETE', E('Outer.List[0]'), undefined, 204);
  await call('DELETE /shells/{id}/submodel-refs/{id}', 'DELETE', `${S}/submodel-refs/${b64(sm)}`, undefined, 204);
  await call('DELETE /submodels/{id}', 'DELETE', M, undefined, 204);
  await call('POST /concept-descriptions', 'POST', '/concept-descriptions', { modelType: 'ConceptDescription', id: cd, idShort: 'Cd' }, 201);
  await call('GET /concept-descriptions', 'GET', '/concept-descriptions?limit=5', undefined, 200);
  await call('GET /concept-descriptions/{id}', 'GET', C, undefined, 200);
  await call('PUT /concept-descriptions/{id}', 'PUT', C, { modelType: 'ConceptDescription', id: cd, idShort: 'Cd2' }, 204);
  await call('DELETE /concept-descriptions/{id}', 'DELETE', C, undefined, 204);
  await call('DELETE /shells/{id}', 'DELETE', S, undefined, 204);
  // The semantic connector's resolve: one statement, with the equivalence keys computed in it.
  const semantics = `${api.replace(/\/api\/v3\.0$/, '')}/sphere/api/v1.0/semantics`;
  const declared = await fetch(`${semantics}/equivalence-sets`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ members: [`urn:stmts:${run}:a`, `urn:stmts:${run}:b`] }) });
  expect(declared.status).toBe(201);
  await call('GET /semantics/resolve', 'GET', `${semantics}/resolve?semanticId=${b64('0173-1#02-AAO677#002')}`, undefined, 200);
  await call('GET /semantics/resolve (equivalent)', 'GET', `${semantics}/resolve?semanticId=${b64('0173-1#02-AAO677#001')}&matching=equivalent`, undefined, 200);
  await call('GET /semantics/resolve (equivalent, through a set)', 'GET', `${semantics}/resolve?semanticId=${b64(`urn:stmts:${run}:a`)}&matching=equivalent`, undefined, 200);
  return counted;
}

/** Statements of the writes of a submodel of more than 5,000 elements (docs/benchmarks.md), for 5,001. */
const MANY_ELEMENTS_DOCUMENTED = { 'POST /submodels': 8, 'PUT /submodels/{id}': 10, 'DELETE /submodels/{id}': 1 };

describe('statements per request of the AAS routes', () => {
  it('sends each route its documented number of statements', async () => {
    await sweep('warm', false);
    const all = await sweep('counted', true);
    // On Citus the reads (the semantic connector's resolves among them) are held to their numbers, and every write is
    // one transaction, the locking one (docs/scale-out.md).
    const citus = await onCitus(server.dataSource);
    const isRead = (label: string) => label.startsWith('GET ');
    const counted = new Map([...all].filter(([label]) => !citus || isRead(label)));
    const documented = Object.fromEntries(Object.entries(DOCUMENTED).filter(([label]) => !citus || isRead(label)));
    const numbers = Object.fromEntries([...counted].map(([label, statements]) => [label, statements.length]));
    const over = [...counted].filter(([label, statements]) => statements.length !== DOCUMENTED[label]);
    const detail = over.map(([label, statements]) => `${label}: ${statements.length}\n  ${statements.map((s) => s.slice(0, 160)).join('\n  ')}`).join('\n');
    expect(numbers, detail).toEqual(documented);
    if (citus) {
      const writes = [...all].filter(([label]) => !isRead(label));
      expect(writes.length).toBeGreaterThan(20);
      const notOneTransaction = writes
        .filter(([, statements]) => statements[0] !== 'START TRANSACTION' || !['COMMIT', 'ROLLBACK'].includes(statements.at(-1)!) || statements.slice(1, -1).some((s) => /^(START|COMMIT|ROLLBACK)\b/.test(s)))
        .map(([label, statements]) => `${label}: ${statements.join(' | ').slice(0, 300)}`);
      expect(notOneTransaction, 'writes on Citus that are not one transaction').toEqual([]);
    }
  }, 120_000);

  it('plans the one-statement PATCH $value and the reads of element writes once per connection after their first runs, not at every run', async () => {
    // Not on Citus, which plans a statement it sends to a worker at each run (the worker plans its text anew).
    if (await onCitus(server.dataSource)) return;
    // PostgreSQL plans a named statement for its values at its first five runs, then takes the plan for any values
    // unless the plans for the values keep looking cheaper; then it plans at every run. These did, for the count of
    // elements above the element (a generate_series the custom plans knew and the generic one guessed at 1,000), and
    // for the lookup of each of those elements as a range of its key (which the plan for any values guessed at 58
    // rows, the plans for a tenant the statistics did not know yet at one).
    // On a database of its own: the planner's choice between the plans follows its estimates, so the statistics, and
    // those of the run's database depend on what other test files wrote before (a tenant of 100,000 element rows,
    // ANALYZEd or not yet), not on this statement.
    const db = await freshDatabase('plans');
    const own = await startTestServer(db.url, { readCache: { maxBytes: 0, ttlMs: 60_000 } });
    try {
      const on = { server: own, tenant: await own.createTenant({ prefix: 'plans', eventsEnabled: true }) };
      for (let round = 0; round < 8; round++) await sweep(`plans${round}`, false, on);
      await expectOnePlan(own);
    } finally {
      await own.close();
      await db.drop();
    }
  }, 180_000);

  it('writes a submodel of more than 5,000 elements in a transaction, its element rows 5,000 to a statement', async () => {
    const api = server.api(tenant.name);
    const id = 'urn:stmts:many';
    const doc = (value: string) => ({ modelType: 'Submodel', id, idShort: 'Many', submodelElements: Array.from({ length: 5_001 }, (_, i) => property(`P${i}`, value)) });
    const send = (method: string, path: string, body: unknown, expected: number) => async () => {
      const res = await fetch(`${api}${path}`, { method, headers: body === undefined ? {} : { 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
      expect(res.status, await res.text()).toBe(expected);
    };
    const counted: Record<string, string[]> = {};
    for (const [label, method, path, body, expected] of [
      ['POST /submodels', 'POST', '/submodels', doc('one'), 201],
      ['PUT /submodels/{id}', 'PUT', `/submodels/${b64(id)}`, doc('two'), 204],
      ['DELETE /submodels/{id}', 'DELETE', `/submodels/${b64(id)}`, undefined, 204],
    ] as const) {
      const statements = await recorder.during(send(method, path, body, expected));
      // Not counted either: an ANALYZE of the element rows, which the embedded database gets after many rows written
      // (it has no autovacuum), in whichever request passes the mark.
      counted[label] = statements.map((s) => s.text.replace(/\s+/g, ' ').trim()).filter((text) => !TENANT_LOOKUP.test(text) && !/^ANALYZE /.test(text));
    }
    // The change events carry the documents written (the transaction path writes a large one's text in slices).
    const events: { kind: string; payload: unknown }[] = await server.dataSource.query(`SELECT kind, payload FROM outbox WHERE tenant_id = $1 AND entity_id = $2 ORDER BY seq`, [tenant.id, id]);
    expect(events.map((event) => event.kind)).toEqual(['created', 'updated', 'deleted']);
    expect(events.slice(0, 2).map((event) => event.payload)).toEqual([doc('one'), doc('two')]);
    const rowInserts = (label: string) => counted[label].filter((text) => text.startsWith('INSERT INTO submodel_elements')).length;
    expect({ post: rowInserts('POST /submodels'), put: rowInserts('PUT /submodels/{id}') }).toEqual({ post: 2, put: 2 });
    const writes = Object.entries(counted).filter(([label]) => !label.startsWith('DELETE'));
    for (const [label, statements] of writes) expect([statements[0], statements.at(-1)], label).toEqual(['START TRANSACTION', 'COMMIT']);
    // On Citus every write is one transaction (the locking one), the delete too.
    if (!(await onCitus(server.dataSource))) {
      const detail = Object.entries(counted).map(([label, statements]) => `${label}: ${statements.length}\n  ${statements.map((s) => s.slice(0, 160)).join('\n  ')}`).join('\n');
      expect(Object.fromEntries(Object.entries(counted).map(([label, statements]) => [label, statements.length])), detail).toEqual(MANY_ELEMENTS_DOCUMENTED);
    }
  }, 120_000);
});

/** The one-statement PATCH $value and the read of an element write, run more than five times on a connection of `planned`, took its plan for any values. */
async function expectOnePlan(planned: TestServer): Promise<void> {
  const pool = (planned.dataSource.driver as unknown as { master: { _clients: { query(sql: string): Promise<{ rows: { statement: string; generic_plans: string; custom_plans: string }[] }> }[] } }).master;
  const seen: { statement: string; generic: number; custom: number }[] = [];
  for (const client of pool._clients) {
    const { rows } = await client.query(`SELECT statement, generic_plans, custom_plans FROM pg_prepared_statements WHERE name LIKE 'ap%'`);
    seen.push(...rows.map((r) => ({ statement: r.statement.replace(/\s+/g, ' '), generic: Number(r.generic_plans), custom: Number(r.custom_plans) })));
  }
  const kinds = {
    'PATCH $value in one statement': /^WITH snap AS MATERIALIZED \(SELECT version FROM submodels WHERE .* lk AS MATERIALIZED .* at_row AS MATERIALIZED/,
    // The read before an element's PUT, PATCH or DELETE (the submodel's head, the element's subtree and the elements above).
    'read of an element write': /^WITH head AS MATERIALIZED \(SELECT seq, version, top_elements_version, doc FROM submodels WHERE .* target AS MATERIALIZED .* unnest\(t\.ord\) WITH ORDINALITY/,
  };
  for (const [kind, pattern] of Object.entries(kinds)) {
    const ran = seen.filter((s) => pattern.test(s.statement) && s.generic + s.custom > 5);
    expect(ran.length, `${kind}: run more than five times on a connection`).toBeGreaterThan(0);
    expect(ran.map((s) => ({ kind, generic: s.generic > 0 })), kind).toEqual(ran.map(() => ({ kind, generic: true })));
  }
}
