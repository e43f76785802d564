import { describe, expect, it } from 'vitest';
import { V31_MESSAGES, mapDownToV30, mergeV30Write, neededVersion, readFor, verifyFor } from '../../src/aas/versions';
import type { JsonObject } from '../../src/aas/model/parse';

/** The module the versions of the metamodel are told apart by: what each needs, maps, merges and verifies. */

const ref = (value: string) => ({ type: 'ExternalReference', keys: [{ type: 'GlobalReference', value }] });
const submodel = (...elements: JsonObject[]): JsonObject => ({ modelType: 'Submodel', id: 'urn:x:sm', idShort: 'S', ...(elements.length ? { submodelElements: elements } : {}) });
const shell = (assetKind: string, extra: JsonObject = {}): JsonObject => ({
  modelType: 'AssetAdministrationShell',
  id: 'urn:x:aas',
  idShort: 'A',
  assetInformation: { assetKind, globalAssetId: 'urn:x:asset', ...extra },
});
const prop = (idShort: string, extra: JsonObject = {}): JsonObject => ({ modelType: 'Property', idShort, valueType: 'xs:string', value: 'v', ...extra });
const messages = (version: '3.0' | '3.1', json: JsonObject) => verifyFor(version, json).map((v) => v.text);

describe('neededVersion', () => {
  it('is 3.0 for V3.0 content, 3.1 for each thing only V3.1 has', () => {
    expect(neededVersion(submodel(prop('P')))).toBe('3.0');
    expect(neededVersion(shell('Instance'))).toBe('3.0');
    expect(neededVersion(shell('Role'))).toBe('3.1');
    expect(neededVersion(submodel({ modelType: 'File', idShort: 'F' }))).toBe('3.1');
    expect(neededVersion(submodel({ modelType: 'Blob', idShort: 'B' }))).toBe('3.1');
    expect(neededVersion(submodel({ modelType: 'Entity', idShort: 'E' }))).toBe('3.1');
    expect(neededVersion(submodel({ modelType: 'RelationshipElement', idShort: 'R', first: ref('a') }))).toBe('3.1');
    expect(neededVersion(submodel({ modelType: 'RelationshipElement', idShort: 'R', first: ref('a'), second: ref('b') }))).toBe('3.0');
    expect(neededVersion(submodel(prop('Max-Temp')))).toBe('3.1');
    expect(neededVersion(submodel(prop('P', { category: 'FREE' })))).toBe('3.1');
    expect(neededVersion(submodel(prop('P', { category: 'PARAMETER' })))).toBe('3.0');
    expect(neededVersion(submodel({ modelType: 'SubmodelElementList', idShort: 'L', typeValueListElement: 'Property', valueTypeListElement: 'xs:string', value: [prop('Item')] }))).toBe('3.1');
    expect(neededVersion(submodel({ modelType: 'Entity', idShort: 'E', entityType: 'CoManagedEntity', globalAssetId: 'urn:x' }))).toBe('3.1');
    expect(neededVersion({ ...submodel(), id: `urn:${'x'.repeat(2040)}` })).toBe('3.1');
    expect(neededVersion(submodel({ modelType: 'Blob', idShort: 'B', contentType: `application/${'x'.repeat(110)}` }))).toBe('3.1');
  });

  it('does not count what neither version allows', () => {
    expect(neededVersion(submodel(prop('Ends-')))).toBe('3.0');
    expect(neededVersion({ ...submodel(), id: `urn:${'x'.repeat(3000)}` })).toBe('3.0');
  });

  it('looks into collections, statements, annotations and operation variables', () => {
    const role = { modelType: 'RelationshipElement', idShort: 'R', second: ref('b') };
    expect(neededVersion(submodel({ modelType: 'SubmodelElementCollection', idShort: 'C', value: [role] }))).toBe('3.1');
    expect(neededVersion(submodel({ modelType: 'Operation', idShort: 'O', inputVariables: [{ value: { modelType: 'Entity', idShort: 'E' } }] }))).toBe('3.1');
  });
});

