import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { readPackageEnvironment } from '../../src/aas/import/aasx-import';
import { TestServer, startTestServer } from '../support/server';
import { jsonSchemaProblems, xmlSchemaProblems } from '../support/strict-readers';
import { AASX_DIR } from '../support/testdata';
import { Json, LISTS, asExported, asV30, roundTripProblems, roundTripSource, usesRelaxations } from '../support/v31-round-trip';

/**
 * AAS V3.1 exports, read by strict readers and imported again: every IDTA template package for metamodel V3.1 the
 * repository carries is imported, exported through `/api/v3.1/serialization` as JSON, XML, AASX with an XML spec
 * part and AASX with a JSON one; each export validates against the official V3.1 schemas (AAS.xsd with xmllint, the
 * JSON schema with ajv), is imported into a fresh tenant and read back through `/api/v3.1`: the whole documents are
 * the package's, after the normalizations the docs name (empty values left out of exports, File values naming the
 * stored files). The same documents read through `/api/v3.0` are the V3.1 ones mapped by the documented rules,
 * which this test applies itself (`asV30` in test/support/v31-round-trip.ts, shared with scripts/v31-templates.ts,
 * which runs the same round trip over every V3.1 package of a checkout of admin-shell-io/submodel-templates).
 */

/** The V3.1 packages: their spec parts are V3.1 XML (namespace https://admin-shell.io/aas/3/1). */
const PACKAGES = [
  'IDTA_02011-1-1-1_Template_HSEBoM_forAASMetamodelV3.1.aasx',
  'IDTA_02020_Template_Capability_Description.aasx',
  'IDTA_02056-1-0-1_Template_Data_Retention_Policies_forAASMetamodelV3.1.aasx',
  'real/deprecated_Technical_Data_1_2_1_IDTA_02003-1-2-1_Template_TechnicalData_forAASMetamodelV3.1.aasx',
  'real/published_Asset_Interfaces_Description_1_1_IDTA_02017-1-1_Template_Asset_Interfaces_Description.aasx',
  'real/published_Carbon_Footprint_1_0_1_IDTA_02023-1-0-1__Template_CarbonFootprint_forAASMetamodelV3.1.aasx',
  'real/published_Contact_Information_1_0_1_IDTA_02002-1-0-1_Template_ContactInformation_forAASMetamodelV3.1.aasx',
  'real/published_Digital_Battery_Passport_1_Digital_Nameplate_1_0_IDTA_02035-1_DBP-Part-1_Digital_Nameplate.aasx',
  'real/published_Digital_Product_Passport_Digital_Product_Passport_Part-1_1_0_1_IDTA_02099-1_Template_Digital_Product_Passport_-_Part_1.aasx',
  'real/published_Handover_Documentation_2_0_1_IDTA_02004-2-0-1_Template_HandoverDocumentation__forAASMetamodelV3.1.aasx',
  'real/published_Purchase_Order_1_0_IDTA-02050_Template_PurchaseOrder_forAASMetamodelV3.1.aasx',
  'real/published_Sizing_of_Power_Drive_Trains_1_0_1_IDTA_02021-1-0-1_Template_Sizing_of_Power_Drive_Trains_forAASMetamodelV3.1.aasx',
  'real/published_Time_Series_Data_1_1_1_IDTA_02008-1-1-1_Template_TimeSeriesData_forAASMetamodelV3.1.aasx',
];
/** A package of older XML (AAS V2.0) whose documents, read as V3, use what only V3.1 allows. */
const V31_CONTENT = ['real/src_BlazorUI_TimesSeries_-_6_-_admin-shell-io-2.aasx'];

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer(inject('databaseUrl'));
});
afterAll(() => server?.close());

describe('AAS V3.1 exports: strict schemas, and round trips through every format', () => {
  it('the strict readers refuse what V3.1 forbids: an empty idShort, an element out of its place, a control character', async () => {
    const bad = { submodels: [{ modelType: 'Submodel', id: 'urn:strict:sm', idShort: '' }] };
    expect(jsonSchemaProblems(bad, 20, '3.1').join('\n')).toMatch(/idShort/);
    const ns = 'https://admin-shell.io/aas/3/1';
    const good = `<environment xmlns="${ns}"><submodels><submodel><idShort>Sm</idShort><id>urn:strict:sm</id></submodel></submodels></environment>`;
    expect(await xmlSchemaProblems(good, 'good.xml', '3.1')).toEqual([]);
    expect((await xmlSchemaProblems(good.replace('<idShort>Sm</idShort><id>urn:strict:sm</id>', '<id>urn:strict:sm</id><idShort>Sm</idShort>'), 'bad.xml', '3.1')).join('\n')).toMatch(/idShort/);
    // A V3.0 document is not a V3.1 one.
    expect((await xmlSchemaProblems(good.replace(ns, 'https://admin-shell.io/aas/3/0'), 'v30.xml', '3.1')).length).toBeGreaterThan(0);
    // Characters beyond U+FFFF are XML characters (the unit `m/𝑠³` of the Sizing of Power Drive Trains template); a
    // control character is not.
    const unit = (text: string) => ({
      conceptDescriptions: [{
        modelType: 'ConceptDescription',
        id: 'urn:strict:cd',
        embeddedDataSpecifications: [{
          dataSpecification: { type: 'ExternalReference', keys: [{ type: 'GlobalReference', value: 'https://admin-shell.io/DataSpecificationTemplates/DataSpecificationIec61360/3' }] },
          dataSpecificationContent: { modelType: 'DataSpecificationIec61360', preferredName: [{ language: 'en', text: 'Jerk' }], unit: text },
        }],
      }],
    });
    expect(jsonSchemaProblems(unit('m/\u{1D460}³'), 20, '3.1')).toEqual([]);
    expect(jsonSchemaProblems(unit('m/s\u0001'), 20, '3.1').join('\n')).toMatch(/unit must match pattern/);
  });

  it('the packages listed are the V3.1 ones', async () => {
    for (const name of PACKAGES) expect((await readPackageEnvironment(path.join(AASX_DIR, name))).version, name).toBe('3.1');
    for (const name of V31_CONTENT) {
      const { environment } = (await readPackageEnvironment(path.join(AASX_DIR, name))) as { environment: Json };
      const documents = LISTS.flatMap(([key]) => (environment[key] ?? []) as Json[]);
      expect(documents.some((doc) => asV30(asExported(doc) as Json).mapped || usesRelaxations(doc)), name).toBe(true);
    }
  });

  for (const name of [...PACKAGES, ...V31_CONTENT]) {
    it(`${path.basename(name)}: every V3.1 export validates and imports again as the same documents, read through V3.1 and V3.0`, async () => {
      const problems = await roundTripProblems(server, await roundTripSource(path.join(AASX_DIR, name)));
      expect(problems.slice(0, 30)).toEqual([]);
    });
  }
});
