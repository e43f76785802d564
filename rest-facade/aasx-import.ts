import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { Context as KoaContext, Middleware } from 'koa';
import type { Context } from '../src/graphql/context';
import { facadeErrorOf } from './executor';
import { receiveUpload } from './files';
import { TenantAccess } from './streamed';

/**
 * AASX import: `POST {tenant_url}/sphere/api/v1.0/import` and, for clients built for the BaSyx AAS Environment
 * (the BaSyx AAS Web UI), `POST {tenant_url}/api/v3.0/upload`; `multipart/form-data` with the package in the
 * part `file`. The package is written to a temporary file as it arrives (never held in memory), validated and
 * imported in one transaction; the answer lists what was created or overwritten, the stored files, the warnings
 * and the counts. The import logs its phases and progress on the request's logger. A contributor's operation.
 */
export function aasxImportHandler(access: TenantAccess, contextOf: (ctx: KoaContext) => Context, uploadLimitBytes: number): Middleware {
  return async (ctx) => {
    const context = contextOf(ctx);
    const tenant = await access.contributor(ctx.state.tenant as string, context);
    const dir = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'aasx-import-'));
    try {
      const file = path.join(dir, 'package.aasx');
      await receiveUpload(ctx, context, uploadLimitBytes, [], (upload) => pipeline(upload.stream, fs.createWriteStream(file)));
      let result;
      try {
        result = await context.services.imports.importPackage(tenant, file, { log: context.log });
      } catch (err) {
        throw facadeErrorOf(err, context);
      }
      ctx.status = 200;
      ctx.body = result;
    } finally {
      await fs.promises.rm(dir, { recursive: true, force: true });
    }
  };
}
