import { readFileSync } from 'node:fs';
import path from 'node:path';
import { jsonization } from '@aas-core-works/aas-core3.0-typescript';
import { describe, expect, it } from 'vitest';
import { V2XmlError, convertV2Xml } from '../../src/aas/xml/v2';
import { readXmlTree, type XmlNode } from '../../src/aas/xml/v2-tree';
import { readBack } from '../support/read-back';
import { LOAD_SLACK_MS } from '../support/timing';
import { xsdProblems } from '../support/xsd';

const FIXTURES = path.resolve(__dirname, '../fixtures/aas-v2');
const XSD = path.join(FIXTURES, 'schema/AAS.xsd');
const SAMPLES = ['pump-nameplate.xml', 'edge-cases.xml', 'basyx-demo-full-example.xml'];

const fixture = (name: string) => readFileSync(path.join(FIXTURES, name));
type Json = Record<string, any>;

const V2 = 'xmlns:aas="http://www.admin-shell.io/aas/2/0" xmlns:IEC61360="http://www.admin-shell.io/IEC61360/2/0"';
const env = (body: string) => `<?xml version="1.0"?><aas:aasenv ${V2}>${body}</aas:aasenv>`;
const submodel = (elements: string) =>
  env(`<aas:submodels><aas:submodel><aas:idShort>S</aas:idShort><aas:identification idType="IRI">urn:s</aas:identification>` +
    `<aas:submodelElements>${elements}</aas:submodelElements></aas:submodel></aas:submodels>`);
const keys = (type: string, value: string) => `<aas:keys><aas:key type="${type}" local="true" idType="IRI">${value}</aas:key></aas:keys>`;

describe('V2.0 XML fixtures', () => {
  it.each(SAMPLES)('%s is valid against the V2.0.1 XSD', async (name) => {
    expect(await xsdProblems(XSD, [{ name, contents: fixture(name).toString('utf8') }])).toEqual([]);
  });
});

