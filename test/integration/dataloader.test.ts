import type { Pool, PoolClient } from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { requestSignal } from '../../src/common/client-gone';
import { readRows } from '../../src/db/read';
import { TenantEntity } from '../../src/management/tenants/tenant.entity';
import { TestServer, json, sampleShell, startTestServer } from '../support/server';

/*
 * "A page of 100 shells with their submodels costs a constant number of SQL statements, not 100+": the GraphQL
 * `Shell.submodels` field loads through a per-request DataLoader, so all the submodels of a page come in one
 * statement. This test counts every statement the server sends to PostgreSQL while one GraphQL request runs.
 *
 * Every statement of the server goes through a client of its one pg Pool (TypeORM's `driver.master`): readRows
 * calls `pool.query`, which checks a client out with `pool.connect` and calls `client.query`; TypeORM's query
 * runners check a client out with `pool.connect` too and call `client.query` on it. Wrapping `pool.connect` to
 * wrap each client's `query` therefore counts both paths, each statement once (the 'counts every path' test
 * proves it on each of them).
 */

let server: TestServer;
let tenant: TenantEntity;

/**
 * The statements sent through the server's pool while `counting` is on, and whether each was sent for a request (the
 * server's background work, such as the read cache's heartbeat on PostgreSQL, runs apart from any request).
 */
const statements: { text: string; forRequest: boolean }[] = [];
let counting = false;

function instrument(pool: Pool): void {
  const wrapped = new WeakSet<object>();
  const wrap = (client: PoolClient | undefined) => {
    if (!client || wrapped.has(client)) return;
    wrapped.add(client);
    const query = client.query;
    client.query = function (this: PoolClient, ...args: unknown[]) {
      if (counting) {
        const first = args[0] as string | { text?: string };
        statements.push({ text: typeof first === 'string' ? first : String(first?.text), forRequest: requestSignal() !== undefined });
      }
      return (query as (...a: unknown[]) => unknown).apply(this, args);
    } as PoolClient['query'];
  };
  const connect = pool.connect.bind(pool) as (cb?: (err: Error | undefined, client?: PoolClient, done?: unknown) => void) => unknown;
  (pool as { connect: unknown }).connect = (callback?: (err: Error | undefined, client?: PoolClient, done?: unknown) => void) => {
    if (callback) {
      return connect((err, client, done) => {
        wrap(client);
        callback(err, client, done);
      });
    }
    return (connect() as Promise<PoolClient>).then((client) => {
      wrap(client);
      return client;
    });
  };
}

/** The statements sent while `work` runs; with `forRequests`, only those sent for a request. */
async function statementsOf(work: () => Promise<unknown>, forRequests = false): Promise<string[]> {
  statements.length = 0;
  counting = true;
  try {
    await work();
  } finally {
    counting = false;
  }
  return statements.filter((s) => !forRequests || s.forRequest).map((s) => s.text);
}

