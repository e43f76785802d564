import { GraphQLError } from 'graphql';
import { isClientGone } from '../common/client-gone';
import { MAX_MESSAGES, clipText } from '../common/result';
import { isDatabaseUnavailable, isLockTimeout } from '../db/unavailable';

/**
 * The error codes the GraphQL core puts in `extensions.code`, and the HTTP status the REST facade maps each to.
 * `extensions.messages` (string[]) carries the individual messages, e.g. one per failed model constraint.
 */
export const ERROR_STATUS = {
  BAD_REQUEST: 400,
  BAD_USER_INPUT: 400,
  /** The answer would exceed the request's read budget (RESPONSE_LIMIT): the client asks for less. */
  RESPONSE_TOO_LARGE: 400,
  GRAPHQL_VALIDATION_FAILED: 400,
  GRAPHQL_PARSE_FAILED: 400,
  UNAUTHENTICATED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  CONFLICT: 409,
  PRECONDITION_FAILED: 412,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  /** No share of expensive work is free for the caller or its tenant (src/common/work-shares.ts); Retry-After says when to retry. */
  TOO_MANY_REQUESTS: 429,
  INTERNAL_SERVER_ERROR: 500,
  NOT_IMPLEMENTED: 501,
  /** The database cannot be reached; the client may retry (Retry-After). */
  SERVICE_UNAVAILABLE: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

/**
 * The code of a GraphQL error as clients see it: its own, or SERVICE_UNAVAILABLE for a resolver that failed
 * because the database cannot be reached (anything else uncoded is an internal error).
 */
export function errorCodeOf(error: GraphQLError): unknown {
  // Work its client abandoned: no fault of the server's, and nobody reads the answer.
  if (isClientGone(error.originalError)) return 'BAD_REQUEST';
  const code = error.extensions?.code;
  if (code !== undefined && code !== 'INTERNAL_SERVER_ERROR') return code;
  return isDatabaseUnavailable(error.originalError) || isLockTimeout(error.originalError) ? 'SERVICE_UNAVAILABLE' : (code ?? 'INTERNAL_SERVER_ERROR');
}

/** What a 503 says: the database is away, or (a lock wait that ran out) what the request would change is busy. */
export function unavailableText(err: unknown): string {
  return isLockTimeout(err) ? RESOURCE_BUSY : DATABASE_UNAVAILABLE;
}

export function statusOfCode(code: unknown): number {
  return typeof code === 'string' && Object.hasOwn(ERROR_STATUS, code) ? ERROR_STATUS[code as ErrorCode] : 500;
}

export class AppError extends GraphQLError {
  constructor(code: ErrorCode, message: string, messages: string[] = [message]) {
    // Messages echo what the client sent (ids, paths, values), which may be megabytes long: they are cut.
    super(clipText(message), { extensions: { code, messages: messages.slice(0, MAX_MESSAGES).map(clipText) } });
  }
}

export const badRequest = (message: string, messages?: string[]) => new AppError('BAD_REQUEST', message, messages);
/** A request Apollo refuses before executing it: the status goes on the HTTP answer, not only in the error. */
export const badGraphqlRequest = (message: string) => new GraphQLError(message, { extensions: { code: 'BAD_REQUEST', http: { status: 400 } } });

/** What a request that finds the database unreachable is told, REST and GraphQL alike. */
export const DATABASE_UNAVAILABLE = 'The database is unavailable; try again shortly.';
/** What a request told whose wait for a lock ran out (DB_LOCK_TIMEOUT_MS): another request is changing the same data. */
export const RESOURCE_BUSY = 'Another request is changing the same data (an import, a long write); try again shortly.';
export const notFound = (message: string) => new AppError('NOT_FOUND', message);
export const conflict = (message: string) => new AppError('CONFLICT', message);
export const unauthenticated = (message: string) => new AppError('UNAUTHENTICATED', message);
export const forbidden = (message: string) => new AppError('FORBIDDEN', message);
export const preconditionFailed = (message: string) => new AppError('PRECONDITION_FAILED', message);
export const methodNotAllowed = (message: string) => new AppError('METHOD_NOT_ALLOWED', message);
export const notImplemented = (message: string) => new AppError('NOT_IMPLEMENTED', message);
