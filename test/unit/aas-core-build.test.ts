import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type * as AasCore from '@aas-core-works/aas-core3.0-typescript';
import { PACKAGE, writeNativeBuild } from '../../src/aas/model/aas-core-build';
import { corpusDir, filesUnder } from '../support/testdata';

/*
 * `npm run build` gives the compiled server the AAS metamodel library's ES module build (native classes and
 * generators) as a CommonJS package in dist/node_modules (src/aas/model/aas-core-build.ts), in place of the package's
 * Babel-compiled CommonJS build that Node's `require` would load. It must be the same library: the same exports, and
 * on the whole aas-core3.0-testgen corpus the same parse results, the same verification errors and the same JSON.
 */

const nodeRequire = createRequire(__filename);
let dir: string;
let built: typeof AasCore;
/** The package's own CommonJS build, as Node's `require` loads it from node_modules. */
const installed = nodeRequire(PACKAGE) as typeof AasCore;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'aas-core-build-'));
  const first = await writeNativeBuild(path.join(dir, PACKAGE));
  expect(first.bytes).toBeGreaterThan(100_000);
  built = nodeRequire(path.join(dir, PACKAGE)) as typeof AasCore;
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** Each namespace's exported names. */
const surface = (lib: typeof AasCore) => Object.fromEntries(Object.keys(lib).map((ns) => [ns, Object.keys(lib[ns as keyof typeof AasCore]).sort()]));

/** What the library makes of one environment: the parse error, or the verification errors and the JSON written back. */
function outcome(lib: typeof AasCore, jsonable: unknown) {
  const parsed = lib.jsonization.environmentFromJsonable(jsonable as AasCore.jsonization.JsonValue);
  if (parsed.error !== null) return { parseError: `${parsed.error.path.toString()}: ${parsed.error.message}` };
  const errors = [...lib.verification.verify(parsed.mustValue())].map((e) => `${e.path.toString()}: ${e.message}`);
  return { errors, json: lib.jsonization.toJsonable(parsed.mustValue()) };
}

describe('the metamodel library as the build bundles it', () => {
  it('has native classes and generators, where the package loaded by require has neither', () => {
    expect(Function.prototype.toString.call(built.types.Property)).toMatch(/^class\b/);
    expect(built.verification.verify.constructor.name).toBe('GeneratorFunction');
    expect(built.types.Property.name).toBe('Property');
    expect(Function.prototype.toString.call(installed.types.Property)).not.toMatch(/^class\b/);
    expect(installed.verification.verify.constructor.name).not.toBe('GeneratorFunction');
  });

  it('exports what the package exports, and carries its name, version and licence', () => {
    expect(surface(built)).toEqual(surface(installed));
    const manifest = JSON.parse(fs.readFileSync(path.join(dir, PACKAGE, 'package.json'), 'utf8'));
    const own = JSON.parse(fs.readFileSync(path.join(path.dirname(nodeRequire.resolve(PACKAGE)), '../../../package.json'), 'utf8'));
    expect(manifest).toMatchObject({ name: PACKAGE, version: own.version, license: own.license, main: 'index.js' });
    expect(fs.readFileSync(path.join(dir, PACKAGE, 'LICENSE'), 'utf8')).toMatch(/MIT License/);
  });

  it('parses, verifies and writes every environment of the corpus exactly as the package does', () => {
    const files = filesUnder(path.join(corpusDir(), 'Json/ContainedInEnvironment'), ['.json']);
    expect(files.length).toBeGreaterThan(1_000);
    let verified = 0;
    let refused = 0;
    for (const file of files) {
      const jsonable = JSON.parse(fs.readFileSync(file, 'utf8'));
      const ours = outcome(built, jsonable);
      expect(ours, file).toEqual(outcome(installed, jsonable));
      if ('errors' in ours && ours.errors!.length) verified++;
      if ('parseError' in ours) refused++;
    }
    // Both halves of the corpus were exercised: documents refused by the parser and by the verification.
    expect(verified).toBeGreaterThan(100);
    expect(refused).toBeGreaterThan(100);
  });

  it('is not written again for the same package and esbuild', async () => {
    const index = path.join(dir, PACKAGE, 'index.js');
    const before = fs.statSync(index).mtimeMs;
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect((await writeNativeBuild(path.join(dir, PACKAGE))).bytes).toBeUndefined();
    expect(fs.statSync(index).mtimeMs).toBe(before);
  });
});
