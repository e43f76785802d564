import { describe, expect, it } from 'vitest';
import { encodeBase64Url } from '../../src/common/base64url';
import { checkLimit, decodeCursor, encodeCursor } from '../../src/common/cursor';

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

  it('checks limit as 1..250, never clamping', () => {
    expect(checkLimit(1)).toBeUndefined();
    expect(checkLimit(250)).toBeUndefined();
    for (const bad of [0, 251, -1, 1.5, Number.NaN]) expect(checkLimit(bad), String(bad)).toMatch(/1 to 250/);
  });
});
