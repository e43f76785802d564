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
    if (code === QUERY_CANCELED) throw timedOut(what, timeoutMs);
    if (/^(22|54)/.test(code)) throw badRequest(`The ${what} cannot be evaluated: ${driver.message ?? 'PostgreSQL refused it'} (SQLSTATE ${code}).`);
    rethrowClientError(err);
  }
}

function timedOut(what: string, timeoutMs: number): Error {
  return badRequest(`The ${what} took longer than ${timeoutMs} ms (QUERY_TIMEOUT_MS) and was stopped: narrow its conditions or ask for fewer items (limit).`);
}

/** A keyset read in slices (`slicedBoundedRead`): the statement of one slice, and the table the slices walk. */
export interface SlicedRead {
  /** The table (aliased `d` in `sql`) whose `seq` the slices walk, and its tenant. */
  table: string;
  tenantId: string;
  /** The page's statement with `${SLICE}` where a condition on `d.seq` goes (`d.seq > $a AND d.seq <= $b`). */
  sql: string;
  params: unknown[];
  /** Most rows the page takes (its limit plus the one that says a next page exists). */
  rows: number;
}

/** Where `SlicedRead.sql` takes the slice's condition. */
export const SLICE = '/* slice */ TRUE';
/** The first slice's width in `seq`; each next one is doubled or halved to take about SLICE_MS. */
const FIRST_SLICE = 64;
const SLICE_MS = 50;

/**
 * `boundedRead` of a keyset page in slices of `seq`, each its own short transaction, for the embedded database:
 * PGlite runs one statement at a time to its end (no statement timeout fires there), so a query that reads every
 * document of a tenant in one statement would hold every other request for as long. Between two slices the session
 * serves the cheap statements that wait (session-queue.ts), and QUERY_TIMEOUT_MS is checked (the read stops after
 * the slice that passes it). The slices are in `seq` order, so the rows are the page one statement would give.
 */
export async function slicedBoundedRead<T>(dataSource: DataSource, read: SlicedRead, timeoutMs: number, what = 'query'): Promise<T[]> {
  const started = performance.now();
  const [range] = await dataSource.query(`SELECT min(d.seq)::text AS low, max(d.seq)::text AS high FROM ${read.table} d WHERE d.tenant_id = $1`, [read.tenantId]);
  const rows: T[] = [];
  if (range?.low == null) return rows;
  let after = BigInt(range.low as string) - 1n;
  const high = BigInt(range.high as string);
  let width = BigInt(FIRST_SLICE);
  const first = read.params.length + 1;
  const sql = read.sql.replace(SLICE, `d.seq > $${first} AND d.seq <= $${first + 1}`);
  while (after < high && rows.length < read.rows) {
    const upto = after + width;
    const sliceStarted = performance.now();
    rows.push(...(await boundedRead<T>(dataSource, sql, [...read.params, after.toString(), upto.toString()], timeoutMs, what)));
    after = upto;
    const took = performance.now() - sliceStarted;
    if (took < SLICE_MS / 2) width *= 2n;
    else if (took > SLICE_MS * 2 && width > 1n) width /= 2n;
    if (performance.now() - started > timeoutMs && after < high && rows.length < read.rows) throw timedOut(what, timeoutMs);
  }
  return rows.slice(0, read.rows);
}
