import type autocannon from 'autocannon';
import type { Row, Target } from './run';

/**
 * The AAS API V3.1 beside V3.0 (issue: "V3.1 routes cost no more than their V3.0 twins"): the same reads through
 * `/api/v3.0` and `/api/v3.1` of the same shells, measured one after the other in the same run, and the ratio of each
 * V3.1 line to its V3.0 twin (goal: >= 0.95). The shells are V3.0 content, so neither version maps anything: what is
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

export async function benchVersions(ctx: VersionsContext): Promise<{ rows: Row[]; lines: string[] }> {
  const v31 = (path: string) => path.replace('/api/v3.0/', '/api/v3.1/');
  const pairs: [Row, Row][] = [];
  const list = `${ctx.apiPath}/shells?limit=100`;
  for (const [name, v30Request, v31Request] of [
    ['GET /shells/{id}', ctx.rotating(ctx.byIdPaths), ctx.rotating(ctx.byIdPaths.map(v31))],
    ['GET /shells?limit=100', { method: 'GET', path: list }, { method: 'GET', path: v31(list) }],
  ] as [string, autocannon.Request, autocannon.Request][]) {
    const old = await ctx.measure(`${name} (v3.0)`, ctx.server, v30Request);
    const current = await ctx.measure(`${name} (v3.1)`, ctx.server, v31Request);
    pairs.push([old, current]);
  }
  const rows = pairs.flat();
  console.log('\nAAS API V3.1 beside V3.0 (the same shells):');
  ctx.printTable(rows, {
    header: 'vs v3.0',
    of: (r) => {
      const pair = pairs.find(([, current]) => current === r);
      return pair ? (r.reqPerSec / pair[0].reqPerSec).toFixed(3) : '';
    },
  });
  // Beside the throughput, the server's CPU per request of each twin (v3.0 over v3.1: above 1 when V3.1 costs less),
  // which a busy machine disturbs less than req/s measured one after the other.
  const lines = pairs.map(([old, current]) => {
    const ratio = current.reqPerSec / old.reqPerSec;
    const cpu = Number.isFinite(old.cpuUs) && Number.isFinite(current.cpuUs) ? `; CPU µs/req v3.0/v3.1 ${(old.cpuUs / current.cpuUs).toFixed(3)}` : '';
    return `goal ${current.name} >= 0.95 of ${old.name}: ${ratio.toFixed(3)} ${ratio >= 0.95 ? 'PASS' : 'FAIL'}${cpu}`;
  });
  for (const line of lines) console.log(line);
  return { rows, lines };
}
