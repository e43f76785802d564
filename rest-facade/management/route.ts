import { type Query, single } from '../params';
import type { Method } from '../route';

export interface ManagementRequest {
  /** Raw path parameters, as matched. */
  params: Record<string, string>;
  query: Query;
  /** The parsed JSON body, for routes that take one. */
  body: unknown;
  /** `{manage_url}/api/v1`, for Location headers. */
  apiUrl: string;
  /** A request header, by lower-case name. */
  header(name: string): string | undefined;
}

export interface ManagementResponse {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

/**
 * One Management API route: how its path, query and body become GraphQL variables, and how the data becomes a
 * response. `path` is relative to `/api/v1` (`/me` is served at the root as well, see management-api.ts).
 */
export interface ManagementRouteSpec {
  method: Method;
  path: string;
  /** One line for the OpenAPI description. */
  summary: string;
  /** OpenAPI tag (the resource family). */
  tag: string;
  /** The GraphQL document run for this route. */
  operation: string;
  /** Whether the route takes a JSON object body; `optional`: it may have none (then `{}`). */
  body?: boolean | 'optional';
  /** Whether the route is served without a bearer token (sign-up). */
  anonymous?: boolean;
  /**
   * Whether it answers 201 Created (a new record, member list or secret); the others answer 200, or 204 when the
   * operation answers a boolean. The OpenAPI document names that status (a test checks it against `respond`).
   */
  created?: true;
  /** The query parameters the route takes: its OpenAPI operation declares them, and any other is refused (400). */
  query?: readonly QueryParameter[];
  variables(req: ManagementRequest): Record<string, unknown>;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- shape fixed by `operation`
  respond(data: any, req: ManagementRequest): ManagementResponse;
}

/** A query parameter of a Management API route, as its OpenAPI operation declares it. */
export interface QueryParameter {
  name: string;
  description: string;
  /** JSON Schema of the value. */
  schema: Record<string, unknown>;
}

/** Largest page (`limit`); the GraphQL core refuses more. */
export const MAX_LIMIT = 250;

/** The parameters of a paged list: `pagingOf` reads them. */
export const PAGING: readonly QueryParameter[] = [
  { name: 'limit', description: `Page size (1-${MAX_LIMIT}, default 100).`, schema: { type: 'integer', minimum: 1, maximum: MAX_LIMIT } },
  { name: 'cursor', description: "The previous page's `paging_metadata.cursor`.", schema: { type: 'string' } },
];

/** `status` of the invitation lists. */
export const INVITATION_STATUS: QueryParameter = {
  name: 'status',
  description: 'Only invitations in this state.',
  schema: { type: 'string', enum: ['pending', 'accepted', 'expired', 'revoked'] },
};

/** A management list page, as the AAS API pages: `paging_metadata.cursor` only when there is a next page. */
export function managementPage(page: { result: unknown[]; pagingMetadata: { cursor?: string | null } }) {
  const cursor = page.pagingMetadata.cursor;
  return { paging_metadata: cursor ? { cursor } : {}, result: page.result };
}

/** A record without its `etag` field (that goes into the ETag header). */
function withoutEtag(record: unknown): unknown {
  if (record === null || typeof record !== 'object' || !('etag' in record)) return record;
  const { etag: _etag, ...rest } = record as Record<string, unknown>;
  return rest;
}

/** One record: 200 (or `status`) with its ETag header when it has one, and a Location for 201. */
export function recordResponse(record: unknown, options: { status?: number; location?: string } = {}): ManagementResponse {
  const headers: Record<string, string> = {};
  const etag = (record as { etag?: unknown } | null)?.etag;
  if (typeof etag === 'string') headers.ETag = etag;
  if (options.location) headers.Location = options.location;
  return { status: options.status ?? 200, body: withoutEtag(record), headers };
}

/** A page of records, each without its `etag`. */
export function recordPage(page: { result: unknown[]; pagingMetadata: { cursor?: string | null } }) {
  return { status: 200, body: managementPage({ ...page, result: page.result.map(withoutEtag) }) };
}

/** `limit` and `cursor` of a list request, as GraphQL variables (the core checks them). */
export function pagingOf(req: ManagementRequest): { limit?: number; cursor?: string } {
  const vars: { limit?: number; cursor?: string } = {};
  const limit = single(req.query, 'limit');
  if (limit !== undefined) vars.limit = /^\d{1,6}$/.test(limit) ? Number(limit) : -1;
  const cursor = single(req.query, 'cursor');
  if (cursor !== undefined) vars.cursor = cursor;
  return vars;
}

/** The If-Match header, as the `ifMatch` variable. */
export const ifMatchOf = (req: ManagementRequest) => ({ ifMatch: req.header('if-match') ?? null });

export const noContent = (): ManagementResponse => ({ status: 204 });
