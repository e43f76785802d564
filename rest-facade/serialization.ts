import type { Context as KoaContext, Middleware } from 'koa';
import type { Context } from '../src/graphql/context';
import { setDownloadHeaders } from './download';
import { facadeErrorOf } from './executor';
import { FacadeError, badParam } from './facade-error';
import { Query, idParam, single } from './params';
import { TenantAccess, sendChunks } from './streamed';

/** The formats `GET /serialization` answers with, by media type; XML is the default (AAS Part 2). */
export const SERIALIZATION_TYPES = [
  'application/xml',
  'application/json',
  'application/asset-administration-shell-package+xml',
  'application/asset-administration-shell-package+json',
] as const;

/** `aasIds` / `submodelIds`: repeated (or comma-separated) base64url identifiers. */
function idsParam(query: Query, name: string): string[] {
  const raw = query[name];
  if (raw === undefined) return [];
  const values = (Array.isArray(raw) ? raw : [raw]).flatMap((v) => v.split(',')).filter((v) => v !== '');
  return values.map((v) => idParam(name, v));
}

function booleanParam(query: Query, name: string, fallback: boolean): boolean {
  const raw = single(query, name);
  if (raw === undefined) return fallback;
  if (raw !== 'true' && raw !== 'false') throw badParam(`Query parameter '${name}' must be true or false, got '${raw}'.`);
  return raw === 'true';
}

/**
 * `GET {tenant_url}/api/v3.0/serialization?aasIds=&submodelIds=&includeConceptDescriptions=&allConceptDescriptions=`:
 * the environment of those shells and submodels (or, with no ids, of the whole tenant, streamed), as the `Accept`
 * header asks; with ids, the concept descriptions they reference, or with `allConceptDescriptions=true` (this
 * server's addition) every one of the tenant.
 */
export function serializationHandler(access: TenantAccess, contextOf: (ctx: KoaContext) => Context): Middleware {
  return async (ctx) => {
    const query = ctx.query as Query;
    for (const name of Object.keys(query)) {
      if (!['aasIds', 'submodelIds', 'includeConceptDescriptions', 'allConceptDescriptions'].includes(name)) throw badParam(`Unknown query parameter '${name}'.`);
    }
    const request = {
      aasIds: idsParam(query, 'aasIds'),
      submodelIds: idsParam(query, 'submodelIds'),
      includeConceptDescriptions: booleanParam(query, 'includeConceptDescriptions', true),
      allConceptDescriptions: booleanParam(query, 'allConceptDescriptions', false),
    };
    if (request.allConceptDescriptions && !request.includeConceptDescriptions) {
      throw badParam('allConceptDescriptions=true asks for every concept description, includeConceptDescriptions=false for none: give one of them.');
    }
    const type = ctx.get('accept') ? ctx.accepts(...SERIALIZATION_TYPES) : SERIALIZATION_TYPES[0];
    if (!type) throw new FacadeError(406, `This route answers ${SERIALIZATION_TYPES.join(', ')}; the Accept header allows none of them.`);
    const context = contextOf(ctx);
    const tenant = await access.reader(ctx.state.tenant as string, context);
    try {
      const format = type.endsWith('json') ? 'json' : 'xml';
      const aasx = type.startsWith('application/asset-administration-shell-package');
      const chunks = await context.services.serialization.serialize(tenant, request, format, aasx);
      const name = `${request.aasIds.length === 1 ? safeName(request.aasIds[0]) : tenant.name}.aasx`;
      await sendChunks(ctx, chunks, () => setDownloadHeaders(ctx, type, aasx ? name : undefined));
    } catch (err) {
      throw facadeErrorOf(err, context);
    }
  };
}

/** A file name from an identifier: letters, digits, dots, dashes and underscores, at most 100. */
function safeName(id: string): string {
  return id.replace(/[^A-Za-z0-9._-]+/g, '_').replace(/^[._]+/, '').slice(0, 100) || 'environment';
}
