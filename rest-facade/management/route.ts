import type { Query } from '../params';
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
  /** Whether the route takes a JSON object body. */
  body?: boolean;
  /** Whether the route is served without a bearer token (sign-up). */
  anonymous?: boolean;
  variables(req: ManagementRequest): Record<string, unknown>;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- shape fixed by `operation`
  respond(data: any, req: ManagementRequest): ManagementResponse;
}

/** A management list page, as the AAS API pages: `paging_metadata.cursor` only when there is a next page. */
export function managementPage(page: { result: unknown[]; pagingMetadata: { cursor?: string | null } }) {
  const cursor = page.pagingMetadata.cursor;
  return { paging_metadata: cursor ? { cursor } : {}, result: page.result };
}
