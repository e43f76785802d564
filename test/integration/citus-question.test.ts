import { DataSource } from 'typeorm';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { onCitus } from '../../src/db/citus';
import { createDataSource } from '../../src/db/data-source';

/**
 * Whether the database runs Citus is asked once per data source, and a write may ask it first inside its
 * transaction. On the embedded database shared over its socket (one session for every connection, as this suite
 * runs it), a question on another connection waits for the transaction's end, and the transaction waits for the
 * answer: the whole database stood still (the fuzz test's server froze at its first such write). Asked with the
 * transaction's manager, the question goes on the transaction's own connection.
 */
describe('asking whether the database runs Citus inside a transaction', () => {
  let dataSource: DataSource;

  beforeAll(async () => {
    dataSource = createDataSource(inject('databaseUrl'), 2);
    await dataSource.initialize();
  });
  afterAll(() => dataSource?.destroy());

  it('answers on the transaction’s own connection, without waiting for the transaction to end', async () => {
    let timer: NodeJS.Timeout | undefined;
    const stuck = new Promise<string>((resolve) => (timer = setTimeout(() => resolve('no answer within 20 s'), 20_000)));
    const answer = dataSource.transaction(async (manager) => {
      await manager.query('SELECT 1');
      return onCitus(dataSource, manager);
    });
    const got = await Promise.race([answer, stuck]);
    clearTimeout(timer);
    const citus = (await dataSource.query(`SELECT 1 FROM pg_extension WHERE extname = 'citus'`)).length > 0;
    expect(got).toBe(citus);
    // Known from now on, for this data source, without a statement.
    expect(await onCitus(dataSource)).toBe(got);
  }, 60_000);
});
