import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { withClient } from './pg-client';
import { createDataSource, runMigrations } from '../../src/db/data-source';
import { LOCK_FILE } from '../../src/db/data-dir-lock';
import { startEmbeddedDatabase } from '../../src/db/embedded';

/**
 * One migrated, empty database made once per run (global-setup.ts), that every database a test makes for itself
 * (`freshDatabase`) starts as a copy of: on a PostgreSQL server a database cloned with `CREATE DATABASE … TEMPLATE`,
 * for the embedded PostgreSQL a copy of a data directory. A new database then costs a file copy, where it cost an
 * `initdb` (seconds of WebAssembly for PGlite) and every migration. It holds the migrations only: the first start's
 * organization, owner and tenant are still made by each server on its own database.
 */
export type DatabaseTemplate = { kind: 'postgres'; name: string } | { kind: 'embedded'; dir: string };

/** Runs `sql` on the server of `url`, on a connection of its own. */
export async function onServer(url: string, sql: string): Promise<void> {
  await withClient(url, (client) => client.query(sql));
}

/** Applies every migration to the database at `url`. */
async function migrate(url: string): Promise<void> {
  const dataSource = await createDataSource(url, 1).initialize();
  try {
    await runMigrations(dataSource);
  } finally {
    await dataSource.destroy();
  }
}

/**
 * The template of this run: beside the database of `databaseUrl` on its server (named after it, so runs on other
 * databases of the same server keep their own), or else an embedded data directory under the system's temp dir.
 * `remove` drops it at the end of the run (the embedded one is kept for the next: `embeddedTemplate`).
 */
export async function makeTemplate(databaseUrl: string | undefined): Promise<{ template: DatabaseTemplate; remove(): Promise<void> }> {
  if (databaseUrl) {
    const url = new URL(databaseUrl);
    const name = `${decodeURIComponent(url.pathname.slice(1)) || 'postgres'}_template`.replace(/[^a-zA-Z0-9_]/g, '_');
    await onServer(databaseUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await onServer(databaseUrl, `CREATE DATABASE ${name}`);
    url.pathname = `/${name}`;
    await migrate(url.toString());
    return { template: { kind: 'postgres', name }, remove: () => onServer(databaseUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
  }
  return { template: { kind: 'embedded', dir: await embeddedTemplate() }, remove: async () => undefined };
}

/** Where migrated embedded templates are kept between runs, one per state of the migrations and PGlite. */
const CACHE = path.resolve(__dirname, '../../node_modules/.cache/asset-platform-test-template');

/**
 * The embedded template for the migrations as they are: kept between runs (an `initdb` and every migration cost
 * PGlite tens of seconds), named by a hash of the migrations' sources and the PGlite version, so a changed or added
 * migration makes a new one. Made in a temporary directory and renamed into place, so a run stopped halfway leaves
 * none half-made; older ones are removed.
 */
async function embeddedTemplate(): Promise<string> {
  const hash = createHash('sha256');
  const migrationsDir = path.resolve(__dirname, '../../migrations');
  for (const file of fs.readdirSync(migrationsDir).sort()) hash.update(file).update(fs.readFileSync(path.join(migrationsDir, file)));
  hash.update(fs.readFileSync(path.resolve(__dirname, '../../node_modules/@electric-sql/pglite/package.json')));
  const dir = path.join(CACHE, hash.digest('hex').slice(0, 16));
  if (fs.existsSync(dir)) return dir;
  fs.mkdirSync(CACHE, { recursive: true });
  const making = fs.mkdtempSync(path.join(os.tmpdir(), 'asset-platform-template-'));
  try {
    const db = await startEmbeddedDatabase(making, 4);
    try {
      await migrate(db.url);
    } finally {
      await db.stop();
    }
    for (const old of fs.readdirSync(CACHE)) if (!old.includes('.partial-')) fs.rmSync(path.join(CACHE, old), { recursive: true, force: true });
    // Across file systems (the temp dir, node_modules) a rename is a copy first.
    const staged = `${dir}.partial-${process.pid}`;
    copyEmbeddedTemplate(making, staged);
    try {
      fs.renameSync(staged, dir);
    } catch (err) {
      // Another run made the same one meanwhile: theirs is as good.
      fs.rmSync(staged, { recursive: true, force: true });
      if (!fs.existsSync(dir)) throw err;
    }
  } finally {
    fs.rmSync(making, { recursive: true, force: true });
  }
  return dir;
}

/** A copy of the embedded template in `dir` (new or empty): the data files, not the lock or the socket of a run. */
export function copyEmbeddedTemplate(template: string, dir: string): void {
  fs.cpSync(template, dir, {
    recursive: true,
    filter: (source) => {
      const relative = path.relative(template, source);
      return relative !== LOCK_FILE && relative !== 'run' && !relative.startsWith(`run${path.sep}`);
    },
  });
  fs.chmodSync(dir, 0o700);
}
