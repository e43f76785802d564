import type { Context as KoaContext, Middleware } from 'koa';
import type { Context } from '../src/graphql/context';
import { setDownloadHeaders } from './download';
import { facadeErrorOf } from './executor';
import { FacadeError, badParam } from './facade-error';
import { Query, idParam, single } from './params';
import { TenantAccess, sendChunks } from './streamed';
import { ApiVersion, METAMODEL_OF, MetamodelVersion } from './api-versions';

/** The metamodel versions an `Accept` profile may name, by their XML namespace (the same URI names the version in JSON). */
export const METAMODEL_PROFILES: Record<string, MetamodelVersion> = {
  'https://admin-shell.io/aas/3/0': '3.0',
  'https://admin-shell.io/aas/3/1': '3.1',
};

/** The formats `GET /serialization` answers with, by media type; XML is the default (AAS Part 2). */
export const SERIALIZATION_TYPES = [
  'application/xml',
  'application/json',
  'application/asset-administration-shell-package+xml',
  'application/asset-administration-shell-package+json',
] as const;

/** One media range of an `Accept` header: its type, the `profile` it names, its weight. */
interface MediaRange {
  media: string;
  profile?: string;
  q: number;
}

function mediaRanges(accept: string): MediaRange[] {
  return accept.split(',').map((range) => {
    const [media, ...params] = range.split(';').map((part) => part.trim());
    const out: MediaRange = { media: media.toLowerCase(), q: 1 };
    for (const param of params) {
      const eq = param.indexOf('=');
      if (eq < 0) continue;
      const name = param.slice(0, eq).trim().toLowerCase();
      const value = param.slice(eq + 1).trim().replace(/^"(.*)"$/, '$1');
      if (name === 'q') out.q = Number.isFinite(Number(value)) ? Number(value) : 0;
      else if (name === 'profile') out.profile = value;
    }
    return out;
  });
}

/** How well a range matches a type: 3 exactly, 2 by its type wildcard (`application/` then a star), 1 by the wildcard of all, 0 not. */
function specificity(range: string, type: string): number {
  if (range === type) return 3;
  if (range === '*/*') return 1;
  return range.endsWith('/*') && type.startsWith(range.slice(0, -1)) ? 2 : 0;
}

/**
 * The media type of the answer and the metamodel version it is written in, from the `Accept` header (none: XML) and
 * the API version of the path. Each type takes the weight of the most specific range that matches it; the heaviest
 * wins (ties: the earlier range, then the order of SERIALIZATION_TYPES). The `profile` parameter of that range
 * (`Accept: application/xml;profile="https://admin-shell.io/aas/3/1"`) names the version, else the path does. A
 * profile naming no version this server writes is 406, as is an Accept that allows none of the types.
 */
export function negotiateSerialization(accept: string | undefined, version: ApiVersion): { type: (typeof SERIALIZATION_TYPES)[number]; metamodel: MetamodelVersion } {
  if (!accept) return { type: SERIALIZATION_TYPES[0], metamodel: METAMODEL_OF[version] };
  const ranges = mediaRanges(accept);
  let best: { type: (typeof SERIALIZATION_TYPES)[number]; range: MediaRange; index: number } | undefined;
  for (const type of SERIALIZATION_TYPES) {
    let match: { range: MediaRange; index: number; level: number } | undefined;
    ranges.forEach((range, index) => {
      const level = specificity(range.media, type);
      if (level > (match?.level ?? 0)) match = { range, index, level };
    });
    if (!match || match.range.q <= 0) continue;
    if (!best || match.range.q > best.range.q || (match.range.q === best.range.q && match.index < best.index)) best = { type, range: match.range, index: match.index };
  }
  if (!best) throw new FacadeError(406, `This route answers ${SERIALIZATION_TYPES.join(', ')}; the Accept header allows none of them.`);
  const profile = best.range.profile;
  if (profile === undefined) return { type: best.type, metamodel: METAMODEL_OF[version] };
  const metamodel = METAMODEL_PROFILES[profile.replace(/\/$/, '')];
  if (!metamodel) throw new FacadeError(406, `The Accept profile '${profile}' names no metamodel version this server writes: ${Object.keys(METAMODEL_PROFILES).join(', ')}.`);
  return { type: best.type, metamodel };
}

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
 * `GET {tenant_url}/api/{version}/serialization?aasIds=&submodelIds=&includeConceptDescriptions=&allConceptDescriptions=`:
 * the environment of those shells and submodels (or, with no ids, of the whole tenant, streamed), as the `Accept`
 * header asks; with ids, the concept descriptions they reference, or with `allConceptDescriptions=true` (this
 * server's addition) every one of the tenant. In the metamodel version of the path, or of the `Accept` profile.
 */
export function serializationHandler(access: TenantAccess, contextOf: (ctx: KoaContext) => Context, version: ApiVersion): Middleware {
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
    const { type, metamodel } = negotiateSerialization(ctx.get('accept') || undefined, version);
    const context = contextOf(ctx);
    context.aasVersion = metamodel;
    const tenant = await access.reader(ctx.state.tenant as string, context);
    try {
      const format = type.endsWith('json') ? 'json' : 'xml';
      const aasx = type.startsWith('application/asset-administration-shell-package');
      const chunks = await context.services.serialization.serialize(tenant, request, format, aasx, metamodel);
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
