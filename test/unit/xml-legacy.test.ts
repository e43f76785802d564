import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readPackageEnvironment } from '../../src/aas/import/aasx-import';
import { readEnvironmentDocument } from '../../src/aas/import/environment-document';
import { convertV1Xml } from '../../src/aas/xml/v1';
import { V2XmlError } from '../../src/aas/xml/v2';
import { convertV3RcXml } from '../../src/aas/xml/v3rc';
import { readBack } from '../support/read-back';

const FIXTURES = path.resolve(__dirname, '../fixtures/aas-legacy');
const fixture = (name: string) => readFileSync(path.join(FIXTURES, name));
type Json = Record<string, any>;

const RC = 'xmlns:aas="http://www.admin-shell.io/aas/3/0" xmlns:IEC="http://www.admin-shell.io/IEC61360/3/0"';
const V1 = 'xmlns:aas="http://www.admin-shell.io/aas/1/0" xmlns:IEC61360="http://www.admin-shell.io/IEC61360/1/0"';
const rcEnv = (body: string) => `<?xml version="1.0"?><aas:aasenv ${RC}>${body}</aas:aasenv>`;
const v1Env = (body: string) => `<?xml version="1.0"?><aas:aasenv ${V1}>${body}</aas:aasenv>`;
const rcSubmodel = (elements: string) =>
  rcEnv(`<aas:submodels><aas:submodel><aas:idShort>S</aas:idShort><aas:id>urn:s</aas:id><aas:submodelElements>${elements}</aas:submodelElements></aas:submodel></aas:submodels>`);
const rcShell = (assetInformation: string) =>
  rcEnv(`<aas:assetAdministrationShells><aas:assetAdministrationShell><aas:idShort>A</aas:idShort><aas:id>urn:a</aas:id>${assetInformation}</aas:assetAdministrationShell></aas:assetAdministrationShells>`);
const prop = (idShort: string, valueType = 'int', value = '1') =>
  `<aas:submodelElement><aas:property><aas:idShort>${idShort}</aas:idShort><aas:valueType>${valueType}</aas:valueType><aas:value>${value}</aas:value></aas:property></aas:submodelElement>`;

