import type autocannon from 'autocannon';
import { type Backend, startHaproxy } from '../support/haproxy';
import { hasTools, skipNotice } from '../support/system-tools';
import type { Measure, Row, Target } from './run';
import { sampleShell } from './shells';

/**
 * The scale-out line: `GET /shells/{id}` cold (every replica's read cache off, READ_CACHE_SIZE=0, so each request
 * reads PostgreSQL) and `POST /shells`, through HAProxy (round robin, `mode http`) in front of 1, 2 and 3 replicas
 * on one database, as ratios to one replica without HAProxy. Needs DATABASE_URL (the embedded database serves one
 * process) and Debian's haproxy; without either it says so in a line and measures nothing.
 */

const SHELLS = 2_000;

export interface ScaleOutKit {
  /** A fresh database on the DATABASE_URL server: its env (DATABASE_URL) for the replicas, or none without one. */
  database: () => Promise<NodeJS.ProcessEnv | undefined>;
  /** Starts a replica of the built server with `env` (on a free port, stopped at the end of the run). */
  startServer: (env: NodeJS.ProcessEnv) => Promise<Target>;
  measure: Measure;
  printTable: (rows: Row[], ratio: { header: string; of: (row: Row) => string }) => void;
  rotating: (paths: string[]) => autocannon.Request;
  /** Run at the end of the run, in reverse order. */
  cleanup: (step: () => Promise<unknown>) => void;
}

export async function benchScaleOut(kit: ScaleOutKit, run: string): Promise<Row[]> {
  console.log('\nscale-out: replicas on one PostgreSQL database behind HAProxy');
  if (!process.env.DATABASE_URL) {
    console.log('  skipped: needs DATABASE_URL (a PostgreSQL server; the embedded database serves one process)');
    return [];
  }
  if (!hasTools('haproxy')) {
    console.log(`  skipped: ${skipNotice(['haproxy'])}`);
    return [];
  }
  const env = { ...(await kit.database()), READ_CACHE_SIZE: '0' };
  const apiPath = '/tenants/default/api/v3.0';
  // The first replica alone: it runs the migrations and creates the default tenant.
  const replicas = [await kit.startServer(env)];
  replicas.push(...(await Promise.all([kit.startServer(env), kit.startServer(env)])));
  const first = replicas[0];

  let next = 0;
  const post: autocannon.Request = {
    method: 'POST',
    path: `${apiPath}/shells`,
    headers: { 'content-type': 'application/json' },
    setupRequest: (req) => ({ ...req, body: JSON.stringify(sampleShell(`${run}-scaleout`, next++)) }),
  };
  const ids: string[] = [];
  for (let batch = 0; batch < SHELLS / 50; batch++) {
    await Promise.all(
      Array.from({ length: 50 }, async () => {
        const shell = sampleShell(`${run}-scaleout`, next++);
        const res = await fetch(`${first.url}${apiPath}/shells`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(shell) });
        if (res.status !== 201) throw new Error(`loading the scale-out shells: POST answered ${res.status}`);
        ids.push(shell.id as string);
      }),
    );
  }
  const byId = kit.rotating(ids.map((id) => `${apiPath}/shells/${Buffer.from(id).toString('base64url')}`));

  const rows: Row[] = [];
  const direct = { get: await kit.measure('cold GET /shells/{id}, 1 replica direct', first, byId), post: await kit.measure('POST /shells, 1 replica direct', first, post) };
  rows.push(direct.get, direct.post);
  const ratio = new Map<Row, Row>([
    [direct.get, direct.get],
    [direct.post, direct.post],
  ]);
  for (const count of [1, 2, 3]) {
    const backends: Backend[] = replicas.slice(0, count).map((replica, i) => ({ name: `r${i + 1}`, port: Number(new URL(replica.url).port) }));
    const lb = await startHaproxy(backends);
    kit.cleanup(() => lb.stop());
    await lb.waitFor();
    // The CPU column is one process's: here there are several, so it stays empty.
    const target: Target = { url: lb.url, pid: -1 };
    const get = await kit.measure(`cold GET /shells/{id}, HAProxy + ${count}`, target, byId);
    const write = await kit.measure(`POST /shells, HAProxy + ${count}`, target, post);
    ratio.set(get, direct.get).set(write, direct.post);
    rows.push(get, write);
    await lb.stop();
  }
  kit.printTable(rows, { header: 'vs 1 direct', of: (r) => (r.reqPerSec / ratio.get(r)!.reqPerSec).toFixed(3) });
  const at = (name: string) => rows.find((r) => r.name === name)!;
  console.log(
    `scale-out: cold GET by id through HAProxy with 1/2/3 replicas at ${[1, 2, 3].map((n) => (at(`cold GET /shells/{id}, HAProxy + ${n}`).reqPerSec / direct.get.reqPerSec).toFixed(2)).join('/')} of one replica direct, ` +
      `POST /shells at ${[1, 2, 3].map((n) => (at(`POST /shells, HAProxy + ${n}`).reqPerSec / direct.post.reqPerSec).toFixed(2)).join('/')} (all processes and PostgreSQL on this machine's cores)`,
  );
  return rows;
}