describe('convertV2Xml: the nameplate sample', () => {
  const { environment, warnings } = convertV2Xml(fixture('pump-nameplate.xml'));
  const [shell] = environment.assetAdministrationShells as Json[];
  const [nameplate, technical] = environment.submodels as Json[];
  const cds = environment.conceptDescriptions as Json[];
  const element = (sm: Json, idShort: string) => (sm.submodelElements as Json[]).find((e) => e.idShort === idShort)!;

  it('reads back with the metamodel library; the one violation is the IEC 61360 data type URL (now IRI) of a PROPERTY', () => {
    expect(readBack(environment)).toEqual([
      '.conceptDescriptions[3]: Constraint AASc-3a-004: For a',
    ]);
  });

  it('maps the shell: id, administration, description, derivedFrom, the asset, the submodel references', () => {
    expect(shell).toMatchObject({
      modelType: 'AssetAdministrationShell',
      id: 'https://example.com/ids/aas/pump-p100-0042',
      idShort: 'Pump_P100',
      category: 'CONSTANT',
      administration: { version: '1', revision: '0' },
      description: [
        { language: 'en', text: 'Centrifugal pump P100, serial 0042' },
        { language: 'de', text: 'Kreiselpumpe P100, Seriennummer 0042' },
      ],
      derivedFrom: { type: 'ModelReference', keys: [{ type: 'AssetAdministrationShell', value: 'https://example.com/ids/aas/pump-p100-type' }] },
      assetInformation: { assetKind: 'Instance', globalAssetId: 'https://example.com/ids/asset/pump-p100-0042' },
    });
    expect(shell.submodels).toEqual([
      { type: 'ModelReference', keys: [{ type: 'Submodel', value: 'https://example.com/ids/sm/pump-p100-0042/nameplate' }] },
      { type: 'ModelReference', keys: [{ type: 'Submodel', value: 'https://example.com/ids/sm/pump-p100-0042/technical-data' }] },
    ]);
  });

  it('maps submodels, nested collections, multi-language properties, files and qualifiers', () => {
    expect(nameplate).toMatchObject({
      kind: 'Instance',
      administration: { version: '1' },
      semanticId: { type: 'ModelReference', keys: [{ type: 'Submodel', value: 'https://admin-shell.io/zvei/nameplate/1/0/Nameplate' }] },
    });
    expect(element(nameplate, 'ManufacturerName')).toEqual({
      modelType: 'MultiLanguageProperty',
      idShort: 'ManufacturerName',
      category: 'PARAMETER',
      semanticId: { type: 'ModelReference', keys: [{ type: 'ConceptDescription', value: '0173-1#02-AAO677#002' }] },
      value: [{ language: 'en', text: 'Example Pumps Ltd.' }, { language: 'de', text: 'Beispielpumpen GmbH' }],
    });
    const address = element(nameplate, 'Address');
    expect(address.modelType).toBe('SubmodelElementCollection');
    expect(address).not.toHaveProperty('ordered');
    const phone = address.value.find((e: Json) => e.idShort === 'Phone');
    expect(phone.value[1]).toEqual({ modelType: 'Property', idShort: 'TypeOfTelephone', category: 'PARAMETER', valueType: 'xs:string', value: '1' });
    expect(element(nameplate, 'SerialNumber').qualifiers).toEqual([{ type: 'Multiplicity', valueType: 'xs:string', value: 'One' }]);
    expect(element(nameplate, 'DateOfManufacture')).toMatchObject({ valueType: 'xs:date', value: '2021-06-30' });
    const marking = element(nameplate, 'Markings').value[0];
    expect(marking.value[1]).toEqual({
      modelType: 'File', idShort: 'MarkingFile', category: 'PARAMETER', contentType: 'image/png', value: '/aasx/Nameplate/marking_ce.png',
    });
  });

  it('maps every other element kind of the technical data submodel', () => {
    expect(technical.semanticId).toEqual({ type: 'ExternalReference', keys: [{ type: 'GlobalReference', value: 'https://admin-shell.io/ZVEI/TechnicalData/Submodel/1/1' }] });
    expect(technical).not.toHaveProperty('qualifiers'); // the formula
    expect(element(technical, 'MaxRotationSpeed')).toMatchObject({ valueType: 'xs:int', value: '3000' });
    expect(element(technical, 'HousingMaterial').valueId).toEqual({ type: 'ExternalReference', keys: [{ type: 'GlobalReference', value: '0173-1#07-AAA001#001' }] });
    expect(element(technical, 'ExplosionProof')).toMatchObject({ valueType: 'xs:boolean', value: 'true' });
    expect(element(technical, 'OperatingPressure')).toMatchObject({ modelType: 'Range', valueType: 'xs:double', min: '1.5', max: '16' });
    expect(element(technical, 'PumpCurve')).toMatchObject({ modelType: 'Blob', contentType: 'application/json', value: 'eyJxIjpbMCwxMCwyMF0sImgiOls0MCwzNSwyMl19' });
    expect(element(technical, 'SerialNumberRef').value).toEqual({
      type: 'ModelReference',
      keys: [{ type: 'Submodel', value: 'https://example.com/ids/sm/pump-p100-0042/nameplate' }, { type: 'Property', value: 'SerialNumber' }],
    });
    expect(element(technical, 'Motor')).toEqual({
      modelType: 'Entity',
      idShort: 'Motor',
      entityType: 'SelfManagedEntity',
      globalAssetId: 'https://example.com/ids/asset/motor-m7-1234',
      statements: [{ modelType: 'Property', idShort: 'RatedPower', category: 'PARAMETER', valueType: 'xs:decimal', value: '7.5' }],
    });
    expect(element(technical, 'MotorDrivesPump')).toMatchObject({ modelType: 'RelationshipElement', second: { type: 'ModelReference' } });
    expect(element(technical, 'CoupledTo')).toMatchObject({
      modelType: 'AnnotatedRelationshipElement',
      second: { type: 'ExternalReference', keys: [{ type: 'GlobalReference', value: 'https://example.com/ids/asset/coupling-c3' }] },
      annotations: [{ modelType: 'Property', idShort: 'CouplingType', value: 'elastic' }],
    });
    expect(element(technical, 'Calibrate')).toEqual({
      modelType: 'Operation',
      idShort: 'Calibrate',
      inputVariables: [{ value: { modelType: 'Property', idShort: 'TargetFlow', valueType: 'xs:double' } }],
      outputVariables: [{ value: { modelType: 'Property', idShort: 'Deviation', valueType: 'xs:double' } }],
    });
    expect(element(technical, 'Pumping')).toEqual({ modelType: 'Capability', idShort: 'Pumping' });
    expect(element(technical, 'OverTemperature')).toMatchObject({ modelType: 'BasicEventElement', direction: 'output', state: 'off', observed: { type: 'ModelReference' } });
  });

  it('maps concept descriptions with IEC 61360 content: value list, level type, unit id, isCaseOf', () => {
    const iec = (cd: Json) => cd.embeddedDataSpecifications[0];
    for (const cd of cds) {
      expect(iec(cd).dataSpecification).toEqual({
        type: 'ExternalReference',
        keys: [{ type: 'GlobalReference', value: 'https://admin-shell.io/DataSpecificationTemplates/DataSpecificationIec61360/3/0' }],
      });
    }
    expect(iec(cds[0]).dataSpecificationContent).toEqual({
      modelType: 'DataSpecificationIec61360',
      preferredName: [{ language: 'en', text: 'Manufacturer name' }, { language: 'de', text: 'Herstellername' }],
      shortName: [{ language: 'en', text: 'ManufacturerName' }],
      sourceOfDefinition: 'ECLASS',
      dataType: 'STRING_TRANSLATABLE',
      definition: [{ language: 'en', text: expect.stringMatching(/^legally valid designation/) }],
    });
    expect(iec(cds[1]).dataSpecificationContent).toMatchObject({
      unit: '1/min',
      unitId: { type: 'ExternalReference', keys: [{ type: 'GlobalReference', value: '0173-1#05-AAA650#002' }] },
      symbol: 'n',
      dataType: 'REAL_MEASURE',
      valueFormat: 'NR1..5',
      levelType: { min: false, nom: true, typ: false, max: true },
    });
    expect(cds[1].isCaseOf).toEqual([{ type: 'ExternalReference', keys: [{ type: 'GlobalReference', value: '0173-1#02-AAC942#004' }] }]);
    expect(cds[2].administration).toEqual({ version: '2', revision: '1' });
    expect(iec(cds[2]).dataSpecificationContent.valueList).toEqual({
      valueReferencePairs: [
        { value: 'stainless steel', valueId: { type: 'ExternalReference', keys: [{ type: 'GlobalReference', value: '0173-1#07-AAA001#001' }] } },
        { value: 'cast iron', valueId: { type: 'ExternalReference', keys: [{ type: 'GlobalReference', value: '0173-1#07-AAA002#001' }] } },
      ],
    });
    expect(iec(cds[3]).dataSpecificationContent.dataType).toBe('IRI');
  });

  it('warns about what did not map, by XML path', () => {
    const shellPath = '/aasenv/assetAdministrationShells/assetAdministrationShell';
    expect(warnings).toEqual([
      '/aasenv/assets/asset: description of the asset dropped (V3.0 has no asset element)',
      `${shellPath}/views: views dropped (V3.0 shells have no views)`,
      `${shellPath}/conceptDictionaries: conceptDictionaries dropped (V3.0 shells have no conceptDictionaries)`,
      '/aasenv/submodels/submodel[2]/qualifier/formula: formula dropped (V3.0 has no formulas)',
      '/aasenv/submodels/submodel[2]/submodelElements/submodelElement[13]/basicEvent: basic event: direction output and state off (V3.0 requires both; V2 has neither)',
      '/aasenv/conceptDescriptions/conceptDescription[4]/embeddedDataSpecification/dataSpecificationContent/dataSpecificationIEC61360/dataType: IEC 61360 data type URL: IRI',
      "/aasenv: 'ordered' or 'allowDuplicates' of 1 submodel element collection(s) dropped (V3.0 collections have neither)",
    ]);
  });
});

