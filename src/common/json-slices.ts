import { setImmediate as nextTurn } from 'node:timers/promises';

/**
 * JSON.parse and JSON.stringify of large documents (an uploaded environment of 19 MB, a submodel of 100,000 elements)
 * in slices, between which the event loop serves other requests: one call of either holds it for 100 ms and more.
 * Both give what JSON.parse and JSON.stringify give (the same values, the same text); a malformed text is a
 * SyntaxError. The work is cut where containers hold many values: a large array or object is taken member by
 * member, each small member with one JSON.parse or JSON.stringify, a large one cut again (up to MAX_SPLIT_DEPTH
 * levels; deeper, one call).
 */

/** About how many characters one slice parses or writes before the event loop gets a turn. */
export const SLICE_CHARS = 256 * 1024;
/** How deep containers are cut: below it, a member is one call however large (bounds the work of the scan). */
const MAX_SPLIT_DEPTH = 8;
/** Values in a member that make it large enough to be cut for stringifying. */
const SPLIT_VALUES = 5_000;

/** JSON.parse(text), in slices when the text is longer than `slice` characters. */
export async function parseJsonInSlices(text: string, slice = SLICE_CHARS): Promise<unknown> {
  if (text.length <= slice) return JSON.parse(text);
  const parser = new SlicedParser(text, slice);
  const { value, end } = await parser.value(parser.space(0), 0);
  const at = parser.space(end);
  if (at < text.length) throw parser.unexpected(at);
  return value;
}

const isSpace = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

class SlicedParser {
  /** Characters parsed since the event loop last had a turn. */
  private done = 0;

  constructor(
    private readonly text: string,
    private readonly slice: number,
  ) {}

  space(at: number): number {
    while (at < this.text.length && isSpace(this.text.charCodeAt(at))) at++;
    return at;
  }

  unexpected(at: number): SyntaxError {
    return new SyntaxError(at < this.text.length ? `Unexpected character '${this.text[at]}' at position ${at}` : 'Unexpected end of JSON input');
  }

  /**
   * Where the value that starts at `at` ends, or -1 when it is a container longer than `limit` characters (its text
   * is not checked here: JSON.parse checks it, or `value`). A large container is so never scanned whole at once.
   */
  private valueEnd(at: number, limit = Infinity): number {
    const text = this.text;
    const first = text.charCodeAt(at);
    if (first === 0x22) return this.stringEnd(at);
    if (first !== 0x7b && first !== 0x5b) {
      while (at < text.length) {
        const c = text.charCodeAt(at);
        if (c === 0x2c || c === 0x7d || c === 0x5d || c === 0x3a || isSpace(c)) break;
        at++;
      }
      return at;
    }
    const stop = Math.min(text.length, at + limit);
    let depth = 0;
    for (; at < stop; at++) {
      const c = text.charCodeAt(at);
      if (c === 0x22) at = this.stringEnd(at) - 1;
      else if (c === 0x7b || c === 0x5b) depth++;
      else if (c === 0x7d || c === 0x5d) {
        if (--depth === 0) return at + 1;
      }
    }
    if (stop < text.length) return -1;
    throw this.unexpected(at);
  }

  private stringEnd(at: number): number {
    const text = this.text;
    for (at++; at < text.length; at++) {
      const c = text.charCodeAt(at);
      if (c === 0x5c) at++;
      else if (c === 0x22) return at + 1;
    }
    throw this.unexpected(at);
  }

  /** The value that starts at `start`, and where it ends: one JSON.parse when small or deep, else member by member. */
  async value(start: number, depth: number): Promise<{ value: unknown; end: number }> {
    if (start >= this.text.length) throw this.unexpected(start);
    const first = this.text.charCodeAt(start);
    const container = first === 0x7b || first === 0x5b;
    const end = container && depth < MAX_SPLIT_DEPTH ? this.valueEnd(start, this.slice) : this.valueEnd(start);
    if (end >= 0) {
      const value: unknown = JSON.parse(this.text.slice(start, end));
      this.done += end - start;
      if (this.done >= this.slice) {
        this.done = 0;
        await nextTurn();
      }
      return { value, end };
    }
    const object = first === 0x7b;
    const close = object ? 0x7d : 0x5d;
    const items: unknown[] = [];
    const members: Record<string, unknown> = {};
    let at = this.space(start + 1);
    if (this.text.charCodeAt(at) === close) return { value: object ? members : items, end: at + 1 };
    for (;;) {
      let key = '';
      if (object) {
        if (this.text.charCodeAt(at) !== 0x22) throw this.unexpected(at);
        const keyEnd = this.stringEnd(at);
        key = JSON.parse(this.text.slice(at, keyEnd)) as string;
        at = this.space(keyEnd);
        if (this.text.charCodeAt(at) !== 0x3a) throw this.unexpected(at);
        at = this.space(at + 1);
      }
      const member = await this.value(at, depth + 1);
      // As JSON.parse: an own data property, also for `__proto__`; the last of duplicate keys wins.
      if (object) Object.defineProperty(members, key, { value: member.value, writable: true, enumerable: true, configurable: true });
      else items.push(member.value);
      at = this.space(member.end);
      const c = this.text.charCodeAt(at);
      if (c === close) return { value: object ? members : items, end: at + 1 };
      if (c !== 0x2c) throw this.unexpected(at);
      at = this.space(at + 1);
    }
  }
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
