import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { XMLParser } from 'fast-xml-parser';
import { describe, expect, it } from 'vitest';
import { holdsMoreThan } from '../../src/common/json-slices';
import { WORKER_THRESHOLD, verifyDocument, verifyDocumentKeeping } from '../../src/aas/model/verify-document';
import { DccError, convertDcc, setFileValue } from '../../src/dcc/dcc-convert';
import { generatedDcc } from '../bench/dcc';
import { xsdProblems } from '../support/xsd';

const FIXTURES = path.resolve(__dirname, '../fixtures/dcc');
const XSD = path.join(FIXTURES, 'xsd/dcc.xsd');
/** D-SI 2.1.0, which the DCC XSDs 3.1.1, 3.1.2 and 3.2.0 import. */
const DSI_2_1_0 = path.join(FIXTURES, 'xsd/SI_Format.xsd');
/** Each vendored certificate (but the one that breaks its schema) by its schemaVersion, with its version's XSD (test/fixtures/dcc/README.md). */
const VERSIONS: Record<string, { xsd: string; imports: string[]; names: string[] }> = {
  '2.4.0': { xsd: path.join(FIXTURES, 'xsd/2.4.0/dcc.xsd'), imports: [], names: ['siliziumkugel_2_4_0.xml'] },
  '3.1.1': {
    xsd: path.join(FIXTURES, 'xsd/3.1.1/dcc.xsd'),
    imports: [DSI_2_1_0],
    names: ['dcc_gp_temperature_typical_v12.xml', 'dcc_gp_temperature_extensive_v12.xml', 'dcc_gp_temperatur_resistance_v12.xml'],
  },
  '3.1.2': { xsd: XSD, imports: [], names: ['dcc_gp_humidity_v1.0.xml'] },
  '3.2.0': { xsd: path.join(FIXTURES, 'xsd/3.2.0/dcc.xsd'), imports: [DSI_2_1_0], names: ['dcc_gp_temperature_typical_v12_v3.2.0_signed.xml'] },
};
const DCCS = [
  'dcc_gp_temperature_typical_v12.xml',
  'dcc_gp_temperature_extensive_v12.xml',
  'dcc_gp_temperatur_resistance_v12.xml',
  'dcc_gp_humidity_v1.0.xml',
  'dcc_gp_temperature_typical_v12_v3.2.0_signed.xml',
  'siliziumkugel_2_4_0.xml',
];
const fixture = (name: string) => readFileSync(path.join(FIXTURES, name));
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON of the submodel and of the second reading
type Json = Record<string, any>;

/**
 * The second, independent reading of a DCC: fast-xml-parser (not the converter's sax tree), walked by the idShort
 * scheme docs/dcc.md writes down (an element's local name; `_{n}` when siblings share it; `content` texts as one
 * MultiLanguageProperty). Every quantity, every D-SI number and unit (XML lists entry by entry) and every text in
 * every language is looked up in the submodel by that path and compared with the XML's text.
 */
interface Expected {
  quantities: string[];
  /** idShort path -> the exact text (trimmed) of a D-SI leaf. */
  values: Map<string, string>;
  /** idShort path -> the entries of a D-SI XML list. */
  lists: Map<string, string[]>;
  /** idShort path of a MultiLanguageProperty -> language -> the first text in it. */
  texts: Map<string, Map<string, string>>;
}

const SI_LEAVES = /^(value|unit|uncertainty|coverageFactor|coverageProbability|stdUncertainty|intervalMin|intervalMax|label|dateTime)$/;

