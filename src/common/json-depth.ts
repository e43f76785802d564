/**
 * The deepest nesting of JSON objects and arrays accepted anywhere: request bodies, GraphQL variables, stored
 * documents. Parsers, the metamodel library and value-only code recurse; a value nested thousands deep would
 * exhaust the stack. Real AAS models stay far below this.
 */
export const MAX_JSON_DEPTH = 128;

/** Whether `json` nests deeper than `max`; iterative, so it cannot overflow itself. */
export function nestsDeeperThan(json: unknown, max: number = MAX_JSON_DEPTH): boolean {
  const stack: [unknown, number][] = [[json, 1]];
  while (stack.length) {
    const [value, depth] = stack.pop()!;
    if (value === null || typeof value !== 'object') continue;
    if (depth > max) return true;
    for (const inner of Object.values(value)) stack.push([inner, depth + 1]);
  }
  return false;
}
