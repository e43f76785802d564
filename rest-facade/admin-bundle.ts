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
  });
  const js = result.outputFiles.find((f) => f.path.endsWith('.js'));
  const css = result.outputFiles.find((f) => f.path.endsWith('.css'));
  if (!js) throw new Error('esbuild produced no script for the admin console.');
  return { js: js.text, css: css?.text ?? '' };
}

/** The bundle `npm run build` wrote, or undefined where there is none (a run from source). */
export function readBuiltBundle(): AdminBundle | undefined {
  const js = path.join(BUILT_DIR, 'admin.js');
  if (!fs.existsSync(js)) return undefined;
  const css = path.join(BUILT_DIR, 'admin.css');
  return { js: fs.readFileSync(js, 'utf8'), css: fs.existsSync(css) ? fs.readFileSync(css, 'utf8') : '' };
}

// `node dist/rest-facade/admin-bundle.js`: the last step of `npm run build`.
if (require.main === module) {
  buildAdminBundle().then(
    (bundle) => {
      fs.mkdirSync(BUILT_DIR, { recursive: true });
      fs.writeFileSync(path.join(BUILT_DIR, 'admin.js'), bundle.js);
      fs.writeFileSync(path.join(BUILT_DIR, 'admin.css'), bundle.css);
      process.stdout.write(`admin console bundled: ${BUILT_DIR} (${Math.round(bundle.js.length / 1024)} KiB script)\n`);
    },
    (err: Error) => {
      process.stderr.write(`the admin console could not be bundled: ${err.message}\n`);
      process.exit(1);
    },
  );
}
