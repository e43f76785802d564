import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { MemorySink } from '../support/memory-sink';
import { importerOf, packageWriter } from '../support/package-writer';
import { TestServer, b64, json, startTestServer } from '../support/server';
import { AASX_DIR } from '../support/testdata';
import { readPackageEnvironment } from '../../src/aas/import/aasx-import';

/**
 * AAS V3.1 packages imported: real IDTA submodel templates published for metamodel V3.1 (XML in the 3/1 namespace),
 * and a package made here with each thing V3.1 allows and V3.0 does not, as V3.1 XML and as JSON. What is stored
 * is what was written (read back as V3.1 unchanged), the warnings say what a V3.0 reader gets mapped, and the V3.0
 * REST API serves it mapped, hyphenated idShorts and a 2048-character id included; a V3.0 write keeps the V3.1
 * parts it did not touch.
 */

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer(inject('databaseUrl'));
});
afterAll(async () => {
  await server?.close();
});

const packages = packageWriter('aasx-import-v31-');

const importer = (sink = new MemorySink()) => importerOf(server, sink);

type Json = Record<string, any>;

describe('IDTA submodel templates for metamodel V3.1', () => {
  it('the Hierarchical Structures (BoM) template: entities and relationships, stored as written without a warning', async () => {
    const tenant = await server.createTenant();
    const result = await importer().importPackage(tenant, path.join(AASX_DIR, 'IDTA_02011-1-1-1_Template_HSEBoM_forAASMetamodelV3.1.aasx'));
    expect(result.warnings).toEqual([]);
    expect(result.shells).toEqual([{ id: 'https://admin-shell.io/idta/aas/HierarchicalStructuresBoM/1/1', status: 'created' }]);
    expect(result.conceptDescriptions).toHaveLength(8);
    const api = server.api(tenant.name);
    const shell = await json(fetch(`${api}/shells/${b64(result.shells[0].id)}`));
    expect(shell.assetInformation.assetKind).toBe('Type');
    const sm = await json(fetch(`${api}/submodels/${b64('https://admin-shell.io/idta/SubmodelTemplate/HierarchicalStructuresBoM/1/1')}`));
    expect(sm.idShort).toBe('HierarchicalStructures');
    const entry = await json(fetch(`${api}/submodels/${b64(sm.id)}/submodel-elements/EntryNode`));
    expect(entry).toMatchObject({ modelType: 'Entity', entityType: 'SelfManagedEntity' });
  });

  it('the Data Retention Policies template: a File with its contentType, lists, relationships', async () => {
    const tenant = await server.createTenant();
    const result = await importer().importPackage(tenant, path.join(AASX_DIR, 'IDTA_02056-1-0-1_Template_Data_Retention_Policies_forAASMetamodelV3.1.aasx'));
    expect(result.warnings).toEqual([]);
    expect(result.submodels).toEqual([{ id: 'https://admin-shell.io/idta/DataRetentionPolicies/1/0', status: 'created' }]);
    const sm = await json(fetch(`${server.api(tenant.name)}/submodels/${b64(result.submodels[0].id)}`));
    expect(sm.idShort).toBe('DataRetentionPolicies');
    expect(JSON.stringify(sm)).toContain('"contentType":"image/png"');
  });

  it('the Capability Description template: a File without contentType, idShorts on list items, the thumbnail stored', async () => {
    const tenant = await server.createTenant();
    const sink = new MemorySink();
    const result = await importer(sink).importPackage(tenant, path.join(AASX_DIR, 'IDTA_02020_Template_Capability_Description.aasx'));
    const file = '$.submodelElements[0].value[0].value[3].value[3].value[0].value[2]';
    const idShortPath = 'CapabilitySet.CapabilityContainer.CapabilityRelations.ConstraintSet.PropertyConstraintContainer.OCLConstraint';
    // Idshorts on a list's items are V3.1 (AASd-120 is gone): no warning of it (the template breaks AASd-021 and
    // AASd-114, in both versions); the File is stored without contentType.
    expect(result.warnings.join('\n')).not.toMatch(/AASd-120/);
    expect(result.warnings.filter((w) => !/AASd-021|AASd-114/.test(w))).toEqual([
      `submodel 'https://admin-shell.io/idta/SubmodelTemplate/CapabilityDescription/1/0' (AAS V3.1, stored as written), read through V3.0: ${file} (idShort path ${idShortPath}): File without contentType (optional since V3.1): read as application/octet-stream`,
    ]);
    expect(result.files.map((f) => f.path)).toEqual(['/aasx/files/title-page.png']);
    const api = server.api(tenant.name);
    const element = await json(fetch(`${api}/submodels/${b64(result.submodels[0].id)}/submodel-elements/${idShortPath}`));
    expect(element).toMatchObject({ modelType: 'File', idShort: 'OCLConstraint', contentType: 'application/octet-stream' });
    const stored = await server.services.submodels.element(tenant, result.submodels[0].id, idShortPath, {}, '3.1');
    expect(stored.element).toMatchObject({ modelType: 'File', idShort: 'OCLConstraint' });
    expect(stored.element).not.toHaveProperty('contentType');
    const shell = await json(fetch(`${api}/shells/${b64(result.shells[0].id)}`));
    expect(shell.assetInformation.defaultThumbnail.path).toBe(result.files[0].tfp);
  });
});

