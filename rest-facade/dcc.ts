import type { Context as KoaContext, Middleware } from 'koa';
import { decodeBase64Url, encodeBase64Url } from '../src/common/base64url';
import { BodyError, readBodyChunks } from '../src/common/json-body';
import type { Context } from '../src/graphql/context';
import { facadeErrorOf } from './executor';
import { FacadeError, badParam } from './facade-error';
import { receiveUpload } from './files';
import { TenantAccess } from './streamed';

/**
 * DCC conversion (experimental), `POST {tenant_url}/sphere/api/v1.0/dcc/conversions?mode=preview|store`: a Digital
 * Calibration Certificate, as the body (`application/xml`, `text/xml`) or as the part `file` of a
 * `multipart/form-data` upload, becomes a submodel (src/dcc/). `preview` (the default; the tenant role reader) answers
 * the submodel and the warnings and stores nothing; `store` (contributor) stores it, the original byte for byte and
 * its embedded documents in the file repository, and answers 201 with the submodel's Location. The DCC's bytes
 * never travel in a GraphQL value: the caller is admitted through the `tenant` / `writableTenant` queries, then the
 * route calls the service the same context carries (as the AASX import does).
 */
export const DCC_CONVERSIONS_PATH = '/dcc/conversions';

/** The largest DCC the route reads (src/dcc/dcc-convert.ts MAX_DCC_BYTES, which the façade may not import). */
export const DCC_BODY_LIMIT = 32 * 1024 * 1024;

const QUERY = ['mode', 'shellId', 'submodelId', 'addAssetIds'];

export function dccConversionHandler(access: TenantAccess, contextOf: (ctx: KoaContext) => Context, apiUrlOf: (tenant: string) => string): Middleware {
  return async (ctx) => {
    const query = ctx.query as Record<string, string | string[] | undefined>;
    const one = (name: string): string | undefined => {
      const value = query[name];
      if (Array.isArray(value)) throw badParam(`Query parameter '${name}' is given more than once.`);
      return value;
    };
    for (const name of Object.keys(query)) if (!QUERY.includes(name)) throw badParam(`Unknown query parameter '${name}' (${QUERY.join(', ')}).`);
    const mode = one('mode') ?? 'preview';
    if (mode !== 'preview' && mode !== 'store') throw badParam(`Query parameter 'mode' must be preview or store, got '${mode}'.`);
    const shellId = decodedId(one('shellId'), 'shellId');
    const submodelId = one('submodelId');
    if (submodelId !== undefined && !submodelId.trim()) throw badParam("Query parameter 'submodelId' is empty.");
    const addAssetIds = one('addAssetIds');
    if (addAssetIds !== undefined && addAssetIds !== 'true' && addAssetIds !== 'false') throw badParam(`Query parameter 'addAssetIds' must be true or false, got '${addAssetIds}'.`);
    const context = contextOf(ctx);
    const tenantName = ctx.state.tenant as string;
    // Admitted before a byte of the body is read: preview is a reader's, store a contributor's.
    const tenant = mode === 'store' ? await access.contributor(tenantName, context) : await access.reader(tenantName, context);
    const { bytes, fileName } = await readDcc(ctx, context);
    try {
      const service = context.services.dcc;
      const options = { shellId, submodelId, fileName, addAssetIds: addAssetIds === 'true' };
      const result = mode === 'store' ? await service.store(tenant, bytes, options) : await service.preview(tenant, bytes, options);
      ctx.status = mode === 'store' ? 201 : 200;
      if (mode === 'store') ctx.set('Location', `${apiUrlOf(tenantName)}/submodels/${encodeBase64Url(result.submodelId)}`);
      ctx.body = result;
    } catch (err) {
      throw facadeErrorOf(err, context);
    }
  };
}

/** The shell's id, base64url-encoded as AAS identifiers are in the API. */
function decodedId(value: string | undefined, name: string): string | undefined {
  if (value === undefined) return undefined;
  const decoded = decodeBase64Url(value);
  if (decoded === undefined) throw badParam(`Query parameter '${name}' must be the shell's id, UTF8-BASE64-URL-encoded.`);
  return decoded;
}

/** The DCC's bytes, as they came: the body (XML), or the part `file` of a form. */
async function readDcc(ctx: KoaContext, context: Context): Promise<{ bytes: Buffer; fileName?: string }> {
  if (ctx.is('multipart/form-data')) {
    return receiveUpload(ctx, context, DCC_BODY_LIMIT, [], async (file) => {
      const chunks: Buffer[] = [];
      for await (const chunk of file.stream) chunks.push(chunk as Buffer);
      return { bytes: Buffer.concat(chunks), fileName: file.fileName === 'file' ? undefined : file.fileName };
    });
  }
  if (!ctx.request.length && !ctx.get('transfer-encoding')) throw badParam('The request needs the DCC as its body.');
  if (!ctx.is('application/xml', 'text/xml', 'application/*+xml')) {
    throw new FacadeError(415, `Content-Type must be application/xml (the DCC as the body) or multipart/form-data (the DCC in the part 'file'), got '${ctx.get('content-type') || 'none'}'.`);
  }
  const chunks: Buffer[] = [];
  try {
    await readBodyChunks(ctx.req, DCC_BODY_LIMIT, (chunk) => chunks.push(chunk));
  } catch (err) {
    if (err instanceof BodyError) {
      if (err.status === 413) ctx.set('Connection', 'close');
      throw new FacadeError(err.status, err.status === 413 ? `The DCC is larger than ${DCC_BODY_LIMIT} bytes.` : err.message);
    }
    throw err;
  }
  return { bytes: Buffer.concat(chunks) };
}
