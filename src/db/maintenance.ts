import type { Logger } from 'pino';
import { DataSource } from 'typeorm';

/**
 * PGlite runs no autovacuum, so the embedded database never gathers planner statistics by itself. Without them
 * PostgreSQL plans a keyset page as a bitmap scan plus a sort of every row after the cursor, so pages get
 * slower the deeper they are. The embedded database is therefore analyzed shortly after start and then every
 * minute (a PostgreSQL server's autovacuum does this on its own).
 */
export function scheduleAnalyze(dataSource: DataSource, log: Logger, firstMs = 10_000, everyMs = 60_000): () => Promise<void> {
  let running: Promise<unknown> = Promise.resolve();
  const analyze = () => {
    running = dataSource.query('ANALYZE').catch((err: Error) => log.warn({ err }, 'ANALYZE of the embedded database failed'));
  };
  const first = setTimeout(analyze, firstMs);
  const every = setInterval(analyze, everyMs);
  first.unref();
  every.unref();
  return async () => {
    clearTimeout(first);
    clearInterval(every);
    await running;
  };
}
