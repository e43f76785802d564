import type { DataSource } from 'typeorm';

/**
 * A secret all replicas of the server share (`server_secrets`, made by its migration): the same bytes on every
 * replica and across restarts, unlike anything a process could make for itself.
 */
export async function serverSecret(dataSource: DataSource, name: string): Promise<Buffer> {
  const [row]: { secret: Buffer }[] = await dataSource.query('SELECT secret FROM server_secrets WHERE name = $1', [name]);
  if (!row) throw new Error(`the server secret '${name}' is missing from server_secrets`);
  return row.secret;
}
