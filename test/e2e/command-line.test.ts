import { ChildProcess, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { renderBanner } from '../../src/banner';
import { PACKAGE } from '../../src/common/package-info';
import { freePort } from '../support/free-port';
import { ROOT, killAll, spawnServer, stopServerProcess } from '../support/server-process';

/** Each case starts a process that compiles the whole server on the fly; on a busy machine that takes a while. */
const PROCESS_TIMEOUT_MS = 240_000;

/**
 * The server's command line as a newcomer meets it: `--help` and `--version` print and exit without touching a
 * database, a bad setting stops it with one line naming the variable, and once it listens a person at a terminal
 * gets a banner with the URLs (from PUBLIC_URL) while a log collector gets JSON lines only.
 */
const dirs: string[] = [];
const tempDir = () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'asset-platform-cli-'));
  dirs.push(dir);
  return dir;
};
const running: ChildProcess[] = [];
afterAll(() => {
  killAll();
  for (const child of running) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
});

/** The entry point as `node dist/src/main.js` runs it (compiled on the fly by the same loader as the other process tests), in `cwd`. */
const ENTRY = ['-r', path.join(ROOT, 'node_modules/@swc-node/register'), path.join(ROOT, 'src/main.ts')];

/** Runs the entry with `args` in an empty directory, with only PATH, the loader's tsconfig and `env` in its environment. */
function runIn(args: string[], env: Record<string, string> = {}) {
  const cwd = tempDir();
  const result = spawnSync(process.execPath, [...ENTRY, ...args], {
    cwd,
    env: { PATH: process.env.PATH, SWC_NODE_PROJECT: path.join(ROOT, 'tsconfig.json'), ...env },
    encoding: 'utf8',
    timeout: 180_000,
  });
  return { ...result, cwd, left: fs.readdirSync(cwd) };
}

