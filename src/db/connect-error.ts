/**
 * A PostgreSQL server the start cannot use for a reason the operator fixes (no such database, wrong credentials,
 * nothing listening): said in one plain line, with what to do, instead of a driver error in the log's `err`.
 */
export class DatabaseUnusableError extends Error {}

/** The one-line explanation of `err`, met connecting to `databaseUrl`, or undefined for any other failure. */
export function explainConnectError(err: unknown, databaseUrl: string): DatabaseUnusableError | undefined {
  let url: URL;
  try {
    url = new URL(databaseUrl);
  } catch {
    return undefined;
  }
  const code = (err as { code?: unknown } | null)?.code;
  const host = url.host || 'the unix socket';
  const user = decodeURIComponent(url.username) || 'postgres';
  const database = decodeURIComponent(url.pathname.replace(/^\//, '')) || user;
  const quoted = `"${database.replace(/"/g, '""')}"`;
  if (code === '3D000') {
    const flags = [url.hostname && `-h ${url.hostname}`, url.port && `-p ${url.port}`, `-U ${user}`].filter(Boolean).join(' ');
    return new DatabaseUnusableError(
      `the database ${quoted} does not exist on the PostgreSQL server at ${host}. Create it (createdb ${flags} ${database}, or in psql: CREATE DATABASE ${quoted};) or point DATABASE_URL at one that exists; see docs/operations.md`,
    );
  }
  if (code === '28P01' || code === '28000') {
    return new DatabaseUnusableError(`the PostgreSQL server at ${host} refused the user "${user}" of DATABASE_URL (${(err as Error).message}); check its user name and password`);
  }
  if (code === 'ECONNREFUSED' || code === 'ENOTFOUND' || code === 'EAI_AGAIN') {
    return new DatabaseUnusableError(`no PostgreSQL server answers at ${host} (${code === 'ECONNREFUSED' ? 'connection refused' : 'unknown host'}): start it, or check the host and port of DATABASE_URL`);
  }
  return undefined;
}
