import http from 'node:http';
import pg from 'pg';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { TenantEntity } from '../../src/management/tenants/tenant.entity';
import { clientWithRole } from '../support/grants';
import { type ManagementClient } from '../support/management';
import { TestServer, b64, json, sampleShell, startTestServer } from '../support/server';

/**
 * Work that outlives its client, and locks: an import whose client has gone stops and rolls back; what a long
 * import locks does not hold up the tenant's other writes; a wait for a lock that runs out is 503, never 500.
 */
let server: TestServer;
const lines: Record<string, unknown>[] = [];
/** Short, so the tests are: a write that finds its row locked gives up after this long. */
const LOCK_TIMEOUT_MS = 1_000;

beforeAll(async () => {
  const log = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line)) });
  // Push targets on loopback (never called here: no publisher runs).
  server = await startTestServer(inject('databaseUrl'), { dbLockTimeoutMs: LOCK_TIMEOUT_MS, pushPrivateNetworks: true }, log);
});
afterAll(() => server?.close());

/** A transaction of another connection, held open: what a long import (or a long write) holds meanwhile. */
async function holding(statements: [string, unknown[]][]): Promise<{ release(): Promise<void> }> {
  const client = new pg.Client({ connectionString: inject('databaseUrl') });
  await client.connect();
  await client.query('BEGIN');
  for (const [sql, params] of statements) await client.query(sql, params);
  return {
    async release() {
      await client.query('ROLLBACK');
      await client.end();
    },
  };
}

async function tenantWithOwner(): Promise<{ tenant: TenantEntity; owner: ManagementClient }> {
  const tenant = await server.createTenant();
  return { tenant, owner: await clientWithRole(server, tenant.organizationId, 'organization-owner') };
}

// A PostgreSQL server: the embedded database serves one session at a time, so a transaction held open by another
// connection holds up every request there, not only those that need its locks.
describe.skipIf(!process.env.DATABASE_URL)('locks', () => {
  it("a write of the tenant's data in progress (an import) holds up neither a PATCH of the tenant nor a new push target", async () => {
    const { tenant, owner } = await tenantWithOwner();
    // What every insert into a table referring to tenants takes, until its transaction ends: a key-share lock on the
    // tenant's row. An import holds it from its first document to its commit.
    const importing = await holding([['SELECT id FROM tenants WHERE id = $1 FOR KEY SHARE', [tenant.id]]]);
    try {
      const within = { signal: AbortSignal.timeout(20_000) };
      const patched = await owner.call('PATCH', `/organizations/${tenant.organizationId}/tenants/${tenant.id}`, { tag: 'while importing' });
      expect(patched.status).toBe(200);
      const target = await fetch(`${server.url}/tenants/${tenant.name}/sphere/api/v1.0/push-targets`, {
        ...within,
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${owner.token}` },
        body: JSON.stringify({ kind: 'aasx-server', url: 'http://127.0.0.1:9/api/v3.0' }),
      });
      expect(target.status).toBe(201);
    } finally {
      await importing.release();
    }
  });

  it('a write that waits for a lock longer than DB_LOCK_TIMEOUT_MS answers 503 with Retry-After and a Result, and changes nothing', async () => {
    const { tenant } = await tenantWithOwner();
    const api = server.api(tenant.name);
    const id = 'urn:locked:shell';
    expect((await fetch(`${api}/shells`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(sampleShell(id)) })).status).toBe(201);
    const writer = await holding([['SELECT id FROM shells WHERE tenant_id = $1 AND id = $2 FOR UPDATE', [tenant.id, id]]]);
    try {
      const res = await fetch(`${api}/shells/${b64(id)}`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(sampleShell(id, { idShort: 'Changed' })),
        signal: AbortSignal.timeout(20_000),
      });
      expect(res.status).toBe(503);
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
      expect((await json(res)).messages[0].text).toMatch(/Another request is changing the same data/);
    } finally {
      await writer.release();
    }
    expect((await json(fetch(`${api}/shells/${b64(id)}`))).idShort).toBe('Sample');
  });
});

/** A multipart upload of `body` as the part `file`, sent over a raw request that the test can abandon. */
function startUpload(url: string, name: string, body: Buffer): http.ClientRequest {
  const boundary = 'abandoned-upload-boundary';
  const head = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${name}"\r\nContent-Type: application/json\r\n\r\n`);
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const req = http.request(url, { method: 'POST', headers: { 'content-type': `multipart/form-data; boundary=${boundary}`, 'content-length': head.length + body.length + tail.length } });
  req.on('error', () => undefined); // the test destroys it
  req.end(Buffer.concat([head, body, tail]));
  return req;
}

describe('an abandoned import', () => {
  it('stops soon after its client has gone, and rolls back: nothing of it is stored', async () => {
    const tenant = await server.createTenant();
    const api = server.api(tenant.name);
    // Enough shells that the import runs well past the moment its client gives up.
    const shells = Array.from({ length: 20_000 }, (_, i) => sampleShell(`urn:abandoned:${i}`));
    const before = lines.length;
    const upload = startUpload(`${api}/upload`, 'environment.json', Buffer.from(JSON.stringify({ assetAdministrationShells: shells })));
    // The import has begun storing: its documents are read and verified (its log says so).
    const began = Date.now();
    while (!lines.slice(before).some((line) => line.msg === 'import: verified')) {
      if (Date.now() - began > 30_000) throw new Error('the import did not begin');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await new Promise((resolve) => setTimeout(resolve, 300));
    upload.destroy();
    const gone = Date.now();
    // The request ends (its log line) within a few seconds of the client going, not when the import would have.
    const ended = () => lines.find((line) => line.msg === 'request' && String(line.url).startsWith(`/tenants/${tenant.name}/api/v3.0/upload`));
    while (!ended()) {
      if (Date.now() - gone > 10_000) throw new Error('the import went on after its client had gone');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(ended()!.status).toBe(400);
    expect((await json(fetch(`${api}/shells?limit=1`))).result).toEqual([]);
    // Nothing was logged as a server error for it.
    expect(lines.filter((line) => line.level === 50 && String(line.url ?? '').includes(tenant.name))).toEqual([]);
  }, 120_000);
});

describe('a truncated multipart upload', () => {
  it('is answered 400 and logged as the client\'s fault, not as a server error', async () => {
    const tenant = await server.createTenant();
    const before = lines.length;
    const boundary = 'truncated-boundary';
    // The whole body arrives (its length is right), but the form ends in the middle of the file: no closing boundary.
    const body = `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="env.json"\r\nContent-Type: application/json\r\n\r\n{"assetAdministrationShells": [`;
    const res = await fetch(`${server.api(tenant.name)}/upload`, { method: 'POST', headers: { 'content-type': `multipart/form-data; boundary=${boundary}` }, body });
    expect(res.status).toBe(400);
    expect((await json(res)).messages[0].text).toMatch(/multipart body cannot be read|cut off/);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(lines.slice(before).filter((line) => (line.level as number) >= 50)).toEqual([]);
  });
});
