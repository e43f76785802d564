import { ChildProcess, SpawnOptions, spawn } from 'node:child_process';
import path from 'node:path';
import { freePort } from './free-port';
import { PATIENCE_MS } from './timing';

/** The repository root, where `src/main.ts` is. */
export const ROOT = path.resolve(__dirname, '../..');

export interface ServerProcess {
  child: ChildProcess;
  url: string;
  /** Everything it wrote to stdout and stderr so far. */
  output(): string;
  /** Its JSON log lines so far. */
  lines(): Record<string, unknown>[];
}

/** Every process spawned here, so a failed test can kill what it left running (`killAll`). */
const started: ChildProcess[] = [];

export function killAll(): void {
  for (const child of started) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
}

export interface SpawnServerOptions extends Pick<SpawnOptions, 'uid' | 'gid'> {
  /** More environment, given the server's URL (e.g. PUBLIC_URL, BOOTSTRAP_CLIENT_ID). */
  env?: (url: string) => NodeJS.ProcessEnv;
  /** The port to listen on (a replica restarted behind a load balancer keeps its own); a free one when not given. */
  port?: number;
}

/**
 * Spawns the server as `npm start` and the Docker image run it (not under vitest's NODE_ENV=test, where libraries
 * behave otherwise) on the embedded database in `dataDir`, on a free port. `env` may name a PostgreSQL server's
 * `DATABASE_URL` instead (several processes on one database).
 */
export async function spawnServer(dataDir: string, { env: moreEnv, port: given, ...options }: SpawnServerOptions = {}): Promise<ServerProcess> {
  const port = given ?? (await freePort());
  const env: NodeJS.ProcessEnv = { ...process.env, NODE_ENV: 'production', PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'info' };
  delete env.DATABASE_URL;
  delete env.DEFAULT_TENANT_SHOWCASE;
  Object.assign(env, moreEnv?.(`http://127.0.0.1:${port}`));
  const child = spawn(process.execPath, ['-r', '@swc-node/register', 'src/main.ts'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'], ...options });
  started.push(child);
  let out = '';
  child.stdout!.on('data', (chunk) => (out += chunk));
  child.stderr!.on('data', (chunk) => (out += chunk));
  // Whole lines only: the last piece is still being written until its newline comes (output arrives in chunks).
  const lines = () =>
    out
      .split('\n')
      .slice(0, -1)
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as Record<string, unknown>);
  return { child, url: `http://127.0.0.1:${port}`, output: () => out, lines };
}

/** Spawns the server and waits until it is ready; fails with its output when it exits or is not ready in `PATIENCE_MS`. */
export async function startServerProcess(dataDir: string, options: SpawnServerOptions = {}): Promise<ServerProcess> {
  const proc = await spawnServer(dataDir, options);
  const deadline = Date.now() + PATIENCE_MS;
  for (;;) {
    if (proc.child.exitCode !== null) throw new Error(`server exited with ${proc.child.exitCode}:\n${proc.output()}`);
    if (Date.now() > deadline) throw new Error(`server did not become ready:\n${proc.output()}`);
    const ready = await fetch(`${proc.url}/health/ready`).then((r) => r.ok, () => false);
    if (ready) return proc;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** The exit code of a process once it ends. */
export function exitOf(proc: ServerProcess): Promise<number | null> {
  if (proc.child.exitCode !== null) return Promise.resolve(proc.child.exitCode);
  return new Promise((resolve) => proc.child.once('exit', (code) => resolve(code)));
}

/** Sends `signal` and resolves with the exit code. */
export function stopServerProcess(proc: ServerProcess, signal: NodeJS.Signals): Promise<number | null> {
  const exited = exitOf(proc);
  proc.child.kill(signal);
  return exited;
}
