import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { castLiteral } from '../../src/aas/query/sql';
import { TestServer, startTestServer } from '../support/server';

/**
 * A query casts a literal in Node (`castLiteral`, folded before the SQL is built) and a field's value in
 * PostgreSQL (`aas_number`, `aas_datetime`; element rows store them as `v_num` and `v_time`). For every text
 * both must agree on whether it converts and to what, or a comparison of a field with a literal of the same
 * text would fail.
 */

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer(inject('databaseUrl'));
});

afterAll(async () => {
  await server?.close();
});

const VALUES = [
  '16', ' 16 ', '+16.5', '-0.5', '.5', '5.', '1e3', '1E-3', '0x10', '16 bar', '', ' ', 'NaN', 'Infinity', '1,5', '١٢',
  '2024-02-29T10:00:00Z', '2023-02-29T10:00:00Z', '2024-04-31T00:00:00Z', '2024-01-01T00:00:00', '2024-01-01T00:00:00+02:00',
  '2024-01-01t00:00:00z', '2024-01-01T24:00:00Z', '0000-01-01T00:00:00Z', '9999-12-31T23:59:59.5Z', '2024-01-01', '10:00:00', 'true',
];

describe('casts of values: literals in Node, fields in PostgreSQL', () => {
  it('agree for every text', async () => {
    const rows: { v: string; n: string | null; t: Date | null }[] = await server.dataSource.query(
      'SELECT v, aas_number(v)::text AS n, aas_datetime(v) AS t FROM unnest($1::text[]) AS v',
      [VALUES],
    );
    const disagree = rows.flatMap(({ v, n, t }) => {
      const number = castLiteral(v, 'number');
      const dateTime = castLiteral(v, 'dateTime');
      const numberAgrees = number === null ? n === null : n !== null && Number(n) === Number(number);
      const dateAgrees = dateTime === null ? t === null : t !== null && t.getTime() === new Date(dateTime).getTime();
      return numberAgrees && dateAgrees ? [] : [{ v, sql: [n, t?.toISOString() ?? null], node: [number, dateTime] }];
    });
    expect(disagree).toEqual([]);
    // Not all NULL: both sides convert a good share of the texts.
    expect(rows.filter((r) => r.n !== null).length).toBeGreaterThan(5);
    expect(rows.filter((r) => r.t !== null).length).toBeGreaterThan(4);
  });
});
