import zlib from 'node:zlib';

/**
 * Builders of hostile AASX packages, shared by the reader's unit tests and the import's HTTP tests: a ZIP writer
 * that takes any entry name and any declared size without sanitizing, the OPC parts of a minimal package, and a
 * zip bomb.
 */

export interface RawEntry {
  name: string;
  /** Uncompressed content (deflated here), or give compressed + declaredSize + crc directly. */
  data?: Buffer | string;
  compressed?: Buffer;
  declaredSize?: number;
  crc?: number;
  method?: 0 | 8;
}

/** zip64: every size and offset in the central directory and its end record goes through the ZIP64 fields. */
export function buildZip(entries: RawEntry[], zip64 = false): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const entry of entries) {
    const data = entry.data === undefined ? undefined : Buffer.from(entry.data);
    const method = entry.method ?? 8;
    const compressed = entry.compressed ?? (method === 8 ? zlib.deflateRawSync(data!) : data!);
    const size = entry.declaredSize ?? data!.length;
    const crc = entry.crc ?? zlib.crc32(data!);
    const name = Buffer.from(entry.name);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(0x800, 6);
    local.writeUInt16LE(method, 8);
    local.writeUInt32LE(crc >>> 0, 14);
    local.writeUInt32LE(compressed.length, 18);
    local.writeUInt32LE(size, 22);
    local.writeUInt16LE(name.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(0x800, 8);
    central.writeUInt16LE(method, 10);
    central.writeUInt32LE(crc >>> 0, 16);
    central.writeUInt32LE(compressed.length, 20);
    central.writeUInt32LE(size, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(offset, 42);
    const extra = Buffer.alloc(zip64 ? 28 : 0);
    if (zip64) {
      central.writeUInt32LE(0xffffffff, 20);
      central.writeUInt32LE(0xffffffff, 24);
      central.writeUInt32LE(0xffffffff, 42);
      central.writeUInt16LE(extra.length, 30);
      extra.writeUInt16LE(0x0001, 0);
      extra.writeUInt16LE(24, 2);
      extra.writeBigUInt64LE(BigInt(size), 4);
      extra.writeBigUInt64LE(BigInt(compressed.length), 12);
      extra.writeBigUInt64LE(BigInt(offset), 20);
    }
    locals.push(local, name, compressed);
    centrals.push(central, name, extra);
    offset += local.length + name.length + compressed.length;
  }
  const cd = Buffer.concat(centrals);
  const eocd = Buffer.alloc(22);
  eocd.writeUInt32LE(0x06054b50, 0);
  eocd.writeUInt16LE(entries.length, 8);
  eocd.writeUInt16LE(entries.length, 10);
  eocd.writeUInt32LE(cd.length, 12);
  eocd.writeUInt32LE(offset, 16);
  if (!zip64) return Buffer.concat([...locals, cd, eocd]);
  const record = Buffer.alloc(56);
  record.writeUInt32LE(0x06064b50, 0);
  record.writeBigUInt64LE(44n, 4);
  record.writeUInt16LE(45, 12);
  record.writeUInt16LE(45, 14);
  record.writeBigUInt64LE(BigInt(entries.length), 24);
  record.writeBigUInt64LE(BigInt(entries.length), 32);
  record.writeBigUInt64LE(BigInt(cd.length), 40);
  record.writeBigUInt64LE(BigInt(offset), 48);
  const locator = Buffer.alloc(20);
  locator.writeUInt32LE(0x07064b50, 0);
  locator.writeBigUInt64LE(BigInt(offset + cd.length), 8);
  locator.writeUInt32LE(1, 16);
  eocd.writeUInt16LE(0xffff, 8);
  eocd.writeUInt16LE(0xffff, 10);
  eocd.writeUInt32LE(0xffffffff, 12);
  eocd.writeUInt32LE(0xffffffff, 16);
  return Buffer.concat([...locals, cd, record, locator, eocd]);
}

export const CONTENT_TYPES = `<?xml version="1.0" encoding="utf-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml" /><Default Extension="json" ContentType="application/json" /><Default Extension="pdf" ContentType="application/pdf" /><Override PartName="/aasx/aasx-origin" ContentType="text/plain" /></Types>`;

/** A relationships part (`.rels`) with these relationships, ids R0, R1, ... */
export function rels(...relationships: [type: string, target: string][]): string {
  const items = relationships.map(([type, target], i) => `<Relationship Type="${type}" Target="${target}" Id="R${i}" />`);
  return `<?xml version="1.0" encoding="utf-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">${items.join('')}</Relationships>`;
}

/** The AASX relationship types' namespace: `${NS}/aasx-origin`, `${NS}/aas-spec`, `${NS}/aas-suppl`. */
export const NS = 'http://admin-shell.io/aasx/relationships';
export const ENVIRONMENT = '{"assetAdministrationShells":[],"submodels":[]}';

/**
 * A minimal valid package as entries (the spec part `/aasx/data.json` holding `environment`, one supplementary
 * file `/aasx/files/manual.pdf`); tests change or drop entries to break it.
 */
export function minimalPackage(environment = ENVIRONMENT): Record<string, string | Buffer> {
  return {
    '[Content_Types].xml': CONTENT_TYPES,
    '_rels/.rels': rels([`${NS}/aasx-origin`, '/aasx/aasx-origin']),
    'aasx/aasx-origin': 'Intentionally empty.',
    'aasx/_rels/aasx-origin.rels': rels([`${NS}/aas-spec`, '/aasx/data.json']),
    'aasx/data.json': environment,
    'aasx/_rels/data.json.rels': rels([`${NS}/aas-suppl`, 'files/manual.pdf']),
    'aasx/files/manual.pdf': '%PDF-1.4 not really',
  };
}

/** The entries as a ZIP (deflated), followed by the raw `extra` entries. */
export function zipOf(entries: Record<string, string | Buffer>, extra: RawEntry[] = []): Buffer {
  return buildZip([...Object.entries(entries).map(([name, data]) => ({ name, data })), ...extra]);
}

const MiB = 1024 * 1024;

/** One flushed (non-final) deflate block of 1 MiB of zeros: concatenate copies, end with `DEFLATE_END`. */
export const deflatedMebibyteOfZeros = (): Buffer => zlib.deflateRawSync(Buffer.alloc(MiB), { finishFlush: zlib.constants.Z_SYNC_FLUSH });
/** An empty final deflate block. */
export const DEFLATE_END = Buffer.from([0x03, 0x00]);

/**
 * A zip bomb's compressed data: `mebibytes` MiB of zeros as raw deflate of about 1/1000 that size (1 GiB is
 * ~1 MiB). Put it in an entry with `compressed` (and `crc: 0`), declaring its true size or lying about it.
 */
export function zerosBomb(mebibytes = 1024): Buffer {
  const block = deflatedMebibyteOfZeros();
  return Buffer.concat([...Array.from({ length: mebibytes }, () => block), DEFLATE_END]);
}
