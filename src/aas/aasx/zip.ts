import fs from 'node:fs';
import { Readable } from 'node:stream';
import zlib from 'node:zlib';
import { AasxError, quoteName } from './errors';

/**
 * A ZIP reader that trusts nothing: it reads the central directory itself (so it sees the raw entry names, the
 * declared sizes and the entry count before anything is inflated), checks them against the limits, and inflates
 * an entry only on demand, through node's zlib, counting bytes as they come out. Data is read from a Buffer or
 * lazily from a file, so a package on disk is never held in memory whole.
 */

export interface ZipLimits {
  /** Entries in the central directory, directories included. */
  maxEntries: number;
  /** Uncompressed bytes of one entry. */
  maxEntryBytes: number;
  /** Uncompressed bytes of all entries together. */
  maxTotalBytes: number;
  /** Uncompressed / compressed, checked for entries larger than ratioGraceBytes. */
  maxCompressionRatio: number;
  ratioGraceBytes: number;
}

export interface ZipEntry {
  /** The entry name exactly as stored (decoded to text, not percent-decoded). */
  name: string;
  method: number;
  crc32: number;
  compressedSize: number;
  /** Declared uncompressed size; inflation stops with an error as soon as the output exceeds it. */
  size: number;
  localHeaderOffset: number;
  /** Where the next entry's local header or the central directory starts: data must end before it. */
  dataLimit: number;
}

export interface ZipSource {
  readonly size: number;
  read(position: number, length: number): Promise<Buffer>;
  /** Bytes [start, end). */
  stream(start: number, end: number): Readable;
}

export function bufferSource(buffer: Buffer): ZipSource {
  return {
    size: buffer.length,
    read: async (position, length) => buffer.subarray(position, Math.min(buffer.length, position + length)),
    stream: (start, end) => Readable.from([buffer.subarray(start, end)], { objectMode: false }),
  };
}

export async function fileSource(path: string): Promise<ZipSource> {
  const { size } = await fs.promises.stat(path);
  return {
    size,
    async read(position, length) {
      const handle = await fs.promises.open(path, 'r');
      try {
        const buffer = Buffer.alloc(Math.max(0, Math.min(length, size - position)));
        const { bytesRead } = await handle.read(buffer, 0, buffer.length, position);
        return buffer.subarray(0, bytesRead);
      } finally {
        await handle.close();
      }
    },
    stream: (start, end) =>
      end > start ? fs.createReadStream(path, { start, end: end - 1 }) : Readable.from([], { objectMode: false }),
  };
}

const EOCD = 0x06054b50;
const EOCD64_LOCATOR = 0x07064b50;
const EOCD64 = 0x06064b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;
const NOT_A_ZIP = 'The package is not a zip file (no end of central directory record)';

