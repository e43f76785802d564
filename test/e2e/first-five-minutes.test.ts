import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, ServerProcess, killAll, startServerProcess, stopServerProcess } from '../support/server-process';
import { hasTools } from '../support/system-tools';

/**
 * The README's "First five minutes", run as a newcomer runs it: the ```sh blocks under that heading, in order, in
 * one shell, against a server started as `npm start` starts it (embedded database in a fresh data directory, the
 * showcase tenant `default`). The blocks are written for http://localhost:8080; here the server has a free port.
 */
const README_URL = 'http://localhost:8080';

/** The ```sh blocks of the README section under the heading `title`, up to the next heading of its level or above. */
function shellBlocks(markdown: string, title: string): string[] {
  const lines = markdown.split('\n');
  const start = lines.findIndex((line) => /^#{1,6} /.test(line) && line.replace(/^#+ /, '').trim() === title);
  if (start < 0) throw new Error(`no heading "${title}" in the README`);
  const level = /^#+/.exec(lines[start])![0].length;
  const blocks: string[] = [];
  let block: string[] | undefined;
  let fence = false;
  for (const line of lines.slice(start + 1)) {
    if (!fence && new RegExp(`^#{1,${level}} `).test(line)) break;
    if (/^```/.test(line)) {
      if (fence) {
        if (block) blocks.push(block.join('\n'));
        block = undefined;
      } else if (/^```sh\s*$/.test(line)) block = [];
      fence = !fence;
    } else block?.push(line);
  }
  return blocks;
}

describe.skipIf(!hasTools('curl'))('the README\'s "First five minutes"', () => {
  const blocks = shellBlocks(fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8'), 'First five minutes');
  const dirs: string[] = [];
  let server: ServerProcess;
  let workDir: string;

  beforeAll(async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'asset-platform-5min-data-'));
    workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'asset-platform-5min-'));
    dirs.push(dataDir, workDir);
    server = await startServerProcess(dataDir, { env: (url) => ({ PUBLIC_URL: url }) });
  });
  afterAll(async () => {
    if (server) await stopServerProcess(server, 'SIGTERM');
    killAll();
    for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('has its commands in ```sh blocks written for http://localhost:8080, with curl -f so a refusal fails', () => {
    expect(blocks.length).toBeGreaterThanOrEqual(5);
    const all = blocks.join('\n');
    expect(all).toContain(README_URL);
    for (const line of all.split('\n').filter((l) => /\bcurl\b/.test(l))) expect(line).toMatch(/curl -fsS /);
  });

  it('runs: every block, in order in one shell, exits 0 against a freshly started server', async () => {
    // One shell as in a terminal (variables and functions carry over), stopping at the first failure; after each
    // block, a marker on stderr tells how far it got.
    const script = ['set -euo pipefail', ...blocks.map((block, i) => `${block.replaceAll(README_URL, server.url)}\necho "::block ${i + 1} done" >&2`)].join('\n');
    const child = spawn('bash', ['-c', script], { cwd: workDir, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
    const done = [...stderr.matchAll(/^::block (\d+) done$/gm)].length;
    expect({ code, failedBlock: code === 0 ? undefined : blocks[done], stderr: code === 0 ? '' : stderr }).toEqual({ code: 0, failedBlock: undefined, stderr: '' });
    expect(done).toBe(blocks.length);

    // What the reader was told to expect: the value read back, changed, and a package on disk.
    expect(stdout).toMatch(/"id": ?"https:\/\/example\.com\/ids\/aas\/pump-1"/);
    expect(stdout).toMatch(/\{"MaxRotationSpeed": ?3600\}/);
    expect(stdout).toMatch(/"idShort": ?"MaxRotationSpeed", ?"value": ?"3600"/);
    const aasx = fs.readFileSync(path.join(workDir, 'pump-1.aasx'));
    expect(aasx.subarray(0, 2).toString('latin1')).toBe('PK');
  });
});
