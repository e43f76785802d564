import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { onCitus } from '../../src/db/citus';
import type { Meaning } from '../../src/aas/semantics/dictionary-content';
import type { TenantEntity } from '../../src/management/tenants/tenant.entity';
import { FreshDatabase, freshDatabase } from '../support/fresh-database';
import { withLaterMigrationsUndone } from '../support/migration-steps';
import { TestServer, startTestServer } from '../support/server';

/**
 * The migration that writes `semantic_neighbours` (one step of the equivalence closure) in PL/pgSQL
 * (1795856000000-SemanticNeighboursPlanned), down and up again: both versions answer the same neighbours for every
 * rule (declared sets, the isCaseOf of concept descriptions and of dictionary entries, both ways), and the equivalent
 * resolve answers the same keys and matches; after it, the function is PL/pgSQL (its plan kept per connection, not
 * made anew in every statement). In a database of its own.
 */

let server: TestServer;
let database: FreshDatabase | undefined;
let tenant: TenantEntity;
let other: TenantEntity;

beforeAll(async () => {
  database = await freshDatabase('semantic_neighbours_migration');
  server = await startTestServer(database.url);
  tenant = await server.createTenant();
  other = await server.createTenant();
}, 120_000);

afterAll(async () => {
  await server?.close();
  await database?.drop();
});

const ref = (value: string) => ({ type: 'ExternalReference', keys: [{ type: 'GlobalReference', value }] });
const meaning = (name: string): Meaning => ({ preferredName: [{ language: 'en', text: name }], shortName: [], definition: [], unit: null, unitId: null, symbol: null, dataType: null, valueList: [] });

/** Keys and the rules that lead away from them (the comments name the step). */
const KEYS = ['urn:a', 'urn:b', 'urn:c', 'urn:d', 'urn:e', 'urn:f', 'irdi:0173-1#02-AAO677', 'irdi:0173-1#02-AAB325', 'urn:none'];

describe('migration 1795856000000-SemanticNeighboursPlanned', () => {
  it('answers the same neighbours and resolutions as the SQL function it replaces, and is PL/pgSQL', async () => {
    const { conceptDescriptions, semantics } = server.services;
    await semantics.createEquivalenceSet(tenant, 'set', ['urn:a', 'urn:b', '0173-1#02-AAO677#002']);
    await conceptDescriptions.create(tenant, { modelType: 'ConceptDescription', id: 'urn:c', isCaseOf: [ref('urn:a'), ref('0173-1#02-AAB325#008')] });
    await semantics.importDictionary(tenant, 'dictionary', 'aas-json', [
      { conceptId: 'urn:d', meaning: meaning('D'), isCaseOf: ['urn:c'] },
      { conceptId: 'urn:e', meaning: meaning('E'), isCaseOf: [] },
    ]);
    // Another tenant's declarations never count.
    await semantics.createEquivalenceSet(other, 'set', ['urn:a', 'urn:f']);

    const neighbours = async () => {
      const answer: Record<string, string[]> = {};
      for (const key of KEYS) {
        const rows: { key: string }[] = await server.dataSource.query('SELECT n AS key FROM semantic_neighbours($1, $2) AS n', [tenant.id, key]);
        answer[key] = rows.map((r) => r.key).sort();
      }
      return answer;
    };
    const resolutions = async () =>
      (await semantics.resolveMany(tenant, ['urn:a', 'urn:d', '0173-1#02-AAO677#001', 'urn:f'], 'equivalent')).map((r) => ({
        keys: r.equivalentKeys,
        cds: r.conceptDescriptions.map((cd) => cd.id),
        entries: r.entries.map((e) => e.conceptId),
      }));
    const language = async (): Promise<string> =>
      (await server.dataSource.query(`SELECT l.lanname FROM pg_proc p JOIN pg_language l ON l.oid = p.prolang WHERE p.proname = 'semantic_neighbours'`))[0].lanname;

    const after = { neighbours: await neighbours(), resolutions: await resolutions() };
    expect(await language()).toBe('plpgsql');
    expect(after.neighbours).toEqual({
      'urn:a': ['irdi:0173-1#02-AAO677', 'urn:a', 'urn:b', 'urn:c'],
      'urn:b': ['irdi:0173-1#02-AAO677', 'urn:a', 'urn:b'],
      'urn:c': ['irdi:0173-1#02-AAB325', 'urn:a', 'urn:d'],
      'urn:d': ['urn:c'],
      'urn:e': [],
      'urn:f': [],
      'irdi:0173-1#02-AAO677': ['irdi:0173-1#02-AAO677', 'urn:a', 'urn:b'],
      'irdi:0173-1#02-AAB325': ['urn:c'],
      'urn:none': [],
    });
    expect(after.resolutions[0]).toEqual({ keys: ['urn:a', 'irdi:0173-1#02-AAO677', 'urn:b', 'urn:c', 'irdi:0173-1#02-AAB325', 'urn:d'], cds: ['urn:c'], entries: ['urn:d'] });
    expect(after.resolutions[3]).toEqual({ keys: ['urn:f'], cds: [], entries: [] });

    let before: typeof after | undefined;
    const undone = await withLaterMigrationsUndone(server.dataSource, 'SemanticSearchAndClosure1795840000000', async () => {
      expect(await language()).toBe('sql');
      before = { neighbours: await neighbours(), resolutions: await resolutions() };
    });
    expect(undone).toContain('SemanticNeighboursPlanned1795856000000');
    expect(before).toEqual(after);
    expect(await language()).toBe('plpgsql');
    expect({ neighbours: await neighbours(), resolutions: await resolutions() }).toEqual(after);
  });

  it('plans semantic_neighbours once per connection (a generic plan) after 1795859000000-SemanticNeighboursGenericPlan, with the same answers', async () => {
    // (On Citus the function also carries its own setting: docs/scale-out.md.)
    const config = async (): Promise<string[]> =>
      ((await server.dataSource.query(`SELECT p.proconfig FROM pg_proc p WHERE p.proname = 'semantic_neighbours'`))[0].proconfig ?? []).filter((c: string) => !c.startsWith('citus.'));
    const resolutions = async () => (await server.services.semantics.resolveMany(tenant, ['urn:a', 'urn:d', 'urn:none'], 'equivalent')).map((r) => r.equivalentKeys);
    // Not on Citus, which makes no distributed plan of a generic one: there the function is planned per call.
    const forced = (await onCitus(server.dataSource)) ? [] : ['plan_cache_mode=force_generic_plan'];
    expect(await config()).toEqual(forced);
    const after = await resolutions();
    let before: string[][] | undefined;
    const undone = await withLaterMigrationsUndone(server.dataSource, 'SemanticNeighboursPlanned1795856000000', async () => {
      expect(await config()).toEqual([]);
      before = await resolutions();
    });
    // Newest first: the later migrations, then these two.
    expect(undone.slice(-2)).toEqual(['SemanticNeighboursGenericPlan1795859000000', 'SemanticNeighboursOnCitus1795858000000']);
    expect(before).toEqual(after);
    expect(await config()).toEqual(forced);
  });
});
