import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { QueryTarget } from '../../src/aas/query/ast';
import { parseQuery } from '../../src/aas/query/parse';
import { toSql } from '../../src/aas/query/sql';
import { AppError } from '../../src/graphql/errors';
import type { TenantEntity } from '../../src/management/tenants/tenant.entity';
import { ALL_CDS, ALL_SHELLS, ALL_SUBMODELS, CONCEPT_DESCRIPTIONS, CORPUS, REFUSED, SHELLS, SUBMODELS } from '../support/query-corpus';
import { cond, createDataSet, runQuery, sorted } from '../support/query-json';
import { TestServer, startTestServer } from '../support/server';

/**
 * The query corpus (test/support/query-corpus.ts): every query runs through parseQuery + toSql against the
 * database over a fresh tenant's data set, created through the services; the answer must be exactly the id set
 * written down by hand. Cases with a known failure (a specification disagreement or a bug) are `it.fails`: the
 * implementation answers otherwise today.
 */

let server: TestServer;
let tenant: TenantEntity;
let other: TenantEntity;
const DATA_SET = { shells: SHELLS, submodels: SUBMODELS, conceptDescriptions: CONCEPT_DESCRIPTIONS };

beforeAll(async () => {
  server = await startTestServer(inject('databaseUrl'));
  tenant = await server.createTenant();
  other = await server.createTenant();
  await createDataSet(server, tenant, DATA_SET);
  // Another tenant with the same data: none of it may show up in the first tenant's answers.
  await createDataSet(server, other, DATA_SET);
});
afterAll(() => server?.close());

const run = (target: QueryTarget, query: unknown, tenantId = tenant.id) => runQuery(server.dataSource, tenantId, target, query);

const cases = Object.values(CORPUS).flat();

describe('AAS Query Language corpus', () => {
  it('has at least 60 queries', () => expect(cases.length).toBeGreaterThanOrEqual(60));

  it('the data set is all there, and only this tenant\'s', async () => {
    expect(await run('shells', cond({ $boolean: true }))).toEqual(sorted(ALL_SHELLS));
    expect(await run('submodels', cond({ $boolean: true }))).toEqual(sorted(ALL_SUBMODELS));
    expect(await run('conceptDescriptions', cond({ $boolean: true }))).toEqual(sorted(ALL_CDS));
    // The same ids live in the other tenant; a query sees one tenant's rows, once each.
    expect(await run('shells', cond({ $eq: [{ $field: '$aas#idShort' }, { $strVal: 'beta' }] }), other.id)).toEqual(['urn:c:shell:a2']);
  });

  for (const [group, list] of Object.entries(CORPUS)) {
    describe(group, () => {
      for (const c of list) {
        const test = c.knownFailure ? it.fails : it;
        test(`${c.target}: ${c.name}${c.knownFailure ? ` [known failure: ${c.knownFailure}]` : ''}`, async () => {
          expect(await run(c.target, c.query)).toEqual(sorted(c.expected));
        });
      }
    });
  }

  it('$select id is parsed', () => {
    const withSelect = cases.find((c) => (c.query as { $select?: string }).$select);
    expect(parseQuery(withSelect?.query).select).toBe('id');
    expect(parseQuery(cond({ $boolean: true })).select).toBeUndefined();
  });

  describe('refused queries answer 400 with a message', () => {
    for (const [name, query] of REFUSED) {
      it(name, () => {
        let error: unknown;
        try {
          toSql(parseQuery(query), 'shells');
        } catch (e) {
          error = e;
        }
        expect(error).toBeInstanceOf(AppError);
        expect((error as AppError).extensions.code).toBe('BAD_REQUEST');
        expect((error as AppError).message).toMatch(/^Invalid query/);
      });
    }
  });
});
