import type { Context as KoaContext, Middleware } from 'koa';
import type { Context } from '../src/graphql/context';
import { facadeErrorOf } from './executor';
import { setDownloadHeaders } from './download';
import { receiveUpload } from './files';
import { idParam } from './params';
import { TenantAccess } from './streamed';

/** The request's `If-Match`, for the write of the shell or submodel the attachment is in. */
const ifMatchOf = (ctx: KoaContext) => ctx.get('If-Match') || null;

type Download = Awaited<ReturnType<Context['services']['attachments']['thumbnail']>>;

/**
 * Thumbnails and attachments: `GET/PUT/DELETE {api}/shells/{aasIdentifier}/asset-information/thumbnail` and
 * `.../submodel-elements/{idShortPath}/attachment` (under `/submodels/{id}` and `/shells/{id}/submodels/{id}`).
 * PUT takes `multipart/form-data` with the part `file` (and, as AAS clients send it, a `fileName` field; the
 * stored name is the part's file name). Bytes stream; access is decided by GraphQL first (streamed.ts). Each runs in
 * the version of its path (the context's `aasVersion`), as the other routes do.
 */
export interface AttachmentRoutes {
  path: string;
  get: Middleware;
  put: Middleware;
  delete: Middleware;
}

type Target = (ctx: KoaContext) => { kind: 'thumbnail'; shellId: string } | { kind: 'attachment'; submodelId: string; path: string; shellId?: string };

const paramsOf = (ctx: KoaContext) => (ctx as unknown as { params: Record<string, string> }).params;

const thumbnailTarget: Target = (ctx) => ({ kind: 'thumbnail', shellId: idParam('aasIdentifier', paramsOf(ctx).aasIdentifier) });
const attachmentTarget: Target = (ctx) => {
  const params = paramsOf(ctx);
  return {
    kind: 'attachment',
    submodelId: idParam('submodelIdentifier', params.submodelIdentifier),
    path: params.idShortPath,
    ...(params.aasIdentifier !== undefined ? { shellId: idParam('aasIdentifier', params.aasIdentifier) } : {}),
  };
};

export function attachmentRoutes(access: TenantAccess, contextOf: (ctx: KoaContext) => Context, uploadLimitBytes: number): AttachmentRoutes[] {
  const routes = (path: string, target: Target): AttachmentRoutes => ({
    path,
    get: async (ctx) => {
      const t = target(ctx);
      const context = contextOf(ctx);
      const tenant = await access.reader(ctx.state.tenant as string, context);
      let download: Download;
      try {
        download =
          t.kind === 'thumbnail'
            ? await context.services.attachments.thumbnail(tenant, t.shellId)
            : await context.services.attachments.attachment(tenant, t.submodelId, t.path, { shellId: t.shellId }, context.aasVersion);
      } catch (err) {
        throw facadeErrorOf(err, context);
      }
      ctx.status = 200;
      setDownloadHeaders(ctx, download.contentType, download.fileName);
      if (download.etag) ctx.set('ETag', download.etag);
      download.stream.on('error', (err) => context.log.warn({ err }, 'download cut short'));
      ctx.body = download.stream;
      if (download.size !== undefined) ctx.length = download.size;
    },
    put: async (ctx) => {
      const t = target(ctx);
      const context = contextOf(ctx);
      const tenant = await access.contributor(ctx.state.tenant as string, context);
      await receiveUpload(ctx, context, uploadLimitBytes, ['fileName'], (file) =>
        t.kind === 'thumbnail'
          ? context.services.attachments.setThumbnail(tenant, t.shellId, file, ifMatchOf(ctx), context.aasVersion)
          : context.services.attachments.setAttachment(tenant, t.submodelId, t.path, { shellId: t.shellId, ifMatch: ifMatchOf(ctx), aasVersion: context.aasVersion }, file),
      );
      ctx.status = 204;
    },
    delete: async (ctx) => {
      const t = target(ctx);
      const context = contextOf(ctx);
      const tenant = await access.contributor(ctx.state.tenant as string, context);
      try {
        if (t.kind === 'thumbnail') await context.services.attachments.deleteThumbnail(tenant, t.shellId, ifMatchOf(ctx), context.aasVersion);
        else await context.services.attachments.deleteAttachment(tenant, t.submodelId, t.path, { shellId: t.shellId, ifMatch: ifMatchOf(ctx), aasVersion: context.aasVersion });
      } catch (err) {
        throw facadeErrorOf(err, context);
      }
      ctx.status = 204;
    },
  });
  return [
    routes('/shells/:aasIdentifier/asset-information/thumbnail', thumbnailTarget),
    routes('/submodels/:submodelIdentifier/submodel-elements/:idShortPath/attachment', attachmentTarget),
    routes('/shells/:aasIdentifier/submodels/:submodelIdentifier/submodel-elements/:idShortPath/attachment', attachmentTarget),
  ];
}