describe('convertV2Xml: V2 that V3.0 has no place for (edge-cases.xml)', () => {
  const { environment, warnings } = convertV2Xml(fixture('edge-cases.xml'));
  const shells = environment.assetAdministrationShells as Json[];
  const [settings] = environment.submodels as Json[];
  const byIdShort = (idShort: string) => (settings.submodelElements as Json[]).find((e) => e.idShort === idShort);

  it('reads back; the violations are the idShorts with a blank, kept as they were', () => {
    expect(readBack(environment)).toEqual([
      '.assetAdministrationShells[1].idShort: ID-short of Referables shall o',
      '.submodels[0].submodelElements[0].idShort: ID-short of Referables shall o',
    ]);
  });

  it('merges assets into asset information: Template is Type, no kind is Instance, a missing asset keeps its id', () => {
    expect(shells.map((s) => s.assetInformation)).toEqual([
      { assetKind: 'Type', globalAssetId: 'urn:example:asset:valve-type' },
      { assetKind: 'Instance', globalAssetId: 'https://example.com/ids/asset/valve-7' },
      { assetKind: 'Instance', globalAssetId: 'https://example.com/ids/asset/sensor-not-here' },
    ]);
    expect(shells[1].idShort).toBe('Valve 7');
  });

  it('maps value types, empty values, content types, references to gone types, entities and IEC 61360 leftovers', () => {
    expect(settings.kind).toBe('Template');
    expect(settings.qualifiers).toEqual([{
      type: 'ExpressionSemantic',
      valueType: 'xs:string',
      value: '1.0',
      semanticId: { type: 'ExternalReference', keys: [{ type: 'GlobalReference', value: 'https://example.com/ids/qualifiers/expression-semantic' }] },
      valueId: { type: 'ExternalReference', keys: [{ type: 'GlobalReference', value: 'https://example.com/ids/qualifier-values/requirement' }] },
    }]);
    expect(settings).not.toHaveProperty('embeddedDataSpecifications');
    expect(byIdShort('Opening Angle')).toMatchObject({ valueType: 'xs:string', value: 'fully open' });
    expect(byIdShort('Timestamp')).toMatchObject({ valueType: 'xs:dateTime' });
    expect(byIdShort('Unset')).toEqual({ modelType: 'Property', idShort: 'Unset', valueType: 'xs:int' });
    expect(byIdShort('Manual')).toMatchObject({ contentType: 'application/octet-stream', value: '/aasx/manual.pdf' });
    expect(byIdShort('ToView')).toEqual({ modelType: 'ReferenceElement', idShort: 'ToView' });
    expect(byIdShort('ToAsset')!.value).toEqual({ type: 'ExternalReference', keys: [{ type: 'GlobalReference', value: 'https://example.com/ids/asset/valve-7' }] });
    expect(byIdShort('Actuator')).toEqual({ modelType: 'Entity', idShort: 'Actuator', entityType: 'CoManagedEntity' });
    const [openingState, nameless] = environment.conceptDescriptions as Json[];
    expect(openingState.embeddedDataSpecifications[0].dataSpecificationContent).toEqual({
      modelType: 'DataSpecificationIec61360',
      preferredName: [{ language: 'en', text: 'opening state' }],
      dataType: 'INTEGER_COUNT',
      value: 'open',
    });
    expect(nameless).not.toHaveProperty('embeddedDataSpecifications');
  });

  it('warns about each', () => {
    const sme = '/aasenv/submodels/submodel/submodelElements/submodelElement';
    const iec = (n: number) => `/aasenv/conceptDescriptions/conceptDescription[${n}]/embeddedDataSpecification/dataSpecificationContent/dataSpecificationIEC61360`;
    expect(warnings).toEqual([
      "/aasenv/assetAdministrationShells/assetAdministrationShell[2]/idShort: idShort 'Valve 7' is not a valid V3.0 idShort (kept)",
      '/aasenv/assets/asset[2]: asset without kind: Instance',
      '/aasenv/assets/asset[2]: assetIdentificationModelRef of the asset dropped (V3.0 has no asset element)',
      "/aasenv/assetAdministrationShells/assetAdministrationShell[3]/assetRef: the asset 'https://example.com/ids/asset/sensor-not-here' is not in the environment: asset kind Instance, global asset id from the reference",
      "/aasenv/submodels/submodel/qualifier/qualifier/valueType: value type 'float32' unknown: xs:string",
      '/aasenv/submodels/submodel/embeddedDataSpecification: embedded data specification without IEC 61360 content dropped (V3.0 requires a content)',
      `${sme}[1]/property/idShort: idShort 'Opening Angle' is not a valid V3.0 idShort (kept)`,
      `${sme}[1]/property/valueType: value type 'langString' is no V3.0 value type: xs:string`,
      `${sme}[2]/property/valueType: value type 'dateTimeStamp' is no V3.0 value type: xs:dateTime`,
      `${sme}[4]/file: no mimeType: content type application/octet-stream`,
      `${sme}[5]/referenceElement/value/keys/key[2]: a reference to a View, which V3.0 does not have (reference left out)`,
      `${sme}[6]/referenceElement/value/keys/key: key type Asset: GlobalReference (V3.0 names assets by their global asset id)`,
      `${sme}[7]/entity/assetRef: asset reference of a co-managed entity dropped (V3.0 allows a global asset id only for self-managed entities)`,
      `${iec(1)}/dataType: IEC 61360 data type INTEGER: INTEGER_COUNT`,
      `${iec(1)}/valueId: IEC 61360 valueId dropped (V3.0 has none)`,
      `${iec(2)}: IEC 61360 content without preferredName dropped (V3.0 requires one)`,
      "/aasenv/assets/asset[3]: asset 'https://example.com/ids/asset/orphan' is the asset of no shell (left out: V3.0 has assets only as a shell's asset information)",
    ]);
  });
});

