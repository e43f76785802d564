import { Readable } from 'node:stream';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { BodyError, INLINE_PARSE_TOKENS, JsonStructureScanner, TURN_BYTES, contentCodingOf, readJsonBody } from '../../src/common/json-body';
import { countLoopTurns } from '../support/loop-turns';

const MB = 1024 * 1024;

/** At most what a stopped decompression has pulled of its source: the read-ahead of two streams (64 KB each on Node 22+) and a bit. */
const READ_AHEAD = 136 * 1024;

/** A request body of `bytes` in `piece`-byte chunks, one per turn of the event loop; `pulled` counts what was read. */
function source(bytes: Buffer | string, headers: Record<string, string> = {}, piece = 1024) {
  const data = Buffer.from(bytes);
  const counter = { pulled: 0 };
  async function* chunks() {
    for (let at = 0; at < data.length; at += piece) {
      await new Promise((resolve) => setImmediate(resolve));
      counter.pulled += Math.min(piece, data.length - at);
      yield data.subarray(at, at + piece);
    }
  }
  return Object.assign(Readable.from(chunks(), { objectMode: false }), { headers, counter });
}

async function refusal(promise: Promise<unknown>): Promise<BodyError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(BodyError);
  return err as BodyError;
}

const read = (body: Buffer | string, options: Partial<Parameters<typeof readJsonBody>[1]> = {}, headers?: Record<string, string>) =>
  readJsonBody(source(body, headers), { limit: 64 * MB, maxDepth: 128, ...options });

describe('JsonStructureScanner', () => {
  const scan = (chunks: string[], maxDepth = 3, shape?: 'any' | 'object') => {
    const scanner = new JsonStructureScanner(maxDepth, shape);
    for (const chunk of chunks) scanner.scan(Buffer.from(chunk));
  };

  it('counts brackets outside strings, across chunk boundaries, escapes respected', () => {
    expect(() => scan(['[[[', '1]]]'])).not.toThrow();
    expect(() => scan(['[[', '[[1]]]]'])).toThrow(/deeper than 3/);
    expect(() => scan(['{"a":"[[[[[[","b":"\\"[[[[","c":"\\\\"}'])).not.toThrow();
    // The escaped quote ends no string, the escaped backslash does not escape the quote after it.
    expect(() => scan(['["\\', '"[[[[', '"]'])).not.toThrow();
    expect(() => scan(['["\\\\"', ',[[[1]]]]'])).toThrow(/deeper than 3/);
    expect(() => scan(['[{"a":[{"b":1}]}]'])).toThrow(/deeper than 3/);
    expect(() => scan(['["é😀[[[[[", [[1]]]'])).not.toThrow();
  });

  it('refuses a body of another shape at its first byte', () => {
    expect(() => scan(['  \n[1]'], 3, 'object')).toThrow('The body must be a JSON object.');
    expect(() => scan(['"x"'], 3, 'object')).toThrow('The body must be a JSON object.');
    expect(() => scan(['garbage'], 3, 'object')).toThrow(/not valid JSON: unexpected 'g'/);
    expect(() => scan(['\uFEFF{}'], 3, 'object')).not.toThrow();
    expect(() => scan([' ', ' [', ']'], 3, 'any')).not.toThrow();
    expect(() => scan([' ', ' {', '}'], 3, 'object')).not.toThrow();
  });
});

