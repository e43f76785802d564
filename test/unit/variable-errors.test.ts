import { describe, expect, it } from 'vitest';
import { inApiTerms } from '../../rest-facade/variable-errors';

describe('variable errors in the terms of the REST API', () => {
  it('names the field of the body and what it must be, never a variable or a GraphQL type', () => {
    const cases: [string, string][] = [
      ['Variable "$input" got invalid value {}; Field value.name of required type String! was not provided.', "'name' is required: a string."],
      ['Variable "$input" got invalid value { zzz: 1 }; Field "zzz" is not defined by type OrganizationInput.', "'zzz' is not a field of this request."],
      ['Variable "$name" got invalid value 5; Expected type String; String cannot represent a non string value: 5', "'name' must be a string, got 5."],
      ['Variable "$showcase" got invalid value "yes"; Expected type Boolean; Boolean cannot represent a non boolean value: "yes"', "'showcase' must be true or false, got \"yes\"."],
      ['Variable "$input" got invalid value 5 at "input.limits.size"; Int cannot represent non-integer value: 5.5', "'limits.size' must be an integer, got 5."],
      ['Variable "$input" got invalid value { role: "x" }; Field value.scope.kind of required type "[String!]!" was not provided.', "'scope.kind' is required: a list of strings."],
      ['Variable "$limit" of required type "Int!" was not provided.', "'limit' is required: an integer."],
      ['Variable "$kind" got invalid value "X"; Value "X" does not exist in "Kind" enum.', "'kind': 'X' is not one of the values it takes."],
    ];
    for (const [graphql, api] of cases) {
      expect(inApiTerms(graphql), graphql).toBe(api);
      expect(inApiTerms(graphql)).not.toMatch(/Variable|\$input|String!|Input\b/);
    }
  });

  it('leaves other texts as they are', () => {
    expect(inApiTerms('limit must be an integer from 1 to 250')).toBe('limit must be an integer from 1 to 250');
  });
});
