import fs from 'node:fs';
import path from 'node:path';
import { jsonization } from '@aas-core-works/aas-core3.0-typescript';
import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../src/aas/model/parse';
import {
  applyElementValue,
  applySubmodelValue,
  elementValue,
  hasValue,
  propertyValueWrite,
  submodelValue,
} from '../../src/aas/submodels/value-only';
import { readSubmodelElement } from '../../src/aas/model/parse';
import { AppError } from '../../src/graphql/errors';
import { corpusDir } from '../support/testdata';

const WITH = { withBlobValue: true };
const WITHOUT = { withBlobValue: false };

/** Frozen fixtures make any mutation of an input throw (test files are strict-mode modules). */
function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object') {
    Object.values(value).forEach(deepFreeze);
    Object.freeze(value);
  }
  return value;
}

/** Asserts a 400 whose message starts with the JSON path of the problem. */
function expectBadRequest(run: () => unknown, messageStart: string) {
  let error: unknown;
  try {
    run();
  } catch (e) {
    error = e;
  }
  expect(error).toBeInstanceOf(AppError);
  expect((error as AppError).extensions.code).toBe('BAD_REQUEST');
  expect((error as AppError).message.startsWith(messageStart), (error as AppError).message).toBe(true);
}

const ref = (value: string, type = 'ExternalReference', keyType = 'GlobalReference'): JsonObject => ({
  type,
  keys: [{ type: keyType, value }],
});

const property = (idShort: string, valueType: string, value?: string): JsonObject => ({
  idShort,
  modelType: 'Property',
  valueType,
  ...(value !== undefined && { value }),
});

/** Round trip as a client would do it: through JSON text. */
function roundTrip(element: JsonObject, options = WITH): JsonObject {
  return applyElementValue(element, JSON.parse(JSON.stringify(elementValue(element, options))));
}

describe('Property', () => {
  it('emits numbers and booleans only where writing them back gives the same text', () => {
    const cases: [string, string, unknown][] = [
      ['xs:int', '42', 42],
      ['xs:int', '-7', -7],
      ['xs:int', '042', '042'],
      ['xs:int', '+5', '+5'],
      ['xs:long', '9007199254740991', 9007199254740991],
      ['xs:long', '9007199254740992', '9007199254740992'],
      ['xs:unsignedLong', '18446744073709551615', '18446744073709551615'],
      ['xs:integer', '-0', '-0'],
      ['xs:integer', '1.5', '1.5'],
      ['xs:double', '1.5', 1.5],
      ['xs:double', '1.0', '1.0'],
      ['xs:double', '1e+21', 1e21],
      ['xs:double', '1E3', '1E3'],
      ['xs:double', 'NaN', 'NaN'],
      ['xs:double', 'INF', 'INF'],
      ['xs:float', '0.1', 0.1],
      ['xs:decimal', '0.10', '0.10'],
      ['xs:decimal', '123.456', 123.456],
      ['xs:boolean', 'true', true],
      ['xs:boolean', 'false', false],
      ['xs:boolean', '1', '1'],
      ['xs:string', '42', '42'],
      ['xs:string', 'true', 'true'],
      ['xs:date', '2024-01-01', '2024-01-01'],
    ];
    for (const [valueType, text, expected] of cases) {
      const element = deepFreeze(property('P', valueType, text));
      expect(elementValue(element, WITH), `${valueType} ${text}`).toStrictEqual(expected);
      expect(roundTrip(element), `${valueType} ${text}`).toEqual(element);
    }
  });

  it('emits null for an absent value and removes the value for null', () => {
    const element = deepFreeze(property('P', 'xs:int', '1'));
    expect(elementValue(property('P', 'xs:int'), WITH)).toBeNull();
    expect(applyElementValue(element, null)).toEqual(property('P', 'xs:int'));
  });

  it('stores strings, numbers and booleans in their text form', () => {
    const element = deepFreeze(property('P', 'xs:double', '1'));
    expect(applyElementValue(element, 2.5).value).toBe('2.5');
    expect(applyElementValue(element, 'abc').value).toBe('abc');
    expect(applyElementValue(element, true).value).toBe('true');
  });

  it('rejects objects and arrays, naming the path', () => {
    const element = deepFreeze(property('P', 'xs:int', '1'));
    expectBadRequest(() => applyElementValue(element, { a: 1 }), '$: expected a string, number, boolean or null');
    expectBadRequest(() => applyElementValue(element, [1], '$.Coll.P'), '$.Coll.P: expected');
  });
});

