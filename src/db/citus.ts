import { DataSource, EntityManager } from 'typeorm';
import { apartFromRequest } from '../common/client-gone';
import { readRows } from './read';

const known = new WeakMap<DataSource, Promise<boolean>>();

const CITUS = `SELECT 1 FROM pg_extension WHERE extname = 'citus'`;

/**
 * Whether the database is distributed with Citus (the `citus` extension is installed in it), asked once per data
 * source: some statements are written differently there (docs/scale-out.md). The server asks at start. Asked inside
 * a transaction, pass its `manager`: the question then goes on the transaction's own connection. On another one it
 * would wait for the transaction's end on a database of one session (the embedded database shared by processes over
 * its socket, as the test suite's), and the transaction for it.
 */
export function onCitus(dataSource: DataSource, manager?: EntityManager): Promise<boolean> {
  let answer = known.get(dataSource);
  if (!answer) {
    // Asked once for every request that waits for it: not stopped when the client of the first one goes.
    const ask = manager ? () => manager.query(CITUS) as Promise<unknown[]> : () => readRows(dataSource, CITUS, []);
    answer = apartFromRequest(ask).then((rows) => rows.length > 0);
    // A failed look-up is asked again next time.
    answer.catch(() => known.delete(dataSource));
    known.set(dataSource, answer);
  }
  return answer;
}
