import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { ICruiseResult, IFlattenedRuleSet } from 'dependency-cruiser';

/**
 * The import graph of src/ and rest-facade/, type-only imports included (a reader follows them too), computed by
 * dependency-cruiser. A room is a top-level folder of src/ (auth, graphql, management, aas, ...) or rest-facade/;
 * docs/architecture.md draws them and says which may import which.
 */
const ROOT = path.resolve(__dirname, '../..');

const RULES: IFlattenedRuleSet = {
  forbidden: [
    { name: 'no-cycle', severity: 'error', from: {}, to: { circular: true } },
    {
      // The identity service is built on the management services (accounts), handed them in server.ts; the other way
      // round would tie every service to oidc-provider. Resolvers read the GraphQL context, which names it.
      name: 'management-without-identity-service',
      severity: 'error',
      from: { path: '^src/management/', pathNot: '\\.resolver\\.ts$' },
      to: { path: '^src/auth/identity/', reachable: true },
    },
    {
      // Services are called by resolvers, never the other way round: the GraphQL context names every service.
      name: 'services-without-graphql-context',
      severity: 'error',
      from: { path: '\\.service\\.ts$' },
      to: { path: '^src/graphql/(context|schema)\\.ts$' },
    },
    {
      // The façade speaks GraphQL as any client would: of src/ it knows the context, the error codes and common/.
      name: 'facade-speaks-graphql',
      severity: 'error',
      from: { path: '^rest-facade/' },
      to: { path: '^src/', pathNot: '^src/(common/|graphql/(context|errors)\\.ts$)' },
    },
    {
      // The admin console runs in the browser: it speaks to the server over HTTP only, and the server never loads it.
      name: 'admin-ui-stands-alone',
      severity: 'error',
      from: { path: '^src/admin-ui/' },
      to: { path: '^(src/|rest-facade/)', pathNot: '^src/admin-ui/' },
    },
    {
      name: 'nothing-imports-admin-ui',
      severity: 'error',
      from: { path: '^(src/|rest-facade/)', pathNot: '^src/admin-ui/' },
      to: { path: '^src/admin-ui/' },
    },
    {
      name: 'common-imports-no-room',
      severity: 'error',
      from: { path: '^src/common/' },
      to: { path: '^(src/(auth|graphql|management|aas|files|events|push|db)/|rest-facade/)' },
    },
  ],
};

/** The room of a module: `src/auth/policy.ts` → `auth`, `rest-facade/route.ts` → `rest-facade`, `src/main.ts` → `src`. */
function roomOf(source: string): string {
  const parts = source.split('/');
  if (parts[0] !== 'src') return parts[0];
  return parts.length > 2 ? parts[1] : 'src';
}

let result: ICruiseResult;

beforeAll(async () => {
  // dependency-cruiser is an ES module; this file compiles to CommonJS.
  const { cruise } = await import('dependency-cruiser');
  const previous = process.cwd();
  process.chdir(ROOT); // module names come out relative to the working directory
  try {
    const reporterOutput = await cruise(['src', 'rest-facade'], {
      tsPreCompilationDeps: true,
      doNotFollow: { path: 'node_modules' },
      validate: true,
      ruleSet: RULES,
    });
    result = reporterOutput.output as ICruiseResult;
  } finally {
    process.chdir(previous);
  }
});

const violationsOf = (rule: string) => result.summary.violations.filter((v) => v.rule.name === rule);
const cycles = () => violationsOf('no-cycle').map((v) => [v.from, ...(v.cycle ?? []).map((step) => step.name)]);

describe('import graph of src/ and rest-facade/', () => {
  it('is read whole: local modules resolve, type-only imports are followed', () => {
    const local = result.modules.filter((m) => /^(src|rest-facade)\//.test(m.source));
    expect(local.length).toBeGreaterThan(200);
    const unresolved = local.flatMap((m) => m.dependencies.filter((d) => d.couldNotResolve && d.module.startsWith('.')).map((d) => `${m.source} -> ${d.module}`));
    expect(unresolved).toEqual([]);
    // `import type { RequestContext } from './request'` is an edge of the graph like any other.
    const policy = local.find((m) => m.source === 'src/auth/policy.ts');
    expect(policy?.dependencies.find((d) => d.resolved === 'src/auth/request.ts')?.dependencyTypes).toContain('type-only');
  });

  it('has no import cycle that spans rooms', () => {
    const spanning = cycles().filter((cycle) => new Set(cycle.map(roomOf)).size > 1);
    expect(spanning.map((cycle) => cycle.join(' > '))).toEqual([]);
  });

  it('has no import cycle at all', () => {
    expect(cycles().map((cycle) => cycle.join(' > '))).toEqual([]);
  });

  it('management modules, resolvers aside, do not reach the identity service, not even through another module', () => {
    expect(violationsOf('management-without-identity-service').map((v) => `${v.from} -> ${v.to}`)).toEqual([]);
  });

  it('services do not import the GraphQL context or schema', () => {
    expect(violationsOf('services-without-graphql-context').map((v) => `${v.from} -> ${v.to}`)).toEqual([]);
  });

  it('the REST façade imports of src/ only the GraphQL context, the error codes and common/', () => {
    expect(violationsOf('facade-speaks-graphql').map((v) => `${v.from} -> ${v.to}`)).toEqual([]);
  });

  it('the admin console (browser code) and the server do not import each other', () => {
    expect(result.modules.some((m) => m.source === 'src/admin-ui/main.tsx')).toBe(true);
    expect([...violationsOf('admin-ui-stands-alone'), ...violationsOf('nothing-imports-admin-ui')].map((v) => `${v.from} -> ${v.to}`)).toEqual([]);
  });

  it('common/ imports nothing of the rooms', () => {
    expect(violationsOf('common-imports-no-room').map((v) => `${v.from} -> ${v.to}`)).toEqual([]);
  });

  it('tells the room of a module', () => {
    expect(['src/auth/identity/adapter.ts', 'src/common/uuid.ts', 'rest-facade/openapi/documents.ts', 'src/main.ts'].map(roomOf)).toEqual([
      'auth',
      'common',
      'rest-facade',
      'src',
    ]);
  });
});