describe('a Property $value write judged by its value alone (propertyValueWrite)', () => {
  const VALUES: unknown[] = ['7', 7, -3, '1.5', 1.5, '1e3', 'NaN', 'INF', 'true', true, false, '0', '', 'abc', ' 7', '2024-02-30', '2024-02-29', 'P1D', 'x\u0000y', '\uFFFE', 'ok \u00e9', null, { a: 1 }, [1]];
  const TYPES = ['xs:int', 'xs:double', 'xs:boolean', 'xs:string', 'xs:date', 'xs:duration', 'xs:unsignedByte', 'xs:decimal'];

  it('takes exactly the values the whole read and verification takes, with the same element, never mutating its input', () => {
    let taken = 0;
    for (const valueType of TYPES) {
      for (const value of VALUES) {
        const element = deepFreeze({ ...property('P', valueType, '1'), semanticId: { type: 'ExternalReference', keys: [{ type: 'GlobalReference', value: 'urn:s' }] } });
        const quick = propertyValueWrite(element, value);
        if (!quick) continue;
        taken++;
        const whole = readSubmodelElement(applyElementValue(element, value));
        expect(whole.violations, `${valueType} ${JSON.stringify(value)}`).toEqual([]);
        expect(quick, `${valueType} ${JSON.stringify(value)}`).toEqual(whole.doc);
      }
    }
    expect(taken).toBeGreaterThan(20);
  });

  it('leaves to the whole check what the valueType refuses, what XML cannot carry, other shapes and other kinds', () => {
    expect(propertyValueWrite(property('P', 'xs:int', '1'), 'abc')).toBeUndefined();
    expect(propertyValueWrite(property('P', 'xs:int', '1'), 1.5)).toBeUndefined();
    expect(propertyValueWrite(property('P', 'xs:boolean', 'true'), 'maybe')).toBeUndefined();
    expect(propertyValueWrite(property('P', 'xs:date', '2024-01-01'), '2024-02-30')).toBeUndefined();
    expect(propertyValueWrite(property('P', 'xs:string', 'a'), 'x\u0000y')).toBeUndefined();
    expect(propertyValueWrite(property('P', 'xs:string', 'a'), { a: 1 })).toBeUndefined();
    expect(propertyValueWrite(property('P', 'xs:nonsense', 'a'), 'b')).toBeUndefined();
    expect(propertyValueWrite({ modelType: 'Range', idShort: 'R', valueType: 'xs:int' }, '1')).toBeUndefined();
    expect(propertyValueWrite({ modelType: 'MultiLanguageProperty', idShort: 'M' }, [])).toBeUndefined();
  });

  it('sets the text form, or removes the value for null', () => {
    const element = deepFreeze(property('P', 'xs:double', '1'));
    expect(propertyValueWrite(element, 2.5)).toEqual(property('P', 'xs:double', '2.5'));
    expect(propertyValueWrite(element, null)).toEqual(property('P', 'xs:double'));
    expect(propertyValueWrite(property('P', 'xs:boolean'), true)).toEqual(property('P', 'xs:boolean', 'true'));
  });
});

