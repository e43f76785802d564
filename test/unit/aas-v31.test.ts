import fs from 'node:fs';
import path from 'node:path';
import { jsonization } from '@aas-core-works/aas-core3.0-typescript';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { classesWithModelType, generateSchemaTable, jsonizationSource } from '../../scripts/gen-xml-schema-table';
import { readEnvironmentDocument } from '../../src/aas/import/environment-document';
import { parseVerified, type JsonObject } from '../../src/aas/model/parse';
import { mapV31Environment } from '../../src/aas/model/v31-mapping';
import { XmlReadError, readXmlEnvironment } from '../../src/aas/xml/reader';
import * as table30 from '../../src/aas/xml/schema-table';
import { AAS_V31_NAMESPACE, AAS_V31_XML } from '../../src/aas/xml/v31';

/**
 * AAS V3.1 read and mapped onto V3.0: the XML dialect against the V3.1 schema, and each mapping rule, from JSON and
 * from V3.1 XML alike, with its warning; what V3.1 relaxed in constraints only is kept and reported by the V3.0
 * verification.
 */

const XSD_31 = path.resolve(__dirname, '../fixtures/aas-metamodel-v3.1/AAS.xsd');

type Table = typeof table30;

/** The table `scripts/gen-xml-schema-table.ts` generates from the V3.1 schema, evaluated. */
function table31(): Table {
  const source = generateSchemaTable(fs.readFileSync(XSD_31, 'utf8'), classesWithModelType(jsonizationSource()));
  const js = ts.transpileModule(source, { compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022 } }).outputText;
  const exports = {} as Table;
  new Function('exports', js)(exports);
  return exports;
}

describe('the V3.1 XML dialect', () => {
  it('is the V3.1 schema: its table is the V3.0 one but for the namespace, the optional elements and the literals the dialect names', () => {
    const v31 = table31();
    expect(v31.AAS_NAMESPACE).toBe(AAS_V31_NAMESPACE);
    expect(Object.keys(v31.CLASSES).sort()).toEqual(Object.keys(table30.CLASSES).sort());
    expect(v31.CHOICES).toEqual(table30.CHOICES);
    const madeOptional: Record<string, string[]> = {};
    for (const [name, cls] of Object.entries(v31.CLASSES)) {
      const old = table30.CLASSES[name];
      expect(cls.modelType, name).toBe(old.modelType);
      // The reader takes elements in any order (V3.1 swapped EmbeddedDataSpecification's two): compare by name.
      const byName = (props: readonly table30.XmlProperty[]) => Object.fromEntries(props.map((p) => [p.name, { ...p, required: undefined }]));
      expect(byName(cls.properties), name).toEqual(byName(old.properties));
      for (const p of cls.properties) {
        const before = old.properties.find((o) => o.name === p.name)!;
        if (before.required && !p.required) (madeOptional[name] ??= []).push(p.name);
        else expect(p.required, `${name}.${p.name}`).toBe(before.required);
      }
    }
    expect(madeOptional).toEqual(AAS_V31_XML.optional);
    const added: Record<string, string[]> = {};
    for (const [name, literals] of Object.entries(v31.ENUMS)) {
      expect(literals, name).toEqual(expect.arrayContaining([...table30.ENUMS[name]]));
      const more = literals.filter((l) => !table30.ENUMS[name].includes(l));
      if (more.length) added[name] = more;
    }
    expect(added).toEqual(AAS_V31_XML.literals);
  });

  it('reads the 3/1 namespace only with the dialect, and the 3/0 one still requires what V3.0 requires', () => {
    const doc = (ns: string) => `<environment xmlns="${ns}"><submodels><submodel><id>urn:x</id><submodelElements><file><idShort>F</idShort></file></submodelElements></submodel></submodels></environment>`;
    expect(readXmlEnvironment(doc(AAS_V31_NAMESPACE), { dialect: AAS_V31_XML })).toEqual({
      submodels: [{ modelType: 'Submodel', id: 'urn:x', submodelElements: [{ modelType: 'File', idShort: 'F' }] }],
    });
    const refused = (xml: string) => {
      try {
        readXmlEnvironment(xml);
      } catch (err) {
        return err as XmlReadError;
      }
      throw new Error('read');
    };
    expect(refused(doc(AAS_V31_NAMESPACE))).toMatchObject({ code: 'NAMESPACE' });
    expect(refused(doc('https://admin-shell.io/aas/3/0'))).toMatchObject({ code: 'MISSING_ELEMENT', message: expect.stringContaining('<contentType>') });
  });
});

// ---------------------------------------------------------------------------------------------------------------
// The mapping rules, each from JSON and from V3.1 XML.

