import fs from 'node:fs';
import path from 'node:path';
import { lexicographicSortSchema, printSchema } from 'graphql';
import { buildAppSchema } from './schema';

export const SCHEMA_FILE = path.resolve(__dirname, '../../../schema/schema.graphql').replace(`${path.sep}dist${path.sep}`, path.sep);

export async function printAppSchema(): Promise<string> {
  return `${printSchema(lexicographicSortSchema(await buildAppSchema()))}\n`;
}

if (require.main === module) {
  printAppSchema().then((sdl) => {
    fs.writeFileSync(SCHEMA_FILE, sdl);
    process.stdout.write(`wrote ${SCHEMA_FILE}\n`);
  });
}
