import { DataSource, MigrationExecutor } from 'typeorm';
import { migrations } from '../../migrations';
import { entities } from './entities';

export function createDataSource(url: string, poolSize: number): DataSource {
  return new DataSource({
    type: 'postgres',
    url,
    entities,
    migrations,
    migrationsTransactionMode: 'each',
    synchronize: false,
    installExtensions: false,
    poolSize,
    // Identifiables are large jsonb documents; a statement that runs away is a bug, not a workload.
    extra: { statement_timeout: 60_000, application_name: 'asset-platform' },
  });
}

/** Lock key for migrations, so replicas (and parallel test workers) starting at once migrate one at a time. */
const MIGRATION_LOCK = 7_405_991_201;

export async function runMigrations(dataSource: DataSource): Promise<string[]> {
  const runner = dataSource.createQueryRunner();
  await runner.connect();
  try {
    await runner.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    try {
      // On the lock's own connection: a pool of one must not wait for a second.
      const executor = new MigrationExecutor(dataSource, runner);
      executor.transaction = 'each';
      const applied = await executor.executePendingMigrations();
      return applied.map((m) => m.name);
    } finally {
      await runner.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]);
    }
  } finally {
    await runner.release();
  }
}
