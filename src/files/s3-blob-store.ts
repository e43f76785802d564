import { Readable } from 'node:stream';
import type * as S3 from '@aws-sdk/client-s3';
import type * as S3Storage from '@aws-sdk/lib-storage';
import type { S3StoreConfig } from '../config';
import type { BlobKey, BlobStore, ByteRange } from './blob-store';

/** Multipart part size; with QUEUE_SIZE parts in flight, an upload holds at most 16 MB. */
const PART_SIZE = 8 * 1024 * 1024;
const QUEUE_SIZE = 2;

/**
 * File contents as objects in an S3-compatible bucket, one per content: `files/{tenantId}/{documentId}/{contentId}`.
 * Uploads stream through the SDK's multipart upload (a failed one is aborted, its parts dropped); downloads and
 * ranges stream from GetObject. The object is written before the file's row, and removed again when the row is
 * not written; a replaced content's object is removed once the new one is committed.
 */
export class S3BlobStore implements BlobStore {
  readonly kind = 's3' as const;
  readonly inDatabase = false;
  readonly chunkSize = PART_SIZE;
  private readonly client: S3.S3Client;
  /** The SDK, loaded when an S3 store is made (FILE_STORE=s3): not a part of every start. */
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- see above
  private readonly sdk = require('@aws-sdk/client-s3') as typeof S3;

  constructor(private readonly config: S3StoreConfig) {
    this.client = new this.sdk.S3Client({
      endpoint: config.endpoint,
      region: config.region,
      credentials: config.credentials,
      forcePathStyle: config.forcePathStyle,
    });
  }

  async write(_manager: unknown, key: BlobKey, content: AsyncIterable<Buffer>, contentType: string): Promise<void> {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded with the first upload
    const { Upload } = require('@aws-sdk/lib-storage') as typeof S3Storage;
    const upload = new Upload({
      client: this.client,
      params: { Bucket: this.config.bucket, Key: objectKey(key), Body: Readable.from(content), ContentType: contentType },
      partSize: PART_SIZE,
      queueSize: QUEUE_SIZE,
      leavePartsOnError: false,
    });
    await upload.done();
  }

  async read(key: BlobKey, size: number, _chunkSize: number, range?: ByteRange): Promise<Readable> {
    if (size === 0 || (range && range.end < range.start)) return Readable.from([]);
    const out = await this.client.send(
      new this.sdk.GetObjectCommand({ Bucket: this.config.bucket, Key: objectKey(key), Range: range ? `bytes=${range.start}-${range.end}` : undefined }),
    );
    return out.Body as Readable;
  }

  async remove(_manager: unknown, key: BlobKey): Promise<void> {
    await this.client.send(new this.sdk.DeleteObjectCommand({ Bucket: this.config.bucket, Key: objectKey(key) }));
  }

  async removeDocument(tenantId: string, documentId: string): Promise<void> {
    await this.removePrefix(`files/${tenantId}/${documentId}/`);
  }

  async removeTenant(tenantId: string): Promise<void> {
    await this.removePrefix(`files/${tenantId}/`);
  }

  /** Removes every object under `Prefix`, a page (at most 1,000 keys) per batch delete. */
  private async removePrefix(Prefix: string): Promise<void> {
    let ContinuationToken: string | undefined;
    do {
      const page = await this.client.send(new this.sdk.ListObjectsV2Command({ Bucket: this.config.bucket, Prefix, ContinuationToken }));
      const keys = (page.Contents ?? []).flatMap((object) => (object.Key ? [{ Key: object.Key }] : []));
      if (keys.length) {
        const out = await this.client.send(new this.sdk.DeleteObjectsCommand({ Bucket: this.config.bucket, Delete: { Objects: keys, Quiet: true } }));
        if (out.Errors?.length) throw new Error(`could not remove ${out.Errors.length} objects under ${Prefix}: ${out.Errors[0].Code} ${out.Errors[0].Message}`);
      }
      ContinuationToken = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (ContinuationToken);
  }

  destroy(): void {
    this.client.destroy();
  }
}

const objectKey = (key: BlobKey) => `files/${key.tenantId}/${key.documentId}/${key.contentId}`;
