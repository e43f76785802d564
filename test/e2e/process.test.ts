import { ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { b64, json, sampleShell } from '../support/server';
import { freePort } from '../support/free-port';

/**
 * The no-setup path as a newcomer meets it: the server process with no DATABASE_URL runs the embedded
 * PostgreSQL with its data in DATA_DIR, creates the showcase `default` tenant on first start, logs JSON lines
 * with request ids, stops cleanly on SIGTERM/SIGINT, and keeps its data across restarts.
 */
const root = path.resolve(__dirname, '../..');
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'asset-platform-process-'));
const started: ChildProcess[] = [];
afterAll(() => {
  // A failed assertion must not leave a server running.
  for (const child of started) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  fs.rmSync(dataDir, { recursive: true, force: true });
});


interface Proc {
  child: ChildProcess;
  url: string;
  lines: () => Record<string, unknown>[];
}

async function startProcess(): Promise<Proc> {
  const port = await freePort();
  // As `npm start` and the Docker image run it: not under vitest's NODE_ENV=test, where libraries behave otherwise.
  const env: NodeJS.ProcessEnv = { ...process.env, NODE_ENV: 'production', PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'info' };
  delete env.DATABASE_URL;
  delete env.DEFAULT_TENANT_SHOWCASE;
  const child = spawn(process.execPath, ['-r', '@swc-node/register', 'src/main.ts'], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
  started.push(child);
  let out = '';
  child.stdout!.on('data', (chunk) => (out += chunk));
  child.stderr!.on('data', (chunk) => (out += chunk));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}:\n${out}`);
    if (Date.now() > deadline) throw new Error(`server did not become ready:\n${out}`);
    const ready = await fetch(`${url}/health/ready`).then((r) => r.ok, () => false);
    if (ready) break;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  const lines = () =>
    out
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as Record<string, unknown>);
  return { child, url, lines };
}

function stop(proc: Proc, signal: NodeJS.Signals): Promise<number | null> {
  return new Promise((resolve) => {
    proc.child.once('exit', (code) => resolve(code));
    proc.child.kill(signal);
  });
}

describe('the server process on the embedded database', () => {
  it('starts with no setup, serves the showcase default tenant, logs, stops on SIGTERM and keeps its data', async () => {
    const first = await startProcess();
    const api = `${first.url}/tenants/default/api/v3.0`;
    const created = await fetch(`${api}/shells`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-request-id': 'trace-me-1' },
      body: JSON.stringify(sampleShell('urn:process:1')),
    });
    expect(created.status).toBe(201);
    expect(created.headers.get('x-request-id')).toBe('trace-me-1');
    expect(fs.existsSync(path.join(dataDir, 'PG_VERSION'))).toBe(true);

    expect(first.lines().some((l) => String(l.msg).includes('SHOWCASE MODE') && String(l.msg).includes('Not for production'))).toBe(true);
    // The request line is written as the response goes out; give the pipe a moment.
    await vi.waitFor(() => {
      expect(first.lines().some((l) => l.msg === 'request' && l.requestId === 'trace-me-1' && l.status === 201)).toBe(true);
    });
    // SIGTERM while a request's body is still arriving: the request completes, then the process exits cleanly.
    const body = JSON.stringify(sampleShell('urn:process:inflight'));
    let answered!: (status: number) => void;
    const inflight = new Promise<number>((resolve) => (answered = resolve));
    const req = http.request(`${api}/shells`, { method: 'POST', headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (res) => {
      res.resume();
      answered(res.statusCode ?? 0);
    });
    req.on('error', () => answered(-1));
    req.write(body.slice(0, 20));
    await new Promise((resolve) => setTimeout(resolve, 200));
    const exited = stop(first, 'SIGTERM');
    await new Promise((resolve) => setTimeout(resolve, 300));
    req.end(body.slice(20));
    expect(await inflight).toBe(201);
    const stoppedAt = Date.now();
    expect(await exited).toBe(0);
    // Keep-alive connections are closed with the last response, not left to time out.
    expect(Date.now() - stoppedAt).toBeLessThan(3_000);
    expect(first.lines().some((l) => l.msg === 'stopped')).toBe(true);

    const second = await startProcess();
    try {
      const got = await fetch(`${second.url}/tenants/default/api/v3.0/shells/${b64('urn:process:1')}`);
      expect(got.status).toBe(200);
      expect((await json(got)).id).toBe('urn:process:1');
      expect((await fetch(`${second.url}/tenants/default/api/v3.0/shells/${b64('urn:process:inflight')}`)).status).toBe(200);
      // Not a first start: nothing is bootstrapped or migrated again.
      expect(second.lines().some((l) => l.msg === 'first start: created the default organization and tenant')).toBe(false);
    } finally {
      expect(await stop(second, 'SIGINT')).toBe(0);
    }
  });
});
