import type { Middleware } from 'koa';
import { HttpMethodEnum, koaBody } from 'koa-body';
import { MAX_JSON_DEPTH, nestsDeeperThan } from '../src/common/json-depth';
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
 * oversized one 413. Strict bodies are objects; value-only bodies may be any JSON value (`"42"`, `true`).
 */
export function jsonBody(limit: number, strict: boolean): Middleware {
  const parse = koaBody({ json: true, jsonStrict: strict, jsonLimit: limit, multipart: false, urlencoded: false, text: false, parsedMethods: [HttpMethodEnum.POST, HttpMethodEnum.PUT, HttpMethodEnum.PATCH] });
  return async (ctx, next) => {
    if (!ctx.request.length && !ctx.get('transfer-encoding')) throw new FacadeError(400, 'The request needs a JSON body.');
    if (!ctx.is('application/json')) throw new FacadeError(415, `Content-Type must be application/json, got '${ctx.get('content-type') || 'none'}'.`);
    // JSON between systems is UTF-8 (RFC 8259 §8.1); another charset would be read as UTF-8 and mangled.
    const charset = ctx.request.charset;
    if (charset && charset.toLowerCase() !== 'utf-8' && charset.toLowerCase() !== 'utf8') {
      throw new FacadeError(415, `JSON bodies must be UTF-8, got charset '${charset}'.`);
    }
    try {
      await parse(ctx, async () => undefined);
    } catch (err) {
      const e = err as { status?: number; type?: string; message?: string };
      if (e.status === 413 || e.type === 'entity.too.large') throw new FacadeError(413, `The body is larger than ${limit} bytes.`);
      if (e.status === 415) throw new FacadeError(415, e.message ?? 'Unsupported content encoding.');
      throw new FacadeError(400, `The body is not valid JSON: ${e.message ?? 'parse error'}`);
    }
    // Nested thousands deep, a body would overflow the stack of whatever walks it later (value-only, the model).
    if (nestsDeeperThan(ctx.request.body)) throw new FacadeError(400, `The body nests deeper than ${MAX_JSON_DEPTH} levels.`);
    if (strict && (ctx.request.body === null || typeof ctx.request.body !== 'object' || Array.isArray(ctx.request.body))) {
      throw new FacadeError(400, 'The body must be a JSON object.');
    }
    return next();
  };
}
