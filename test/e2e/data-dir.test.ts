import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { DataDirError, LOCK_FILE, lockDataDir } from '../../src/db/data-dir-lock';
import { startEmbeddedDatabase } from '../../src/db/embedded';
import { b64, json, sampleShell } from '../support/server';
import { ROOT, exitOf, killAll, spawnServer, startServerProcess, stopServerProcess } from '../support/server-process';
import { tcpListenPorts } from '../support/tcp-listeners';

/**
 * The embedded database's directory: one server per directory, reachable by this user alone, and a clear word
 * when it cannot be used. These tests run the embedded database whatever DATABASE_URL says.
 */
const dirs: string[] = [];
const tempDir = (prefix = 'asset-platform-dd-') => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  dirs.push(dir);
  return dir;
};
afterAll(() => {
  killAll();
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
});

describe('one data directory, one server', () => {
  it('refuses a second server on the same DATA_DIR, so no acknowledged write is lost', async () => {
    const dataDir = tempDir();
    const first = await startServerProcess(dataDir);
    try {
      const second = await spawnServer(dataDir);
      expect(await exitOf(second)).toBe(1);
      expect(second.output()).toContain(`DATA_DIR ${dataDir} is in use by another server (pid ${first.child.pid}`);
      const api = `${first.url}/tenants/default/api/v3.0`;
      const created = await fetch(`${api}/shells`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(sampleShell('urn:dd:1')) });
      expect(created.status).toBe(201);
    } finally {
      expect(await stopServerProcess(first, 'SIGTERM')).toBe(0);
    }
    expect(fs.existsSync(path.join(dataDir, LOCK_FILE))).toBe(false);
    const again = await startServerProcess(dataDir);
    try {
      const got = await json(fetch(`${again.url}/tenants/default/api/v3.0/shells/${b64('urn:dd:1')}`));
      expect(got.id).toBe('urn:dd:1');
    } finally {
      // A server killed outright leaves its lock behind: the next start sees its owner is gone and takes it.
      await stopServerProcess(again, 'SIGKILL');
    }
    expect(fs.existsSync(path.join(dataDir, LOCK_FILE))).toBe(true);
    const afterCrash = await startServerProcess(dataDir);
    expect(await stopServerProcess(afterCrash, 'SIGTERM')).toBe(0);
  });

  it('is taken by the migration CLI the same way: refused while a server runs, free again after', async () => {
    const dataDir = tempDir();
    const server = await startServerProcess(dataDir);
    try {
      const refused = await migrate(dataDir);
      expect(refused.code).toBe(1);
      expect(refused.output).toContain(`DATA_DIR ${dataDir} is in use by another server (pid ${server.child.pid}`);
    } finally {
      expect(await stopServerProcess(server, 'SIGTERM')).toBe(0);
    }
    const ran = await migrate(dataDir);
    expect(ran).toEqual({ code: 0, output: 'nothing to apply\n' });
    expect(fs.existsSync(path.join(dataDir, LOCK_FILE))).toBe(false);
  });

  it('refuses a second embedded database in the same process too', async () => {
    const dataDir = tempDir();
    const db = await startEmbeddedDatabase(dataDir, 2);
    try {
      await expect(startEmbeddedDatabase(dataDir, 2)).rejects.toThrow(DataDirError);
    } finally {
      await db.stop();
    }
  });
});

describe('the lock of a server that is gone', () => {
  const lockOf = (dataDir: string, owner: Record<string, unknown>) => fs.writeFileSync(path.join(dataDir, LOCK_FILE), JSON.stringify(owner));

  it('is taken over when it names this very pid, as after a container restart', async () => {
    const dataDir = tempDir();
    lockOf(dataDir, { pid: process.pid, host: os.hostname(), since: Date.now() - 1000 });
    const db = await startEmbeddedDatabase(dataDir, 2);
    await db.stop();
  });

  it('is not taken over while its creator is still writing it, only when it stays empty', async () => {
    const dataDir = tempDir();
    const file = path.join(dataDir, LOCK_FILE);
    // O_EXCL creates the file empty; its owner is written an instant later. A starter reading in between must not
    // take it for a crashed server's.
    fs.writeFileSync(file, '');
    await expect(startEmbeddedDatabase(dataDir, 2)).rejects.toThrow(`DATA_DIR ${dataDir} is in use: another server is starting on it`);
    expect(fs.readFileSync(file, 'utf8')).toBe('');
    // An empty lock left by a crash long ago is stale.
    const past = new Date(Date.now() - 60_000);
    fs.utimesSync(file, past, past);
    const db = await startEmbeddedDatabase(dataDir, 2);
    await db.stop();
  });

  it('taken over by two starters at once is kept by one of them only', async () => {
    const dataDir = tempDir();
    const file = path.join(dataDir, LOCK_FILE);
    // This starter creates its lock; the other, which read the stale lock an instant earlier, removes this new one
    // as stale and creates its own. The one that lost its lock must not open the database.
    const taking = lockDataDir(dataDir);
    expect(JSON.parse(fs.readFileSync(file, 'utf8')).pid).toBe(process.pid);
    fs.rmSync(file);
    const other = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)']);
    try {
      lockOf(dataDir, { pid: other.pid, host: os.hostname(), since: Date.now() });
      await expect(taking).rejects.toThrow(`DATA_DIR ${dataDir} is in use by another server (pid ${other.pid} on ${os.hostname()})`);
      expect(JSON.parse(fs.readFileSync(file, 'utf8')).pid).toBe(other.pid);
    } finally {
      other.kill('SIGKILL');
    }
  });

  it('from another host (a shared volume) holds while its database answers, and is taken over when it does not', async () => {
    const dataDir = tempDir();
    const socket = path.join(tempDir(), 'other.sock');
    const other = net.createServer((s) => s.destroy());
    await new Promise<void>((resolve) => other.listen(socket, resolve));
    lockOf(dataDir, { pid: 1, host: 'another-container', since: Date.now() - 10 * 60_000, socket });
    await expect(startEmbeddedDatabase(dataDir, 2)).rejects.toThrow(/in use by another server \(pid 1 on another-container\)/);
    await new Promise((resolve) => other.close(resolve));
    const db = await startEmbeddedDatabase(dataDir, 2);
    await db.stop();
  });
});

