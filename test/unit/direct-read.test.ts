import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { jsonization, verification } from '@aas-core-works/aas-core3.0-typescript';
import { describe, expect, it } from 'vitest';
import { readSubmodelDirectly } from '../../src/aas/model/direct-read';
import { parseSubmodel } from '../../src/aas/model/parse';
import { convertDcc } from '../../src/dcc/dcc-convert';
import { expectedItems, unexpectedOnlyItems } from '../support/corpus';

/**
 * The direct reading of a submodel's common shapes (direct-read.ts) must read exactly what the library reads: the
 * same canonical JSON, the same constraint violations, and nothing where the library cannot read the document.
 */
type Json = Record<string, unknown>;

const messages = (instance: Parameters<typeof verification.verify>[0]) => [...verification.verify(instance, true)].map((e) => `${e.path.toString()}: ${e.message}`);

function compare(item: Json): 'direct' | 'library' {
  const direct = readSubmodelDirectly(item);
  if (!direct) return 'library';
  const read = jsonization.submodelFromJsonable(item as jsonization.JsonValue);
  expect(read.error, 'the library cannot read what the direct reading took').toBeNull();
  const library = read.mustValue();
  expect(jsonization.toJsonable(direct)).toEqual(jsonization.toJsonable(library));
  // Every property taken: the canonical form is the document as sent.
  expect(jsonization.toJsonable(direct)).toEqual(item);
  expect(messages(direct)).toEqual(messages(library));
  return 'direct';
}

const DCC_DIR = path.resolve(__dirname, '../fixtures/dcc');
const dccs = readdirSync(DCC_DIR).filter((name) => name.endsWith('.xml') && !name.includes('wrong'));

describe('direct reading of submodels', () => {
  it.each(dccs)('reads the submodel converted from %s as the library does', (name) => {
    const { submodel } = convertDcc(readFileSync(path.join(DCC_DIR, name)));
    expect(compare(submodel)).toBe('direct');
  });

  it('reads every valid submodel of the aas-core3.0-testgen corpus as the library does, or leaves it to the library', () => {
    const items = expectedItems('submodels');
    const ways = items.map(({ item }) => compare(item));
    expect(ways).toContain('direct');
    expect(ways).toContain('library');
  });

  it('reads every invalid submodel of the corpus as the library does: the same violations, or leaves it to the library', () => {
    const ways = unexpectedOnlyItems('submodels').map(({ item }) => compare(item));
    expect(ways).toContain('direct');
  });

  it('leaves to the library what is outside its subset: other element types, unknown or mistyped properties, empty lists', () => {
    const head = { modelType: 'Submodel', id: 'urn:x' };
    expect(readSubmodelDirectly({ ...head, submodelElements: [{ modelType: 'Range', idShort: 'r', valueType: 'xs:int' }] })).toBeNull();
    expect(readSubmodelDirectly({ ...head, stray: 1 })).toBeNull();
    expect(readSubmodelDirectly({ ...head, idShort: 7 })).toBeNull();
    expect(readSubmodelDirectly({ ...head, submodelElements: [] })).toBeNull();
    expect(readSubmodelDirectly({ ...head, submodelElements: [{ modelType: 'Property', idShort: 'p', valueType: 'xs:nothing' }] })).toBeNull();
    expect(readSubmodelDirectly({ ...head, submodelElements: [{ modelType: 'Property', idShort: 'p', valueType: 'xs:int', extra: 'x' }] })).toBeNull();
    expect(readSubmodelDirectly({ ...head, modelType: 'Shell' })).toBeNull();
    // And what the library refuses is refused as before (400), with the property named.
    expect(() => parseSubmodel({ ...head, submodelElements: [{ modelType: 'Property', idShort: 'p', valueType: 'xs:int', extra: 'x' }] })).toThrow(/unexpected property/);
  });

  it('still verifies what it reads: a value against its type, an idShort against its pattern (400)', () => {
    const head = { modelType: 'Submodel', id: 'urn:x' };
    expect(readSubmodelDirectly({ ...head, submodelElements: [{ modelType: 'Property', idShort: 'p', valueType: 'xs:double', value: 'abc' }] })).not.toBeNull();
    expect(() => parseSubmodel({ ...head, submodelElements: [{ modelType: 'Property', idShort: 'p', valueType: 'xs:double', value: 'abc' }] })).toThrow(/Invalid Submodel/);
    expect(() => parseSubmodel({ ...head, submodelElements: [{ modelType: 'Property', idShort: '1p', valueType: 'xs:string', value: 'a' }] })).toThrow(/Invalid Submodel/);
  });
});
