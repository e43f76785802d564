import fs from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';

export interface EmbeddedDatabase {
  url: string;
  stop(): Promise<void>;
}

/**
 * Starts the embedded PostgreSQL (PGlite) with its data under `dataDir` and serves it on a loopback port,
 * so the `pg` driver and TypeORM take exactly the same code path as with a real server.
 * PGlite is one session: the socket server multiplexes connections and keeps a transaction on one
 * connection, so `maxConnections` must be at least the pool size.
 */
export async function startEmbeddedDatabase(dataDir: string, maxConnections: number): Promise<EmbeddedDatabase> {
  fs.mkdirSync(dataDir, { recursive: true });
  const db = await PGlite.create({ dataDir });
  const server = new PGLiteSocketServer({ db, host: '127.0.0.1', port: 0, maxConnections });
  await server.start();
  const port = Number(server.getServerConn().split(':').pop());
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    async stop() {
      await server.stop();
      await db.close();
    },
  };
}
