import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import Router from '@koa/router';
import busboy from 'busboy';
import { GraphQLSchema } from 'graphql';
import type { Context as KoaContext, Middleware } from 'koa';
import { decodeBase64Url, isStandardBase64Text } from '../src/common/base64url';
import type { Context } from '../src/graphql/context';
import { Admission, admitCaller } from './admission';
import { setDownloadHeaders } from './download';
import { OperationExecutor, facadeErrorOf } from './executor';
import { FacadeError, badParam } from './facade-error';
import { Query, cursorParam, limitParam, single, standardBase64Message } from './params';
import { pagedResult } from './route';
import { jsonBody, tenantFromHost, tenantFromPath } from './request';

/**
 * The tenant file repository over HTTP, at `{tenant_url}/sphere/api/v1.0/files` and, deprecated (with a
 * `Deprecation` header and a `Link` to the successor), at `{tenant_url}/api/v3.0/files`.
 *
 * Bytes never travel inside a GraphQL value, but every route still asks GraphQL first, so the one access policy
 * decides: a download runs the `file` query (reader; 404 for no such file) and then streams the content from
 * the file service the same context carries; an upload or a replacement runs `fileWriteAccess` (contributor; the
 * file for a replacement) before it reads a byte of the body, then streams the multipart body (busboy) into the
 * file service. Lists, metadata and deletes are plain GraphQL operations.
 */
export interface FileRoutesOptions {
  schema: GraphQLSchema;
  contextOf(ctx: KoaContext): Context;
  /** Largest file one upload may carry (FILE_UPLOAD_LIMIT); more is 413 and nothing is stored. */
  uploadLimitBytes: number;
  /** Largest JSON body (metadata). */
  /** Who may send a body, and what a body may cost (admission.ts). */
  admission: Admission;
  tenantHostSuffix?: string;
}

export const FILES_API = '/sphere/api/v1.0';
const DEPRECATED_FILES_API = '/api/v3.0';
/** RFC 9745: the deprecated location's files interface is deprecated since 2025-01-01 (sf-date, seconds). */
const DEPRECATED_SINCE = '@1735689600';
/** Multipart framing around the file (boundaries, part headers, small fields) allowed beyond the upload limit. */
const MULTIPART_SLACK = 1024 * 1024;
const METADATA_FIELDS = ['displayName', 'classification', 'attributes'];

const FILE_FIELDS = 'tfp fileName contentType size sha256 etag displayName classification attributes { key value } createdAt updatedAt';

interface FileJson {
  tfp: string;
  fileName: string;
  contentType: string;
  size: number;
  sha256: string;
  etag: string;
  displayName: string | null;
  classification: string | null;
  attributes: { key: string; value: string }[];
  createdAt: string | Date;
  updatedAt: string | Date;
}

