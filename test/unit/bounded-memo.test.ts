import { describe, expect, it } from 'vitest';
import { BoundedMemo } from '../../src/common/bounded-memo';

describe('BoundedMemo', () => {
  it('keeps at most its count of entries, the oldest going first', () => {
    const memo = new BoundedMemo<number>(2, 1_000);
    memo.set('a', 1, 1);
    memo.set('b', 2, 1);
    memo.set('c', 3, 1);
    expect([memo.get('a'), memo.get('b'), memo.get('c')]).toEqual([undefined, 2, 3]);
  });

  it('keeps at most its characters, drops as many old entries as a new one needs, and keeps nothing larger than the bound', () => {
    const memo = new BoundedMemo<string>(100, 10);
    memo.set('a', 'x', 4);
    memo.set('b', 'y', 4);
    memo.set('c', 'z', 6);
    expect([memo.get('a'), memo.get('b'), memo.get('c')]).toEqual([undefined, 'y', 'z']);
    memo.set('d', 'w', 11);
    expect(memo.get('d')).toBeUndefined();
    expect(memo.get('c')).toBe('z');
  });

  it('counts a key set again once', () => {
    const memo = new BoundedMemo<number>(100, 10);
    memo.set('a', 1, 6);
    memo.set('a', 2, 6);
    memo.set('b', 3, 4);
    expect([memo.get('a'), memo.get('b')]).toEqual([2, 3]);
  });
});
