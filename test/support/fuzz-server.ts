import pino from 'pino';
import { startTestServer } from './server';

/**
 * The server the fuzz test drives, in a process of its own (`node -r @swc-node/register test/support/fuzz-server.ts`):
 * a request that blocks its event loop or crashes it must fail the test, not freeze or kill the test's own process.
 * Environment: FUZZ_DATABASE_URL, FUZZ_BODY_LIMIT (bytes). Prints one JSON line `{ url, tenant, closed }` on stdout
 * when it is ready (`tenant` is a new showcase tenant, `closed` a new tenant that needs a token); logs at `error` level as JSON lines on stderr; stops on SIGTERM.
 */
async function main() {
  const databaseUrl = process.env.FUZZ_DATABASE_URL;
  const bodyLimitBytes = Number(process.env.FUZZ_BODY_LIMIT);
  if (!databaseUrl || !Number.isInteger(bodyLimitBytes)) throw new Error('FUZZ_DATABASE_URL and FUZZ_BODY_LIMIT are required');
  const log = pino({ level: 'error' }, pino.destination(2));
  const server = await startTestServer(databaseUrl, { bodyLimitBytes, logLevel: 'error' }, log);
  const tenant = await server.createTenant({ showcase: true, prefix: 'fuzz' });
  const closed = await server.createTenant({ showcase: false, prefix: 'fuzz-closed' });
  process.once('SIGTERM', () => {
    server.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  });
  process.stdout.write(`${JSON.stringify({ url: server.url, tenant: tenant.name, closed: closed.name })}\n`);
}

main().catch((err: unknown) => {
  process.stderr.write(`fuzz server failed to start: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
