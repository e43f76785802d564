import type { PGlite } from '@electric-sql/pglite';
import { describe, expect, it } from 'vitest';
import { EXPENSIVE_MARK, SessionQueue } from '../../src/db/session-queue';

/** A simple query message ('Q') of `text`. */
function query(text: string): Uint8Array {
  const body = Buffer.from(`${text}\0`);
  const header = Buffer.alloc(5);
  header.write('Q', 0);
  header.writeInt32BE(4 + body.length, 1);
  return Buffer.concat([header, body]);
}

/** ReadyForQuery, the session idle: what ends each answer of the fake database. */
const IDLE_READY = Buffer.from([0x5a, 0, 0, 0, 5, 0x49]);

/**
 * A stand-in for PGlite that records the order it runs messages in; the first message it runs waits until `release`
 * is called, so that others queue up behind it.
 */
function fakeDatabase() {
  const ran: string[] = [];
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  const db = {
    runExclusive: <T>(run: () => Promise<T>) => run(),
    isInTransaction: () => false,
    execProtocolRawStream: async (message: Uint8Array, { onRawData }: { onRawData: (data: Uint8Array) => void }) => {
      ran.push(Buffer.from(message).subarray(5, -1).toString());
      if (ran.length === 1) await held;
      onRawData(IDLE_READY);
    },
  };
  return { db: db as unknown as PGlite, ran, release };
}

describe('the embedded database session queue', () => {
  it('lets cheap statements of other connections go before queued expensive work, never ahead of their own connection', async () => {
    const { db, ran, release } = fakeDatabase();
    const queue = new SessionQueue(db);
    const answers = [
      queue.enqueue(1, query('SELECT 1'), () => undefined),
      queue.enqueue(2, query(`${EXPENSIVE_MARK} BEGIN`), () => undefined),
      // Sent by connection 2 before its BEGIN was answered: it must not overtake that BEGIN.
      queue.enqueue(2, query('SELECT 2'), () => undefined),
      queue.enqueue(3, query('SELECT 3'), () => undefined),
    ];
    release();
    await Promise.all(answers);
    expect(ran).toEqual(['SELECT 1', 'SELECT 3', `${EXPENSIVE_MARK} BEGIN`, 'SELECT 2']);
  });
});
