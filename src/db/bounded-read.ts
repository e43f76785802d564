import { DataSource } from 'typeorm';
import { badRequest } from '../graphql/errors';
import { rethrowClientError } from './read';
import { EXPENSIVE_MARK } from './session-queue';

/** PostgreSQL's query_canceled: here, the statement_timeout `boundedRead` sets. */
const QUERY_CANCELED = '57014';

/**
 * One read statement built from a client's query (the AAS Query Language), run under a statement timeout in a
 * read transaction of its own (`SET LOCAL` ends with it), so a pathological query cannot hold a connection for
 * long. Its failures are the client's: the timeout is a 400 saying to ask for less (as the read budget's is);
 * data exceptions (a regular expression PostgreSQL cannot compile, 2201B; a value out of range; SQL/JSON errors)
 * and program limits (a statement too complex) are a 400 naming PostgreSQL's reason. Anything else (a lost
 * connection) stays what it is. `what` names the request in the timeout's message ("query", "search").
 *
 * The embedded database (PGlite) has no timer interrupts: there the timeout never fires. Its `BEGIN` carries
 * EXPENSIVE_MARK, so that the embedded database's one session serves the cheap statements waiting beside it first
 * (session-queue.ts).
 */
export async function boundedRead<T>(dataSource: DataSource, sql: string, params: unknown[], timeoutMs: number, what = 'query'): Promise<T[]> {
  try {
    const runner = dataSource.createQueryRunner();
    await runner.connect();
    try {
      await runner.query(`${EXPENSIVE_MARK} BEGIN`);
      try {
        // No JIT: the planner cannot estimate SQL/JSON path functions (1000 rows each), so nested ones look costly enough
        // to be compiled, which takes longer than running them (5,000 implicit shell descriptors: 1.7 s with, 0.38 s without).
        await runner.query(`SELECT set_config('statement_timeout', $1, true), set_config('jit', 'off', true)`, [`${timeoutMs}ms`]);
        const rows = (await runner.query(sql, params)) as T[];
        await runner.query('COMMIT');
        return rows;
      } catch (err) {
        await runner.query('ROLLBACK').catch(() => undefined);
        throw err;
      }
    } finally {
      await runner.release();
    }
  } catch (err) {
    const driver = (err as { driverError?: { code?: unknown; message?: string } }).driverError ?? (err as { code?: unknown; message?: string });
    const code = typeof driver.code === 'string' ? driver.code : '';
    if (code === QUERY_CANCELED) {
      throw badRequest(`The ${what} took longer than ${timeoutMs} ms (QUERY_TIMEOUT_MS) and was stopped: narrow its conditions or ask for fewer items (limit).`);
    }
    if (/^(22|54)/.test(code)) throw badRequest(`The ${what} cannot be evaluated: ${driver.message ?? 'PostgreSQL refused it'} (SQLSTATE ${code}).`);
    rethrowClientError(err);
  }
}
