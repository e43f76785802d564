import fs from 'node:fs';
import path from 'node:path';
import { lexicographicSortSchema, printSchema } from 'graphql';
import { buildAppSchema } from './schema';

/** The repository root: the nearest folder above this file with a package.json (works from src/ and dist/). */
function repoRoot(from: string): string {
  let dir = from;
  while (!fs.existsSync(path.join(dir, 'package.json'))) {
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error(`no package.json above ${from}`);
    dir = parent;
  }
  return dir;
}

/** The committed SDL; `npm run schema:print` rewrites it, and a test fails when it is stale. */
export const SCHEMA_FILE = path.join(repoRoot(__dirname), 'schema', 'schema.graphql');

export async function printAppSchema(): Promise<string> {
  return `${printSchema(lexicographicSortSchema(await buildAppSchema()))}\n`;
}

if (require.main === module) {
  printAppSchema().then((sdl) => {
    fs.writeFileSync(SCHEMA_FILE, sdl);
    process.stdout.write(`wrote ${SCHEMA_FILE}\n`);
  });
}
