import type { Readable } from 'node:stream';
import type { EntityManager } from 'typeorm';

/** Which content a blob is: one version of one file (a replace writes a new `contentId`). */
export interface BlobKey {
  tenantId: string;
  fileId: string;
  documentId: string;
  contentId: string;
}

/** Bytes `start` to `end`, both included (as HTTP ranges count). */
export interface ByteRange {
  start: number;
  end: number;
}

/**
 * Where file contents live. Writes take the bytes as they arrive and reads hand them out as a stream: no store
 * holds a whole file in memory.
 */
export interface BlobStore {
  readonly kind: 'postgres' | 's3';
  /**
   * Whether the content is written in the database transaction that writes the file's row (which must exist
   * first, for the foreign key): then a rollback removes it, and nothing else need be cleaned up.
   */
  readonly inDatabase: boolean;
  /** Bytes per stored chunk (recorded with each file, for ranges). */
  readonly chunkSize: number;
  write(manager: EntityManager, key: BlobKey, content: AsyncIterable<Buffer>, contentType: string): Promise<void>;
  /** The content (or a range of it) of a file of `size` bytes stored in chunks of `chunkSize`. */
  read(key: BlobKey, size: number, chunkSize: number, range?: ByteRange): Promise<Readable>;
  /** Removes one content (the one a replace superseded, or one written for a row that was never committed). */
  remove(manager: EntityManager, key: BlobKey): Promise<void>;
  /** Removes every content of a document, whether a row names it or not (deleted files; discarded imports). */
  removeDocument(tenantId: string, documentId: string): Promise<void>;
  /** Removes every content of a tenant (after the tenant's rows were deleted). */
  removeTenant(tenantId: string): Promise<void>;
}