// ---------------------------------------------------------------------------------------------------------------
// A package with each mapped thing, as V3.1 XML and as JSON.

const LONG_ID = `urn:v31:${'s'.repeat(2040)}`;
const NS = 'https://admin-shell.io/aas/3/1';

const xmlEnvironment = (shellId: string) => `<?xml version="1.0" encoding="utf-8"?>
<environment xmlns="${NS}">
  <assetAdministrationShells><assetAdministrationShell>
    <id>${shellId}</id>
    <assetInformation><assetKind>Role</assetKind><globalAssetId>urn:v31:role</globalAssetId></assetInformation>
    <submodels><reference><type>ModelReference</type><keys><key><type>Submodel</type><value>${LONG_ID}</value></key></keys></reference></submodels>
  </assetAdministrationShell></assetAdministrationShells>
  <submodels><submodel>
    <idShort>Roles</idShort><id>${LONG_ID}</id>
    <submodelElements>
      <property><idShort>Max-Temperature</idShort><valueType>xs:double</valueType><value>80</value></property>
      <entity><idShort>Station</idShort><globalAssetId>urn:v31:station</globalAssetId></entity>
      <file><idShort>Manual</idShort><value>/aasx/files/manual.pdf</value></file>
      <relationshipElement><idShort>Open</idShort><first><type>ExternalReference</type><keys><key><type>GlobalReference</type><value>urn:a</value></key></keys></first></relationshipElement>
    </submodelElements>
  </submodel></submodels>
</environment>`;

const jsonEnvironment = (shellId: string) => ({
  assetAdministrationShells: [
    {
      modelType: 'AssetAdministrationShell',
      id: shellId,
      assetInformation: { assetKind: 'Role', globalAssetId: 'urn:v31:role' },
      submodels: [{ type: 'ModelReference', keys: [{ type: 'Submodel', value: LONG_ID }] }],
    },
  ],
  submodels: [
    {
      modelType: 'Submodel',
      idShort: 'Roles',
      id: LONG_ID,
      submodelElements: [
        { modelType: 'Property', idShort: 'Max-Temperature', valueType: 'xs:double', value: '80' },
        { modelType: 'Entity', idShort: 'Station', globalAssetId: 'urn:v31:station' },
        { modelType: 'File', idShort: 'Manual', value: '/aasx/files/manual.pdf' },
        { modelType: 'RelationshipElement', idShort: 'Open', first: { type: 'ExternalReference', keys: [{ type: 'GlobalReference', value: 'urn:a' }] } },
      ],
    },
  ],
});

const packageFile = (spec: { format: 'json' | 'xml'; content: string }) => packages.write(spec, [{ path: '/aasx/files/manual.pdf', text: '%PDF' }]);

