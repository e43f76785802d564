import fs from 'node:fs';
import path from 'node:path';
import { lexicographicSortSchema, printSchema } from 'graphql';
import { packageRoot } from '../common/package-info';
import { buildAppSchema } from './schema';

/** The committed SDL; `npm run schema:print` rewrites it, and a test fails when it is stale. */
export const SCHEMA_FILE = path.join(packageRoot(__dirname), 'schema', 'schema.graphql');

export async function printAppSchema(): Promise<string> {
  return `${printSchema(lexicographicSortSchema(await buildAppSchema()))}\n`;
}

if (require.main === module) {
  printAppSchema().then((sdl) => {
    fs.writeFileSync(SCHEMA_FILE, sdl);
    process.stdout.write(`wrote ${SCHEMA_FILE}\n`);
  });
}
