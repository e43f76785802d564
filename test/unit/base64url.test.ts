import { describe, expect, it } from 'vitest';
import { decodeBase64Url, encodeBase64Url } from '../../src/common/base64url';

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
});