describe('convertV2Xml: the BaSyx V2.0.1 demo example (a real V2 file from another implementation)', () => {
  const { environment, warnings } = convertV2Xml(fixture('basyx-demo-full-example.xml'));

  it('reads back; the violations are V2 versions like "0.9", references that start at an element, duplicate variable idShorts', () => {
    const kinds = new Set(readBack(environment).map((m) => m.replace(/^[^:]*: /, '').slice(0, 30)));
    expect([...kinds].sort()).toEqual([
      'Constraint AASc-3a-010: If val', // a V2 concept description with both a value and a value list
      'Constraint AASd-121: For Refer',
      'Constraint AASd-123: For model',
      'Constraint AASd-134: For an Op',
      'Version type shall match the v',
    ]);
    expect((environment.assetAdministrationShells as Json[]).length).toBe(4);
    expect((environment.submodels as Json[]).length).toBe(7);
    expect((environment.conceptDescriptions as Json[]).length).toBe(4);
  });

  it('warns about views, concept dictionaries, formulas, events and asset parts', () => {
    expect(warnings.some((w) => w.endsWith('views: views dropped (V3.0 shells have no views)'))).toBe(true);
    expect(warnings.filter((w) => w.includes('formula dropped'))).toHaveLength(2);
    expect(warnings.filter((w) => w.includes('basic event: direction output'))).toHaveLength(4);
    expect(warnings.some((w) => w.includes('assetIdentificationModelRef, billOfMaterialRef of the asset dropped'))).toBe(true);
  });
});

