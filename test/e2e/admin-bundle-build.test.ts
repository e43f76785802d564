import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../support/server-process';

/**
 * `npm run build` bundles the admin console (React and the app, from npm packages) into dist/admin-ui, and the
 * compiled server serves that bundle where no build tool is installed (the production image has no devDependencies).
 */
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
});
