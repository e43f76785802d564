import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { b64, json, sampleShell } from '../support/server';
import { LOCK_FILE } from '../../src/db/data-dir-lock';
import { killAll, startServerProcess, stopServerProcess } from '../support/server-process';
import { tcpListenPorts } from '../support/tcp-listeners';
import { PATIENCE_MS } from '../support/timing';

/**
 * The no-setup path as a newcomer meets it: the server process with no DATABASE_URL runs the embedded
 * PostgreSQL with its data in DATA_DIR, creates the showcase `default` tenant on first start, logs JSON lines
 * with request ids, stops cleanly on SIGTERM/SIGINT, and keeps its data across restarts.
 */
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'asset-platform-process-'));
afterAll(() => {
  // A failed assertion must not leave a server running.
  killAll();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

const startProcess = () => startServerProcess(dataDir);
const stop = stopServerProcess;

describe('the server process on the embedded database', () => {
  it('starts with no setup, serves the showcase default tenant, logs, stops on SIGTERM and keeps its data', async () => {
    // Connections left open at shutdown are cut after SHUTDOWN_TIMEOUT_MS: a long one here, so that one left to it
    // is told apart from a loaded machine's slow exit.
    const first = await startServerProcess(dataDir, { env: () => ({ SHUTDOWN_TIMEOUT_MS: '60000' }) });
    const api = `${first.url}/tenants/default/api/v3.0`;
    const created = await fetch(`${api}/shells`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-request-id': 'trace-me-1' },
      body: JSON.stringify(sampleShell('urn:process:1')),
    });
    expect(created.status).toBe(201);
    expect(created.headers.get('x-request-id')).toBe('trace-me-1');
    expect(fs.existsSync(path.join(dataDir, 'PG_VERSION'))).toBe(true);
    // The embedded database: DATA_DIR locked by this process, served on a unix socket inside it, no TCP port but
    // the HTTP one (the database runs in a thread of the same process, so its sockets would show here too).
    expect(JSON.parse(fs.readFileSync(path.join(dataDir, LOCK_FILE), 'utf8')).pid).toBe(first.child.pid);
    const started = first.lines().find((l) => String(l.msg).startsWith('embedded PostgreSQL (PGlite) started'));
    expect(started).toMatchObject({ dataDir, socket: path.join(dataDir, 'run', '.s.PGSQL.5432'), pid: first.child.pid });
    expect(fs.statSync(path.join(dataDir, 'run')).mode & 0o777).toBe(0o700);
    if (process.platform === 'linux') expect(tcpListenPorts(first.child.pid!)).toEqual([Number(new URL(first.url).port)]);

    expect(first.lines().some((l) => String(l.msg).includes('SHOWCASE MODE') && String(l.msg).includes('Not for production'))).toBe(true);
    // The request line is written as the response goes out; give the pipe a moment.
    await vi.waitFor(() => {
      expect(first.lines().some((l) => l.msg === 'request' && l.requestId === 'trace-me-1' && l.status === 201)).toBe(true);
    }, { timeout: PATIENCE_MS, interval: 50 });
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
    expect(Date.now() - stoppedAt).toBeLessThan(30_000);
    expect(first.lines().some((l) => l.msg === 'stopped')).toBe(true);
    expect(fs.existsSync(path.join(dataDir, LOCK_FILE))).toBe(false);

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

  it('drains for SHUTDOWN_DRAIN_MS before it stops: readiness 503, requests still served, each closing its connection', async () => {
    const proc = await startServerProcess(dataDir, { env: () => ({ SHUTDOWN_DRAIN_MS: '1500' }) });
    const api = `${proc.url}/tenants/default/api/v3.0`;
    const get = (url: string) =>
      new Promise<{ status: number; connection: string | undefined }>((resolve, reject) => {
        http.get(url, { agent: new http.Agent({ keepAlive: true }) }, (res) => {
          res.resume();
          res.on('end', () => resolve({ status: res.statusCode!, connection: res.headers.connection }));
        }).on('error', reject);
      });
    expect(await get(`${api}/shells`)).toEqual({ status: 200, connection: 'keep-alive' });
    const stoppedAt = Date.now();
    const exited = stop(proc, 'SIGTERM');
    await new Promise((resolve) => setTimeout(resolve, 300));
    // A load balancer's health check takes it out; what it still sends meanwhile is answered, on a connection that closes.
    expect((await get(`${proc.url}/health/ready`)).status).toBe(503);
    expect(await get(`${api}/shells`)).toEqual({ status: 200, connection: 'close' });
    const created = await fetch(`${api}/shells`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(sampleShell('urn:process:drain')) });
    expect(created.status).toBe(201);
    expect(await exited).toBe(0);
    expect(Date.now() - stoppedAt).toBeGreaterThanOrEqual(1_500);
  });
});
