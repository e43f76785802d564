import { createHash } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Client, Pool } from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pino from 'pino';
import { createDataSource, runMigrations } from '../../src/db/data-source';
import { EmbeddedDatabase, startEmbeddedDatabase } from '../../src/db/embedded';
import { scheduleAnalyze } from '../../src/db/maintenance';
import { completeMessages } from '../../src/db/embedded-connection';
import { EXPENSIVE_MARK, lastReadyStatus, opensExpensiveWork } from '../../src/db/session-queue';
import { TestServer, b64, sampleShell, startTestServer } from '../support/server';
import { PATIENCE_MS } from '../support/timing';

/**
 * The embedded PostgreSQL is one PGlite session shared by many connections. These tests hold it to what a real
 * server guarantees: concurrent connections see their own results, transactions are isolated, and a failing
 * statement or a vanished client stalls no one. They always run on the embedded database.
 */
let dir: string;
let db: EmbeddedDatabase;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'asset-platform-embedded-'));
  db = await startEmbeddedDatabase(dir, 20);
});
afterAll(async () => {
  await db?.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('embedded PostgreSQL under concurrency', () => {
  it('keeps the answers of parallel parameterized queries apart', async () => {
    const pool = new Pool({ connectionString: db.url, max: 8 });
    try {
      const answers = await Promise.all(
        Array.from({ length: 400 }, (_, i) => pool.query('SELECT $1::text AS echo, $2::int * 2 AS twice', [`q${i}`, i])),
      );
      answers.forEach((res, i) => expect(res.rows[0]).toEqual({ echo: `q${i}`, twice: i * 2 }));
    } finally {
      await pool.end();
    }
  });

  it('isolates transactions of different connections and survives failing statements', async () => {
    const setup = new Client({ connectionString: db.url });
    await setup.connect();
    await setup.query('CREATE TABLE IF NOT EXISTS counters (id int PRIMARY KEY, n int NOT NULL)');
    await setup.query('INSERT INTO counters VALUES (1, 0) ON CONFLICT (id) DO UPDATE SET n = 0');
    const pool = new Pool({ connectionString: db.url, max: 6 });
    try {
      await Promise.all(
        Array.from({ length: 60 }, async (_, i) => {
          const client = await pool.connect();
          try {
            await client.query('BEGIN');
            const { rows } = await client.query('SELECT n FROM counters WHERE id = 1 FOR UPDATE');
            if (i % 5 === 0) {
              // A failing statement inside a transaction: it rolls back, nothing else is disturbed.
              await expect(client.query('INSERT INTO counters VALUES (1, 0)')).rejects.toThrow(/duplicate key/);
              await client.query('ROLLBACK');
              return;
            }
            await client.query('UPDATE counters SET n = $1 WHERE id = 1', [rows[0].n + 1]);
            await client.query('COMMIT');
          } finally {
            client.release();
          }
        }),
      );
      expect((await setup.query('SELECT n FROM counters WHERE id = 1')).rows[0].n).toBe(48);
      await expect(setup.query('SELECT * FROM no_such_table')).rejects.toThrow(/does not exist/);
      expect((await setup.query('SELECT 1 AS one')).rows[0].one).toBe(1);
    } finally {
      await pool.end();
      await setup.end();
    }
  });

  it('rolls back and frees the session when a client disappears inside a transaction', async () => {
    const quitter = new Client({ connectionString: db.url });
    quitter.on('error', () => undefined); // its own connection is cut on purpose
    await quitter.connect();
    await quitter.query('CREATE TABLE IF NOT EXISTS left_open (id int)');
    await quitter.query('BEGIN');
    await quitter.query('INSERT INTO left_open VALUES (1)');
    (quitter as unknown as { connection: { stream: { destroy(): void } } }).connection.stream.destroy();
    expect(await firstValue('SELECT count(*)::int FROM left_open')).toBe(0);
  });

  it('rolls back and frees the session when a client disappears while its statement runs', async () => {
    await firstValue('CREATE TABLE IF NOT EXISTS left_running (id int)');
    const socket = net.connect(db.socketPath);
    socket.on('error', () => undefined);
    const received: Buffer[] = [];
    socket.on('data', (data) => received.push(data));
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    socket.write(startup());
    await until(() => messagesOf(Buffer.concat(received)).some((m) => m.type === 'Z'));
    // The transaction opens with the statement that is still running when the client goes. PGlite runs it to its end
    // before the database thread sees the close; by then the session is this connection's, and must come back.
    socket.write(typed('Q', 'BEGIN; INSERT INTO left_running VALUES (1); SELECT count(*) FROM generate_series(1, 2000000)\0'));
    await new Promise((resolve) => setTimeout(resolve, 20));
    socket.destroy();
    expect(await within5s(firstValue('SELECT count(*)::int FROM left_running'))).toBe(0);
  });

  it('serves a cheap statement before expensive work that waits for the session beside it', async () => {
    // A holds the session in a transaction; B (expensive work: its BEGIN carries the mark) asks for it, then C (a cheap
    // statement). When A commits, C goes first: the sequence's numbers tell the order, whatever order the answers arrive in.
    const [holder, expensive, cheap] = Array.from({ length: 3 }, () => new Client({ connectionString: db.url }));
    await Promise.all([holder, expensive, cheap].map((c) => c.connect()));
    try {
      await holder.query('CREATE SEQUENCE IF NOT EXISTS turns');
      await holder.query('BEGIN');
      const expensiveBegins = expensive.query(`${EXPENSIVE_MARK} BEGIN`);
      const cheapTurn = cheap.query(`SELECT nextval('turns')::int AS n`);
      // Two round trips of the holder after both were sent: the database thread has read them, and they wait.
      await holder.query('SELECT 1');
      await holder.query('SELECT 1');
      await holder.query('COMMIT');
      await expensiveBegins;
      const expensiveTurn = (await expensive.query(`SELECT nextval('turns')::int AS n`)).rows[0].n as number;
      await expensive.query('COMMIT');
      expect((await cheapTurn).rows[0].n).toBeLessThan(expensiveTurn);
    } finally {
      await Promise.all([holder, expensive, cheap].map((c) => c.end()));
    }
  });

  it('tells expensive work by the mark that opens its first statement, simple or parsed', () => {
    const parse = (name: string, text: string) => typed('P', `${name}\0${text}\0\0\0`);
    expect(opensExpensiveWork(typed('Q', `${EXPENSIVE_MARK} BEGIN\0`))).toBe(true);
    expect(opensExpensiveWork(parse('s1', `${EXPENSIVE_MARK} SELECT 1`))).toBe(true);
    expect(opensExpensiveWork(parse('', `${EXPENSIVE_MARK} SELECT 1`))).toBe(true);
    expect(opensExpensiveWork(typed('Q', 'BEGIN\0'))).toBe(false);
    expect(opensExpensiveWork(typed('Q', `SELECT '${EXPENSIVE_MARK}'\0`))).toBe(false);
    expect(opensExpensiveWork(parse(EXPENSIVE_MARK, 'SELECT 1'))).toBe(false);
    expect(opensExpensiveWork(Buffer.from('Q'))).toBe(false);
  });

  it('frees the session after an answer longer than PGlite’s send buffer, and delivers it whole', async () => {
    // PGlite hands over each 8 KB flush as a view of its memory, which the next flush overwrites: read after the
    // answer was done, the views made the status unreadable, and the session stayed with an idle connection.
    const reader = new Client({ connectionString: db.url });
    const other = new Client({ connectionString: db.url });
    await reader.connect();
    await other.connect();
    try {
      const { rows } = await reader.query(`SELECT n, repeat(md5(n::text), 10) AS text FROM generate_series(1, 3000) AS n`);
      expect(rows).toHaveLength(3000);
      expect(rows[2999]).toEqual({ n: 3000, text: createHash('md5').update('3000').digest('hex').repeat(10) });
      // The reader now sits idle: another connection must get the session.
      expect(await within5s(other.query('SELECT 1 AS one').then((res) => res.rows[0].one as number))).toBe(1);
    } finally {
      await reader.end();
      await other.end();
    }
  });

  it('declines SSL, and answers messages however the client’s writes cut them, in order', async () => {
    const socket = net.connect(db.socketPath);
    const received: Buffer[] = [];
    socket.on('data', (data) => received.push(data));
    const ended = new Promise<void>((resolve) => socket.on('close', () => resolve()));
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    socket.write(untyped(80877103)); // SSLRequest
    // The start-up and three statements (one of them failing), sent a byte at a time, then Terminate.
    const bytes = Buffer.concat([
      startup(),
      typed('Q', 'BEGIN\0'),
      typed('Q', 'SELECT nope\0'),
      typed('Q', "SELECT 'second'\0"),
    ]);
    for (const byte of bytes) socket.write(Buffer.from([byte]));
    await until(() => messagesOf(Buffer.concat(received).subarray(1)).filter((m) => m.type === 'Z').length === 4);
    const all = Buffer.concat(received);
    expect(all.subarray(0, 1).toString()).toBe('N');
    const messages = messagesOf(all.subarray(1));
    // The failed statement ended the transaction's use ('E' status); the next statement is refused, not lost.
    expect(messages.filter((m) => m.type === 'Z').map((m) => m.body.toString())).toEqual(['I', 'T', 'E', 'E']);
    expect(messages.filter((m) => m.type === 'E')).toHaveLength(2);
    socket.write(typed('X', ''));
    await ended;
    // Terminate inside a transaction gave the session back: another connection gets it at once.
    expect(await firstValue('SELECT 1')).toBe(1);
  });

  it('closes a connection whose start-up is malformed, and serves the others', async () => {
    const socket = net.connect(db.socketPath);
    socket.on('error', () => undefined);
    const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
    socket.write(Buffer.from([0, 0, 0, 5, 1, 2, 3, 4]));
    await closed;
    expect(await firstValue('SELECT 2')).toBe(2);
  });

  it('takes the complete messages of a read, up to Terminate', () => {
    const q = typed('Q', 'SELECT 1\0');
    const s = typed('S', '');
    expect(completeMessages(Buffer.concat([q, s]))).toEqual({ messages: Buffer.concat([q, s]), terminate: false, rest: Buffer.alloc(0) });
    const partial = completeMessages(Buffer.concat([q, s.subarray(0, 3)]));
    expect([partial.messages, partial.rest, partial.terminate]).toEqual([q, s.subarray(0, 3), false]);
    expect(completeMessages(Buffer.concat([q, typed('X', ''), s]))).toEqual({ messages: q, terminate: true, rest: Buffer.alloc(0) });
    expect(() => completeMessages(Buffer.from([0x51, 0, 0, 0, 2]))).toThrow(/malformed/);
  });

  it('reads the transaction status from ReadyForQuery', () => {
    const z = (status: string) => Buffer.from([0x5a, 0, 0, 0, 5, status.charCodeAt(0)]);
    const complete = Buffer.from([0x43, 0, 0, 0, 10, ...Buffer.from('BEGIN'), 0]);
    expect(lastReadyStatus(Buffer.concat([complete, z('T')]))).toBe('T'.charCodeAt(0));
    expect(lastReadyStatus(Buffer.concat([z('T'), complete, z('I')]))).toBe('I'.charCodeAt(0));
    expect(lastReadyStatus(complete)).toBeUndefined();
  });
});

describe('planner statistics on the embedded PostgreSQL', () => {
  it('are gathered by the scheduled ANALYZE, so a deep keyset page walks the index instead of sorting', async () => {
    const dataSource = createDataSource(db.url, 2);
    await dataSource.initialize();
    try {
      await runMigrations(dataSource);
      const [{ id: org }] = await dataSource.query(`INSERT INTO organizations (name) VALUES ('plan') RETURNING id`);
      const [{ id: tenant }] = await dataSource.query(`INSERT INTO tenants (organization_id, name) VALUES ($1, 'plan-test') RETURNING id`, [org]);
      for (let i = 0; i < 3000; i++) {
        await dataSource.query(`INSERT INTO shells (tenant_id, id, asset_kind, doc) VALUES ($1, $2, 'Instance', '{}')`, [tenant, `urn:plan:${i}`]);
      }
      const [{ seq }] = await dataSource.query('SELECT seq FROM shells WHERE tenant_id = $1 ORDER BY seq OFFSET 2500 LIMIT 1', [tenant]);
      const plan = async () =>
        (await dataSource.query('EXPLAIN SELECT seq, doc FROM shells WHERE tenant_id = $1 AND seq > $2 ORDER BY seq LIMIT $3', [tenant, seq, 101]))
          .map((row: Record<string, string>) => row['QUERY PLAN'])
          .join('\n');
      expect(await plan()).toMatch(/Sort/); // PGlite gathers no statistics by itself
      const stop = scheduleAnalyze(dataSource, pino({ level: 'silent' }), 0);
      await new Promise((resolve) => setTimeout(resolve, 50));
      await stop();
      expect(await plan()).toMatch(/^Limit.*\n\s*->\s+Index Scan using shells_pkey/);
    } finally {
      await dataSource.destroy();
    }
  });
});

describe('the server on the embedded PostgreSQL under concurrent clients', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(db.url, { dbPoolSize: 4 });
  });
  afterAll(() => server?.close());

  it('answers every request of parallel clients correctly', async () => {
    const tenants = await Promise.all(Array.from({ length: 8 }, () => server.createTenant()));
    const outcomes = await Promise.all(
      tenants.map(async (tenant) => {
        const api = server.api(tenant.name);
        const seen: string[] = [];
        for (let round = 0; round < 15; round++) {
          const created = await fetch(`${api}/shells`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify(sampleShell('urn:same')),
          });
          const got = await fetch(`${api}/shells/${b64('urn:same')}`);
          const deleted = await fetch(`${api}/shells/${b64('urn:same')}`, { method: 'DELETE' });
          seen.push(`${created.status},${got.status},${deleted.status}`);
        }
        return seen;
      }),
    );
    expect(outcomes.flat().filter((s) => s !== '201,200,204')).toEqual([]);
  });
});

