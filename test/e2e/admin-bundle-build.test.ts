import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { freePort } from '../support/free-port';
import { ROOT } from '../support/server-process';
import { PATIENCE_MS } from '../support/timing';

const AAS_CORE = '@aas-core-works/aas-core3.0-typescript';

/**
 * Every file under `dir` with its modification time and size: what a build that writes nothing leaves as it was.
 * The OpenAPI documents' parse cache is left out: the started server writes it (a first start of a new document),
 * the build does not; so is `npm start`'s note of the build it saw.
 */
function filesOf(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const entry of fs.readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const file = path.join(entry.parentPath, entry.name);
    if (path.relative(dir, file).startsWith(path.join('rest-facade', 'openapi', 'yaml-cache'))) continue;
    // What `npm start` notes of the last build it saw finish (scripts/start.js): its own, not the build's.
    if (entry.name === '.start-build-stamp') continue;
    const stat = fs.statSync(file);
    out[path.relative(dir, file)] = `${stat.mtimeMs} ${stat.size}`;
  }
  return out;
}

/** Runs `npm start` on the embedded database until it is ready, stops it, and gives what it printed. */
async function startAndStop(): Promise<string> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'npm-start-'));
  const port = await freePort();
  const env: NodeJS.ProcessEnv = { ...process.env, NODE_ENV: 'production', PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'info' };
  delete env.DATABASE_URL;
  // Its own process group: npm starts a shell that starts node, and all of them are stopped together.
  const child = spawn('npm', ['start'], { cwd: ROOT, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  const exited = new Promise((resolve) => child.once('exit', resolve));
  try {
    const deadline = Date.now() + PATIENCE_MS;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`npm start exited with ${child.exitCode}:\n${output}`);
      if (Date.now() > deadline) throw new Error(`npm start did not become ready:\n${output}`);
      if (await fetch(`http://127.0.0.1:${port}/health/ready`).then((r) => r.ok, () => false)) break;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  } finally {
    process.kill(-child.pid!, 'SIGTERM');
    await exited;
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
  return output;
}

/**
 * `npm run build` bundles the admin console (React and the app, from npm packages) into dist/admin-ui, and the
 * compiled server serves that bundle where no build tool is installed (the production image has no devDependencies).
 */
// One file, one build at a time: both tests build into the repository's dist/.
describe('the admin console in npm run build', () => {
  it('is bundled into dist/admin-ui and served from there without esbuild', () => {
    const build = spawnSync('npm', ['run', 'build'], { cwd: ROOT, encoding: 'utf8', timeout: 240_000 });
    expect(build.status, build.stderr + build.stdout).toBe(0);
    const js = fs.readFileSync(path.join(ROOT, 'dist/admin-ui/admin.js'), 'utf8');
    const css = fs.readFileSync(path.join(ROOT, 'dist/admin-ui/admin.css'), 'utf8');
    expect(js.length).toBeGreaterThan(50_000);
    expect(js).not.toMatch(/https?:\/\/(unpkg|cdn|fonts\.googleapis)/);
    expect(css).toContain('.layout');

    // The compiled router, with `esbuild` made unloadable as it is in the production image.
    const script = `
      const Module = require('module');
      const resolve = Module._resolveFilename;
      Module._resolveFilename = function (request, ...rest) {
        if (request === 'esbuild') throw new Error('esbuild is not installed here');
        return resolve.call(this, request, ...rest);
      };
      const Koa = require('koa');
      const { createAdminConsoleRouter } = require(${JSON.stringify(path.join(ROOT, 'dist/rest-facade/admin-console.js'))});
      const app = new Koa();
      app.use(createAdminConsoleRouter({ manageUrl: 'http://127.0.0.1', login: { issuer: 'http://127.0.0.1/oidc', clientId: 'admin', redirectUri: 'http://127.0.0.1/admin/callback' }, signInProviders: async () => [] }).routes());
      const server = app.listen(0, '127.0.0.1', async () => {
        const res = await fetch('http://127.0.0.1:' + server.address().port + '/admin/assets/admin.js');
        process.stdout.write(res.status + ' ' + (await res.text()).length);
        server.close();
      });`;
    const served = spawnSync(process.execPath, ['-e', script], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
    expect(served.stderr).toBe('');
    expect(served.stdout).toBe(`200 ${js.length}`);
  }, 300_000);

  it('npm start on an unchanged tree compiles nothing and bundles nothing (dist/ stays as it was), skips the check once it has seen a build, and builds after a change', async () => {
    const first = spawnSync('npm', ['run', 'build'], { cwd: ROOT, encoding: 'utf8', timeout: 240_000 });
    expect(first.status, first.stderr + first.stdout).toBe(0);
    const before = filesOf(path.join(ROOT, 'dist'));
    expect(Object.keys(before)).toEqual(
      expect.arrayContaining(['src/main.js', 'admin-ui/admin.js', 'admin-ui/admin-inputs.json', 'tsconfig.build.tsbuildinfo', `node_modules/${AAS_CORE}/index.js`]),
    );

    // Built by `npm run build`, not by a start: the first start asks the build, which finds nothing to do. A start
    // earlier on this tree (another test, an earlier run of the suite) left its note of the build it saw; without
    // it, `npm start` has seen no build.
    fs.rmSync(path.join(ROOT, 'dist', '.start-build-stamp'), { force: true });
    const checked = await startAndStop();
    expect(checked).toContain('admin console bundle up to date');
    expect(checked).not.toContain('admin console bundled:');
    expect(checked).toContain('with native classes up to date');
    // tsc -b emitted nothing (no .js, no .d.ts, no build info written again), the bundle was not written again.
    expect(filesOf(path.join(ROOT, 'dist'))).toEqual(before);

    // Nothing the build reads changed since: the next start does not even ask.
    const skipped = await startAndStop();
    expect(skipped).not.toContain('admin console bundle');
    expect(filesOf(path.join(ROOT, 'dist'))).toEqual(before);

    // A source file saved again: the build is asked again.
    const source = path.join(ROOT, 'src/cli.ts');
    const now = new Date();
    fs.utimesSync(source, now, now);
    expect(await startAndStop()).toContain('admin console bundle up to date');
  }, 300_000);

  it('gives the compiled server the metamodel library with native classes (dist/node_modules), without esbuild', () => {
    const build = spawnSync('npm', ['run', 'build'], { cwd: ROOT, encoding: 'utf8', timeout: 240_000 });
    expect(build.status, build.stderr + build.stdout).toBe(0);
    // The compiled reader of a submodel, with esbuild unloadable as in the production image: what it builds is an
    // instance of a native class, from the bundle in dist/node_modules rather than from the installed package.
    const script = `
      const Module = require('module');
      const resolve = Module._resolveFilename;
      Module._resolveFilename = function (request, ...rest) {
        if (request === 'esbuild') throw new Error('esbuild is not installed here');
        return resolve.call(this, request, ...rest);
      };
      const { readSubmodelDirectly } = require(${JSON.stringify(path.join(ROOT, 'dist/src/aas/model/direct-read.js'))});
      const submodel = readSubmodelDirectly({ modelType: 'Submodel', id: 'urn:x', submodelElements: [{ modelType: 'Property', idShort: 'P', valueType: 'xs:int', value: '1' }] });
      const loaded = Object.keys(require.cache).filter((file) => file.includes('aas-core3.0-typescript'));
      process.stdout.write(JSON.stringify({ loaded, native: Function.prototype.toString.call(submodel.submodelElements[0].constructor).startsWith('class') }));`;
    const run = spawnSync(process.execPath, ['-e', script], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
    expect(run.stderr).toBe('');
    expect(JSON.parse(run.stdout)).toEqual({ loaded: [path.join(ROOT, 'dist/node_modules', AAS_CORE, 'index.js')], native: true });
  }, 300_000);
});
