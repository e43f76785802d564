import type { Context as KoaContext, Middleware } from 'koa';
import type { FieldDemand } from '../src/common/operation-demands';
import { WorkShares, workRefusalText } from '../src/common/work-shares';
import type { Context } from '../src/graphql/context';
import { AppError } from '../src/graphql/errors';
import { facadeErrorOf } from './executor';
import { FacadeError } from './facade-error';
import { admissionSteps } from './query-guard';

/**
 * Request admission, one rule for every route: who the caller is, and its right to the route as far as the path
 * tells it, are settled before a byte of the body is read; a request that will be refused is answered (401, 403,
 * 404) without its body being parsed, and Node drops what the client still sends. Expensive work then takes a share
 * (src/common/work-shares.ts) or is answered 429 with Retry-After, still before its body is read.
 */

/** What a route's JSON body may cost: its bytes (after decompression) and its values (structural tokens). */
export interface BodyLimits {
  bytes: number;
  values: number;
}

export interface Admission {
  contextOf(ctx: KoaContext): Context;
  /** The access policy's rule, applied with what the path tells (src/auth/policy.ts, `admitEarly`). */
  admit(context: Context, rule: string, known: { tenant?: unknown; organizationId?: unknown }): Promise<void>;
  shares: WorkShares;
  /** Routes that take a large document (submodels, elements): BODY_LIMIT. */
  documentBody: BodyLimits;
  /** Every other JSON body: REQUEST_BODY_LIMIT. */
  requestBody: BodyLimits;
}

/** The limits of a body of `bytes` at most: values at most one per 8 bytes, and never more than `maxValues`. */
export function bodyLimits(bytes: number, maxValues: number): BodyLimits {
  return { bytes, values: Math.max(1_000, Math.min(maxValues, Math.floor(bytes / 8))) };
}

/**
 * Admits the caller to a route before its body is read: each root field of the route's operation that runs whatever
 * the variables are asks its access rule, with the tenant of the path (`ctx.state.tenant`) and the organization of
 * the path (`organizationId`) where the field takes them from variables of those names.
 */
export function admitCaller(demands: FieldDemand[], admission: Admission): Middleware {
  const asked = askedBeforeBody(demands);
  const step: Middleware = async (ctx, next) => {
    if (asked.length) {
      const context = admission.contextOf(ctx);
      const params = (ctx as unknown as { params?: Record<string, string> }).params ?? {};
      try {
        for (const demand of asked) {
          await admission.admit(context, demand.access!, {
            tenant: known(demand.tenant, 'tenant', ctx.state.tenant),
            organizationId: known(demand.organizationId, 'organizationId', params.organizationId),
          });
        }
      } catch (err) {
        throw facadeErrorOf(err, context);
      }
    }
    return next();
  };
  admissionSteps.add(step);
  return step;
}

/**
 * The rules to ask before the body: those of the fields that run whatever the variables are; when every field is
 * conditional (one of two alternatives runs, as the query routes' `@skip`/`@include`), the rule they all share.
 */
function askedBeforeBody(demands: FieldDemand[]): FieldDemand[] {
  const unconditional = demands.filter((d) => d.unconditional && d.access !== undefined);
  if (unconditional.length || demands.some((d) => d.unconditional)) return unconditional;
  const [first] = demands;
  const same = (d: FieldDemand) => d.access === first?.access && JSON.stringify(d.tenant) === JSON.stringify(first?.tenant) && JSON.stringify(d.organizationId) === JSON.stringify(first?.organizationId);
  return first?.access !== undefined && demands.every(same) ? [first] : [];
}

/** `admitCaller` for a route that runs no operation of its own (a streamed one): that tenant role on the path's tenant. */
export function admitToTenant(rule: 'reader' | 'contributor', admission: Admission): Middleware {
  return admitCaller([{ field: 'tenant', access: rule, unconditional: true, tenant: { variable: 'tenant' }, expensive: false }], admission);
}

/** An argument's value as the path tells it: a literal, or the variable of `name` the route fills from the path. */
function known(source: FieldDemand['tenant'], name: string, fromPath: unknown): unknown {
  if (!source) return undefined;
  if ('value' in source) return source.value;
  return source.variable === name ? fromPath : undefined;
}

/**
 * Expensive work takes a share for its caller on the request's tenant, held until its response is sent or its
 * connection closes (a streamed answer holds it while it streams); none free: 429 with Retry-After. The caller is
 * its verified principal; an anonymous caller (of a showcase tenant, whose token, if any, is not needed) is its client
 * address.
 */
export function takeWorkShare(admission: Admission): Middleware {
  return async (ctx, next) => {
    const context = admission.contextOf(ctx);
    let caller = `client:${ctx.ip}`;
    try {
      const principal = await context.principal();
      if (principal) caller = `${principal.kind}:${principal.issuer}#${principal.subject}`;
    } catch (err) {
      // Admission has already refused a bad token where the route needs one; a showcase tenant needs none, so there
      // a token that does not verify is ignored, as on its other routes, and the caller is its client address.
      if (!(err instanceof AppError && err.extensions.code === 'UNAUTHENTICATED')) throw facadeErrorOf(err, context);
    }
    const tenant = String(ctx.state.tenant ?? '');
    const share = admission.shares.enter(caller, tenant);
    if (typeof share === 'string') throw new FacadeError(429, workRefusalText(share, tenant));
    if (ctx.res.writableFinished || ctx.res.destroyed) share.release();
    else ctx.res.once('close', share.release);
    return next();
  };
}