/** Writes a tree back as XML (each element declares its namespace), leaving out `skip`. */
function toXml(node: XmlNode, skip?: XmlNode): string {
  if (node === skip) return '';
  const escape = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/"/g, '&quot;');
  const attributes = Object.entries(node.attributes).map(([k, v]) => ` ${k}="${escape(v)}"`).join('');
  return `<${node.local} xmlns="${node.uri}"${attributes}>${escape(node.text)}${node.children.map((c) => toXml(c, skip)).join('')}</${node.local}>`;
}

describe('convertV2Xml: never a crash', () => {
  it('converts the nameplate with any one element left out into an environment the library reads', () => {
    const root = readXmlTree(fixture('pump-nameplate.xml').toString('utf8'));
    const all: XmlNode[] = [];
    const walk = (n: XmlNode) => {
      all.push(n);
      n.children.forEach(walk);
    };
    root.children.forEach(walk);
    expect(all.length).toBeGreaterThan(400);
    for (const skip of all) {
      const { environment } = convertV2Xml(toXml(root, skip));
      const parsed = jsonization.environmentFromJsonable(environment as jsonization.JsonValue);
      expect(parsed.error?.message, toXml(skip).slice(0, 200)).toBeUndefined();
    }
  });

  it('reports unknown elements, foreign namespaces and unknown element kinds by path, and leaves them out', () => {
    const xml = submodel(
      '<aas:submodelElement><aas:submodelElementList><aas:idShort>L</aas:idShort></aas:submodelElementList></aas:submodelElement>' +
      '<aas:submodelElement><aas:property><aas:idShort>P</aas:idShort><aas:valueType>int</aas:valueType><aas:value>1</aas:value>' +
      '<aas:unit>m</aas:unit><x:note xmlns:x="urn:other">hi</x:note></aas:property></aas:submodelElement>',
    );
    const { environment, warnings } = convertV2Xml(xml);
    expect((environment.submodels as Json[])[0].submodelElements).toEqual([{ modelType: 'Property', idShort: 'P', valueType: 'xs:int', value: '1' }]);
    expect(warnings).toEqual([
      "/aasenv/submodels/submodel/submodelElements/submodelElement[1]/submodelElementList: unknown submodel element kind 'submodelElementList' (left out)",
      '/aasenv/submodels/submodel/submodelElements/submodelElement[2]/property/unit: unknown element (left out)',
      "/aasenv/submodels/submodel/submodelElements/submodelElement[2]/property/note: element in the foreign namespace 'urn:other' (left out)",
    ]);
  });

  it('leaves out identifiables without identification and elements missing what V3.0 requires', () => {
    const xml = env(
      '<aas:assetAdministrationShells><aas:assetAdministrationShell><aas:idShort>NoId</aas:idShort></aas:assetAdministrationShell></aas:assetAdministrationShells>' +
      '<aas:submodels><aas:submodel><aas:idShort>S</aas:idShort><aas:identification>urn:s</aas:identification><aas:submodelElements>' +
      `<aas:submodelElement><aas:relationshipElement><aas:idShort>R</aas:idShort><aas:first>${keys('Submodel', 'urn:s')}</aas:first></aas:relationshipElement></aas:submodelElement>` +
      '<aas:submodelElement><aas:basicEvent><aas:idShort>E</aas:idShort></aas:basicEvent></aas:submodelElement>' +
      '<aas:submodelElement><aas:referenceElement><aas:idShort>Empty</aas:idShort><aas:value><aas:keys/></aas:value></aas:referenceElement></aas:submodelElement>' +
      '<aas:submodelElement/>' +
      '</aas:submodelElements></aas:submodel></aas:submodels>',
    );
    const { environment, warnings } = convertV2Xml(xml);
    expect(environment).toEqual({ submodels: [{ modelType: 'Submodel', id: 'urn:s', idShort: 'S', submodelElements: [{ modelType: 'ReferenceElement', idShort: 'Empty' }] }] });
    expect(readBack(environment)).toEqual([]);
    expect(warnings).toEqual([
      '/aasenv/assetAdministrationShells/assetAdministrationShell: AssetAdministrationShell without identification (left out)',
      '/aasenv/submodels/submodel/submodelElements/submodelElement[1]/relationshipElement: RelationshipElement without second (left out; V3.0 requires both)',
      '/aasenv/submodels/submodel/submodelElements/submodelElement[2]/basicEvent: basic event without observed (left out; V3.0 requires it)',
      '/aasenv/submodels/submodel/submodelElements/submodelElement[4]: empty (left out)',
    ]);
  });

  it('takes a reference without keys for none, as V2 tools write it, without a warning', () => {
    const xml = submodel('<aas:submodelElement><aas:property><aas:idShort>P</aas:idShort><aas:semanticId><aas:keys/></aas:semanticId>' +
      '<aas:valueType>string</aas:valueType><aas:valueId><aas:keys/></aas:valueId></aas:property></aas:submodelElement>');
    expect(convertV2Xml(xml)).toEqual({
      environment: { submodels: [{ modelType: 'Submodel', id: 'urn:s', idShort: 'S', submodelElements: [{ modelType: 'Property', idShort: 'P', valueType: 'xs:string' }] }] },
      warnings: [],
    });
  });

  it('reports at most 1000 warnings and counts the rest', () => {
    const { warnings } = convertV2Xml(env('<aas:x/>'.repeat(2500)));
    expect(warnings).toHaveLength(1001);
    expect(warnings[999]).toBe('/aasenv/x[1000]: unknown element (left out)');
    expect(warnings[1000]).toBe('... and 1500 more warnings');
  });

  it('reads what other V2 writers do: bare qualifiers, operation variables wrapped once more, V2 key types renamed in V3.0', () => {
    const xml = submodel(
      '<aas:submodelElement><aas:operation><aas:idShort>Op</aas:idShort>' +
      '<aas:inoutputVariable><aas:value><aas:submodelElement><aas:property><aas:idShort>X</aas:idShort><aas:valueType>xs:Boolean</aas:valueType>' +
      '<aas:value>FALSE</aas:value></aas:property></aas:submodelElement></aas:value></aas:inoutputVariable></aas:operation></aas:submodelElement>' +
      '<aas:submodelElement><aas:property><aas:idShort>Q</aas:idShort>' +
      '<aas:qualifier><aas:type>Cardinality</aas:type><aas:valueType>string</aas:valueType><aas:value>One</aas:value></aas:qualifier>' +
      `<aas:valueType>string</aas:valueType></aas:property></aas:submodelElement>` +
      `<aas:submodelElement><aas:referenceElement><aas:idShort>ToEvent</aas:idShort><aas:value><aas:keys>` +
      '<aas:key type="Submodel" local="true" idType="IRI">urn:s</aas:key><aas:key type="BasicEvent" local="true" idType="IdShort">E</aas:key>' +
      '</aas:keys></aas:value></aas:referenceElement></aas:submodelElement>',
    );
    const { environment, warnings } = convertV2Xml(xml);
    expect(warnings).toEqual([]);
    expect((environment.submodels as Json[])[0].submodelElements).toEqual([
      { modelType: 'Operation', idShort: 'Op', inoutputVariables: [{ value: { modelType: 'Property', idShort: 'X', valueType: 'xs:boolean', value: 'false' } }] },
      { modelType: 'Property', idShort: 'Q', valueType: 'xs:string', qualifiers: [{ type: 'Cardinality', valueType: 'xs:string', value: 'One' }] },
      { modelType: 'ReferenceElement', idShort: 'ToEvent', value: { type: 'ModelReference', keys: [{ type: 'Submodel', value: 'urn:s' }, { type: 'BasicEventElement', value: 'E' }] } },
    ]);
    expect(readBack(environment)).toEqual([]);
  });

  it('reads byte input in UTF-16 with a byte order mark and in a declared ISO-8859-1', () => {
    const xml = submodel('<aas:submodelElement><aas:property><aas:idShort>Ort</aas:idShort><aas:valueType>string</aas:valueType><aas:value>Grüße</aas:value></aas:property></aas:submodelElement>');
    const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(xml.replace('<?xml version="1.0"?>', ''), 'utf16le')]);
    const latin1 = Buffer.from(xml.replace('<?xml version="1.0"?>', '<?xml version="1.0" encoding="ISO-8859-1"?>'), 'latin1');
    for (const input of [utf16, latin1]) {
      expect((convertV2Xml(input).environment.submodels as Json[])[0].submodelElements[0].value).toBe('Grüße');
    }
  });

  it('leaves the V1.0 namespace to its own converter (test/unit/xml-legacy.test.ts)', () => {
    const xml = env('').replace('aas/2/0', 'aas/1/0');
    expect(() => convertV2Xml(xml)).toThrow(/not an AAS V2\.0 environment: its root element is \{http:\/\/www\.admin-shell\.io\/aas\/1\/0\}aasenv/);
  });
});

