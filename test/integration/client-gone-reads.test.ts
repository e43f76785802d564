import http from 'node:http';
import pg from 'pg';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FreshDatabase, freshDatabase } from '../support/fresh-database';
import { TestServer, b64, json, sampleShell, startTestServer } from '../support/server';
import { LOAD_SLACK_MS } from '../support/timing';

/**
 * Reads, serializations and queries of the query language whose client has gone stop their database work: the
 * statement under way is cancelled on the PostgreSQL server within DB_CONNECT_TIMEOUT_MS of the client going
 * (docs/operations.md, "Locks and abandoned requests"), and the request is logged as the client's doing, not as a
 * server error. Each statement here waits for a table lock another connection holds, which keeps it running as
 * long as the test needs (without the cancel it would wait for DB_LOCK_TIMEOUT_MS, or a query for QUERY_TIMEOUT_MS:
 * a minute here). A database of the test's own: the table locks would hold up every other test. PostgreSQL only:
 * the embedded database runs one statement at a time and cannot interrupt it. (An abandoned import: the test of
 * abandoned work.)
 */
const CONNECT_TIMEOUT_MS = 5_000;
const SUBMODELS = 60;
const lines: Record<string, unknown>[] = [];
let db: FreshDatabase;
let server: TestServer;
let api: string;
const shellId = 'urn:client-gone-reads:shell';
const submodelIds = Array.from({ length: SUBMODELS }, (_, i) => `urn:client-gone-reads:sm:${i}`);

describe.skipIf(!process.env.DATABASE_URL)('a read whose client has gone', () => {
  beforeAll(async () => {
    db = await freshDatabase('ap_gone_reads');
    const log = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line)) });
    server = await startTestServer(db.url, { dbLockTimeoutMs: 60_000, queryTimeoutMs: 60_000, dbConnectTimeoutMs: CONNECT_TIMEOUT_MS }, log);
    api = server.api((await server.createTenant()).name);
    const post = (path: string, body: unknown) => fetch(`${api}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const submodelRefs = submodelIds.map((id) => ({ type: 'ModelReference', keys: [{ type: 'Submodel', value: id }] }));
    expect((await post('/shells', sampleShell(shellId, { submodels: submodelRefs }))).status).toBe(201);
    for (let i = 0; i < SUBMODELS; i += 10) {
      const created = await Promise.all(
        submodelIds.slice(i, i + 10).map((id) =>
          post('/submodels', {
            modelType: 'Submodel',
            id,
            idShort: 'Sm',
            submodelElements: Array.from({ length: 20 }, (_, e) => ({ modelType: 'Property', idShort: `P${e}`, valueType: 'xs:string', value: `v${e}` })),
          }),
        ),
      );
      expect(created.map((res) => res.status)).toEqual(created.map(() => 201));
    }
  }, 300_000);
  afterAll(async () => {
    await server?.close();
    await db?.drop();
  });

  async function connection(): Promise<pg.Client> {
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    return client;
  }

  /** A raw request the test can abandon. */
  function send(url: string, method: string, body?: unknown): http.ClientRequest {
    const text = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    const headers: http.OutgoingHttpHeaders = text ? { 'content-type': 'application/json', 'content-length': text.length } : {};
    const req = http.request(url, { method, headers });
    req.on('error', () => undefined); // the test destroys it
    req.end(text);
    return req;
  }

  /** The server's statements (application_name asset-platform) under way that wait for a lock. */
  async function waiting(observer: pg.Client): Promise<number[]> {
    const { rows } = await observer.query<{ pid: number }>(
      `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'asset-platform'
        AND state = 'active' AND wait_event_type = 'Lock'`,
    );
    return rows.map((row) => row.pid);
  }

  async function until<T>(what: string, withinMs: number, probe: () => Promise<T | undefined>): Promise<T> {
    const began = performance.now();
    for (;;) {
      const found = await probe();
      if (found !== undefined) return found;
      if (performance.now() - began > withinMs) throw new Error(`not within ${withinMs} ms: ${what}`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }

  /**
   * Sends the request while `tables` are locked by another transaction, waits until its statement waits for that
   * lock, lets the client go, and asserts that the statement is no longer under way on the server within the
   * bound (with the slack of a loaded machine), while the lock is still held; then that nothing was logged as a
   * server error and the request was logged with 400.
   */
  async function abandonWhileLocked(tables: string, path: string, method = 'GET', body?: unknown): Promise<void> {
    const holder = await connection();
    const observer = await connection();
    const before = lines.length;
    try {
      await holder.query('BEGIN');
      await holder.query(`LOCK TABLE ${tables} IN ACCESS EXCLUSIVE MODE`);
      const req = send(`${api}${path}`, method, body);
      const [pid] = await until('the request waits for the lock', 60_000, async () => {
        const pids = await waiting(observer);
        return pids.length ? pids : undefined;
      });
      const gone = performance.now();
      req.destroy();
      await until('the statement is cancelled', CONNECT_TIMEOUT_MS + LOAD_SLACK_MS, async () => {
        const { rows } = await observer.query(`SELECT 1 FROM pg_stat_activity WHERE pid = $1 AND state = 'active' AND wait_event_type = 'Lock'`, [pid]);
        return rows.length === 0 ? true : undefined;
      });
      expect(performance.now() - gone).toBeLessThan(CONNECT_TIMEOUT_MS + LOAD_SLACK_MS);
      // Nothing of the request is left waiting: no statement of the server's still waits for the lock.
      expect(await waiting(observer)).toEqual([]);
    } finally {
      await holder.query('ROLLBACK').catch(() => undefined);
      await holder.end();
      await observer.end();
    }
    const logged = await until('the request is logged', 30_000, async () =>
      lines.slice(before).find((line) => line.msg === 'request' && String(line.url).includes(path.split('?')[0])),
    );
    expect(logged.status).toBe(400);
    expect(lines.slice(before).filter((line) => (line.level as number) >= 50)).toEqual([]);
  }

  it('a read by id is cancelled, and the same read answers after', async () => {
    await abandonWhileLocked('shells', `/shells/${b64(shellId)}`);
    expect((await json(fetch(`${api}/shells/${b64(shellId)}`))).id).toBe(shellId);
  }, 120_000);

  it('a serialization of a shell and its many submodels is cancelled, and the same serialization answers after', async () => {
    const path = `/serialization?aasIds=${b64(shellId)}&${submodelIds.map((id) => `submodelIds=${b64(id)}`).join('&')}&includeConceptDescriptions=false`;
    await abandonWhileLocked('submodels', path);
    const res = await fetch(`${api}${path}`, { headers: { accept: 'application/json' } });
    expect(res.status).toBe(200);
    expect((await json(res)).submodels).toHaveLength(SUBMODELS);
  }, 120_000);

  it('a query of the query language is cancelled, and the same query answers after', async () => {
    const query = { $condition: { $eq: [{ $field: '$sme.P7#value' }, { $strVal: 'v7' }] } };
    await abandonWhileLocked('submodels', '/query/submodels', 'POST', query);
    const res = await fetch(`${api}/query/submodels?limit=100`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(query) });
    expect(res.status).toBe(200);
    expect((await json(res)).result).toHaveLength(SUBMODELS);
  }, 120_000);
});
