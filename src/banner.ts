import type { EntryPoint } from './common/entry-points';

/** What a person starting the server in a terminal is told once it listens. */
export interface StartSummary {
  name: string;
  version: string;
  /** The address and port it listens on (`0.0.0.0:8080`). */
  listen: string;
  /** `PUBLIC_URL`: the front door is there. */
  publicUrl: string;
  entryPoints: EntryPoint[];
  /** The embedded database's data directory, or the PostgreSQL server's host (never its credentials). */
  database: { kind: 'embedded'; dataDir: string } | { kind: 'postgres'; host: string };
  /** The first organization's owner: its login, and its one-time password on the first start only. */
  owner: { login: string; oneTimePassword?: string; loginUrl: string };
  /** Whether the tenant `default` is in showcase mode. */
  showcase: boolean;
}

/**
 * The banner printed when stdout is a terminal (the JSON log lines go on as they are; without a terminal there is
 * no banner, only the log's `listening` line). Plain text: it is read, never parsed.
 */
export function renderBanner(s: StartSummary): string {
  const rows: [string, string][] = [
    ['Front door', `${s.publicUrl}/`],
    ...s.entryPoints.map((e): [string, string] => [e.label, e.url]),
    ['Listening on', s.listen],
    ['Database', s.database.kind === 'embedded' ? `embedded PostgreSQL, data in ${s.database.dataDir}` : `PostgreSQL at ${s.database.host}`],
  ];
  const width = Math.max(...rows.map(([label]) => label.length));
  const lines = [
    '',
    `  ${s.name} ${s.version} is running`,
    '',
    ...rows.map(([label, value]) => `  ${label.padEnd(width)}  ${value}`),
    '',
  ];
  if (s.owner.oneTimePassword) {
    lines.push(
      `  First start: log in as ${s.owner.login} with the one-time password ${s.owner.oneTimePassword}`,
      `  at ${s.owner.loginUrl} (you will choose your own). It is shown this once: only its hash is kept.`,
    );
  } else {
    lines.push(`  The owner ${s.owner.login} got a one-time password on the first start: the "oneTimePassword" field of that start's log.`);
  }
  if (s.showcase) {
    lines.push('', '  ! Tenant "default" is in SHOWCASE MODE: its API needs no token, and anyone who can reach this port can', '    read and change its data. Not for production.');
  }
  lines.push('', '  Log lines follow as JSON. Stop with Ctrl+C.', '');
  return `${lines.join('\n')}\n`;
}
