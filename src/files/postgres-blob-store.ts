import { Readable } from 'node:stream';
import type { DataSource, EntityManager } from 'typeorm';
import type { BlobKey, BlobStore, ByteRange } from './blob-store';

/** 256 KB: a chunk is one row; a 512 MB file is 2,048 rows. */
export const CHUNK_SIZE = 256 * 1024;
/** Chunks fetched per query while reading: 1 MB in memory at most, a quarter of the round trips. */
const CHUNKS_PER_READ = 4;

/**
 * File contents as rows of `file_chunks` (fixed-size `bytea` chunks, the last one shorter), written in the
 * transaction that writes the file's row: an upload that fails midway rolls back with nothing left behind, and a
 * replace becomes visible all at once on commit. Reads fetch a few chunks at a time.
 */
export class PostgresBlobStore implements BlobStore {
  readonly kind = 'postgres' as const;
  readonly inDatabase = true;
  readonly chunkSize = CHUNK_SIZE;

  constructor(private readonly dataSource: DataSource) {}

  async write(manager: EntityManager, key: BlobKey, content: AsyncIterable<Buffer>): Promise<void> {
    let n = 0;
    let pending: Buffer[] = [];
    let length = 0;
    const insert = (data: Buffer) =>
      manager.query('INSERT INTO file_chunks (tenant_id, file_id, content_id, n, data) VALUES ($1, $2, $3, $4, $5)', [key.tenantId, key.fileId, key.contentId, n++, data]);
    for await (const chunk of content) {
      pending.push(chunk);
      length += chunk.length;
      while (length >= CHUNK_SIZE) {
        const joined = Buffer.concat(pending, length);
        await insert(joined.subarray(0, CHUNK_SIZE));
        const rest = joined.subarray(CHUNK_SIZE);
        // A copy, so the 256 KB before it can be collected.
        pending = rest.length ? [Buffer.from(rest)] : [];
        length = rest.length;
      }
    }
    if (length > 0) await insert(Buffer.concat(pending, length));
  }

  async read(key: BlobKey, size: number, chunkSize: number, range: ByteRange = { start: 0, end: size - 1 }): Promise<Readable> {
    return Readable.from(readChunks(this.dataSource, key, chunkSize, range), { objectMode: false });
  }

  async remove(manager: EntityManager, key: BlobKey): Promise<void> {
    await manager.query('DELETE FROM file_chunks WHERE tenant_id = $1 AND file_id = $2 AND content_id = $3', [key.tenantId, key.fileId, key.contentId]);
  }

  async removeDocument(): Promise<void> {
    // Chunks go with their file's row (ON DELETE CASCADE), or with the transaction that wrote them.
  }

  async removeTenant(): Promise<void> {
    // Chunks go with their files, and files with their tenant (ON DELETE CASCADE).
  }
}

async function* readChunks(dataSource: DataSource, key: BlobKey, chunkSize: number, range: ByteRange): AsyncGenerator<Buffer> {
  if (range.end < range.start) return;
  const first = Math.floor(range.start / chunkSize);
  const last = Math.floor(range.end / chunkSize);
  for (let from = first; from <= last; from += CHUNKS_PER_READ) {
    const to = Math.min(last, from + CHUNKS_PER_READ - 1);
    const rows: { n: number; data: Buffer }[] = await dataSource.query(
      'SELECT n, data FROM file_chunks WHERE tenant_id = $1 AND file_id = $2 AND content_id = $3 AND n BETWEEN $4 AND $5 ORDER BY n',
      [key.tenantId, key.fileId, key.contentId, from, to],
    );
    // A replace or delete committed while this download ran: its content is gone. Cut the stream, never mix.
    if (rows.length !== to - from + 1) throw new Error(`file content ${key.contentId} changed while it was read`);
    for (const { n, data } of rows) {
      const offset = n * chunkSize;
      const start = Math.max(0, range.start - offset);
      const end = Math.min(data.length, range.end - offset + 1);
      yield start === 0 && end === data.length ? data : data.subarray(start, end);
    }
  }
}
