import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SCHEMA_FILE, printAppSchema } from '../../src/graphql/print-schema';

describe('schema/schema.graphql', () => {
  it('is the schema the code builds (run `npm run schema:print` after changing it)', async () => {
    expect(fs.readFileSync(SCHEMA_FILE, 'utf8')).toBe(await printAppSchema());
  });
});