describe('readJsonBody', () => {
  it('parses what JSON.parse parses, the same way, small and large', async () => {
    const doc = { a: [1, -0.5, 1e300, true, null, 'x\n\u00e9😀\ud800'], __proto__x: { b: {} }, ['__proto__']: 1 };
    const text = JSON.stringify(doc);
    expect(await read(text)).toEqual(JSON.parse(text));
    const large = JSON.stringify({ items: Array.from({ length: 20_000 }, (_, i) => ({ i, s: `v${i}`, n: [i, { k: '"[{' }] })) });
    expect(large.split(',').length).toBeGreaterThan(INLINE_PARSE_TOKENS);
    expect(await read(large)).toEqual(JSON.parse(large));
    const proto = (await read(`{"__proto__":{"polluted":true},"x":${large}}`)) as Record<string, unknown>;
    expect(Object.getPrototypeOf(proto)).toBe(Object.prototype);
    expect(Object.keys(proto)).toEqual(['__proto__', 'x']);
    expect(await read('\uFEFF{"a":1}')).toEqual({ a: 1 });
    expect(await read(' 42 ')).toBe(42);
  });

  it('refuses malformed JSON with 400, small and large', async () => {
    const filler = Array.from({ length: INLINE_PARSE_TOKENS }, () => '{}').join(',');
    for (const bad of ['', ' ', 'garbage', '{} {}', '{"a":', '[1,]', `[${filler},]`, `[${filler}`, `[${filler}] x`, `${filler.slice(0, -1)}`]) {
      const err = await refusal(read(bad));
      expect(err.status).toBe(400);
      expect(err.message).toMatch(/not valid JSON/);
    }
  });

  it('refuses a body deeper than the limit before it is parsed, small or compressed to a bomb', async () => {
    expect((await refusal(read(`${'['.repeat(129)}${']'.repeat(129)}`))).message).toBe('The body nests deeper than 128 levels.');
    expect(await read(`${'['.repeat(128)}${']'.repeat(128)}`)).toHaveLength(1);
    // 240 MB of '[' in 240 KB of gzip: refused having pulled no more of it than the streams read ahead (16 KB a stream
    // on Node 20, 64 KB on Node 22 and later).
    const bomb = gzipSync(Buffer.alloc(240 * MB, '['), { level: 9 });
    expect(bomb.length).toBeLessThan(300 * 1024);
    const body = source(bomb, { 'content-encoding': 'gzip' });
    const err = await refusal(readJsonBody(body, { limit: 64 * MB, maxDepth: 128, tooDeep: 'too deep' }));
    expect(err).toMatchObject({ status: 400, message: 'too deep' });
    expect(body.counter.pulled).toBeLessThan(READ_AHEAD);
  });

  it('caps the decompressed size, stopping the decompression', async () => {
    const bomb = gzipSync(Buffer.alloc(240 * MB, ' '), { level: 9 });
    expect(bomb.length).toBeGreaterThan(1.5 * READ_AHEAD);
    const body = source(bomb, { 'content-encoding': 'gzip' });
    const err = await refusal(readJsonBody(body, { limit: MB, maxDepth: 128 }));
    expect(err).toMatchObject({ status: 413, message: `The body is larger than ${MB} bytes once decompressed.` });
    expect(body.counter.pulled).toBeLessThan(READ_AHEAD);
    // Declared too large: refused before reading.
    const declared = source('{}', { 'content-length': String(2 * MB) });
    expect((await refusal(readJsonBody(declared, { limit: MB, maxDepth: 128 }))).status).toBe(413);
    expect((await refusal(read(`"${'x'.repeat(MB)}"`, { limit: MB }))).status).toBe(413);
  });

  it('reads gzip, x-gzip, deflate and br, and refuses other codings with 415 and broken streams with 400', async () => {
    const text = JSON.stringify({ a: 'b'.repeat(1000) });
    for (const [coding, bytes] of [['gzip', gzipSync(text)], ['X-Gzip', gzipSync(text)], ['deflate', deflateSync(text)], ['br', brotliCompressSync(text)], ['identity', Buffer.from(text)]] as const) {
      expect(await read(bytes, {}, { 'content-encoding': coding })).toEqual(JSON.parse(text));
    }
    for (const [coding, status] of [['x-fuzz', 415], ['gzip, gzip', 415], ['compress', 415], [';;;=/', 400], ['x'.repeat(8 * 1024), 400], ['gzip\u0000', 400]] as const) {
      expect((await refusal(read('{}', {}, { 'content-encoding': coding }))).status).toBe(status);
      if (status === 400) expect(() => contentCodingOf({ 'content-encoding': coding })).toThrow('The Content-Encoding header is malformed.');
    }
    for (const [coding, bytes] of [['gzip', 'not gzip'], ['gzip', gzipSync(text).subarray(0, 12)], ['deflate', 'not deflate'], ['br', 'not brotli']] as const) {
      const err = await refusal(read(bytes, {}, { 'content-encoding': coding }));
      expect(err.status).toBe(400);
      expect(err.message).toMatch(/cannot be decompressed/);
    }
  });
});

describe('values', () => {
  it('refuses a body with more values than maxValues (413) while reading it, and stops reading', async () => {
    const flat = `{"x":[${'{},'.repeat(200_000)}{}]}`;
    const body = source(flat, {}, 4096);
    const err = await refusal(readJsonBody(body, { limit: 64 * MB, maxDepth: 128, maxValues: 10_000 }));
    expect(err.status).toBe(413);
    expect(err.message).toMatch(/more than 10000 values/);
    // Refused after about 10,000 values (3 bytes and 2 tokens each) and a chunk, not after the 600 KB of the body.
    expect(body.counter.pulled).toBeLessThan(64 * 1024);
    // At the limit it is read as before.
    expect(await read(`[${'1,'.repeat(99)}1]`, { maxValues: 100 })).toHaveLength(100);
  });
});

describe('turns of the event loop', () => {
  it('lets the event loop turn while it reads a body that has all arrived already', async () => {
    // 8 MB in 64 KB chunks, all of it in the stream's buffer before the reading starts: the iterator hands the chunks
    // over one after another in microtasks, so without turns no timer or socket of another request would run until
    // the whole body was scanned. Refused by its values near its end, so that every turn counted is one of the reading
    // (the parse, which turns by itself, never starts).
    const flat = Buffer.from(`{"x":[${'{},'.repeat((8 * MB) / 3)}{}]}`);
    const body = Object.assign(new Readable({ read() {}, highWaterMark: 16 * MB }), { headers: {} as Record<string, string> });
    for (let at = 0; at < flat.length; at += 64 * 1024) body.push(flat.subarray(at, at + 64 * 1024));
    body.push(null);
    const loop = countLoopTurns();
    const maxValues = 5_000_000; // about 7.5 MB of `{},` (two tokens each)
    const err = await refusal(readJsonBody(body, { limit: 64 * MB, maxDepth: 128, maxValues }));
    const turns = loop.stop();
    expect(err.message).toMatch(/more than 5000000 values/);
    // One turn at least per TURN_BYTES read.
    expect(turns).toBeGreaterThanOrEqual(Math.floor((maxValues * 1.5) / TURN_BYTES) - 1);
  });
});
