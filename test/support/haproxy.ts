import { ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { freePort } from './free-port';

/** A replica behind the load balancer: its name there and its port on loopback. */
export interface Backend {
  name: string;
  port: number;
}

export interface LoadBalancer {
  url: string;
  child: ChildProcess;
  /** The state HAProxy's health checks give each backend (`UP`, `DOWN`, ...), from its stats socket. */
  states(): Promise<Record<string, string>>;
  /** Waits until HAProxy's health checks have each named backend in `state` (default: every backend `UP`). */
  waitFor(names?: string[], state?: string, ms?: number): Promise<void>;
  stop(): Promise<void>;
}

/** The response header in which HAProxy names the backend that answered. */
export const SERVED_BY = 'x-served-by';
/** A request header that pins a request to one backend (by its name), for a test that must read through each. */
export const PIN = 'x-replica';

/**
 * HAProxy (Debian's `haproxy`, started here in the foreground) on a free loopback port in front of `backends`:
 * `mode http`, `balance roundrobin`, no stickiness, health checks on `GET /health/ready`. It adds `X-Served-By`
 * (the backend's name) to every answer; a request with `X-Replica: <name>` goes to that backend (the only way to
 * choose one). A connection refused by a backend (stopped, not yet up) is tried again on another
 * (`option redispatch`); nothing else is retried, so a POST is never sent twice.
 */
export async function startHaproxy(backends: Backend[], options: { checkMs?: number } = {}): Promise<LoadBalancer> {
  const port = await freePort();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'haproxy-'));
  const socket = path.join(dir, 'stats.sock');
  const check = options.checkMs ?? 200;
  const config = [
    'global',
    `  stats socket ${socket} mode 600 level admin`,
    '  maxconn 2000',
    'defaults',
    '  mode http',
    '  timeout connect 2s',
    '  timeout client 60s',
    '  timeout server 60s',
    // A check waits this long for its answer (without it, HAProxy waits `inter`, 200 ms): a replica that is up but
    // slow to answer on a loaded machine stays in; one stopped (refused), killed or draining (503) is out within two
    // checks all the same.
    '  timeout check 5s',
    '  retries 3',
    '  option redispatch 1',
    'frontend replicas',
    `  bind 127.0.0.1:${port}`,
    '  default_backend replicas',
    'backend replicas',
    '  balance roundrobin',
    '  option httpchk GET /health/ready',
    '  http-check expect status 200',
    `  default-server inter ${check}ms fastinter ${check}ms downinter ${check}ms fall 2 rise 2`,
    `  http-response set-header ${SERVED_BY} %[srv_name]`,
    ...backends.map((b) => `  use-server ${b.name} if { req.hdr(${PIN}) -m str ${b.name} }`),
    ...backends.map((b) => `  server ${b.name} 127.0.0.1:${b.port} check`),
    '',
  ].join('\n');
  const file = path.join(dir, 'haproxy.cfg');
  fs.writeFileSync(file, config);
  const child = spawn('haproxy', ['-f', file, '-db'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (chunk) => (out += chunk));
  child.stderr!.on('data', (chunk) => (out += chunk));

  const ask = (command: string) =>
    new Promise<string>((resolve, reject) => {
      const conn = net.createConnection(socket);
      let answer = '';
      conn.on('data', (chunk) => (answer += chunk));
      conn.on('end', () => resolve(answer));
      conn.on('error', reject);
      conn.end(`${command}\n`);
    });
  const states = async () => {
    const csv = (await ask('show stat')).split('\n');
    const header = csv[0].replace(/^# /, '').split(',');
    const [px, sv, status] = ['pxname', 'svname', 'status'].map((name) => header.indexOf(name));
    return Object.fromEntries(
      csv
        .slice(1)
        .map((line) => line.split(','))
        .filter((cols) => cols[px] === 'replicas' && backends.some((b) => b.name === cols[sv]))
        .map((cols) => [cols[sv], cols[status]]),
    );
  };
  const balancer: LoadBalancer = {
    url: `http://127.0.0.1:${port}`,
    child,
    states,
    async waitFor(names = backends.map((b) => b.name), state = 'UP', ms = 60_000) {
      const deadline = Date.now() + ms;
      for (;;) {
        if (child.exitCode !== null) throw new Error(`haproxy exited with ${child.exitCode}:\n${out}`);
        const now = await states().catch(() => ({}) as Record<string, string>);
        if (names.every((name) => now[name]?.startsWith(state))) return;
        if (Date.now() > deadline) throw new Error(`haproxy: not all of ${names.join(', ')} ${state} within ${ms} ms: ${JSON.stringify(now)}\n${out}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await exited;
      }
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
  // Listening once its stats socket answers.
  const deadline = Date.now() + 10_000;
  while (!(await ask('show info').then(() => true, () => false))) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`haproxy did not start:\n${out}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return balancer;
}
