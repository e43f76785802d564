import http from 'node:http';
import pg from 'pg';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { TestServer, b64, json, sampleShell, startTestServer } from '../support/server';

/**
 * A statement of a request whose client has gone is cancelled on the PostgreSQL server (docs/operations.md, "Locks
 * and abandoned requests": within DB_CONNECT_TIMEOUT_MS of the client going), the request's work stops and rolls
 * back, and nothing is logged as a server error. The statements here wait for a row lock another connection holds,
 * which keeps them running as long as a test needs: without the cancel they would wait for DB_LOCK_TIMEOUT_MS (a
 * minute here). The embedded database runs one statement at a time and cannot interrupt it: PostgreSQL only.
 */
let server: TestServer;
const lines: Record<string, unknown>[] = [];
/** What the docs promise: gone within DB_CONNECT_TIMEOUT_MS (5 s) of the client going; usually milliseconds. */
const BOUND_MS = 5_000;

beforeAll(async () => {
  const log = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line)) });
  server = await startTestServer(inject('databaseUrl'), { dbLockTimeoutMs: 60_000 }, log);
});
afterAll(() => server?.close());

async function connection(): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: inject('databaseUrl') });
  await client.connect();
  return client;
}

/** A raw request the test can abandon. */
function send(url: string, method: string, body: unknown): http.ClientRequest {
  const text = Buffer.from(JSON.stringify(body));
  const req = http.request(url, { method, headers: { 'content-type': 'application/json', 'content-length': text.length } });
  req.on('error', () => undefined); // the test destroys it
  req.end(text);
  return req;
}

/** The server's statements that wait for a lock and whose text has `marker`. */
async function waiting(observer: pg.Client, marker: string): Promise<number[]> {
  const { rows } = await observer.query<{ pid: number }>(
    `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'asset-platform'
      AND state = 'active' AND wait_event_type = 'Lock' AND query LIKE '%' || $1 || '%'`,
    [marker],
  );
  return rows.map((row) => row.pid);
}

async function until<T>(what: string, withinMs: number, probe: () => Promise<T | undefined>): Promise<T> {
  const began = Date.now();
  for (;;) {
    const found = await probe();
    if (found !== undefined) return found;
    if (Date.now() - began > withinMs) throw new Error(`${what} within ${withinMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/**
 * Sends `method url body` while `lockSql` holds a row lock in another transaction, waits until the request's
 * statement (its text has `marker`) waits for that lock, lets the client go, and asserts that the statement is
 * gone from pg_stat_activity within the documented bound, while the lock is still held.
 */
async function abandonWhileLocked(url: string, method: string, body: unknown, lockSql: [string, unknown[]], marker: string): Promise<void> {
  const holder = await connection();
  const observer = await connection();
  try {
    await holder.query('BEGIN');
    await holder.query(...lockSql);
    const req = send(url, method, body);
    const [pid] = await until('the request waits for the lock', 30_000, async () => {
      const pids = await waiting(observer, marker);
      return pids.length ? pids : undefined;
    });
    req.destroy();
    await until('the statement is cancelled', BOUND_MS, async () => {
      const { rows } = await observer.query(`SELECT 1 FROM pg_stat_activity WHERE pid = $1 AND state = 'active' AND query LIKE '%' || $2 || '%'`, [pid, marker]);
      return rows.length === 0 ? true : undefined;
    });
  } finally {
    await holder.query('ROLLBACK').catch(() => undefined);
    await holder.end();
    await observer.end();
  }
}

describe.skipIf(!process.env.DATABASE_URL)('a statement whose client has gone', () => {
  it('a shell write (one statement) waiting for a lock is cancelled, stores nothing, and is logged as the client going', async () => {
    const tenant = await server.createTenant();
    const api = server.api(tenant.name);
    const id = 'urn:client-gone:shell';
    expect((await fetch(`${api}/shells`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(sampleShell(id)) })).status).toBe(201);
    const before = lines.length;
    await abandonWhileLocked(
      `${api}/shells/${b64(id)}`,
      'PUT',
      sampleShell(id, { idShort: 'Changed' }),
      ['SELECT 1 FROM shells WHERE tenant_id = $1 AND id = $2 FOR UPDATE', [tenant.id, id]],
      'shells',
    );
    expect((await json(fetch(`${api}/shells/${b64(id)}`))).idShort).toBe('Sample');
    const ended = await until('the request is logged', 10_000, async () => lines.slice(before).find((line) => line.msg === 'request' && String(line.url).includes('/shells/')));
    expect(ended.status).toBe(400);
    expect(lines.slice(before).filter((line) => (line.level as number) >= 50)).toEqual([]);
  }, 60_000);

  it('an element write in a transaction waiting for a lock is cancelled and rolled back; the connection serves on', async () => {
    const tenant = await server.createTenant();
    const api = server.api(tenant.name);
    const id = 'urn:client-gone:submodel';
    const submodel = { modelType: 'Submodel', id, submodelElements: [{ modelType: 'Property', idShort: 'P', valueType: 'xs:string', value: 'before' }] };
    expect((await fetch(`${api}/submodels`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(submodel) })).status).toBe(201);
    const before = lines.length;
    await abandonWhileLocked(
      `${api}/submodels/${b64(id)}/submodel-elements/P/$value`,
      'PATCH',
      'after',
      ['SELECT 1 FROM submodels WHERE tenant_id = $1 AND id = $2 FOR UPDATE', [tenant.id, id]],
      'submodels',
    );
    // Nothing was written, and every pooled connection still answers (none was left in an aborted transaction).
    const reads = await Promise.all(Array.from({ length: 12 }, () => json(fetch(`${api}/submodels/${b64(id)}/submodel-elements/P/$value`))));
    expect(reads.every((value) => value === 'before')).toBe(true);
    await until('the request is logged', 10_000, async () => lines.slice(before).find((line) => line.msg === 'request' && String(line.url).includes('/submodel-elements/')));
    expect(lines.slice(before).filter((line) => (line.level as number) >= 50)).toEqual([]);
  }, 60_000);
});
