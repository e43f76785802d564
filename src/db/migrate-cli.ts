import 'reflect-metadata';
import { loadConfig } from '../config';
import { createDataSource, runMigrations } from './data-source';
import { startEmbeddedDatabase } from './embedded';

/**
 * `npm run migration:run` / `npm run migration:revert`: the migrations on DATABASE_URL, or on the embedded
 * database in DATA_DIR. The server runs pending migrations at start anyway; this is for operators who migrate
 * ahead of a deployment, or step back one migration.
 */
async function main(command: string | undefined): Promise<void> {
  if (command !== 'run' && command !== 'revert') throw new Error('usage: migrate-cli run|revert');
  const config = loadConfig();
  // The embedded database takes DATA_DIR's lock as the server does: refused while a server runs on it.
  const embedded = config.databaseUrl ? undefined : await startEmbeddedDatabase(config.dataDir, 2);
  try {
    const dataSource = createDataSource(config.databaseUrl ?? embedded!.url, 1);
    await dataSource.initialize();
    try {
      if (command === 'run') {
        const applied = await runMigrations(dataSource);
        process.stdout.write(applied.length ? `applied: ${applied.join(', ')}\n` : 'nothing to apply\n');
      } else {
        await dataSource.undoLastMigration({ transaction: 'each' });
        process.stdout.write('reverted the last migration\n');
      }
    } finally {
      await dataSource.destroy();
    }
  } finally {
    // Also when a migration failed: the lock is released, not left for the next start to find stale.
    await embedded?.stop();
  }
}

main(process.argv[2]).catch((err: Error) => {
  process.stderr.write(`${err.message}\n`);
  process.exit(1);
});