export function createFileRouter(options: FileRoutesOptions): Router {
  const executor = new OperationExecutor(options.schema);
  const op = {
    list: executor.prepare(
      `query Files($tenant: String!, $filter: FileFilterInput, $limit: Int, $cursor: String) { files(tenant: $tenant, filter: $filter, limit: $limit, cursor: $cursor) { result { ${FILE_FIELDS} } pagingMetadata { cursor } } }`,
    ),
    get: executor.prepare(`query File($tenant: String!, $tfp: String!) { file(tenant: $tenant, tfp: $tfp) { ${FILE_FIELDS} } }`),
    writeAccess: executor.prepare(`query FileWriteAccess($tenant: String!, $tfp: String) { fileWriteAccess(tenant: $tenant, tfp: $tfp) { tfp } }`),
    updateMetadata: executor.prepare(
      `mutation UpdateFileMetadata($tenant: String!, $tfp: String!, $metadata: FileMetadataInput!) { updateFileMetadata(tenant: $tenant, tfp: $tfp, metadata: $metadata) { ${FILE_FIELDS} } }`,
    ),
    delete: executor.prepare(`mutation DeleteFile($tenant: String!, $tfp: String!) { deleteFile(tenant: $tenant, tfp: $tfp) }`),
  };
  const { contextOf, uploadLimitBytes } = options;
  const tenantOf = (ctx: KoaContext) => ctx.state.tenant as string;

  const list: Middleware = async (ctx) => {
    const query = ctx.query as Query;
    const attributes: { key: string; value: string }[] = [];
    // Any other parameter was refused before (query-guard.ts: the operation declares `attribute.{key}`).
    for (const name of Object.keys(query)) {
      if (name.startsWith('attribute.') && name.length > 'attribute.'.length) attributes.push({ key: name.slice('attribute.'.length), value: single(query, name) ?? '' });
    }
    const filter = {
      displayName: single(query, 'displayName'),
      displayNameStartsWith: single(query, 'displayNameStartsWith'),
      displayNameContains: single(query, 'displayNameContains'),
      classification: single(query, 'classification'),
      contentType: single(query, 'contentType'),
      fileName: single(query, 'fileName'),
      attributes: attributes.length ? attributes : undefined,
    };
    const data = await executor.run<{ files: { result: FileJson[]; pagingMetadata: { cursor?: string | null } } }>(
      op.list,
      // Absent paging parameters are left out, so the query's defaults apply.
      { tenant: tenantOf(ctx), filter, ...definedOnly({ limit: limitParam(query), cursor: cursorParam(query) }) },
      contextOf(ctx),
    );
    ctx.body = pagedResult(data.files, fileJson);
  };

  const download: Middleware = async (ctx) => {
    const context = contextOf(ctx);
    const tfp = tfpParam(ctx);
    const { file } = await executor.run<{ file: FileJson }>(op.get, { tenant: tenantOf(ctx), tfp }, context);
    ctx.set({
      ETag: file.etag,
      'Accept-Ranges': 'bytes',
      'Cache-Control': 'private, no-cache',
    });
    if (noneMatch(ctx.get('if-none-match'), file.etag)) {
      ctx.status = 304;
      return;
    }
    const ifRange = ctx.get('if-range');
    const range = ifRange && ifRange !== file.etag ? undefined : parseRange(ctx.get('range'), file.size);
    if (range === 'unsatisfiable') {
      ctx.set('Content-Range', `bytes */${file.size}`);
      throw new FacadeError(416, `The range '${ctx.get('range')}' lies outside the file's ${file.size} bytes.`);
    }
    setDownloadHeaders(ctx, file.contentType, file.fileName);
    if (range) ctx.set('Content-Range', `bytes ${range.start}-${range.end}/${file.size}`);
    ctx.status = range ? 206 : 200;
    const length = range ? range.end - range.start + 1 : file.size;
    if (ctx.method === 'HEAD') {
      ctx.length = length;
      return;
    }
    const tenant = context.authorizedTenants.get(tenantOf(ctx))!;
    let stream: Readable;
    try {
      ({ stream } = await context.services.files.open(tenant, tfp, range));
    } catch (err) {
      throw facadeErrorOf(err, context);
    }
    stream.on('error', (err) => context.log.warn({ err }, 'file download cut short'));
    ctx.body = stream;
    ctx.length = length;
    ctx.type = file.contentType;
  };

  const upload: Middleware = async (ctx) => {
    const context = contextOf(ctx);
    await executor.run(op.writeAccess, { tenant: tenantOf(ctx), tfp: null }, context);
    const tenant = context.authorizedTenants.get(tenantOf(ctx))!;
    const record = await receiveUpload(ctx, context, uploadLimitBytes, METADATA_FIELDS, (file, fields) => {
      const metadata = fields.then(metadataOfFields);
      // Awaited by the store once the bytes are in; a store that fails before that never asks.
      metadata.catch(() => undefined);
      return context.services.files.store(tenant, { ...file, metadata });
    });
    ctx.status = 201;
    ctx.set('Location', `${ctx.path.replace(/\/$/, '')}/${encodeURIComponent(record.tfp)}`);
    ctx.set('ETag', record.etag);
    ctx.body = fileJson(record);
  };

  const replace: Middleware = async (ctx) => {
    const context = contextOf(ctx);
    const tfp = tfpParam(ctx);
    await executor.run(op.writeAccess, { tenant: tenantOf(ctx), tfp }, context);
    const tenant = context.authorizedTenants.get(tenantOf(ctx))!;
    const record = await receiveUpload(ctx, context, uploadLimitBytes, [], (file, form) => context.services.files.replace(tenant, tfp, { ...file, ready: form }));
    ctx.set('ETag', record.etag);
    ctx.body = fileJson(record);
  };

  const remove: Middleware = async (ctx) => {
    await executor.run(op.delete, { tenant: tenantOf(ctx), tfp: tfpParam(ctx) }, contextOf(ctx));
    ctx.status = 204;
  };

  const getMetadata: Middleware = async (ctx) => {
    const { file } = await executor.run<{ file: FileJson }>(op.get, { tenant: tenantOf(ctx), tfp: tfpParam(ctx) }, contextOf(ctx));
    ctx.body = fileJson(file);
  };

  const putMetadata: Middleware = async (ctx) => {
    const data = await executor.run<{ updateFileMetadata: FileJson }>(
      op.updateMetadata,
      { tenant: tenantOf(ctx), tfp: tfpParam(ctx), metadata: ctx.request.body },
      contextOf(ctx),
    );
    ctx.body = fileJson(data.updateFileMetadata);
  };

  const router = new Router();
  const readJson = [admitCaller(op.updateMetadata.demands, options.admission), jsonBody(options.admission.requestBody, true)];
  const bases: [string, Middleware][] = [
    [`/tenants/:tenant${FILES_API}`, tenantFromPath],
    [`/tenants/:tenant${DEPRECATED_FILES_API}`, chain(tenantFromPath, deprecated)],
  ];
  if (options.tenantHostSuffix) {
    const fromHost = tenantFromHost(`.${options.tenantHostSuffix.toLowerCase()}`);
    bases.push([FILES_API, fromHost], [DEPRECATED_FILES_API, chain(fromHost, deprecated)]);
  }
  for (const [base, tenant] of bases) {
    router.get(`${base}/files`, tenant, list);
    router.post(`${base}/files`, tenant, upload);
    router.get(`${base}/files/:tfp`, tenant, download);
    router.put(`${base}/files/:tfp`, tenant, replace);
    router.delete(`${base}/files/:tfp`, tenant, remove);
    router.get(`${base}/files/:tfp/metadata`, tenant, getMetadata);
    router.put(`${base}/files/:tfp/metadata`, tenant, ...readJson, putMetadata);
  }
  return router;
}