describe('mapDownToV30', () => {
  it('maps by the import rules and says what it mapped, leaving its argument as it is', () => {
    const stored = submodel(
      { modelType: 'File', idShort: 'F', value: '/doc.pdf' },
      { modelType: 'Entity', idShort: 'E', globalAssetId: 'urn:x:a' },
      { modelType: 'RelationshipElement', idShort: 'R', first: ref('a') },
      prop('Max-Temp'),
    );
    const before = structuredClone(stored);
    const { json, mapped } = mapDownToV30(stored);
    expect(stored).toEqual(before);
    expect(json.submodelElements).toEqual([
      { modelType: 'File', idShort: 'F', value: '/doc.pdf', contentType: 'application/octet-stream' },
      { modelType: 'Entity', idShort: 'E', globalAssetId: 'urn:x:a', entityType: 'SelfManagedEntity' },
      prop('Max-Temp'),
    ]);
    expect(mapped).toHaveLength(3);
    expect(mapped.join('\n')).toMatch(/File without contentType[\s\S]*Entity without entityType[\s\S]*RelationshipElement without second/);
    const { json: aas, mapped: role } = mapDownToV30(shell('Role'));
    expect((aas.assetInformation as JsonObject).assetKind).toBe('NotApplicable');
    expect(role).toEqual(['$.assetInformation.assetKind: AssetKind Role (new in V3.1): read as NotApplicable']);
  });

  it('returns V3.0 content itself, with nothing mapped', () => {
    const doc = submodel(prop('P'));
    expect(mapDownToV30(doc)).toEqual({ json: doc, mapped: [] });
  });
});

describe('mergeV30Write', () => {
  const stored = submodel(
    { modelType: 'RelationshipElement', idShort: 'R0', second: ref('b') },
    { modelType: 'Entity', idShort: 'E', statements: [prop('S')] },
    { modelType: 'RelationshipElement', idShort: 'R1', first: ref('a') },
    { modelType: 'File', idShort: 'F', value: '/a.pdf' },
  );
  const v30 = () => structuredClone(mapDownToV30(stored).json);

  it('keeps the stored document when the write is its V3.0 form unchanged', () => {
    expect(mergeV30Write(stored, v30())).toEqual(stored);
  });

  it('keeps the V3.1 form of what the write did not touch, takes what it changed', () => {
    const write = v30();
    const elements = write.submodelElements as JsonObject[];
    (elements[0].statements as JsonObject[])[0].value = 'changed'; // the Entity's statement: the entityType is untouched
    elements[1].contentType = 'application/pdf'; // the File's content type: now written
    const merged = mergeV30Write(stored, write);
    expect(merged.submodelElements).toEqual([
      { modelType: 'RelationshipElement', idShort: 'R0', second: ref('b') },
      { modelType: 'Entity', idShort: 'E', statements: [prop('S', { value: 'changed' })] },
      { modelType: 'RelationshipElement', idShort: 'R1', first: ref('a') },
      { modelType: 'File', idShort: 'F', value: '/a.pdf', contentType: 'application/pdf' },
    ]);
  });

  it('takes a changed entityType, drops elements the write removed, and a hidden element yields to a written one of its idShort', () => {
    const write = v30();
    const elements = write.submodelElements as JsonObject[];
    elements[0].entityType = 'SelfManagedEntity';
    elements[0].globalAssetId = 'urn:x:a';
    elements.pop(); // the File
    elements.push(prop('R1'));
    const merged = mergeV30Write(stored, write);
    expect(merged.submodelElements).toEqual([
      { modelType: 'RelationshipElement', idShort: 'R0', second: ref('b') },
      { modelType: 'Entity', idShort: 'E', entityType: 'SelfManagedEntity', globalAssetId: 'urn:x:a', statements: [prop('S')] },
      prop('R1'),
    ]);
  });

  it('keeps Role when the write changes the asset information elsewhere, not when it changes the kind', () => {
    const aas = shell('Role');
    const other = mapDownToV30(aas).json;
    const moved = mergeV30Write(aas, { ...other, assetInformation: { ...(other.assetInformation as JsonObject), globalAssetId: 'urn:x:other' } });
    expect(moved.assetInformation).toEqual({ assetKind: 'Role', globalAssetId: 'urn:x:other' });
    const kind = mergeV30Write(aas, { ...other, assetInformation: { ...(other.assetInformation as JsonObject), assetKind: 'Instance' } });
    expect(kind.assetInformation).toEqual({ assetKind: 'Instance', globalAssetId: 'urn:x:asset' });
  });

  it('returns the write itself over V3.0 content', () => {
    const write = submodel(prop('P', { value: 'new' }));
    expect(mergeV30Write(submodel(prop('P')), write)).toBe(write);
  });
});