export async function readCentralDirectory(source: ZipSource, limits: ZipLimits): Promise<ZipEntry[]> {
  if (source.size < 22) throw new AasxError(NOT_A_ZIP);
  const tailLength = Math.min(source.size, 22 + 0xffff);
  const tail = await source.read(source.size - tailLength, tailLength);
  let eocd = -1;
  for (let i = tail.length - 22; i >= 0; i--) {
    if (tail.readUInt32LE(i) === EOCD && i + 22 + tail.readUInt16LE(i + 20) <= tail.length) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) throw new AasxError(NOT_A_ZIP);
  const eocdOffset = source.size - tailLength + eocd;
  if (tail.readUInt16LE(eocd + 4) !== 0 || tail.readUInt16LE(eocd + 6) !== 0) {
    throw new AasxError('The package is a multi-volume zip file, which is not supported');
  }
  let count = tail.readUInt16LE(eocd + 10);
  let cdSize = tail.readUInt32LE(eocd + 12);
  let cdOffset = tail.readUInt32LE(eocd + 16);
  let cdEnd = eocdOffset;
  if (count === 0xffff || cdSize === 0xffffffff || cdOffset === 0xffffffff) {
    const locator = eocdOffset >= 20 ? await source.read(eocdOffset - 20, 20) : Buffer.alloc(0);
    if (locator.length !== 20 || locator.readUInt32LE(0) !== EOCD64_LOCATOR) {
      throw new AasxError('The package is not a valid zip file (ZIP64 end of central directory locator missing)');
    }
    const recordOffset = safeNumber(locator.readBigUInt64LE(8));
    const record = await source.read(recordOffset, 56);
    if (record.length !== 56 || record.readUInt32LE(0) !== EOCD64) {
      throw new AasxError('The package is not a valid zip file (ZIP64 end of central directory record missing)');
    }
    count = safeNumber(record.readBigUInt64LE(32));
    cdSize = safeNumber(record.readBigUInt64LE(40));
    cdOffset = safeNumber(record.readBigUInt64LE(48));
    cdEnd = recordOffset;
  }
  if (count > limits.maxEntries) {
    throw new AasxError(`The package has ${count} entries; at most ${limits.maxEntries} are allowed`);
  }
  if (cdOffset + cdSize > cdEnd || cdSize > source.size) {
    throw new AasxError('The package is not a valid zip file (central directory out of bounds)');
  }
  const cd = await source.read(cdOffset, cdSize);
  const entries: ZipEntry[] = [];
  let total = 0;
  let p = 0;
  for (let i = 0; i < count; i++) {
    if (p + 46 > cd.length || cd.readUInt32LE(p) !== CENTRAL) {
      throw new AasxError('The package is not a valid zip file (truncated central directory)');
    }
    const flags = cd.readUInt16LE(p + 8);
    const method = cd.readUInt16LE(p + 10);
    const crc32 = cd.readUInt32LE(p + 16);
    let compressedSize = cd.readUInt32LE(p + 20);
    let size = cd.readUInt32LE(p + 24);
    const nameLength = cd.readUInt16LE(p + 28);
    const extraLength = cd.readUInt16LE(p + 30);
    const commentLength = cd.readUInt16LE(p + 32);
    let localHeaderOffset = cd.readUInt32LE(p + 42);
    const end = p + 46 + nameLength + extraLength + commentLength;
    if (end > cd.length) throw new AasxError('The package is not a valid zip file (truncated central directory)');
    const name = decodeName(cd.subarray(p + 46, p + 46 + nameLength), (flags & 0x800) !== 0);
    const extra = cd.subarray(p + 46 + nameLength, p + 46 + nameLength + extraLength);
    if (size === 0xffffffff || compressedSize === 0xffffffff || localHeaderOffset === 0xffffffff) {
      const zip64 = findExtra(extra, 0x0001);
      if (!zip64) throw new AasxError(`Zip entry ${quoteName(name)} lacks its ZIP64 sizes`);
      let q = 0;
      const next = () => {
        if (q + 8 > zip64.length) throw new AasxError(`Zip entry ${quoteName(name)} has a truncated ZIP64 field`);
        const value = safeNumber(zip64.readBigUInt64LE(q));
        q += 8;
        return value;
      };
      if (size === 0xffffffff) size = next();
      if (compressedSize === 0xffffffff) compressedSize = next();
      if (localHeaderOffset === 0xffffffff) localHeaderOffset = next();
    }
    p = end;

    checkEntryName(name);
    if (flags & 0x1) throw new AasxError(`Zip entry ${quoteName(name)} is encrypted, which is not supported`);
    if (method !== 0 && method !== 8) {
      throw new AasxError(`Zip entry ${quoteName(name)} uses compression method ${method}; only stored and deflate are supported`);
    }
    if (method === 0 && compressedSize !== size) {
      throw new AasxError(`Zip entry ${quoteName(name)} is stored but its sizes disagree`);
    }
    if (size > limits.maxEntryBytes) {
      throw new AasxError(`Zip entry ${quoteName(name)} is ${size} bytes uncompressed; at most ${limits.maxEntryBytes} are allowed`);
    }
    total += size;
    if (total > limits.maxTotalBytes) {
      throw new AasxError(`The package is more than ${limits.maxTotalBytes} bytes uncompressed, which is not allowed`);
    }
    if (size > limits.ratioGraceBytes && size / Math.max(1, compressedSize) > limits.maxCompressionRatio) {
      throw new AasxError(
        `Zip entry ${quoteName(name)} has a compression ratio of ${Math.round(size / Math.max(1, compressedSize))}; at most ${limits.maxCompressionRatio} is allowed`,
      );
    }
    entries.push({ name, method, crc32, compressedSize, size, localHeaderOffset, dataLimit: cdOffset });
  }
  checkNoOverlap(entries, cdOffset);
  return entries;
}

/** Overlapping entries are how the most efficient zip bombs reuse one compressed kernel many times. */
function checkNoOverlap(entries: ZipEntry[], cdOffset: number) {
  const byOffset = [...entries].sort((a, b) => a.localHeaderOffset - b.localHeaderOffset);
  for (let i = 0; i < byOffset.length; i++) {
    const entry = byOffset[i];
    const limit = i + 1 < byOffset.length ? byOffset[i + 1].localHeaderOffset : cdOffset;
    const minimumEnd = entry.localHeaderOffset + 30 + Buffer.byteLength(entry.name) + entry.compressedSize;
    if (minimumEnd > limit) {
      throw new AasxError(`Zip entry ${quoteName(entry.name)} overlaps another entry or the central directory`);
    }
    entry.dataLimit = limit;
  }
}

/**
 * Entry names are paths inside the package; anything that could address a place outside it, or that tools
 * interpret differently, is refused (zip slip).
 */