describe('a V3.1 package with what V3.0 does not have', () => {
  for (const format of ['xml', 'json'] as const) {
    it(`as ${format.toUpperCase()}: stored as written, mapped for V3.0 readers with a warning each, served by the REST API`, async () => {
      const tenant = await server.createTenant();
      const shellId = `urn:v31:shell:${format}`;
      const content = format === 'xml' ? xmlEnvironment(shellId) : JSON.stringify(jsonEnvironment(shellId));
      const sink = new MemorySink();
      const result = await importer(sink).importPackage(tenant, await packageFile({ format, content }));
      const sm30 = `submodel '${LONG_ID}' (AAS V3.1, stored as written), read through V3.0: $.submodelElements`;
      // What V3.1 relaxed in constraints only (the 2048-character id, the hyphen) is no violation of V3.1: no warning.
      expect(result.warnings).toEqual([
        `shell '${shellId}' (AAS V3.1, stored as written), read through V3.0: $.assetInformation.assetKind: AssetKind Role (new in V3.1): read as NotApplicable`,
        `${sm30}[1] (idShort path Station): Entity without entityType (optional since V3.1): read as SelfManagedEntity (it has an asset id)`,
        `${sm30}[2] (idShort path Manual): File without contentType (optional since V3.1): read as application/octet-stream`,
        `${sm30}[3] (idShort path Open): RelationshipElement without second (optional since V3.1) cannot be a V3.0 one: left out`,
      ]);
      expect(result.shells).toEqual([{ id: shellId, status: 'created' }]);
      expect(result.submodels).toEqual([{ id: LONG_ID, status: 'created' }]);
      // Stored as written: read as V3.1, the whole documents are what the package holds (the File's value now
      // names the stored file).
      const written = jsonEnvironment(shellId);
      (written.submodels[0].submodelElements[2] as Json).value = result.files[0].tfp;
      expect(await server.services.shells.get(tenant, shellId, '3.1')).toEqual(written.assetAdministrationShells[0]);
      const asV31 = await server.services.submodels.get(tenant, LONG_ID, {}, '3.1');
      expect(asV31).toEqual(written.submodels[0]);

      const api = server.api(tenant.name);
      const shell = await json(fetch(`${api}/shells/${b64(shellId)}`));
      expect(shell.assetInformation).toEqual({ assetKind: 'NotApplicable', globalAssetId: 'urn:v31:role' });
      const sm: Json = await json(fetch(`${api}/submodels/${b64(LONG_ID)}`));
      expect(sm.id).toBe(LONG_ID);
      expect(sm.submodelElements.map((e: Json) => e.idShort)).toEqual(['Max-Temperature', 'Station', 'Manual']);
      const res = await fetch(`${api}/submodels/${b64(LONG_ID)}/submodel-elements/Max-Temperature`);
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ modelType: 'Property', idShort: 'Max-Temperature', valueType: 'xs:double', value: '80' });
      const value = await json(fetch(`${api}/submodels/${b64(LONG_ID)}/submodel-elements/Max-Temperature/$value`));
      expect(value).toBe(80);
      // Writes into it are judged by what they change: the hyphen and the long id were there before.
      const patched = await fetch(`${api}/submodels/${b64(LONG_ID)}/submodel-elements/Max-Temperature/$value`, { method: 'PATCH', headers: { 'content-type': 'application/json' }, body: '90' });
      expect(patched.status, await patched.clone().text()).toBe(204);
      expect(await json(fetch(`${api}/submodels/${b64(LONG_ID)}/submodel-elements/Max-Temperature/$value`))).toBe(90);
      // A new element is V3.0: a hyphen in its idShort is a violation it introduces.
      const added = await fetch(`${api}/submodels/${b64(LONG_ID)}/submodel-elements`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ modelType: 'Property', idShort: 'Min-Temperature', valueType: 'xs:double' }),
      });
      expect(added.status).toBe(400);
      expect(((await added.json()) as Json).messages[0].text).toMatch(/ID-short of Referables/);
      expect(await json(fetch(`${api}/submodels/${b64(LONG_ID)}/submodel-elements/Station`))).toMatchObject({ entityType: 'SelfManagedEntity', globalAssetId: 'urn:v31:station' });
      const manual = await json(fetch(`${api}/submodels/${b64(LONG_ID)}/submodel-elements/Manual`));
      expect(manual).toMatchObject({ contentType: 'application/octet-stream', value: result.files[0].tfp });
      expect((await fetch(`${api}/submodels/${b64(LONG_ID)}/submodel-elements/Open`)).status).toBe(404);
      expect(sink.stored.get(result.files[0].tfp)!.toString()).toBe('%PDF');
      // The shell's reference to the submodel with the long id is served as stored.
      const refs = await json(fetch(`${api}/shells/${b64(shellId)}/submodel-refs`));
      expect(refs.result[0].keys[0].value).toBe(LONG_ID);

      // A V3.0 client writes back what it read with one change: the V3.1 parts it did not touch stay.
      const read30: Json = await json(fetch(`${api}/submodels/${b64(LONG_ID)}`));
      read30.submodelElements[0].value = '95';
      const put = await fetch(`${api}/submodels/${b64(LONG_ID)}`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify(read30) });
      expect(put.status, await put.clone().text()).toBe(204);
      const after = structuredClone(written.submodels[0]) as Json;
      after.submodelElements[0].value = '95';
      expect(await server.services.submodels.get(tenant, LONG_ID, {}, '3.1')).toEqual(after);
      // An element written back through V3.0 with one change keeps what V3.0 got mapped (no entityType stored).
      const station: Json = await json(fetch(`${api}/submodels/${b64(LONG_ID)}/submodel-elements/Station`));
      expect(station.entityType).toBe('SelfManagedEntity');
      station.description = [{ language: 'en', text: 'The station' }];
      const putStation = await fetch(`${api}/submodels/${b64(LONG_ID)}/submodel-elements/Station`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify(station) });
      expect(putStation.status, await putStation.clone().text()).toBe(204);
      after.submodelElements[1].description = station.description;
      expect(await server.services.submodels.get(tenant, LONG_ID, {}, '3.1')).toEqual(after);
      // The relationship V3.0 has no form of is not there for V3.0 writes either.
      const putOpen = await fetch(`${api}/submodels/${b64(LONG_ID)}/submodel-elements/Open`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ modelType: 'RelationshipElement', idShort: 'Open', first: { type: 'ExternalReference', keys: [{ type: 'GlobalReference', value: 'urn:a' }] }, second: { type: 'ExternalReference', keys: [{ type: 'GlobalReference', value: 'urn:b' }] } }),
      });
      expect(putOpen.status).toBe(404);
      expect(await server.services.submodels.get(tenant, LONG_ID, {}, '3.1')).toEqual(after);
      const shell30: Json = await json(fetch(`${api}/shells/${b64(shellId)}`));
      shell30.idShort = 'Renamed';
      const putShell = await fetch(`${api}/shells/${b64(shellId)}`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify(shell30) });
      expect(putShell.status, await putShell.clone().text()).toBe(204);
      expect(await server.services.shells.get(tenant, shellId, '3.1')).toEqual({ ...written.assetAdministrationShells[0], idShort: 'Renamed' });
    });
  }
});

