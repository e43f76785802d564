import fs from 'node:fs';
import path from 'node:path';
import Ajv from 'ajv/dist/2019';
import { readAasxPackage } from '../../src/aas/aasx';
import { readXmlEnvironment } from '../../src/aas/xml/reader';
import { xsdProblems } from './xsd';

/**
 * What strict readers (the BaSyx Python SDK's, the official schemas) refuse in an export, as the tests check it:
 * the JSON against the official AAS V3.0 JSON schema (`test/fixtures/aas-metamodel-v3.0/aas.json`: strings of at
 * least one character, lists of at least one item, the patterns), the XML against AAS.xsd, and a package's File
 * values against its parts (a value that names a path in the package must have its part).
 */

const METAMODEL = path.resolve(__dirname, '../fixtures/aas-metamodel-v3.0');

let validator: ReturnType<Ajv['compile']> | undefined;

/** Where `environment` breaks the AAS V3.0 JSON schema: one line per violation, at most `max`; empty when valid. */
export function jsonSchemaProblems(environment: unknown, max = 20): string[] {
  validator ??= new Ajv({ strict: false, allErrors: true, unicodeRegExp: true }).compile(JSON.parse(fs.readFileSync(path.join(METAMODEL, 'aas.json'), 'utf8')));
  if (validator(environment)) return [];
  // The schema's polymorphic lists are `oneOf`/`if` over every class: their own lines only repeat the others.
  const lines = (validator.errors ?? []).filter((e) => !['oneOf', 'anyOf', 'if', 'const'].includes(e.keyword)).map((e) => `${e.instancePath} ${e.message}`);
  return [...new Set(lines.length ? lines : ['the environment does not validate'])].slice(0, max);
}

/** Where an XML environment breaks AAS.xsd (xmllint's messages); empty when valid. */
export async function xmlSchemaProblems(xml: string, name = 'export.xml'): Promise<string[]> {
  return xsdProblems(path.join(METAMODEL, 'AAS.xsd'), [{ name, contents: xml }]);
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
  const values = fileValues(spec.format === 'json' ? JSON.parse(text) : readXmlEnvironment(text));
  const base = spec.path.slice(0, spec.path.lastIndexOf('/') + 1);
  const dangling = values.filter((value) => value !== '' && inPackage(value) && !pkg.part(value.startsWith('/') ? value : `${base}${value}`));
  return { spec: text, dangling };
}
