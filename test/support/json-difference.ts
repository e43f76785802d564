import { isDeepStrictEqual } from 'node:util';

/**
 * The first place where two JSON values differ, as a JSON path with both values (`what` names the first one),
 * or undefined when they are deeply equal: a readable message where a deep-equal diff of a large document is not.
 */
export function firstDifference(actual: unknown, expected: unknown, what = 'server', path = '$'): string | undefined {
  if (isDeepStrictEqual(actual, expected)) return undefined;
  if (actual && expected && typeof actual === 'object' && typeof expected === 'object' && Array.isArray(actual) === Array.isArray(expected)) {
    for (const key of new Set([...Object.keys(actual), ...Object.keys(expected)])) {
      const inner = firstDifference(
        (actual as Record<string, unknown>)[key],
        (expected as Record<string, unknown>)[key],
        what,
        Array.isArray(actual) ? `${path}[${key}]` : `${path}.${key}`,
      );
      if (inner) return inner;
    }
  }
  return `${path}: ${what} has ${JSON.stringify(actual)?.slice(0, 500)}, expected ${JSON.stringify(expected)?.slice(0, 500)}`;
}