// ---------------------------------------------------------------------------------------------------------------
// Round trip: a V3.1 package imported and read back through V3.1 is the package's environment, whole.

describe('IDTA V3.1 template packages round-trip through V3.1', () => {
  const names = ['IDTA_02011-1-1-1_Template_HSEBoM_forAASMetamodelV3.1.aasx', 'IDTA_02056-1-0-1_Template_Data_Retention_Policies_forAASMetamodelV3.1.aasx', 'IDTA_02020_Template_Capability_Description.aasx'];
  for (const name of names) {
    it(`${name}: every shell, submodel and concept description read through V3.1 equals the package's`, async () => {
      const file = path.join(AASX_DIR, name);
      const { environment, version } = await readPackageEnvironment(file);
      expect(version).toBe('3.1');
      const tenant = await server.createTenant();
      const result = await importer().importPackage(tenant, file);
      // What the import changes by design: a File value or thumbnail naming a file of the package names the stored file.
      const tfpOf = new Map(result.files.map((f) => [f.path, f.tfp]));
      const expected = JSON.parse(JSON.stringify(environment), (key, value: unknown) =>
        (key === 'value' || key === 'path') && typeof value === 'string' && tfpOf.has(value) ? tfpOf.get(value) : value,
      ) as Json;
      const { shells, submodels, conceptDescriptions } = server.services;
      for (const shell of expected.assetAdministrationShells ?? []) expect(await shells.get(tenant, shell.id, '3.1')).toEqual(shell);
      for (const submodel of expected.submodels ?? []) expect(await submodels.get(tenant, submodel.id, {}, '3.1')).toEqual(submodel);
      for (const cd of expected.conceptDescriptions ?? []) expect(await conceptDescriptions.get(tenant, cd.id, '3.1')).toEqual(cd);
      expect(result.shells.length + result.submodels.length + result.conceptDescriptions.length).toBe(
        (expected.assetAdministrationShells ?? []).length + (expected.submodels ?? []).length + (expected.conceptDescriptions ?? []).length,
      );
    });
  }
});
