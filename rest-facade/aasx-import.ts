import { createHash } from 'node:crypto';
import type { Context as KoaContext, Middleware } from 'koa';
import type { Context } from '../src/graphql/context';
import { isUuid } from '../src/common/uuid';
import { facadeErrorOf } from './executor';
import { FacadeError, badParam } from './facade-error';
import { type UploadInfo, withUploadedFile } from './files';
import { TenantAccess } from './streamed';

type WatchedImport = ReturnType<Context['services']['imports']['watch']>;
type Tenant = Awaited<ReturnType<TenantAccess['contributor']>>;

/**
 * Imports, `multipart/form-data` with the file in the part `file`, written to a temporary file as it arrives (never
 * held in memory), validated and imported in one transaction; the answer lists what was created or overwritten,
 * the stored files, the warnings and the counts; the import logs its phases and progress on the request's logger.
 * A contributor's operation. Two routes:
 *
 * - `POST {tenant_url}/sphere/api/v1.0/import`, the platform's own: an AASX package with exactly one shell.
 * - `POST {tenant_url}/api/v3.0/upload`, for clients built for the BaSyx AAS Environment (the BaSyx AAS Web UI):
 *   an AASX package, a JSON or an XML environment (told as BaSyx does, by the part's content type, else by the
 *   file name, else by the content), with any number of shells; the answer adds `aasIds`, the shells' ids, which
 *   the Web UI reads.
 *
 * The platform's import may be watched: its client draws a UUID, sends it as `?progress=`, and while the import
 * runs `GET {tenant_url}/sphere/api/v1.0/import/progress/{id}` (`progress`) answers its phase, to the same caller.
 */
export function aasxImportHandlers(
  access: TenantAccess,
  contextOf: (ctx: KoaContext) => Context,
  uploadLimitBytes: number,
): { platform: Middleware; upload: Middleware; progress: Middleware } {
  /** Receives the file into a temporary directory, hands it to `importFile`, and removes it. */
  const received = async <T>(ctx: KoaContext, importFile: (context: Context, tenant: Tenant, file: string, info: UploadInfo) => Promise<T>): Promise<T> => {
    const context = contextOf(ctx);
    const tenant = await access.contributor(ctx.state.tenant as string, context);
    return withUploadedFile(ctx, context, uploadLimitBytes, 'aasx-import-', (file, info) => importFile(context, tenant, file, info));
  };
  return {
    platform: async (ctx) => {
      const id = ctx.query.progress;
      if (id !== undefined && !isUuid(id)) throw badParam(`progress must be a UUID the client draws for this import, got '${String(id)}'.`);
      // Watched from before the upload is received: a second import under the same id is refused before its upload.
      let watched: WatchedImport | undefined;
      if (id !== undefined) {
        const context = contextOf(ctx);
        const { key, holder } = watchOf(ctx, id);
        try {
          watched = context.services.imports.watch(key, holder, { log: context.log });
        } catch (err) {
          throw facadeErrorOf(err, context);
        }
      }
      try {
        ctx.body = await received(ctx, (context, tenant, file) =>
          context.services.imports.importPackage(tenant, file, { log: context.log, signal: context.signal, progress: watched?.progress }),
        );
      } finally {
        watched?.stop();
      }
      ctx.status = 200;
    },
    // Answered from the memory of the import, without the database: an embedded one is busy with the import's
    // transaction. Who may read it is who started it, the caller of the same token (none on a showcase tenant).
    progress: async (ctx) => {
      const id = (ctx as unknown as { params: { importId: string } }).params.importId;
      if (!isUuid(id)) throw badParam(`The import's progress id must be a UUID, got '${id}'.`);
      const { key, holder } = watchOf(ctx, id);
      const status = contextOf(ctx).services.imports.watchedStatus(key, holder);
      if (!status) throw new FacadeError(404, `No import with progress id ${id} of this caller runs on this tenant (it may have ended).`);
      ctx.body = status;
      ctx.status = 200;
    },
    upload: async (ctx) => {
      // BaSyx's flag (its Web UI sends `?ignore-duplicates=true`): here an id already stored is overwritten either way.
      const flag = ctx.query['ignore-duplicates'];
      if (flag !== undefined && flag !== 'true' && flag !== 'false') throw badParam(`ignore-duplicates must be true or false, got '${String(flag)}'.`);
      const result = await received(ctx, (context, tenant, file, info) => context.services.imports.importUpload(tenant, file, info, { log: context.log, signal: context.signal }));
      ctx.body = { ...result, aasIds: result.shells.map((shell) => shell.id) };
      ctx.status = 200;
    },
  };
}

/** The key of a watched import (the tenant and the client's id) and its holder (a digest of the caller's token). */
function watchOf(ctx: KoaContext, id: string): { key: string; holder: string } {
  const authorization = ctx.get('authorization');
  return {
    key: `${String(ctx.state.tenant)} ${id.toLowerCase()}`,
    holder: createHash('sha256').update(authorization).digest('base64url'),
  };
}
