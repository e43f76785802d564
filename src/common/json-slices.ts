import { setImmediate as nextTurn } from 'node:timers/promises';
import { JSONParser } from '@streamparser/json';

/**
 * JSON.parse and JSON.stringify of large documents (an uploaded environment of 19 MB, a submodel of 100,000 elements)
 * in slices, between which the event loop serves other requests: one call of either holds it for 100 ms and more.
 * Both give what JSON.parse and JSON.stringify give (the same values, the same text); a malformed text is a
 * SyntaxError. Parsing feeds the text to a streaming parser a slice at a time; writing is cut where containers hold
 * many values: a large array or object is written member by member, each small member with one JSON.stringify, a
 * large one cut again (up to MAX_SPLIT_DEPTH levels; deeper, one call).
 */
/** About how many characters one slice writes before the event loop gets a turn. */
export const SLICE_CHARS = 256 * 1024;
/**
 * About how many characters one slice parses: some milliseconds of the streaming parser on an idle machine. A
 * request served meanwhile needs a turn of the loop for each of its steps (its bytes read, its answer written), each
 * after one slice, so a slice is kept short.
 */
export const PARSE_SLICE_CHARS = 64 * 1024;
/** How deep containers are cut: below it, a member is one call however large (bounds the work of the scan). */
const MAX_SPLIT_DEPTH = 8;
/** Values in a member that make it large enough to be cut for stringifying. */
const SPLIT_VALUES = 5_000;

/**
 * Texts up to this many characters are parsed by one JSON.parse: it holds the event loop about 5 ms a megabyte on an
 * idle machine, while the streaming parser takes some fifteen times the CPU of it (spread over the loop's turns).
 * So a document of a few megabytes (a converted certificate, a typical submodel) costs what JSON.parse costs, and
 * only a larger one, whose one JSON.parse would hold the loop for tens of milliseconds and more, is parsed in slices.
 */
export const WHOLE_PARSE_CHARS = 4 * 1024 * 1024;

/**
 * JSON.parse(text), in slices when the text is longer than `wholeAtMost` characters (and than one slice): the
 * streaming parser that reads large request bodies (`@streamparser/json`, as src/common/json-body.ts) is given the
 * text `slice` characters at a time.
 */
export async function parseJsonInSlices(text: string, slice = PARSE_SLICE_CHARS, wholeAtMost = WHOLE_PARSE_CHARS): Promise<unknown> {
  if (text.length <= Math.max(slice, wholeAtMost)) return JSON.parse(text);
  const parser = new JSONParser({ paths: ['$'], keepStack: false });
  let result: { value: unknown } | undefined;
  parser.onValue = ({ value, stack }) => {
    if (stack.length === 0) result = { value };
  };
  const syntax = (write: () => void) => {
    try {
      write();
    } catch (err) {
      throw new SyntaxError((err as Error).message);
    }
  };
  for (let at = 0; at < text.length; at += slice) {
    syntax(() => parser.write(text.slice(at, at + slice)));
    await nextTurn();
  }
  if (!parser.isEnded) syntax(() => parser.end());
  if (!result) throw new SyntaxError('Unexpected end of JSON input');
  return result.value;
}

/** JSON.stringify(value), in slices when it holds many values (plain JSON data: objects, arrays, scalars). */
export async function stringifyJsonInSlices(value: unknown, slice = SLICE_CHARS): Promise<string> {
  if (!holdsMoreThan(value, SPLIT_VALUES)) return JSON.stringify(value);
  const parts: string[] = [];
  let done = 0;
  const write = async (item: unknown, depth: number): Promise<void> => {
    if (depth >= MAX_SPLIT_DEPTH || item === null || typeof item !== 'object' || typeof (item as { toJSON?: unknown }).toJSON === 'function' || !holdsMoreThan(item, SPLIT_VALUES)) {
      const text = JSON.stringify(item);
      parts.push(text);
      done += text.length;
      if (done >= slice) {
        done = 0;
        await nextTurn();
      }
      return;
    }
    if (Array.isArray(item)) {
      parts.push('[');
      for (let i = 0; i < item.length; i++) {
        if (i > 0) parts.push(',');
        const member: unknown = item[i];
        // As JSON.stringify: what has no JSON form is null in an array.
        if (member === undefined || typeof member === 'function' || typeof member === 'symbol') parts.push('null');
        else await write(member, depth + 1);
      }
      parts.push(']');
      return;
    }
    parts.push('{');
    let first = true;
    for (const [key, member] of Object.entries(item)) {
      // As JSON.stringify: a member without a JSON form is left out.
      if (member === undefined || typeof member === 'function' || typeof member === 'symbol') continue;
      parts.push(first ? '' : ',', JSON.stringify(key), ':');
      first = false;
      await write(member, depth + 1);
    }
    parts.push('}');
  };
  await write(value, 0);
  return parts.join('');
}

/** Whether `json` holds more than `max` values (counted without walking further). */
export function holdsMoreThan(json: unknown, max: number): boolean {
  let count = 0;
  const stack: unknown[] = [json];
  while (stack.length) {
    const value = stack.pop();
    if (++count > max) return true;
    if (value !== null && typeof value === 'object') {
      for (const child of Object.values(value)) stack.push(child);
    }
  }
  return false;
}