/** The old location answers as the new one does, saying it is deprecated and where its successor is. */
const deprecated: Middleware = async (ctx, next) => {
  ctx.set('Deprecation', DEPRECATED_SINCE);
  ctx.set('Link', `<${ctx.path.replace(`${DEPRECATED_FILES_API}/files`, `${FILES_API}/files`)}>; rel="successor-version"`);
  return next();
};

const chain =
  (first: Middleware, second: Middleware): Middleware =>
  (ctx, next) =>
    first(ctx, () => second(ctx, next));

/**
 * The tfp in a path: URL-encoded (`file%3A%2Fsphere%2F...`; the router has decoded it) or base64url-encoded as AAS
 * identifiers are (with or without padding). Which file it names, and whether it is this tenant's, GraphQL decides.
 */
function tfpParam(ctx: KoaContext): string {
  const raw = (ctx as unknown as { params: Record<string, string> }).params.tfp;
  if (/^file:/i.test(raw)) return raw;
  const decoded = decodeBase64Url(raw);
  if (decoded === undefined && isStandardBase64Text(raw)) throw badParam(standardBase64Message('tfp'));
  if (decoded === undefined || !/^file:/i.test(decoded)) {
    throw badParam("Path parameter 'tfp' is no service file path: give the tfp URL-encoded (file%3A%2Fsphere%2F...) or base64url-encoded.");
  }
  return decoded;
}

function fileJson(file: FileJson): Record<string, unknown> {
  const created = file.createdAt instanceof Date ? file.createdAt.toISOString() : file.createdAt;
  const updated = file.updatedAt instanceof Date ? file.updatedAt.toISOString() : file.updatedAt;
  return {
    tfp: file.tfp,
    fileName: file.fileName,
    contentType: file.contentType,
    size: file.size,
    sha256: file.sha256,
    ...(file.displayName !== null ? { displayName: file.displayName } : {}),
    ...(file.classification !== null ? { classification: file.classification } : {}),
    attributes: file.attributes.map(({ key, value }) => ({ key, value })),
    createdAt: created,
    updatedAt: updated,
  };
}