function secondReading(xml: string, defaultLang: string): Expected {
  const parser = new XMLParser({ preserveOrder: true, ignoreAttributes: false, attributeNamePrefix: '', parseTagValue: false, parseAttributeValue: false, trimValues: false, processEntities: true });
  const doc = parser.parse(xml) as Json[];
  const out: Expected = { quantities: [], values: new Map(), lists: new Map(), texts: new Map() };
  const rootNode = doc.find((n) => Object.keys(n).some((k) => k.endsWith('digitalCalibrationCertificate')))!;
  const rootTag = Object.keys(rootNode).find((k) => k.endsWith('digitalCalibrationCertificate'))!;
  const prefixes = new Map<string, string>();
  for (const [name, value] of Object.entries((rootNode[':@'] ?? {}) as Record<string, string>)) if (name.startsWith('xmlns:')) prefixes.set(name.slice(6), value);
  const nsOf = (tag: string) => prefixes.get(tag.includes(':') ? tag.split(':')[0] : '') ?? '';
  const localOf = (tag: string) => tag.split(':').pop()!;
  const tagOf = (node: Json) => Object.keys(node).find((k) => k !== ':@')!;
  const textOf = (node: Json) => ((node[tagOf(node)] as Json[]) ?? []).filter((c) => '#text' in c).map((c) => String(c['#text'])).join('');
  const elementsOf = (node: Json) => ((node[tagOf(node)] as Json[]) ?? []).filter((c) => !('#text' in c) && !('#comment' in c) && !('?xml' in c));
  const walk = (node: Json, at: string) => {
    const children = elementsOf(node).filter((c) => !(localOf(tagOf(c)) === 'Signature' && nsOf(tagOf(c)) === 'http://www.w3.org/2000/09/xmldsig#'));
    const tag = tagOf(node);
    if (nsOf(tag) === 'https://ptb.de/dcc' && localOf(tag) === 'quantity') out.quantities.push(at);
    const contents = children.filter((c) => localOf(tagOf(c)) === 'content' && nsOf(tagOf(c)) === 'https://ptb.de/dcc');
    if (contents.length) {
      const mlp = contents.length === children.length ? at : `${at}.content`;
      const texts = new Map<string, string>();
      for (const c of contents) {
        const lang = (c[':@'] as Json | undefined)?.lang ?? defaultLang;
        const text = textOf(c).trim();
        if (text && !texts.has(lang)) texts.set(lang, text);
      }
      out.texts.set(mlp, texts);
    }
    const others = children.filter((c) => !contents.includes(c));
    if (!others.length && !contents.length && nsOf(tag) === 'https://ptb.de/si') {
      const local = localOf(tag);
      if (local.endsWith('XMLList')) out.lists.set(at, textOf(node).split(/\s+/).filter(Boolean));
      else if (SI_LEAVES.test(local)) out.values.set(at, textOf(node).trim());
    }
    const count = new Map<string, number>();
    for (const c of others) count.set(localOf(tagOf(c)), (count.get(localOf(tagOf(c))) ?? 0) + 1);
    const seen = new Map<string, number>();
    for (const c of others) {
      const local = localOf(tagOf(c));
      const n = (seen.get(local) ?? 0) + 1;
      seen.set(local, n);
      walk(c, `${at ? `${at}.` : ''}${count.get(local)! > 1 ? `${local}_${n}` : local}`);
    }
  };
  walk(doc.find((n) => tagOf(n) === rootTag)!, '');
  return out;
}

/** The element at an idShort path of the submodel. */
function at(submodel: Json, idShortPath: string): Json | undefined {
  let elements: Json[] = submodel.submodelElements;
  let found: Json | undefined;
  for (const step of idShortPath.split('.')) {
    found = elements?.find((e) => e.idShort === step);
    if (!found) return undefined;
    elements = found.value;
  }
  return found;
}

