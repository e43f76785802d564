// `npm start`: builds what changed, then runs the server (dist/src/main.js) in this same process.
//
// The build (`npm run build`: `tsc -b` and the admin console's bundle) checks its inputs itself, but loading the
// compiler to find nothing changed costs a second or more on a small machine. So this looks first: when no file the
// build reads is newer than the last build this script saw finish, the build is skipped. Otherwise the build runs and
// decides precisely what to compile and bundle again.
'use strict';
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const root = path.join(__dirname, '..');
const STAMP = path.join(root, 'dist', '.start-build-stamp');
/** What the build reads: the compiled folders, the admin console's sources (in src), the settings and the packages. */
const INPUTS = ['src', 'rest-facade', 'migrations', 'test/bench', 'tsconfig.json', 'tsconfig.build.json', 'package.json', 'package-lock.json', 'node_modules/.package-lock.json', __filename];

/** Whether `file` (or any file under it) was changed after `since` (ms); a file that is missing counts as unchanged. */
function changedAfter(file, since) {
  let stat;
  try {
    stat = fs.statSync(file);
  } catch {
    return false;
  }
  if (!stat.isDirectory()) return stat.mtimeMs > since || stat.ctimeMs > since;
  // A file removed or renamed changes its directory.
  if (stat.mtimeMs > since) return true;
  return fs.readdirSync(file).some((name) => changedAfter(path.join(file, name), since));
}

function builtAt() {
  try {
    return fs.statSync(STAMP).mtimeMs;
  } catch {
    return undefined;
  }
}

const since = builtAt();
if (since === undefined || INPUTS.some((input) => changedAfter(path.join(root, input), since))) {
  const started = Date.now();
  const build = spawnSync(process.platform === 'win32' ? 'npm.cmd' : 'npm', ['run', '--silent', 'build'], { cwd: root, stdio: 'inherit' });
  if (build.status !== 0) process.exit(build.status ?? 1);
  // The stamp's time is when the build began: a file saved while it ran is seen as changed next time.
  fs.writeFileSync(STAMP, '');
  fs.utimesSync(STAMP, started / 1000, started / 1000);
}
require(path.join(root, 'dist', 'src', 'main.js'));
