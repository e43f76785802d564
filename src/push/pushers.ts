import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import { publicAgentFor } from '../auth/outbound';
import { encodeBase64Url } from '../common/base64url';
import type { AasxServerSettings, S3Settings } from './push-target.service';

/** The content of one shell, ready to send: a temporary file (the AASX or the JSON environment) and its media type. */
export interface ShellContent {
  path: string;
  size: number;
  contentType: string;
  /** The file name a package upload names it with. */
  fileName: string;
}

export interface PushOptions {
  /** Whether targets on loopback, private or link-local addresses may be reached (PUSH_PRIVATE_NETWORKS). */
  privateNetworks: boolean;
  /** How long one request to a target may take. */
  timeoutMs: number;
}

export const AASX_TYPE = 'application/asset-administration-shell-package';

/** The object key of a shell in a bucket: `{prefix}{base64url(shellId)}.aasx|.json`. */
export function objectKeyOf(settings: Pick<S3Settings, 'prefix' | 'format'>, shellId: string): string {
  return `${settings.prefix}${encodeBase64Url(shellId)}.${settings.format}`;
}

/**
 * Writes (or, with no content: deletes) a shell's object in an S3-compatible bucket. The client is made for the one
 * push and has the target's own credentials only: never the server's default chain (environment, instance role).
 */
export async function pushToS3(settings: S3Settings, secret: string, shellId: string, content: ShellContent | null, options: PushOptions): Promise<void> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- the S3 client is loaded on the first push to a bucket, not at every start
  const { DeleteObjectCommand, PutObjectCommand, S3Client } = require('@aws-sdk/client-s3') as typeof import('@aws-sdk/client-s3');
  const agents = outboundAgents(settings.endpoint ?? `https://s3.${settings.region}.amazonaws.com`, options);
  const client = new S3Client({
    endpoint: settings.endpoint ?? undefined,
    region: settings.region,
    forcePathStyle: settings.forcePathStyle,
    credentials: { accessKeyId: settings.accessKeyId, secretAccessKey: secret },
    maxAttempts: 1,
    // A streamed body with a trailing checksum goes out `aws-chunked`, which S3-compatible services do not all take.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    requestHandler: { ...agents, connectionTimeout: options.timeoutMs, requestTimeout: options.timeoutMs },
  });
  try {
    const Key = objectKeyOf(settings, shellId);
    if (content === null) await client.send(new DeleteObjectCommand({ Bucket: settings.bucket, Key }));
    else {
      await client.send(
        new PutObjectCommand({ Bucket: settings.bucket, Key, Body: fs.createReadStream(content.path), ContentLength: content.size, ContentType: content.contentType }),
      );
    }
  } finally {
    client.destroy();
  }
}

/** A status other than the one hoped for, from an AASX File Server. */
export class TargetAnswerError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/**
 * The bearer token of a target's requests: `current()` before each request (null: none); `renew(refused)` after the
 * target answered 401 to `refused`, for the one retry (absent: a static token, which nothing renews).
 */
export interface BearerAuth {
  current(): Promise<string | null>;
  renew?(refused: string): Promise<string>;
}

/**
 * An AASX File Server (AAS API Part 2, SSP-001 of V3.0.4): `POST {url}/packages` (multipart: `aasIds`, `file`,
 * `fileName`; answers the PackageDescription with its `packageId`), `PUT {url}/packages/{packageId}` (same form),
 * `DELETE {url}/packages/{packageId}`; the package id base64url-encoded in paths.
 */
export class AasxServerClient {
  constructor(
    private readonly settings: AasxServerSettings,
    private readonly auth: BearerAuth,
    private readonly options: PushOptions,
  ) {}

  /** Posts the package; its new package id. */
  async create(shellId: string, content: ShellContent): Promise<string> {
    const answer = await this.send('POST', `${this.settings.url}/packages`, { shellId, content });
    if (answer.status !== 201 && answer.status !== 200) throw this.failure('POST /packages', answer);
    let packageId: unknown;
    try {
      packageId = (JSON.parse(answer.body) as { packageId?: unknown }).packageId;
    } catch {
      packageId = undefined;
    }
    if (typeof packageId !== 'string' || packageId === '') throw new TargetAnswerError(answer.status, 'POST /packages answered no packageId');
    return packageId;
  }

