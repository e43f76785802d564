/** `$regex` patterns the query parser accepts; the SQL test runs each through PostgreSQL. */
export const ACCEPTED_PATTERNS = [
  '^a.*b$',
  '[A-Z]{2,3}-\\d+',
  '(?:ab)+',
  '(?:ab){3}',
  'x(?=y)',
  'x(?!y)',
  '\\u00e9',
  '[\\w.-]+@x',
  '[^\\]]',
  '(a|b)*?c',
  'x{255}'.repeat(36),
  '(((((a*)*)*)*)*)*',
  '([a-z][0-9]){255}',
  '\\.\\*\\+\\?\\(\\)\\[\\]\\{\\}\\|\\^\\$\\/',
  '\\s\\S\\d\\D\\w\\W\\n\\t\\r',
];
