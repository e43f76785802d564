import { describe, expect, it } from 'vitest';
import { formatIdShortPath, parseIdShortPath } from '../../src/aas/submodels/element-tree';

describe('idShortPath', () => {
  it('reads idShorts and list indices', () => {
    expect(parseIdShortPath('a.b[2][0].c-d_e')).toEqual([{ idShort: 'a' }, { idShort: 'b' }, { index: 2 }, { index: 0 }, { idShort: 'c-d_e' }]);
  });

  it('addresses idShorts an import kept although they break AASd-002', () => {
    for (const idShort of ['I40 Language (German)', '1677685100000', 'NOT:isAuthenticatedSecurityUser', 'Größe', '_x']) {
      expect(parseIdShortPath(`${idShort}.v[1]`)).toEqual([{ idShort }, { idShort: 'v' }, { index: 1 }]);
      expect(formatIdShortPath(parseIdShortPath(idShort))).toBe(idShort);
    }
  });

  it('refuses what is no path: empty steps, stray brackets, an index without an idShort', () => {
    for (const raw of ['', ' ', 'a\u0000b', 'a\nb', ' [0]', 'a..b', '.a', 'a.', 'a[x]', 'a[1', 'a]', '[0]', 'a.[0]', 'a[1]b']) {
      expect(() => parseIdShortPath(raw), raw).toThrow(/idShortPath/);
    }
  });
});