describe('DCC fixtures', () => {
  it.each(Object.entries(VERSIONS))('the %s fixtures are valid against the official DCC XSD of their version and the D-SI XSD it imports (xmllint)', async (version, { xsd, imports, names }) => {
    const documents = names.map((name) => ({ name, contents: fixture(name).toString('utf8') }));
    for (const { name, contents } of documents) expect(/schemaVersion="([^"]+)"/.exec(contents)?.[1], name).toBe(version);
    expect(await xsdProblems(xsd, documents, imports)).toEqual([]);
  });

  it('every vendored certificate is validated against its version', () => {
    const validated = Object.values(VERSIONS).flatMap((v) => v.names);
    const vendored = readdirSync(FIXTURES).filter((name) => name.endsWith('.xml') && name !== 'siliziumkugel_wrong_schema.xml');
    expect(validated.sort()).toEqual(vendored.sort());
  });

  it('the 2.4.0 XSD refuses the fixture that breaks the schema (dcc:named)', async () => {
    const name = 'siliziumkugel_wrong_schema.xml';
    const problems = await xsdProblems(VERSIONS['2.4.0'].xsd, [{ name, contents: fixture(name).toString('utf8') }]);
    expect(problems.join('\n')).toMatch(/siliziumkugel_wrong_schema\.xml.*named/s);
  });

  it('a version\'s XSD refuses a certificate of another version (schemaVersion is fixed by each)', async () => {
    const name = 'dcc_gp_temperature_typical_v12.xml';
    const problems = await xsdProblems(XSD, [{ name, contents: fixture(name).toString('utf8') }]);
    expect(problems.join('\n')).toMatch(/schemaVersion/);
  });

  it('the XSD check refuses the fixture that breaks the schema, and a quantity without its unit', async () => {
    const broken = fixture('dcc_gp_humidity_v1.0.xml').toString('utf8').replace(/<si:unit>[^<]*<\/si:unit>/, '');
    const problems = await xsdProblems(XSD, [{ name: 'no-unit.xml', contents: broken }]);
    expect(problems.join('\n')).toMatch(/no-unit\.xml.*unit/s);
    expect(() => convertDcc(Buffer.from(broken))).toThrow(/needs exactly one si:unit/);
  });
});