describe('convertV3RcXml: the release candidate ServoDCMotor of the AASX Server', () => {
  const { environment, warnings } = convertV3RcXml(fixture('ServoDCMotor_21-v3rc.aas.xml'));
  const [shell] = environment.assetAdministrationShells as Json[];
  const submodels = environment.submodels as Json[];
  const operational = submodels.find((s) => s.idShort === 'OperationalData')!;
  const element = (idShort: string) => (operational.submodelElements as Json[]).find((e) => e.idShort === idShort)!;

  it('holds the shell, 5 submodels and 20 concept descriptions, which read back with the metamodel library', () => {
    expect([(environment.assetAdministrationShells as Json[]).length, submodels.length, (environment.conceptDescriptions as Json[]).length]).toEqual([1, 5, 20]);
    // What verification finds are the document's own: IEC 61360 content without a definition in English
    // (AASc-3a-008), the language 'EN?' of the Package Explorer, a version without a revision.
    const found = readBack(environment);
    expect(found).toContain('.conceptDescriptions[4]: Constraint AASc-3a-008: For a');
    expect(found.some((f) => f.startsWith('.conceptDescriptions[13].administration: Constraint AASd-005'))).toBe(true);
    expect(found.every((f) => f.startsWith('.conceptDescriptions['))).toBe(true);
  });

  it('maps the shell: id, extension, asset information from globalAssetId values, submodel references', () => {
    expect(shell).toMatchObject({
      modelType: 'AssetAdministrationShell',
      id: 'http://customer.com/aas/9175_7013_7091_9168',
      idShort: 'ExampleMotor',
      category: 'CONSTANT',
      assetInformation: { assetKind: 'Instance', globalAssetId: 'http://customer.com/assets/KHBVZJSQKIY' },
    });
    expect(shell.extensions).toHaveLength(1);
    expect(shell.extensions[0]).toMatchObject({ name: 'AAS2.0/MIGRATION', valueType: 'xs:string' });
    expect(JSON.parse(shell.extensions[0].value)).toMatchObject({ idShort: 'ServoDCMotor', modelType: { name: 'Asset' } });
    expect(shell.submodels).toHaveLength(5);
    expect(shell.submodels[0]).toEqual({ type: 'ModelReference', keys: [{ type: 'Submodel', value: 'http://i40.customer.com/type/1/1/F13E8576F6488342' }] });
  });

  it('maps global references (values) to external references, model references (keys) as V2.0 does', () => {
    expect(submodels[0]).toMatchObject({
      id: 'http://i40.customer.com/type/1/1/F13E8576F6488342',
      kind: 'Instance',
      semanticId: { type: 'ExternalReference', keys: [{ type: 'GlobalReference', value: '0173-1#01-ADN198#009' }] },
    });
    expect(element('TestRelationshipElement')).toEqual({
      modelType: 'RelationshipElement',
      idShort: 'TestRelationshipElement',
      first: { type: 'ModelReference', keys: [{ type: 'Submodel', value: 'http://i40.customer.com/instance/1/1/AC69B1CB44F07935' }, { type: 'Property', value: 'RotationSpeed' }] },
      second: { type: 'ModelReference', keys: [{ type: 'Submodel', value: 'http://i40.customer.com/instance/1/1/AC69B1CB44F07935' }, { type: 'Property', value: 'Torque' }] },
    });
  });

  it('maps operations, events, entities and annotated relationships; empty checksums and kinds leave nothing', () => {
    expect(element('TestOperation')).toEqual({
      modelType: 'Operation',
      idShort: 'TestOperation',
      category: 'PARAMETER',
      qualifiers: [{ type: 'Demo', valueType: 'xs:string', value: 'true' }],
      inputVariables: [{ value: { modelType: 'Property', idShort: 'TestInVar', category: 'VARIABLE', valueType: 'xs:integer', value: '1234' } }],
      outputVariables: [{ value: { modelType: 'Property', idShort: 'TestOutVar', category: 'VARIABLE', valueType: 'xs:string' } }],
    });
    expect(element('TestBasicEvent')).toMatchObject({ modelType: 'BasicEventElement', direction: 'output', state: 'off' });
    expect(element('TestEntity')).toMatchObject({ modelType: 'Entity', entityType: 'SelfManagedEntity', globalAssetId: 'http://customer.com/assets/KHBVZJSQKIY', statements: [{ idShort: 'RotationSpeed' }] });
    expect(element('TestAnnotedRelationshipElement').annotations).toEqual([{ modelType: 'Property', idShort: 'TestAnnoted', valueType: 'xs:string', value: 'TestAnnoted' }]);
  });

  it('warns for what did not map, by path: value types, the event, IEC 61360 contents without preferred name', () => {
    expect(warnings).toHaveLength(17);
    expect(warnings).toContain(
      "/aasenv/assetAdministrationShells/assetAdministrationShell/extension/Extension/valueType: value type 'application/json' unknown: xs:string",
    );
    expect(warnings).toContain(
      '/aasenv/submodels/submodel[4]/submodelElements/submodelElement[4]/basicEvent: basic event: direction output and state off (V3.0 requires both; V2 has neither)',
    );
    expect(warnings.filter((w) => w.endsWith('IEC 61360 content without preferredName dropped (V3.0 requires one)'))).toHaveLength(8);
  });
});

