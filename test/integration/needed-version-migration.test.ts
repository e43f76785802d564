import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NeededAasVersion1795810000000 } from '../../migrations/1795810000000-NeededAasVersion';
import type { TenantEntity } from '../../src/management/tenants/tenant.entity';
import { FreshDatabase, freshDatabase } from '../support/fresh-database';
import { withLaterMigrationsUndone } from '../support/migration-steps';
import { TestServer, startTestServer } from '../support/server';

/**
 * The migration that records the version of the metamodel each identifiable needs (1795800000000-NeededAasVersion),
 * down and up again over documents stored before it: the column is filled from each document's content (a
 * submodel's from its element rows too), and no document changes. In a database of its own.
 */

let server: TestServer;
let database: FreshDatabase | undefined;
let tenant: TenantEntity;

beforeAll(async () => {
  database = await freshDatabase('needed_version_migration');
  server = await startTestServer(database.url);
  tenant = await server.createTenant();
}, 120_000);

afterAll(async () => {
  await server?.close();
  await database?.drop();
});

const property = (idShort: string) => ({ modelType: 'Property', idShort, valueType: 'xs:string', value: 'v' });

describe('migration 1795800000000-NeededAasVersion', () => {
  it('fills aas_version from the content of the documents stored before it, changing none of them', async () => {
    const { shells, submodels, conceptDescriptions } = server.services;
    await submodels.create(tenant, { modelType: 'Submodel', id: 'urn:m:v30', submodelElements: [property('Plain')] });
    // Needs V3.1 only deep in its element rows: an Entity without entityType inside a collection.
    const deep = {
      modelType: 'Submodel',
      id: 'urn:m:v31',
      submodelElements: [{ modelType: 'SubmodelElementCollection', idShort: 'C', value: [property('A'), { modelType: 'Entity', idShort: 'E' }] }],
    };
    await submodels.create(tenant, deep, { aasVersion: '3.1' });
    const role = { modelType: 'AssetAdministrationShell', id: 'urn:m:aas', assetInformation: { assetKind: 'Role', globalAssetId: 'urn:m:asset' } };
    await shells.create(tenant, role, { aasVersion: '3.1' });
    await shells.create(tenant, { ...role, id: 'urn:m:aas30', assetInformation: { assetKind: 'Instance', globalAssetId: 'urn:m:asset' } });
    await conceptDescriptions.create(tenant, { modelType: 'ConceptDescription', id: 'urn:m:cd', idShort: 'Max-Speed' }, { aasVersion: '3.1' });

    const versions = async () =>
      Object.fromEntries(
        (
          await server.dataSource.query(
            `SELECT id, aas_version FROM shells WHERE tenant_id = $1 UNION ALL SELECT id, aas_version FROM submodels WHERE tenant_id = $1
             UNION ALL SELECT id, aas_version FROM concept_descriptions WHERE tenant_id = $1`,
            [tenant.id],
          )
        ).map((row: { id: string; aas_version: string }) => [row.id, row.aas_version]),
      );
    const expected = { 'urn:m:v30': '3.0', 'urn:m:v31': '3.1', 'urn:m:aas': '3.1', 'urn:m:aas30': '3.0', 'urn:m:cd': '3.1' };
    expect(await versions()).toEqual(expected);
    const reads = async () => ({
      deep: await submodels.get(tenant, 'urn:m:v31', {}, '3.1'),
      role: await shells.get(tenant, 'urn:m:aas', '3.1'),
      cd: await conceptDescriptions.get(tenant, 'urn:m:cd', '3.1'),
    });
    const before = await reads();
    expect(before).toEqual({ deep, role, cd: { modelType: 'ConceptDescription', id: 'urn:m:cd', idShort: 'Max-Speed' } });

    const migration = new NeededAasVersion1795810000000();
    await withLaterMigrationsUndone(server.dataSource, migration.name, async () => {
      const runner = server.dataSource.createQueryRunner();
      try {
        await migration.down(runner);
        expect(await runner.query(`SELECT 1 FROM information_schema.columns WHERE table_name = 'shells' AND column_name = 'aas_version'`)).toEqual([]);
        await migration.up(runner);
      } finally {
        await runner.release();
      }
    });
    expect(await versions()).toEqual(expected);
    expect(await reads()).toEqual(before);
    // Read through V3.0 after it: mapped down as before.
    expect(((await shells.get(tenant, 'urn:m:aas')).assetInformation as { assetKind: string }).assetKind).toBe('NotApplicable');
  });
});
