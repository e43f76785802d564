import { describe, expect, it } from 'vitest';
import { MAX_WARNINGS, type ImportWarning, countWarnings, warningLines } from '../../src/aas/import/import-warnings';

const w = (text: string, kind: ImportWarning['kind'] = 'dropped'): ImportWarning => ({ kind, text });

describe('import warnings', () => {
  it('each text once, in the order first seen, with its count where it came more than once', () => {
    expect(warningLines([w('a'), w('b'), w('a'), w('c'), w('a')])).toEqual(['a (×3)', 'b', 'c']);
  });

  it('at most MAX_WARNINGS lines, then how many more and how many in all', () => {
    const many = Array.from({ length: MAX_WARNINGS + 10 }, (_, i) => w(`w${i}`));
    const lines = warningLines([...many, w('w0')]);
    expect(lines).toHaveLength(MAX_WARNINGS + 1);
    expect(lines[0]).toBe('w0 (×2)');
    expect(lines[MAX_WARNINGS]).toBe(`... and 10 more warnings (${MAX_WARNINGS + 11} in all)`);
  });

  it('counts every kind, a line standing for more as those', () => {
    const counts = countWarnings([w('x', 'constraint'), w("submodel 'a': ... and 7 more violations", 'constraint'), w('y', 'file'), w('y', 'file'), w('... and 3 more warnings', 'version')]);
    expect(counts).toEqual({ package: 0, version: 3, dropped: 0, constraint: 8, file: 2 });
  });
});