describe('convertV3RcXml: the parts V2.0 does not have', () => {
  it('a list: its items without idShorts, the item type and value type from the items; a struct is a collection', () => {
    const xml = rcSubmodel(
      `<aas:submodelElement><aas:submodelElementList><aas:idShort>L</aas:idShort><aas:orderRelevant>false</aas:orderRelevant>` +
        `<aas:value>${prop('A')}${prop('B')}</aas:value></aas:submodelElementList></aas:submodelElement>` +
        `<aas:submodelElement><aas:submodelElementList><aas:idShort>M</aas:idShort><aas:typeValueListElement>SubmodelElementStruct</aas:typeValueListElement>` +
        `<aas:value><aas:submodelElement><aas:submodelElementStruct><aas:idShort>C</aas:idShort><aas:value>${prop('P')}</aas:value></aas:submodelElementStruct></aas:submodelElement></aas:value>` +
        `</aas:submodelElementList></aas:submodelElement>` +
        `<aas:submodelElement><aas:submodelElementList><aas:idShort>Mixed</aas:idShort><aas:value>${prop('X')}` +
        `<aas:submodelElement><aas:file><aas:idShort>F</aas:idShort><aas:mimeType>text/plain</aas:mimeType></aas:file></aas:submodelElement></aas:value></aas:submodelElementList></aas:submodelElement>`,
    );
    const { environment, warnings } = convertV3RcXml(xml);
    expect((environment.submodels as Json[])[0].submodelElements).toEqual([
      {
        modelType: 'SubmodelElementList', idShort: 'L', orderRelevant: false, typeValueListElement: 'Property', valueTypeListElement: 'xs:int',
        value: [{ modelType: 'Property', valueType: 'xs:int', value: '1' }, { modelType: 'Property', valueType: 'xs:int', value: '1' }],
      },
      {
        modelType: 'SubmodelElementList', idShort: 'M', typeValueListElement: 'SubmodelElementCollection',
        value: [{ modelType: 'SubmodelElementCollection', value: [{ modelType: 'Property', idShort: 'P', valueType: 'xs:int', value: '1' }] }],
      },
      {
        modelType: 'SubmodelElementList', idShort: 'Mixed', typeValueListElement: 'SubmodelElement',
        value: [{ modelType: 'Property', valueType: 'xs:int', value: '1' }, { modelType: 'File', contentType: 'text/plain' }],
      },
    ]);
    const at = '/aasenv/submodels/submodel/submodelElements';
    expect(warnings).toEqual([
      `${at}/submodelElement[1]/submodelElementList: idShort of 2 list item(s) dropped (V3.0 list items have none)`,
      `${at}/submodelElement[1]/submodelElementList: no typeValueListElement: Property (from the items)`,
      `${at}/submodelElement[2]/submodelElementList: idShort of 1 list item(s) dropped (V3.0 list items have none)`,
      `${at}/submodelElement[3]/submodelElementList: idShort of 2 list item(s) dropped (V3.0 list items have none)`,
      `${at}/submodelElement[3]/submodelElementList: no typeValueListElement: SubmodelElement (from the items)`,
    ]);
    expect(readBack(environment)).toEqual([]);
  });

  it('global and model reference elements, display names, extensions with refersTo; a checksum is dropped', () => {
    const xml = rcSubmodel(
      `<aas:submodelElement><aas:globalReferenceElement><aas:idShort>G</aas:idShort><aas:displayName><aas:langString lang="en">Global</aas:langString></aas:displayName>` +
        `<aas:checksum>abc</aas:checksum><aas:value><aas:values><aas:value>https://example.com/a</aas:value></aas:values></aas:value></aas:globalReferenceElement></aas:submodelElement>` +
        `<aas:submodelElement><aas:modelReferenceElement><aas:idShort>M</aas:idShort><aas:extension><aas:Extension><aas:name>note</aas:name><aas:value>x</aas:value>` +
        `<aas:refersTo><aas:ModelReference><aas:keys><aas:key type="Submodel">urn:s</aas:key><aas:key type="SubmodelElementStruct">C</aas:key></aas:keys></aas:ModelReference></aas:refersTo>` +
        `</aas:Extension></aas:extension><aas:value><aas:keys><aas:key type="Submodel">urn:s</aas:key></aas:keys></aas:value></aas:modelReferenceElement></aas:submodelElement>`,
    );
    const { environment, warnings } = convertV3RcXml(xml);
    expect((environment.submodels as Json[])[0].submodelElements).toEqual([
      { modelType: 'ReferenceElement', idShort: 'G', displayName: [{ language: 'en', text: 'Global' }], value: { type: 'ExternalReference', keys: [{ type: 'GlobalReference', value: 'https://example.com/a' }] } },
      {
        modelType: 'ReferenceElement', idShort: 'M',
        extensions: [{ name: 'note', value: 'x', refersTo: [{ type: 'ModelReference', keys: [{ type: 'Submodel', value: 'urn:s' }, { type: 'SubmodelElementCollection', value: 'C' }] }] }],
        value: { type: 'ModelReference', keys: [{ type: 'Submodel', value: 'urn:s' }] },
      },
    ]);
    expect(warnings).toEqual(['/aasenv/submodels/submodel/submodelElements/submodelElement[1]/globalReferenceElement/checksum: checksum dropped (V3.0 has none)']);
    expect(readBack(environment)).toEqual([]);
  });

  it('asset information: kind, specific asset ids, default thumbnail', () => {
    const xml = rcShell(
      `<aas:assetInformation><aas:assetKind>Type</aas:assetKind><aas:globalAssetId><aas:values><aas:value>urn:asset</aas:value></aas:values></aas:globalAssetId>` +
        `<aas:specificAssetId><aas:IdentifierKeyValuePair><aas:key>serial</aas:key><aas:value>42</aas:value>` +
        `<aas:externalSubjectId><aas:values><aas:value>urn:maker</aas:value></aas:values></aas:externalSubjectId></aas:IdentifierKeyValuePair>` +
        `<aas:IdentifierKeyValuePair><aas:key>empty</aas:key></aas:IdentifierKeyValuePair></aas:specificAssetId>` +
        `<aas:defaultThumbnail><aas:path>/aasx/thumb.png</aas:path><aas:contentType>image/png</aas:contentType></aas:defaultThumbnail></aas:assetInformation>`,
    );
    const { environment, warnings } = convertV3RcXml(xml);
    expect((environment.assetAdministrationShells as Json[])[0].assetInformation).toEqual({
      assetKind: 'Type',
      globalAssetId: 'urn:asset',
      specificAssetIds: [{ name: 'serial', value: '42', externalSubjectId: { type: 'ExternalReference', keys: [{ type: 'GlobalReference', value: 'urn:maker' }] } }],
      defaultThumbnail: { path: '/aasx/thumb.png', contentType: 'image/png' },
    });
    expect(warnings).toEqual([
      '/aasenv/assetAdministrationShells/assetAdministrationShell/assetInformation/specificAssetId/IdentifierKeyValuePair[2]: specific asset id without key or value (left out; V3.0 requires both)',
    ]);
    expect(readBack(environment)).toEqual([]);
  });

  it('refuses what has no clear V3.0 form, naming the namespace and what to do: several global asset ids, another root', () => {
    const several = rcShell('<aas:assetInformation><aas:globalAssetId><aas:values><aas:value>urn:a1</aas:value><aas:value>urn:a2</aas:value></aas:values></aas:globalAssetId></aas:assetInformation>');
    expect(() => convertV3RcXml(several)).toThrow(V2XmlError);
    expect(() => convertV3RcXml(several)).toThrow(
      "The document is in the namespace of the AAS V3.0 release candidate (http://www.admin-shell.io/aas/3/0), but " +
        "/aasenv/assetAdministrationShells/assetAdministrationShell/assetInformation/globalAssetId names 2 global asset ids ('urn:a1', 'urn:a2'), and a V3.0 asset has one. " +
        'Open the package in the AASX Package Explorer',
    );
    const other = '<aas:environment xmlns:aas="http://www.admin-shell.io/aas/3/0"/>';
    expect(() => convertV3RcXml(other)).toThrow(/namespace of the AAS V3\.0 release candidate .*root element is \{http:\/\/www\.admin-shell\.io\/aas\/3\/0\}environment, not .*aasenv.*save it as AAS V3\.0/);
  });
});