  /** Replaces the package; false when the server has no such package (any more). */
  async replace(packageId: string, shellId: string, content: ShellContent): Promise<boolean> {
    const answer = await this.send('PUT', this.packageUrl(packageId), { shellId, content });
    if (answer.status === 404) return false;
    if (answer.status >= 300) throw this.failure('PUT /packages/{packageId}', answer);
    return true;
  }

  /** Deletes the package; one that is gone already is fine. */
  async delete(packageId: string): Promise<void> {
    const answer = await this.send('DELETE', this.packageUrl(packageId));
    if (answer.status >= 300 && answer.status !== 404) throw this.failure('DELETE /packages/{packageId}', answer);
  }

  private packageUrl(packageId: string): string {
    return `${this.settings.url}/packages/${encodeBase64Url(packageId)}`;
  }

  private failure(what: string, answer: { status: number; body: string }): TargetAnswerError {
    // The AAS Result's first message says why, where the server sent one.
    let why = '';
    try {
      const text = (JSON.parse(answer.body) as { messages?: { text?: unknown }[] }).messages?.[0]?.text;
      if (typeof text === 'string') why = `: ${text.slice(0, 300)}`;
    } catch {
      why = '';
    }
    return new TargetAnswerError(answer.status, `${what} answered ${answer.status}${why}`);
  }

  /** One request with the current token; answered 401 with a renewable token, once more with a new one. */
  private async send(method: string, target: string, form?: { shellId: string; content: ShellContent }): Promise<{ status: number; body: string }> {
    const token = await this.auth.current();
    const answer = await this.sendWith(token, method, target, form);
    if (answer.status !== 401 || !token || !this.auth.renew) return answer;
    return this.sendWith(await this.auth.renew(token), method, target, form);
  }

  /** One request; with content, a multipart/form-data body streamed from the content's file. */
  private sendWith(token: string | null, method: string, target: string, form?: { shellId: string; content: ShellContent }): Promise<{ status: number; body: string }> {
    const url = new URL(target);
    const agent = outboundAgent(target, this.options);
    const boundary = `----push${Math.random().toString(16).slice(2)}${Date.now().toString(16)}`;
    const head = form
      ? Buffer.from(
          `--${boundary}\r\nContent-Disposition: form-data; name="aasIds"\r\n\r\n${form.shellId}\r\n` +
            `--${boundary}\r\nContent-Disposition: form-data; name="fileName"\r\n\r\n${form.content.fileName}\r\n` +
            `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${form.content.fileName}"\r\nContent-Type: ${form.content.contentType}\r\n\r\n`,
          'utf8',
        )
      : undefined;
    const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
    const headers: Record<string, string | number> = { Accept: 'application/json' };
    if (token) headers.Authorization = `Bearer ${token}`;
    if (form && head) {
      headers['Content-Type'] = `multipart/form-data; boundary=${boundary}`;
      headers['Content-Length'] = head.length + form.content.size + tail.length;
    }
    return new Promise((resolve, reject) => {
      const request = (url.protocol === 'https:' ? https : http).request(url, { method, headers, agent, timeout: this.options.timeoutMs }, (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          // Only the start of an answer is read (a package description, or a Result saying why not).
          if (size < 64 * 1024) chunks.push(chunk);
          size += chunk.length;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      });
      request.on('timeout', () => request.destroy(new Error(`no answer within ${this.options.timeoutMs} ms`)));
      request.on('error', reject);
      if (!form || !head) {
        request.end();
        return;
      }
      request.write(head);
      const file = fs.createReadStream(form.content.path);
      file.on('error', (err) => request.destroy(err));
      file.on('end', () => request.end(tail));
      file.pipe(request, { end: false });
    });
  }
}

/** The agent for a target's URL: any, with private networks allowed; else one that connects to public addresses only. */
export function outboundAgent(url: string, options: PushOptions): http.Agent | undefined {
  if (options.privateNetworks) return undefined;
  const agent = publicAgentFor(url);
  if (agent instanceof Error) throw agent;
  return agent;
}

function outboundAgents(url: string, options: PushOptions): { httpAgent?: http.Agent; httpsAgent?: https.Agent } {
  const agent = outboundAgent(url, options);
  if (!agent) return {};
  return agent instanceof https.Agent ? { httpsAgent: agent } : { httpAgent: agent };
}