describe('DCC conversion of real certificates', () => {
  it.each(DCCS)('%s: every quantity, D-SI value, unit, uncertainty and text equals the XML (second reading)', async (name) => {
    const bytes = fixture(name);
    const conversion = convertDcc(bytes);
    const submodel = (await verifyDocument('Submodel', conversion.submodel)) as Json;
    const lang = /<dcc:mandatoryLangCodeISO639_1>\s*([a-z]{2})/.exec(bytes.toString('utf8'))?.[1] ?? 'en';
    const expected = secondReading(bytes.toString('utf8'), lang);
    expect(expected.quantities.length).toBeGreaterThan(0);
    for (const q of expected.quantities) {
      const element = at(submodel, q);
      expect(element, q).toBeDefined();
      expect(element!.semanticId.keys[0].value).toBe('https://ptb.de/dcc/quantity');
    }
    for (const [p, value] of expected.values) {
      const element = at(submodel, p);
      expect(element?.modelType, p).toBe('Property');
      expect(element!.value, p).toBe(value);
    }
    for (const [p, entries] of expected.lists) {
      const element = at(submodel, p);
      expect(element?.modelType, p).toBe('SubmodelElementList');
      expect(element!.value.map((e: Json) => e.value), p).toEqual(entries);
    }
    for (const [p, texts] of expected.texts) {
      const element = at(submodel, p);
      expect(element, p).toBeDefined();
      const got = element!.modelType === 'MultiLanguageProperty'
        ? new Map((element!.value ?? []).map((s: Json) => [s.language, s.text]))
        : new Map(element!.value.map((e: Json) => [e.idShort, e.value]));
      expect(got, p).toEqual(texts);
    }
    // The original, kept whole.
    expect(conversion.files[0]).toMatchObject({ role: 'original', contentType: 'application/xml' });
    expect(conversion.files[0].content.equals(bytes)).toBe(true);
    expect(conversion.schemaVersion).toBe(/schemaVersion="([^"]+)"/.exec(bytes.toString('utf8'))![1]);
  });

  it.each([...DCCS, 'an embedded document'])('%s: the submodel is its own canonical JSON, with and without its files stored', async (name) => {
    // Stored as it is (no copy read back from the verification): the canonical serialization is its very text.
    const bytes =
      name === 'an embedded document'
        ? Buffer.from(fixture(DCCS[0]).toString('utf8').replace('</dcc:measurementResults>', '</dcc:measurementResults><dcc:document><dcc:fileName>c.pdf</dcc:fileName><dcc:mimeType>application/pdf</dcc:mimeType><dcc:dataBase64>JVBERi0xLjQKJcTl8uXr</dcc:dataBase64></dcc:document>'))
        : fixture(name);
    const conversion = convertDcc(bytes);
    expect(await verifyDocumentKeeping('Submodel', conversion.submodel)).toEqual({ doc: conversion.submodel, same: true });
    conversion.files.forEach((file, i) => setFileValue(file.element, `file:/sphere/t/00000000-0000-4000-8000-00000000000${i}/${file.fileName}`));
    expect(conversion.files.length).toBe(name === 'an embedded document' ? 2 : 1);
    const stored = await verifyDocumentKeeping('Submodel', conversion.submodel);
    expect(stored.same).toBe(true);
    expect(stored.doc).toBe(conversion.submodel);
    expect(JSON.stringify(await verifyDocument('Submodel', conversion.submodel))).toBe(JSON.stringify(conversion.submodel));
  });

  it('a large conversion (verified in the worker) is its own canonical JSON; a reordered copy is not, and gets the canonical one', async () => {
    const conversion = convertDcc(Buffer.from(generatedDcc(600)));
    setFileValue(conversion.files[0].element, 'file:/sphere/t/00000000-0000-4000-8000-000000000000/dcc.xml');
    expect(holdsMoreThan(conversion.submodel, WORKER_THRESHOLD)).toBe(true);
    const kept = await verifyDocumentKeeping('Submodel', conversion.submodel);
    expect(kept.same).toBe(true);
    expect(kept.doc).toBe(conversion.submodel);
    const { modelType, ...rest } = conversion.submodel;
    const reordered = { modelType, ...rest };
    const read = await verifyDocumentKeeping('Submodel', reordered);
    expect(read.same).toBe(false);
    expect(JSON.stringify(read.doc)).toBe(JSON.stringify(conversion.submodel));
  });

  it('maps quantities with the schema names as semantic ids, numbers as xs:double, and expanded uncertainties', () => {
    const submodel = convertDcc(fixture('dcc_gp_temperature_typical_v12.xml')).submodel as Json;
    const quantity = at(submodel, 'measurementResults.measurementResult.results.result.data.list.quantity_1')!;
    expect(at(submodel, 'measurementResults.measurementResult.results.result.data.list.quantity_1.name')).toMatchObject({
      modelType: 'MultiLanguageProperty',
      semanticId: { keys: [{ value: 'https://ptb.de/dcc/quantity/name' }] },
      value: [{ language: 'de', text: 'Bezugswert' }, { language: 'en', text: 'Reference value' }],
    });
    expect(quantity.qualifiers).toEqual([expect.objectContaining({ type: 'refType', value: 'basic_referenceValue' })]);
    const kelvin = at(submodel, 'measurementResults.measurementResult.results.result.data.list.quantity_1.hybrid.realListXMLList_1.valueXMLList')!;
    expect(kelvin).toMatchObject({ modelType: 'SubmodelElementList', valueTypeListElement: 'xs:double', semanticId: { keys: [{ value: 'https://ptb.de/si/realListXMLList/valueXMLList' }] } });
    expect(kelvin.value.map((v: Json) => v.value)).toEqual(['306.248', '373.121', '448.253', '523.319', '593.154']);
    const uncertainty = at(submodel, 'measurementResults.measurementResult.results.result.data.list.quantity_3.realListXMLList.expandedUncXMLList')!;
    expect(uncertainty.semanticId.keys[0].value).toBe('https://ptb.de/si/expandedUncXMLList');
    expect(uncertainty.value.map((e: Json) => e.idShort)).toEqual(expect.arrayContaining(['uncertaintyXMLList', 'coverageFactorXMLList', 'coverageProbabilityXMLList']));
    expect(at(submodel, 'administrativeData.coreData.uniqueIdentifier')).toMatchObject({ valueType: 'xs:string', value: 'GP_DCC_temperature_typical_1.2' });
    expect(at(submodel, 'administrativeData.coreData.beginPerformanceDate')).toMatchObject({ valueType: 'xs:date', value: '1957-08-13' });
    expect(submodel.semanticId.keys[0].value).toBe('https://ptb.de/dcc/digitalCalibrationCertificate');
  });

  it('offers the calibrated items\' identifications as specific asset ids, and warns about a second text in one language', () => {
    const conversion = convertDcc(fixture('dcc_gp_temperature_typical_v12.xml'));
    expect(conversion.specificAssetIds).toEqual([
      { name: 'manufacturer', value: 'string-manufacturer-item' },
      { name: 'customer', value: 'string-customer-item' },
      { name: 'calibrationLaboratory', value: 'string-calibrationLaboratory-item' },
    ]);
    expect(conversion.warnings.join('\n')).toMatch(/statement\[2\]\/declaration\/content\[2\]: a second text in 'de' is left out of administrativeData.statements.statement_2.declaration/);
  });

  it('records an XML signature without checking it', () => {
    const signed = convertDcc(fixture('dcc_gp_temperature_typical_v12_v3.2.0_signed.xml'));
    expect(signed.signaturePresent).toBe(true);
    expect(at(signed.submodel, 'signaturePresent')).toMatchObject({ valueType: 'xs:boolean', value: 'true' });
    expect(signed.warnings).toContain('The DCC carries an XML signature (ds:Signature): recorded, not checked.');
    expect(convertDcc(fixture('dcc_gp_temperature_typical_v12.xml')).signaturePresent).toBe(false);
  });

  it('turns an embedded base64 document into a file and a File element', () => {
    // None of the vendored certificates embeds a document: one is added to a real certificate here (a tiny text and a PDF header).
    const document = (name: string, type: string, data: string) =>
      `<dcc:document><dcc:fileName>${name}</dcc:fileName><dcc:mimeType>${type}</dcc:mimeType><dcc:dataBase64>${data}</dcc:dataBase64></dcc:document>`;
    const xml = fixture('siliziumkugel_2_4_0.xml')
      .toString('utf8')
      .replace('</dcc:measurementResults>', `</dcc:measurementResults>${document('certificate.pdf', 'application/pdf', 'JVBERi0xLjQK\n  JcTl8uXr')}`);
    const conversion = convertDcc(Buffer.from(xml));
    const documents = conversion.files.filter((f) => f.role === 'document');
    const embedded = [...xml.matchAll(/<dcc:dataBase64>([^<]*)<\/dcc:dataBase64>/g)].map((m) => Buffer.from(m[1].replace(/\s+/g, ''), 'base64'));
    expect(documents.map((d) => d.content)).toEqual(embedded);
    expect(documents.length).toBeGreaterThan(0);
    for (const document of documents) {
      expect(at(conversion.submodel, document.idShortPath)).toMatchObject({ modelType: 'File', contentType: document.contentType });
    }
  });
});