describe('convertV1Xml: the V1.0 ServoDCMotor of the AASX Package Explorer', () => {
  const { environment, warnings } = convertV1Xml(fixture('ServoDCMotor_21-v1.aas.xml'));
  const cds = environment.conceptDescriptions as Json[];

  it('holds the shell (its asset merged in), 4 submodels and 19 concept descriptions, which read back', () => {
    expect([(environment.assetAdministrationShells as Json[]).length, (environment.submodels as Json[]).length, cds.length]).toEqual([1, 4, 19]);
    expect((environment.assetAdministrationShells as Json[])[0]).toMatchObject({
      id: 'http://customer.com/aas/9175_7013_7091_9168',
      assetInformation: { assetKind: 'Instance', globalAssetId: 'http://customer.com/assets/KHBVZJSQKIY' },
    });
    const found = readBack(environment);
    expect(found.every((f) => f.startsWith('.conceptDescriptions['))).toBe(true);
  });

  it('reads IEC 61360 V1.0: the template reference named hasDataSpecification, shortName as English text', () => {
    const system = cds.find((cd) => cd.idShort === 'DocumentClassificationSystem')!;
    expect(system.embeddedDataSpecifications[0].dataSpecificationContent).toEqual({
      modelType: 'DataSpecificationIec61360',
      preferredName: [{ language: 'EN', text: 'Classification System' }, { language: 'DE', text: 'Klassifikationssystem' }],
      shortName: [{ language: 'en', text: 'DocumentClassificationSystem' }],
      dataType: 'STRING',
      definition: [{ language: 'DE', text: 'Eindeutige Kennung für ein Klassifikationssystem. Für Klassifikationen nach VDI 2770 muss "VDI2770:2018" verwenden werden.' }],
    });
  });

  it('warns for what did not map, by path', () => {
    expect(warnings).toHaveLength(20);
    expect(warnings.slice(0, 2)).toEqual([
      '/aasenv/assets/asset: category, assetIdentificationModelRef of the asset dropped (V3.0 has no asset element)',
      '/aasenv/assetAdministrationShells/assetAdministrationShell/conceptDictionaries: conceptDictionaries dropped (V3.0 shells have no conceptDictionaries)',
    ]);
    expect(warnings.filter((w) => w.endsWith('shortName: shortName without language (V1.0 has none): taken as English'))).toHaveLength(7);
  });
});

