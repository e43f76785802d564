import type autocannon from 'autocannon';
import type { Row, Target } from './run';

/**
 * The AAS API V3.1 beside V3.0 (issue: "V3.1 routes cost no more than their V3.0 twins"): the same reads through
 * `/api/v3.0` and `/api/v3.1` of the same shells, measured in the same run (v3.0, v3.1, v3.1, v3.0), and the ratio of
 * the V3.1 lines to their V3.0 twins (goal: >= 0.95). The shells are V3.0 content, so neither version maps anything: what is
 * compared is the cost of the version's plumbing (routing, context, the read-time view of V3.0).
 */
export interface VersionsContext {
  server: Target;
  /** `/tenants/{tenant}/api/v3.0`. */
  apiPath: string;
  measure(name: string, target: Target, request: autocannon.Request): Promise<Row>;
  rotating(paths: string[]): autocannon.Request;
  printTable(rows: Row[], ratio: { header: string; of: (row: Row) => string }): void;
  /** GET by id paths below `apiPath` (`/shells/{id}`). */
  byIdPaths: string[];
}

/**
 * Reads every path once, 10 at a time: what the read cache keeps per version (each version is an answer of its own)
 * is then in it for both twins, so neither measures its fill. Without it the V3.1 twin, read first here, spent its
 * warm-up and part of its measurement on misses (its route, the database) that the V3.0 twin, read by the benches
 * before, did not: with 10,000 shells the 2-second warm-up reads each one about once.
 */
async function readEach(server: Target, paths: string[]): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < paths.length) {
      const res = await fetch(`${server.url}${paths[next++]}`);
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`GET ${res.url}: ${res.status}`);
    }
  };
  await Promise.all(Array.from({ length: 10 }, worker));
}

export async function benchVersions(ctx: VersionsContext): Promise<{ rows: Row[]; lines: string[] }> {
  const v31 = (path: string) => path.replace('/api/v3.0/', '/api/v3.1/');
  await readEach(ctx.server, ctx.byIdPaths);
  await readEach(ctx.server, ctx.byIdPaths.map(v31));
  const list = `${ctx.apiPath}/shells?limit=100`;
  const rows: Row[] = [];
  const lines: string[] = [];
  const mean = (a: Row, b: Row, key: 'reqPerSec' | 'cpuUs') => (a[key] + b[key]) / 2;
  for (const [name, v30Request, v31Request] of [
    ['GET /shells/{id}', () => ctx.rotating(ctx.byIdPaths), () => ctx.rotating(ctx.byIdPaths.map(v31))],
    ['GET /shells?limit=100', () => ({ method: 'GET', path: list }), () => ({ method: 'GET', path: v31(list) })],
  ] as [string, () => autocannon.Request, () => autocannon.Request][]) {
    // In the order v3.0, v3.1, v3.1, v3.0: a machine whose load drifts during the four weighs on both twins alike.
    const a = await ctx.measure(`${name} (v3.0)`, ctx.server, v30Request());
    const b = await ctx.measure(`${name} (v3.1)`, ctx.server, v31Request());
    const c = await ctx.measure(`${name} (v3.1, again)`, ctx.server, v31Request());
    const d = await ctx.measure(`${name} (v3.0, again)`, ctx.server, v30Request());
    rows.push(a, b, c, d);
    const ratio = mean(b, c, 'reqPerSec') / mean(a, d, 'reqPerSec');
    // Beside the throughput, the server's CPU per request of each twin (v3.0 over v3.1: above 1 when V3.1 costs less),
    // which a busy machine disturbs less than req/s.
    const cpu = [a, b, c, d].every((r) => Number.isFinite(r.cpuUs)) ? `; CPU µs/req v3.0/v3.1 ${(mean(a, d, 'cpuUs') / mean(b, c, 'cpuUs')).toFixed(3)}` : '';
    lines.push(`goal ${name} through v3.1 >= 0.95 of v3.0: ${ratio.toFixed(3)} ${ratio >= 0.95 ? 'PASS' : 'FAIL'}${cpu}`);
  }
  console.log('\nAAS API V3.1 beside V3.0 (the same shells):');
  ctx.printTable(rows, { header: '', of: () => '' });
  for (const line of lines) console.log(line);
  return { rows, lines };
}
