import fs from 'node:fs';
import path from 'node:path';
import Ajv from 'ajv/dist/2019';
import { readAasxPackage } from '../../src/aas/aasx';
import { readEnvironmentDocument } from '../../src/aas/import/environment-document';
import { xsdProblems } from './xsd';

/**
 * What strict readers (the BaSyx Python SDK's, the official schemas) refuse in an export, as the tests check it:
 * the JSON against the official AAS JSON schema of its version (`test/fixtures/aas-metamodel-v3.0/aas.json`,
 * `aas-metamodel-v3.1/aas.json`: strings of at least one character, lists of at least one item, the patterns), the
 * XML against the version's AAS.xsd, and a package's File values against its parts (a value that names a path in
 * the package must have its part).
 */

export type SchemaVersion = '3.0' | '3.1';

const metamodel = (version: SchemaVersion) => path.resolve(__dirname, `../fixtures/aas-metamodel-v${version}`);

const validators = new Map<SchemaVersion, ReturnType<Ajv['compile']>>();

/** Where `environment` breaks the AAS JSON schema of `version`: one line per violation, at most `max`; empty when valid. */
export function jsonSchemaProblems(environment: unknown, max = 20, version: SchemaVersion = '3.0'): string[] {
  let validator = validators.get(version);
  if (!validator) {
    // The schemas' patterns match UTF-16 code units: the XML character class spells the characters beyond U+FFFF as
    // surrogate pairs (`[\ud801-\udbfe][\udc00-\udfff]`), which a regular expression with the `u` flag never sees
    // (it reads such a pair as one code point): with it, `m/𝑠³` (U+1D460) would be refused as no XML character.
    validator = new Ajv({ strict: false, allErrors: true, unicodeRegExp: false }).compile(JSON.parse(fs.readFileSync(path.join(metamodel(version), 'aas.json'), 'utf8')));
    validators.set(version, validator);
  }
  if (validator(environment)) return [];
  // The schema's polymorphic lists are `oneOf`/`if` over every class: their own lines only repeat the others.
  const lines = (validator.errors ?? []).filter((e) => !['oneOf', 'anyOf', 'if', 'const'].includes(e.keyword)).map((e) => `${e.instancePath} ${e.message}`);
  return [...new Set(lines.length ? lines : ['the environment does not validate'])].slice(0, max);
}

/**
 * The V3.1 AAS.xsd as published declares no root element: its `environment` is only a group and a type, so no
 * validator takes any document (xmllint: "No matching global declaration available for the validation root"). The
 * V3.0 schema had the same gap until its last line, `<xs:element name="environment" type="environment_t"/>`, was
 * added (admin-shell-io/aas-specs-metamodel, pull request 269); the same line is added here, nothing else.
 */
const withRootElement = (schema: string) =>
  /<xs:element name="environment"/.test(schema) ? schema : schema.replace(/<\/xs:schema>\s*$/, '  <xs:element name="environment" type="environment_t"/>\n</xs:schema>\n');

/** Where an XML environment breaks the AAS.xsd of `version` (xmllint's messages); empty when valid. */
export async function xmlSchemaProblems(xml: string, name = 'export.xml', version: SchemaVersion = '3.0'): Promise<string[]> {
  return xsdProblems(path.join(metamodel(version), 'AAS.xsd'), [{ name, contents: xml }], [], withRootElement);
}

/** Whether a File value names a part of its package: a relative reference, no scheme, no network path (RFC 3986, 4.2). */
const inPackage = (value: string) => !value.startsWith('//') && !value.split('/')[0].includes(':');

/** Every File value (at any depth) and thumbnail path of a JSON environment. */
export function fileValues(environment: unknown): string[] {
  const found: string[] = [];
  const walk = (value: unknown): void => {
    if (Array.isArray(value)) value.forEach(walk);
    else if (value !== null && typeof value === 'object') {
      const object = value as Record<string, unknown>;
      if (object.modelType === 'File' && typeof object.value === 'string') found.push(object.value);
      const thumbnail = (object.defaultThumbnail as { path?: unknown } | undefined)?.path;
      if (typeof thumbnail === 'string') found.push(thumbnail);
      Object.values(object).forEach(walk);
    }
  };
  walk(environment);
  return found;
}

/** An AASX package's spec part as JSON (read by our reader), and the File values that name parts it lacks. */
export async function packageProblems(bytes: Buffer): Promise<{ spec: string; dangling: string[] }> {
  const pkg = await readAasxPackage(bytes);
  const spec = pkg.specs[0];
  const text = await spec.text();
  // The XML of either version (V3.0, V3.1), read as an import reads it.
  const values = fileValues(spec.format === 'json' ? JSON.parse(text) : readEnvironmentDocument(text, 'xml', spec.path).environment);
  const base = spec.path.slice(0, spec.path.lastIndexOf('/') + 1);
  const dangling = values.filter((value) => value !== '' && inPackage(value) && !pkg.part(value.startsWith('/') ? value : `${base}${value}`));
  return { spec: text, dangling };
}