describe('DCC conversion of what the schema leaves open', () => {
  it('converts any XML of a comment: long names and namesakes make valid, unique idShorts', async () => {
    const long = `e${'x'.repeat(200)}`;
    const comment = `<dcc:comment><o:${long} xmlns:o="urn:other#">a</o:${long}><o:${long} xmlns:o="urn:other#">b</o:${long}><o:_1 xmlns:o="urn:other#">c</o:_1></dcc:comment>`;
    const xml = fixture('dcc_gp_temperature_typical_v12.xml').toString('utf8').replace('</dcc:measurementResults>', `</dcc:measurementResults>${comment}`);
    const submodel = (await verifyDocument('Submodel', convertDcc(Buffer.from(xml)).submodel)) as Json;
    const converted = at(submodel, 'comment')!.value as Json[];
    expect(converted.map((e) => e.idShort.length)).toEqual([120, 120, 3]);
    expect(new Set(converted.map((e) => e.idShort)).size).toBe(3);
    expect(converted.map((e) => e.value)).toEqual(['a', 'b', 'c']);
    expect(converted[2]).toMatchObject({ idShort: 'x_1', semanticId: { keys: [{ value: 'urn:other/comment/_1' }] } });
  });

  it('converts a D-SI element it does not know, with a warning', () => {
    const xml = fixture('dcc_gp_temperature_typical_v12.xml').toString('utf8').replace('<si:value>306</si:value>', '<si:value>306</si:value><si:newThing>1</si:newThing>');
    const conversion = convertDcc(Buffer.from(xml));
    expect(conversion.warnings.join('\n')).toMatch(/si:newThing is no element of D-SI 2.1; converted as it is/);
  });
});

