import { randomBytes } from 'node:crypto';
import type { Pool, QueryConfig } from 'pg';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import type { PostgresDriver } from 'typeorm/driver/postgres/PostgresDriver';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createDataSource } from '../../src/db/data-source';
import { namedStatements, statementName } from '../../src/db/named-statements';
import { writeBatcher } from '../../src/db/read';
import { WriteBatcher } from '../../src/db/write-batch';
import { TestServer, b64, startTestServer } from '../support/server';

/**
 * Group commit of the one-statement writes (write-batch.ts): writes that wait beside each other go as one pipeline,
 * in one transaction, each answered with its own statement's rows; a statement PostgreSQL refuses fails alone, the
 * others are written; a broken session fails them all and writes nothing twice; a batch takes its rows' locks in the
 * order of their keys, waiting for a row held elsewhere only briefly.
 * On PostgreSQL and on the embedded database; what needs a second session holding a lock, on PostgreSQL only.
 */
const TABLE = `write_batch_${randomBytes(4).toString('hex')}`;
const INSERT = `INSERT INTO ${TABLE} (id, k, v) VALUES ($1, $2, $3) RETURNING id, k, txid_current()::text AS tx, nextval('${TABLE}_order') AS n`;

const JSON_TYPE = { 'content-type': 'application/json' };
type Written = { id: number; k: string; tx: string; n: string };

