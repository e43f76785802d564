import { currentSession } from './auth';
import { bytesToBase64url } from './base64url';
import { config } from './config';

/**
 * The console's only ways to the server: GraphQL (every read and write, the same operations scripts send) and,
 * for what streams a body (AASX upload, files, exports), the tenant's REST API. Both carry the session's token.
 */
export class ApiError extends Error {
  constructor(
    message: string,
    /** The GraphQL error code (`PRECONDITION_FAILED`, `FORBIDDEN`, ...) or the HTTP status as text. */
    readonly code: string,
    readonly messages: string[] = [message],
  ) {
    super(message);
  }

  /** The ETag did not match: someone changed it meanwhile. */
  get isConflict(): boolean {
    return this.code === 'PRECONDITION_FAILED' || this.code === '412';
  }

  get isUnauthenticated(): boolean {
    return this.code === 'UNAUTHENTICATED' || this.code === '401';
  }
}

/** Called when the server no longer takes the session's token. */
let onUnauthenticated: () => void = () => undefined;
export const whenUnauthenticated = (handler: () => void) => {
  onUnauthenticated = handler;
};

function authorization(): Record<string, string> {
  const session = currentSession();
  return session ? { authorization: `Bearer ${session.accessToken}` } : {};
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- callers name the answer type they expect
export async function gql<T = any>(query: string, variables: Record<string, unknown> = {}): Promise<T> {
  let res: Response;
  try {
    res = await fetch(`${config.base}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json', ...authorization() },
      body: JSON.stringify({ query, variables }),
    });
  } catch {
    throw new ApiError('The server cannot be reached.', 'NETWORK');
  }
  const body = (await res.json().catch(() => null)) as { data?: T; errors?: { message: string; extensions?: { code?: string } }[] } | null;
  if (body?.errors?.length) {
    const code = body.errors[0].extensions?.code ?? String(res.status);
    const error = new ApiError(body.errors[0].message, code, body.errors.map((e) => e.message));
    if (error.isUnauthenticated) onUnauthenticated();
    throw error;
  }
  if (!res.ok || !body?.data) throw new ApiError(`The server answered HTTP ${res.status}.`, String(res.status));
  return body.data;
}

/** A page of a GraphQL list, as every list query answers. */
export interface Paged<T> {
  pagingMetadata: { cursor?: string | null };
  result: T[];
}

/** Every page of a list: `query` takes `$cursor` and selects `pagingMetadata { cursor }` of `field`. */
export async function allPages<T>(query: string, field: string, variables: Record<string, unknown>): Promise<T[]> {
  const rows: T[] = [];
  let cursor: string | null = null;
  do {
    const data: Record<string, Paged<T>> = await gql(query, { ...variables, cursor });
    rows.push(...data[field].result);
    cursor = data[field].pagingMetadata.cursor ?? null;
  } while (cursor);
  return rows;
}

/** `{base}/tenants/{tenant}/api/v3.0{path}`: the tenant's AAS API, path-based (it is always served there too). */
export const tenantApi = (tenant: string, path: string) => `${config.base}/tenants/${encodeURIComponent(tenant)}/api/v3.0${path}`;

/** A REST call; a 4xx/5xx answer's Result messages become an ApiError. */
export async function rest(url: string, init: RequestInit = {}): Promise<Response> {
  let res: Response;
  try {
    res = await fetch(url, { ...init, headers: { ...authorization(), ...(init.headers as Record<string, string> | undefined) } });
  } catch {
    throw new ApiError('The server cannot be reached.', 'NETWORK');
  }
  if (res.ok) return res;
  const body = (await res.json().catch(() => null)) as { messages?: { text?: string }[] } | null;
  const messages = (body?.messages ?? []).map((m) => m.text ?? '').filter(Boolean);
  const error = new ApiError(messages[0] ?? `The server answered HTTP ${res.status}.`, String(res.status), messages.length ? messages : undefined);
  if (error.isUnauthenticated) onUnauthenticated();
  throw error;
}

/** The identifier as the AAS API has it in paths: its UTF-8 bytes base64url-encoded, without padding. */
export const b64url = (id: string): string => bytesToBase64url(new TextEncoder().encode(id));

/** Saves a response body as a download, named as the server says or `fallback`. */
export async function download(res: Response, fallback: string): Promise<void> {
  const blob = await res.blob();
  const disposition = res.headers.get('content-disposition') ?? '';
  const name = /filename="?([^";]+)"?/.exec(disposition)?.[1] ?? fallback;
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
