import { spawnSync } from 'node:child_process';
import { aptGetWaiting, debianPackages, missingTools } from '../test/support/system-tools';

/**
 * `npm test` runs this first (pretest): it installs the Debian packages that some tests start (chromium, curl, jq, haproxy)
 * when they are missing and it can, as root with apt-get. Otherwise it changes nothing, and the tests that need them
 * are skipped with one line that says how to enable them (test/support/system-tools.ts).
 */
const packages = debianPackages(missingTools());
const root = process.getuid?.() === 0;
const apt = spawnSync('sh', ['-c', 'command -v apt-get']).status === 0;
if (packages.length && root && apt) {
  process.stderr.write(`Installing the Debian packages some tests start: ${packages.join(' ')}\n`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  // Another install under way (a second test run started beside this one, an upgrade) holds apt's or dpkg's lock:
  // wait for it (aptGetWaiting), then install what is still missing.
  const wait = ['-o', 'DPkg::Lock::Timeout=600'];
  for (const args of [['update', '-q', ...wait], ['install', '-y', '-q', '--no-install-recommends', ...wait, ...packages]]) {
    const status = aptGetWaiting(args, { env });
    if (status !== 0) {
      process.stderr.write(`apt-get ${args.join(' ')} failed (exit ${status})\n`);
      process.exit(1);
    }
  }
}