describe('convertV2Xml: what cannot be converted is a V2XmlError', () => {
  const fails = (input: string | Buffer, message: RegExp, limits?: Parameters<typeof convertV2Xml>[1]) => {
    expect(() => convertV2Xml(input, limits)).toThrow(V2XmlError);
    expect(() => convertV2Xml(input, limits)).toThrow(message);
  };

  it('refuses what is not XML or not a V2 environment', () => {
    fails('{"assetAdministrationShells": []}', /not well-formed XML/);
    fails('', /no root element/);
    fails(`<aas:aasenv ${V2}><aas:submodels></aas:aasenv>`, /not well-formed XML/);
    fails('<environment xmlns="https://admin-shell.io/aas/3/0"/>', /not an AAS V2.0 environment: its root element is \{https:\/\/admin-shell.io\/aas\/3\/0\}environment/);
    fails('<aasenv/>', /not an AAS V2.0 environment/);
    fails('<aas:aasenv/>', /not well-formed XML: Unbound namespace prefix/);
  });

  it('refuses DTDs and entities at once: billion laughs, XXE, an undefined entity', () => {
    const laughs = '<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol">' +
      Array.from({ length: 9 }, (_, i) => `<!ENTITY lol${i + 1} "${`&lol${i || ''};`.repeat(10)}">`).join('') +
      `]><aas:aasenv ${V2}><aas:submodels>&lol9;</aas:submodels></aas:aasenv>`;
    const started = Date.now();
    fails(laughs, /DOCTYPE declaration, which is not allowed/);
    // Expanded, the entities would take minutes and gigabytes; refused, milliseconds and what a loaded machine adds.
    expect(Date.now() - started).toBeLessThan(1000 + LOAD_SLACK_MS);
    fails(`<?xml version="1.0"?><!DOCTYPE aasenv [<!ENTITY xxe SYSTEM "file:///etc/passwd">]><aas:aasenv ${V2}>&xxe;</aas:aasenv>`, /DOCTYPE/);
    fails(`<!DOCTYPE aasenv SYSTEM "http://example.com/aas.dtd"><aas:aasenv ${V2}/>`, /DOCTYPE/);
    fails(env('<aas:submodels>&xxe;</aas:submodels>'), /not well-formed XML: Invalid character entity/);
  });

  it('refuses documents beyond the size, depth and element limits', () => {
    const limits = { maxChars: 10_000, maxDepth: 20, maxElements: 100 };
    fails(env(' '.repeat(10_000)), /larger than 10000 characters/, limits);
    fails(env(`${'<aas:x>'.repeat(30)}${'</aas:x>'.repeat(30)}`), /Submodel elements nest at most 100 levels deep \(20 XML elements\)/, limits);
    fails(env('<aas:x/>'.repeat(200)), /more than 100 elements/, limits);
    const deep = env(`${'<aas:x>'.repeat(100_000)}${'</aas:x>'.repeat(100_000)}`);
    fails(deep, /Submodel elements nest at most 100 levels deep \(332 XML elements\)/);
  });
});