/** The first column of the first row of `sql` (undefined without rows), on a connection of its own. */
async function firstValue(sql: string): Promise<unknown> {
  const client = new Client({ connectionString: db.url });
  await client.connect();
  try {
    return Object.values((await client.query(sql)).rows[0] ?? {})[0];
  } finally {
    await client.end();
  }
}

/** A typed protocol message: its type byte, an int32 length that counts itself, the body. */
function typed(type: string, body: string): Buffer {
  const bytes = Buffer.from(body);
  const header = Buffer.alloc(5);
  header.write(type, 0);
  header.writeInt32BE(4 + bytes.length, 1);
  return Buffer.concat([header, bytes]);
}

/** What `answer` resolves to, or 'still waiting after 5 s'. */
function within5s<T>(answer: Promise<T>): Promise<T | string> {
  return Promise.race([answer, new Promise<string>((resolve) => setTimeout(() => resolve('still waiting after 5 s'), 5_000))]);
}

/** The start-up message of protocol 3.0 for the user and database `postgres`. */
function startup(): Buffer {
  return untyped(196608, Buffer.from('user\0postgres\0database\0postgres\0\0'));
}

/** A start-up phase message: length, request code, body. */
function untyped(code: number, body = Buffer.alloc(0)): Buffer {
  const header = Buffer.alloc(8);
  header.writeInt32BE(8 + body.length, 0);
  header.writeInt32BE(code, 4);
  return Buffer.concat([header, body]);
}

function messagesOf(bytes: Buffer): { type: string; body: Buffer }[] {
  const messages: { type: string; body: Buffer }[] = [];
  for (let offset = 0; offset + 5 <= bytes.length; ) {
    const length = bytes.readInt32BE(offset + 1);
    if (offset + 1 + length > bytes.length) break;
    messages.push({ type: String.fromCharCode(bytes[offset]), body: bytes.subarray(offset + 5, offset + 1 + length) });
    offset += 1 + length;
  }
  return messages;
}

async function until(condition: () => boolean, timeoutMs = PATIENCE_MS): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
