import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KeysLeadWithTenant1795776275594 } from '../../migrations/1795776275594-KeysLeadWithTenant';
import type { TenantEntity } from '../../src/management/tenants/tenant.entity';
import { enc, sendFile } from '../support/file-suite';
import { FreshDatabase, freshDatabase } from '../support/fresh-database';
import { withLaterMigrationsUndone } from '../support/migration-steps';
import { newOrganization, type ManagementClient } from '../support/management';
import { TestServer, b64, json, startTestServer } from '../support/server';

/**
 * The migration that leads every tenant-owned key with `tenant_id` (1795776275594-KeysLeadWithTenant), down and up
 * again over data stored before it: file contents (whose chunks gain their file's tenant), registry descriptors and
 * asset links of an explicit instance, submodels with element rows. Everything reads the same afterwards, and the
 * element rows go with their submodel by the foreign key that replaced the trigger. In a database of its own.
 */

let server: TestServer;
let database: FreshDatabase | undefined;
let owner: ManagementClient;
let organizationId: string;
let tenant: TenantEntity;

beforeAll(async () => {
  database = await freshDatabase('keys_migration');
  server = await startTestServer(database.url);
  const made = await newOrganization(server);
  owner = made.owner;
  organizationId = made.organization.id;
  tenant = await server.services.tenants.create({ organizationId, name: `keys-${Date.now().toString(36)}`, showcase: true });
}, 120_000);

afterAll(async () => {
  await server?.close();
  await database?.drop();
});

const property = (idShort: string, value: string) => ({ modelType: 'Property', idShort, valueType: 'xs:string', value });

describe('migration 1795776275594-KeysLeadWithTenant', () => {
  it('keeps files, descriptors, asset links and element rows stored before it, and element rows go with their submodel after it', async () => {
    const api = server.api(tenant.name);
    const sphere = `${server.url}/tenants/${tenant.name}/sphere/api/v1.0`;
    const contents = Buffer.alloc(600 * 1024, 7); // three chunks
    const uploaded = await sendFile(`${sphere}/files`, contents, { name: 'big.bin', type: 'application/octet-stream' });
    expect(uploaded.status, await uploaded.clone().text()).toBe(201);
    const file = `${sphere}/files/${enc((await json(uploaded)).tfp)}`;

    for (const input of [{ name: 'reg', kind: 'aas-registry' }, { name: 'disco', kind: 'discovery' }]) {
      expect((await owner.call('POST', `/organizations/${organizationId}/tenants/${tenant.id}/registry-instances`, input)).status).toBe(201);
    }
    const reg = `${server.url}/tenants/${tenant.name}/reg/api/v3.0`;
    const disco = `${server.url}/tenants/${tenant.name}/disco/api/v3.0`;
    const descriptor = { id: 'urn:keys:desc', idShort: 'Motor', assetKind: 'Instance', globalAssetId: 'urn:keys:asset' };
    expect((await fetch(`${reg}/shell-descriptors`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(descriptor) })).status).toBe(201);
    const links = [{ name: 'serial', value: 'K-1' }];
    expect((await fetch(`${disco}/lookup/shells/${b64('urn:keys:linked')}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(links) })).status).toBe(201);

    const submodel = (id: string) => ({
      modelType: 'Submodel',
      id,
      submodelElements: [property('P', '1'), { modelType: 'SubmodelElementCollection', idShort: 'C', value: [property('Q', 'q')] }],
    });
    for (const id of ['urn:keys:sm:kept', 'urn:keys:sm:gone']) {
      expect((await fetch(`${api}/submodels`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(submodel(id)) })).status).toBe(201);
    }

    const reads = async () => ({
      file: Buffer.from(await (await fetch(file)).arrayBuffer()),
      descriptor: await json(fetch(`${reg}/shell-descriptors/${b64(descriptor.id)}`)),
      links: await json(fetch(`${disco}/lookup/shells/${b64('urn:keys:linked')}`)),
      submodel: await json(fetch(`${api}/submodels/${b64('urn:keys:sm:kept')}`)),
    });
    const before = await reads();
    expect(before.file.equals(contents)).toBe(true);

    const migration = new KeysLeadWithTenant1795776275594();
    await withLaterMigrationsUndone(server.dataSource, migration.name, async () => {
      const runner = server.dataSource.createQueryRunner();
      try {
        await migration.down(runner);
        const columns = await runner.query(`SELECT 1 FROM information_schema.columns WHERE table_name = 'file_chunks' AND column_name = 'tenant_id'`);
        expect(columns).toEqual([]);
        await migration.up(runner);
      } finally {
        await runner.release();
      }
    });

    const chunks: { tenant_id: string; n: string }[] = await server.dataSource.query(
      'SELECT c.tenant_id, count(*) AS n FROM file_chunks c JOIN files f ON f.tenant_id = c.tenant_id AND f.id = c.file_id GROUP BY c.tenant_id',
    );
    expect(chunks).toEqual([{ tenant_id: tenant.id, n: '3' }]);
    expect(await reads()).toEqual(before);

    // The rows of a deleted submodel go with it (the foreign key's cascade), the other's stay.
    const rowsOf = async () =>
      Number((await server.dataSource.query('SELECT count(*) AS n FROM submodel_elements WHERE tenant_id = $1', [tenant.id]))[0].n);
    expect(await rowsOf()).toBe(6);
    expect((await fetch(`${api}/submodels/${b64('urn:keys:sm:gone')}`, { method: 'DELETE' })).status).toBe(204);
    expect(await rowsOf()).toBe(3);
    // And a descriptor goes with its instance.
    expect((await owner.call('DELETE', `/organizations/${organizationId}/tenants/${tenant.id}/registry-instances/${(await instanceId('reg'))}`)).status).toBe(204);
    expect(Number((await server.dataSource.query('SELECT count(*) AS n FROM shell_descriptors WHERE tenant_id = $1', [tenant.id]))[0].n)).toBe(0);
  });
});

async function instanceId(name: string): Promise<string> {
  const [row] = await server.dataSource.query('SELECT id FROM registry_instances WHERE tenant_id = $1 AND name = $2', [tenant.id, name]);
  return row.id as string;
}
