import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { DataSource } from 'typeorm';
import { SLICE, slicedBoundedRead } from '../../src/db/bounded-read';
import { createDataSource } from '../../src/db/data-source';

/**
 * The query language's page read in slices of the tenant's rows (the embedded database's way: each slice a short
 * statement, between which other requests get the one session): the same page as one statement, and
 * QUERY_TIMEOUT_MS enforced between the slices, where PGlite has no statement timeout.
 */
let dataSource: DataSource;
const table = `sliced_rows_${process.pid}`;

beforeAll(async () => {
  dataSource = await createDataSource(inject('databaseUrl'), 2).initialize();
  await dataSource.query(`CREATE TABLE ${table} (seq bigserial PRIMARY KEY, tenant_id text NOT NULL, n int NOT NULL)`);
  // Two tenants interleaved, so the tenant's seq values have gaps; 1,000 rows of the one asked for.
  await dataSource.query(`INSERT INTO ${table} (tenant_id, n) SELECT CASE WHEN i % 3 = 0 THEN 'b' ELSE 'a' END, i FROM generate_series(1, 1500) AS i`);
});
afterAll(async () => {
  await dataSource?.query(`DROP TABLE IF EXISTS ${table}`);
  await dataSource?.destroy();
});

const read = (rows: number, after = 0) => ({
  table,
  tenantId: 'a',
  sql: `SELECT d.seq::int AS seq, d.n FROM ${table} d WHERE d.tenant_id = $1 AND d.seq > $2 AND ${SLICE} AND d.n % 7 = 0 ORDER BY d.seq LIMIT $3`,
  params: ['a', after, rows],
  rows,
});

describe('a keyset page read in slices', () => {
  it('is the page one statement reads', async () => {
    const whole = (rows: number, after = 0) =>
      dataSource.query(`SELECT d.seq::int AS seq, d.n FROM ${table} d WHERE d.tenant_id = $1 AND d.seq > $2 AND d.n % 7 = 0 ORDER BY d.seq LIMIT $3`, ['a', after, rows]);
    for (const [rows, after] of [[11, 0], [1_000, 0], [26, 700], [5, 1_499]]) {
      expect(await slicedBoundedRead(dataSource, read(rows, after), 60_000)).toEqual(await whole(rows, after));
    }
    expect(await slicedBoundedRead(dataSource, { ...read(5), tenantId: 'nobody' }, 60_000)).toEqual([]);
  });

  it('stops with the timeout’s 400 once QUERY_TIMEOUT_MS has passed between two slices', async () => {
    await expect(slicedBoundedRead(dataSource, read(1_000), 0)).rejects.toMatchObject({ extensions: { code: 'BAD_REQUEST' }, message: expect.stringContaining('QUERY_TIMEOUT_MS') });
  });
});
