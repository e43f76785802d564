/**
 * The registry of replicas whose read caches listen for the writes of others (`cache_listeners`, migration
 * CacheListeners). A write notifies only while a replica other than its own is registered
 * (`notify_identifiable_changed`), so a server with no other replica sends no notification at all.
 *
 * Joining safely: a write whose statement looked before the registration committed has decided not to notify. The
 * joining replica therefore caches nothing until every transaction that was open when its registration committed has
 * ended (`waitForEarlierWrites`): each of them either wrote before the replica reads, or did not write.
 */

/** A statement on the database, outside any request. */
export type Query = (sql: string, params?: unknown[]) => Promise<unknown[]>;

/** How long the wait goes on before it says in the log what it waits for, and then again at this interval. */
const SLOW_WAIT_MS = 10_000;

/**
 * Registers `replica`, whose LISTEN connection is server process `pid` (again, after a lost connection), and drops the
 * registrations of replicas whose LISTEN connection is gone (`sweep`).
 */
export async function register(query: Query, replica: string, pid: number): Promise<void> {
  await query(
    `INSERT INTO cache_listeners (replica, pid, backend_start)
       SELECT $1, $2, (SELECT backend_start FROM pg_stat_activity WHERE pid = $2)
     ON CONFLICT (replica) DO UPDATE SET pid = EXCLUDED.pid, backend_start = EXCLUDED.backend_start, registered_at = now()`,
    [replica, pid],
  );
  await sweep(query);
}

/**
 * Drops the registrations whose LISTEN connection is no longer there (a replica that ended without deregistering):
 * its server process is gone, or the number now belongs to a process started later. Until then, the others notify
 * for it, which costs time and nothing else.
 */
export async function sweep(query: Query): Promise<void> {
  await query(
    `DELETE FROM cache_listeners c WHERE NOT EXISTS (
       SELECT 1 FROM pg_stat_activity a WHERE a.pid = c.pid AND (a.backend_start IS NULL OR c.backend_start IS NULL OR a.backend_start = c.backend_start))`,
  );
}

/** Whether `replica` is registered with the LISTEN connection `pid`. */
export async function registered(query: Query, replica: string, pid: number): Promise<boolean> {
  return (await query('SELECT 1 FROM cache_listeners WHERE replica = $1 AND pid = $2', [replica, pid])).length > 0;
}

export async function deregister(query: Query, replica: string): Promise<void> {
  await query('DELETE FROM cache_listeners WHERE replica = $1', [replica]);
}

interface Session {
  pid: number;
  /** The transaction's start; null for a session of another role that this one may not see the details of. */
  started: string | null;
}

/**
 * The transactions of this database that hold a snapshot or have written (`backend_xmin`, `backend_xid`), but the
 * asking session's. A statement that took its snapshot before a commit holds it, visibly, until it ends; a
 * transaction that wrote holds its id until it ends.
 */
const OPEN_TRANSACTIONS = `
  SELECT pid, xact_start::text AS started FROM pg_stat_activity
   WHERE datname = current_database() AND backend_type = 'client backend' AND pid <> pg_backend_pid()
     AND (backend_xid IS NOT NULL OR backend_xmin IS NOT NULL)`;

/**
 * Waits until every transaction open now (after the registration's commit) has ended. One of another role, whose
 * start is hidden (replicas connect as one role; docs/scale-out.md), counts as ended once its session holds neither.
 * Gives up, returning false, when `current()` turns false (the LISTEN connection was lost meanwhile).
 */
export async function waitForEarlierWrites(query: Query, current: () => boolean, slow: (open: number) => void): Promise<boolean> {
  let waiting = (await query(OPEN_TRANSACTIONS)) as Session[];
  let said = Date.now();
  let pause = 2;
  while (waiting.length) {
    await new Promise((resolve) => setTimeout(resolve, pause));
    if (!current()) return false;
    pause = Math.min(pause * 2, 200);
    const now = (await query(OPEN_TRANSACTIONS)) as Session[];
    waiting = waiting.filter((old) => now.some((session) => session.pid === old.pid && (old.started === null || session.started === old.started)));
    if (waiting.length && Date.now() - said >= SLOW_WAIT_MS) {
      said = Date.now();
      slow(waiting.length);
    }
  }
  return current();
}
