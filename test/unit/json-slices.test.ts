import { describe, expect, it } from 'vitest';
import { WHOLE_PARSE_CHARS, parseJsonInSlices, stringifyJsonInSlices } from '../../src/common/json-slices';
import { countLoopTurns } from '../support/loop-turns';

/** An environment of many shells and a submodel of many elements, with a large member beside small ones. */
const environment = {
  assetAdministrationShells: Array.from({ length: 3_000 }, (_, i) => ({ modelType: 'AssetAdministrationShell', id: `urn:s:${i}`, assetInformation: { assetKind: 'Instance' } })),
  submodels: [
    {
      modelType: 'Submodel',
      id: 'urn:sm',
      submodelElements: Array.from({ length: 8_000 }, (_, i) => ({ modelType: 'Property', idShort: `P${i}`, valueType: 'xs:string', value: `v"\\${i}\u00e9\ud83d\ude00`, n: i / 7, b: i % 2 === 0, z: null })),
    },
  ],
  conceptDescriptions: [],
  empty: {},
};

describe('JSON in slices', () => {
  it('parses what JSON.parse parses, to the same value, in slices far smaller than the text', async () => {
    const text = JSON.stringify(environment, null, 1);
    expect(await parseJsonInSlices(text, 4_096, 0)).toEqual(JSON.parse(text));
    const compact = JSON.stringify(environment);
    expect(await parseJsonInSlices(compact, 4_096, 0)).toEqual(environment);
    expect(await parseJsonInSlices(` [ ${'1, '.repeat(5_000)}"x" , { } , [ ] ] `, 100, 0)).toEqual(JSON.parse(` [ ${'1, '.repeat(5_000)}"x" , { } , [ ] ] `));
  });

  it('keeps __proto__ as an own member and the last of duplicate keys, as JSON.parse does', async () => {
    const text = `{"__proto__":{"polluted":true},"a":1,"a":[${'0,'.repeat(3_000)}2],"pad":"${'x'.repeat(5_000)}"}`;
    const parsed = (await parseJsonInSlices(text, 1_000, 0)) as Record<string, unknown>;
    expect(parsed).toEqual(JSON.parse(text));
    expect(Object.getPrototypeOf(parsed)).toBe(Object.prototype);
    expect(Object.keys(parsed)).toEqual(['__proto__', 'a', 'pad']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('refuses what JSON.parse refuses', async () => {
    const big = (inner: string) => `{"a":[${'1,'.repeat(2_000)}1]${inner}}`;
    for (const bad of [big(',}'), big(',"b"'), big(',"b":'), big(' "b":1'), big(',b:1'), `[${'1,'.repeat(2_000)}]`, `[${'1,'.repeat(2_000)}1`, `[${'1,'.repeat(2_000)}1] x`, `[${'"a",'.repeat(2_000)}"b]`, `[${'1,'.repeat(2_000)}01]`]) {
      expect(() => JSON.parse(bad)).toThrow(SyntaxError);
      await expect(parseJsonInSlices(bad, 500, 0)).rejects.toThrow(SyntaxError);
    }
  });

  it('writes the text JSON.stringify writes', async () => {
    expect(await stringifyJsonInSlices(environment, 4_096)).toBe(JSON.stringify(environment));
    const odd = { a: undefined, b: [undefined, () => 1, 1], c: new Date(0), d: Array.from({ length: 6_000 }, (_, i) => ({ i, u: undefined })) };
    expect(await stringifyJsonInSlices(odd, 1_000)).toBe(JSON.stringify(odd));
    expect(await stringifyJsonInSlices('small')).toBe('"small"');
  });

  it('parses a text of up to WHOLE_PARSE_CHARS with one JSON.parse (no turns), a longer one in slices', async () => {
    const text = JSON.stringify({ x: 'y'.repeat(WHOLE_PARSE_CHARS - 100) });
    let turns = 0;
    const count = () => void turns++;
    setImmediate(count);
    expect(await parseJsonInSlices(text)).toEqual(JSON.parse(text));
    expect(turns).toBe(0);
    const longer = JSON.stringify({ x: 'y'.repeat(WHOLE_PARSE_CHARS + 100) });
    setImmediate(count);
    expect(await parseJsonInSlices(longer)).toEqual(JSON.parse(longer));
    expect(turns).toBeGreaterThan(0);
  });

  it('gives the event loop turns while it parses and writes a large document', async () => {
    const text = JSON.stringify(environment);
    const loop = countLoopTurns();
    await parseJsonInSlices(text, 16_384, 0);
    const whileParsing = loop.turns;
    await stringifyJsonInSlices(environment, 16_384);
    const turns = loop.stop();
    expect(whileParsing).toBeGreaterThan(10);
    expect(turns - whileParsing).toBeGreaterThan(10);
  });
});
