import fs from 'node:fs';
import path from 'node:path';

/** The file in DATA_DIR that names the process using it. */
export const LOCK_FILE = 'asset-platform.lock';

/** The embedded database's directory cannot be used: in use by another server, or not writable. */
export class DataDirError extends Error {}

export interface DataDirLock {
  release(): void;
}

/** Whether a process with this pid is running (one we may not signal still runs). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

const NOT_WRITABLE = new Set(['EACCES', 'EPERM', 'EROFS']);

/**
 * Takes DATA_DIR for this process: one data directory, one server. PGlite itself would let two servers open the
 * same directory, and one's acknowledged writes would be lost to the other. The lock file holds the owner's pid
 * and is created atomically (O_EXCL); a lock whose process is gone (a crash, kill -9) is stale and taken over.
 */
export function lockDataDir(dir: string): DataDirLock {
  const file = path.join(dir, LOCK_FILE);
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      fs.writeFileSync(file, `${process.pid}\n`, { flag: 'wx', mode: 0o600 });
      return {
        release() {
          try {
            if (fs.readFileSync(file, 'utf8').trim() === String(process.pid)) fs.unlinkSync(file);
          } catch {
            // gone already
          }
        },
      };
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? '';
      if (NOT_WRITABLE.has(code)) throw new DataDirError(`DATA_DIR ${dir} is not writable (${code}): the embedded database needs to write there.`);
      if (code !== 'EEXIST') throw err;
    }
    const owner = Number.parseInt(fs.readFileSync(file, 'utf8'), 10);
    if (Number.isInteger(owner) && owner > 0 && alive(owner)) {
      throw new DataDirError(
        `DATA_DIR ${dir} is in use by another server (pid ${owner}${owner === process.pid ? ', this process' : ''}): one data directory serves one server. ` +
          `Stop that server, or give this one another DATA_DIR. If no such process is ours, remove ${file}.`,
      );
    }
    // Stale: its owner is gone. Remove it and try again (another starter may win the race; then it is not stale).
    fs.rmSync(file, { force: true });
  }
  throw new DataDirError(`DATA_DIR ${dir}: could not take ${LOCK_FILE}; another server is starting on it.`);
}
