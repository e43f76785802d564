import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as tar from 'tar';

/**
 * The test data the repository carries, with their licences beside them (test/fixtures/<name>/NOTICE.md). Tests
 * read them only through these names.
 */
const FIXTURES = path.resolve(__dirname, '../fixtures');

/** Real AASX packages from other tools (IDTA templates, BaSyx examples). */
export const AASX_DIR = path.join(FIXTURES, 'aasx');

const CORPUS_ARCHIVE = path.join(FIXTURES, 'aas-core3.0-testgen/corpus.tar.gz');

/**
 * The aas-core3.0-testgen corpus unpacked (its `Json/` and `Xml/` trees): the archive is unpacked once into the
 * system's temporary directory, in a folder named by the archive's hash, and every later call (every test file,
 * every run with the same archive) finds it there. The vitest globalSetup calls it first, so test files running in
 * parallel do not unpack it each; a folder is only ever complete, as it is renamed into place when done.
 */
export function corpusDir(): string {
  return unpacked(CORPUS_ARCHIVE, 'aas-core3.0-testgen');
}

const V31_EXAMPLES_ARCHIVE = path.join(FIXTURES, 'aas-specs-v3.1-examples/examples.tar.gz');

/** The generated V3.1 examples of admin-shell-io/aas-specs unpacked (`Json/`, `Xml/`), as `corpusDir` does. */
export function v31ExamplesDir(): string {
  return unpacked(V31_EXAMPLES_ARCHIVE, 'aas-specs-v3.1-examples');
}

function unpacked(archive: string, name: string): string {
  const hash = createHash('sha256').update(fs.readFileSync(archive)).digest('hex').slice(0, 16);
  const dir = path.join(os.tmpdir(), `${name}-${hash}`);
  if (fs.existsSync(dir)) return dir;
  const partial = fs.mkdtempSync(`${dir}.partial-`);
  try {
    tar.x({ file: archive, cwd: partial, sync: true, strict: true });
    fs.renameSync(partial, dir);
  } catch (error) {
    fs.rmSync(partial, { recursive: true, force: true });
    // Another process renamed its copy into place first: that one is as good.
    if (!fs.existsSync(dir)) throw error;
  }
  return dir;
}

/** Every file under `dir` whose name ends in one of `extensions` (`.json`), sorted, `.git` left out. */
export function filesUnder(dir: string, extensions: string[]): string[] {
  const found: string[] = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === '.git') continue;
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) found.push(...filesUnder(full, extensions));
    else if (extensions.includes(path.extname(entry.name).toLowerCase())) found.push(full);
  }
  return found.sort();
}