describe('convertV1Xml: the parts V2.0 names otherwise', () => {
  it('qualifiers, operations with in and out variables, data specification references, key types, sources of definition', () => {
    const ref = (type: string, value: string) => `<aas:keys><aas:key type="${type}" local="true" idType="URI">${value}</aas:key></aas:keys>`;
    const xml = v1Env(
      `<aas:submodels><aas:submodel><aas:idShort>S</aas:idShort><aas:identification idType="URI">urn:s</aas:identification><aas:submodelElements>` +
        `<aas:submodelElement><aas:property><aas:idShort>P</aas:idShort>` +
        `<aas:hasDataSpecification><aas:reference>${ref('GlobalReference', 'urn:template')}</aas:reference></aas:hasDataSpecification>` +
        `<aas:qualifier><aas:qualifier><aas:qualifierType>Unit</aas:qualifierType><aas:qualifierValue>mm</aas:qualifierValue>` +
        `<aas:qualifierValueId>${ref('GlobalReference', 'urn:mm')}</aas:qualifierValueId></aas:qualifier></aas:qualifier>` +
        `<aas:valueType>double</aas:valueType><aas:value>1.5</aas:value></aas:property></aas:submodelElement>` +
        `<aas:submodelElement><aas:operation><aas:idShort>Op</aas:idShort>` +
        `<aas:in><aas:idShort>Speed</aas:idShort><aas:value><aas:property><aas:idShort>Speed</aas:idShort><aas:valueType>int</aas:valueType></aas:property></aas:value></aas:in>` +
        `<aas:out><aas:idShort>Result</aas:idShort><aas:value><aas:property><aas:idShort>Done</aas:idShort><aas:valueType>boolean</aas:valueType></aas:property></aas:value></aas:out>` +
        `</aas:operation></aas:submodelElement>` +
        `<aas:submodelElement><aas:referenceElement><aas:idShort>R</aas:idShort><aas:value><aas:keys><aas:key type="Submodel" local="true" idType="URI">urn:s</aas:key>` +
        `<aas:key type="RelationShipElement" local="true" idType="idShort">Rel</aas:key></aas:keys></aas:value></aas:referenceElement></aas:submodelElement>` +
        `</aas:submodelElements></aas:submodel></aas:submodels>` +
        `<aas:conceptDescriptions><aas:conceptDescription><aas:idShort>C</aas:idShort><aas:identification idType="URI">urn:c</aas:identification>` +
        `<aas:embeddedDataSpecification><aas:hasDataSpecification>${ref('GlobalReference', 'http://admin-shell.io/DataSpecificationTemplates/DataSpecificationIEC61360')}</aas:hasDataSpecification>` +
        `<aas:dataSpecificationContent><aas:dataSpecificationIEC61360><IEC61360:preferredName><aas:langString lang="en">Length</aas:langString></IEC61360:preferredName>` +
        `<IEC61360:sourceOfDefinition><IEC61360:langString lang="DE">DIN 1</IEC61360:langString><IEC61360:langString lang="EN">ISO 1</IEC61360:langString></IEC61360:sourceOfDefinition>` +
        `<IEC61360:dataType>STRING</IEC61360:dataType><IEC61360:definition><aas:langString lang="en">A length</aas:langString></IEC61360:definition>` +
        `</aas:dataSpecificationIEC61360></aas:dataSpecificationContent></aas:embeddedDataSpecification></aas:conceptDescription></aas:conceptDescriptions>`,
    );
    const { environment, warnings } = convertV1Xml(xml);
    expect((environment.submodels as Json[])[0].submodelElements).toEqual([
      {
        modelType: 'Property', idShort: 'P', valueType: 'xs:double', value: '1.5',
        qualifiers: [{ type: 'Unit', valueType: 'xs:string', value: 'mm', valueId: { type: 'ExternalReference', keys: [{ type: 'GlobalReference', value: 'urn:mm' }] } }],
      },
      {
        modelType: 'Operation', idShort: 'Op',
        inputVariables: [{ value: { modelType: 'Property', idShort: 'Speed', valueType: 'xs:int' } }],
        outputVariables: [{ value: { modelType: 'Property', idShort: 'Done', valueType: 'xs:boolean' } }],
      },
      { modelType: 'ReferenceElement', idShort: 'R', value: { type: 'ModelReference', keys: [{ type: 'Submodel', value: 'urn:s' }, { type: 'RelationshipElement', value: 'Rel' }] } },
    ]);
    expect((environment.conceptDescriptions as Json[])[0].embeddedDataSpecifications[0].dataSpecificationContent).toMatchObject({ sourceOfDefinition: 'ISO 1' });
    const at = '/aasenv/submodels/submodel/submodelElements/submodelElement';
    const cd = '/aasenv/conceptDescriptions/conceptDescription/embeddedDataSpecification/dataSpecificationContent/dataSpecificationIEC61360';
    expect(warnings).toEqual([
      `${at}[1]/property/qualifier/qualifier: qualifier without value type (V1.0 has none): xs:string`,
      `${at}[1]/property/hasDataSpecification: 1 reference(s) to a data specification without its content dropped (V3.0 embeds data specifications with their content)`,
      `${at}[2]/operation/out: idShort 'Result' of the operation variable dropped (a V3.0 operation variable is only its value)`,
      `${cd}/sourceOfDefinition: sourceOfDefinition in 2 languages: the 'EN' text kept, 'DE' dropped (V3.0 has one text)`,
    ]);
    expect(readBack(environment)).toEqual([]);
  });
});

