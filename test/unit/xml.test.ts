import fs from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { jsonization, verification } from '@aas-core-works/aas-core3.0-typescript';
import { describe, expect, it } from 'vitest';
import { DEFAULT_XSD as XSD, classesWithModelType, generateSchemaTable, jsonizationSource } from '../../scripts/gen-xml-schema-table';
import { parseVerified, type JsonObject } from '../../src/aas/model/parse';
import { XmlReadError, readXmlEnvironment, readXmlEnvironmentStream, readXmlOf, readXmlStreamOf } from '../../src/aas/xml/reader';
import { XmlWriteError, writeXmlEnvironment, writeXmlEnvironmentChunks, writeXmlOf } from '../../src/aas/xml/writer';
import { emptyListKinds, emptyListsEnvironment, listKinds } from '../support/empty-lists';
import { corpusDir } from '../support/testdata';
import { medianMs, timed } from '../support/timing';
import { xsdProblems } from '../support/xsd';

/**
 * The AAS V3.0 XML reader and writer against the aas-core3.0-testgen corpus (its Xml tree and the Json twin of
 * each file) and the XML schema, checked with xmllint; plus the hostile inputs (DTD, entities) and the limits.
 */

const CORPUS = corpusDir();
const NS = 'https://admin-shell.io/aas/3/0';

/** Counts observed in the corpus; the selections must not silently shrink below them. */
const MIN = { expected: 1930, selfContained: 16, unserializable: 370, invalid: 1400 };

function filesUnder(dir: string, ext: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .flatMap((e) => (e.isDirectory() ? filesUnder(path.join(dir, e.name), ext) : e.name.endsWith(ext) ? [path.join(dir, e.name)] : []))
    .sort();
}

/** The Json tree by lower-cased relative path: its class folders are capitalized (`Property`), the Xml ones not. */
const JSON_TWINS = new Map(
  filesUnder(path.join(CORPUS, 'Json'), '.json').map((file) => [path.relative(path.join(CORPUS, 'Json'), file).toLowerCase(), file]),
);
function twinOf(xmlFile: string): string {
  const relative = path.relative(path.join(CORPUS, 'Xml'), xmlFile).replace(/\.xml$/, '.json').toLowerCase();
  const twin = JSON_TWINS.get(relative);
  if (!twin) throw new Error(`No Json twin of ${xmlFile}`);
  return twin;
}

const xmlFiles = (...parts: string[]) => filesUnder(path.join(CORPUS, 'Xml', ...parts), '.xml');
const readJson = (file: string) => JSON.parse(fs.readFileSync(file, 'utf8')) as JsonObject;
const short = (file: string) => path.relative(path.join(CORPUS, 'Xml'), file);
/** The root class of a SelfContained file: its folder (`SelfContained/Expected/eventPayload/...`). */
const selfContainedClass = (file: string) => short(file).split(path.sep).find((s) => s === 'environment' || s === 'eventPayload')!;
const rootClassOf = (file: string) =>
  short(file).startsWith('SelfContained') ? selfContainedClass(file) : 'environment';

/** Whether the metamodel library and its verification accept `json` as an instance of `cls`. */
function verifies(cls: string, json: JsonObject): boolean {
  if (cls === 'environment') {
    try {
      parseVerified('Environment', jsonization.environmentFromJsonable, json);
      return true;
    } catch {
      return false;
    }
  }
  const parsed = jsonization.eventPayloadFromJsonable(json as jsonization.JsonValue);
  if (parsed.error) return false;
  for (const _ of verification.verify(parsed.mustValue(), true)) return false;
  return true;
}

function reject(read: () => unknown): XmlReadError {
  try {
    read();
  } catch (error) {
    if (error instanceof XmlReadError) return error;
    throw error;
  }
  throw new Error('Expected an XmlReadError');
}

describe('the schema table', () => {
  it('is what scripts/gen-xml-schema-table.ts generates from AAS.xsd today (not stale)', () => {
    const generated = generateSchemaTable(fs.readFileSync(XSD, 'utf8'), classesWithModelType(jsonizationSource()));
    expect(fs.readFileSync(path.resolve(__dirname, '../../src/aas/xml/schema-table.ts'), 'utf8')).toBe(generated);
  });
});