export function checkEntryName(name: string) {
  const shown = quoteName(name);
  if (name.length === 0) throw new AasxError('A zip entry has an empty name');
  if (name.includes('\\')) throw new AasxError(`Zip entry ${shown} contains a backslash`);
  if (name.includes('\0')) throw new AasxError(`Zip entry ${shown} contains a NUL character`);
  if (name.startsWith('/')) throw new AasxError(`Zip entry ${shown} is an absolute path`);
  if (/^[A-Za-z]:/.test(name)) throw new AasxError(`Zip entry ${shown} starts with a drive letter`);
  const decoded = percentDecode(name);
  if (decoded.includes('\\') || decoded.includes('\0') || decoded.startsWith('/')) {
    throw new AasxError(`Zip entry ${shown} is an unsafe path once percent-decoded`);
  }
  const segments = name.replace(/\/$/, '').split('/');
  for (const segment of [...segments, ...decoded.replace(/\/$/, '').split('/')]) {
    if (segment === '..') throw new AasxError(`Zip entry ${shown} contains a ".." segment`);
    if (segment === '.' || segment === '') throw new AasxError(`Zip entry ${shown} has an empty or "." segment`);
  }
}

export function percentDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/**
 * The inflated bytes of one entry. The output is counted as it comes: more than the declared size (the limits
 * were checked against the declared size), fewer, or a wrong CRC-32 is an error of the stream.
 */
export function entryStream(source: ZipSource, entry: ZipEntry): Readable {
  return Readable.from(inflateEntry(source, entry), { objectMode: false });
}

async function* inflateEntry(source: ZipSource, entry: ZipEntry): AsyncGenerator<Buffer> {
  const header = await source.read(entry.localHeaderOffset, 30);
  if (header.length < 30 || header.readUInt32LE(0) !== LOCAL) {
    throw new AasxError(`Zip entry ${quoteName(entry.name)} has no local header`);
  }
  const nameLength = header.readUInt16LE(26);
  const dataStart = entry.localHeaderOffset + 30 + nameLength + header.readUInt16LE(28);
  const localName = await source.read(entry.localHeaderOffset + 30, nameLength);
  if (decodeName(localName, (header.readUInt16LE(6) & 0x800) !== 0) !== entry.name) {
    throw new AasxError(`Zip entry ${quoteName(entry.name)} has a different name in its local header`);
  }
  if (dataStart + entry.compressedSize > entry.dataLimit) {
    throw new AasxError(`Zip entry ${quoteName(entry.name)} overlaps another entry or the central directory`);
  }
  const raw = source.stream(dataStart, dataStart + entry.compressedSize);
  const body = entry.method === 8 ? raw.pipe(zlib.createInflateRaw()) : raw;
  if (body !== raw) raw.on('error', (error) => body.destroy(error));
  let produced = 0;
  let crc = 0;
  try {
    for await (const chunk of body as AsyncIterable<Buffer>) {
      produced += chunk.length;
      if (produced > entry.size) {
        throw new AasxError(`Zip entry ${quoteName(entry.name)} inflates to more than its declared ${entry.size} bytes`);
      }
      crc = zlib.crc32(chunk, crc);
      yield chunk;
    }
  } catch (error) {
    if (error instanceof AasxError) throw error;
    throw new AasxError(`Zip entry ${quoteName(entry.name)} is corrupt (${(error as Error).message})`, { cause: error });
  } finally {
    raw.destroy();
    body.destroy();
  }
  if (produced !== entry.size) {
    throw new AasxError(`Zip entry ${quoteName(entry.name)} inflates to ${produced} bytes, not its declared ${entry.size}`);
  }
  if (crc >>> 0 !== entry.crc32) throw new AasxError(`Zip entry ${quoteName(entry.name)} fails its CRC-32 check`);
}

/** Reads a whole entry, which must be at most maxBytes long (declared and actual). */
export async function readEntry(source: ZipSource, entry: ZipEntry, maxBytes: number, what: string): Promise<Buffer> {
  if (entry.size > maxBytes) {
    throw new AasxError(`${what} ${quoteName(entry.name)} is ${entry.size} bytes; at most ${maxBytes} are allowed`);
  }
  const chunks: Buffer[] = [];
  for await (const chunk of entryStream(source, entry)) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

function decodeName(bytes: Buffer, utf8Flag: boolean): string {
  if (utf8Flag) return bytes.toString('utf8');
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return bytes.toString('latin1');
  }
}

function findExtra(extra: Buffer, id: number): Buffer | undefined {
  let p = 0;
  while (p + 4 <= extra.length) {
    const length = extra.readUInt16LE(p + 2);
    if (extra.readUInt16LE(p) === id) return extra.subarray(p + 4, p + 4 + length);
    p += 4 + length;
  }
  return undefined;
}

function safeNumber(value: bigint): number {
  if (value > BigInt(Number.MAX_SAFE_INTEGER)) throw new AasxError('The package is not a valid zip file (size out of range)');
  return Number(value);
}