describe('identifiables of one id (V1.0 and the release candidate)', () => {
  const cd = (definition: string) =>
    `<aas:conceptDescription><aas:idShort>C</aas:idShort><aas:identification idType="IRDI">0173-1#02-AAA001#001</aas:identification>` +
    `<aas:description><aas:langString lang="en">${definition}</aas:langString></aas:description></aas:conceptDescription>`;

  it('a copy of the same content is left out with a warning naming both', () => {
    const { environment, warnings } = convertV1Xml(v1Env(`<aas:conceptDescriptions>${cd('Length')}${cd('Length')}</aas:conceptDescriptions>`));
    expect(environment.conceptDescriptions).toEqual([{ modelType: 'ConceptDescription', id: '0173-1#02-AAA001#001', idShort: 'C', description: [{ language: 'en', text: 'Length' }] }]);
    expect(warnings).toEqual(['/aasenv/conceptDescriptions/conceptDescription[2]: a copy of /aasenv/conceptDescriptions/conceptDescription[1], the same id and content (left out)']);
  });

  it('copies of other content are both kept: the import keeps the first and leaves out the other with a warning', () => {
    const { environment, warnings } = convertV1Xml(v1Env(`<aas:conceptDescriptions>${cd('Length X')}${cd('Length Y')}</aas:conceptDescriptions>`));
    expect((environment.conceptDescriptions as Json[]).map((c) => c.description[0].text)).toEqual(['Length X', 'Length Y']);
    expect(warnings).toEqual([]);
    const rc = (text: string) => `<aas:submodel><aas:idShort>${text}</aas:idShort><aas:id>urn:s</aas:id></aas:submodel>`;
    expect((convertV3RcXml(rcEnv(`<aas:submodels>${rc('A')}${rc('B')}</aas:submodels>`)).environment.submodels as Json[]).map((s) => s.idShort)).toEqual(['A', 'B']);
  });
});

