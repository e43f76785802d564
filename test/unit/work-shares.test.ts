import { getOperationAST, parse } from 'graphql';
import { beforeAll, describe, expect, it } from 'vitest';
import { demandsOf } from '../../src/common/operation-demands';
import { WorkShares } from '../../src/common/work-shares';
import { buildAppSchema } from '../../src/graphql/schema';

describe('shares of expensive work', () => {
  it('refuses past the caller, tenant and total limits, and gives a share back once', () => {
    const shares = new WorkShares({ perCaller: 2, perTenant: 3, total: 4 });
    const a1 = shares.enter('a', 't');
    const a2 = shares.enter('a', 't');
    expect(shares.enter('a', 't')).toBe('caller');
    expect(shares.enter('a', 'u')).toBe('caller');
    const b1 = shares.enter('b', 't');
    expect(shares.enter('c', 't')).toBe('tenant');
    const c1 = shares.enter('c', 'u');
    expect(shares.enter('d', 'v')).toBe('total');
    expect(shares.active).toBe(4);
    if (typeof a1 === 'string' || typeof a2 === 'string' || typeof b1 === 'string' || typeof c1 === 'string') throw new Error('refused');
    a1.release();
    a1.release();
    expect(shares.active).toBe(3);
    expect(typeof shares.enter('a', 'v')).toBe('object');
    expect(shares.enter('d', 'v')).toBe('total');
  });
});

describe('what an operation demands, told before it runs', () => {
  let schema: Awaited<ReturnType<typeof buildAppSchema>>;
  beforeAll(async () => {
    schema = await buildAppSchema();
  });
  const demands = (source: string, variables?: Record<string, unknown>) => {
    const document = parse(source);
    return demandsOf(schema, getOperationAST(document)!, document, variables);
  };

  it('names each root field\'s access rule and where its tenant comes from', () => {
    expect(demands('mutation($t: String!, $s: JSONObject!) { createShell(tenant: $t, shell: $s) { id } }')).toEqual([
      { field: 'createShell', access: 'contributor', unconditional: true, tenant: { variable: 't' }, organizationId: undefined, expensive: false },
    ]);
    expect(demands('{ shells(tenant: "x") { result { id } } }')[0]).toMatchObject({ access: 'reader', tenant: { value: 'x' }, expensive: false });
    expect(demands('mutation($o: ID!) { createTenant(organizationId: $o, input: { name: "n" }) { id } }')[0]).toMatchObject({ organizationId: { variable: 'o' } });
    // A public field has no rule.
    expect(demands('{ __typename }')).toEqual([]);
  });

  it('tells conditional fields, through fragments', () => {
    const found = demands('query($t: String!, $i: Boolean!) { ...F shells(tenant: $t) @skip(if: $i) { result { id } } } fragment F on Query { searchIndexes(tenant: $t) { name } }');
    expect(found.map((d) => [d.field, d.unconditional])).toEqual([
      ['searchIndexes', true],
      ['shells', false],
    ]);
  });

  it('counts as expensive: search, and a query argument that is given', () => {
    expect(demands('query($t: String!) { search(tenant: $t, index: "x") { pagingMetadata { cursor } } }')[0].expensive).toBe(true);
    const list = 'query($t: String!, $q: JSON) { shells(tenant: $t, query: $q) { result { id } } }';
    expect(demands(list)[0].expensive).toBe(true);
    expect(demands(list, { t: 'x', q: null })[0].expensive).toBe(false);
    expect(demands(list, { t: 'x', q: { $condition: {} } })[0].expensive).toBe(true);
    expect(demands('{ shells(tenant: "x", query: null) { result { id } } }')[0].expensive).toBe(false);
  });
});