const definedOnly = (values: Record<string, unknown>) => Object.fromEntries(Object.entries(values).filter(([, v]) => v !== undefined));

/** The metadata fields of an upload form: `attributes` is JSON, a list of {key, value}. */
function metadataOfFields(fields: Record<string, string>) {
  let attributes: unknown;
  if (fields.attributes !== undefined) {
    try {
      attributes = JSON.parse(fields.attributes);
    } catch {
      throw badParam("Form field 'attributes' must be JSON: a list of {\"key\": ..., \"value\": ...}.");
    }
  }
  return {
    displayName: fields.displayName,
    classification: fields.classification,
    attributes: attributes as { key: string; value: string }[] | undefined,
  };
}

/** `If-None-Match`: `*` or a list of tags, compared weakly (RFC 9110 §13.1.2). */
function noneMatch(header: string, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === '*') return true;
  const bare = etag.replace(/^W\//, '');
  return (header.match(/(?:W\/)?"[^"]*"/g) ?? []).some((tag) => tag.replace(/^W\//, '') === bare);
}

/**
 * A single `bytes=` range of a file of `size` bytes: first-last, first- or -suffix. Undefined (the whole file)
 * without a header, for several ranges, or for a header that is no byte range (RFC 9110 §14.2: ignored);
 * `unsatisfiable` when it lies outside the file.
 */
export function parseRange(header: string, size: number): { start: number; end: number } | 'unsatisfiable' | undefined {
  const m = /^\s*bytes\s*=\s*(\d*)\s*-\s*(\d*)\s*$/i.exec(header);
  if (!m || (m[1] === '' && m[2] === '')) return undefined;
  if (m[1] === '') {
    const suffix = Number(m[2]);
    if (suffix === 0 || size === 0) return 'unsatisfiable';
    return { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(m[1]);
  const end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1);
  if (m[2] !== '' && Number(m[2]) < start) return undefined;
  if (start >= size) return 'unsatisfiable';
  return { start, end };
}

export interface UploadedFile {
  fileName: string;
  contentType: string;
  stream: Readable;
}

/** What an upload said of its file: its content type and name. */
export interface UploadInfo {
  contentType: string;
  fileName: string;
}

/**
 * Receives a `multipart/form-data` upload (`receiveUpload`) into a file of a new temporary directory, hands the
 * file to `use`, and removes the directory whatever happens; what `use` throws is answered as the façade answers
 * a GraphQL error (`facadeErrorOf`). For readers that need the whole file (a zip, a table) before they start.
 */
export async function withUploadedFile<T>(
  ctx: KoaContext,
  context: Context,
  limit: number,
  prefix: string,
  use: (file: string, info: UploadInfo) => Promise<T>,
): Promise<T> {
  const dir = await fs.promises.mkdtemp(path.join(os.tmpdir(), prefix));
  try {
    const file = path.join(dir, 'upload');
    const info = await receiveUpload(ctx, context, limit, [], async (upload) => {
      await pipeline(upload.stream, fs.createWriteStream(file));
      return { contentType: upload.contentType, fileName: upload.fileName };
    });
    try {
      return await use(file, info);
    } catch (err) {
      throw facadeErrorOf(err, context);
    }
  } finally {
    await fs.promises.rm(dir, { recursive: true, force: true });
  }
}

/**
 * Reads a `multipart/form-data` body as it arrives: the one `file` part is handed to `consume` as a stream (the
 * service writes it to the blob store while it arrives), the other fields (only `allowed` ones, small) come as a
 * promise settled when the form ends. A file over the limit (413), a cut-off or malformed body, a second file or
 * an unknown field (400) fail the stream, so `consume` fails and stores nothing; the answer waits until it has.
 */
export async function receiveUpload<T>(
  ctx: KoaContext,
  context: Context,
  limit: number,
  allowed: string[],
  consume: (file: UploadedFile, fields: Promise<Record<string, string>>) => Promise<T>,
): Promise<T> {
  if (!ctx.is('multipart/form-data')) throw new FacadeError(415, `Content-Type must be multipart/form-data with a 'file' part, got '${ctx.get('content-type') || 'none'}'.`);
  const tooLarge = () => new FacadeError(413, `The file is larger than the upload limit of ${limit} bytes.`);
  const declared = Number(ctx.get('content-length') || 0);
  if (declared > limit + MULTIPART_SLACK) {
    ctx.set('Connection', 'close');
    throw tooLarge();
  }
  let parser: busboy.Busboy;
  try {
    // One byte more than the limit: busboy reports a file that reaches its limit, and exactly `limit` bytes is allowed.
    parser = busboy({ headers: ctx.req.headers, defParamCharset: 'utf8', limits: { fileSize: limit + 1, files: 1, fields: 20, fieldSize: 256 * 1024, parts: 21 } });
  } catch (err) {
    throw badParam(`The multipart body cannot be read: ${(err as Error).message}`);
  }
  return new Promise<T>((resolve, reject) => {
    let file: Readable | undefined;
    let stored: Promise<T> | undefined;
    let failure: FacadeError | undefined;
    const fields: Record<string, string> = {};
    let formEnded!: (fields: Record<string, string>) => void;
    let formFailed!: (err: Error) => void;
    const form = new Promise<Record<string, string>>((res, rej) => {
      formEnded = res;
      formFailed = rej;
    });
    form.catch(() => undefined);

    const fail = (err: FacadeError) => {
      if (failure) return;
      failure = err;
      ctx.req.unpipe(parser);
      file?.destroy(err);
      formFailed(err);
      // The client may still be sending: the connection is closed after the answer, not read to its end.
      if (!ctx.req.complete) ctx.set('Connection', 'close');
      // Answer once what was being stored is gone (rolled back or removed).
      void (stored ?? Promise.resolve()).catch(() => undefined).then(() => reject(err));
    };

    parser.on('file', (name, stream, info) => {
      if (name !== 'file' || file) {
        stream.resume();
        fail(badParam(name === 'file' ? "The form has more than one 'file' part." : `Unknown file part '${name}': the file goes in the part 'file'.`));
        return;
      }
      file = stream;
      // Failures reach the consumer through its reads; once it has read to the end, nobody else is told.
      stream.on('error', () => undefined);
      stream.on('limit', () => fail(tooLarge()));
      // AAS Part 2 (PutThumbnail, PutFileByPath) names the file in the field `fileName`: when it came before the
      // file part (as BaSyx clients send it), it names the file; else the part's own file name does.
      stored = consume({ fileName: fields.fileName || info.filename || 'file', contentType: info.mimeType, stream }, form);
      stored.then(
        (result) =>
          form.then(
            () => {
              if (!failure) resolve(result);
            },
            () => undefined,
          ),
        // A failure of the form itself (cut off, too large) fails the store too: the form's reason is the answer, and
        // the store's error, its mere consequence, is neither answered nor logged as a fault of the server.
        (err) => {
          if (!failure) fail(facadeErrorOf(err, context));
        },
      );
    });
    parser.on('field', (name, value, info) => {
      if (info.nameTruncated || info.valueTruncated) return fail(badParam(`Form field '${name.slice(0, 100)}' is too long.`));
      if (!allowed.includes(name)) {
        return fail(badParam(allowed.length ? `Unknown form field '${name}' (allowed: file, ${allowed.join(', ')}).` : `This request takes only the part 'file'; metadata is set at .../metadata.`));
      }
      fields[name] = value;
    });
    parser.on('filesLimit', () => fail(badParam("The form has more than one 'file' part.")));
    parser.on('fieldsLimit', () => fail(badParam('The form has too many fields.')));
    parser.on('partsLimit', () => fail(badParam('The form has too many parts.')));
    parser.on('error', (err: Error) => fail(badParam(`The multipart body cannot be read: ${err.message}`)));
    parser.on('close', () => {
      if (!file) return fail(badParam("The form needs a 'file' part."));
      formEnded(fields);
    });
    // A client that goes away mid-upload: the stream fails, the store rolls back.
    ctx.req.on('close', () => {
      if (!ctx.req.complete) fail(badParam('The upload was cut off before its end.'));
    });
    ctx.req.on('error', () => fail(badParam('The upload was cut off before its end.')));
    ctx.req.pipe(parser);
  });
}