describe('verifyFor: each constraint V3.1 changed, in both directions', () => {
  it('AASd-002: a hyphen inside an idShort is V3.1 only, at the end neither', () => {
    expect(messages('3.0', submodel(prop('Max-Temp'))).join()).toMatch(/ID-short of Referables shall only feature letters, digits, underscore/);
    expect(messages('3.1', submodel(prop('Max-Temp')))).toEqual([]);
    expect(messages('3.1', submodel(prop('Temp-')))).toEqual([`$.submodelElements[0].idShort: ${V31_MESSAGES.idShort}`]);
    expect(messages('3.0', submodel(prop('Temp-'))).join()).toMatch(/ID-short of Referables/);
  });

  it('AASd-120: idShorts on list items are refused by V3.0 only', () => {
    const list = submodel({ modelType: 'SubmodelElementList', idShort: 'L', typeValueListElement: 'Property', valueTypeListElement: 'xs:string', value: [prop('Item')] });
    expect(messages('3.0', list).join()).toMatch(/AASd-120/);
    expect(messages('3.1', list)).toEqual([]);
  });

  it('AASd-090: a data element category of any value is refused by V3.0 only', () => {
    expect(messages('3.0', submodel(prop('P', { category: 'FREE' }))).join()).toMatch(/AASd-090/);
    expect(messages('3.1', submodel(prop('P', { category: 'FREE' })))).toEqual([]);
  });

  it('Identifiers: 2,048 characters in V3.1, 2,000 in V3.0', () => {
    const long = { ...submodel(), id: `urn:${'x'.repeat(2040)}` };
    expect(messages('3.0', long).join()).toMatch(/maximum length of 2000/);
    expect(messages('3.1', long)).toEqual([]);
    const tooLong = { ...submodel(), id: `urn:${'x'.repeat(2045)}` };
    expect(messages('3.1', tooLong)).toEqual([`$.id: ${V31_MESSAGES.identifier}`]);
  });

  it('ContentType: 128 characters in V3.1, 100 in V3.0', () => {
    const blob = (n: number) => submodel({ modelType: 'Blob', idShort: 'B', contentType: `application/${'x'.repeat(n)}` });
    expect(messages('3.0', blob(110)).join()).toMatch(/maximum length of 100/);
    expect(messages('3.1', blob(110))).toEqual([]);
    expect(messages('3.1', blob(120))).toEqual([`$.submodelElements[0].contentType: ${V31_MESSAGES.contentType}`]);
  });

  it('AASd-014: V3.1 allows a co-managed entity an asset id; both require one of a self-managed entity', () => {
    const co = submodel({ modelType: 'Entity', idShort: 'E', entityType: 'CoManagedEntity', globalAssetId: 'urn:x' });
    expect(messages('3.0', co).join()).toMatch(/AASd-014/);
    expect(messages('3.1', co)).toEqual([]);
    const self = submodel({ modelType: 'Entity', idShort: 'E', entityType: 'SelfManagedEntity' });
    expect(messages('3.0', self).join()).toMatch(/AASd-014/);
    expect(messages('3.1', self)).toEqual([`$.submodelElements[0]: ${V31_MESSAGES.entity}`]);
  });

  it('Role and optional entityType, contentType and relationship ends: read by V3.1, refused (400) by V3.0', () => {
    const cases: JsonObject[] = [
      shell('Role'),
      submodel({ modelType: 'Entity', idShort: 'E' }),
      submodel({ modelType: 'File', idShort: 'F', value: '/a.pdf' }),
      submodel({ modelType: 'Blob', idShort: 'B' }),
      submodel({ modelType: 'RelationshipElement', idShort: 'R', first: ref('a') }),
      submodel({ modelType: 'AnnotatedRelationshipElement', idShort: 'R', second: ref('a'), annotations: [prop('Note')] }),
    ];
    for (const doc of cases) {
      expect(verifyFor('3.1', doc), JSON.stringify(doc)).toEqual([]);
      expect(() => verifyFor('3.0', doc), JSON.stringify(doc)).toThrow(/Invalid (Submodel|AssetAdministrationShell)/);
    }
  });

  it('readFor 3.1 returns exactly what was sent, for storing; unknown properties are refused in both versions', () => {
    const doc = submodel(
      { modelType: 'Entity', idShort: 'E', statements: [{ modelType: 'File', idShort: 'F' }] },
      { modelType: 'RelationshipElement', idShort: 'R', first: ref('a') },
      { modelType: 'Operation', idShort: 'O', inputVariables: [{ value: { modelType: 'Blob', idShort: 'B' } }] },
    );
    expect(readFor('3.1', 'Submodel', doc).doc).toEqual(doc);
    expect(readFor('3.1', 'AssetAdministrationShell', shell('Role')).doc).toEqual(shell('Role'));
    expect(() => readFor('3.1', 'Submodel', { ...doc, extra: 1 })).toThrow(/unexpected property/);
  });

  it('a V3.1 violation not of the changed constraints is reported as in V3.0', () => {
    const dup = submodel(prop('P'), prop('P'));
    expect(messages('3.1', dup)).toEqual(messages('3.0', dup));
    expect(messages('3.1', dup).join()).toMatch(/AASd-022/);
  });

  it('refuses what is no identifiable', () => {
    expect(() => verifyFor('3.1', { modelType: 'Property' })).toThrow(/modelType/);
  });
});
