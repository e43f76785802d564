import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import { afterAll, beforeAll } from 'vitest';
import { writeAasxPackage } from '../../src/aas/aasx';
import { ImportService } from '../../src/aas/import/import.service';
import { MemorySink } from './memory-sink';
import type { TestServer } from './server';

/** A file of a package being written: its part name, content type (default `application/pdf`) and text. */
export interface PackageFileContent {
  path: string;
  contentType?: string;
  text: string;
}

/**
 * Packages written to files as an upload would be, in a temporary folder of the test file's own (made before its
 * tests, removed after them): `write` takes the spec part and the files its File elements name.
 */
export function packageWriter(prefix: string): {
  write(spec: { format: 'json' | 'xml'; content: string }, files?: PackageFileContent[]): Promise<string>;
  /** Any bytes, as a file of the folder (a package built entry by entry, something that is no package). */
  writeBytes(bytes: Buffer | string): string;
} {
  let dir: string | undefined;
  let counter = 0;
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  });
  afterAll(() => {
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });
  const writeBytes = (bytes: Buffer | string) => {
    const file = path.join(dir!, `p${counter++}.aasx`);
    fs.writeFileSync(file, bytes);
    return file;
  };
  return {
    async write(spec, files = []) {
      const parts = files.map((f) => ({ path: f.path, contentType: f.contentType ?? 'application/pdf', open: async () => Readable.from([Buffer.from(f.text)]) }));
      return writeBytes(await buffer(writeAasxPackage({ spec, files: parts })));
    },
    writeBytes,
  };
}

/** The import service of a test server, storing files in `sink`. */
export const importerOf = (server: TestServer, sink = new MemorySink()) =>
  new ImportService(server.dataSource, server.services.shells, server.services.submodels, server.services.conceptDescriptions, sink);
