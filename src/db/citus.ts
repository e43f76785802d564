import { DataSource } from 'typeorm';
import { apartFromRequest } from '../common/client-gone';
import { readRows } from './read';

const known = new WeakMap<DataSource, Promise<boolean>>();

/**
 * Whether the database is distributed with Citus (the `citus` extension is installed in it), asked once per data
 * source: some statements are written differently there (docs/scale-out.md).
 */
export function onCitus(dataSource: DataSource): Promise<boolean> {
  let answer = known.get(dataSource);
  if (!answer) {
    // Asked once for every request that waits for it: not stopped when the client of the first one goes.
    answer = apartFromRequest(() => readRows(dataSource, `SELECT 1 FROM pg_extension WHERE extname = 'citus'`, [])).then((rows) => rows.length > 0);
    // A failed look-up is asked again next time.
    answer.catch(() => known.delete(dataSource));
    known.set(dataSource, answer);
  }
  return answer;
}
