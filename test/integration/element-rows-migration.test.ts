import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ElementRows1764700000000 } from '../../migrations/1764700000000-ElementRows';
import { withLaterMigrationsUndone } from '../support/migration-steps';
import { TestServer, b64, json, startTestServer } from '../support/server';
import { expectedItems } from '../support/corpus';
import { FreshDatabase, freshDatabase } from '../support/fresh-database';

/**
 * The migration that moves submodel elements into rows (1764700000000-ElementRows), down and up again over
 * documents stored before it (the migrations after it undone first and run again after): the whole documents read the same afterwards, and the rows are what the store
 * writes. It runs in a database of its own (down and up touch every submodel): a fresh PostgreSQL database when
 * DATABASE_URL is set, else an embedded one.
 */

let server: TestServer;
let database: FreshDatabase | undefined;
let api: string;

beforeAll(async () => {
  database = await freshDatabase('element_rows');
  server = await startTestServer(database.url);
  api = server.api((await server.createTenant()).name);
}, 120_000);

afterAll(async () => {
  await server?.close();
  await database?.drop();
});

const property = (idShort: string, value: string) => ({ modelType: 'Property', idShort, valueType: 'xs:string', value });

describe('migration 1764700000000-ElementRows', () => {
  it('moves the elements of submodels stored before it into rows, and back on down', async () => {
    // Corpus submodels with elements (every element kind is among them), one per id.
    const byId = new Map(expectedItems('submodels').filter(({ item }) => Array.isArray(item.submodelElements)).map(({ item }) => [item.id as string, item]));
    const corpus = [...byId.values()];
    const docs = [
      {
        modelType: 'Submodel',
        id: 'urn:migrate:nested',
        submodelElements: [
          property('P', '1'),
          { modelType: 'SubmodelElementCollection', idShort: 'C', value: [property('Q', 'x'), { modelType: 'SubmodelElementCollection', idShort: 'Empty' }] },
          { modelType: 'SubmodelElementList', idShort: 'L', typeValueListElement: 'SubmodelElementCollection', value: [{ modelType: 'SubmodelElementCollection', value: [property('R', 'r')] }] },
          { modelType: 'Entity', idShort: 'E', entityType: 'SelfManagedEntity', globalAssetId: 'urn:a', statements: [property('S', 's')] },
        ],
      },
      ...corpus,
    ];
    for (const doc of docs) {
      const res = await fetch(`${api}/submodels`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(doc) });
      expect(res.status, `${String(doc.id)}: ${res.status === 201 ? "" : await res.text()}`).toBe(201);
    }
    const read = async () => Promise.all(docs.map((doc) => json(fetch(`${api}/submodels/${b64(doc.id as string)}`))));
    const before = await read();
    const rowCount = async () => Number((await server.dataSource.query('SELECT count(*) AS n FROM submodel_elements'))[0].n);
    const rowsBefore = await server.dataSource.query('SELECT tenant_id, submodel_seq, ord::text, path, id_short, model_type, semantic_key, v_text, v_num::text, v_time, json FROM submodel_elements ORDER BY 1, 2, ord');
    expect(rowsBefore.length).toBeGreaterThan(8);

    const migration = new ElementRows1764700000000();
    // Its down and up on the schema they were written for: the migrations after it undone first, run again after.
    const undone = await withLaterMigrationsUndone(server.dataSource, migration.name, async () => {
      const runner = server.dataSource.createQueryRunner();
      try {
        await migration.down(runner);
        // Down: the documents hold their elements again, as before the migration.
        const [nested] = await server.dataSource.query(`SELECT doc FROM submodels WHERE id = 'urn:migrate:nested'`);
        expect(nested.doc).toEqual(docs[0]);
        await migration.up(runner);
      } finally {
        await runner.release();
      }
    });
    expect(undone.length).toBeGreaterThan(0);
    // Up: the same rows the store wrote, the same documents read.
    const rowsAfter = await server.dataSource.query('SELECT tenant_id, submodel_seq, ord::text, path, id_short, model_type, semantic_key, v_text, v_num::text, v_time, json FROM submodel_elements ORDER BY 1, 2, ord');
    expect(rowsAfter).toEqual(rowsBefore);
    expect(await rowCount()).toBe(rowsBefore.length);
    expect(await read()).toEqual(before);
    const [head] = await server.dataSource.query(`SELECT doc FROM submodels WHERE id = 'urn:migrate:nested'`);
    expect(head.doc.submodelElements).toBeUndefined();
  }, 120_000);
});
