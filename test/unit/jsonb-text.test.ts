import { describe, expect, it } from 'vitest';
import { compactJsonbText } from '../../src/common/jsonb-text';

describe('compactJsonbText', () => {
  it('drops the spaces PostgreSQL writes after , and : between tokens, and nothing inside strings', () => {
    expect(compactJsonbText('{"id": "urn:x:1", "a": [1, 2, {"b": null}], "c": true}')).toBe('{"id":"urn:x:1","a":[1,2,{"b":null}],"c":true}');
    const tricky = { 'k: v': 'a, b: c', q: 'say "x, y": z\\', e: '\\", ', n: [] as unknown[] };
    // jsonb's text of it: separators with a space, strings escaped as JSON escapes them.
    const jsonb = `{${Object.entries(tricky).map(([k, v]) => `${JSON.stringify(k)}: ${JSON.stringify(v)}`).join(', ')}}`;
    expect(compactJsonbText(jsonb)).toBe(JSON.stringify(tricky));
    expect(JSON.parse(compactJsonbText(jsonb))).toEqual(tricky);
  });
});
