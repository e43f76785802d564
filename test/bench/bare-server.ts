import http from 'node:http';
import { AddressInfo } from 'node:net';

/**
 * The baseline: a bare Node HTTP server answering every request with the same bytes, from memory.
 * Forked by run.ts with an IPC channel: it receives the response to replay, answers with its port,
 * and stops on SIGTERM.
 */
export interface CannedResponse {
  status: number;
  headers: Record<string, string>;
  /** base64 */
  body: string;
}

process.once('message', (message) => {
  const canned = message as CannedResponse;
  const body = Buffer.from(canned.body, 'base64');
  const headers = { ...canned.headers, 'content-length': String(body.length) };
  const server = http.createServer((_req, res) => {
    res.writeHead(canned.status, headers);
    res.end(body);
  });
  server.listen(0, '127.0.0.1', () => process.send!({ port: (server.address() as AddressInfo).port }));
  process.once('SIGTERM', () => {
    server.close(() => process.exit(0));
    server.closeAllConnections();
  });
});
