import type autocannon from 'autocannon';
import { type Backend, startHaproxy } from '../support/haproxy';
import { hasTools, skipNotice } from '../support/system-tools';
import type { Measure, Row, Target } from './run';
import { sampleShell } from './shells';

/**
 * The scale-out line: `GET /shells/{id}` cold (every replica's read cache off, READ_CACHE_SIZE=0, so each request
 * reads PostgreSQL) and `POST /shells`, through HAProxy (round robin, `mode http`) in front of 1, 2 and 3 replicas
 * on one database, as ratios to one replica without HAProxy. Needs DATABASE_URL (the embedded database serves one
 * process) and Debian's haproxy; without either it says so in a line and measures nothing. Every process (HAProxy,
 * the replicas, PostgreSQL, autocannon) shares this machine's cores: on two cores the line shows what the extra hop
 * costs, not what more hosts would gain (docs/benchmarks.md).
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
  /** Waits until the server of `pid` and the database of `databaseUrl` are idle (what a row left in flight is done). */
  settle: (pid: number, databaseUrl: string | undefined) => Promise<void>;
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
  const env: NodeJS.ProcessEnv = { ...(await kit.database()), READ_CACHE_SIZE: '0' };
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
  // Each row starts on an idle database and idle replicas (a write row leaves autovacuum and events behind).
  const settle = () => Promise.all(replicas.map((replica) => kit.settle(replica.pid, env.DATABASE_URL)));
  const measure: Measure = async (...args) => {
    await settle();
    return kit.measure(...args);
  };

  // One replica without HAProxy before and after the others; the ratios are against the mean of both.
  const directRows = async (when: string) => ({
    get: await measure(`cold GET /shells/{id}, 1 replica direct${when}`, first, byId),
    post: await measure(`POST /shells, 1 replica direct${when}`, first, post),
  });
  const before = await directRows('');
  const rows: Row[] = [before.get, before.post];
  const through: Row[] = [];
  for (const count of [1, 2, 3]) {
    const backends: Backend[] = replicas.slice(0, count).map((replica, i) => ({ name: `r${i + 1}`, port: Number(new URL(replica.url).port) }));
    const lb = await startHaproxy(backends);
    kit.cleanup(() => lb.stop());
    await lb.waitFor();
    // The CPU column is one process's: here there are several, so it stays empty.
    const target: Target = { url: lb.url, pid: -1 };
    through.push(await measure(`cold GET /shells/{id}, HAProxy + ${count}`, target, byId), await measure(`POST /shells, HAProxy + ${count}`, target, post));
    await lb.stop();
  }
  const after = await directRows(', again');
  rows.push(...through, after.get, after.post);
  const direct = { get: (before.get.reqPerSec + after.get.reqPerSec) / 2, post: (before.post.reqPerSec + after.post.reqPerSec) / 2 };
  const base = (r: Row) => (r.name.startsWith('POST') ? direct.post : direct.get);
  kit.printTable(rows, { header: 'vs 1 direct', of: (r) => (r.reqPerSec / base(r)).toFixed(3) });
  const at = (name: string) => rows.find((r) => r.name === name)!;
  console.log(
    `scale-out: cold GET by id through HAProxy with 1/2/3 replicas at ${[1, 2, 3].map((n) => (at(`cold GET /shells/{id}, HAProxy + ${n}`).reqPerSec / direct.get).toFixed(2)).join('/')} of one replica direct, ` +
      `POST /shells at ${[1, 2, 3].map((n) => (at(`POST /shells, HAProxy + ${n}`).reqPerSec / direct.post).toFixed(2)).join('/')} (all processes and PostgreSQL on this machine's cores)`,
  );
  return rows;
}
