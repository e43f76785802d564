import fs from 'node:fs';
import net from 'node:net';
import { parentPort, workerData } from 'node:worker_threads';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { EmbeddedConnection } from './embedded-connection';
import { SessionQueue } from './session-queue';

/**
 * The embedded PostgreSQL in its own thread: PGlite (PostgreSQL compiled to WebAssembly) runs every statement
 * synchronously on the thread that owns it, so in the server's thread a 50 MB insert would stop every other
 * request for a second or more. Here it serves its unix socket, and the server's thread only speaks the protocol.
 *
 * Each connection is an EmbeddedConnection (see there), and they share PGlite's one session through our
 * SessionQueue (see there for why not pglite-socket's own server queue).
 */
export interface EmbeddedWorkerData {
  dataDir: string;
  socketPath: string;
  maxConnections: number;
}

export type EmbeddedWorkerMessage = { ready: true } | { error: string } | { stopped: true };

async function serve({ dataDir, socketPath, maxConnections }: EmbeddedWorkerData): Promise<() => Promise<void>> {
  // pg_trgm: the trigram index of the dictionaries' text search (migration SemanticSearchAndClosure).
  const db = await PGlite.create({ dataDir, extensions: { pg_trgm } });
  const queue = new SessionQueue(db);
  const connections = new Set<EmbeddedConnection>();
  let nextId = 0;
  const server = net.createServer((socket) => {
    if (connections.size >= maxConnections) {
      socket.end();
      return;
    }
    const connection: EmbeddedConnection = new EmbeddedConnection(++nextId, socket, queue, () => connections.delete(connection));
    connections.add(connection);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(socketPath, resolve);
  });
  fs.chmodSync(socketPath, 0o600);
  return async () => {
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    await Promise.all([...connections].map((c) => c.close()));
    await closed;
    await db.close();
  };
}

const port = parentPort!;
serve(workerData as EmbeddedWorkerData).then(
  (stop) => {
    port.once('message', () => {
      // The thread then ends by itself, with nothing left to run: terminating it mid-teardown of the WebAssembly
      // instance crashed the process that hosted it.
      void stop().finally(() => {
        port.postMessage({ stopped: true } satisfies EmbeddedWorkerMessage);
        port.close();
      });
    });
    port.postMessage({ ready: true } satisfies EmbeddedWorkerMessage);
  },
  (err: Error) => port.postMessage({ error: err.message } satisfies EmbeddedWorkerMessage),
);
