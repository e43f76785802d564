import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { PGLiteSocketHandler } from '@electric-sql/pglite-socket';
import { DataDirError, lockDataDir } from './data-dir-lock';
import { SessionQueue } from './session-queue';

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

/**
 * Starts the embedded PostgreSQL (PGlite) with its data under `dataDir` and serves it on a unix socket, so the
 * `pg` driver and TypeORM take exactly the same code path as with a real server. The directory is locked for
 * this process first (`lockDataDir`): a second server on it refuses to start.
 *
 * PGlite is one session. Connections are served by pglite-socket's protocol handler, but share the session
 * through our SessionQueue instead of pglite-socket's own server queue (see there for why). There is no TCP
 * listener and no password: only processes of this user can reach the socket.
 */
export async function startEmbeddedDatabase(dataDir: string, maxConnections: number): Promise<EmbeddedDatabase> {
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
    const db = await PGlite.create({ dataDir });
    const queue = new SessionQueue(db);
    const handlers = new Set<PGLiteSocketHandler>();
    const server = net.createServer((socket) => {
      if (handlers.size >= maxConnections) {
        socket.end();
        return;
      }
      const handler = new PGLiteSocketHandler({ queryQueue: queue as never, closeOnDetach: true });
      handlers.add(handler);
      const forget = () => handlers.delete(handler);
      handler.addEventListener('close', forget);
      handler.addEventListener('error', forget);
      handler.attach(socket).catch(() => {
        forget();
        socket.destroy();
      });
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(socketPath, resolve);
    });
    fs.chmodSync(socketPath, 0o600);
    lock.serving(socketPath);
    const dir = socketDir;
    return {
      url: `postgres://postgres@localhost/postgres?host=${encodeURIComponent(dir.dir)}`,
      socketPath,
      async stop() {
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        await Promise.all([...handlers].map((h) => h.detach(true)));
        await closed;
        await db.close();
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