describe('DCC conversion refuses what is no DCC', () => {
  const typical = () => fixture('dcc_gp_temperature_typical_v12.xml').toString('utf8');
  const refused: [string, string | Buffer, RegExp][] = [
    ['not XML', '{"a": 1}', /not well-formed XML/],
    ['another root', '<?xml version="1.0"?><aas:environment xmlns:aas="https://admin-shell.io/aas/3/0"/>', /no DCC: its root element is \{https:\/\/admin-shell.io\/aas\/3\/0\}environment/],
    ['an unknown schema version', typical().replace('schemaVersion="3.1.1"', 'schemaVersion="9.0.0"'), /Unknown DCC schema version '9.0.0'/],
    ['no schema version', typical().replace('schemaVersion="3.1.1"', ''), /no schemaVersion attribute/],
    ['an element the schema lacks', fixture('siliziumkugel_wrong_schema.xml'), /dcc:named, which the DCC schema does not have/],
    ['no measurement results', typical().replace(/<dcc:measurementResults>[\s\S]*<\/dcc:measurementResults>/, ''), /has no measurementResults/],
    ['a value that is no number', typical().replace('<si:value>306</si:value>', '<si:value>three</si:value>'), /'three', no D-SI decimal number/],
    ['a list entry that is no number', typical().replace('306.248 373.121', '306.248 x'), /holds 'x', no D-SI decimal number/],
    ['a negative uncertainty', typical().replace(/<si:uncertaintyXMLList>\s*([\d.]+)/, '<si:uncertaintyXMLList>-$1'), /no uncertainty \(a number not below 0\)/],
    ['a coverage factor below 1', typical().replace(/<si:coverageFactorXMLList>[^<]*</, '<si:coverageFactorXMLList>0.5<'), /holds '0.5', no coverage factor/],
    ['a coverage probability over 1', typical().replace(/<si:coverageProbabilityXMLList>[^<]*</, '<si:coverageProbabilityXMLList>1.5<'), /holds '1.5', no coverage probability/],
    ['a date that is no date', typical().replace('<dcc:beginPerformanceDate>1957-08-13', '<dcc:beginPerformanceDate>1957-13-45'), /no xs:date/],
    ['a DTD', typical().replace('<dcc:digitalCalibrationCertificate', '<!DOCTYPE x [<!ENTITY e "boom">]><dcc:digitalCalibrationCertificate'), /DOCTYPE/],
    ['an entity', typical().replace('<dcc:model>String</dcc:model>', '<dcc:model>&e;</dcc:model>'), /not well-formed XML/],
    ['an empty body', '', /no root element|not well-formed/],
  ];
  it.each(refused)('%s', (_, input, message) => {
    let error: unknown;
    try {
      convertDcc(Buffer.isBuffer(input) ? input : Buffer.from(input));
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(DccError);
    expect((error as Error).message).toMatch(message);
  });

  it('a document over the size limit', () => {
    expect(() => convertDcc(Buffer.alloc(32 * 1024 * 1024 + 1, 32))).toThrow(/larger than 33554432 bytes/);
  });
});
