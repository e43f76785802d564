import type { IncomingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import { JSONParser } from '@streamparser/json';

/**
 * Request bodies read as they arrive: decompressed under a byte cap, JSON nesting checked byte by byte before
 * anything parses it, and large bodies parsed in small slices (once all of it has passed) between which the event
 * loop serves other requests.
 * A body refused on the way (too large, too deep, not the expected shape) stops the decompression at once; what the
 * client still sends is read and dropped, so the answer reaches it on a connection that stays usable (for at most 30 s
 * after the answer, src/app.ts `lingerAfterRefusal`).
 */

/** A body the server refuses: 400 (malformed), 413 (too large), 415 (an encoding it does not read). */
/** What a JSON body parses to. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

export class BodyError extends Error {
  constructor(
    readonly status: 400 | 413 | 415,
    message: string,
  ) {
    super(message);
  }
}

/** What a body is read from: a request (or any stream with its headers). */
export type BodySource = Readable & { headers: IncomingHttpHeaders };

/**
 * Bodies of up to this many structural tokens (`{ [ , :` outside strings, about one per value) and
 * `INLINE_PARSE_BYTES` are parsed at once with `JSON.parse`: its cost follows the values (about 20 ms for 30,000
 * keys on a busy 2-core machine), the bytes of long strings cost little (1 ms for a string of 900 KB). Larger
 * bodies are parsed incrementally, `PARSE_SLICE_BYTES` at a time, which costs 10 to 200 times as much in all.
 */
export const INLINE_PARSE_TOKENS = 50_000;
export const INLINE_PARSE_BYTES = 16 * 1024 * 1024;
/** What the incremental parser takes between two turns of the event loop: a few milliseconds of work. */
export const PARSE_SLICE_BYTES = 16 * 1024;
/** The codings a body may be sent in (`Content-Encoding`, one of them; `x-gzip` is gzip). */
export const CONTENT_CODINGS = ['gzip', 'deflate', 'br'];
/** A Content-Encoding is one token (RFC 9110 §8.4); a longer value or other characters are malformed. */
const CODING_TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,32}$/;

/**
 * The body's Content-Encoding, or undefined for none: one of `CONTENT_CODINGS` (`x-gzip` is gzip). Another
 * coding or a list of codings is 415, a malformed header 400.
 */
export function contentCodingOf(headers: IncomingHttpHeaders): string | undefined {
  const header = headers['content-encoding'];
  if (header === undefined) return undefined;
  const coding = header.trim().toLowerCase();
  if (coding === '' || coding === 'identity') return undefined;
  if (coding === 'x-gzip') return 'gzip';
  if (CONTENT_CODINGS.includes(coding)) return coding;
  if (/^[^,]+(,[^,]*)+$/.test(coding) && coding.length <= 256) {
    throw new BodyError(415, `One Content-Encoding at most is read (${CONTENT_CODINGS.join(', ')}), got a list of codings.`);
  }
  if (!CODING_TOKEN.test(coding)) throw new BodyError(400, 'The Content-Encoding header is malformed.');
  throw new BodyError(415, `Content-Encoding '${coding}' is not supported; use ${CONTENT_CODINGS.join(', ')} or none.`);
}

function decoderOf(headers: IncomingHttpHeaders): NodeJS.ReadWriteStream | undefined {
  const coding = contentCodingOf(headers);
  if (coding === 'gzip') return createGunzip();
  if (coding === 'deflate') return createInflate();
  if (coding === 'br') return createBrotliDecompress();
  return undefined;
}

/** Most bytes of a body taken in one turn of the event loop (a few milliseconds of scanning). */
export const TURN_BYTES = 512 * 1024;

/**
 * Reads the body of `source` chunk by chunk, decompressed, into `take`, refusing (BodyError 413) as soon as more
 * than `limit` bytes came out. Whatever ends the reading early (a limit, a refusal by `take`, a broken stream)
 * stops the decoder; the rest of the request is read and dropped.
 */