describe('MultiLanguageProperty', () => {
  const mlp = deepFreeze({
    idShort: 'Name',
    modelType: 'MultiLanguageProperty',
    value: [
      { language: 'en', text: 'Motor' },
      { language: 'de', text: 'Motor (de)' },
    ],
    valueId: ref('urn:x'),
  });

  it('reads one single-key object per language string, in order', () => {
    expect(elementValue(mlp, WITH)).toEqual([{ en: 'Motor' }, { de: 'Motor (de)' }]);
    expect(roundTrip(mlp)).toEqual(mlp);
  });

  it('reads no language strings as [], never null (MultiLanguagePropertyValue is an array), and takes [] back', () => {
    const empty = deepFreeze({ idShort: 'N', modelType: 'MultiLanguageProperty', valueId: ref('urn:n') });
    expect(elementValue(empty, WITH)).toStrictEqual([]);
    expect(roundTrip(empty)).toStrictEqual(empty);
    const nested = deepFreeze({
      id: 'urn:sm:mlp',
      modelType: 'Submodel',
      submodelElements: [
        empty,
        { idShort: 'C', modelType: 'SubmodelElementCollection', value: [{ idShort: 'M', modelType: 'MultiLanguageProperty' }] },
        { idShort: 'L', modelType: 'SubmodelElementList', typeValueListElement: 'MultiLanguageProperty', value: [{ modelType: 'MultiLanguageProperty' }, mlp] },
        {
          idShort: 'A',
          modelType: 'AnnotatedRelationshipElement',
          first: ref('urn:a'),
          second: ref('urn:b'),
          annotations: [{ idShort: 'M', modelType: 'MultiLanguageProperty' }],
        },
      ],
    });
    const value = submodelValue(nested, WITH);
    expect(value).toStrictEqual({
      N: [],
      C: { M: [] },
      L: [[], [{ en: 'Motor' }, { de: 'Motor (de)' }]],
      A: { first: ref('urn:a'), second: ref('urn:b'), annotations: [{ M: [] }] },
    });
    expect(applySubmodelValue(nested, JSON.parse(JSON.stringify(value)))).toStrictEqual(nested);
    // [] clears the language strings of the one that has them, and leaves the others without any.
    const cleared = applySubmodelValue(nested, { L: [[], []] }).submodelElements as JsonObject[];
    const { value: _texts, ...mlpWithoutTexts } = mlp;
    expect(cleared[2].value).toStrictEqual([{ modelType: 'MultiLanguageProperty' }, mlpWithoutTexts]);
  });

  it('replaces the language strings; null or [] clears them', () => {
    expect(applyElementValue(mlp, [{ fr: 'Moteur' }]).value).toEqual([{ language: 'fr', text: 'Moteur' }]);
    expect(applyElementValue(mlp, null)).not.toHaveProperty('value');
    expect(applyElementValue(mlp, [])).not.toHaveProperty('value');
    expect(applyElementValue(mlp, null).valueId).toEqual(mlp.valueId);
  });

  it('rejects malformed language strings', () => {
    expectBadRequest(() => applyElementValue(mlp, { en: 'x' }), '$: expected an array');
    expectBadRequest(() => applyElementValue(mlp, [{ en: 'a', de: 'b' }]), '$[0]: expected an object with exactly one');
    expectBadRequest(() => applyElementValue(mlp, [{ en: 'a' }, {}]), '$[1]: expected an object with exactly one');
    expectBadRequest(() => applyElementValue(mlp, [{ en: 5 }]), '$[0].en: expected a string');
    expectBadRequest(() => applyElementValue(mlp, ['en']), '$[0]: expected an object');
  });
});

describe('Range', () => {
  const range = deepFreeze({ idShort: 'R', modelType: 'Range', valueType: 'xs:int', min: '1', max: '010' });

  it('reads {min, max} typed like a Property, omitting absent ends', () => {
    expect(elementValue(range, WITH)).toStrictEqual({ min: 1, max: '010' });
    expect(elementValue({ idShort: 'R', modelType: 'Range', valueType: 'xs:int', max: '3' }, WITH)).toStrictEqual({
      max: 3,
    });
    expect(roundTrip(range)).toEqual(range);
  });

  it('sets present ends, removes null ones, leaves absent ones', () => {
    expect(applyElementValue(range, { max: 20 })).toEqual({ ...range, max: '20' });
    const withoutMin = { idShort: 'R', modelType: 'Range', valueType: 'xs:int', max: '010' };
    expect(applyElementValue(range, { min: null })).toEqual(withoutMin);
  });

  it('rejects wrong shapes with paths', () => {
    expectBadRequest(() => applyElementValue(range, 5), '$: expected an object');
    expectBadRequest(() => applyElementValue(range, { min: {} }), '$.min: expected a string, number');
    expectBadRequest(() => applyElementValue(range, { low: 1 }), '$.low: unexpected property');
  });
});

