import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/**
 * The AAS metamodel library (`@aas-core-works/aas-core3.0-typescript`) as the built server loads it.
 *
 * The package ships two builds. Node's `require` gets its CommonJS build, which Babel compiled down to ES5: each class
 * is a function whose constructor calls `Reflect.construct` with the subclass as `new.target`, and each iterator is a
 * regenerator state machine. V8 takes a slow path for such a construction, so `new types.Property(...)` costs about
 * 20 µs where a native class costs well under one, and parsing, verifying and serializing a submodel of 20 Properties
 * took about 0.9 ms against 0.04 ms with native classes and generators. Its other build (`dist/lib/esm`) has them, but
 * Node cannot load it as it is: its imports name files without their extension and the package does not say it is
 * an ES module. (Vitest loads that build through Vite, which resolves such imports: the tests always ran on it.)
 *
 * So `npm run build` bundles that ES module build with esbuild into one CommonJS file, unchanged otherwise, and writes
 * it as `dist/node_modules/@aas-core-works/aas-core3.0-typescript`: Node's module resolution finds it for every
 * compiled file under `dist/` before the package in the repository's `node_modules`, without a loader hook and
 * without changing the installed package. A run from source (`npm run dev`) loads the package's own CommonJS build:
 * the same library, slower.
 */
export const PACKAGE = '@aas-core-works/aas-core3.0-typescript';

/** `dist/` when this file runs compiled (from `dist/src/aas/model`), else undefined (a run from source). */
const DIST = path.basename(path.resolve(__dirname, '../../..')) === 'dist' ? path.resolve(__dirname, '../../..') : undefined;

/** The repository's root, where the installed packages are. */
const ROOT = DIST ? path.dirname(DIST) : path.resolve(__dirname, '../../..');

/** Where `npm run build` writes the bundle: `dist/node_modules/...`; only a compiled server has one. */
export const BUILT_PACKAGE_DIR = DIST && path.join(DIST, 'node_modules', PACKAGE);

/** The installed package's directory (where its package.json is), not the built one. */
function installedDir(): string {
  // The package's exports do not list its package.json: resolve its entry point from the root and walk up to it.
  let dir = path.dirname(require.resolve(PACKAGE, { paths: [ROOT] }));
  while (!fs.existsSync(path.join(dir, 'package.json'))) {
    const up = path.dirname(dir);
    if (up === dir) throw new Error(`${PACKAGE}: no package.json above its entry point`);
    dir = up;
  }
  return dir;
}

interface Manifest {
  name: string;
  version: string;
  module?: string;
  license?: string;
}

/** What a bundle was built from: the installed package's manifest and the esbuild that bundled it. */
function sourceStamp(from: string, esbuildVersion: string): string {
  return createHash('sha256').update(fs.readFileSync(path.join(from, 'package.json'))).update(`\0${esbuildVersion}`).digest('base64url');
}

/**
 * Bundles the package's ES module build (native classes and generators) into one CommonJS module, and writes it with
 * a package.json of the same name and version (noting what it was built from), and the package's licence, into
 * `outDir`. Writes nothing when `outDir` holds a bundle of the same package version by the same esbuild.
 */
export async function writeNativeBuild(outDir: string, from = installedDir()): Promise<{ version: string; bytes?: number }> {
  const manifest = JSON.parse(fs.readFileSync(path.join(from, 'package.json'), 'utf8')) as Manifest;
  if (manifest.name !== PACKAGE || !manifest.module) throw new Error(`${from} is not ${PACKAGE} with an ES module build`);
  // esbuild is a build tool (a devDependency): loaded only when the build runs.
  const esbuild = await import('esbuild');
  const stamp = sourceStamp(from, esbuild.version);
  try {
    const built = JSON.parse(fs.readFileSync(path.join(outDir, 'package.json'), 'utf8')) as { builtFrom?: string };
    if (built.builtFrom === stamp && fs.existsSync(path.join(outDir, 'index.js'))) return { version: manifest.version };
  } catch {
    // Not built yet.
  }
  const result = await esbuild.build({
    entryPoints: [path.join(from, manifest.module)],
    bundle: true,
    write: false,
    platform: 'node',
    format: 'cjs',
    // The engines this server supports: classes and generators stay as they are.
    target: ['node20'],
    charset: 'utf8',
    legalComments: 'inline',
    banner: { js: `/* ${PACKAGE} ${manifest.version} (${manifest.license ?? 'see LICENSE'}): its ES module build, bundled as CommonJS by the server's build (src/aas/model/aas-core-build.ts). */` },
    logLevel: 'silent',
  });
  const code = result.outputFiles[0].text;
  fs.rmSync(outDir, { recursive: true, force: true });
  fs.mkdirSync(outDir, { recursive: true });
  fs.writeFileSync(path.join(outDir, 'index.js'), code);
  for (const licence of ['LICENSE', 'LICENSE.md', 'LICENSE.txt']) {
    if (fs.existsSync(path.join(from, licence))) fs.copyFileSync(path.join(from, licence), path.join(outDir, licence));
  }
  // Written last: a build stopped half-way leaves no package, and Node finds the installed one.
  const own = { name: PACKAGE, version: manifest.version, license: manifest.license, main: 'index.js', builtFrom: stamp };
  fs.writeFileSync(path.join(outDir, 'package.json'), `${JSON.stringify(own, null, 2)}\n`);
  return { version: manifest.version, bytes: code.length };
}

// `node dist/src/aas/model/aas-core-build.js`: a step of `npm run build`.
if (require.main === module) {
  if (!BUILT_PACKAGE_DIR) throw new Error('run the compiled file, dist/src/aas/model/aas-core-build.js');
  writeNativeBuild(BUILT_PACKAGE_DIR).then(
    ({ version, bytes }) =>
      process.stdout.write(
        bytes === undefined
          ? `${PACKAGE} ${version} with native classes up to date: ${BUILT_PACKAGE_DIR}\n`
          : `${PACKAGE} ${version} bundled with native classes: ${BUILT_PACKAGE_DIR} (${Math.round(bytes / 1024)} KiB)\n`,
      ),
    (err: Error) => {
      process.stderr.write(`${PACKAGE} could not be bundled: ${err.message}\n`);
      process.exit(1);
    },
  );
}
