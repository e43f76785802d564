import { describe, expect, it } from 'vitest';
import { encodeBase64Url } from '../../src/common/base64url';
import { randomBytes } from 'node:crypto';
import { checkLimit, cursorList, decodeCursor, encodeCursor, useCursorSecret } from '../../src/common/cursor';

describe('cursor', () => {
  it('round-trips the last key of a page, bound to its list', () => {
    expect(decodeCursor('shells', encodeCursor('shells', 42))).toBe(42);
    expect(decodeCursor('ids', encodeCursor('ids', 'urn:x'))).toBe('urn:x');
  });

  it('is opaque base64url', () => {
    expect(encodeCursor('shells', 123456)).toMatch(/^[A-Za-z0-9_-]+$/);
  });

  it('rejects cursors of another list and forged ones', () => {
    expect(decodeCursor('shells', encodeCursor('submodel-refs', 3))).toBeUndefined();
    for (const forged of [
      'abc',
      '',
      encodeBase64Url('not json'),
      encodeBase64Url('{"s":1}'),
      encodeBase64Url('["shells"]'),
      encodeBase64Url('["shells",-1]'),
      encodeBase64Url('["shells",1.5]'),
      encodeBase64Url('["shells",""]'),
      encodeBase64Url('["shells",null]'),
      encodeBase64Url('["shells",1,2]'),
      encodeBase64Url(`["shells",${Number.MAX_SAFE_INTEGER + 2}]`),
    ]) {
      expect(decodeCursor('shells', forged), forged).toBeUndefined();
    }
  });

  it('binds a cursor to everything that selects the list: tenant and filter', () => {
    const list = cursorList('shells', 'tenant-a', [['id_short = ?', 'x']]);
    expect(decodeCursor(list, encodeCursor(list, 7))).toBe(7);
    expect(decodeCursor(cursorList('shells', 'tenant-b', [['id_short = ?', 'x']]), encodeCursor(list, 7))).toBeUndefined();
    expect(decodeCursor(cursorList('shells', 'tenant-a', [['id_short = ?', 'y']]), encodeCursor(list, 7))).toBeUndefined();
    // An absent filter is absent however it is passed.
    expect(cursorList('files', 't', { name: null })).toBe(cursorList('files', 't', {}));
    // Nulls anywhere are dropped as at the top level; the text "null" in a value is a value like any other.
    const dropNulls = (...items: unknown[]) => JSON.stringify(items, (_key, value: unknown) => (value === null ? undefined : value));
    for (const selection of [
      [{ $and: [{ $eq: [{ $field: '$sm#idShort' }, { $strVal: 'x' }] }] }],
      [{ a: { b: null, c: [1, null, 'null'] } }, 'nullable'],
      ['tenant', [['id_short = ?', 'null']]],
    ]) {
      expect(cursorList('query:submodels', ...selection)).toBe(dropNulls('query:submodels', ...selection));
    }
  });

  it('reveals nothing of the key it holds, and is refused under another secret', () => {
    const cursor = encodeCursor('shells', 123456);
    expect(Buffer.from(cursor, 'base64url').toString('latin1')).not.toMatch(/123456|shells/);
    useCursorSecret(randomBytes(32));
    const sealed = encodeCursor('shells', 5);
    expect(decodeCursor('shells', sealed)).toBe(5);
    useCursorSecret(randomBytes(32)); // another database's secret
    expect(decodeCursor('shells', sealed)).toBeUndefined();
    expect(decodeCursor('shells', cursor)).toBeUndefined();
  });

  it('checks limit as 1..250, never clamping', () => {
    expect(checkLimit(1)).toBeUndefined();
    expect(checkLimit(250)).toBeUndefined();
    for (const bad of [0, 251, -1, 1.5, Number.NaN]) expect(checkLimit(bad), String(bad)).toMatch(/1 to 250/);
  });
});