const shell = (assetKind: string) => ({
  modelType: 'AssetAdministrationShell',
  id: 'urn:v31:shell',
  assetInformation: { assetKind, globalAssetId: 'urn:v31:asset' },
});

/** A V3.1 submodel in JSON with the elements given, and the same in V3.1 XML. */
function submodelDocs(elementsJson: JsonObject[], elementsXml: string) {
  return {
    json: JSON.stringify({ submodels: [{ modelType: 'Submodel', id: 'urn:v31:sm', idShort: 'Sm', submodelElements: elementsJson }] }),
    xml: `<?xml version="1.0" encoding="utf-8"?><environment xmlns="${AAS_V31_NAMESPACE}"><submodels><submodel><idShort>Sm</idShort><id>urn:v31:sm</id><submodelElements>${elementsXml}</submodelElements></submodel></submodels></environment>`,
  };
}

const ref = (value: string) => ({ type: 'ExternalReference', keys: [{ type: 'GlobalReference', value }] });
const refXml = (name: string, value: string) => `<${name}><type>ExternalReference</type><keys><key><type>GlobalReference</type><value>${value}</value></key></keys></${name}>`;

/**
 * Reads `doc` in both formats: the environment is read as written (the XML one equal to the JSON one); then the
 * mapping a V3.0 client reads it through (`mapV31Environment`) is applied to a copy, and that copy verified as V3.0.
 * The environment mapped, the mapping's warnings, and the V3.0 verification's findings.
 */
function readBoth(docs: { json: string; xml: string }, contentTypeOf?: (value: string) => string | undefined) {
  return (['json', 'xml'] as const).map((format) => {
    const read = readEnvironmentDocument(docs[format], format, `env.${format}`);
    expect(read.environment).toEqual(JSON.parse(docs.json));
    expect(read.warnings).toEqual([]);
    expect(read.version).toBe(format === 'xml' ? '3.1' : undefined);
    const environment = structuredClone(read.environment) as JsonObject;
    const warnings: string[] = [];
    mapV31Environment(environment, warnings, { contentTypeOf });
    const verification: string[] = [];
    // The V3.0 metamodel reads what the mapping gives (a 400 would throw here).
    parseVerified('Environment', jsonization.environmentFromJsonable, environment, verification);
    return { format, environment, warnings, verification };
  });
}

const elementsOf = (env: JsonObject) => ((env.submodels as JsonObject[])[0].submodelElements ?? []) as JsonObject[];

