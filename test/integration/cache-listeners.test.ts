import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitForEarlierWrites } from '../../src/aas/store/cache-listeners';
import type { TenantEntity } from '../../src/management/tenants/tenant.entity';
import { FreshDatabase, freshDatabase } from '../support/fresh-database';
import { TestServer, b64, sampleShell, startTestServer } from '../support/server';

/**
 * A write notifies the other replicas' read caches only while another replica is registered as listening
 * (`cache_listeners`, `notify_identifiable_changed`): a server alone sends no notification. A replica that joins
 * waits for the transactions that were open when it registered. The caches of two replicas in step: read-cache.test.ts.
 */
describe.skipIf(!process.env.DATABASE_URL)('cache listeners: notifications only while another replica listens (PostgreSQL)', () => {
  let db: FreshDatabase;
  let server: TestServer;
  let tenant: TenantEntity;
  let api: string;
  const clients: Client[] = [];

  const connect = async () => {
    const client = new Client({ connectionString: db.url });
    await client.connect();
    clients.push(client);
    return client;
  };
  const listeners = async () =>
    (await server.dataSource.query('SELECT replica::text, pid FROM cache_listeners ORDER BY registered_at')) as { replica: string; pid: number }[];

  beforeAll(async () => {
    db = await freshDatabase('cache_listeners');
    // A heartbeat every second: each one sweeps the registrations of replicas gone and checks the server's own.
    server = await startTestServer(db.url, { dbAnswerTimeoutMs: 1_000 });
    tenant = await server.createTenant();
    api = server.api(tenant.name);
  }, 60_000);
  afterAll(async () => {
    for (const client of clients) await client.end().catch(() => undefined);
    await server?.close();
    await db?.drop();
  });

  const send = (method: string, url: string, body?: unknown) =>
    fetch(url, { method, headers: { 'content-type': 'application/json' }, body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body) });

  /** Every kind of identifiable write of one statement: create, replace, element value, element replace, delete. */
  async function writes(n: number): Promise<void> {
    const sm = `urn:listeners:sm:${n}`;
    const shell = `urn:listeners:shell:${n}`;
    const property = { modelType: 'Property', idShort: 'P', valueType: 'xs:string', value: 'a' };
    expect((await send('POST', `${api}/shells`, sampleShell(shell))).status).toBe(201);
    expect((await send('PUT', `${api}/shells/${b64(shell)}`, sampleShell(shell, { idShort: 'Again' }))).status).toBe(204);
    expect((await send('POST', `${api}/submodels`, { modelType: 'Submodel', id: sm, submodelElements: [property] })).status).toBe(201);
    expect((await send('PATCH', `${api}/submodels/${b64(sm)}/submodel-elements/P/$value`, JSON.stringify('b'))).status).toBe(204);
    expect((await send('PUT', `${api}/submodels/${b64(sm)}/submodel-elements/P`, { ...property, value: 'c' })).status).toBe(204);
    expect((await send('DELETE', `${api}/submodels/${b64(sm)}`)).status).toBe(204);
    expect((await send('DELETE', `${api}/shells/${b64(shell)}`)).status).toBe(204);
  }

  /** The notifications a LISTEN connection hears while `work` runs, and a moment after (delivery follows the commit). */
  async function heard(work: () => Promise<void>): Promise<string[]> {
    const listener = await connect();
    const payloads: string[] = [];
    listener.on('notification', (message) => payloads.push(message.payload ?? ''));
    await listener.query('LISTEN identifiable_changed');
    await work();
    // One more notification through the same channel marks the end: everything committed before it has arrived.
    await server.dataSource.query(`SELECT pg_notify('identifiable_changed', 'end')`);
    const deadline = Date.now() + 10_000;
    while (!payloads.includes('end') && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
    await listener.end();
    return payloads.filter((payload) => payload !== 'end');
  }

  it('registers the server while it runs; alone, its writes send no notification', async () => {
    const [own] = await listeners();
    expect((await listeners()).length).toBe(1);
    const payloads = await heard(() => writes(1));
    // A listener that is not registered hears nothing: the server knows of no other replica.
    expect(payloads).toEqual([]);
    expect(own.replica).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('once another replica is registered, every write notifies, with the writer as its first word', async () => {
    const other = await connect();
    const [{ pid }] = (await other.query('SELECT pg_backend_pid() AS pid')).rows;
    const replica = randomUUID();
    await other.query('INSERT INTO cache_listeners (replica, pid) VALUES ($1, $2)', [replica, pid]);
    const [own] = (await listeners()).filter((row) => row.replica !== replica);
    const payloads = await heard(() => writes(2));
    // Seven writes, each announcing its identifiable.
    expect(payloads.length).toBeGreaterThanOrEqual(7);
    for (const payload of payloads) expect(payload.split(' ')[0]).toBe(own.replica);
    // Its connection gone, the registration goes at the server's next heartbeat, and with it the notifications.
    await other.end();
    const deadline = Date.now() + 10_000;
    while ((await listeners()).some((row) => row.replica === replica)) {
      if (Date.now() > deadline) throw new Error('the registration of a replica gone stayed');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(await heard(() => writes(3))).toEqual([]);
  }, 30_000);

  it('decides in the statement, with a snapshot of its own: a transaction open before a registration notifies after it', async () => {
    const writer = await connect();
    const [own] = await listeners();
    const notifies = async () => (await writer.query(`SELECT notify_identifiable_changed($1) AS sent`, [`${own.replica} k`])).rows[0].sent as boolean;
    await writer.query('BEGIN');
    expect(await notifies()).toBe(false);
    // Another replica registers while the transaction is open: the next statement of it sees the registration.
    const other = await connect();
    const replica = randomUUID();
    await other.query('INSERT INTO cache_listeners (replica, pid) SELECT $1, pg_backend_pid()', [replica]);
    expect(await notifies()).toBe(true);
    await writer.query('ROLLBACK');
    // The writer's own registration alone never makes it notify: a payload of another replica's does.
    expect((await writer.query(`SELECT notify_identifiable_changed($1) AS sent`, [`${replica} k`])).rows[0].sent).toBe(true);
    await other.query('DELETE FROM cache_listeners WHERE replica = $1', [replica]);
    expect(await notifies()).toBe(false);
  });

  it('a joining replica waits for every transaction that has written or holds a snapshot, and not for idle ones', async () => {
    const query = (sql: string, params?: unknown[]) => server.dataSource.query(sql, params);
    const wrote = await connect();
    const snapshot = await connect();
    const idle = await connect();
    await wrote.query('BEGIN');
    await wrote.query('SELECT txid_current()');
    await snapshot.query('BEGIN ISOLATION LEVEL REPEATABLE READ');
    await snapshot.query('SELECT 1');
    // A READ COMMITTED transaction between statements, which has not written: its next statement takes a new snapshot.
    await idle.query('BEGIN');
    await idle.query('SELECT 1');
    let done = false;
    const waiting = waitForEarlierWrites(query, () => true, () => undefined).then((ok) => {
      done = true;
      return ok;
    });
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(done).toBe(false);
    await wrote.query('COMMIT');
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(done).toBe(false);
    await snapshot.query('COMMIT');
    expect(await waiting).toBe(true);
    await idle.query('COMMIT');
    // A transaction that starts after the wait began is not waited for; one lost meanwhile gives up.
    await wrote.query('BEGIN');
    await wrote.query('SELECT txid_current()');
    let current = true;
    const lost = waitForEarlierWrites(query, () => current, () => undefined);
    current = false;
    expect(await lost).toBe(false);
    await wrote.query('COMMIT');
  });

  it('registers again, cache off meanwhile, when its registration is gone; deregisters when it stops', async () => {
    const [own] = await listeners();
    await server.dataSource.query('DELETE FROM cache_listeners');
    const deadline = Date.now() + 10_000;
    while (!(await listeners()).some((row) => row.replica === own.replica)) {
      if (Date.now() > deadline) throw new Error('the server did not register again');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    // Its cache serves again: a read answered from it does not see a change made behind the server's back.
    const id = 'urn:listeners:cached';
    expect((await send('POST', `${api}/shells`, sampleShell(id))).status).toBe(201);
    const cachedAgain = Date.now() + 10_000;
    for (let round = 1; ; round++) {
      expect((await fetch(`${api}/shells/${b64(id)}`)).status).toBe(200);
      await server.dataSource.query(`UPDATE shells SET doc = jsonb_set(doc, '{idShort}', to_jsonb($2::text)) WHERE id = $1`, [id, `Behind${round}`]);
      const body = (await (await fetch(`${api}/shells/${b64(id)}`)).json()) as { idShort?: string };
      if (body.idShort !== `Behind${round}`) break;
      if (Date.now() > cachedAgain) throw new Error('the cache did not serve again');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const second = await startTestServer(db.url);
    expect((await listeners()).length).toBe(2);
    await second.close();
    expect((await listeners()).map((row) => row.replica)).toEqual([own.replica]);
  }, 30_000);
});
