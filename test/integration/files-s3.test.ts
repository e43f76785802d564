import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
// s3rver has no type declarations; what is used of it is typed here.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const S3rver = require('s3rver') as new (options: Record<string, unknown>) => { run(): Promise<unknown>; close(): Promise<void> };
import { afterAll, beforeAll, describe } from 'vitest';
import type { S3StoreConfig } from '../../src/config';
import { fileRepositorySuite } from '../support/file-suite';
import { freePort } from '../support/free-port';

/** The file repository with its contents in an S3-compatible bucket (s3rver on a temporary directory). */
describe('file repository (S3 blob store)', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'asset-platform-s3-'));
  let s3: { close(): Promise<void> } | undefined;
  let store: S3StoreConfig;
  let client: S3Client;

  beforeAll(async () => {
    const port = await freePort();
    const server = new S3rver({ port, address: '127.0.0.1', directory: dir, silent: true, configureBuckets: [{ name: 'asset-files' }] });
    await server.run();
    s3 = server;
    store = {
      kind: 's3',
      endpoint: `http://127.0.0.1:${port}`,
      bucket: 'asset-files',
      region: 'us-east-1',
      credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
      forcePathStyle: true,
    };
    client = new S3Client({ endpoint: store.endpoint, region: store.region, credentials: store.credentials, forcePathStyle: true });
  });
  afterAll(async () => {
    client?.destroy();
    await s3?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  fileRepositorySuite({
    config: () => ({ files: { uploadLimitBytes: 0, store } }),
    async contents(_server, tenant) {
      const page = await client.send(new ListObjectsV2Command({ Bucket: store.bucket, Prefix: `files/${tenant.id}/` }));
      return page.KeyCount ?? 0;
    },
  });
});
