import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { startEmbeddedDatabase } from '../../src/db/embedded';
import { corpusDir } from './testdata';

declare module 'vitest' {
  export interface ProvidedContext {
    databaseUrl: string;
  }
}

/**
 * The aas-core3.0-testgen corpus is unpacked before any test file runs (test/support/testdata.ts).
 * Tests run against the PostgreSQL server in DATABASE_URL, or else against one embedded PostgreSQL (PGlite)
 * started here for the whole run. Test files isolate their data by tenant, so they share one database.
 */
export default async function setup(project: TestProject) {
  // Unpacked here, once, before the test files that read it start in parallel.
  corpusDir();
  if (process.env.DATABASE_URL) {
    project.provide('databaseUrl', process.env.DATABASE_URL);
    return;
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'asset-platform-test-'));
  const db = await startEmbeddedDatabase(dir, 40);
  project.provide('databaseUrl', db.url);
  return async () => {
    await db.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  };
}
