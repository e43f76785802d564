/**
 * PostgreSQL writes a `jsonb` value as text with a space after every `,` and `:` between tokens
 * (`{"id": "x", "a": [1, 2]}`) and no other whitespace outside strings. The server answers compact JSON everywhere,
 * as `JSON.stringify` writes it: this drops those spaces, leaving strings as they are.
 */
const TOKEN = /"(?:[^"\\]|\\.)*"|[,:] /g;

export function compactJsonbText(text: string): string {
  return text.replace(TOKEN, (token) => (token.length === 2 && token[1] === ' ' && token[0] !== '"' ? token[0] : token));
}
