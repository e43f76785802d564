import pino from 'pino';
import { describe, expect, inject, it } from 'vitest';
import { createDataSource } from '../../src/db/data-source';
import { NotificationListener } from '../../src/db/listener';
import { isDatabaseUnavailable } from '../../src/db/unavailable';
import { databaseRelay } from '../support/db-relay';
import { LOAD_SLACK_MS } from '../support/timing';

const log = pino({ level: 'silent' });
/** Short bounds keep the tests short; each bound is checked with the load slack on top (test/support/timing.ts). */
const bounds = { connectTimeoutMs: 500, answerTimeoutMs: 300, longestStatementMs: 10_000 };

/** How long `work` took (ms) and how it ended. */
async function timed<T>(work: Promise<T>): Promise<{ ms: number; value?: T; error?: unknown }> {
  const started = performance.now();
  try {
    const value = await work;
    return { ms: performance.now() - started, value };
  } catch (error) {
    return { ms: performance.now() - started, error };
  }
}

describe('the watch on statements without an answer', () => {
  // A PostgreSQL server: the embedded database runs one statement at a time (a long one holds up the liveness check
  // too), and is reached over a unix socket, where no bounds apply.
  it.skipIf(!process.env.DATABASE_URL)('lets a statement run far past the answer timeout while the database answers others', async () => {
    const dataSource = await createDataSource(inject('databaseUrl'), 2, bounds).initialize();
    try {
      // A long statement (an import, a lock wait) is not a silent database: ten answer timeouts, and it completes.
      expect(await dataSource.query('SELECT 1 AS slept FROM pg_sleep(3)')).toEqual([{ slept: 1 }]);
      expect(await dataSource.query('SELECT 1 AS one')).toEqual([{ one: 1 }]);
    } finally {
      await dataSource.destroy();
    }
  });

  it.skipIf(!process.env.DATABASE_URL)('gives up on a connection silent past the longest a statement may run, though the database answers others', async () => {
    const dataSource = await createDataSource(inject('databaseUrl'), 2, { ...bounds, longestStatementMs: 1_000 }).initialize();
    try {
      const { ms, error } = await timed(dataSource.query('SELECT pg_sleep(30)'));
      expect(isDatabaseUnavailable(error)).toBe(true);
      expect(ms).toBeLessThan(1_000 + bounds.answerTimeoutMs + LOAD_SLACK_MS);
      expect(await dataSource.query('SELECT 1 AS one')).toEqual([{ one: 1 }]); // a new connection
    } finally {
      await dataSource.destroy();
    }
  });

  it('fails a statement on a silent database as unavailable, within the answer and connect timeouts, and serves again after', async () => {
    const relay = databaseRelay(inject('databaseUrl'));
    const dataSource = await createDataSource(await relay.start(), 2, bounds).initialize();
    try {
      await dataSource.query('SELECT 1');
      relay.silence();
      const silent = await timed(dataSource.query('SELECT 1'));
      expect(isDatabaseUnavailable(silent.error)).toBe(true);
      expect(silent.ms).toBeLessThan(bounds.answerTimeoutMs + bounds.connectTimeoutMs + LOAD_SLACK_MS);
      // No connection free in the pool to wait for: a new one cannot be made in time either.
      const waiting = await timed(Promise.all([dataSource.query('SELECT 1'), dataSource.query('SELECT 2'), dataSource.query('SELECT 3')]));
      expect(isDatabaseUnavailable(waiting.error)).toBe(true);
      expect(waiting.ms).toBeLessThan(bounds.answerTimeoutMs + bounds.connectTimeoutMs + LOAD_SLACK_MS);
      relay.resume();
      expect(await dataSource.query('SELECT 1 AS one')).toEqual([{ one: 1 }]);
    } finally {
      relay.resume();
      await dataSource.destroy();
      await relay.stop();
    }
  }, 60_000);

  it('fails a statement that waited for the pool and met the silence within the answer and connect timeouts of its start, not a connect timeout later', async () => {
    // Long enough bounds that the connect timeout the old watch added (the wait for the pool) is larger than the
    // slack a loaded machine needs: the pool wait, then the answer timeout, then the check would be ~3 x 8 s.
    const long = { connectTimeoutMs: 8_000, answerTimeoutMs: 8_000, longestStatementMs: 60_000 };
    const relay = databaseRelay(inject('databaseUrl'));
    const dataSource = await createDataSource(await relay.start(), 1, long).initialize();
    try {
      await dataSource.query('SELECT 1');
      // The pool's one connection is busy with a statement the database answers 7 s later; the next one waits for it.
      const busy = dataSource.query('SELECT 1 AS slept FROM pg_sleep(7)');
      await new Promise((resolve) => setTimeout(resolve, 200));
      const waiting = timed(dataSource.query('SELECT 2'));
      // The partition begins: what the server sends from now on is held, the answer under way still comes back. The
      // connection goes to the waiting statement just as the database falls silent to it.
      relay.silenceToDatabase();
      expect(await busy).toEqual([{ slept: 1 }]);
      const { ms, error } = await waiting;
      expect(isDatabaseUnavailable(error)).toBe(true);
      expect(ms).toBeLessThan(long.answerTimeoutMs + long.connectTimeoutMs + LOAD_SLACK_MS);
    } finally {
      relay.resume();
      await dataSource.destroy();
      await relay.stop();
    }
  }, 90_000);

  it('closes its pool (a shutdown) within the bounds while the database is silent under a statement', async () => {
    const relay = databaseRelay(inject('databaseUrl'));
    const dataSource = await createDataSource(await relay.start(), 2, bounds).initialize();
    try {
      await dataSource.query('SELECT 1');
      relay.silence();
      const statement = dataSource.query('SELECT 1').catch((err: unknown) => err);
      const closing = await timed(Promise.race([dataSource.destroy(), new Promise((resolve) => setTimeout(resolve, 10_000 + LOAD_SLACK_MS, 'still closing'))]));
      expect(closing.value).toBeUndefined();
      expect(closing.ms).toBeLessThan(bounds.answerTimeoutMs + bounds.connectTimeoutMs + LOAD_SLACK_MS);
      expect(isDatabaseUnavailable(await statement)).toBe(true);
    } finally {
      relay.resume();
      await relay.stop();
    }
  }, 60_000);
});

describe('a LISTEN connection', () => {
  it('is found lost when it falls silent, and listens again by itself when the database answers', async () => {
    const relay = databaseRelay(inject('databaseUrl'));
    const events: string[] = [];
    let changed = () => undefined as void;
    const listener = new NotificationListener({
      url: await relay.start(),
      channel: 'answer_watch_test',
      purpose: 'test',
      log,
      heartbeatMs: 200,
      connectTimeoutMs: 500,
      maxRetryMs: 200,
      onNotification: (payload) => events.push(payload),
      onListening: () => (events.push('listening'), changed()),
      onLost: () => (events.push('lost'), changed()),
    });
    const next = (event: string) => new Promise<void>((resolve) => (changed = () => (events.at(-1) === event ? resolve() : undefined)));
    try {
      await listener.start();
      expect(events).toEqual(['listening']);
      const lost = next('lost');
      relay.silence();
      const { ms } = await timed(lost);
      expect(ms).toBeLessThan(2 * 200 + LOAD_SLACK_MS); // two heartbeats, and what a loaded machine adds
      const listening = next('listening');
      relay.resume();
      await listening;
    } finally {
      await listener.stop();
      await relay.stop();
    }
  }, 60_000);
});
