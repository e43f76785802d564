import { spawnSync } from 'node:child_process';
import fs from 'node:fs';

/** The browser the console tests drive (Debian's chromium); CHROMIUM_PATH names another. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/**
 * The programs outside npm that some tests start, and the tests that need them. `npm test` installs the Debian
 * packages among them first when it can (scripts/install-test-tools.ts: as root, with apt-get); where it cannot,
 * those tests are skipped and the run says so in one line (the globalSetup prints skipNotice()).
 */
const TOOLS = {
  chromium: { present: () => fs.existsSync(CHROMIUM), debian: 'chromium', tests: ['test/e2e/console-browser.test.ts', 'test/e2e/admin-console/*.test.ts (the admin console)'] },
  curl: { present: () => onPath('curl'), debian: 'curl', tests: ['test/e2e/provision.test.ts (docker/provision.sh)', 'test/e2e/first-five-minutes.test.ts (the README)'] },
  jq: { present: () => onPath('jq'), debian: 'jq', tests: ['test/e2e/provision.test.ts (docker/provision.sh)'] },
  haproxy: { present: () => onPath('haproxy'), debian: 'haproxy', tests: ['test/e2e/replicas.test.ts (replicas behind a load balancer)', 'npm run bench (its scale-out line)'] },
  // Docker is not a Debian package here: its Compose plugin comes from Docker's own packages.
  'docker compose': { present: () => spawnSync('docker', ['compose', 'version']).status === 0, debian: undefined, tests: ['test/e2e/provision.test.ts (docker/compose.yaml)'] },
};

export type Tool = keyof typeof TOOLS;

function onPath(command: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${command}`]).status === 0;
}

/** Whether every one of `tools` is there. */
export function hasTools(...tools: Tool[]): boolean {
  return tools.every((tool) => TOOLS[tool].present());
}

export function missingTools(): Tool[] {
  return (Object.keys(TOOLS) as Tool[]).filter((tool) => !TOOLS[tool].present());
}

/** The Debian packages of the missing tools. */
export function debianPackages(tools: Tool[]): string[] {
  return tools.flatMap((tool) => TOOLS[tool].debian ?? []);
}

/** The one line that says which tests are skipped for want of `missing`, and what enables them. */
export function skipNotice(missing: Tool[]): string {
  const tests = [...new Set(missing.flatMap((tool) => TOOLS[tool].tests))].join(', ');
  const packages = debianPackages(missing);
  const enable = [
    ...(packages.length ? [`sudo apt-get install ${packages.join(' ')}`] : []),
    ...(missing.includes('docker compose') ? ['Docker with its Compose plugin'] : []),
  ];
  return `Skipped for want of ${missing.join(', ')}: ${tests}. To run them: ${enable.join('; ')}.`;
}

/**
 * Runs `apt-get` with `args` (`command`: the program, for tests), waiting while another apt-get holds one of its
 * locks: a second test run started beside this one installs the same packages. `DPkg::Lock::Timeout` waits for
 * dpkg's lock only; `apt-get update` gives up at once on the lock of its package lists. Its exit status; its error
 * output goes to this process's once it is given up on.
 */
export function aptGetWaiting(args: string[], options: { command?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number; pauseMs?: number } = {}): number {
  const { command = 'apt-get', env = process.env, timeoutMs = 600_000, pauseMs = 2_000 } = options;
  const started = Date.now();
  for (;;) {
    const run = spawnSync(command, args, { stdio: ['ignore', 'ignore', 'pipe'], env, encoding: 'utf8' });
    if (run.status === 0) return 0;
    const held = /Could not get lock|Unable to lock|is another process using it/.test(run.stderr ?? '');
    if (!held || Date.now() - started >= timeoutMs) {
      process.stderr.write(run.stderr ?? '');
      return run.status ?? 1;
    }
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, pauseMs);
  }
}
