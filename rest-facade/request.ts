import type { Middleware } from 'koa';
import { BodyError, readJsonBody } from '../src/common/json-body';
import { ELEMENT_DEPTH_RULE, MAX_JSON_DEPTH } from '../src/common/json-depth';
import type { BodyLimits } from './admission';
import { FacadeError } from './facade-error';

/** Request middleware the facade's routers share: which tenant a request addresses, and JSON bodies. */

/** `/tenants/{tenant}/...`: the tenant is the path's. */
export const tenantFromPath: Middleware = (ctx, next) => {
  ctx.state.tenant = (ctx as unknown as { params: Record<string, string> }).params.tenant;
  return next();
};

/** `{tenant}.{TENANT_HOST_SUFFIX}`: the tenant is the host's first label. */
export function tenantFromHost(suffix: string): Middleware {
  return (ctx, next) => {
    const host = ctx.hostname.toLowerCase();
    if (!host.endsWith(suffix) || host.length === suffix.length) {
      throw new FacadeError(404, 'Tenant APIs are served on tenant hosts or under /tenants/{name}.');
    }
    ctx.state.tenant = host.slice(0, -suffix.length);
    return next();
  };
}

/**
 * JSON bodies only: another media type, charset or encoding is 415, a missing or malformed body 400, an
 * oversized one (bytes or values, `limits`) 413, one nested deeper than `MAX_JSON_DEPTH` 400, all found while the body
 * is read, before it is parsed (see `readJsonBody`). Strict bodies are objects; value-only bodies may be any JSON
 * value (`"42"`, `true`). The caller was admitted before (admission.ts).
 */
export function jsonBody(limits: BodyLimits, strict: boolean): Middleware {
  return async (ctx, next) => {
    if (!ctx.request.length && !ctx.get('transfer-encoding')) throw new FacadeError(400, 'The request needs a JSON body.');
    if (!ctx.is('application/json')) throw new FacadeError(415, `Content-Type must be application/json, got '${ctx.get('content-type') || 'none'}'.`);
    // JSON between systems is UTF-8 (RFC 8259 §8.1); another charset would be read as UTF-8 and mangled.
    const charset = ctx.request.charset;
    if (charset && charset.toLowerCase() !== 'utf-8' && charset.toLowerCase() !== 'utf8') {
      throw new FacadeError(415, `JSON bodies must be UTF-8, got charset '${charset}'.`);
    }
    try {
      ctx.request.body = await readJsonBody(ctx.req, {
        limit: limits.bytes,
        maxValues: limits.values,
        maxDepth: MAX_JSON_DEPTH,
        shape: strict ? 'object' : 'any',
        tooDeep: `The body nests deeper than ${MAX_JSON_DEPTH} levels (${ELEMENT_DEPTH_RULE}).`,
      });
    } catch (err) {
      if (err instanceof BodyError) throw new FacadeError(err.status, err.message);
      throw err;
    }
    return next();
  };
}
