/**
 * JSON text of a GraphQL answer, or an error answer when it would exceed `limit` bytes. The count runs while
 * serializing (a replacer sees every value), so a document repeated under 2,000 aliases fails at the limit instead
 * of building a string of gigabytes. The count is an estimate (keys, strings and punctuation, in UTF-16 units).
 */
export function stringifyWithin(result: unknown, limit: number): string {
  let bytes = 0;
  try {
    return JSON.stringify(result, function count(key: string, value: unknown) {
      bytes += key.length + 4;
      if (typeof value === 'string') bytes += value.length;
      if (bytes > limit) throw new TooLarge();
      return value;
    });
  } catch (err) {
    if (!(err instanceof TooLarge)) throw err;
    return JSON.stringify({
      errors: [
        {
          message: `The answer would exceed ${limit} bytes (RESPONSE_LIMIT): ask for fewer items (limit), fewer aliases or fewer document fields (json, value).`,
          extensions: { code: 'RESPONSE_TOO_LARGE' },
        },
      ],
    });
  }
}

class TooLarge extends Error {}
