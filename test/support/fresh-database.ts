import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { inject } from 'vitest';
import { startEmbeddedDatabase } from '../../src/db/embedded';
import { copyEmbeddedTemplate, onServer } from './template-database';

export interface FreshDatabase {
  url: string;
  /** Drops it (PostgreSQL) or stops it and removes its directory (embedded). */
  drop(): Promise<void>;
}

/**
 * A database of a test's own, for tests that must not share the run's database (a migration touching every row,
 * an outbox publisher that would take other tests' events): a new database on the PostgreSQL server of
 * DATABASE_URL when it is set, else a new embedded PostgreSQL in a temporary directory. Either starts as a copy
 * of the run's migrated template (test/support/template-database.ts): migrated, with no data.
 */
export async function freshDatabase(prefix: string): Promise<FreshDatabase> {
  const template = inject('databaseTemplate');
  const base = process.env.DATABASE_URL;
  if (base) {
    const name = `${prefix}_${randomBytes(4).toString('hex')}`;
    await onServer(base, template.kind === 'postgres' ? `CREATE DATABASE ${name} TEMPLATE ${template.name}` : `CREATE DATABASE ${name}`);
    const url = new URL(base);
    url.pathname = `/${name}`;
    return { url: url.toString(), drop: () => onServer(base, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `${prefix}-`));
  if (template.kind === 'embedded') copyEmbeddedTemplate(template.dir, dir);
  const embedded = await startEmbeddedDatabase(dir, 40);
  return {
    url: embedded.url,
    drop: async () => {
      await embedded.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * The database for a test that makes its database fall silent through a relay (test/support/db-relay.ts) under a
 * server's load. On a PostgreSQL server, the run's database: a silenced session holds only the locks of its own
 * tenant's rows, and every other test file has sessions of its own. On the embedded database, a database of the
 * test's own: its one session is shared by every connection, and a connection silenced inside a transaction keeps
 * it, so every other test file's statements would wait for the silence to end (and answer 503).
 */
export async function databaseToSilence(prefix: string): Promise<FreshDatabase> {
  if (process.env.DATABASE_URL) return { url: inject('databaseUrl'), drop: async () => undefined };
  return freshDatabase(prefix);
}