describe('ReferenceElement', () => {
  const referred = { ...ref('urn:semantic'), referredSemanticId: ref('urn:deeper') };
  const element = deepFreeze({
    idShort: 'Link',
    modelType: 'ReferenceElement',
    value: { type: 'ModelReference', keys: [{ type: 'Submodel', value: 'urn:sm' }], referredSemanticId: referred },
  });

  it('reads the whole reference, null when absent', () => {
    expect(elementValue(element, WITH)).toEqual(element.value);
    expect(elementValue({ idShort: 'L', modelType: 'ReferenceElement' }, WITH)).toBeNull();
    expect(roundTrip(element)).toEqual(element);
  });

  it('replaces or removes the reference', () => {
    expect(applyElementValue(element, ref('urn:other')).value).toEqual(ref('urn:other'));
    expect(applyElementValue(element, null)).not.toHaveProperty('value');
  });

  it('rejects invalid references with the path inside the value', () => {
    expectBadRequest(() => applyElementValue(element, 'urn:x', '$.L'), '$.L: expected an object');
    expectBadRequest(
      () => applyElementValue(element, { type: 'ModelReference', keys: [{ type: 'Nope', value: 'x' }] }),
      '$.keys[0].type: ',
    );
    expectBadRequest(() => applyElementValue(element, { type: 'ModelReference' }), '$: ');
    expectBadRequest(
      () => applyElementValue(element, { ...ref('urn:x'), referredSemanticId: { type: 7, keys: [] } }),
      '$.referredSemanticId.type: ',
    );
    expectBadRequest(() => applyElementValue(element, { ...ref('urn:x'), extra: 1 }), '$.extra: unexpected property');
    expectBadRequest(
      () => applyElementValue(element, { ...ref('x'), keys: [{ type: 'GlobalReference', value: 'x', y: 1 }] }),
      '$.keys[0].y: unexpected property',
    );
  });

  it('turns absurdly nested references into a 400, not a stack overflow', () => {
    let deep: JsonObject = ref('urn:x');
    for (let i = 0; i < 50_000; i++) deep = { ...ref('urn:x'), referredSemanticId: deep };
    expectBadRequest(() => applyElementValue(element, deep), '$: not a valid reference');
  });
});

describe('File and Blob', () => {
  const file = deepFreeze({
    idShort: 'Manual',
    modelType: 'File',
    contentType: 'application/pdf',
    value: '/aasx/m.pdf',
  });
  const blob = deepFreeze({ idShort: 'Icon', modelType: 'Blob', contentType: 'image/png', value: 'AAEC' });

  it('reads a File as {contentType, value}', () => {
    expect(elementValue(file, WITH)).toEqual({ contentType: 'application/pdf', value: '/aasx/m.pdf' });
    expect(elementValue({ ...file, value: undefined }, WITH)).toEqual({ contentType: 'application/pdf' });
    expect(roundTrip(file)).toEqual(file);
  });

  it('writes a File partially; null removes the value', () => {
    expect(applyElementValue(file, { value: '/b.pdf' })).toEqual({ ...file, value: '/b.pdf' });
    expect(applyElementValue(file, { contentType: 'text/plain', value: null })).toEqual({
      idShort: 'Manual',
      modelType: 'File',
      contentType: 'text/plain',
    });
    expectBadRequest(() => applyElementValue(file, { value: 3 }), '$.value: expected a string');
    expectBadRequest(() => applyElementValue(file, { contentType: null }), '$.contentType: expected a string');
  });

  it('reads a Blob value only when asked to', () => {
    expect(elementValue(blob, WITH)).toEqual({ contentType: 'image/png', value: 'AAEC' });
    expect(elementValue(blob, WITHOUT)).toEqual({ contentType: 'image/png' });
    expect(roundTrip(blob, WITH)).toEqual(blob);
    expect(roundTrip(blob, WITHOUT)).toEqual(blob);
  });

  it('writes a Blob: absent value keeps it, null removes it, base64 is checked', () => {
    expect(applyElementValue(blob, { contentType: 'image/gif' })).toEqual({ ...blob, contentType: 'image/gif' });
    expect(applyElementValue(blob, { value: 'AAA=' }).value).toBe('AAA=');
    expect(applyElementValue(blob, { value: null })).not.toHaveProperty('value');
    for (const bad of ['AAE', 'A', '!!!!', 'AA=A']) {
      expectBadRequest(() => applyElementValue(blob, { value: bad }), '$.value: expected base64');
    }
    expectBadRequest(() => applyElementValue(blob, { contentType: 1 }), '$.contentType: expected a string');
    expectBadRequest(() => applyElementValue(blob, 'AAEC'), '$: expected an object');
  });
});

