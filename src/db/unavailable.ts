/**
 * Whether an error means the database cannot be reached (down, restarting, refusing connections, the connection
 * cut) rather than a fault of the request or a bug: such requests answer 503 with Retry-After, and the pool
 * reconnects by itself once the database is back.
 */
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ENOTFOUND', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EPIPE', 'EAI_AGAIN', 'ENOENT']);
/** SQLSTATEs: class 08 (connection exception), operator intervention (shutdown, starting up), too many connections. */
const UNAVAILABLE_STATES = /^(08...|57P01|57P02|57P03|53300)$/;
const DRIVER_MESSAGES = /^(Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Connection refused)/;

export function isDatabaseUnavailable(err: unknown): boolean {
  const seen = new Set<unknown>();
  for (let e = err as Record<string, unknown> | undefined; e && typeof e === 'object' && !seen.has(e); ) {
    seen.add(e);
    const code = typeof e.code === 'string' ? e.code : undefined;
    if (code && (NETWORK_CODES.has(code) || UNAVAILABLE_STATES.test(code))) return true;
    if (typeof e.message === 'string' && DRIVER_MESSAGES.test(e.message)) return true;
    // Wrapped by TypeORM (driverError), GraphQL (originalError), or as a cause; an AggregateError (several
    // addresses tried) is unavailable when its first error is.
    const errors = Array.isArray(e.errors) ? (e.errors as unknown[]) : [];
    e = (e.driverError ?? e.originalError ?? e.cause ?? errors[0]) as Record<string, unknown> | undefined;
  }
  return false;
}

/**
 * Whether an error is a wait for a lock that ran out (PostgreSQL's lock_timeout, SQLSTATE 55P03): another request
 * holds the row (an import writing it, a long write). Busy, not broken: 503 with Retry-After, as for a database away.
 */
export function isLockTimeout(err: unknown): boolean {
  const seen = new Set<unknown>();
  for (let e = err as Record<string, unknown> | undefined; e && typeof e === 'object' && !seen.has(e); ) {
    seen.add(e);
    if (e.code === LOCK_NOT_AVAILABLE) return true;
    e = (e.driverError ?? e.originalError ?? e.cause) as Record<string, unknown> | undefined;
  }
  return false;
}

const LOCK_NOT_AVAILABLE = '55P03';

/** SQLSTATEs of a statement that may succeed when run again: serialization failures, deadlocks, cancellations. */
const TRANSIENT_STATES = /^(40001|40P01|57014|55P03)$/;

/**
 * Whether the database refused a statement for a reason that running it again will not change: an error it answered
 * (a SQLSTATE) that is neither the database being away nor a conflict or wait of the moment. Background work that
 * meets one cannot run (a setting of the database forbids what it does, as `citus.multi_task_query_log_level = error`
 * does), and says so as an error, not as a passing warning.
 */
export function isLastingRefusal(err: unknown): boolean {
  if (isDatabaseUnavailable(err)) return false;
  const seen = new Set<unknown>();
  for (let e = err as Record<string, unknown> | undefined; e && typeof e === 'object' && !seen.has(e); ) {
    seen.add(e);
    if (typeof e.code === 'string' && /^[0-9A-Z]{5}$/.test(e.code)) return !TRANSIENT_STATES.test(e.code);
    e = (e.driverError ?? e.originalError ?? e.cause) as Record<string, unknown> | undefined;
  }
  return false;
}
