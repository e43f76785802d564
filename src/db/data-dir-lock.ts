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

/** The embedded database's directory is held by another server (running, or starting). */
export class DataDirInUseError extends DataDirError {}

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

/** How long a lock file without a readable owner counts as one being written by a server that is starting. */
const WRITING_GRACE_MS = 5_000;

/**
 * The lock file's owner; `undefined` when there is no lock file, 'writing' when it names no owner yet (its creator
 * has opened it but not yet written it, or a crash cut that write short; the latter is stale after a few seconds).
 */
function readOwner(file: string): Owner | 'writing' | undefined {
  let text: string;
  let modified: number;
  try {
    text = fs.readFileSync(file, 'utf8');
    modified = fs.statSync(file).mtimeMs;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    if (code === 'EACCES') throw new DataDirError(`${file} cannot be read (${code}): another user's server holds it, or held it last; one data directory serves one server.`);
    throw err;
  }
  try {
    const owner = JSON.parse(text) as Owner;
    if (Number.isInteger(owner.pid)) return owner;
  } catch {
    // an older, plain-pid lock
  }
  const pid = Number.parseInt(text, 10);
  if (Number.isInteger(pid)) return { pid, host: os.hostname(), since: 0 };
  return Date.now() - modified < WRITING_GRACE_MS ? 'writing' : undefined;
}

const sameOwner = (a: Owner | 'writing' | undefined, b: Owner) => typeof a === 'object' && a.pid === b.pid && a.host === b.host && a.since === b.since;

/** Replaces the lock file's content in one step (a reader never sees it empty or half written). */
function rewrite(file: string, owner: Owner): void {
  const next = `${file}.${owner.pid}.tmp`;
  fs.writeFileSync(next, JSON.stringify(owner), { mode: 0o600 });
  fs.renameSync(next, file);
}

const NOT_WRITABLE = new Set(['EACCES', 'EPERM', 'EROFS']);

/**
 * How long a new lock must stay ours before the database is opened. Two servers that find the same stale lock at
 * the same moment could otherwise both start: one removes it and takes the directory, and the other, which read
 * the stale lock just before, removes that new lock in the next instant and takes the directory too.
 */
const SETTLE_MS = 100;

/** Runs a step that writes DATA_DIR, saying so plainly when the directory is read-only or not ours. */
function writing<T>(dir: string, step: () => T): T {
  try {
    return step();
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? '';
    if (NOT_WRITABLE.has(code)) {
      throw new DataDirError(`DATA_DIR ${dir} is not writable (${code}): the embedded database needs to write there. Make it writable for this user (uid ${process.getuid?.() ?? '?'}), or set DATA_DIR to another directory.`);
    }
    throw err;
  }
}

/**
 * Takes DATA_DIR for this process: one data directory, one server. PGlite itself would let two servers open the
 * same directory, and one's acknowledged writes would be lost to the other. The lock file is created atomically
 * (O_EXCL) and names its owner; a lock whose owner is gone (a crash, kill -9, a restarted container) is stale and
 * taken over. Creating the lock file is also the check that the directory is writable at all.
 */
export async function lockDataDir(dir: string): Promise<DataDirLock> {
  const file = path.join(dir, LOCK_FILE);
  const key = path.resolve(dir);
  if (held.has(key)) throw new DataDirInUseError(`DATA_DIR ${dir} is in use by another server (pid ${process.pid}, this process): one data directory serves one server.`);
  const me: Owner = { pid: process.pid, host: os.hostname(), since: Date.now() };
  const inUse = (owner: Owner) =>
    new DataDirInUseError(
      `DATA_DIR ${dir} is in use by another server (pid ${owner.pid} on ${owner.host}): one data directory serves one server. ` +
        `Stop that server, or give this one another DATA_DIR. If that server is gone for sure, remove ${file}.`,
    );
  const starting = () => new DataDirInUseError(`DATA_DIR ${dir} is in use: another server is starting on it (${file}). One data directory serves one server.`);
  for (let attempt = 0; attempt < 3; attempt++) {
    const created = writing(dir, () => {
      try {
        fs.writeFileSync(file, JSON.stringify(me), { flag: 'wx', mode: 0o600 });
        return true;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
        throw err;
      }
    });
    if (created) {
      held.add(key);
      try {
        await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
        const now = readOwner(file);
        if (!sameOwner(now, me)) throw typeof now === 'object' ? inUse(now) : starting();
      } catch (err) {
        held.delete(key);
        throw err;
      }
      return {
        serving(socket) {
          rewrite(file, { ...me, socket });
        },
        release() {
          held.delete(key);
          if (sameOwner(readOwner(file), me)) fs.rmSync(file, { force: true });
        },
      };
    }
    const owner = readOwner(file);
    if (owner === 'writing') throw starting();
    if (owner && (await ownerAlive(owner))) throw inUse(owner);
    // Stale: its owner is gone. Remove it, unless another starter replaced it meanwhile, and try again.
    const now = readOwner(file);
    if (!owner ? now === undefined : sameOwner(now, owner)) writing(dir, () => fs.rmSync(file, { force: true }));
  }
  throw starting();
}