describe('RelationshipElement and AnnotatedRelationshipElement', () => {
  const relationship = deepFreeze({
    idShort: 'Rel',
    modelType: 'RelationshipElement',
    first: ref('urn:a'),
    second: ref('urn:b'),
  });
  const annotated = deepFreeze({
    idShort: 'ARel',
    modelType: 'AnnotatedRelationshipElement',
    first: ref('urn:a'),
    second: ref('urn:b'),
    annotations: [property('Since', 'xs:int', '2020'), property('Note', 'xs:string', 'x')],
  });

  it('reads {first, second} and annotations as single-key objects in order', () => {
    expect(elementValue(relationship, WITH)).toEqual({ first: ref('urn:a'), second: ref('urn:b') });
    expect(elementValue(annotated, WITH)).toEqual({
      first: ref('urn:a'),
      second: ref('urn:b'),
      annotations: [{ Since: 2020 }, { Note: 'x' }],
    });
    expect(elementValue({ ...annotated, annotations: undefined }, WITH)).not.toHaveProperty('annotations');
    expect(roundTrip(relationship)).toEqual(relationship);
    expect(roundTrip(annotated)).toEqual(annotated);
  });

  it('writes ends and annotations by idShort', () => {
    const changed = applyElementValue(annotated, { second: ref('urn:c'), annotations: [{ Note: 'y' }] });
    expect(changed.second).toEqual(ref('urn:c'));
    expect(changed.annotations).toEqual([property('Since', 'xs:int', '2020'), property('Note', 'xs:string', 'y')]);
  });

  it('rejects bad ends and unknown or repeated annotations', () => {
    expectBadRequest(() => applyElementValue(relationship, { first: null }), '$.first: expected an object');
    expectBadRequest(() => applyElementValue(relationship, { annotations: [] }), '$.annotations: unexpected property');
    expectBadRequest(() => applyElementValue(annotated, { annotations: [{ Nope: 1 }] }), '$.annotations[0].Nope: ');
    expectBadRequest(
      () => applyElementValue(annotated, { annotations: [{ Note: 'a' }, { Note: 'b' }] }),
      '$.annotations[1].Note: annotation',
    );
    expectBadRequest(
      () => applyElementValue(annotated, { annotations: { Note: 'a' } }),
      '$.annotations: expected an array',
    );
    expectBadRequest(
      () => applyElementValue(annotated, { annotations: [{ Note: {} }] }),
      '$.annotations[0].Note: expected',
    );
  });
});

