import type { DataSource } from 'typeorm';
import type { FilesConfig } from '../config';
import type { BlobStore } from './blob-store';
import { PostgresBlobStore } from './postgres-blob-store';
import { S3BlobStore } from './s3-blob-store';

/** The file repository's public API, for the modules that store and read files (AASX import and export, thumbnails). */
export { FileService } from './file.service';
export type { FileFilter, FileHolder, FileInput, FileRecord } from './file.service';
export type { BlobStore, ByteRange } from './blob-store';
export { formatTfp, parseTfp } from './tfp';
export type { ParsedTfp } from './tfp';

/** The blob store FILE_STORE names; `close` releases its connections (the S3 client's sockets). */
export function createBlobStore(config: FilesConfig['store'], dataSource: DataSource): BlobStore & { close(): void } {
  if (config.kind === 's3') {
    const store = new S3BlobStore(config);
    return Object.assign(store, { close: () => store.destroy() });
  }
  return Object.assign(new PostgresBlobStore(dataSource), { close: () => undefined });
}
