import fs from 'node:fs';
import net from 'node:net';
import { parentPort, workerData } from 'node:worker_threads';
import { PGlite } from '@electric-sql/pglite';
import { PGLiteSocketHandler } from '@electric-sql/pglite-socket';
import { SessionQueue } from './session-queue';

/**
 * The embedded PostgreSQL in its own thread: PGlite (PostgreSQL compiled to WebAssembly) runs every statement
 * synchronously on the thread that owns it, so in the server's thread a 50 MB insert would stop every other
 * request for a second or more. Here it serves its unix socket, and the server's thread only speaks the protocol.
 *
 * Connections are served by pglite-socket's protocol handler, but share PGlite's one session through our
 * SessionQueue instead of pglite-socket's own server queue (see there for why).
 */
export interface EmbeddedWorkerData {
  dataDir: string;
  socketPath: string;
  maxConnections: number;
}

export type EmbeddedWorkerMessage = { ready: true } | { error: string } | { stopped: true };

async function serve({ dataDir, socketPath, maxConnections }: EmbeddedWorkerData): Promise<() => Promise<void>> {
  const db = await PGlite.create({ dataDir });
  const queue = new SessionQueue(db);
  const handlers = new Set<PGLiteSocketHandler>();
  const server = net.createServer((socket) => {
    if (handlers.size >= maxConnections) {
      socket.end();
      return;
    }
    const handler = new PGLiteSocketHandler({ queryQueue: queue as never, closeOnDetach: true });
    handlers.add(handler);
    const forget = () => handlers.delete(handler);
    handler.addEventListener('close', forget);
    handler.addEventListener('error', forget);
    handler.attach(socket).catch(() => {
      forget();
      socket.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(socketPath, resolve);
  });
  fs.chmodSync(socketPath, 0o600);
  return async () => {
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    await Promise.all([...handlers].map((h) => h.detach(true)));
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