describe('the embedded database is reachable by this user alone', () => {
  it('listens on a unix socket in a 0700 directory inside DATA_DIR, its URL naming no TCP host', async () => {
    const dataDir = path.join(tempDir(), 'data'); // made by the server, private to this user
    const db = await startEmbeddedDatabase(dataDir, 2);
    try {
      const url = new URL(db.url);
      const socketDir = url.searchParams.get('host')!;
      expect(socketDir.startsWith(dataDir)).toBe(true);
      expect(url.port).toBe('');
      expect(fs.statSync(socketDir).mode & 0o777).toBe(0o700);
      expect(fs.statSync(db.socketPath).isSocket()).toBe(true);
      expect(fs.statSync(db.socketPath).mode & 0o777).toBe(0o600);
      expect(fs.statSync(dataDir).mode & 0o777).toBe(0o700);
      const client = new Client({ connectionString: db.url });
      await client.connect();
      expect((await client.query('SELECT 1 AS one')).rows[0].one).toBe(1);
      await client.end();
    } finally {
      await db.stop();
    }
  });

  it('puts the socket in a private temporary directory when DATA_DIR is too deep for a socket path', async () => {
    const deep = path.join(tempDir(), 'a'.repeat(60), 'b'.repeat(60));
    const db = await startEmbeddedDatabase(deep, 2);
    const socketDir = path.dirname(db.socketPath);
    try {
      expect(socketDir.startsWith(os.tmpdir())).toBe(true);
      expect(socketDir.startsWith(deep)).toBe(false);
      expect(fs.statSync(socketDir).mode & 0o777).toBe(0o700);
      expect(fs.statSync(deep).mode & 0o777).toBe(0o700);
      const client = new Client({ connectionString: db.url });
      await client.connect();
      await client.end();
    } finally {
      await db.stop();
    }
    expect(fs.existsSync(socketDir)).toBe(false);
  });

  it.runIf(process.platform === 'linux')('opens no TCP listener in any thread of the process', async () => {
    // The database runs in a worker thread of this process: its sockets are the process's, seen in /proc.
    const before = tcpListenPorts(process.pid);
    const db = await startEmbeddedDatabase(tempDir(), 2);
    try {
      const client = new Client({ connectionString: db.url });
      await client.connect();
      await client.end();
      expect(tcpListenPorts(process.pid)).toEqual(before);
    } finally {
      await db.stop();
    }
  });
});

describe('a DATA_DIR the server cannot write', () => {
  /** Root writes anywhere: the server runs as nobody, as an operator's service account would. */
  const unprivileged = (dataDir: string) => {
    if (process.getuid?.() !== 0) return {};
    const nobody = { uid: 65534, gid: 65534 };
    // nobody must be able to reach the directory and the repository (it runs src/main.ts from it).
    fs.chmodSync(path.dirname(dataDir), fs.statSync(path.dirname(dataDir)).mode | 0o005);
    expect(spawnSync(process.execPath, ['-e', 'require("fs").readFileSync("package.json")'], { cwd: ROOT, ...nobody }).status).toBe(0);
    return nobody;
  };

  it('stops the server with a message that says so', async () => {
    const dataDir = tempDir();
    fs.chmodSync(dataDir, 0o555);
    const proc = await spawnServer(dataDir, unprivileged(dataDir));
    expect(await exitOf(proc)).toBe(1);
    expect(proc.output()).toContain(`DATA_DIR ${dataDir} is not writable`);
    expect(proc.output()).not.toContain('PGlite failed to initialize');
  });

  it('says so too when a crashed server left its lock there', async () => {
    const dataDir = tempDir();
    const { pid: gone } = spawnSync(process.execPath, ['-e', '']);
    fs.writeFileSync(path.join(dataDir, LOCK_FILE), JSON.stringify({ pid: gone, host: os.hostname(), since: Date.now() - 60_000 }), { mode: 0o644 });
    fs.chmodSync(dataDir, 0o555);
    const proc = await spawnServer(dataDir, unprivileged(dataDir));
    expect(await exitOf(proc)).toBe(1);
    expect(proc.output()).toContain(`DATA_DIR ${dataDir} is not writable`);
  });
});

/** Runs the migration CLI on the embedded database in `dataDir`. */
function migrate(dataDir: string): Promise<{ code: number | null; output: string }> {
  const env: NodeJS.ProcessEnv = { ...process.env, NODE_ENV: 'production', DATA_DIR: dataDir };
  delete env.DATABASE_URL;
  const child = spawn(process.execPath, ['-r', '@swc-node/register', 'src/db/migrate-cli.ts', 'run'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  return new Promise((resolve) => child.once('close', (code) => resolve({ code, output })));
}
