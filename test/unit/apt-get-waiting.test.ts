import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { aptGetWaiting } from '../support/system-tools';

/**
 * `npm test` installs the Debian packages its browser and replica tests start (scripts/install-test-tools.ts). Two
 * test runs started side by side on a fresh machine both run apt-get: the second must wait for the first's locks,
 * not fail (apt-get update gives up at once on the lock of its package lists). A stand-in for apt-get here says the
 * lock is held for its first runs.
 */
describe('apt-get for the test tools, beside another apt-get', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'apt-get-'));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  /** A stand-in apt-get that fails `held` times with apt's lock message (or `message`), then succeeds; and its runs. */
  function standIn(held: number, message = 'E: Could not get lock /var/lib/apt/lists/lock. It is held by process 16224 (apt-get)'): { command: string; runs: () => number } {
    const count = path.join(dir, `count-${held}-${message.length}`);
    const command = path.join(dir, `apt-get-${held}-${message.length}`);
    fs.writeFileSync(count, '0');
    fs.writeFileSync(command, `#!/bin/sh\nn=$(cat ${count}); n=$((n + 1)); echo $n > ${count}\nif [ $n -le ${held} ]; then echo '${message}' >&2; exit 100; fi\nexit 0\n`, { mode: 0o755 });
    return { command, runs: () => Number(fs.readFileSync(count, 'utf8')) };
  }

  it('waits while the lock is held, then runs', () => {
    const apt = standIn(3);
    expect(aptGetWaiting(['update'], { command: apt.command, pauseMs: 10 })).toBe(0);
    expect(apt.runs()).toBe(4);
  });

  it('gives up on the lock after its timeout, and at once on any other failure', () => {
    const locked = standIn(1_000);
    expect(aptGetWaiting(['update'], { command: locked.command, pauseMs: 10, timeoutMs: 100 })).toBe(100);
    expect(locked.runs()).toBeGreaterThan(1);
    const broken = standIn(5, 'E: Unable to locate package chromium');
    expect(aptGetWaiting(['install', 'chromium'], { command: broken.command, pauseMs: 10 })).toBe(100);
    expect(broken.runs()).toBe(1);
  });
});
