import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/**
 * The admin console's browser bundle: `src/admin-ui/main.tsx` with React and everything else it imports, bundled
 * by esbuild into one script and one style sheet (nothing is fetched from a CDN: the console works offline).
 * `npm run build` writes it to `dist/admin-ui/`; a server run from source (`npm run dev`, the tests) builds it in
 * memory on the first request instead.
 */
export interface AdminBundle {
  js: string;
  css: string;
  /** Every file esbuild read (the app's sources and the npm packages'), by absolute path: what the bundle depends on. */
  inputs?: string[];
}

/** Where the sources are: the repository's `src/admin-ui`, from `rest-facade/` or from `dist/rest-facade/`. */
function sourceDir(): string | undefined {
  for (const candidate of [path.join(__dirname, '../src/admin-ui'), path.join(__dirname, '../../src/admin-ui')]) {
    if (fs.existsSync(path.join(candidate, 'main.tsx'))) return candidate;
  }
  return undefined;
}

/** Where `npm run build` puts the bundle: `dist/admin-ui` (this file runs from `dist/rest-facade`). */
export const BUILT_DIR = path.join(__dirname, '../admin-ui');

export async function buildAdminBundle(): Promise<AdminBundle> {
  const source = sourceDir();
  if (!source) throw new Error('The admin console is neither built (dist/admin-ui) nor are its sources at hand (src/admin-ui).');
  // esbuild is a build tool (a devDependency): loaded only when a bundle is built.
  const esbuild = await import('esbuild');
  const result = await esbuild.build({
    entryPoints: [path.join(source, 'main.tsx')],
    bundle: true,
    minify: true,
    write: false,
    outdir: 'out',
    format: 'iife',
    target: ['es2020'],
    jsx: 'automatic',
    charset: 'utf8',
    legalComments: 'none',
    define: { 'process.env.NODE_ENV': '"production"' },
    logLevel: 'silent',
    metafile: true,
  });
  const js = result.outputFiles.find((f) => f.path.endsWith('.js'));
  const css = result.outputFiles.find((f) => f.path.endsWith('.css'));
  if (!js) throw new Error('esbuild produced no script for the admin console.');
  // The metafile names its inputs relative to esbuild's working directory, the process's.
  const inputs = Object.keys(result.metafile.inputs).map((input) => path.resolve(input));
  return { js: js.text, css: css?.text ?? '', inputs };
}

/** Beside the bundle: the digest of every file it was built from, so that a build with none of them changed skips it. */
const STAMP = 'admin-inputs.json';

interface Stamp {
  esbuild: string;
  inputs: Record<string, string>;
}

function digest(file: string): string | undefined {
  try {
    return createHash('sha256').update(fs.readFileSync(file)).digest('base64url');
  } catch {
    return undefined;
  }
}

/**
 * Whether the bundle in `dir` was built by this esbuild from files that are all still as they were. A new file
 * can only enter the bundle through an import in one of them, so a changed set of inputs changes one of the old.
 */
export function bundleUpToDate(dir: string, esbuildVersion: string): boolean {
  let stamp: Stamp;
  try {
    stamp = JSON.parse(fs.readFileSync(path.join(dir, STAMP), 'utf8')) as Stamp;
  } catch {
    return false;
  }
  if (stamp.esbuild !== esbuildVersion || !fs.existsSync(path.join(dir, 'admin.js')) || !fs.existsSync(path.join(dir, 'admin.css'))) return false;
  const files = Object.entries(stamp.inputs ?? {});
  return files.length > 0 && files.every(([file, hash]) => digest(file) === hash);
}

/** Writes the bundle and its stamp into `dir`. */
export function writeBundle(dir: string, bundle: AdminBundle, esbuildVersion: string): void {
  fs.mkdirSync(dir, { recursive: true });
  fs.rmSync(path.join(dir, STAMP), { force: true });
  fs.writeFileSync(path.join(dir, 'admin.js'), bundle.js);
  fs.writeFileSync(path.join(dir, 'admin.css'), bundle.css);
  const inputs = Object.fromEntries((bundle.inputs ?? []).map((file) => [file, digest(file) ?? '']));
  // Written last: a build stopped half-way leaves no stamp, and the next build bundles again.
  fs.writeFileSync(path.join(dir, STAMP), JSON.stringify({ esbuild: esbuildVersion, inputs } satisfies Stamp));
}

/** The bundle `npm run build` wrote, or undefined where there is none (a run from source). */
export function readBuiltBundle(): AdminBundle | undefined {
  const js = path.join(BUILT_DIR, 'admin.js');
  if (!fs.existsSync(js)) return undefined;
  const css = path.join(BUILT_DIR, 'admin.css');
  return { js: fs.readFileSync(js, 'utf8'), css: fs.existsSync(css) ? fs.readFileSync(css, 'utf8') : '' };
}

// `node dist/rest-facade/admin-bundle.js`: the last step of `npm run build`; skipped when no input has changed.
if (require.main === module) {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- a JSON file, read only when the bundle is built
  const esbuildVersion = (require('esbuild/package.json') as { version: string }).version;
  const bundled = bundleUpToDate(BUILT_DIR, esbuildVersion)
    ? Promise.resolve(undefined)
    : buildAdminBundle().then((bundle) => {
        writeBundle(BUILT_DIR, bundle, esbuildVersion);
        return bundle;
      });
  bundled.then(
    (bundle) => {
      if (bundle) process.stdout.write(`admin console bundled: ${BUILT_DIR} (${Math.round(bundle.js.length / 1024)} KiB script)\n`);
      else process.stdout.write(`admin console bundle up to date: ${BUILT_DIR}\n`);
    },
    (err: Error) => {
      process.stderr.write(`the admin console could not be bundled: ${err.message}\n`);
      process.exit(1);
    },
  );
}