describe('reading the corpus', () => {
  it('every Expected file (ContainedInEnvironment) reads as exactly the JSON of its Json twin', () => {
    const files = xmlFiles('ContainedInEnvironment', 'Expected');
    expect(files.length).toBeGreaterThanOrEqual(MIN.expected);
    const failures: string[] = [];
    for (const file of files) {
      try {
        const json = readXmlEnvironment(fs.readFileSync(file));
        expect(json).toStrictEqual(readJson(twinOf(file)));
      } catch (error) {
        failures.push(`${short(file)}: ${(error as Error).message.slice(0, 300)}`);
      }
    }
    expect(failures).toEqual([]);
  });

  it('every SelfContained Expected file (environment, eventPayload roots) reads as its Json twin', () => {
    const files = xmlFiles('SelfContained', 'Expected');
    expect(files.length).toBeGreaterThanOrEqual(MIN.selfContained);
    for (const file of files) {
      expect(readXmlOf(selfContainedClass(file), fs.readFileSync(file)), short(file)).toStrictEqual(readJson(twinOf(file)));
    }
  });

  it('every Unserializable file is refused by the reader itself, naming the element path', () => {
    const files = [...xmlFiles('ContainedInEnvironment', 'Unexpected', 'Unserializable'), ...xmlFiles('SelfContained', 'Unexpected', 'Unserializable')];
    expect(files.length).toBeGreaterThanOrEqual(MIN.unserializable);
    const accepted: string[] = [];
    for (const file of files) {
      try {
        readXmlOf(rootClassOf(file), fs.readFileSync(file));
        accepted.push(short(file));
      } catch (error) {
        if (!(error instanceof XmlReadError)) throw error;
        expect(error.path, short(file)).toMatch(/^\/(environment|eventPayload)\b/);
      }
    }
    expect(accepted).toEqual([]);
  });

  it('every Invalid file (well-formed, violating constraints) reads, and the verification refuses it', () => {
    const files = [...xmlFiles('ContainedInEnvironment', 'Unexpected', 'Invalid'), ...xmlFiles('SelfContained', 'Unexpected', 'Invalid')];
    expect(files.length).toBeGreaterThanOrEqual(MIN.invalid);
    const accepted: string[] = [];
    const unread: string[] = [];
    for (const file of files) {
      let json: JsonObject;
      try {
        json = readXmlOf(rootClassOf(file), fs.readFileSync(file));
      } catch (error) {
        unread.push(`${short(file)}: ${(error as Error).message}`);
        continue;
      }
      if (verifies(rootClassOf(file), json)) accepted.push(short(file));
    }
    expect(accepted).toEqual([]);
    // The reader leaves constraints to the verification: every one of these is XML the reader can read.
    expect(unread).toEqual([]);
  });

  it('reads a stream in small pieces (split anywhere, UTF-8 sequences and CR LF too) as it reads the whole', async () => {
    const file = path.join(CORPUS, 'Xml/ContainedInEnvironment/Expected/submodelElementList/maximal.xml');
    const bytes = Buffer.from(fs.readFileSync(file, 'utf8').replace(/\n/g, '\r\n').replace('something_4e9c19b7', 'ümlaut €'));
    const pieces = Array.from({ length: Math.ceil(bytes.length / 7) }, (_, i) => bytes.subarray(i * 7, i * 7 + 7));
    const whole = readXmlEnvironment(bytes);
    expect(JSON.stringify(whole)).toContain('ümlaut €');
    expect(await readXmlEnvironmentStream(Readable.from(pieces))).toStrictEqual(whole);
    const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(bytes.toString('utf8'), 'utf16le')]);
    expect(readXmlEnvironment(utf16)).toStrictEqual(whole);
    expect(await readXmlStreamOf('environment', Readable.from([utf16.subarray(0, 3), utf16.subarray(3)]))).toStrictEqual(whole);
  });
});

