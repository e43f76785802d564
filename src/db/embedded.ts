import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { workerScript } from '../common/worker-script';
import { DataDirError, lockDataDir } from './data-dir-lock';
import type { EmbeddedWorkerData, EmbeddedWorkerMessage } from './embedded-worker';

export interface EmbeddedDatabase {
  /** A connection string naming the unix socket's directory (`?host=/...`): no TCP host. */
  url: string;
  socketPath: string;
  stop(): Promise<void>;
}

/** Longest unix socket path the kernel takes (sun_path is 108 bytes with its NUL); longer ones fail to bind. */
const MAX_SOCKET_PATH = 107;
const SOCKET_NAME = '.s.PGSQL.5432';

/**
 * Where the socket is: `DATA_DIR/run`, a directory only this user may enter (0700), so no other local user can
 * connect; when DATA_DIR is too deep for a socket path, a fresh private directory under the system's temp dir.
 */
function socketDirFor(dataDir: string): { dir: string; temporary: boolean } {
  const dir = path.join(dataDir, 'run');
  if (path.join(dir, SOCKET_NAME).length <= MAX_SOCKET_PATH) {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    fs.chmodSync(dir, 0o700);
    return { dir, temporary: false };
  }
  return { dir: fs.mkdtempSync(path.join(os.tmpdir(), 'asset-platform-db-')), temporary: true };
}

/** How many connections the embedded database accepts: the server's pool and two more. */
export const embeddedConnections = (config: { dbPoolSize: number }) => config.dbPoolSize + 2;

/**
 * Starts the embedded PostgreSQL (PGlite) with its data under `dataDir` in a worker thread (`embedded-worker`),
 * served on a unix socket, so the `pg` driver and TypeORM take exactly the same code path as with a real server,
 * and the database's work never holds up the event loop. The directory is locked for this process first
 * (`lockDataDir`): a second server on it refuses to start. There is no TCP listener and no password: only
 * processes of this user can reach the socket. `threadStarted` is called once the database's thread runs: from then
 * on, work on the main thread goes on beside its start.
 */
export async function startEmbeddedDatabase(dataDir: string, maxConnections: number, threadStarted?: () => void): Promise<EmbeddedDatabase> {
  try {
    fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new DataDirError(`DATA_DIR ${dataDir} cannot be created (${code}): the embedded database needs to write there.`);
  }
  const lock = await lockDataDir(dataDir);
  // PGlite writes its files readable by all; the directory keeps every other user out, as PostgreSQL requires.
  // A directory this user does not own (a mounted volume) keeps the mode its owner gave it.
  try {
    fs.chmodSync(dataDir, 0o700);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') throw err;
  }
  let socketDir: { dir: string; temporary: boolean } | undefined;
  try {
    socketDir = socketDirFor(dataDir);
    const socketPath = path.join(socketDir.dir, SOCKET_NAME);
    // The lock is ours, so a socket file left behind is a crashed server's.
    fs.rmSync(socketPath, { force: true });
    const worker = await startWorker({ dataDir, socketPath, maxConnections }, threadStarted);
    lock.serving(socketPath);
    const dir = socketDir;
    return {
      url: `postgres://postgres@localhost/postgres?host=${encodeURIComponent(dir.dir)}`,
      socketPath,
      async stop() {
        await worker.stop();
        if (dir.temporary) fs.rmSync(dir.dir, { recursive: true, force: true });
        lock.release();
      },
    };
  } catch (err) {
    if (socketDir?.temporary) fs.rmSync(socketDir.dir, { recursive: true, force: true });
    lock.release();
    throw err;
  }
}

/** Starts the database thread and waits until it serves its socket; `stop` closes the database and ends it. */
async function startWorker(data: EmbeddedWorkerData, started?: () => void): Promise<{ stop(): Promise<void> }> {
  const script = workerScript(__dirname, 'embedded-worker', __filename);
  const worker = new Worker(script.filename, { execArgv: script.execArgv, workerData: data });
  started?.();
  const next = () =>
    new Promise<EmbeddedWorkerMessage>((resolve, reject) => {
      const onExit = (code: number) => reject(new Error(`the embedded database thread exited with code ${code}`));
      worker.once('exit', onExit);
      worker.once('error', reject);
      worker.once('message', (message: EmbeddedWorkerMessage) => {
        worker.off('exit', onExit);
        worker.off('error', reject);
        resolve(message);
      });
    });
  const first = await next();
  if ('error' in first) {
    await worker.terminate();
    throw new Error(`the embedded PostgreSQL did not start: ${first.error}`);
  }
  return {
    async stop() {
      const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
      worker.postMessage('stop');
      // The thread ends by itself once the database is closed; one that hangs is ended after 10 s.
      const timer = setTimeout(() => void worker.terminate(), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}