describe('Entity', () => {
  const entity = deepFreeze({
    idShort: 'Motor',
    modelType: 'Entity',
    entityType: 'SelfManagedEntity',
    globalAssetId: 'urn:asset:1',
    specificAssetIds: [
      { name: 'serial', value: '123', externalSubjectId: ref('urn:vendor') },
      { name: 'serial', value: '123', semanticId: ref('urn:second') },
      { name: 'part', value: 'P-1' },
    ],
    statements: [property('Power', 'xs:double', '1.5'), { idShort: 'Ability', modelType: 'Capability' }],
  });

  it('reads statements, entityType, globalAssetId and specificAssetIds', () => {
    expect(elementValue(entity, WITH)).toEqual({
      statements: { Power: 1.5 },
      entityType: 'SelfManagedEntity',
      globalAssetId: 'urn:asset:1',
      specificAssetIds: [{ serial: '123' }, { serial: '123' }, { part: 'P-1' }],
    });
    expect(elementValue({ idShort: 'E', modelType: 'Entity', entityType: 'CoManagedEntity' }, WITH)).toEqual({
      entityType: 'CoManagedEntity',
    });
    expect(roundTrip(entity)).toEqual(entity);
  });

  it('keeps a specific asset id that matches by name and value, each at most once', () => {
    const changed = applyElementValue(entity, {
      specificAssetIds: [{ serial: '123' }, { part: 'P-2' }, { serial: '123' }],
    });
    expect(changed.specificAssetIds).toEqual([
      entity.specificAssetIds[0],
      { name: 'part', value: 'P-2' },
      entity.specificAssetIds[1],
    ]);
    expect(applyElementValue(entity, { specificAssetIds: null })).not.toHaveProperty('specificAssetIds');
    expect(applyElementValue(entity, { specificAssetIds: [] })).not.toHaveProperty('specificAssetIds');
  });

  it('writes statements, entityType and globalAssetId', () => {
    const changed = applyElementValue(entity, {
      statements: { Power: 2 },
      entityType: 'CoManagedEntity',
      globalAssetId: null,
    });
    expect(changed.statements).toEqual([property('Power', 'xs:double', '2'), entity.statements[1]]);
    expect(changed.entityType).toBe('CoManagedEntity');
    expect(changed).not.toHaveProperty('globalAssetId');
  });

  it('rejects bad entity values with paths', () => {
    expectBadRequest(
      () => applyElementValue(entity, { entityType: 'Robot' }),
      '$.entityType: expected CoManagedEntity',
    );
    expectBadRequest(() => applyElementValue(entity, { entityType: null }), '$.entityType: expected a string');
    expectBadRequest(() => applyElementValue(entity, { globalAssetId: 1 }), '$.globalAssetId: expected a string');
    expectBadRequest(() => applyElementValue(entity, { statements: { Nope: 1 } }), '$.statements.Nope: there is no');
    expectBadRequest(
      () => applyElementValue(entity, { statements: { Ability: 1 } }),
      '$.statements.Ability: Capability has no',
    );
    expectBadRequest(
      () => applyElementValue(entity, { specificAssetIds: [{ serial: '1', part: '2' }] }),
      '$.specificAssetIds[0]: expected an object with exactly one',
    );
    expectBadRequest(
      () => applyElementValue(entity, { specificAssetIds: [{ serial: 1 }] }),
      '$.specificAssetIds[0].serial: ',
    );
  });
});

describe('BasicEventElement', () => {
  const event = deepFreeze({
    idShort: 'Changed',
    modelType: 'BasicEventElement',
    observed: ref('urn:sm', 'ModelReference', 'Submodel'),
    direction: 'output',
    state: 'on',
  });

  it('reads and writes {observed}', () => {
    expect(elementValue(event, WITH)).toEqual({ observed: event.observed });
    expect(roundTrip(event)).toEqual(event);
    expect(applyElementValue(event, { observed: ref('urn:y') }).observed).toEqual(ref('urn:y'));
    expectBadRequest(() => applyElementValue(event, { observed: 'urn:y' }), '$.observed: expected an object');
    expectBadRequest(() => applyElementValue(event, { direction: 'input' }), '$.direction: unexpected property');
  });
});

