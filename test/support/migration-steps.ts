import type { DataSource } from 'typeorm';
import { runMigrations } from '../../src/db/data-source';

/**
 * Runs `step` (a test of one migration's down and up) on the schema that migration was written for: the migrations
 * applied after it are undone first, newest first (as `npm run migration:revert` does), and run again afterwards.
 * Says which were undone, newest first.
 */
export async function withLaterMigrationsUndone(dataSource: DataSource, name: string, step: () => Promise<void>): Promise<string[]> {
  const undone: string[] = [];
  for (;;) {
    const [last]: { name: string }[] = await dataSource.query('SELECT name FROM migrations ORDER BY id DESC LIMIT 1');
    if (last.name === name) break;
    undone.push(last.name);
    await dataSource.undoLastMigration({ transaction: 'each' });
  }
  await step();
  const applied = await runMigrations(dataSource);
  if (applied.reverse().join() !== undone.join()) throw new Error(`ran ${applied.join(', ')} again, not ${undone.join(', ')}`);
  return undone;
}