describe('V3.1 read as written, and mapped onto V3.0 for V3.0 clients', () => {
  it('AssetKind Role: read as NotApplicable', () => {
    const docs = {
      json: JSON.stringify({ assetAdministrationShells: [shell('Role')] }),
      xml: `<environment xmlns="${AAS_V31_NAMESPACE}"><assetAdministrationShells><assetAdministrationShell><id>urn:v31:shell</id><assetInformation><assetKind>Role</assetKind><globalAssetId>urn:v31:asset</globalAssetId></assetInformation></assetAdministrationShell></assetAdministrationShells></environment>`,
    };
    for (const { environment, warnings, verification } of readBoth(docs)) {
      expect((environment.assetAdministrationShells as JsonObject[])[0]).toEqual(shell('NotApplicable'));
      expect(warnings).toEqual(['$.assetAdministrationShells[0].assetInformation.assetKind: AssetKind Role (new in V3.1): read as NotApplicable']);
      expect(verification).toEqual([]);
    }
  });

  it('an Entity without entityType: SelfManagedEntity with an asset id (AASd-014), else CoManagedEntity', () => {
    const docs = submodelDocs(
      [
        { modelType: 'Entity', idShort: 'Plain' },
        { modelType: 'Entity', idShort: 'WithAsset', globalAssetId: 'urn:v31:part' },
        { modelType: 'Entity', idShort: 'WithSpecific', specificAssetIds: [{ name: 'serial', value: '42' }] },
      ],
      '<entity><idShort>Plain</idShort></entity><entity><idShort>WithAsset</idShort><globalAssetId>urn:v31:part</globalAssetId></entity>' +
        '<entity><idShort>WithSpecific</idShort><specificAssetIds><specificAssetId><name>serial</name><value>42</value></specificAssetId></specificAssetIds></entity>',
    );
    for (const { environment, warnings, verification } of readBoth(docs)) {
      expect(elementsOf(environment).map((e) => e.entityType)).toEqual(['CoManagedEntity', 'SelfManagedEntity', 'SelfManagedEntity']);
      expect(warnings).toEqual([
        '$.submodels[0].submodelElements[0] (idShort path Plain): Entity without entityType (optional since V3.1): read as CoManagedEntity',
        '$.submodels[0].submodelElements[1] (idShort path WithAsset): Entity without entityType (optional since V3.1): read as SelfManagedEntity (it has an asset id)',
        '$.submodels[0].submodelElements[2] (idShort path WithSpecific): Entity without entityType (optional since V3.1): read as SelfManagedEntity (it has an asset id)',
      ]);
      expect(verification).toEqual([]);
    }
  });

  it('a File without contentType: the content type of the package part it names, else application/octet-stream; a Blob: application/octet-stream', () => {
    const docs = submodelDocs(
      [
        { modelType: 'File', idShort: 'Manual', value: '/aasx/files/manual.pdf' },
        { modelType: 'File', idShort: 'Elsewhere', value: 'https://example.com/a.pdf' },
        { modelType: 'File', idShort: 'Empty' },
        { modelType: 'Blob', idShort: 'Data', value: 'AAE=' },
      ],
      '<file><idShort>Manual</idShort><value>/aasx/files/manual.pdf</value></file><file><idShort>Elsewhere</idShort><value>https://example.com/a.pdf</value></file>' +
        '<file><idShort>Empty</idShort></file><blob><idShort>Data</idShort><value>AAE=</value></blob>',
    );
    const parts = (value: string) => (value === '/aasx/files/manual.pdf' ? 'application/pdf' : undefined);
    for (const { environment, warnings, verification } of readBoth(docs, parts)) {
      expect(elementsOf(environment).map((e) => e.contentType)).toEqual(['application/pdf', 'application/octet-stream', 'application/octet-stream', 'application/octet-stream']);
      expect(warnings).toEqual([
        '$.submodels[0].submodelElements[0] (idShort path Manual): File without contentType (optional since V3.1): read as application/pdf (the content type of the package part it names)',
        '$.submodels[0].submodelElements[1] (idShort path Elsewhere): File without contentType (optional since V3.1): read as application/octet-stream',
        '$.submodels[0].submodelElements[2] (idShort path Empty): File without contentType (optional since V3.1): read as application/octet-stream',
        '$.submodels[0].submodelElements[3] (idShort path Data): Blob without contentType (optional since V3.1): read as application/octet-stream',
      ]);
      expect(verification).toEqual([]);
    }
  });

  it('a RelationshipElement without first or second is left out (V3.0 has no such element), in a collection, a list, an Operation', () => {
    const docs = submodelDocs(
      [
        { modelType: 'RelationshipElement', idShort: 'Open', first: ref('urn:a') },
        { modelType: 'RelationshipElement', idShort: 'Whole', first: ref('urn:a'), second: ref('urn:b') },
        {
          modelType: 'SubmodelElementCollection',
          idShort: 'Coll',
          value: [{ modelType: 'AnnotatedRelationshipElement', idShort: 'Annotated', annotations: [{ modelType: 'Property', idShort: 'Note', valueType: 'xs:string' }] }],
        },
        { modelType: 'SubmodelElementList', idShort: 'Rels', typeValueListElement: 'RelationshipElement', value: [{ modelType: 'RelationshipElement', second: ref('urn:b') }, { modelType: 'RelationshipElement', first: ref('urn:a'), second: ref('urn:b') }] },
        { modelType: 'Operation', idShort: 'Op', inputVariables: [{ value: { modelType: 'RelationshipElement', idShort: 'In' } }] },
      ],
      `<relationshipElement><idShort>Open</idShort>${refXml('first', 'urn:a')}</relationshipElement>` +
        `<relationshipElement><idShort>Whole</idShort>${refXml('first', 'urn:a')}${refXml('second', 'urn:b')}</relationshipElement>` +
        '<submodelElementCollection><idShort>Coll</idShort><value><annotatedRelationshipElement><idShort>Annotated</idShort><annotations><property><idShort>Note</idShort><valueType>xs:string</valueType></property></annotations></annotatedRelationshipElement></value></submodelElementCollection>' +
        `<submodelElementList><idShort>Rels</idShort><typeValueListElement>RelationshipElement</typeValueListElement><value><relationshipElement>${refXml('second', 'urn:b')}</relationshipElement><relationshipElement>${refXml('first', 'urn:a')}${refXml('second', 'urn:b')}</relationshipElement></value></submodelElementList>` +
        '<operation><idShort>Op</idShort><inputVariables><operationVariable><value><relationshipElement><idShort>In</idShort></relationshipElement></value></operationVariable></inputVariables></operation>',
    );
    for (const { environment, warnings, verification } of readBoth(docs)) {
      const elements = elementsOf(environment);
      expect(elements.map((e) => e.idShort)).toEqual(['Whole', 'Coll', 'Rels', 'Op']);
      // What is left empty has no list at all (V3.0 lists hold at least one item).
      expect(elements[1]).toEqual({ modelType: 'SubmodelElementCollection', idShort: 'Coll' });
      expect(elements[2].value).toEqual([{ modelType: 'RelationshipElement', first: ref('urn:a'), second: ref('urn:b') }]);
      expect(elements[3]).toEqual({ modelType: 'Operation', idShort: 'Op' });
      expect(warnings).toEqual([
        '$.submodels[0].submodelElements[0] (idShort path Open): RelationshipElement without second (optional since V3.1) cannot be a V3.0 one: left out',
        '$.submodels[0].submodelElements[2].value[0] (idShort path Coll.Annotated): AnnotatedRelationshipElement without first and second (optional since V3.1) cannot be a V3.0 one: left out and its 1 annotation(s)',
        '$.submodels[0].submodelElements[3].value[0] (idShort path Rels[0]): RelationshipElement without first (optional since V3.1) cannot be a V3.0 one: left out',
        '$.submodels[0].submodelElements[4].inputVariables[0].value (idShort path Op.In): RelationshipElement without first and second (optional since V3.1) cannot be a V3.0 one: left out',
      ]);
      expect(verification).toEqual([]);
    }
  });

  it('what V3.1 relaxed in constraints only is kept as written; the V3.0 verification reports it (hyphen idShort, idShorts in a list, category, 2048-character id)', () => {
    const longId = `urn:v31:${'x'.repeat(2040)}`;
    const docs = submodelDocs(
      [
        { modelType: 'Property', idShort: 'Max-Temperature', valueType: 'xs:double', category: 'APPLICATION', value: '80' },
        { modelType: 'SubmodelElementList', idShort: 'Docs', typeValueListElement: 'SubmodelElementCollection', value: [{ modelType: 'SubmodelElementCollection', idShort: 'Document01' }] },
        { modelType: 'ReferenceElement', idShort: 'Long', value: { type: 'ExternalReference', keys: [{ type: 'GlobalReference', value: longId }] } },
      ],
      '<property><category>APPLICATION</category><idShort>Max-Temperature</idShort><valueType>xs:double</valueType><value>80</value></property>' +
        '<submodelElementList><idShort>Docs</idShort><typeValueListElement>SubmodelElementCollection</typeValueListElement><value><submodelElementCollection><idShort>Document01</idShort></submodelElementCollection></value></submodelElementList>' +
        `<referenceElement><idShort>Long</idShort><value><type>ExternalReference</type><keys><key><type>GlobalReference</type><value>${longId}</value></key></keys></value></referenceElement>`,
    );
    for (const { environment, warnings, verification } of readBoth(docs)) {
      const elements = elementsOf(environment);
      expect(elements[0]).toMatchObject({ idShort: 'Max-Temperature', category: 'APPLICATION' });
      expect((elements[1].value as JsonObject[])[0].idShort).toBe('Document01');
      expect(((elements[2].value as JsonObject).keys as JsonObject[])[0].value).toBe(longId);
      expect(warnings).toEqual([]);
      const found = verification.join('\n');
      expect(found).toMatch(/submodelElements\[0\]\.idShort: ID-short of Referables shall only feature letters, digits, underscore/);
      expect(found).toMatch(/AASd-090/);
      expect(found).toMatch(/submodelElements\[1\].*AASd-120/);
      expect(found).toMatch(/submodelElements\[2\]\.value\.keys\[0\]\.value: .*maximum length of 2000/i);
    }
  });

  it('a V3.0 JSON environment is not changed and gets no warning', () => {
    const env = {
      assetAdministrationShells: [shell('Instance')],
      submodels: [
        {
          modelType: 'Submodel',
          id: 'urn:v30:sm',
          submodelElements: [
            { modelType: 'File', idShort: 'F', contentType: 'image/png' },
            { modelType: 'Entity', idShort: 'E', entityType: 'CoManagedEntity' },
            { modelType: 'RelationshipElement', idShort: 'R', first: ref('urn:a'), second: ref('urn:b') },
          ],
        },
      ],
    };
    const read = readEnvironmentDocument(JSON.stringify(env), 'json', 'env.json');
    expect(read).toEqual({ environment: env, warnings: [] });
    expect(readEnvironmentDocument(JSON.stringify(env), 'json', 'env.json').version).toBeUndefined();
    const same = structuredClone(env);
    const warnings: string[] = [];
    mapV31Environment(same, warnings);
    expect(same).toEqual(env);
    expect(warnings).toEqual([]);
  });
});
