import pino from 'pino';
import { DataSource } from 'typeorm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { JsonObject } from '../../src/aas/model/parse';
import { Db, insertRows, readSubtree } from '../../src/aas/store/element-rows-sql';
import { splitSubmodel } from '../../src/aas/submodels/element-rows';
import { createDataSource, runMigrations } from '../../src/db/data-source';
import { StatisticsUpkeep } from '../../src/db/statistics';
import { ClientGoneError, whileClientHere } from '../../src/common/client-gone';
import { FreshDatabase, freshDatabase } from '../support/fresh-database';
import { TestServer, sampleShell, startTestServer } from '../support/server';

/**
 * Reading one element of a large submodel right after it was written, before the table has any planner statistics
 * (a fresh database: no ANALYZE has run, on either database): the plan reads the element's rows and those above
 * it, never every row of the submodel. Checked on the plan PostgreSQL runs (EXPLAIN ANALYZE), not on timings.
 */

let db: FreshDatabase;
let dataSource: DataSource;
let tenant: string;

beforeAll(async () => {
  db = await freshDatabase('plans');
  dataSource = createDataSource(db.url, 2);
  await dataSource.initialize();
  await runMigrations(dataSource);
  const [{ id: org }] = await dataSource.query(`INSERT INTO organizations (name) VALUES ('plans') RETURNING id`);
  [{ id: tenant }] = await dataSource.query(`INSERT INTO tenants (organization_id, name) VALUES ($1, 'plans') RETURNING id`, [org]);
});
afterAll(async () => {
  await dataSource?.destroy();
  await db?.drop();
});

/** 100 collections of 99 Properties and a collection of one: 10,100 elements; `name` makes the idShorts. */
function largeSubmodel(name: (kind: 'c' | 'p', i: number) => string): JsonObject {
  const prop = (i: number) => ({ modelType: 'Property', idShort: name('p', i), valueType: 'xs:string', value: `v${i}` });
  const collection = (idShort: string, value: JsonObject[]) => ({ modelType: 'SubmodelElementCollection', idShort, value });
  return {
    modelType: 'Submodel',
    id: `urn:plans:${name('c', 0)}`,
    submodelElements: Array.from({ length: 100 }, (_, c) =>
      collection(name('c', c), [...Array.from({ length: 99 }, (_, p) => prop(p)), collection('Sub', [prop(7)])]),
    ),
  };
}

/** Writes the head of `doc` and its element rows as a new submodel, in one transaction, as the store does; its seq. */
async function write(doc: JsonObject): Promise<string> {
  return dataSource.transaction(async (manager) => {
    const { head, rows } = splitSubmodel(doc);
    const [{ seq }]: { seq: string }[] = await manager.query(
      `INSERT INTO submodels (tenant_id, id, kind, doc) VALUES ($1, $2, 'Instance', $3::jsonb) RETURNING seq`,
      [tenant, doc.id, JSON.stringify(head)],
    );
    await insertRows(manager, tenant, seq, rows);
    return String(seq);
  });
}

type PlanNode = Record<string, unknown> & { Plans?: PlanNode[] };

/** The rows of `submodel_elements` the statement's scans read, returned or filtered out, over all loops. */
function rowsRead(node: PlanNode): number {
  const loops = Number(node['Actual Loops'] ?? 1);
  const own =
    node['Relation Name'] === 'submodel_elements'
      ? (Number(node['Actual Rows'] ?? 0) + Number(node['Rows Removed by Filter'] ?? 0) + Number(node['Rows Removed by Index Recheck'] ?? 0)) * loops
      : 0;
  const joinFiltered = Number(node['Rows Removed by Join Filter'] ?? 0) * loops;
  return own + joinFiltered + (node.Plans ?? []).reduce((sum, child) => sum + rowsRead(child), 0);
}

/** Runs `readSubtree` of `path` in submodel `seq`, and EXPLAIN ANALYZE of the statement it ran. */
async function explainRead(seq: string, path: string): Promise<{ read: number; found: number; types: string[]; jit: boolean }> {
  const pool = { query: (sql: string, params: unknown[]) => dataSource.query(sql, params) };
  let statement: [string, unknown[]] | undefined;
  const capturing: Db = { query: (sql, params) => ((statement = [sql, params]), pool.query(sql, params)) };
  const { rows, types } = await readSubtree(capturing, tenant, seq, path);
  const [[{ 'QUERY PLAN': plan }]] = [await dataSource.query(`EXPLAIN (ANALYZE, FORMAT JSON) ${statement![0]}`, statement![1])];
  const [explained] = typeof plan === 'string' ? JSON.parse(plan) : plan;
  return { read: rowsRead(explained.Plan as PlanNode), found: rows.length, types, jit: 'JIT' in explained };
}

