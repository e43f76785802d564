import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_XSD as XSD_30 } from '../../scripts/gen-xml-schema-table';
import type { JsonObject } from '../../src/aas/model/parse';
import { mapDownToV30 } from '../../src/aas/versions';
import { readXmlEnvironment } from '../../src/aas/xml/reader';
import { AAS_V31_NAMESPACE, AAS_V31_XML } from '../../src/aas/xml/v31';
import { XmlWriteError, writeXmlEnvironment, writeXmlEnvironmentChunks } from '../../src/aas/xml/writer';
import { xsdProblems } from '../support/xsd';

/** The XML writer per metamodel version: V3.1 in its namespace and schema, V3.0 as before. */

/**
 * The V3.1 schema of the fixture (from the working branch of the specification) declares no global element; the
 * released V3.0 one declares `environment`. A copy with that one declaration added, as V3.0 has it, validates.
 */
function xsd31(): string {
  const text = fs.readFileSync(path.resolve(__dirname, '../fixtures/aas-metamodel-v3.1/AAS.xsd'), 'utf8');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'aas-v31-xsd-'));
  const file = path.join(dir, 'AAS.xsd');
  fs.writeFileSync(file, text.replace('</xs:schema>', '  <xs:element name="environment" type="environment_t"/>\n</xs:schema>'));
  return file;
}

const ref = (value: string) => ({ type: 'ExternalReference', keys: [{ type: 'GlobalReference', value }] });

/** An environment with each thing only V3.1 has, and an embedded data specification (whose order V3.1 changed). */
const V31_ENVIRONMENT: JsonObject = {
  assetAdministrationShells: [{ modelType: 'AssetAdministrationShell', id: 'urn:x:aas', assetInformation: { assetKind: 'Role', globalAssetId: 'urn:x:asset' } }],
  submodels: [
    {
      modelType: 'Submodel',
      id: 'urn:x:sm',
      idShort: 'Sm',
      submodelElements: [
        { modelType: 'Property', idShort: 'Max-Temperature', valueType: 'xs:double', value: '80', category: 'FREE' },
        { modelType: 'Entity', idShort: 'Station', globalAssetId: 'urn:x:station' },
        { modelType: 'File', idShort: 'Manual', value: '/aasx/files/manual.pdf' },
        { modelType: 'Blob', idShort: 'Data' },
        { modelType: 'RelationshipElement', idShort: 'Open', first: ref('urn:a') },
        { modelType: 'AnnotatedRelationshipElement', idShort: 'Half', second: ref('urn:b'), annotations: [{ modelType: 'Property', idShort: 'Note', valueType: 'xs:string' }] },
        { modelType: 'SubmodelElementList', idShort: 'Docs', typeValueListElement: 'SubmodelElementCollection', value: [{ modelType: 'SubmodelElementCollection', idShort: 'Doc01' }] },
      ],
    },
  ],
  conceptDescriptions: [
    {
      modelType: 'ConceptDescription',
      id: 'urn:x:cd',
      embeddedDataSpecifications: [
        {
          dataSpecification: { type: 'ExternalReference', keys: [{ type: 'GlobalReference', value: 'https://admin-shell.io/DataSpecificationTemplates/DataSpecificationIec61360/3' }] },
          dataSpecificationContent: { modelType: 'DataSpecificationIec61360', preferredName: [{ language: 'en', text: 'Temperature' }] },
        },
      ],
    },
  ],
};

describe('XML per metamodel version', () => {
  it('V3.1: its namespace, what V3.1 made optional left out, valid against the V3.1 schema, read back as written', async () => {
    const xml = writeXmlEnvironment(V31_ENVIRONMENT, { version: '3.1' });
    expect(xml).toContain(`<environment xmlns="${AAS_V31_NAMESPACE}">`);
    expect(xml).toContain('<embeddedDataSpecification><dataSpecificationContent>');
    expect(await xsdProblems(xsd31(), [{ name: 'v31.xml', contents: xml }])).toEqual([]);
    expect(readXmlEnvironment(xml, { dialect: AAS_V31_XML })).toEqual(V31_ENVIRONMENT);
  });

  it('V3.1 streamed: the same text as written at once', async () => {
    const iterate = async function* (items: unknown) {
      yield* items as JsonObject[];
    };
    const parts = {
      assetAdministrationShells: iterate(V31_ENVIRONMENT.assetAdministrationShells),
      submodels: iterate(V31_ENVIRONMENT.submodels),
      conceptDescriptions: iterate(V31_ENVIRONMENT.conceptDescriptions),
    };
    let text = '';
    for await (const chunk of writeXmlEnvironmentChunks(parts, { version: '3.1' })) text += chunk;
    expect(text).toBe(writeXmlEnvironment(V31_ENVIRONMENT, { version: '3.1' }));
  });

  it('V3.0: the same documents mapped down are valid V3.0 XML; unmapped, what V3.0 requires is missing', async () => {
    // Without the hyphen, which the V3.0 schema's idShort pattern refuses (V3.0 reads it as a violation only).
    const source = JSON.parse(JSON.stringify(V31_ENVIRONMENT).replace('Max-Temperature', 'MaxTemperature')) as JsonObject;
    const mapped = {
      ...source,
      assetAdministrationShells: (source.assetAdministrationShells as JsonObject[]).map((shell) => mapDownToV30(shell).json),
      submodels: (source.submodels as JsonObject[]).map((submodel) => mapDownToV30(submodel).json),
    };
    const xml = writeXmlEnvironment(mapped);
    expect(xml).toContain('<environment xmlns="https://admin-shell.io/aas/3/0">');
    expect(xml).toContain('<embeddedDataSpecification><dataSpecification>');
    // The schema checks structure and literals; the constraints V3.1 relaxed (the hyphen, AASd-120) are not its.
    expect(await xsdProblems(XSD_30, [{ name: 'v30.xml', contents: xml }])).toEqual([]);
    expect(() => writeXmlEnvironment(V31_ENVIRONMENT)).toThrow(XmlWriteError);
  });
});
