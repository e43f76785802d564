import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

/** The file in DATA_DIR that names the server using it. */
export const LOCK_FILE = 'asset-platform.lock';
/** How long a lock from another host (another container on a shared volume) counts as a server still starting. */
export const STARTING_GRACE_MS = 120_000;

/** The embedded database's directory cannot be used: in use by another server, or not writable. */
export class DataDirError extends Error {}

/** What the lock file says: who holds the directory, and where its database answers once it is up. */
interface Owner {
  pid: number;
  host: string;
  since: number;
  socket?: string;
}

export interface DataDirLock {
  /** Records where the database now answers, so others can check the owner is alive by connecting. */
  serving(socket: string): void;
  release(): void;
}

/** Directories this process holds, so a second start in the same process is refused too. */
const held = new Set<string>();

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function answers(socket: string): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = net.connect(socket);
    probe.setTimeout(2_000);
    probe.once('connect', () => {
      probe.destroy();
      resolve(true);
    });
    probe.once('error', () => resolve(false));
    probe.once('timeout', () => {
      probe.destroy();
      resolve(false);
    });
  });
}

/**
 * Whether the lock's owner still runs. Its database socket answering proves it, from any host or container that
 * shares the volume. Without that: on this host, its pid (a restarted container reuses pids, so our own pid is not
 * its); from another host, only a recent lock (a server still starting) counts.
 */
async function ownerAlive(owner: Owner): Promise<boolean> {
  if (owner.socket && (await answers(owner.socket))) return true;
  if (owner.host === os.hostname()) return owner.pid !== process.pid && pidAlive(owner.pid);
  return Date.now() - owner.since < STARTING_GRACE_MS;
}

function readOwner(file: string): Owner | undefined {
  try {
    const text = fs.readFileSync(file, 'utf8');
    try {
      const owner = JSON.parse(text) as Owner;
      if (Number.isInteger(owner.pid)) return owner;
    } catch {
      // an older, plain-pid lock
    }
    const pid = Number.parseInt(text, 10);
    return Number.isInteger(pid) ? { pid, host: os.hostname(), since: 0 } : undefined;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

const NOT_WRITABLE = new Set(['EACCES', 'EPERM', 'EROFS']);

/**
 * Takes DATA_DIR for this process: one data directory, one server. PGlite itself would let two servers open the
 * same directory, and one's acknowledged writes would be lost to the other. The lock file is created atomically
 * (O_EXCL) and names its owner; a lock whose owner is gone (a crash, kill -9, a restarted container) is stale and
 * taken over.
 */
export async function lockDataDir(dir: string): Promise<DataDirLock> {
  const file = path.join(dir, LOCK_FILE);
  const key = path.resolve(dir);
  if (held.has(key)) throw new DataDirError(`DATA_DIR ${dir} is in use by another server (pid ${process.pid}, this process): one data directory serves one server.`);
  const me: Owner = { pid: process.pid, host: os.hostname(), since: Date.now() };
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      fs.writeFileSync(file, JSON.stringify(me), { flag: 'wx', mode: 0o600 });
      held.add(key);
      return {
        serving(socket) {
          fs.writeFileSync(file, JSON.stringify({ ...me, socket }), { mode: 0o600 });
        },
        release() {
          held.delete(key);
          const owner = readOwner(file);
          if (owner?.pid === me.pid && owner.since === me.since) fs.rmSync(file, { force: true });
        },
      };
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? '';
      if (NOT_WRITABLE.has(code)) throw new DataDirError(`DATA_DIR ${dir} is not writable (${code}): the embedded database needs to write there.`);
      if (code !== 'EEXIST') throw err;
    }
    const owner = readOwner(file);
    if (owner && (await ownerAlive(owner))) {
      throw new DataDirError(
        `DATA_DIR ${dir} is in use by another server (pid ${owner.pid} on ${owner.host}): one data directory serves one server. ` +
          `Stop that server, or give this one another DATA_DIR. If that server is gone for sure, remove ${file}.`,
      );
    }
    // Stale: its owner is gone. Remove it, unless another starter replaced it meanwhile, and try again.
    const now = readOwner(file);
    if (!owner || (now?.pid === owner.pid && now.since === owner.since)) fs.rmSync(file, { force: true });
  }
  throw new DataDirError(`DATA_DIR ${dir}: could not take ${LOCK_FILE}; another server is starting on it.`);
}
