import { describe, expect, it } from 'vitest';
import { decodeBase64Url, encodeBase64Url, isStandardBase64Text } from '../../src/common/base64url';

describe('base64url', () => {
  it('round-trips identifiers, including non-ASCII and URL-hostile characters', () => {
    for (const id of ['urn:x:1', 'https://example.com/ids/aas/1?a=b&c=d#f', 'Größe/ü€', 'a', '~~~???///']) {
      const encoded = encodeBase64Url(id);
      expect(encoded).toMatch(/^[A-Za-z0-9_-]+$/);
      expect(decodeBase64Url(encoded)).toBe(id);
    }
  });

  it('accepts padding and no padding alike', () => {
    expect(decodeBase64Url('YQ')).toBe('a');
    expect(decodeBase64Url('YQ==')).toBe('a');
    expect(decodeBase64Url('YWI')).toBe('ab');
    expect(decodeBase64Url('YWI=')).toBe('ab');
  });

  it('rejects what is not canonical base64url of UTF-8', () => {
    for (const bad of ['', 'Y', 'YQ=', 'YQ===', 'Y=Q', 'a+b/', 'YQ%3D%3D', 'YR', '____', '/w', 'gA']) {
      expect(decodeBase64Url(bad), bad).toBeUndefined();
    }
  });

  it('tells standard base64 of text (with + or /) from base64url and from what is neither', () => {
    for (const id of ['urn:std64:0?>x', 'urn:std64:100?>x', '~~~???///']) {
      const standard = Buffer.from(id, 'utf8').toString('base64');
      expect(standard).toMatch(/[+/]/);
      expect(isStandardBase64Text(standard), standard).toBe(true);
      expect(isStandardBase64Text(standard.replace(/=+$/, '')), standard).toBe(true);
    }
    // base64url, no base64 at all, mixed alphabets, not text, bad padding.
    for (const other of [encodeBase64Url('urn:std64:0?>x'), 'abc/def-ghi', 'a+b_', 'YQ', 'nonsense/path', '/w', 'gA+/', 'YQ=/']) {
      expect(isStandardBase64Text(other), other).toBe(false);
    }
  });
});