describe('write batches (group commit of one-statement writes)', () => {
  let dataSource: DataSource;
  /** A pool of one connection: every batch on the same session, whose prepared statements the tests look at. */
  let single: DataSource;
  const poolOf = (source: DataSource) => (source.driver as PostgresDriver).master as Pool;
  const batcherOn = (source: DataSource, maxInFlight = 1) => {
    const pool = poolOf(source);
    const name = namedStatements(source) ? statementName(INSERT) : undefined;
    const batcher = new WriteBatcher(
      pool,
      (sql, params, statement, clientGone) => pool.query({ ...(statement !== undefined && { name: statement }), text: sql, values: params, clientGone } as QueryConfig).then((r) => r.rows),
      maxInFlight,
    );
    const insert = (id: number, k: string, v = 'ok') => batcher.write<Written>(INSERT, [id, k, v], name, k, null).then((rows) => rows[0]);
    return { batcher, insert };
  };
  const stored = async () => ((await dataSource.query(`SELECT id FROM ${TABLE} ORDER BY id`)) as { id: number }[]).map((row) => row.id);
  const clear = () => dataSource.query(`DELETE FROM ${TABLE}`);

  beforeAll(async () => {
    dataSource = createDataSource(inject('databaseUrl'), 4);
    await dataSource.initialize();
    single = createDataSource(inject('databaseUrl'), 1);
    await single.initialize();
    await dataSource.query(`CREATE TABLE ${TABLE} (id int PRIMARY KEY, k text NOT NULL, v text NOT NULL CHECK (v <> 'bad'))`);
    await dataSource.query(`CREATE SEQUENCE ${TABLE}_order`);
  }, 60_000);
  afterAll(async () => {
    await dataSource?.query(`DROP TABLE IF EXISTS ${TABLE}`).catch(() => undefined);
    await dataSource?.query(`DROP SEQUENCE IF EXISTS ${TABLE}_order`).catch(() => undefined);
    await single?.destroy();
    await dataSource?.destroy();
  });

  it('sends the writes that wait beside each other as one transaction, each answered with its own rows', async () => {
    await clear();
    const { batcher, insert } = batcherOn(dataSource);
    const written = await Promise.all(Array.from({ length: 20 }, (_, i) => insert(i, `key-${String(i).padStart(2, '0')}`)));
    expect(written.map((row) => row.id)).toEqual(Array.from({ length: 20 }, (_, i) => i));
    expect(written.map((row) => row.k)).toEqual(Array.from({ length: 20 }, (_, i) => `key-${String(i).padStart(2, '0')}`));
    expect(new Set(written.map((row) => row.tx)).size).toBe(1);
    expect(batcher.counts).toEqual({ statements: 20, batches: 1, retried: 0 });
    expect(await stored()).toEqual(written.map((row) => row.id));
  });

  it('runs a batch in the order of its keys, the writes of one key in the order they came', async () => {
    await clear();
    const { batcher, insert } = batcherOn(dataSource);
    const written = await Promise.all([insert(1, 'c'), insert(2, 'a'), insert(3, 'b'), insert(4, 'a'), insert(5, 'a')]);
    expect(new Set(written.map((row) => row.tx)).size).toBe(1);
    const order = [...written].sort((x, y) => Number(x.n) - Number(y.n)).map((row) => row.id);
    expect(order).toEqual([2, 4, 5, 3, 1]);
    expect(batcher.counts.batches).toBe(1);
  });

  it('fails only the write PostgreSQL refuses: the others of its batch are written, once', async () => {
    await clear();
    const { batcher, insert } = batcherOn(dataSource);
    const outcomes = await Promise.allSettled(Array.from({ length: 10 }, (_, i) => insert(i, `k${i}`, i === 6 ? 'bad' : 'ok')));
    expect(outcomes.map((outcome) => outcome.status)).toEqual(Array.from({ length: 10 }, (_, i) => (i === 6 ? 'rejected' : 'fulfilled')));
    expect(((outcomes[6] as PromiseRejectedResult).reason as { code?: string }).code).toBe('23514');
    expect(batcher.counts.retried).toBe(10);
    expect(await stored()).toEqual([0, 1, 2, 3, 4, 5, 7, 8, 9]);
  });

  it('keeps the prepared statements of its session right after a batch that failed half-way', async () => {
    await clear();
    // Named statements: one prepared in the failing batch before its error, one after it (which PostgreSQL skips),
    // and between them one that fails only inside a batch (a row of its own transaction there), never alone. So each
    // write succeeds when sent again alone, and the session is kept: the pool drops a connection whose statement failed.
    const texts = ['before', 'after'].map((which) => `INSERT INTO ${TABLE} (id, k, v) VALUES ($1, $2, $3) RETURNING id, '${which}' AS which, pg_backend_pid() AS pid`);
    const onlyAlone = `SELECT 1 / (1 - (SELECT count(*) FROM ${TABLE} WHERE xmin = pg_current_xact_id()::xid)::int) AS one`;
    const pool = poolOf(single);
    const batcher = new WriteBatcher(pool, (sql, params, name) => pool.query({ ...(name !== undefined && { name }), text: sql, values: params }).then((r) => r.rows), 1);
    const named = (text: string) => (namedStatements(single) ? statementName(text) : undefined);
    const failing = await Promise.allSettled([
      batcher.write(texts[0], [1, 'a', 'ok'], named(texts[0]), 'a', null),
      batcher.write(onlyAlone, [], named(onlyAlone), 'b', null),
      batcher.write(texts[1], [3, 'c', 'ok'], named(texts[1]), 'c', null),
    ]);
    expect(failing.map((outcome) => outcome.status)).toEqual(['fulfilled', 'fulfilled', 'fulfilled']);
    const first = failing.map((outcome) => (outcome as PromiseFulfilledResult<{ pid?: number }[]>).value[0]);
    expect(batcher.counts.retried).toBe(3);
    // The same statements again in one batch on the same session: neither "already exists" nor "does not exist".
    const again = await Promise.all([
      batcher.write<{ which: string; pid: number }>(texts[0], [4, 'a', 'ok'], named(texts[0]), 'a', null),
      batcher.write<{ which: string; pid: number }>(texts[1], [5, 'c', 'ok'], named(texts[1]), 'c', null),
    ]);
    // One session throughout.
    expect(new Set([first[0].pid, first[2].pid, again[0][0].pid, again[1][0].pid]).size).toBe(1);
    expect([again[0][0].which, again[1][0].which]).toEqual(['before', 'after']);
    expect(batcher.counts).toEqual({ statements: 5, batches: 2, retried: 3 });
    expect(await stored()).toEqual([1, 3, 4, 5]);
  });

  it('sends a large write alone at once', async () => {
    await clear();
    const { batcher, insert } = batcherOn(dataSource);
    const large = 'x'.repeat(300 * 1024);
    const written = await Promise.all([insert(1, 'a'), insert(2, 'b', large), insert(3, 'c')]);
    expect(written.map((row) => row.id)).toEqual([1, 2, 3]);
    expect(written[0].tx).toBe(written[2].tx);
    expect(written[1].tx).not.toBe(written[0].tx);
    expect(batcher.counts).toEqual({ statements: 2, batches: 1, retried: 0 });
  });

  describe.skipIf(!process.env.DATABASE_URL)('with a second session (PostgreSQL)', () => {
    it('fails every write of a batch whose session ended, and writes none of them', async () => {
      await clear();
      const { batcher, insert } = batcherOn(dataSource);
      const name = namedStatements(dataSource) ? statementName('SELECT pg_terminate_backend(pg_backend_pid())') : undefined;
      const outcomes = await Promise.allSettled([
        insert(1, 'a'),
        batcher.write('SELECT pg_terminate_backend(pg_backend_pid())', [], name, 'b', null),
        insert(3, 'c'),
      ]);
      expect(outcomes.map((outcome) => outcome.status)).toEqual(['rejected', 'rejected', 'rejected']);
      expect(batcher.counts.retried).toBe(0);
      expect(await stored()).toEqual([]);
      // The pool goes on with a new connection.
      expect((await insert(4, 'd')).id).toBe(4);
    });

    it('waits for a row held by another transaction briefly: the batch goes alone, and only that write waits', async () => {
      await clear();
      await dataSource.query(`INSERT INTO ${TABLE} (id, k, v) VALUES (100, 'held', 'ok')`);
      const holder = new Client({ connectionString: inject('databaseUrl') });
      await holder.connect();
      try {
        await holder.query('BEGIN');
        await holder.query(`SELECT 1 FROM ${TABLE} WHERE id = 100 FOR UPDATE`);
        const { batcher } = batcherOn(dataSource);
        const update = `UPDATE ${TABLE} SET v = $2 WHERE id = $1 RETURNING id`;
        const name = namedStatements(dataSource) ? statementName(update) : undefined;
        const done: number[] = [];
        const writes = [
          batcher.write<{ id: number }>(update, [100, 'late'], name, 'held', null).then(() => done.push(100)),
          batcher.write<Written>(INSERT, [101, 'free', 'ok'], namedStatements(dataSource) ? statementName(INSERT) : undefined, 'free', null).then(() => done.push(101)),
        ];
        // The free write is answered while the row is still held: it did not wait with the batch for 10 s.
        const deadline = Date.now() + 8_000;
        while (!done.includes(101) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
        expect(done).toEqual([101]);
        await holder.query('COMMIT');
        await Promise.all(writes);
        expect(done).toEqual([101, 100]);
        expect(batcher.counts.retried).toBe(2);
        expect(await dataSource.query(`SELECT v FROM ${TABLE} WHERE id = 100`)).toEqual([{ v: 'late' }]);
      } finally {
        await holder.end();
      }
    });
  });
});

describe('write batches behind the AAS API', () => {
  let server: TestServer;
  let api: string;

  beforeAll(async () => {
    server = await startTestServer(inject('databaseUrl'));
    api = server.api((await server.createTenant()).name);
  }, 60_000);
  afterAll(() => server?.close());

  const submodel = (i: number) => ({ modelType: 'Submodel', id: `urn:batch:${i}`, idShort: `S${i}`, submodelElements: [{ modelType: 'Property', idShort: 'p', valueType: 'xs:int', value: String(i) }] });

  it('creates, replaces and deletes under concurrent requests, each request answered for its own document', async () => {
    const counts = { ...writeBatcher(server.dataSource).counts };
    const post = await Promise.all(Array.from({ length: 40 }, (_, i) => fetch(`${api}/submodels`, { method: 'POST', headers: JSON_TYPE, body: JSON.stringify(submodel(i)) })));
    expect(post.map((res) => res.status)).toEqual(Array(40).fill(201));
    const bodies = (await Promise.all(post.map((res) => res.json()))) as { id: string }[];
    expect(bodies.map((body) => body.id)).toEqual(Array.from({ length: 40 }, (_, i) => `urn:batch:${i}`));
    // A second create of each, and a PUT of each element, at once: 409 for every create, every PUT written.
    const mixed = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        i % 2
          ? fetch(`${api}/submodels`, { method: 'POST', headers: JSON_TYPE, body: JSON.stringify(submodel(i)) })
          : fetch(`${api}/submodels/${b64(`urn:batch:${i}`)}/submodel-elements/p`, {
              method: 'PUT',
              headers: JSON_TYPE,
              body: JSON.stringify({ modelType: 'Property', idShort: 'p', valueType: 'xs:int', value: String(1000 + i) }),
            }),
      ),
    );
    expect(mixed.map((res) => res.status)).toEqual(Array.from({ length: 40 }, (_, i) => (i % 2 ? 409 : 204)));
    for (let i = 0; i < 40; i += 7) {
      const value = (await (await fetch(`${api}/submodels/${b64(`urn:batch:${i}`)}/submodel-elements/p/$value`, {})).json()) as number;
      expect(Number(value)).toBe(i % 2 ? i : 1000 + i);
    }
    const deleted = await Promise.all(Array.from({ length: 40 }, (_, i) => fetch(`${api}/submodels/${b64(`urn:batch:${i}`)}`, { method: 'DELETE' })));
    expect(deleted.map((res) => res.status)).toEqual(Array(40).fill(204));
    const left = (await (await fetch(`${api}/submodels?limit=100`, {})).json()) as { result: unknown[] };
    expect(left.result).toEqual([]);
    const now = writeBatcher(server.dataSource).counts;
    // 40 creates, 20 creates refused, 20 element writes, 40 deletes; requests that came together went together.
    expect(now.statements - counts.statements).toBeGreaterThanOrEqual(120);
    expect(now.batches - counts.batches).toBeLessThan(now.statements - counts.statements);
    expect(now.retried).toBe(counts.retried);
  }, 60_000);
});
