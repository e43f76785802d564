import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { writeAasxPackage } from '../../src/aas/aasx';
import type { Target } from './run';

/**
 * Files and packages, time and the server's memory: a generated AASX of 100 MB (1,000 files of 100 KB of random
 * bytes, so nothing compresses), imported (POST /upload) and serialized again as AASX (GET /serialization), and a
 * 200 MB file uploaded to and downloaded from the file repository. The server's resident memory is sampled every
 * 20 ms from /proc; the figure is its peak above what it held before (goal: the import and the serialization
 * under 300 MB).
 */
export interface FilesBenchContext {
  server: Target;
  apiPath: string;
  tenant: string;
}

const FILES = 1_000;
const FILE_BYTES = 100 * 1024;
const BIG_FILE = 200 * 1024 * 1024;
const MiB = 1024 * 1024;

export function rssBytes(pid: number): number {
  const line = fs.readFileSync(`/proc/${pid}/status`, 'utf8').split('\n').find((l) => l.startsWith('VmRSS:'));
  return line ? Number(line.split(/\s+/)[1]) * 1024 : NaN;
}

/** Runs `work`, sampling the server's RSS: seconds taken and the peak above the RSS before. */
export async function measured<T>(pid: number, work: () => Promise<T>): Promise<{ seconds: number; peakMiB: number; result: T }> {
  const before = rssBytes(pid);
  let peak = before;
  const timer = setInterval(() => {
    peak = Math.max(peak, rssBytes(pid));
  }, 20);
  const started = process.hrtime.bigint();
  try {
    const result = await work();
    return { seconds: Number(process.hrtime.bigint() - started) / 1e9, peakMiB: (peak - before) / MiB, result };
  } finally {
    clearInterval(timer);
  }
}

/** POSTs or PUTs a multipart form with one `file` part streamed from `body`; resolves with status and text. */
export function sendMultipart(url: string, method: string, fileName: string, contentType: string, body: () => Readable): Promise<{ status: number; text: string }> {
  const boundary = `----bench${randomBytes(8).toString('hex')}`;
  const head = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${fileName}"\r\nContent-Type: ${contentType}\r\n\r\n`);
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method, headers: { 'content-type': `multipart/form-data; boundary=${boundary}`, 'transfer-encoding': 'chunked' } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString() }));
    });
    req.on('error', reject);
    req.write(head);
    const source = body();
    source.on('error', reject);
    source.on('end', () => req.end(tail));
    source.pipe(req, { end: false });
  });
}

/** GETs a URL and counts the bytes, discarding them. */
export function download(url: string, headers: Record<string, string> = {}): Promise<{ status: number; bytes: number }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { headers }, (res) => {
        let bytes = 0;
        res.on('data', (c: Buffer) => (bytes += c.length));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, bytes }));
      })
      .on('error', reject);
  });
}

/** Random bytes, generated as read. */
function randomStream(total: number): Readable {
  let left = total;
  return new Readable({
    read() {
      if (left <= 0) return this.push(null);
      const n = Math.min(left, 256 * 1024);
      left -= n;
      this.push(randomBytes(n));
    },
  });
}

export async function benchFiles(ctx: FilesBenchContext): Promise<string[]> {
  const lines: string[] = [];
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-aasx-'));
  try {
    const file = path.join(dir, 'big.aasx');
    const env = {
      assetAdministrationShells: [{ modelType: 'AssetAdministrationShell', id: 'urn:bench:aasx:shell', assetInformation: { assetKind: 'Instance', globalAssetId: 'urn:bench:asset' } }],
      submodels: [
        {
          modelType: 'Submodel',
          id: 'urn:bench:aasx:documents',
          submodelElements: Array.from({ length: FILES }, (_, i) => ({ modelType: 'File', idShort: `Doc${i}`, contentType: 'application/octet-stream', value: `/aasx/files/doc${i}.bin` })),
        },
      ],
    };
    await pipeline(
      writeAasxPackage({
        spec: { format: 'json', content: JSON.stringify(env) },
        files: Array.from({ length: FILES }, (_, i) => ({ path: `/aasx/files/doc${i}.bin`, contentType: 'application/octet-stream', open: async () => randomStream(FILE_BYTES) })),
      }),
      fs.createWriteStream(file),
    );
    const size = fs.statSync(file).size;
    const api = `${ctx.server.url}${ctx.apiPath}`;
    const imported = await measured(ctx.server.pid, () => sendMultipart(`${api}/upload`, 'POST', 'big.aasx', 'application/asset-administration-shell-package', () => fs.createReadStream(file)));
    if (imported.result.status !== 200) throw new Error(`import: ${imported.result.status} ${imported.result.text.slice(0, 300)}`);
    lines.push(`AASX import, ${(size / MiB).toFixed(0)} MB, ${FILES} files: ${imported.seconds.toFixed(1)} s, server RSS peak +${imported.peakMiB.toFixed(0)} MB (goal < 300 MB)`);

    const query = `?aasIds=${Buffer.from('urn:bench:aasx:shell').toString('base64url')}&submodelIds=${Buffer.from('urn:bench:aasx:documents').toString('base64url')}`;
    const serialized = await measured(ctx.server.pid, () => download(`${api}/serialization${query}`, { accept: 'application/asset-administration-shell-package+json' }));
    if (serialized.result.status !== 200) throw new Error(`serialization: ${serialized.result.status}`);
    lines.push(`AASX serialization, ${(serialized.result.bytes / MiB).toFixed(0)} MB: ${serialized.seconds.toFixed(1)} s, server RSS peak +${serialized.peakMiB.toFixed(0)} MB (goal < 300 MB)`);

    const files = `${ctx.server.url}/tenants/${ctx.tenant}/sphere/api/v1.0/files`;
    const up = await measured(ctx.server.pid, () => sendMultipart(files, 'POST', 'big.bin', 'application/octet-stream', () => randomStream(BIG_FILE)));
    if (up.result.status !== 201) throw new Error(`upload: ${up.result.status} ${up.result.text.slice(0, 300)}`);
    const tfp = (JSON.parse(up.result.text) as { tfp: string }).tfp;
    lines.push(`file upload, 200 MB: ${(BIG_FILE / MiB / up.seconds).toFixed(0)} MB/s, server RSS peak +${up.peakMiB.toFixed(0)} MB`);
    const down = await measured(ctx.server.pid, () => download(`${files}/${encodeURIComponent(tfp)}`));
    if (down.result.status !== 200 || down.result.bytes !== BIG_FILE) throw new Error(`download: ${down.result.status}, ${down.result.bytes} bytes`);
    lines.push(`file download, 200 MB: ${(BIG_FILE / MiB / down.seconds).toFixed(0)} MB/s, server RSS peak +${down.peakMiB.toFixed(0)} MB`);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  return lines;
}