describe('SubmodelElementCollection, SubmodelElementList and the submodel', () => {
  const submodel = deepFreeze({
    id: 'urn:sm:1',
    modelType: 'Submodel',
    idShort: 'Technical',
    submodelElements: [
      {
        idShort: 'Coll',
        modelType: 'SubmodelElementCollection',
        value: [
          property('Prop', 'xs:int', '5'),
          { idShort: 'Run', modelType: 'Operation' },
          { idShort: 'Inner', modelType: 'SubmodelElementCollection' },
        ],
      },
      {
        idShort: 'List',
        modelType: 'SubmodelElementList',
        typeValueListElement: 'SubmodelElement',
        value: [
          { modelType: 'Property', valueType: 'xs:boolean', value: 'true' },
          { modelType: 'Capability' },
          { modelType: 'Range', valueType: 'xs:double', min: '0.5' },
        ],
      },
      { idShort: 'Can', modelType: 'Capability' },
      property('Top', 'xs:string', 'hello'),
    ],
  });
  const [coll, list] = submodel.submodelElements as JsonObject[];

  it('reads a submodel as { idShort: value }, leaving out kinds without a value form', () => {
    expect(submodelValue(submodel, WITH)).toEqual({
      Coll: { Prop: 5, Inner: {} },
      List: [true, null, { min: 0.5 }],
      Top: 'hello',
    });
    expect(elementValue(list, WITH)).toEqual([true, null, { min: 0.5 }]);
    expect(submodelValue({ id: 'urn:empty', modelType: 'Submodel' }, WITH)).toEqual({});
  });

  it('round-trips the submodel and each element', () => {
    for (const options of [WITH, WITHOUT]) {
      const value = JSON.parse(JSON.stringify(submodelValue(submodel, options)));
      expect(applySubmodelValue(submodel, value)).toEqual(submodel);
    }
    expect(roundTrip(coll)).toEqual(coll);
    expect(roundTrip(list)).toEqual(list);
  });

  it('applies partial collection values and leaves unmentioned children alone', () => {
    const changed = applySubmodelValue(submodel, { Coll: { Prop: 6 }, List: [false, null, { max: 2 }] });
    const [newColl, newList, can, top] = changed.submodelElements as JsonObject[];
    expect(newColl.value).toEqual([property('Prop', 'xs:int', '6'), ...(coll.value as JsonObject[]).slice(1)]);
    expect(newList.value).toEqual([
      { modelType: 'Property', valueType: 'xs:boolean', value: 'false' },
      { modelType: 'Capability' },
      { modelType: 'Range', valueType: 'xs:double', min: '0.5', max: '2' },
    ]);
    expect(can).toEqual(submodel.submodelElements[2]);
    expect(top).toEqual(submodel.submodelElements[3]);
    expect(applySubmodelValue(submodel, {})).toEqual(submodel);
  });

  it('rejects unknown idShorts, kinds without value, list length changes and wrong types', () => {
    expectBadRequest(
      () => applySubmodelValue(submodel, { Nope: 1 }),
      "$.Nope: there is no submodel element with idShort 'Nope'",
    );
    expectBadRequest(() => applySubmodelValue(submodel, { Coll: { Nope: 1 } }), '$.Coll.Nope: there is no');
    expectBadRequest(() => applySubmodelValue(submodel, { Coll: { Prop: [] } }), '$.Coll.Prop: expected a string');
    expectBadRequest(
      () => applySubmodelValue(submodel, { Coll: { Run: 1 } }),
      '$.Coll.Run: Operation has no value-only form',
    );
    expectBadRequest(() => applySubmodelValue(submodel, { Can: null }), '$.Can: Capability has no value-only form');
    expectBadRequest(() => applySubmodelValue(submodel, { Coll: [] }), '$.Coll: expected an object');
    expectBadRequest(() => applySubmodelValue(submodel, { List: [true, null] }), '$.List: expected 3 values');
    expectBadRequest(() => applySubmodelValue(submodel, { List: [true, null, null, 1] }), '$.List: expected 3 values');
    expectBadRequest(() => applySubmodelValue(submodel, { List: [true, 1, {}] }), '$.List[1]: Capability has no');
    expectBadRequest(() => applySubmodelValue(submodel, { List: [{}, null, {}] }), '$.List[0]: expected a string');
    expectBadRequest(() => applySubmodelValue(submodel, { List: [true, null, 1] }), '$.List[2]: expected an object');
    expectBadRequest(() => applySubmodelValue(submodel, { List: {} }), '$.List: expected an array');
    expectBadRequest(() => applySubmodelValue(submodel, [1]), '$: expected an object');
    expectBadRequest(() => applySubmodelValue(submodel, null), '$: expected an object');
  });
});

