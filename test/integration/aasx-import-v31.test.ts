import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { MemorySink } from '../support/memory-sink';
import { importerOf, packageWriter } from '../support/package-writer';
import { TestServer, b64, json, startTestServer } from '../support/server';
import { AASX_DIR } from '../support/testdata';

/**
 * AAS V3.1 packages imported: real IDTA submodel templates published for metamodel V3.1 (XML in the 3/1 namespace),
 * and a package made here with each thing V3.1 allows and V3.0 does not, as V3.1 XML and as JSON. What is stored
 * is V3.0, the warnings say what was mapped, and the REST API serves it, hyphenated idShorts and a 2048-character
 * id included.
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
  it('the Hierarchical Structures (BoM) template: entities and relationships, one warning that it is V3.1', async () => {
    const tenant = await server.createTenant();
    const result = await importer().importPackage(tenant, path.join(AASX_DIR, 'IDTA_02011-1-1-1_Template_HSEBoM_forAASMetamodelV3.1.aasx'));
    expect(result.warnings).toEqual(['/aasx/https___example_com_ids_aas_9194_9081_3022_4668/https___example_com_ids_aas_9194_9081_3022_4668.aas.xml is an AAS V3.1 environment: read as V3.0']);
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
    expect(result.warnings).toEqual(['/aasx/data.xml is an AAS V3.1 environment: read as V3.0']);
    expect(result.submodels).toEqual([{ id: 'https://admin-shell.io/idta/DataRetentionPolicies/1/0', status: 'created' }]);
    const sm = await json(fetch(`${server.api(tenant.name)}/submodels/${b64(result.submodels[0].id)}`));
    expect(sm.idShort).toBe('DataRetentionPolicies');
    expect(JSON.stringify(sm)).toContain('"contentType":"image/png"');
  });

  it('the Capability Description template: a File without contentType, idShorts on list items, the thumbnail stored', async () => {
    const tenant = await server.createTenant();
    const sink = new MemorySink();
    const result = await importer(sink).importPackage(tenant, path.join(AASX_DIR, 'IDTA_02020_Template_Capability_Description.aasx'));
    const file = '$.submodels[0].submodelElements[0].value[0].value[3].value[3].value[0].value[2]';
    const idShortPath = 'CapabilitySet.CapabilityContainer.CapabilityRelations.ConstraintSet.PropertyConstraintContainer.OCLConstraint';
    expect(result.warnings.slice(0, 2)).toEqual([
      '/aasx/ModdelingAAS/ModdelingAAS.aas.xml is an AAS V3.1 environment: read as V3.0',
      `${file} (idShort path ${idShortPath}): File without contentType (optional since V3.1): read as application/octet-stream`,
    ]);
    // Idshorts on a list's items (allowed since V3.1, AASd-120 in V3.0) are kept, and reported by the verification.
    expect(result.warnings.slice(2).join('\n')).toMatch(/submodel 'https:\/\/admin-shell\.io\/idta\/SubmodelTemplate\/CapabilityDescription\/1\/0': .*AASd-120/);
    expect(result.files.map((f) => f.path)).toEqual(['/aasx/files/title-page.png']);
    const api = server.api(tenant.name);
    const element = await json(fetch(`${api}/submodels/${b64(result.submodels[0].id)}/submodel-elements/${idShortPath}`));
    expect(element).toMatchObject({ modelType: 'File', idShort: 'OCLConstraint', contentType: 'application/octet-stream' });
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
    it(`as ${format.toUpperCase()}: mapped with a warning each, stored as V3.0, served by the REST API`, async () => {
      const tenant = await server.createTenant();
      const shellId = `urn:v31:shell:${format}`;
      const content = format === 'xml' ? xmlEnvironment(shellId) : JSON.stringify(jsonEnvironment(shellId));
      const sink = new MemorySink();
      const result = await importer(sink).importPackage(tenant, await packageFile({ format, content }));
      const spec = format === 'xml' ? ['/aasx/data.xml is an AAS V3.1 environment: read as V3.0'] : [];
      const mapped = [
        '$.assetAdministrationShells[0].assetInformation.assetKind: AssetKind Role (new in V3.1): read as NotApplicable',
        '$.submodels[0].submodelElements[1] (idShort path Station): Entity without entityType (optional since V3.1): read as SelfManagedEntity (it has an asset id)',
        '$.submodels[0].submodelElements[2] (idShort path Manual): File without contentType (optional since V3.1): read as application/pdf (the content type of the package part it names)',
        '$.submodels[0].submodelElements[3] (idShort path Open): RelationshipElement without second (optional since V3.1) cannot be a V3.0 one: left out',
      ];
      expect(result.warnings.slice(0, spec.length + mapped.length)).toEqual([...spec, ...mapped]);
      // What V3.1 relaxed in constraints only is stored as written; the V3.0 verification warns about it.
      const verification = result.warnings.slice(spec.length + mapped.length);
      expect(verification.some((w) => /^submodel 'urn:v31:s+': \$\.id: .*2000/.test(w))).toBe(true);
      expect(verification.some((w) => /^submodel 'urn:v31:s+': \$\.submodelElements\[0\]\.idShort: ID-short of Referables/.test(w))).toBe(true);
      expect(result.shells).toEqual([{ id: shellId, status: 'created' }]);
      expect(result.submodels).toEqual([{ id: LONG_ID, status: 'created' }]);

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
      expect(manual).toMatchObject({ contentType: 'application/pdf', value: result.files[0].tfp });
      expect(sink.stored.get(result.files[0].tfp)!.toString()).toBe('%PDF');
      // The shell's reference to the submodel with the long id is served as stored.
      const refs = await json(fetch(`${api}/shells/${b64(shellId)}/submodel-refs`));
      expect(refs.result[0].keys[0].value).toBe(LONG_ID);
    });
  }
});