describe('planner statistics and element reads', () => {
  it('one element of a large submodel is read by index before any ANALYZE', async () => {
    const seq = await write(largeSubmodel((kind, i) => `${kind.toUpperCase()}${i}`));
    // The element, its one descendant, the two elements above it; and the descendants of a collection.
    const deep = await explainRead(seq, 'C42.Sub.P7');
    expect(deep).toMatchObject({ found: 1, types: ['SubmodelElementCollection', 'SubmodelElementCollection', 'Property'] });
    expect(deep.read).toBeLessThan(20);
    const collection = await explainRead(seq, 'C42.Sub');
    expect(collection.found).toBe(2);
    expect(collection.read).toBeLessThan(20);
  });

  it('a large write is analyzed soon after it commits, so an element is found by its path even where paths are long', async () => {
    const upkeep = new StatisticsUpkeep(dataSource, pino({ level: 'silent' }), { delayMs: 0, minIntervalMs: 0 });
    try {
      // Long idShorts make the path index larger than the primary key: without statistics, PostgreSQL takes the
      // smaller index for the path lookup and filters every row of the submodel.
      const long = (kind: 'c' | 'p', i: number) => `${kind === 'c' ? 'OperatingConditionsOfTheUnit' : 'MeasuredValueOfTheRunningProcess'}_${'x'.repeat(60)}_${i}`;
      const seq = await write(largeSubmodel(long));
      await upkeep.settled();
      const found = await explainRead(seq, `${long('c', 42)}.${long('p', 7)}`);
      expect(found.found).toBe(1);
      expect(found.read).toBeLessThan(20);
      // With statistics, the estimates stay those of a few rows: no JIT compilation (PostgreSQL servers built with it).
      expect(found.jit).toBe(false);
    } finally {
      await upkeep.stop();
    }
  });

  it("an ANALYZE armed by a request's write runs when that request's client has gone", async () => {
    const warnings: string[] = [];
    const log = pino({ level: 'warn' }, { write: (line: string) => void warnings.push(line) });
    const upkeep = new StatisticsUpkeep(dataSource, log, { minRows: 1, delayMs: 50, minIntervalMs: 0 });
    const analyzed = async () => Number((await dataSource.query(`SELECT analyze_count AS n FROM pg_stat_user_tables WHERE relname = 'submodels'`))[0].n);
    try {
      const before = await analyzed();
      const client = new AbortController();
      whileClientHere(client.signal, () => upkeep.written(undefined, 'submodels', 1));
      // The request's client goes before the quiet time is over (its statements are cancelled from then on).
      client.abort(new ClientGoneError());
      const deadline = Date.now() + 10_000;
      while ((await analyzed()) === before && !warnings.length && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
      expect(warnings).toEqual([]);
      expect(await analyzed()).toBeGreaterThan(before);
    } finally {
      await upkeep.stop();
    }
  });

  it('a steady stream of writes is analyzed while it lasts: the quiet time is put off for maxDelayMs at most', async () => {
    const upkeep = new StatisticsUpkeep(dataSource, pino({ level: 'silent' }), { minRows: 1, delayMs: 300, maxDelayMs: 600, minIntervalMs: 0 });
    const analyzed = async () => Number((await dataSource.query(`SELECT analyze_count AS n FROM pg_stat_user_tables WHERE relname = 'shells'`))[0].n);
    try {
      const before = await analyzed();
      // A write every 50 ms for 3 s: never 300 ms of quiet.
      for (let i = 0; i < 60; i++) {
        upkeep.written(undefined, 'shells', 1);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(await analyzed()).toBeGreaterThan(before);
    } finally {
      await upkeep.stop();
    }
  });

  it('a rolled back write does not count towards an ANALYZE', async () => {
    const upkeep = new StatisticsUpkeep(dataSource, pino({ level: 'silent' }), { delayMs: 0, minIntervalMs: 0 });
    const query = vi.spyOn(dataSource, 'query');
    try {
      await dataSource
        .transaction(async (manager) => {
          await insertRows(manager, tenant, '3', splitSubmodel(largeSubmodel((kind, i) => `${kind}${i}`)).rows);
          throw new Error('rolled back');
        })
        .catch(() => undefined);
      await upkeep.settled();
      expect(query.mock.calls.filter(([sql]) => /^ANALYZE/.test(sql))).toEqual([]);
    } finally {
      query.mockRestore();
      await upkeep.stop();
    }
  });
});

describe('the tables of identifiables, analyzed after many creates', () => {
  let fresh: FreshDatabase;
  let server: TestServer;

  beforeAll(async () => {
    fresh = await freshDatabase('created');
    server = await startTestServer(fresh.url);
  }, 60_000);
  afterAll(async () => {
    await server?.close();
    await fresh?.drop();
  });

  it('new submodels and shells count towards an ANALYZE of their own tables, not only of the element rows', async () => {
    // Until submodels has statistics, the foreign-key check of each new element row reads every submodel of the
    // tenant (an index on tenant_id and the id's prefix looks as cheap as the primary key to a planner that knows
    // nothing). Here a create counts as a row, and three are enough.
    const upkeep = new StatisticsUpkeep(server.dataSource, pino({ level: 'silent' }), { minRows: 3, delayMs: 0, minIntervalMs: 0 });
    const analyzed = async (table: string) => Number((await server.dataSource.query(`SELECT analyze_count AS n FROM pg_stat_user_tables WHERE relname = $1`, [table]))[0].n);
    try {
      const tenant = await server.createTenant();
      const api = server.api(tenant.name);
      const before = { submodels: await analyzed('submodels'), shells: await analyzed('shells') };
      for (let i = 0; i < 3; i++) {
        const post = (path: string, body: unknown) => fetch(`${api}/${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
        expect((await post('submodels', { modelType: 'Submodel', id: `urn:created:sm:${i}` })).status).toBe(201);
        expect((await post('shells', sampleShell(`urn:created:shell:${i}`))).status).toBe(201);
      }
      await upkeep.settled();
      expect(await analyzed('submodels')).toBeGreaterThan(before.submodels);
      expect(await analyzed('shells')).toBeGreaterThan(before.shells);
    } finally {
      await upkeep.stop();
    }
  });
});
