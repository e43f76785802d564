import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { DataSource } from 'typeorm';
import { createDataSource } from '../../src/db/data-source';
import { namedStatements } from '../../src/db/named-statements';
import { readRows } from '../../src/db/read';

/**
 * Named (prepared) statements: the hot statements are prepared once per connection. On the embedded database every
 * connection shares one session, where the same name prepared by two connections would collide; each connection's
 * names carry its own number. A database URL with `prepared_statements=false` turns them off (connection poolers in
 * transaction mode).
 */
const withParam = (url: string, value: string) => {
  const parsed = new URL(url);
  parsed.searchParams.set('prepared_statements', value);
  return parsed.toString();
};

let dataSource: DataSource;

beforeAll(async () => {
  dataSource = await createDataSource(inject('databaseUrl'), 4).initialize();
});

afterAll(async () => {
  await dataSource?.destroy();
});

describe('named statements', () => {
  it('are on unless the URL turns them off; another value is refused', () => {
    expect(namedStatements(dataSource)).toBe(true);
    expect(namedStatements(createDataSource(withParam(inject('databaseUrl'), 'false'), 1))).toBe(false);
    expect(namedStatements(createDataSource(withParam(inject('databaseUrl'), 'true'), 1))).toBe(true);
    expect(() => createDataSource(withParam(inject('databaseUrl'), 'off'), 1)).toThrow(/prepared_statements .* true or false/);
  });

  it('run the same statement on every connection of the pool at once, and again, with the right answers', async () => {
    const sql = 'SELECT $1::int * 2 AS doubled, pg_sleep(0.02) IS NULL AS slept';
    for (let round = 0; round < 3; round++) {
      const answers = await Promise.all(Array.from({ length: 12 }, (_, i) => readRows<{ doubled: number }>(dataSource, sql, [i], true)));
      expect(answers.map((rows) => rows[0].doubled)).toEqual(Array.from({ length: 12 }, (_, i) => i * 2));
    }
    // Prepared in the session(s): by name, once per connection (on the embedded database, all in its one session).
    const prepared = await readRows<{ name: string }>(dataSource, `SELECT name FROM pg_prepared_statements WHERE statement = $1`, [sql]);
    expect(prepared.length).toBeGreaterThanOrEqual(1);
  });

  it('leave the session with the connection that prepared them (the embedded database keeps its one session)', async () => {
    const sql = `SELECT $1::int + 1 AS next, ${Date.now()} AS run`;
    const other = await createDataSource(inject('databaseUrl'), 2).initialize();
    await Promise.all([1, 2, 3].map((i) => readRows(other, sql, [i], true)));
    await other.destroy();
    // On a PostgreSQL server this session never saw them; on the embedded one they are gone with their connections.
    const left = await readRows<{ n: string }>(dataSource, 'SELECT count(*) AS n FROM pg_prepared_statements WHERE statement = $1', [sql]);
    expect(Number(left[0].n)).toBe(0);
  });

  it('work with them off, through the same pool code', async () => {
    const off = await createDataSource(withParam(inject('databaseUrl'), 'false'), 2).initialize();
    try {
      const rows = await readRows<{ one: number }>(off, 'SELECT 1 AS one', [], true);
      expect(rows[0].one).toBe(1);
    } finally {
      await off.destroy();
    }
  });
});