describe('Operation and Capability', () => {
  const operation = deepFreeze({ idShort: 'Run', modelType: 'Operation' });
  const capability = deepFreeze({ idShort: 'Can', modelType: 'Capability' });

  it('have no value-only form', () => {
    expect(hasValue(operation)).toBe(false);
    expect(hasValue(capability)).toBe(false);
    expect(hasValue(property('P', 'xs:int'))).toBe(true);
    expectBadRequest(() => elementValue(operation, WITH), "The Operation 'Run' has no value-only form");
    expectBadRequest(() => elementValue(capability, WITH), "The Capability 'Can' has no value-only form");
    expectBadRequest(() => applyElementValue(operation, {}, '$.Run'), '$.Run: Operation has no value-only form');
    expectBadRequest(() => applyElementValue(capability, null), '$: Capability has no value-only form');
  });
});

describe('outputs share nothing with inputs', () => {
  it('returns references that can be changed without touching the element', () => {
    const element = { idShort: 'L', modelType: 'ReferenceElement', value: ref('urn:a') };
    (elementValue(element, WITH) as JsonObject).type = 'ModelReference';
    expect(element.value.type).toBe('ExternalReference');
    const applied = applyElementValue(element, ref('urn:b'));
    expect(element.value).toEqual(ref('urn:a'));
    expect(applied.value).not.toBe(element.value);
  });
});

// ---------------------------------------------------------------------------------------------------------------
// The conformance corpus: every submodel of every Expected environment round-trips, as does each of its elements.

const CORPUS = path.join(corpusDir(), 'Json');

function jsonFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    return entry.isDirectory() ? jsonFiles(full) : entry.name.endsWith('.json') ? [full] : [];
  });
}

/** Every element of the tree, parents before children. */
function* elementsOf(elements: unknown): Generator<JsonObject> {
  for (const element of Array.isArray(elements) ? (elements as JsonObject[]) : []) {
    yield element;
    // `value` holds children only for collections and lists (an MLP's value is language strings).
    if (element.modelType === 'SubmodelElementCollection' || element.modelType === 'SubmodelElementList') {
      yield* elementsOf(element.value);
    }
    yield* elementsOf(element.statements);
    yield* elementsOf(element.annotations);
  }
}

describe('aas-core3.0-testgen corpus', () => {
  it('round-trips every submodel of every Expected environment, with and without blob values', () => {
    const files = jsonFiles(CORPUS).filter((file) => file.split(path.sep).includes('Expected'));
    let submodels = 0;
    let elements = 0;
    for (const file of files) {
      const environment = JSON.parse(fs.readFileSync(file, 'utf8'));
      if (!Array.isArray(environment.submodels)) continue;
      for (const json of environment.submodels) {
        const parsed = jsonization.submodelFromJsonable(json);
        expect(parsed.error, file).toBeNull();
        const submodel = deepFreeze(jsonization.toJsonable(parsed.mustValue()) as JsonObject);
        submodels++;
        for (const options of [WITH, WITHOUT]) {
          const value = JSON.parse(JSON.stringify(submodelValue(submodel, options)));
          expect(applySubmodelValue(submodel, value), file).toEqual(submodel);
          for (const element of elementsOf(submodel.submodelElements)) {
            if (!hasValue(element)) continue;
            elements++;
            const elementJson = JSON.parse(JSON.stringify(elementValue(element, options)));
            expect(applyElementValue(element, elementJson), `${file} ${String(element.idShort)}`).toEqual(element);
          }
        }
      }
    }
    console.log(`value-only corpus: ${submodels} submodels, ${elements} element round trips, ${files.length} files`);
    expect(submodels).toBeGreaterThan(400);
  });
});