describe('readEnvironmentDocument: the namespaces it converts, and those it does not', () => {
  it('the release candidate package of the AASX Server: its spec part is converted, saying so', async () => {
    const { pkg, specPath, environment, warnings } = await readPackageEnvironment(path.join(FIXTURES, 'DemoAAS_V3.aasx'));
    expect(pkg.specs).toHaveLength(1);
    expect(warnings[0]).toEqual({ kind: 'version', text: `${specPath} is an AAS V3.0 release candidate environment (http://www.admin-shell.io/aas/3/0): converted to V3.0` });
    expect((environment as Json).submodels[0].submodelElements.map((e: Json) => e.modelType)).toEqual(['Property', 'SubmodelElementCollection', 'SubmodelElementList']);
  });

  it('V1.0 likewise; a refusal is a 400 naming the part; an unknown namespace is a 400 naming it', () => {
    const v1 = readEnvironmentDocument(fixture('ServoDCMotor_21-v1.aas.xml').toString('utf8'), 'xml', 'data.xml');
    expect(v1.warnings[0]).toBe('data.xml is an AAS V1.0 environment (http://www.admin-shell.io/aas/1/0): converted to V3.0');
    const refused = (() => {
      try {
        readEnvironmentDocument('<aas:environment xmlns:aas="http://www.admin-shell.io/aas/3/0"/>', 'xml', 'data.xml');
      } catch (err) {
        return err;
      }
    })();
    expect(refused).toMatchObject({ extensions: { code: 'BAD_REQUEST' }, message: expect.stringMatching(/^data\.xml: The document is in the namespace of the AAS V3\.0 release candidate \(http:\/\/www\.admin-shell\.io\/aas\/3\/0\)/) });
    expect(() => readEnvironmentDocument('<aasenv xmlns="http://www.admin-shell.io/aas/4/0"/>', 'xml', 'data.xml')).toThrow(/^data\.xml: .*'http:\/\/www\.admin-shell\.io\/aas\/4\/0'/);
  });
});