describe('writing the corpus', () => {
  const environments = [
    ...filesUnder(path.join(CORPUS, 'Json/ContainedInEnvironment/Expected'), '.json'),
    ...filesUnder(path.join(CORPUS, 'Json/SelfContained/Expected/Environment'), '.json'),
  ];

  /** Each Expected environment, its JSON and the XML written for it (or why it could not be written). */
  let memo: { file: string; json: JsonObject; xml?: string; error?: string }[] | undefined;
  function written() {
    memo ??= environments.map((file) => {
      const json = readJson(file);
      try {
        return { file, json, xml: writeXmlEnvironment(json) };
      } catch (error) {
        return { file, json, error: (error as Error).message };
      }
    });
    return memo;
  }

  it('the XML written for every Expected environment reads back as the same JSON, and is the corpus XML', () => {
    expect(environments.length).toBeGreaterThanOrEqual(MIN.expected);
    const failures: string[] = [];
    const xmlTwins = new Map(xmlFiles().map((file) => [path.relative(path.join(CORPUS, 'Xml'), file).toLowerCase(), file]));
    let compared = 0;
    for (const { file, json, xml, error } of written()) {
      try {
        if (error !== undefined) throw new Error(error);
        expect(readXmlEnvironment(xml!)).toStrictEqual(json);
        // The corpus XML has the elements in schema order too: the same document but for indentation and quoting.
        const twin = xmlTwins.get(path.relative(path.join(CORPUS, 'Json'), file).replace(/\.json$/, '.xml').toLowerCase());
        if (twin) {
          const corpus = fs.readFileSync(twin, 'utf8').replace(/>\s+</g, '><').replace(/&quot;/g, '"').replace(/&apos;/g, "'").trim();
          expect(xml!.replace(/^<\?xml[^>]*>/, '').trim()).toBe(corpus);
          compared++;
        }
      } catch (failure) {
        failures.push(`${path.relative(CORPUS, file)}: ${(failure as Error).message.slice(0, 300)}`);
      }
    }
    expect(failures).toEqual([]);
    expect(compared).toBeGreaterThanOrEqual(MIN.expected);
  });

  it('the XML written for every Expected environment validates against AAS.xsd (xmllint)', async () => {
    const documents = written().map(({ file, xml }) => ({ name: path.relative(CORPUS, file), contents: xml ?? '' }));
    // A pretty-printed one too: the indentation is whitespace the schema allows.
    const pretty = writeXmlEnvironment(readJson(environments.find((f) => f.endsWith('Submodel/maximal.json'))!), { pretty: true });
    documents.push({ name: 'pretty.xml', contents: pretty });
    expect(await xsdProblems(XSD, documents)).toEqual([]);
  });

  it('the schema check itself refuses what AAS.xsd does not allow, naming the document', async () => {
    const valid = writeXmlEnvironment({ submodels: [{ modelType: 'Submodel', id: 'urn:s' }] });
    const problems = await xsdProblems(XSD, [
      { name: 'valid.xml', contents: valid },
      { name: 'unknown-element.xml', contents: valid.replace('<id>', '<unknown/><id>') },
    ]);
    expect(problems.some((line) => line.startsWith('unknown-element.xml:'))).toBe(true);
    expect(problems.some((line) => line.startsWith('valid.xml'))).toBe(false);
  });

  it('writes the SelfContained eventPayloads, which read back the same (the XSD has no eventPayload root to validate)', () => {
    for (const file of filesUnder(path.join(CORPUS, 'Json/SelfContained/Expected/EventPayload'), '.json')) {
      const json = readJson(file);
      expect(readXmlOf('eventPayload', writeXmlOf('eventPayload', json))).toStrictEqual(json);
    }
  });
});

// ---------------------------------------------------------------------------------------------------------------

const env = (body: string) => `<environment xmlns="${NS}">${body}</environment>`;
const submodels = (...bodies: string[]) => env(`<submodels>${bodies.map((b) => `<submodel><id>urn:s</id>${b}</submodel>`).join('')}</submodels>`);
const property = (inner = '<valueType>xs:string</valueType>') => `<property>${inner}</property>`;