describe('the command line', () => {
  it('--help prints the usage and exits 0: no data directory, no database, no one-time password', () => {
    for (const flag of ['--help', '-h']) {
      const run = runIn([flag], { DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none' });
      expect(run.status, run.stderr).toBe(0);
      expect(run.stdout).toMatch(/^Usage: node dist\/src\/main\.js/);
      expect(run.stdout).toContain('PUBLIC_URL');
      // The full list is where it says (the README has no such section).
      expect(run.stdout).toContain('The full list is in docs/configuration.md.');
      expect(fs.existsSync(path.join(ROOT, 'docs/configuration.md'))).toBe(true);
      expect(run.stdout).not.toContain('oneTimePassword');
      expect(run.stderr).toBe('');
      // Nothing was created where it ran (the embedded database would have made ./data).
      expect(run.left).toEqual([]);
    }
  }, PROCESS_TIMEOUT_MS);

  it('--version prints the version and exits 0, creating nothing', () => {
    for (const flag of ['--version', '-v']) {
      const run = runIn([flag]);
      expect(run.status, run.stderr).toBe(0);
      expect(run.stdout).toBe(`${PACKAGE.version}\n`);
      expect(run.left).toEqual([]);
    }
  }, PROCESS_TIMEOUT_MS);

  it('refuses an unknown argument with exit code 2, creating nothing', () => {
    const run = runIn(['--port=9000']);
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(/^unknown argument: --port=9000 .*--help/);
    expect(run.stdout).toBe('');
    expect(run.left).toEqual([]);
  }, PROCESS_TIMEOUT_MS);

  it('stops on a bad setting with one line naming the variable, no stack trace, exit code 2, creating nothing', () => {
    for (const [name, value] of [
      ['PUBLIC_URL', 'localhost:8080'],
      ['BODY_LIMIT', 'lots'],
      ['PORT', 'eighty'],
      ['MQTT_URL', 'broker:1883'],
    ]) {
      const run = runIn([], { [name]: value });
      expect(run.status, `${name}: ${run.stderr}`).toBe(2);
      expect(run.stderr, name).toMatch(new RegExp(`^configuration error: ${name}\\b.*\\n$`));
      expect(run.stderr.split('\n').filter(Boolean), name).toHaveLength(1);
      expect(run.stderr, name).not.toMatch(/\bat .*\.(ts|js):\d+/);
      expect(run.left, name).toEqual([]);
    }
  }, PROCESS_TIMEOUT_MS);

  it('says in one line that no PostgreSQL server answers at the host of DATABASE_URL, exit code 1', async () => {
    const port = await freePort();
    const run = runIn([], { DATABASE_URL: `postgres://postgres@127.0.0.1:${port}/assets` });
    expect(run.status, run.stderr).toBe(1);
    expect(run.stderr).toBe(`cannot start: no PostgreSQL server answers at 127.0.0.1:${port} (connection refused): start it, or check the host and port of DATABASE_URL\n`);
  }, PROCESS_TIMEOUT_MS);

  it.skipIf(!process.env.DATABASE_URL)('says in one line that the database of DATABASE_URL does not exist and how to create it, exit code 1', () => {
    const url = new URL(process.env.DATABASE_URL!);
    url.pathname = '/asset_platform_missing_db';
    const run = runIn([], { DATABASE_URL: url.toString() });
    expect(run.status, run.stderr).toBe(1);
    expect(run.stderr.split('\n').filter(Boolean)).toHaveLength(1);
    expect(run.stderr).toMatch(/^cannot start: the database "asset_platform_missing_db" does not exist on the PostgreSQL server at [^ ]+\. Create it \(createdb .*asset_platform_missing_db, or in psql: CREATE DATABASE "asset_platform_missing_db";\)/);
    expect(run.stderr).not.toMatch(/\bat .*\.(ts|js):\d+/);
  }, PROCESS_TIMEOUT_MS);
});

describe('what the server says once it listens', () => {
  it('without a terminal: JSON lines only, the listening line with the URLs of PUBLIC_URL', async () => {
    const dir = tempDir();
    const proc = await spawnServer(dir, { env: (url) => ({ PUBLIC_URL: url.replace('127.0.0.1', 'localhost') }) });
    try {
      const publicUrl = proc.url.replace('127.0.0.1', 'localhost');
      await vi.waitFor(() => expect(proc.lines().some((l) => l.msg === 'listening')).toBe(true), { timeout: 180_000, interval: 200 });
      const listening = proc.lines().find((l) => l.msg === 'listening')!;
      expect(listening).toMatchObject({
        listen: `127.0.0.1:${new URL(proc.url).port}`,
        publicUrl,
        adminConsole: `${publicUrl}/admin`,
        restConsole: `${publicUrl}/console`,
        graphiql: `${publicUrl}/graphiql`,
        defaultTenantApi: `${publicUrl}/tenants/default/api/v3.0/shells`,
      });
      expect(proc.output()).not.toContain('is running');
      // Every line it wrote is JSON.
      expect(proc.output().split('\n').filter((l) => l.trim() && !l.startsWith('{'))).toEqual([]);
    } finally {
      await stopServerProcess(proc, 'SIGTERM');
    }
  }, PROCESS_TIMEOUT_MS);

  const hasScript = spawnSync('script', ['--version']).status === 0;
  it.skipIf(!hasScript)('on a terminal: a banner with the URLs of PUBLIC_URL and the one-time password of the first start', async () => {
    const dir = tempDir();
    const port = await freePort();
    const publicUrl = `http://assets.example.test:${port}`;
    const env: NodeJS.ProcessEnv = { ...process.env, NODE_ENV: 'production', PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dir, PUBLIC_URL: publicUrl, LOG_LEVEL: 'info' };
    delete env.DATABASE_URL;
    delete env.DEFAULT_TENANT_SHOWCASE;
    const command = [process.execPath, '-r', '@swc-node/register', 'src/main.ts'].map((a) => `'${a}'`).join(' ');
    // util-linux `script` runs the server on a pseudo-terminal and copies what it writes to ours (a pipe).
    const child = spawn('script', ['-qefc', command, '/dev/null'], { cwd: ROOT, env, stdio: ['pipe', 'pipe', 'pipe'] });
    running.push(child);
    let out = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    child.stderr.on('data', (chunk) => (out += chunk));
    try {
      // The banner, then the start's log lines, which may come in several chunks: until the line with the password
      // is whole (a line is whole once its newline came).
      const wholeLines = () => out.replace(/\r/g, '').split('\n').slice(0, -1);
      await vi.waitFor(
        () => {
          expect(out).toContain('Stop with Ctrl+C.');
          expect(wholeLines().some((l) => l.startsWith('{') && l.includes('"oneTimePassword"'))).toBe(true);
        },
        { timeout: 180_000, interval: 200 },
      );
      const text = wholeLines().join('\n');
      expect(text).toContain(`${PACKAGE.name} ${PACKAGE.version} is running`);
      // The banner first, then the log lines of the start (held until it was printed).
      expect(text.indexOf('{"level"')).toBeGreaterThan(text.indexOf('Stop with Ctrl+C.'));
      expect(text).toMatch(new RegExp(`Front door +${publicUrl}/\\n`));
      expect(text).toMatch(new RegExp(`Admin console +${publicUrl}/admin\\n`));
      expect(text).toMatch(new RegExp(`REST console +${publicUrl}/console\\n`));
      // The owner's first sign-in is at the admin console.
      expect(text).toContain(`at ${publicUrl}/admin (you will choose your own)`);
      expect(text).toMatch(new RegExp(`GraphiQL +${publicUrl}/graphiql\\n`));
      expect(text).toMatch(new RegExp(`Listening on +127\\.0\\.0\\.1:${port}\\n`));
      expect(text).toContain('SHOWCASE MODE');
      // The first start's one-time password: in the banner, and the same as in the log line.
      const password = /with the one-time password (\S+)/.exec(text)?.[1];
      expect(password).toBeTruthy();
      const logged = wholeLines().filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Record<string, unknown>);
      expect(logged.find((l) => 'oneTimePassword' in l)?.oneTimePassword).toBe(password);
      // It still answers where it listens.
      expect((await fetch(`http://127.0.0.1:${port}/health/ready`)).status).toBe(200);
    } finally {
      const pid = (/"pid":(\d+)/.exec(out) ?? [])[1];
      if (pid) process.kill(Number(pid), 'SIGTERM');
      await new Promise((resolve) => (child.exitCode !== null ? resolve(null) : child.once('exit', resolve)));
    }
  }, PROCESS_TIMEOUT_MS);
});

describe('the banner', () => {
  const summary = {
    name: 'asset-platform',
    version: '1.2.3',
    listen: '0.0.0.0:8080',
    publicUrl: 'https://aas.example.com',
    entryPoints: [{ key: 'graphiql' as const, title: 'GraphQL playground (GraphiQL)', label: 'GraphiQL', url: 'https://aas.example.com/graphiql', href: 'graphiql' }],
    database: { kind: 'postgres' as const, host: 'db:5432' },
    owner: { login: 'admin@localhost', loginUrl: 'https://aas.example.com/admin' },
    showcase: false,
  };

  it('on later starts says where the one-time password was, and warns about showcase mode only when it applies', () => {
    const later = renderBanner(summary);
    expect(later).toContain('GraphiQL      https://aas.example.com/graphiql');
    expect(later).toContain('PostgreSQL at db:5432');
    expect(later).toContain('"oneTimePassword" field of that start\'s log');
    expect(later).not.toContain('SHOWCASE');
    expect(renderBanner({ ...summary, showcase: true })).toContain('SHOWCASE MODE');
  });
});
