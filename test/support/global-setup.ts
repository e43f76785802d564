import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { startEmbeddedDatabase } from '../../src/db/embedded';
import { missingTools, skipNotice } from './system-tools';
import { DatabaseTemplate, copyEmbeddedTemplate, makeTemplate } from './template-database';
import { corpusDir } from './testdata';

declare module 'vitest' {
  export interface ProvidedContext {
    databaseUrl: string;
    /** The migrated empty database that `freshDatabase` copies (test/support/template-database.ts). */
    databaseTemplate: DatabaseTemplate;
  }
}

/**
 * The aas-core3.0-testgen corpus is unpacked before any test file runs (test/support/testdata.ts), and the run says
 * in one line which tests it skips for want of a program outside npm (test/support/system-tools.ts).
 * Tests run against the PostgreSQL server in DATABASE_URL, or else against one embedded PostgreSQL (PGlite)
 * started here for the whole run. Test files isolate their data by tenant, so they share one database. A migrated
 * template is made once here, for the databases tests make of their own (`freshDatabase`), and the embedded
 * database of the run starts as a copy of it.
 */
export default async function setup(project: TestProject) {
  // Unpacked here, once, before the test files that read it start in parallel.
  corpusDir();
  const missing = missingTools();
  if (missing.length) process.stderr.write(`${skipNotice(missing)}\n`);
  const { template, remove } = await makeTemplate(process.env.DATABASE_URL);
  project.provide('databaseTemplate', template);
  if (process.env.DATABASE_URL) {
    project.provide('databaseUrl', process.env.DATABASE_URL);
    return remove;
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'asset-platform-test-'));
  if (template.kind === 'embedded') copyEmbeddedTemplate(template.dir, dir);
  const db = await startEmbeddedDatabase(dir, 40);
  project.provide('databaseUrl', db.url);
  return async () => {
    await db.stop();
    fs.rmSync(dir, { recursive: true, force: true });
    await remove();
  };
}
