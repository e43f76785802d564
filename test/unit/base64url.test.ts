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

  it('decides as decoding, re-encoding and comparing does, over random inputs', () => {
    /** The rule spelled out the slow way: canonical when it encodes back to itself, text when UTF-8 round-trips. */
    const slow = (text: string): string | undefined => {
      if (text.length === 0 || !/^[A-Za-z0-9_-]*={0,2}$/.test(text)) return undefined;
      const unpadded = text.replace(/=+$/, '');
      if (unpadded.length % 4 === 1 || (text.length !== unpadded.length && text.length % 4 !== 0)) return undefined;
      const bytes = Buffer.from(unpadded, 'base64url');
      if (bytes.toString('base64url') !== unpadded) return undefined;
      const decoded = bytes.toString('utf8');
      return Buffer.from(decoded, 'utf8').equals(bytes) ? decoded : undefined;
    };
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_=+/';
    let seed = 7;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    let valid = 0;
    for (let n = 0; n < 20_000; n++) {
      const length = Math.floor(random() * 12);
      let text = '';
      for (let i = 0; i < length; i++) text += alphabet[Math.floor(random() * (random() < 0.9 ? 64 : alphabet.length))];
      if (random() < 0.2) text += random() < 0.5 ? '=' : '==';
      const expected = slow(text);
      if (expected !== undefined) valid++;
      expect(decodeBase64Url(text), text).toBe(expected);
    }
    // Random bytes of text too: every one of them decodes.
    for (let n = 0; n < 2_000; n++) {
      const bytes = Buffer.from(Array.from({ length: Math.floor(random() * 20) + 1 }, () => Math.floor(random() * 256)));
      const encoded = bytes.toString('base64url');
      expect(decodeBase64Url(encoded), encoded).toBe(slow(encoded));
    }
    expect(valid).toBeGreaterThan(200);
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