export async function readBodyChunks(source: BodySource, limit: number, take: (chunk: Buffer) => void): Promise<void> {
  const decoder = decoderOf(source.headers);
  const declared = Number(source.headers['content-length']);
  // Declared too large and not compressed: refused before a byte is read.
  if (!decoder && declared > limit) {
    source.resume();
    throw new BodyError(413, `The body is larger than ${limit} bytes.`);
  }
  let stream: Readable = source;
  const cutOff = () => {
    if (!source.readableEnded) decoder?.emit('error', new BodyError(400, 'The body was cut off before its end.'));
  };
  if (decoder) {
    stream = source.pipe(decoder) as unknown as Readable;
    // A request that breaks off never ends the decoder by itself.
    source.once('close', cutOff);
    source.once('error', cutOff);
  }
  let size = 0;
  let sinceTurn = 0;
  let finished = false;
  try {
    for await (const chunk of stream.iterator({ destroyOnReturn: false }) as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > limit) throw new BodyError(413, `The body is larger than ${limit} bytes${decoder ? ' once decompressed' : ''}.`);
      // What has arrived already comes without a turn of the event loop between chunks, and a stream's read hands
      // over all it has buffered as one chunk (megabytes where the body arrived faster than it was taken): `take`
      // (a scan of every byte) on all of it at once would hold the loop for tens of milliseconds, delaying every
      // other request. So it gets at most TURN_BYTES at a time, with a turn of the loop between.
      for (let at = 0; at < chunk.length; ) {
        if (sinceTurn >= TURN_BYTES) {
          sinceTurn = 0;
          await new Promise((resolve) => setImmediate(resolve));
        }
        const end = Math.min(chunk.length, at + TURN_BYTES - sinceTurn);
        const piece = at === 0 && end === chunk.length ? chunk : chunk.subarray(at, end);
        take(piece);
        at += piece.length;
        sinceTurn += piece.length;
      }
    }
    finished = true;
  } catch (err) {
    if (err instanceof BodyError) throw err;
    if (decoder && !source.readableAborted) throw new BodyError(400, `The body cannot be decompressed (${source.headers['content-encoding']}): ${(err as Error).message}`);
    throw new BodyError(400, 'The body was cut off before its end.');
  } finally {
    source.off('close', cutOff);
    source.off('error', cutOff);
    if (!finished) {
      if (decoder) {
        source.unpipe(decoder as unknown as NodeJS.WritableStream);
        (decoder as unknown as Readable).destroy();
      }
      if (!source.destroyed) source.resume();
    }
  }
}

const UTF8_BOM = [0xef, 0xbb, 0xbf];
const SPACE = new Set([0x20, 0x09, 0x0a, 0x0d]);
/** First bytes of a JSON value that is not an object or array: a string, number, true, false, null. */
const SCALAR_START = new Set([...'"-0123456789tfn'].map((c) => c.charCodeAt(0)));

/** What a body must be at its top level: any JSON value, or an object. */
export type JsonShape = 'any' | 'object';

/**
 * Follows JSON's structure byte by byte, chunk after chunk: bracket depth outside strings (escapes respected) and
 * the first value's kind. It does not validate the JSON (the parser does); it only refuses, before any parse,
 * what is nested deeper than `maxDepth` or is not of the `shape` asked for. UTF-8 needs no decoding for this:
 * no byte of a multi-byte character is below 0x80.
 */
export class JsonStructureScanner {
  private depth = 0;
  private inString = false;
  private escaped = false;
  private started = false;
  private offset = 0;
  /** Structural tokens seen so far: `{`, `[`, `,` and `:` outside strings. */
  tokens = 0;

  constructor(
    private readonly maxDepth: number,
    private readonly shape: JsonShape = 'any',
    private readonly tooDeep = `The body nests deeper than ${maxDepth} levels.`,
  ) {}

  /** Throws BodyError 400 when `chunk` takes the body past the depth limit or shows it is not of the shape asked for. */
  scan(chunk: Buffer): void {
    let i = 0;
    // A byte-order mark, which the parser skips too.
    if (this.offset === 0 && chunk.length >= 3 && UTF8_BOM.every((b, k) => chunk[k] === b)) i = 3;
    this.offset += chunk.length;
    let { depth, inString, escaped, tokens } = this;
    const max = this.maxDepth;
    for (; i < chunk.length; i++) {
      const c = chunk[i];
      if (inString) {
        if (escaped) escaped = false;
        else if (c === 0x5c) escaped = true;
        else if (c === 0x22) inString = false;
        continue;
      }
      if (c === 0x22) inString = true;
      else if (c === 0x7b || c === 0x5b) {
        tokens++;
        if (++depth > max) throw new BodyError(400, this.tooDeep);
      } else if (c === 0x7d || c === 0x5d) depth--;
      else if (c === 0x2c || c === 0x3a) tokens++;
      if (!this.started && !SPACE.has(c)) {
        this.started = true;
        this.checkShape(c);
      }
    }
    this.depth = depth;
    this.tokens = tokens;
    this.inString = inString;
    this.escaped = escaped;
  }

