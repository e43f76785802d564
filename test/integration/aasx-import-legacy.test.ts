import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { importerOf, packageWriter } from '../support/package-writer';
import { TestServer, b64, json, startTestServer } from '../support/server';

/** Packages of the AAS XML namespaces before V3.0 other than V2.0: V1.0 and the V3.0 release candidate. */

let server: TestServer;
const LEGACY = path.resolve(__dirname, '../fixtures/aas-legacy');

beforeAll(async () => {
  server = await startTestServer(inject('databaseUrl'));
});
afterAll(async () => {
  await server?.close();
});

const packages = packageWriter('aasx-legacy-');
/** A package around a spec part of the fixtures, with the files its File elements name, as an upload would be. */
const packageOf = (xmlFile: string, files: string[]) =>
  packages.write({ format: 'xml', content: fs.readFileSync(path.join(LEGACY, xmlFile), 'utf8') }, files.map((name) => ({ path: name, text: 'PDF' })));
const importer = () => importerOf(server);

describe('AASX import of V1.0 and V3.0 release candidate packages', () => {
  it('the release candidate package of the AASX Server, as it is: its shell and submodel read back by GET', async () => {
    const tenant = await server.createTenant();
    const result = await importer().importPackage(tenant, path.join(LEGACY, 'DemoAAS_V3.aasx'));
    expect(result.shells).toEqual([{ id: 'www.example.com/ids/aas/8491_1132_5022_3745', status: 'created' }]);
    expect(result.submodels).toEqual([{ id: 'www.example.com/ids/sm/0102_1132_5022_1602', status: 'created' }]);
    expect(result.warnings[0]).toMatch(/is an AAS V3\.0 release candidate environment \(http:\/\/www\.admin-shell\.io\/aas\/3\/0\): converted to V3\.0$/);
    expect(result.warnings).toContain(
      '/aasenv/submodels/submodel/submodelElements/submodelElement[3]/submodelElementList: idShort of 2 list item(s) dropped (V3.0 list items have none)',
    );
    const shell = await json(fetch(`${server.api(tenant.name)}/shells/${b64('www.example.com/ids/aas/8491_1132_5022_3745')}`));
    expect(shell).toMatchObject({ idShort: 'DemoAAS_V3', assetInformation: { assetKind: 'Instance', globalAssetId: 'www.example.com/ids/asset/7591_1132_5022_2728' } });
    const submodel = await json(fetch(`${server.api(tenant.name)}/submodels/${b64('www.example.com/ids/sm/0102_1132_5022_1602')}`));
    expect(submodel.submodelElements).toEqual([
      { modelType: 'Property', idShort: 'DemoProp_1', valueType: 'xs:string', value: '1234' },
      { modelType: 'SubmodelElementCollection', idShort: 'DemoSMEStruct', value: [{ modelType: 'Property', idShort: 'DemoProp_2', valueType: 'xs:string' }] },
      {
        modelType: 'SubmodelElementList', idShort: 'DemoSMEList', orderRelevant: false, typeValueListElement: 'Property', valueTypeListElement: 'xs:string',
        value: [{ modelType: 'Property', valueType: 'xs:string' }, { modelType: 'Property', valueType: 'xs:string' }],
      },
    ]);
  });

  it('the release candidate ServoDCMotor: 1 shell, 5 submodels, 20 concept descriptions; its file stored', async () => {
    const tenant = await server.createTenant();
    const result = await importer().importPackage(tenant, await packageOf('ServoDCMotor_21-v3rc.aas.xml', ['/aasx/OperatingManual.pdf']));
    expect([result.shells.length, result.submodels.length, result.conceptDescriptions.length]).toEqual([1, 5, 20]);
    expect(result.files.map((f) => f.path)).toEqual(['/aasx/OperatingManual.pdf']);
    const operational = await json(fetch(`${server.api(tenant.name)}/submodels/${b64('http://i40.customer.com/instance/1/1/AC69B1CB44F07935')}`));
    expect(operational.submodelElements.map((e: { modelType: string }) => e.modelType)).toEqual([
      'Property', 'Property', 'Operation', 'BasicEventElement', 'Entity', 'RelationshipElement', 'AnnotatedRelationshipElement', 'Property',
    ]);
    const shell = await json(fetch(`${server.api(tenant.name)}/shells/${b64('http://customer.com/aas/9175_7013_7091_9168')}`));
    expect(shell.extensions[0].name).toBe('AAS2.0/MIGRATION');
  });

  it('the V1.0 ServoDCMotor of the AASX Package Explorer: 1 shell, 4 submodels, 19 concept descriptions', async () => {
    const tenant = await server.createTenant();
    const result = await importer().importPackage(tenant, await packageOf('ServoDCMotor_21-v1.aas.xml', ['/aasx/OperatingManual.pdf']));
    expect([result.shells.length, result.submodels.length, result.conceptDescriptions.length]).toEqual([1, 4, 19]);
    expect(result.warnings[0]).toMatch(/is an AAS V1\.0 environment \(http:\/\/www\.admin-shell\.io\/aas\/1\/0\): converted to V3\.0$/);
    const shells = await json(fetch(`${server.api(tenant.name)}/shells`));
    expect(shells.result.map((s: { id: string }) => s.id)).toEqual(['http://customer.com/aas/9175_7013_7091_9168']);
    const identification = await json(fetch(`${server.api(tenant.name)}/submodels/${b64('http://i40.customer.com/type/1/1/F13E8576F6488342')}`));
    expect(identification).toMatchObject({ idShort: 'Identification', semanticId: { type: 'ExternalReference', keys: [{ type: 'GlobalReference', value: '0173-1#01-ADN198#009' }] } });
  });

  it('what has no clear V3.0 form, and an unknown namespace, are 400 naming the namespace; nothing is stored', async () => {
    const tenant = await server.createTenant();
    const write = (content: string) => packages.write({ format: 'xml', content });
    const several = await write(
      '<aas:aasenv xmlns:aas="http://www.admin-shell.io/aas/3/0"><aas:assetAdministrationShells><aas:assetAdministrationShell><aas:id>urn:a</aas:id>' +
        '<aas:assetInformation><aas:globalAssetId><aas:values><aas:value>urn:1</aas:value><aas:value>urn:2</aas:value></aas:values></aas:globalAssetId></aas:assetInformation>' +
        '</aas:assetAdministrationShell></aas:assetAdministrationShells></aas:aasenv>',
    );
    const unknown = await write('<aas:aasenv xmlns:aas="http://www.admin-shell.io/aas/9/9"/>');
    for (const [file, text] of [
      [several, /namespace of the AAS V3\.0 release candidate \(http:\/\/www\.admin-shell\.io\/aas\/3\/0\).*2 global asset ids.*AASX Package Explorer/],
      [unknown, /'http:\/\/www\.admin-shell\.io\/aas\/9\/9'/],
    ] as const) {
      const err = await importer().importPackage(tenant, file).catch((e: Error) => e);
      expect(err).toMatchObject({ extensions: { code: 'BAD_REQUEST' } });
      expect((err as Error).message).toMatch(text);
    }
    expect((await json(fetch(`${server.api(tenant.name)}/shells`))).result).toEqual([]);
  });
});
