import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { Context as KoaContext, Middleware } from 'koa';
import { encodeBase64Url } from '../src/common/base64url';
import type { Context } from '../src/graphql/context';
import { facadeErrorOf } from './executor';
import { setDownloadHeaders } from './download';
import { receiveUpload } from './files';
import { Query, base64Param, cursorParam, idParam, limitParam } from './params';
import { DEFAULT_LIMIT } from '../src/common/cursor';
import { isUuid } from '../src/common/uuid';
import { TenantAccess } from './streamed';

type PackageUpload = Parameters<Context['services']['packages']['create']>[1];

/**
 * The AASX File Server (AAS Part 2, SSP-001): `GET/POST {api}/packages`, `GET/PUT/DELETE {api}/packages/{packageId}`.
 * POST and PUT take `multipart/form-data` with the package in the part `file` (and, as the specification has
 * them, the fields `fileName` and `aasIds`; the shells are read from the package itself, `aasIds` is ignored).
 * The package is written to a temporary file as it arrives, read, and stored with its row in one transaction.
 * `packageId` is a server-made UUID, base64url-encoded in paths like AAS ids (a bare UUID is accepted too).
 */
export interface PackageRoutes {
  list: Middleware;
  create: Middleware;
  get: Middleware;
  put: Middleware;
  delete: Middleware;
}

function packageIdOf(ctx: KoaContext): string {
  const raw = (ctx as unknown as { params: Record<string, string> }).params.packageId;
  return isUuid(raw) ? raw : idParam('packageId', raw);
}

/** The upload in a temporary file, handed to `use`; the file is removed afterwards whatever happens. */
async function withUpload<T>(ctx: KoaContext, context: Context, limit: number, use: (upload: PackageUpload) => Promise<T>): Promise<T> {
  const dir = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'aasx-package-'));
  try {
    const file = path.join(dir, 'package.aasx');
    const upload = await receiveUpload(ctx, context, limit, ['fileName', 'aasIds'], async (part, fields) => {
      await pipeline(part.stream, fs.createWriteStream(file));
      const form = await fields;
      return { path: file, fileName: form.fileName?.trim() || part.fileName || 'package.aasx' };
    });
    try {
      return await use(upload);
    } catch (err) {
      throw facadeErrorOf(err, context);
    }
  } finally {
    await fs.promises.rm(dir, { recursive: true, force: true });
  }
}

export function packageRoutes(access: TenantAccess, contextOf: (ctx: KoaContext) => Context, apiUrlOf: (tenant: string) => string, uploadLimitBytes: number): PackageRoutes {
  return {
    list: async (ctx) => {
      const context = contextOf(ctx);
      const query = ctx.query as Query;
      const aasId = base64Param(query, 'aasId');
      const limit = limitParam(query) ?? DEFAULT_LIMIT;
      const cursor = cursorParam(query);
      const tenant = await access.reader(ctx.state.tenant as string, context);
      let page;
      try {
        page = await context.services.packages.list(tenant, aasId, limit, cursor);
      } catch (err) {
        throw facadeErrorOf(err, context);
      }
      ctx.status = 200;
      ctx.body = { paging_metadata: page.cursor ? { cursor: page.cursor } : {}, result: page.items };
    },
    create: async (ctx) => {
      const context = contextOf(ctx);
      const tenantName = ctx.state.tenant as string;
      const tenant = await access.contributor(tenantName, context);
      const created = await withUpload(ctx, context, uploadLimitBytes, (upload) => context.services.packages.create(tenant, upload));
      ctx.status = 201;
      ctx.set('Location', `${apiUrlOf(tenantName)}/packages/${encodeBase64Url(created.packageId)}`);
      ctx.body = created;
    },
    get: async (ctx) => {
      const context = contextOf(ctx);
      const packageId = packageIdOf(ctx);
      const tenant = await access.reader(ctx.state.tenant as string, context);
      let download;
      try {
        download = await context.services.packages.open(tenant, packageId);
      } catch (err) {
        throw facadeErrorOf(err, context);
      }
      ctx.status = 200;
      setDownloadHeaders(ctx, download.contentType, download.fileName);
      ctx.set('X-FileName', encodeURIComponent(download.fileName));
      ctx.set('ETag', download.etag);
      download.stream.on('error', (err) => context.log.warn({ err }, 'download cut short'));
      ctx.body = download.stream;
      ctx.length = download.size;
    },
    put: async (ctx) => {
      const context = contextOf(ctx);
      const packageId = packageIdOf(ctx);
      const tenant = await access.contributor(ctx.state.tenant as string, context);
      await withUpload(ctx, context, uploadLimitBytes, (upload) => context.services.packages.replace(tenant, packageId, upload));
      ctx.status = 204;
    },
    delete: async (ctx) => {
      const context = contextOf(ctx);
      const packageId = packageIdOf(ctx);
      const tenant = await access.contributor(ctx.state.tenant as string, context);
      try {
        await context.services.packages.delete(tenant, packageId);
      } catch (err) {
        throw facadeErrorOf(err, context);
      }
      ctx.status = 204;
    },
  };
}