  private checkShape(first: number): void {
    if (this.shape === 'any' || first === 0x7b) return;
    if (first === 0x5b || SCALAR_START.has(first)) throw new BodyError(400, 'The body must be a JSON object.');
    throw new BodyError(400, `The body is not valid JSON: unexpected '${String.fromCharCode(first)}' at its start.`);
  }
}

/**
 * Parses a body's chunks once all are in (and checked): a small one (`INLINE_PARSE_TOKENS`, `INLINE_PARSE_BYTES`) at
 * once with `JSON.parse`; a larger one with an incremental parser, `PARSE_SLICE_BYTES` at a time, yielding to the
 * event loop between slices and dropping each chunk once it is parsed.
 */
async function parseChunks(chunks: Buffer[], size: number, tokens: number): Promise<JsonValue> {
  const guard = <T>(parse: () => T): T => {
    try {
      return parse();
    } catch (err) {
      throw new BodyError(400, `The body is not valid JSON: ${(err as Error).message}`);
    }
  };
  if (tokens <= INLINE_PARSE_TOKENS && size <= INLINE_PARSE_BYTES) {
    const text = Buffer.concat(chunks, size).toString('utf8');
    return guard(() => JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text) as JsonValue);
  }
  const parser = new JSONParser({ paths: ['$'], keepStack: false });
  let result: { value: JsonValue } | undefined;
  parser.onValue = ({ value, stack }) => {
    if (stack.length === 0) result = { value: value as JsonValue };
  };
  const first = chunks[0];
  if (first.length >= 3 && UTF8_BOM.every((b, k) => first[k] === b)) chunks[0] = first.subarray(3);
  for (let i = 0; i < chunks.length; i++) {
    const chunk = chunks[i];
    chunks[i] = EMPTY;
    for (let at = 0; at < chunk.length; at += PARSE_SLICE_BYTES) {
      guard(() => parser.write(chunk.subarray(at, at + PARSE_SLICE_BYTES)));
      await nextTurn();
    }
  }
  if (!parser.isEnded) guard(() => parser.end());
  if (!result) throw new BodyError(400, 'The body is not valid JSON: it holds no value.');
  return result.value;
}
const EMPTY = Buffer.alloc(0);

export interface JsonBodyOptions {
  /** Most bytes of the body, counted after decompression. */
  limit: number;
  /** Deepest nesting of objects and arrays. */
  maxDepth: number;
  /** What the body must be at its top level (default: any JSON value). */
  shape?: JsonShape;
  /** The refusal's text when the body nests too deep (default: says `maxDepth`). */
  tooDeep?: string;
  /**
   * Most structural tokens (`{ [ , :` outside strings, about one per value) the body may hold: what it would cost
   * to parse it is bounded by this as much as by its bytes (a flat `[{},{},…]` is one object per 3 bytes).
   * Counted while the body is read; more is 413 before anything is parsed. Default: no bound but `limit`.
   */
  maxValues?: number;
}

/**
 * The JSON value of a request body (UTF-8; the caller checks media type and charset): read under `limit` and
 * `maxDepth`, checked as it arrives, and parsed only once all of it has passed, without holding the event loop
 * (see `parseChunks`). Refusals are BodyErrors; size, depth and shape are refused before anything is parsed.
 */
export async function readJsonBody(source: BodySource, options: JsonBodyOptions): Promise<JsonValue> {
  const scanner = new JsonStructureScanner(options.maxDepth, options.shape, options.tooDeep);
  const chunks: Buffer[] = [];
  let size = 0;
  const maxValues = options.maxValues ?? Infinity;
  await readBodyChunks(source, options.limit, (chunk) => {
    scanner.scan(chunk);
    if (scanner.tokens > maxValues) throw new BodyError(413, `The body holds more than ${maxValues} values.`);
    chunks.push(chunk);
    size += chunk.length;
  });
  return parseChunks(chunks, size, scanner.tokens);
}

