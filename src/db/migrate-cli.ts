import 'reflect-metadata';
import { loadConfig } from '../config';
import { explainConnectError } from './connect-error';
import { createDataSource, runMigrations } from './data-source';
import { distributeOnCitus } from './distribution';
import { startEmbeddedDatabase } from './embedded';

/**
 * `npm run migration:run` / `npm run migration:revert`: the migrations on DATABASE_URL, or on the embedded
 * database in DATA_DIR. The server runs pending migrations at start anyway; this is for operators who migrate
 * ahead of a deployment, or step back one migration. `npm run db:distribute`: distributes the schema of a database
 * that gained the `citus` extension after its migrations ran (docs/scale-out.md).
 */
async function main(command: string | undefined): Promise<void> {
  if (command !== 'run' && command !== 'revert' && command !== 'distribute') throw new Error('usage: migrate-cli run|revert|distribute');
  const config = loadConfig();
  // The embedded database takes DATA_DIR's lock as the server does: refused while a server runs on it.
  const embedded = config.databaseUrl ? undefined : await startEmbeddedDatabase(config.dataDir, 2);
  try {
    const dataSource = createDataSource(config.databaseUrl ?? embedded!.url, 1);
    await dataSource.initialize().catch((err: unknown) => {
      throw (config.databaseUrl ? explainConnectError(err, config.databaseUrl) : undefined) ?? err;
    });
    try {
      if (command === 'run') {
        const applied = await runMigrations(dataSource);
        process.stdout.write(applied.length ? `applied: ${applied.join(', ')}\n` : 'nothing to apply\n');
      } else if (command === 'distribute') {
        const placed = await dataSource.transaction((manager) => distributeOnCitus((sql, params) => manager.query(sql, params)));
        process.stdout.write(placed.length ? `placed: ${placed.join(', ')}\n` : 'nothing to place (no citus extension, or every table placed)\n');
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
