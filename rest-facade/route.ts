import type { Query } from './params';

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export type Level = 'deep' | 'core';

export interface RouteRequest {
  /** Raw path parameters, as matched. */
  params: Record<string, string>;
  query: Query;
  /** The parsed JSON body, for routes that take one. */
  body: unknown;
  /** Name of the tenant the request is addressed to. */
  tenant: string;
  /** Base URL of the tenant API (`{tenant_url}/api/v3.0`), for Location headers. */
  apiUrl(): string;
  /** A request header, by lower-case name. */
  header(name: string): string | undefined;
}

export interface RouteResponse {
  status: number;
  body?: unknown;
  /** A body that is JSON text already, sent as it is. */
  jsonText?: string;
  headers?: Record<string, string>;
}

/** One REST route: how its path and query become GraphQL variables, and how the data becomes a response. */
export interface RouteSpec {
  method: Method;
  path: string;
  /** The GraphQL document run for this route. */
  operation: string;
  /** Whether the route takes a JSON body: an object or array (`true`), or any JSON value (`'any'`, for `$value`). */
  body?: boolean | 'any';
  /**
   * Whether the body may be a large document (a submodel or a submodel element): BODY_LIMIT; any other body is held
   * to REQUEST_BODY_LIMIT (admission.ts).
   */
  largeBody?: true;
  /**
   * The modifiers the route takes (AAS Part 2): the `level` values it allows and whether it takes `extent`.
   * A modifier the route does not take is a 400, not silently ignored.
   */
  modifiers?: { level?: readonly Level[]; extent?: boolean };
  variables(req: RouteRequest): Record<string, unknown>;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- shape fixed by `operation`
  respond(data: any, req: RouteRequest): RouteResponse;
}

/** The AAS paged result: `paging_metadata.cursor` is present only when there is a next page. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- each route maps the items of its own GraphQL answer
export function pagedResult(page: { result: unknown[]; pagingMetadata: { cursor?: string | null } }, map: (item: any) => unknown) {
  return { paging_metadata: pagingMetadata(page), result: page.result.map(map) };
}

/** The same answer as `pagedResult` for a page whose items are JSON texts already (the `...Json` queries): joined, never parsed. */
export function pagedText(page: { result: string[]; pagingMetadata: { cursor?: string | null } }): string {
  return `{"paging_metadata":${JSON.stringify(pagingMetadata(page))},"result":[${page.result.join(',')}]}`;
}

/** `paging_metadata`: the cursor, absent on the last page. */
const pagingMetadata = (page: { pagingMetadata: { cursor?: string | null } }) => (page.pagingMetadata.cursor ? { cursor: page.pagingMetadata.cursor } : {});

export const json = (item: { json: unknown }) => item.json;

/** The entity tag of what a route returned, as a response header. */
export function etagHeader(item: { etag?: string | null } | null | undefined): Record<string, string> {
  return item?.etag ? { ETag: item.etag } : {};
}