describe('hostile and malformed input', () => {
  it('refuses a DTD at once: billion laughs, external entities (XXE), parameter entities', async () => {
    const laughs =
      '<?xml version="1.0"?><!DOCTYPE environment [<!ENTITY lol "lol">' +
      Array.from({ length: 9 }, (_, i) => `<!ENTITY lol${i + 1} "${`&lol${i || ''};`.repeat(10)}">`).join('') +
      `]>${env('<submodels><submodel><id>&lol9;</id></submodel></submodels>')}`;
    const xxe = `<?xml version="1.0"?><!DOCTYPE environment [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>${submodels('').replace('urn:s', '&xxe;')}`;
    const parameter = `<!DOCTYPE environment [<!ENTITY % remote SYSTEM "http://127.0.0.1:1/evil.dtd"> %remote;]>${env('')}`;
    const external = `<!DOCTYPE environment SYSTEM "http://127.0.0.1:1/aas.dtd">${env('')}`;
    const large = `<!DOCTYPE environment [${'<!-- padding -->'.repeat(100_000)}<!ENTITY a "b">]>${env('')}`;
    // At once: within 100 ms, or half of what reading the large DTD's padding takes where it is allowed (in the
    // document), measured here, when the machine is slower than that.
    const padding = await medianMs(() => readXmlEnvironment(env('<!-- padding -->'.repeat(100_000))), 3);
    for (const xml of [laughs, xxe, parameter, external, large]) {
      const error = reject(() => readXmlEnvironment(xml));
      expect(await medianMs(() => reject(() => readXmlEnvironment(xml)), 3)).toBeLessThan(Math.max(100, padding / 2));
      expect(error.code).toBe('FORBIDDEN');
      expect(error.message).toMatch(/DOCTYPE/);
    }
    // Split anywhere in a stream, too.
    const pieces = Array.from({ length: Math.ceil(xxe.length / 3) }, (_, i) => xxe.slice(i * 3, i * 3 + 3));
    await expect(readXmlEnvironmentStream(Readable.from(pieces))).rejects.toMatchObject({ code: 'FORBIDDEN' });
    // A DOCTYPE in the text of the document (a CDATA section) is text.
    const cdata = submodels('<idShort><![CDATA[<!DOCTYPE html>]]></idShort>');
    expect((readXmlEnvironment(cdata).submodels as JsonObject[])[0].idShort).toBe('<!DOCTYPE html>');
  });

  it('knows no entity but the five of XML (no HTML entities, no undeclared ones); character references are fine', () => {
    for (const entity of ['&nbsp;', '&xxe;', '&copy;']) {
      expect(reject(() => readXmlEnvironment(submodels('').replace('urn:s', `urn:${entity}`))).code).toBe('FORBIDDEN');
    }
    const json = readXmlEnvironment(submodels('').replace('urn:s', 'urn:&amp;&lt;&gt;&quot;&apos;&#65;&#x42;&#x1F600;'));
    expect((json.submodels as JsonObject[])[0].id).toBe('urn:&<>"\'AB😀');
  });

  it('reports the AAS V2.0 namespace distinctly (code AAS_V2), and refuses any other namespace', () => {
    const v2 = '<aas:aasenv xmlns:aas="http://www.admin-shell.io/aas/2/0"><aas:assetAdministrationShells/></aas:aasenv>';
    expect(reject(() => readXmlEnvironment(v2))).toMatchObject({ code: 'AAS_V2', path: '/aasenv' });
    expect(reject(() => readXmlEnvironment('<environment/>')).code).toBe('NAMESPACE');
    expect(reject(() => readXmlEnvironment('<environment xmlns="https://admin-shell.io/aas/3/1"/>')).code).toBe('NAMESPACE');
    const foreign = env('<submodels><submodel xmlns="urn:other"><id>x</id></submodel></submodels>');
    expect(reject(() => readXmlEnvironment(foreign))).toMatchObject({ code: 'NAMESPACE', path: '/environment/submodels/submodel' });
    // A prefix of its own for the AAS namespace, and xsi:schemaLocation, are fine.
    const prefixed = `<a:environment xmlns:a="${NS}" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:schemaLocation="${NS} AAS.xsd"><a:submodels><a:submodel><a:id>x</a:id></a:submodel></a:submodels></a:environment>`;
    expect(readXmlEnvironment(prefixed)).toEqual({ submodels: [{ id: 'x', modelType: 'Submodel' }] });
  });

  it('names the element path of an unknown element, a missing one, a wrong literal', () => {
    const unknown = submodels('', `<submodelElements>${property()}${property('<valueType>xs:int</valueType><foo/>')}</submodelElements>`);
    expect(reject(() => readXmlEnvironment(unknown))).toMatchObject({
      code: 'UNEXPECTED_ELEMENT',
      path: '/environment/submodels/submodel[2]/submodelElements/property[2]/foo',
    });
    const missing = submodels(`<submodelElements>${property('<value>1</value>')}</submodelElements>`);
    expect(reject(() => readXmlEnvironment(missing))).toMatchObject({
      code: 'MISSING_ELEMENT',
      path: '/environment/submodels/submodel[1]/submodelElements/property[1]',
    });
    expect(reject(() => readXmlEnvironment(missing)).message).toContain('<valueType>');
    const literal = submodels(`<submodelElements>${property('<valueType>xs:str</valueType>')}</submodelElements>`);
    expect(reject(() => readXmlEnvironment(literal))).toMatchObject({
      code: 'INVALID_VALUE',
      path: '/environment/submodels/submodel[1]/submodelElements/property[1]/valueType',
    });
    expect(reject(() => readXmlEnvironment(submodels('<idShort>a</idShort><idShort>b</idShort>'))).message).toContain('more than once');
    expect(reject(() => readXmlEnvironment(submodels('<idShort><b>a</b></idShort>'))).code).toBe('INVALID_VALUE');
    expect(reject(() => readXmlEnvironment(submodels('stray text'))).code).toBe('INVALID_VALUE');
    expect(reject(() => readXmlEnvironment(submodels('<kind foo="1">Instance</kind>'))).code).toBe('UNEXPECTED_ELEMENT');
    expect(reject(() => readXmlEnvironment(submodels('<idShort>a</idShort'))).code).toBe('NOT_WELL_FORMED');
    expect(reject(() => readXmlEnvironment('')).code).toBe('NOT_WELL_FORMED');
    expect(reject(() => readXmlEnvironment(Buffer.from([0x3c, 0xff, 0xfe, 0x3e]).subarray(0))).code).toBe('ENCODING');
  });

  it('bounds depth, the text of one element and the document', () => {
    let nested = property();
    for (let i = 0; i < 120; i++) nested = `<submodelElementCollection><value>${nested}</value></submodelElementCollection>`;
    const deep = submodels(`<submodelElements>${nested}</submodelElements>`);
    const refused = reject(() => readXmlEnvironment(deep));
    expect(refused).toMatchObject({ code: 'LIMIT' });
    // The rule first, the path's last steps after it: a message clipped at 500 characters still names the limit.
    expect(refused.message).toMatch(/^Submodel elements nest at most 100 levels deep \(232 XML elements\); the document nests deeper \(at …\/value\//);
    expect(readXmlEnvironment(deep, { limits: { maxDepth: 300 } }).submodels).toHaveLength(1);
    const long = submodels(`<idShort>${'a'.repeat(1000)}</idShort>`);
    expect(reject(() => readXmlEnvironment(long, { limits: { maxTextChars: 999 } }))).toMatchObject({
      code: 'LIMIT',
      path: '/environment/submodels/submodel[1]/idShort',
    });
    expect(reject(() => readXmlEnvironment(long, { limits: { maxChars: 1000 } })).code).toBe('LIMIT');
  });

  it('reads a 20 MB Blob value quickly and exactly', async () => {
    const value = Buffer.alloc(15 * 1024 * 1024, 7).toString('base64');
    const blob = `<blob><idShort>b</idShort><value>${value}</value><contentType>application/octet-stream</contentType></blob>`;
    // Quickly: within 5 s, or ten times what reading 2 MB of small elements takes, measured here, when the machine
    // is slower than that.
    const small = `<submodelElements>${'<property><idShort>p</idShort><valueType>xs:string</valueType></property>'.repeat(Math.round((20 * 1024 * 1024) / 75 / 10))}</submodelElements>`;
    const smallMs = (await timed(() => readXmlEnvironment(submodels(small)))).ms;
    const { ms, value: json } = await timed(() => readXmlEnvironment(submodels(`<submodelElements>${blob}</submodelElements>`)));
    expect(ms).toBeLessThan(Math.max(5_000, 10 * smallMs));
    expect(((json.submodels as JsonObject[])[0].submodelElements as JsonObject[])[0].value === value).toBe(true);
  });
});

describe('single classes', () => {
  it('reads and writes a document of any class of the metamodel (a submodel, a property, a reference)', () => {
    const json = readJson(path.join(CORPUS, 'Json/ContainedInEnvironment/Expected/Submodel/maximal.json'));
    for (const submodel of json.submodels as JsonObject[]) {
      const xml = writeXmlOf('submodel', submodel);
      expect(xml).toMatch(new RegExp(`^<\\?xml[^>]*><submodel xmlns="${NS}">`));
      expect(readXmlOf('submodel', xml)).toStrictEqual(submodel);
      expect(reject(() => readXmlOf('assetAdministrationShell', xml))).toMatchObject({ code: 'UNEXPECTED_ELEMENT', path: '/submodel' });
    }
    const reference = { type: 'ExternalReference', keys: [{ type: 'GlobalReference', value: 'urn:x' }] };
    expect(readXmlOf('reference', writeXmlOf('reference', reference))).toStrictEqual(reference);
    expect(() => readXmlOf('dataElement', '<x/>')).toThrow("Unknown AAS class 'dataElement'");
  });
});

describe('the writer', () => {
  const submodel = (value: string): JsonObject => ({
    id: 'urn:s',
    modelType: 'Submodel',
    submodelElements: [{ idShort: 'p', valueType: 'xs:string', value, modelType: 'Property' }],
  });

  it('escapes markup, keeps CR, tabs and line feeds, and reads back the same', () => {
    const value = 'a & b < c > d ]]> "e" \'f\'\r\n\tg\rh\ni 😀';
    const environment = { submodels: [submodel(value)] };
    const xml = writeXmlEnvironment(environment);
    expect(xml).toContain('a &amp; b &lt; c &gt; d ]]&gt; "e" \'f\'&#xD;\n\tg&#xD;h\ni 😀');
    expect(readXmlEnvironment(xml)).toStrictEqual(environment);
    expect(readXmlEnvironment(writeXmlEnvironment(environment, { pretty: true }))).toStrictEqual(environment);
  });

  it('writes an empty list as its empty wrapper element, read back as the empty list: required lists (keys) and optional ones', () => {
    const environment = emptyListsEnvironment();
    const empty = emptyListKinds('environment', environment);
    expect([...listKinds()].filter((kind) => !empty.has(kind))).toEqual([]);
    for (const pretty of [false, true]) {
      const xml = writeXmlEnvironment(environment, { pretty });
      for (const wrapper of ['keys', 'valueReferencePairs', 'preferredName', 'description', 'value', 'submodelElements']) expect(xml).toContain(`<${wrapper}/>`);
      expect(readXmlEnvironment(xml)).toStrictEqual(environment);
    }
  });

  it('refuses what XML cannot carry or the schema does not know, naming the JSON path', () => {
    expect(() => writeXmlEnvironment({ submodels: [submodel('a\u0000b')] })).toThrow(XmlWriteError);
    expect(() => writeXmlEnvironment({ submodels: [submodel('a\u0000b')] })).toThrow('$.submodels[0].submodelElements[0].value');
    expect(() => writeXmlEnvironment({ submodels: [{ ...submodel('x'), foo: 1 }] })).toThrow("Unexpected property 'foo'");
    const untyped = { submodels: [{ id: 'urn:s', submodelElements: [{ idShort: 'p' }] }] };
    expect(() => writeXmlEnvironment(untyped)).toThrow('$.submodels[0].submodelElements[0]: Expected a modelType');
    expect(() => writeXmlEnvironment({ submodels: [{ modelType: 'Submodel' }] })).toThrow("'id' is missing");
  });

  it('streams an environment a chunk per item from async iterables, the same document as written whole', async () => {
    const files = filesUnder(path.join(CORPUS, 'Json/ContainedInEnvironment/Expected/Submodel'), '.json').slice(0, 3);
    const all = files.map(readJson);
    const environment = {
      assetAdministrationShells: all.flatMap((e) => (e.assetAdministrationShells as JsonObject[]) ?? []),
      submodels: all.flatMap((e) => (e.submodels as JsonObject[]) ?? []),
      conceptDescriptions: all.flatMap((e) => (e.conceptDescriptions as JsonObject[]) ?? []),
    };
    async function* slowly(items: JsonObject[]) {
      for (const item of items) yield await Promise.resolve(item);
    }
    for (const pretty of [false, true]) {
      const chunks: string[] = [];
      const parts = { assetAdministrationShells: slowly(environment.assetAdministrationShells), submodels: environment.submodels, conceptDescriptions: [] };
      for await (const chunk of writeXmlEnvironmentChunks(parts, { pretty })) chunks.push(chunk);
      const whole = writeXmlEnvironment({ ...environment, conceptDescriptions: [] }, { pretty });
      expect(chunks.join('')).toBe(whole);
      const lists = [environment.assetAdministrationShells, environment.submodels].filter((list) => list.length > 0);
      expect(chunks.length).toBe(2 + lists.reduce((sum, list) => sum + list.length + 1, 0));
      const { conceptDescriptions: _, ...written } = environment;
      expect(readXmlEnvironment(whole)).toStrictEqual(Object.fromEntries(Object.entries(written).filter(([, list]) => list.length > 0)));
    }
  });
});