const gql = (query: string, variables: Record<string, unknown> = {}) =>
  json(fetch(`${server.url}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query, variables }) }));

const PAGE = `query($t: String!, $limit: Int!) {
  shells(tenant: $t, limit: $limit) { result { id submodels { id idShort submodelElements { idShort } } } }
}`;

const SHELLS = 100;
const shellId = (n: number) => `urn:loader:shell:${n}`;
const submodelId = (n: number, which: 'a' | 'b') => `urn:loader:sm:${n}:${which}`;

/** Runs `work` on `items`, `width` at a time. */
async function inBatches<T>(items: T[], width: number, work: (item: T) => Promise<unknown>): Promise<void> {
  for (let i = 0; i < items.length; i += width) await Promise.all(items.slice(i, i + width).map(work));
}

beforeAll(async () => {
  server = await startTestServer(inject('databaseUrl'));
  instrument((server.dataSource.driver as unknown as { master: Pool }).master);
  tenant = await server.createTenant();
  const numbers = Array.from({ length: SHELLS }, (_, n) => n);
  // Submodel a is created before b, but every shell references b first: the order must be the references'.
  await inBatches(numbers, 10, async (n) => {
    for (const which of ['a', 'b'] as const) {
      await server.services.submodels.create(tenant, {
        modelType: 'Submodel',
        id: submodelId(n, which),
        idShort: `${which.toUpperCase()}${n}`,
        submodelElements: [
          { modelType: 'Property', idShort: `P${n}${which}`, valueType: 'xs:int', value: String(n) },
          { modelType: 'SubmodelElementCollection', idShort: 'Group', value: [{ modelType: 'Property', idShort: 'Inner', valueType: 'xs:string' }] },
        ],
      });
    }
  });
  // Created one after another, so the shells page in their numbering order.
  for (const n of numbers) {
    await server.services.shells.create(
      tenant,
      sampleShell(shellId(n), {
        submodels: (['b', 'a'] as const).map((which) => ({ type: 'ModelReference', keys: [{ type: 'Submodel', value: submodelId(n, which) }] })),
      }),
    );
  }
}, 300_000);
afterAll(() => server?.close());

/**
 * The statements of a request to count: those sent for it, without the tenant's lookup. The tenant's row is read once
 * per tenant-cache lifetime (5 s), not per request: a warm-up fills the cache, but an entry the warm-up found may run
 * out before the counted request on a loaded machine.
 */
const withoutTenantLookup = (sql: string[]) => sql.filter((s) => !/\bFROM "tenants"/.test(s));

/** The statements of one page request, after a warm-up that fills the tenant cache, without the tenant's lookup. */
async function pageStatements(limit: number) {
  await gql(PAGE, { t: tenant.name, limit: 1 });
  let body: { data?: { shells: { result: { id: string; submodels: { id: string; idShort: string; submodelElements: { idShort: string }[] }[] }[] } }; errors?: unknown };
  const sql = await statementsOf(async () => {
    body = await gql(PAGE, { t: tenant.name, limit });
  }, true);
  return { sql: withoutTenantLookup(sql), body: body! };
}

describe('DataLoader: a page of shells with their submodels', () => {
  it('counts every path a statement can take to PostgreSQL', async () => {
    // readRows: pool.query.
    expect(await statementsOf(() => readRows(server.dataSource, 'SELECT 1 AS one', []))).toEqual(['SELECT 1 AS one']);
    // TypeORM: a query runner's checked-out client, through the DataSource and through the entity manager.
    expect(await statementsOf(() => server.dataSource.query('SELECT 2 AS two'))).toEqual(['SELECT 2 AS two']);
    const found = await statementsOf(() => server.dataSource.manager.findOneBy(TenantEntity, { name: tenant.name }));
    expect(found).toHaveLength(1);
    expect(found[0]).toMatch(/FROM "tenants"/);
    // A transaction: begin, the statement, commit.
    const tx = await statementsOf(() => server.dataSource.transaction((manager) => manager.query('SELECT 3 AS three')));
    expect(tx).toHaveLength(3);
    expect(tx[1]).toBe('SELECT 3 AS three');
    // Nothing is counted outside statementsOf.
    await server.dataSource.query('SELECT 4');
    expect(statements.map((s) => s.text)).not.toContain('SELECT 4');
    // A request's statements are told from the server's background work.
    const request = await statementsOf(() => gql(PAGE, { t: tenant.name, limit: 1 }), true);
    expect(request.filter((s) => /\bFROM shells\b/.test(s))).toHaveLength(1);
    expect(await statementsOf(() => readRows(server.dataSource, 'SELECT 5 AS five', []), true)).toEqual([]);
  });

  it('loads 100 shells with their 200 submodels in a constant, small number of statements', async () => {
    const { sql, body } = await pageStatements(100);
    expect(body.errors).toBeUndefined();
    const shells = body.data!.shells.result;
    expect(shells.map((s) => s.id)).toEqual(Array.from({ length: SHELLS }, (_, n) => shellId(n)));

    // The counter saw the request's statements: one page of shells and one batch of submodels.
    expect(sql.length).toBeGreaterThan(0);
    expect(sql.filter((s) => /\bFROM shells\b/.test(s))).toHaveLength(1);
    expect(sql.filter((s) => /\bFROM submodels\b/.test(s))).toHaveLength(1);
    expect(sql.length, `statements:\n${sql.join('\n')}`).toBeLessThanOrEqual(4);
  });

  it('costs exactly as many statements for 10 shells as for 100', async () => {
    const hundred = await pageStatements(100);
    const ten = await pageStatements(10);
    expect(ten.body.data!.shells.result).toHaveLength(10);
    expect(ten.sql.length).toBeGreaterThan(0);
    expect(hundred.sql.length, `100 shells:\n${hundred.sql.join('\n')}\n10 shells:\n${ten.sql.join('\n')}`).toBe(ten.sql.length);
  });

  it('gives every shell its own two submodels, in the order of its references, with their elements', async () => {
    const { body } = await pageStatements(100);
    for (const [n, shell] of body.data!.shells.result.entries()) {
      expect(shell.submodels).toEqual([
        { id: submodelId(n, 'b'), idShort: `B${n}`, submodelElements: [{ idShort: `P${n}b` }, { idShort: 'Group' }] },
        { id: submodelId(n, 'a'), idShort: `A${n}`, submodelElements: [{ idShort: `P${n}a` }, { idShort: 'Group' }] },
      ]);
    }
  });
});

describe('DataLoader: a page of shells with their implicit descriptors', () => {
  const DESCRIPTORS = `query($t: String!, $limit: Int!) {
    shells(tenant: $t, limit: $limit) { result { id descriptor { id submodelDescriptors { id idShort } } } }
  }`;

  it('reads the submodel heads of a whole page in one statement, without their elements', async () => {
    await gql(DESCRIPTORS, { t: tenant.name, limit: 1 });
    let body: { data?: { shells: { result: { id: string; descriptor: { id: string; submodelDescriptors: { id: string; idShort: string }[] } }[] } }; errors?: unknown };
    const sql = withoutTenantLookup(
      await statementsOf(async () => {
        body = await gql(DESCRIPTORS, { t: tenant.name, limit: 100 });
      }, true),
    );
    expect(body!.errors).toBeUndefined();
    const shells = body!.data!.shells.result;
    expect(shells).toHaveLength(SHELLS);
    for (const [n, shell] of shells.entries()) {
      expect(shell.descriptor).toEqual({
        id: shellId(n),
        submodelDescriptors: [
          { id: submodelId(n, 'b'), idShort: `B${n}` },
          { id: submodelId(n, 'a'), idShort: `A${n}` },
        ],
      });
    }
    const submodelReads = sql.filter((s) => /\bFROM submodels\b/.test(s));
    expect(submodelReads).toHaveLength(1);
    // The elements stay in PostgreSQL: the document leaves it without them.
    expect(submodelReads[0]).toMatch(/doc - '\{submodelElements\}'/);
    expect(sql.length, `statements:\n${sql.join('\n')}`).toBeLessThanOrEqual(4);
  });
});
