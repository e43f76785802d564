/**
 * GraphQL's texts for variables that do not fit their types (`Variable "$input" got invalid value {}; Field value.name of
 * required type String! was not provided.`), said in the terms of the REST API: the field of the body or the parameter,
 * and what it must be. A REST client never sees the operation behind its route, so neither its variables nor its types.
 */
export function inApiTerms(message: string): string {
  const missingVariable = /^Variable "\$(\w+)" of (?:required|non-null) type "?([^"\s]+?)"? (?:was not provided|must not be null)\.$/.exec(message);
  if (missingVariable) return `'${missingVariable[1]}' is required: ${typeWords(missingVariable[2])}.`;
  const invalid = /^Variable "\$(\w+)" got invalid value (.*?)(?: at "([^"]+)")?; (.*)$/s.exec(message);
  if (!invalid) return message;
  const [, variable, value, at, detail] = invalid;
  // Where: a field of the body (`$input`, or a body field passed as a variable of its own), or a part of it.
  const path = at ? at.split('.').slice(1).join('.') : '';
  const where = variable === 'input' ? path : [variable, path].filter(Boolean).join('.');
  const named = (field: string) => `'${[where, field].filter(Boolean).join('.')}'`;
  const missingField = /^Field value\.([\w.]+) of required type "?([^"\s]+?)"? was not provided\.$/.exec(detail);
  if (missingField) return `${named(missingField[1])} is required: ${typeWords(missingField[2])}.`;
  const unknownField = /^Field "([^"]+)" is not defined by type "?[^"\s]+?"?\.(?: Did you mean .*)?$/.exec(detail);
  if (unknownField) return `${named(unknownField[1])} is not a field of this request.`;
  const subject = where ? `'${where}'` : 'The body';
  const expected = /^Expected type "?([^";\s]+?)"?[.;]/.exec(detail);
  if (expected) return `${subject} must be ${typeWords(expected[1])}, got ${clip(value)}.`;
  const enumValue = /^Value "?([^"]*)"? does not exist in "?(\w+)"? enum\./.exec(detail);
  if (enumValue) return `${subject}: '${enumValue[1]}' is not one of the values it takes.`;
  const scalar = /^(\w+) cannot represent/.exec(detail);
  if (scalar) return `${subject} must be ${typeWords(scalar[1])}, got ${clip(value)}.`;
  return `${subject} is not valid: ${detail}`;
}

/** What a value of a GraphQL type is, in words: `a string`, `a list of integers`, `an object`. */
function typeWords(type: string): string {
  const bare = type.replace(/!$/, '');
  if (bare.startsWith('[')) return `a list of ${plural(bare.slice(1, -1).replace(/!$/, ''))}`;
  return SCALARS[bare]?.[0] ?? 'an object with the documented fields';
}

function plural(type: string): string {
  return SCALARS[type]?.[1] ?? 'objects with the documented fields';
}

const SCALARS: Record<string, [string, string]> = {
  String: ['a string', 'strings'],
  ID: ['a string', 'strings'],
  Int: ['an integer', 'integers'],
  Float: ['a number', 'numbers'],
  Boolean: ['true or false', 'booleans'],
  JSON: ['a JSON value', 'JSON values'],
  JSONObject: ['a JSON object', 'JSON objects'],
};

/** A value as GraphQL printed it, cut for a message. */
const clip = (value: string) => (value.length > 80 ? `${value.slice(0, 77)}...` : value);
