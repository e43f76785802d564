import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import JSZip from 'jszip';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { ChangeEvent } from '../../src/events/change-event';
import type { TenantEntity } from '../../src/management/tenants/tenant.entity';
import { LIMITS } from '../../src/push/push-target.service';
import { FreshDatabase, freshDatabase } from '../support/fresh-database';
import { freePort } from '../support/free-port';
import { assignRole, graphql, tenantRoleTokens } from '../support/grants';
import { newServiceAccount } from '../support/identity';
import { TestServer, b64, json, sampleShell, startTestServer, testEvents } from '../support/server';
import { PATIENCE_MS } from '../support/timing';
// s3rver has no type declarations; what is used of it is typed here.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const S3rver = require('s3rver') as new (options: Record<string, unknown>) => { run(): Promise<unknown>; close(): Promise<void> };

/**
 * Push targets (`{tenant_url}/sphere/api/v1.0/push-targets`): registration, listing, reading and deleting them, bad
 * input and access; pushes driven by the outbox (the publisher's hook) to a local S3 server (s3rver) and to another
 * tenant's AASX File Server (`/packages`) on the same server; a target that is down records its error and backlog,
 * and gets its pushes once it is back.
 */

const SECRET = 'very-secret-access-key-0123456789';
const TOKEN = 'bearer-token-that-must-never-be-shown';
const BUCKET = 'push-bucket';

/** A server without a publisher on the run's database (registration), and one that delivers on a database of its own (pushes). */
let server: TestServer;
let database: FreshDatabase;
let pushing: TestServer;
/** The server the helpers below talk to. */
let current: TestServer;
let s3Port: number;
let s3Dir: string;
let s3: { close(): Promise<void> } | undefined;
let client: S3Client;

async function startS3(port: number, dir: string) {
  const instance = new S3rver({ port, address: '127.0.0.1', directory: dir, silent: true, configureBuckets: [{ name: BUCKET }] });
  await instance.run();
  return instance;
}

beforeAll(async () => {
  server = await startTestServer(inject('databaseUrl'), { pushPrivateNetworks: true });
  current = server;
  database = await freshDatabase('push');
  pushing = await startTestServer(database.url, { pushPrivateNetworks: true, events: { ...testEvents, publish: true, pollMs: 100 } });
  s3Port = await freePort();
  s3Dir = fs.mkdtempSync(path.join(os.tmpdir(), 'push-s3-'));
  s3 = await startS3(s3Port, s3Dir);
  client = new S3Client({ endpoint: `http://127.0.0.1:${s3Port}`, region: 'us-east-1', credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' }, forcePathStyle: true });
}, 120_000);
afterAll(async () => {
  client?.destroy();
  await server?.close();
  await pushing?.close();
  await database?.drop();
  await s3?.close();
  if (s3Dir) fs.rmSync(s3Dir, { recursive: true, force: true });
});

const targets = (tenant: string) => `${current.url}/tenants/${tenant}/sphere/api/v1.0/push-targets`;
const as = (token?: string): Record<string, string> => (token ? { authorization: `Bearer ${token}` } : {});
const post = (url: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: typeof body === 'string' ? body : JSON.stringify(body) });

function s3Target(extra: Record<string, unknown> = {}) {
  return {
    kind: 's3',
    endpoint: `http://127.0.0.1:${s3Port}`,
    bucket: BUCKET,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
    ...extra,
  };
}

/** Waits until `check` returns something other than undefined (or throws after `ms`). */
async function until<T>(what: string, check: () => Promise<T | undefined>, ms = PATIENCE_MS): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 150));
  }
}

/**
 * An object's bytes, or undefined when it is absent. s3rver sends the stored size as the length and then streams the
 * object's file, which a PUT rewrites in place: a GET during a PUT is cut short ("aborted") or waits for bytes that
 * never come. Such a read says nothing about the object; it is given up after a while and made again.
 */
async function object(key: string): Promise<Buffer | undefined> {
  for (let attempt = 1; ; attempt++) {
    const abort = new AbortController();
    const timer = setTimeout(() => abort.abort(new Error(`reading ${key} took over 3 s`)), 3_000);
    try {
      const out = await client.send(new GetObjectCommand({ Bucket: BUCKET, Key: key }), { abortSignal: abort.signal });
      const body = out.Body as Readable & { transformToByteArray(): Promise<Uint8Array> };
      abort.signal.addEventListener('abort', () => body.destroy(abort.signal.reason));
      return Buffer.from(await body.transformToByteArray());
    } catch (err) {
      if ((err as { name?: string }).name === 'NoSuchKey') return undefined;
      const { message, code } = err as { message?: string; code?: string };
      const cutShort = abort.signal.aborted || message === 'aborted' || code === 'ECONNRESET';
      if (!cutShort || attempt === 10) throw err;
    } finally {
      clearTimeout(timer);
    }
  }
}

/**
 * An object's JSON, or undefined while it is absent or incomplete: s3rver writes an object into its file in place
 * (a GET during a PUT may read it truncated), where S3 itself shows the old or the new object whole.
 */
async function objectJson(key: string): Promise<any> {
  const bytes = await object(key);
  try {
    return bytes ? JSON.parse(bytes.toString('utf8')) : undefined;
  } catch {
    return undefined;
  }
}

/** An object as a ZIP package, or undefined while it is absent or incomplete (as `objectJson`). */
async function objectZip(key: string): Promise<JSZip | undefined> {
  const bytes = await object(key);
  return bytes ? JSZip.loadAsync(bytes).catch(() => undefined) : undefined;
}

async function putShell(tenant: string, shell: Record<string, unknown>, create: boolean) {
  const url = create ? `${current.api(tenant)}/shells` : `${current.api(tenant)}/shells/${b64(shell.id as string)}`;
  const res = await fetch(url, { method: create ? 'POST' : 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify(shell) });
  expect(res.status, await res.clone().text()).toBe(create ? 201 : 204);
}

const submodelRef = (id: string) => ({ type: 'ModelReference', keys: [{ type: 'Submodel', value: id }] });
const submodel = (id: string, value: string) => ({
  modelType: 'Submodel',
  id,
  idShort: 'Nameplate',
  submodelElements: [{ modelType: 'Property', idShort: 'Serial', valueType: 'xs:string', value }],
});

/** The idShort of the shell in a package of a tenant's AASX File Server. */
async function packagedIdShort(tenant: string, packageId: string): Promise<string | undefined> {
  const res = await fetch(`${current.api(tenant)}/packages/${b64(packageId)}`);
  if (res.status !== 200) return undefined;
  const zip = await JSZip.loadAsync(Buffer.from(await res.arrayBuffer()));
  const spec = Object.keys(zip.files).find((name) => /^aasx\/.*\.json$/.test(name));
  return spec ? JSON.parse(await zip.file(spec)!.async('string')).assetAdministrationShells[0].idShort : undefined;
}

/** The parts of a multipart/form-data body: their header text and their bytes. */
function splitParts(body: Buffer, boundary: string): { head: string; body: Buffer }[] {
  const parts: { head: string; body: Buffer }[] = [];
  const delimiter = Buffer.from(`--${boundary}`);
  let at = body.indexOf(delimiter);
  while (at >= 0) {
    const next = body.indexOf(delimiter, at + delimiter.length);
    if (next < 0) break;
    const part = body.subarray(at + delimiter.length + 2, next - 2);
    const split = part.indexOf('\r\n\r\n');
    parts.push({ head: part.subarray(0, split).toString('utf8'), body: part.subarray(split + 4) });
    at = next;
  }
  return parts;
}

function expectResult(body: { messages?: { code?: unknown; messageType?: unknown; text?: unknown; timestamp?: unknown }[] }) {
  expect(Array.isArray(body.messages) && body.messages.length > 0, JSON.stringify(body)).toBe(true);
  for (const m of body.messages!) {
    expect(m.messageType).toBe('Error');
    expect(typeof m.text).toBe('string');
    expect(typeof m.timestamp).toBe('string');
  }
}

describe('push targets: registration', () => {
  let tenant: TenantEntity;
  beforeAll(async () => {
    tenant = await server.createTenant();
  });

  it('registers, lists (paged), reads and deletes targets; credentials are never answered', async () => {
    const created = await post(targets(tenant.name), s3Target({ name: 'archive', prefix: 'twins/', format: 'json', credentials: { accessKeyId: 'AKID', secretAccessKey: SECRET } }));
    const createdText = await created.text();
    expect(created.status, createdText).toBe(201);
    expect(createdText).not.toContain(SECRET);
    const s3 = JSON.parse(createdText);
    expect(s3).toMatchObject({
      kind: 's3',
      name: 'archive',
      bucket: BUCKET,
      region: 'us-east-1',
      prefix: 'twins/',
      forcePathStyle: true,
      format: 'json',
      credentials: { accessKeyId: 'AKID', secretAccessKeySet: true },
      status: { lastSuccessAt: null, lastError: null, lastErrorAt: null, backlog: 0 },
    });
    expect(created.headers.get('location')).toBe(`${targets(tenant.name)}/${s3.id}`);

    const server2 = await post(targets(tenant.name), { kind: 'aasx-server', url: 'http://127.0.0.1:9/tenants/x/api/v3.0/', token: TOKEN });
    const serverText = await server2.text();
    expect(server2.status, serverText).toBe(201);
    expect(serverText).not.toContain(TOKEN);
    const aasx = JSON.parse(serverText);
    // The trailing slash is dropped: `/packages` is appended to the URL.
    expect(aasx).toMatchObject({ kind: 'aasx-server', url: 'http://127.0.0.1:9/tenants/x/api/v3.0', tokenSet: true });
    expect(aasx).not.toHaveProperty('token');

    const got = await fetch(`${targets(tenant.name)}/${s3.id}`);
    expect(got.status).toBe(200);
    const gotText = await got.text();
    expect(gotText).not.toContain(SECRET);
    expect(JSON.parse(gotText)).toEqual(s3);

    const page1 = await json(fetch(`${targets(tenant.name)}?limit=1`));
    expect(page1.result.map((t: { id: string }) => t.id)).toEqual([s3.id]);
    expect(typeof page1.paging_metadata.cursor).toBe('string');
    const page2 = await json(fetch(`${targets(tenant.name)}?limit=1&cursor=${page1.paging_metadata.cursor}`));
    expect(page2.result.map((t: { id: string }) => t.id)).toEqual([aasx.id]);
    expect(page2.paging_metadata).toEqual({});
    const all = await fetch(targets(tenant.name));
    const allText = await all.text();
    expect(allText).not.toContain(SECRET);
    expect(allText).not.toContain(TOKEN);
    expect(JSON.parse(allText).result).toHaveLength(2);

    // GraphQL has no field that holds a credential; secretSet says whether one is set.
    const gql = await graphql(server, null, `query($t: String!) { pushTargets(tenant: $t) { result { id kind accessKeyId url secretSet backlog lastError } } }`, { t: tenant.name });
    expect(JSON.stringify(gql.body)).not.toContain(SECRET);
    expect(gql.body.data.pushTargets.result).toEqual([
      { id: s3.id, kind: 's3', accessKeyId: 'AKID', url: null, secretSet: true, backlog: 0, lastError: null },
      { id: aasx.id, kind: 'aasx-server', accessKeyId: null, url: 'http://127.0.0.1:9/tenants/x/api/v3.0', secretSet: true, backlog: 0, lastError: null },
    ]);
    const registered = await graphql(server, null, `mutation($t: String!, $in: PushTargetInput!) { registerPushTarget(tenant: $t, target: $in) { id kind secretSet } }`, {
      t: tenant.name,
      in: { kind: 'aasx-server', url: 'http://127.0.0.1:9/api/v3.0' },
    });
    expect(registered.body.data.registerPushTarget).toMatchObject({ kind: 'aasx-server', secretSet: false });
    expect((await graphql(server, null, `mutation($t: String!, $id: String!) { deletePushTarget(tenant: $t, id: $id) }`, { t: tenant.name, id: registered.body.data.registerPushTarget.id })).body.data).toEqual({ deletePushTarget: true });

    // The answers are what the tenant's OpenAPI document says, and the document's limits are the service's.
    const doc = await json(fetch(`${server.api(tenant.name)}/openapi.json`));
    for (const answer of [s3, aasx]) {
      const schema = doc.components.schemas.PushTarget.oneOf.find((o: { title: string }) => o.title === answer.kind);
      for (const key of schema.required) expect(answer).toHaveProperty(key);
      for (const key of Object.keys(answer)) expect(schema.properties, key).toHaveProperty(key);
    }
    const [s3In, aasxIn] = doc.components.schemas.PushTargetInput.oneOf;
    expect(s3In.properties.prefix.maxLength).toBe(LIMITS.prefix);
    expect(s3In.properties.name.maxLength).toBe(LIMITS.name);
    expect(s3In.properties.region.maxLength).toBe(LIMITS.region);
    expect(s3In.properties.credentials.properties.accessKeyId.maxLength).toBe(LIMITS.accessKeyId);
    expect(s3In.properties.credentials.properties.secretAccessKey.maxLength).toBe(LIMITS.secret);
    expect(aasxIn.properties.url.maxLength).toBe(LIMITS.url);
    expect(aasxIn.properties.token.maxLength).toBe(LIMITS.token);

    expect((await fetch(`${targets(tenant.name)}/${s3.id}`, { method: 'DELETE' })).status).toBe(204);
    const gone = await fetch(`${targets(tenant.name)}/${s3.id}`);
    expect(gone.status).toBe(404);
    expectResult(await json(gone));
    expect((await fetch(`${targets(tenant.name)}/${s3.id}`, { method: 'DELETE' })).status).toBe(404);
    expect((await json(fetch(targets(tenant.name)))).result.map((t: { id: string }) => t.id)).toEqual([aasx.id]);
  });

  it('answers bad input with 400 and an AAS Result, an unknown id with 404; nothing is registered', async () => {
    const t = await server.createTenant();
    const bad: [string, unknown][] = [
      ['unknown kind', { kind: 'ftp', url: 'http://127.0.0.1/x' }],
      ['no kind', { url: 'http://127.0.0.1/x' }],
      ['missing bucket', { ...s3Target(), bucket: undefined }],
      ['bad bucket', s3Target({ bucket: 'Not_A_Bucket' })],
      ['missing region', { ...s3Target(), region: undefined }],
      ['missing credentials', { ...s3Target(), credentials: undefined }],
      ['missing secret', s3Target({ credentials: { accessKeyId: 'a' } })],
      ['unknown credential field', s3Target({ credentials: { accessKeyId: 'a', secretAccessKey: 'b', sessionToken: 'c' } })],
      ['bad format', s3Target({ format: 'xml' })],
      ['bad endpoint', s3Target({ endpoint: 'not a url' })],
      ['ftp endpoint', s3Target({ endpoint: 'ftp://127.0.0.1/' })],
      ['prefix with slash', s3Target({ prefix: '/abs' })],
      ['too long prefix', s3Target({ prefix: 'p'.repeat(513) })],
      ['too long name', s3Target({ name: 'n'.repeat(129) })],
      ['too long secret', s3Target({ credentials: { accessKeyId: 'a', secretAccessKey: 's'.repeat(1025) } })],
      ['field of the other kind', s3Target({ url: 'http://127.0.0.1/x' })],
      ['unknown field', s3Target({ colour: 'red' })],
      ['wrong type', s3Target({ forcePathStyle: 'yes' })],
      ['wrong type of kind', { kind: 3 }],
      ['aasx-server without url', { kind: 'aasx-server' }],
      ['bad url', { kind: 'aasx-server', url: 'nope' }],
      ['url with credentials', { kind: 'aasx-server', url: 'http://user:pw@127.0.0.1/x' }],
      ['url with query', { kind: 'aasx-server', url: 'http://127.0.0.1/x?a=1' }],
      ['too long url', { kind: 'aasx-server', url: `http://127.0.0.1/${'u'.repeat(2048)}` }],
      ['token with spaces', { kind: 'aasx-server', url: 'http://127.0.0.1/x', token: 'a b' }],
      ['bucket on aasx-server', { kind: 'aasx-server', url: 'http://127.0.0.1/x', bucket: BUCKET }],
      ['array body', [1]],
      ['empty object', {}],
    ];
    for (const [what, body] of bad) {
      const res = await post(targets(t.name), body);
      const text = await res.text();
      expect(res.status, `${what}: ${text}`).toBe(400);
      expectResult(JSON.parse(text));
      // A refused body's credentials are not echoed either.
      expect(text).not.toContain('s'.repeat(100));
    }
    const notJson = await post(targets(t.name), '{"kind":');
    expect(notJson.status).toBe(400);
    expectResult(await json(notJson));
    expect((await fetch(targets(t.name), { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'x' })).status).toBe(415);
    for (const query of ['limit=0', 'limit=251', 'limit=x', 'cursor=nope', 'color=red']) {
      const res = await fetch(`${targets(t.name)}?${query}`);
      expect(res.status, query).toBe(400);
      expectResult(await json(res));
    }
    for (const id of ['00000000-0000-4000-8000-000000000000', 'not-a-uuid', b64('x')]) {
      const res = await fetch(`${targets(t.name)}/${id}`);
      expect(res.status, id).toBe(404);
      expectResult(await json(res));
      expect((await fetch(`${targets(t.name)}/${id}`, { method: 'DELETE' })).status).toBe(404);
    }
    expect((await json(fetch(targets(t.name)))).result).toEqual([]);
  });

  it('changes settings and credentials with PATCH (token <-> client credentials), keeping the target; secrets are never answered', async () => {
    const t = await server.createTenant();
    const patch = (id: string, body: unknown) => fetch(`${targets(t.name)}/${id}`, { method: 'PATCH', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const created = await json(post(targets(t.name), { kind: 'aasx-server', name: 'sink', url: 'http://127.0.0.1:9/api/v3.0', token: TOKEN }));
    const renamed = await patch(created.id, { url: 'http://127.0.0.1:10/api/v3.0/', name: null });
    expect(renamed.status).toBe(200);
    const afterRename = await json(renamed);
    expect(afterRename).toMatchObject({ id: created.id, kind: 'aasx-server', url: 'http://127.0.0.1:10/api/v3.0', tokenSet: true, createdAt: created.createdAt });
    expect(afterRename).not.toHaveProperty('name');
    // The token stays until something replaces it; client credentials replace it.
    const secret = 'client-secret-that-must-never-be-shown';
    const switched = await patch(created.id, { clientCredentials: { tokenUrl: 'http://127.0.0.1:11/oauth/token', clientId: 'pusher', clientSecret: secret, scope: 'api_access write' } });
    const switchedText = await switched.text();
    expect(switched.status, switchedText).toBe(200);
    expect(switchedText).not.toContain(secret);
    expect(JSON.parse(switchedText)).toMatchObject({
      tokenSet: false,
      clientCredentials: { tokenUrl: 'http://127.0.0.1:11/oauth/token', clientId: 'pusher', scope: 'api_access write', authMethod: 'client_secret_basic', clientSecretSet: true },
    });
    // Client credentials merge field by field: the secret stays.
    const merged = await json(patch(created.id, { clientCredentials: { scope: null, authMethod: 'client_secret_post' } }));
    expect(merged.clientCredentials).toEqual({ tokenUrl: 'http://127.0.0.1:11/oauth/token', clientId: 'pusher', authMethod: 'client_secret_post', clientSecretSet: true });
    const [row] = await server.dataSource.query('SELECT secret FROM push_targets WHERE tenant_id = $1 AND id = $2', [t.id, created.id]);
    expect(row.secret).toBe(secret);
    const read = await fetch(`${targets(t.name)}/${created.id}`);
    const readText = await read.text();
    expect(readText).not.toContain(secret);
    expect(JSON.parse(readText)).toEqual(merged);
    // And back to a static token.
    const back = await json(patch(created.id, { token: 'another-token' }));
    expect(back).toMatchObject({ tokenSet: true });
    expect(back).not.toHaveProperty('clientCredentials');
    // GraphQL: the same change, the same rules.
    const gql = await graphql(server, null, `mutation($t: String!, $id: String!, $in: PushTargetInput!) { updatePushTarget(tenant: $t, id: $id, target: $in) { id tokenUrl clientId scope authMethod secretSet } }`, {
      t: t.name,
      id: created.id,
      in: { clientCredentials: { tokenUrl: 'http://127.0.0.1:11/token', clientId: 'c', clientSecret: 's' } },
    });
    expect(gql.body.data.updatePushTarget).toEqual({ id: created.id, tokenUrl: 'http://127.0.0.1:11/token', clientId: 'c', scope: null, authMethod: 'client_secret_basic', secretSet: true });
    // An S3 target: settings and the secret access key alone.
    const bucket = await json(post(targets(t.name), s3Target()));
    const moved = await json(patch(bucket.id, { prefix: 'moved/', credentials: { secretAccessKey: 'new-secret-key' } }));
    expect(moved).toMatchObject({ prefix: 'moved/', credentials: { accessKeyId: 'S3RVER', secretAccessKeySet: true }, bucket: BUCKET });
    expect((await server.dataSource.query('SELECT secret FROM push_targets WHERE tenant_id = $1 AND id = $2', [t.id, bucket.id]))[0].secret).toBe('new-secret-key');
  });

  it('answers bad PATCH bodies with 400 and an AAS Result, and changes nothing', async () => {
    const t = await server.createTenant();
    const created = await json(post(targets(t.name), { kind: 'aasx-server', url: 'http://127.0.0.1:9/api/v3.0', token: TOKEN }));
    const bucket = await json(post(targets(t.name), s3Target()));
    const cc = { tokenUrl: 'http://127.0.0.1:11/token', clientId: 'c', clientSecret: 's' };
    const bad: [string, string, unknown][] = [
      ['array body', created.id, [1]],
      ['string body', created.id, 'x'],
      ['null body', created.id, null],
      ['unknown field', created.id, { colour: 'red' }],
      ['kind change', created.id, { kind: 's3' }],
      ['unknown kind', created.id, { kind: 'ftp' }],
      ['field of the other kind', created.id, { bucket: BUCKET }],
      ['wrong type', created.id, { url: 7 }],
      ['url removed', created.id, { url: null }],
      ['bad url', created.id, { url: 'nope' }],
      ['token and client credentials', created.id, { token: 'a', clientCredentials: cc }],
      ['client credentials without their secret', created.id, { clientCredentials: { tokenUrl: cc.tokenUrl, clientId: 'c' } }],
      ['client credentials without token url', created.id, { clientCredentials: { clientId: 'c', clientSecret: 's' } }],
      ['bad token url', created.id, { clientCredentials: { ...cc, tokenUrl: 'not a url' } }],
      ['token url with query', created.id, { clientCredentials: { ...cc, tokenUrl: 'http://127.0.0.1:11/token?x=1' } }],
      ['token url with credentials', created.id, { clientCredentials: { ...cc, tokenUrl: 'http://a:b@127.0.0.1:11/token' } }],
      ['unknown auth method', created.id, { clientCredentials: { ...cc, authMethod: 'private_key_jwt' } }],
      ['bad scope', created.id, { clientCredentials: { ...cc, scope: 'a  "b"' } }],
      ['unknown client credential field', created.id, { clientCredentials: { ...cc, audience: 'x' } }],
      ['client credentials not an object', created.id, { clientCredentials: 'x' }],
      ['too long client id', created.id, { clientCredentials: { ...cc, clientId: 'c'.repeat(257) } }],
      ['client credentials on s3', bucket.id, { clientCredentials: cc }],
      ['bucket removed', bucket.id, { bucket: null }],
      ['secret removed', bucket.id, { credentials: { secretAccessKey: null } }],
      ['bad region', bucket.id, { region: 'a b' }],
    ];
    for (const [what, id, body] of bad) {
      const res = await fetch(`${targets(t.name)}/${id}`, { method: 'PATCH', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      const text = await res.text();
      expect(res.status, `${what}: ${text}`).toBe(400);
      expectResult(JSON.parse(text));
    }
    expect((await fetch(`${targets(t.name)}/${created.id}`, { method: 'PATCH', headers: { 'content-type': 'application/json' }, body: '{"url":' })).status).toBe(400);
    expect((await fetch(`${targets(t.name)}/${created.id}`, { method: 'PATCH', headers: { 'content-type': 'text/plain' }, body: 'x' })).status).toBe(415);
    for (const id of ['00000000-0000-4000-8000-000000000000', 'not-a-uuid']) {
      const res = await fetch(`${targets(t.name)}/${id}`, { method: 'PATCH', headers: { 'content-type': 'application/json' }, body: '{"name":"x"}' });
      expect(res.status, id).toBe(404);
      expectResult(await json(res));
    }
    expect(await json(fetch(`${targets(t.name)}/${created.id}`))).toEqual(created);
    expect(await json(fetch(`${targets(t.name)}/${bucket.id}`))).toEqual(bucket);
  });

  it('refuses private and plain-http targets unless PUSH_PRIVATE_NETWORKS allows them', async () => {
    const strict = await startTestServer(inject('databaseUrl'));
    try {
      const t = await strict.createTenant();
      const url = `${strict.url}/tenants/${t.name}/sphere/api/v1.0/push-targets`;
      // The token URL passes the same rules as the target's URL.
      const privateTokenUrl = { kind: 'aasx-server', url: 'https://93.184.215.14/api/v3.0', clientCredentials: { tokenUrl: 'https://169.254.169.254/token', clientId: 'c', clientSecret: 's' } };
      const refused = await post(url, privateTokenUrl);
      expect(refused.status).toBe(400);
      expect(JSON.stringify(await json(refused))).toContain('clientCredentials.tokenUrl');
      for (const body of [
        { kind: 'aasx-server', url: 'http://127.0.0.1/x' },
        { kind: 'aasx-server', url: 'https://127.0.0.1/x' },
        s3Target({ endpoint: 'https://169.254.169.254/' }),
        // IPv6 forms that embed a loopback, private or link-local IPv4 address, and IPv6 ranges of their own
        { kind: 'aasx-server', url: 'https://[::127.0.0.1]/x' },
        { kind: 'aasx-server', url: 'https://[2002:7f00:1::]/x' },
        { kind: 'aasx-server', url: 'https://[64:ff9b::a00:1]/x' },
        { kind: 'aasx-server', url: 'https://[2001:0:808:808::80ff:fffe]/x' },
        s3Target({ endpoint: 'https://[::ffff:169.254.169.254]/' }),
        s3Target({ endpoint: 'https://[2002:a9fe:a9fe::]/' }),
        s3Target({ endpoint: 'https://[fd00:ec2::254]/' }),
        privateTokenUrl,
      ]) {
        const res = await post(url, body);
        expect(res.status, JSON.stringify(body)).toBe(400);
        const result = await json(res);
        expectResult(result);
        expect(result.messages[0].text, JSON.stringify(body)).toMatch(/PUSH_PRIVATE_NETWORKS=true allows/);
      }
      expect((await json(fetch(url))).result).toEqual([]);
    } finally {
      await strict.close();
    }
  });

  it('lets readers list and read, contributors register and delete, and nobody else in', async () => {
    const { tenant: t, reader, contributor, elsewhere, stranger } = await tenantRoleTokens(server);

    expect((await post(targets(t.name), s3Target())).status).toBe(401);
    const refused = await post(targets(t.name), s3Target(), as(reader));
    expect(refused.status).toBe(403);
    expectResult(await json(refused));
    expect((await post(targets(t.name), s3Target(), as(stranger))).status).toBe(404);

    const created = await post(targets(t.name), s3Target(), as(contributor));
    expect(created.status).toBe(201);
    const { id } = await json(created);
    expect((await fetch(targets(t.name), { headers: as(reader) })).status).toBe(200);
    expect((await fetch(`${targets(t.name)}/${id}`, { headers: as(reader) })).status).toBe(200);
    expect((await fetch(`${targets(t.name)}/${id}`, { method: 'DELETE', headers: as(reader) })).status).toBe(403);
    const patchAs = (token: string) => fetch(`${targets(t.name)}/${id}`, { method: 'PATCH', headers: { 'content-type': 'application/json', ...as(token) }, body: '{"name":"x"}' });
    expect((await patchAs(reader)).status).toBe(403);
    expect((await patchAs(stranger)).status).toBe(404);
    expect((await patchAs(contributor)).status).toBe(200);
    expect((await fetch(targets(t.name), { headers: as(stranger) })).status).toBe(404);
    expect((await fetch(`${targets(t.name)}/${id}`, { headers: as(stranger) })).status).toBe(404);
    // Another tenant's target is not found through one's own tenant either.
    expect((await fetch(`${targets(elsewhere.name)}/${id}`, { headers: as(stranger) })).status).toBe(404);
    expect((await fetch(`${targets(elsewhere.name)}/${id}`, { method: 'DELETE', headers: as(stranger) })).status).toBe(404);
    expect((await fetch(`${targets(t.name)}/${id}`, { method: 'DELETE', headers: as(contributor) })).status).toBe(204);
  });
});

describe('push targets: pushes', () => {
  beforeAll(() => {
    current = pushing;
  });
  afterAll(() => {
    current = server;
  });

  it('writes the AASX and the JSON of a changed shell to S3, replaces them on updates (of its submodels too), removes them on deletion', async () => {
    const t = await pushing.createTenant({ eventsEnabled: true });
    const aasx = await json(post(targets(t.name), s3Target({ prefix: `${t.name}/aasx/` })));
    const jsonTarget = await json(post(targets(t.name), s3Target({ prefix: `${t.name}/json/`, format: 'json' })));
    const id = `urn:push:${t.name}:shell`;
    const smId = `urn:push:${t.name}:sm`;
    const create = await fetch(`${pushing.api(t.name)}/submodels`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(submodel(smId, 'S-1')) });
    expect(create.status).toBe(201);
    await putShell(t.name, sampleShell(id, { idShort: 'First', submodels: [submodelRef(smId)] }), true);

    const jsonKey = `${t.name}/json/${b64(id)}.json`;
    const aasxKey = `${t.name}/aasx/${b64(id)}.aasx`;
    const env = await until('the JSON object', () => objectJson(jsonKey));
    expect(env.assetAdministrationShells.map((s: { id: string; idShort: string }) => [s.id, s.idShort])).toEqual([[id, 'First']]);
    expect(env.submodels[0].submodelElements[0].value).toBe('S-1');
    const zip = await until('the AASX object', () => objectZip(aasxKey));
    const spec = Object.keys(zip.files).find((name) => /^aasx\/.*\.json$/.test(name) && !name.includes('_rels'));
    expect(spec, Object.keys(zip.files).join(', ')).toBeDefined();
    expect(JSON.parse(await zip.file(spec!)!.async('string')).assetAdministrationShells[0].id).toBe(id);

    await putShell(t.name, sampleShell(id, { idShort: 'Second', submodels: [submodelRef(smId)] }), false);
    await until('the updated shell', async () => {
      return (await objectJson(jsonKey))?.assetAdministrationShells[0].idShort === 'Second' ? true : undefined;
    });
    // A submodel change pushes the shells that reference it.
    const sm = await fetch(`${pushing.api(t.name)}/submodels/${b64(smId)}`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify(submodel(smId, 'S-2')) });
    expect(sm.status).toBe(204);
    await until('the updated submodel', async () => {
      return (await objectJson(jsonKey))?.submodels[0].submodelElements[0].value === 'S-2' ? true : undefined;
    });

    const state = await json(fetch(`${targets(t.name)}/${jsonTarget.id}`));
    expect(state.status.lastSuccessAt).not.toBeNull();
    expect(state.status.lastError).toBeNull();

    expect((await fetch(`${pushing.api(t.name)}/shells/${b64(id)}`, { method: 'DELETE' })).status).toBe(204);
    await until('the JSON object removed', async () => ((await object(jsonKey)) === undefined ? true : undefined));
    await until('the AASX object removed', async () => ((await object(aasxKey)) === undefined ? true : undefined));
    await until('an empty backlog', async () => ((await json(fetch(`${targets(t.name)}/${aasx.id}`))).status.backlog === 0 ? true : undefined));
  });

  it("posts a changed shell as a package to another tenant's AASX File Server, replaces it after, deletes it with the shell", async () => {
    const source = await pushing.createTenant({ eventsEnabled: true });
    const sink = await pushing.createTenant();
    const target = await json(post(targets(source.name), { kind: 'aasx-server', url: pushing.api(sink.name), token: TOKEN }));
    expect(target.tokenSet).toBe(true);
    const id = `urn:push:${source.name}:packaged`;
    await putShell(source.name, sampleShell(id, { idShort: 'Packed' }), true);

    const listed = await until('the package', async () => {
      const page = await json(fetch(`${pushing.api(sink.name)}/packages`));
      return page.result.length ? page.result : undefined;
    });
    expect(listed).toHaveLength(1);
    expect(listed[0].aasIds).toEqual([id]);
    const packageId = listed[0].packageId;
    expect(await packagedIdShort(sink.name, packageId)).toBe('Packed');

    await putShell(source.name, sampleShell(id, { idShort: 'Repacked' }), false);
    await until('the replaced package', async () => ((await packagedIdShort(sink.name, packageId)) === 'Repacked' ? true : undefined));
    // Replaced, not posted again.
    const after = await json(fetch(`${pushing.api(sink.name)}/packages`));
    expect(after.result.map((p: { packageId: string }) => p.packageId)).toEqual([packageId]);

    expect((await fetch(`${pushing.api(source.name)}/shells/${b64(id)}`, { method: 'DELETE' })).status).toBe(204);
    await until('the package deleted', async () => ((await json(fetch(`${pushing.api(sink.name)}/packages`))).result.length === 0 ? true : undefined));
    // The push is done once the worker recorded it (after the sink answered the deletion).
    const state = await until('an empty backlog', async () => {
      const answer = await json(fetch(`${targets(source.name)}/${target.id}`));
      return answer.status.backlog === 0 ? answer : undefined;
    });
    expect(state.status).toMatchObject({ lastError: null, backlog: 0 });
    expect(state.status.lastSuccessAt).not.toBeNull();
  });

  it('pushes a shell again when it changed while its push was under way, with the bearer token, as multipart', async () => {
    // A fake AASX File Server that holds the first POST until told to answer, and records what it receives.
    const received: { method: string; url: string; authorization?: string; idShort?: string; fields: Record<string, string> }[] = [];
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let posted!: () => void;
    const firstPost = new Promise<void>((resolve) => (posted = resolve));
    const fake = http.createServer(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const body = Buffer.concat(chunks);
      const boundary = /boundary=(.+)$/.exec(req.headers['content-type'] ?? '')?.[1];
      const fields: Record<string, string> = {};
      let idShort: string | undefined;
      if (boundary) {
        for (const part of splitParts(body, boundary)) {
          const name = /name="([^"]+)"/.exec(part.head)?.[1] ?? '';
          if (name === 'file') {
            const zip = await JSZip.loadAsync(part.body);
            const spec = Object.keys(zip.files).find((n) => /^aasx\/.*\.json$/.test(n));
            idShort = JSON.parse(await zip.file(spec!)!.async('string')).assetAdministrationShells[0].idShort;
          } else fields[name] = part.body.toString('utf8');
        }
      }
      received.push({ method: req.method!, url: req.url!, authorization: req.headers.authorization, idShort, fields });
      if (req.method === 'POST') {
        posted();
        await held;
        res.writeHead(201, { 'content-type': 'application/json' }).end(JSON.stringify({ packageId: 'p-1', aasIds: [fields.aasIds] }));
      } else res.writeHead(204).end();
    });
    await new Promise<void>((resolve) => fake.listen(0, '127.0.0.1', resolve));
    try {
      const t = await pushing.createTenant({ eventsEnabled: true });
      const port = (fake.address() as { port: number }).port;
      await json(post(targets(t.name), { kind: 'aasx-server', url: `http://127.0.0.1:${port}/api/v3.0`, token: TOKEN }));
      const id = `urn:push:${t.name}:raced`;
      await putShell(t.name, sampleShell(id, { idShort: 'Before' }), true);
      await firstPost;
      // Changed while the POST is held: queued again (the job's generation moves on), not lost.
      await putShell(t.name, sampleShell(id, { idShort: 'After' }), false);
      await until('the change queued', async () => {
        const [row] = await pushing.dataSource.query('SELECT generation FROM push_jobs WHERE tenant_id = $1', [t.id]);
        return row?.generation > 0 ? true : undefined;
      });
      release();
      await until('the PUT of the later state', async () => (received.some((r) => r.method === 'PUT' && r.idShort === 'After') ? true : undefined));
      expect(received[0]).toMatchObject({ method: 'POST', url: '/api/v3.0/packages', authorization: `Bearer ${TOKEN}`, idShort: 'Before' });
      expect(received[0].fields.aasIds).toBe(id);
      expect(received[0].fields.fileName).toMatch(/\.aasx$/);
      const put = received.find((r) => r.method === 'PUT')!;
      expect(put).toMatchObject({ url: `/api/v3.0/packages/${b64('p-1')}`, authorization: `Bearer ${TOKEN}` });
      await until('an empty queue', async () => ((await pushing.dataSource.query('SELECT 1 FROM push_jobs WHERE tenant_id = $1', [t.id])).length === 0 ? true : undefined));
    } finally {
      release();
      await new Promise((resolve) => fake.close(resolve));
    }
  });

  it('pushes for a tenant without change events, which still publishes no events', async () => {
    const t = await pushing.createTenant({ eventsEnabled: false });
    const seen: string[] = [];
    const unsubscribe = pushing.services.changes.subscribe((event) => {
      if (event.tenantId === t.id) seen.push(event.seq);
    });
    try {
      await json(post(targets(t.name), s3Target({ prefix: `${t.name}/`, format: 'json' })));
      const id = `urn:push:${t.name}:quiet`;
      await putShell(t.name, sampleShell(id, { idShort: 'Quiet' }), true);
      const env = await until('the JSON object', () => objectJson(`${t.name}/${b64(id)}.json`));
      expect(env.assetAdministrationShells[0].idShort).toBe('Quiet');
      // What the outbox holds for it is no change event, and carries no state.
      const rows = await pushing.dataSource.query('SELECT events, payload FROM outbox WHERE tenant_id = $1', [t.id]);
      expect(rows).toEqual([{ events: false, payload: null }]);
      await until('the row delivered', async () => ((await pushing.dataSource.query('SELECT 1 FROM outbox WHERE tenant_id = $1 AND published_at IS NULL', [t.id])).length === 0 ? true : undefined));
      expect(seen).toEqual([]);
    } finally {
      unsubscribe();
    }
    // A tenant with neither change events nor push targets writes nothing to the outbox.
    const bare = await pushing.createTenant();
    await putShell(bare.name, sampleShell(`urn:push:${bare.name}:bare`), true);
    expect(await pushing.dataSource.query('SELECT 1 FROM outbox WHERE tenant_id = $1', [bare.id])).toEqual([]);
  });

  it("pushes with OAuth 2.0 client credentials of this server's own identity service (a service account of the sink's organization)", async () => {
    const source = await pushing.createTenant();
    const sink = await pushing.createTenant({ showcase: false });
    const account = await newServiceAccount(pushing, sink.organizationId);
    await assignRole(pushing, sink.organizationId, { type: 'service-account', id: account.id }, 'contributor', sink.id);
    const target = await json(
      post(targets(source.name), {
        kind: 'aasx-server',
        url: pushing.api(sink.name),
        clientCredentials: { tokenUrl: `${pushing.url}/oidc/token`, clientId: account.id, clientSecret: account.secret, scope: 'api_access' },
      }),
    );
    expect(target.clientCredentials).toMatchObject({ clientId: account.id, clientSecretSet: true });
    // Without a token the sink refuses.
    expect((await fetch(`${pushing.api(sink.name)}/packages`)).status).toBe(401);
    const id = `urn:push:${source.name}:oauth`;
    await putShell(source.name, sampleShell(id, { idShort: 'Authorized' }), true);
    const token = await account.token();
    const listed = await until('the package', async () => {
      const page = await json(fetch(`${pushing.api(sink.name)}/packages`, { headers: as(token) }));
      return page.result?.length ? page.result : undefined;
    });
    expect(listed[0].aasIds).toEqual([id]);
    // Recorded by the worker once the sink answered.
    const state = await until('an empty backlog', async () => {
      const answer = await json(fetch(`${targets(source.name)}/${target.id}`));
      return answer.status.backlog === 0 ? answer : undefined;
    });
    expect(state.status).toMatchObject({ lastError: null, backlog: 0 });
  });

  it('fetches a client-credentials token once, keeps it, renews it on expiry, after a 401 (once) and when the credentials change', async () => {
    // A token endpoint that counts what it is asked, and an AASX File Server that takes only the tokens it is told to.
    const fetches: { authorization?: string; form: URLSearchParams }[] = [];
    let expiresIn = 3600;
    let refuseClient = false;
    const tokenServer = http.createServer(async (req, res) => {
      let body = '';
      for await (const chunk of req) body += chunk;
      fetches.push({ authorization: req.headers.authorization, form: new URLSearchParams(body) });
      if (refuseClient) return void res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"invalid_client"}');
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ access_token: `tok-${fetches.length}`, token_type: 'Bearer', expires_in: expiresIn }));
    });
    const accepted = new Set<string>();
    const calls: { method: string; url: string; token?: string; status: number }[] = [];
    const sink = http.createServer(async (req, res) => {
      for await (const _ of req);
      const token = req.headers.authorization?.replace(/^Bearer /, '');
      const status = token && accepted.has(token) ? (req.method === 'POST' ? 201 : 204) : 401;
      calls.push({ method: req.method!, url: req.url!, token, status });
      if (status === 201) res.writeHead(201, { 'content-type': 'application/json' }).end(JSON.stringify({ packageId: 'p-1' }));
      else res.writeHead(status).end();
    });
    await Promise.all([tokenServer, sink].map((srv) => new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve))));
    const portOf = (srv: http.Server) => (srv.address() as { port: number }).port;
    try {
      const t = await pushing.createTenant();
      const clientSecret = 'a secret:with/odd+chars';
      const target = await json(
        post(targets(t.name), {
          kind: 'aasx-server',
          url: `http://127.0.0.1:${portOf(sink)}/api/v3.0`,
          clientCredentials: { tokenUrl: `http://127.0.0.1:${portOf(tokenServer)}/token`, clientId: 'pusher id', clientSecret, scope: 'aas:write' },
        }),
      );
      const id = `urn:push:${t.name}:cc`;
      let version = 0;
      /** Changes the shell and waits for the push to succeed. */
      const change = async () => {
        const before = calls.filter((c) => c.status < 300).length;
        await putShell(t.name, sampleShell(id, { idShort: `V${++version}` }), version === 1);
        await until('the push', async () => (calls.filter((c) => c.status < 300).length > before ? true : undefined));
      };
      accepted.add('tok-1');
      await change();
      await change();
      await change();
      // One fetch for three pushes: client_secret_basic (RFC 6749 2.3.1: id and secret form-encoded), the scope asked for.
      expect(fetches).toHaveLength(1);
      expect(fetches[0].form.get('grant_type')).toBe('client_credentials');
      expect(fetches[0].form.get('scope')).toBe('aas:write');
      expect(fetches[0].form.has('client_secret')).toBe(false);
      const basic = Buffer.from(fetches[0].authorization!.replace(/^Basic /, ''), 'base64').toString('utf8');
      expect(basic).toBe(`${new URLSearchParams({ a: 'pusher id' }).toString().slice(2)}:${new URLSearchParams({ a: clientSecret }).toString().slice(2)}`);
      expect(calls.map((c) => [c.method, c.token, c.status])).toEqual([['POST', 'tok-1', 201], ['PUT', 'tok-1', 204], ['PUT', 'tok-1', 204]]);

      // The target stops taking the token: one 401, a new token, the same request again.
      accepted.clear();
      accepted.add('tok-2');
      await change();
      expect(fetches).toHaveLength(2);
      expect(calls.slice(3).map((c) => [c.method, c.token, c.status])).toEqual([['PUT', 'tok-1', 401], ['PUT', 'tok-2', 204]]);

      // Changed credentials: the cached token is not used; client_secret_post puts them in the form. A short-lived token next.
      expiresIn = 1;
      accepted.add('tok-3');
      accepted.add('tok-4');
      const patched = await fetch(`${targets(t.name)}/${target.id}`, { method: 'PATCH', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ clientCredentials: { authMethod: 'client_secret_post' } }) });
      expect(patched.status).toBe(200);
      await change();
      expect(fetches).toHaveLength(3);
      expect(fetches[2].authorization).toBeUndefined();
      expect([fetches[2].form.get('client_id'), fetches[2].form.get('client_secret')]).toEqual(['pusher id', clientSecret]);
      // The package id was kept through the change of credentials.
      expect(calls.at(-1)).toMatchObject({ method: 'PUT', url: `/api/v3.0/packages/${b64('p-1')}`, token: 'tok-3' });
      // tok-3 lives 1 s and is renewed a tenth of that before: once it is over, the next push fetches anew.
      await new Promise((resolve) => setTimeout(resolve, 1_200));
      await change();
      expect(fetches).toHaveLength(4);
      expect(calls.at(-1)).toMatchObject({ token: 'tok-4', status: 204 });

      // A token endpoint that refuses the client: the push fails with why (never the secret), and waits for its retry.
      refuseClient = true;
      expiresIn = 3600;
      await new Promise((resolve) => setTimeout(resolve, 1_200));
      await putShell(t.name, sampleShell(id, { idShort: 'Refused' }), false);
      const failing = await until('the recorded error', async () => {
        const state = await json(fetch(`${targets(t.name)}/${target.id}`));
        return state.status.lastError ? state : undefined;
      });
      expect(failing.status.lastError).toContain('the token endpoint answered 401: invalid_client');
      expect(failing.status.lastError).not.toContain(clientSecret);
      expect(failing.status.backlog).toBe(1);
    } finally {
      await Promise.all([tokenServer, sink].map((srv) => new Promise((resolve) => srv.close(resolve))));
    }
  });

  it('records the error and backlog of a target that is down, and delivers once it is back', async () => {
    const t = await pushing.createTenant({ eventsEnabled: true });
    const port = await freePort();
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'push-s3-down-'));
    const down = await json(post(targets(t.name), s3Target({ endpoint: `http://127.0.0.1:${port}`, prefix: 'later/' })));
    const id = `urn:push:${t.name}:retried`;
    await putShell(t.name, sampleShell(id), true);
    const failing = await until('a recorded error', async () => {
      const state = await json(fetch(`${targets(t.name)}/${down.id}`));
      return state.status.lastError ? state : undefined;
    });
    expect(failing.status.backlog).toBe(1);
    expect(failing.status.lastSuccessAt).toBeNull();
    expect(typeof failing.status.lastErrorAt).toBe('string');
    const gql = await graphql(pushing, null, `query($t: String!, $id: String!) { pushTarget(tenant: $t, id: $id) { backlog lastError lastErrorAt lastSuccessAt } }`, { t: t.name, id: down.id });
    expect(gql.body.data.pushTarget).toMatchObject({ backlog: 1, lastSuccessAt: null });
    expect(gql.body.data.pushTarget.lastError).toBeTruthy();

    const back = await startS3(port, dir);
    const backClient = new S3Client({ endpoint: `http://127.0.0.1:${port}`, region: 'us-east-1', credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' }, forcePathStyle: true });
    try {
      const delivered = await until(
        'the retried push',
        async () => {
          const state = await json(fetch(`${targets(t.name)}/${down.id}`));
          return state.status.lastSuccessAt && state.status.backlog === 0 ? state : undefined;
        },
        30_000,
      );
      expect(delivered.status.lastError).toBeTruthy(); // kept: when it last failed, and why
      const out = await backClient.send(new GetObjectCommand({ Bucket: BUCKET, Key: `later/${b64(id)}.aasx` }));
      expect((await out.Body!.transformToByteArray()).length).toBeGreaterThan(0);
    } finally {
      backClient.destroy();
      await back.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});

/** The publisher's hook, called directly on the server without a publisher (nothing takes the jobs there). */
describe('push targets: queueing', () => {
  it('queues one job per target and shell: shells through their submodels, none for concept descriptions', async () => {
    const t = await server.createTenant();
    // A target nothing listens at: its jobs stay queued (and back off), so they can be counted.
    const port = await freePort();
    const target = await json(post(targets(t.name), s3Target({ endpoint: `http://127.0.0.1:${port}` })));
    const smId = `urn:push:${t.name}:shared-sm`;
    for (const n of [1, 2]) await putShell(t.name, sampleShell(`urn:push:${t.name}:s${n}`, { submodels: [submodelRef(smId)] }), true);
    await putShell(t.name, sampleShell(`urn:push:${t.name}:other`), true);
    const event = (entityType: ChangeEvent['entityType'], entityId: string, seq: string): ChangeEvent => ({
      seq,
      tenantId: t.id,
      tenantName: t.name,
      kind: 'updated',
      entityType,
      entityId,
      version: 1,
      time: new Date(),
      state: null,
    });
    await server.dataSource.transaction((manager) =>
      server.services.pushTargets.enqueue(manager, [
        event('Submodel', smId, '1'),
        event('AssetAdministrationShell', `urn:push:${t.name}:s1`, '2'),
        event('AssetAdministrationShell', `urn:push:${t.name}:s1`, '3'),
        event('ConceptDescription', 'urn:push:cd', '4'),
      ]),
    );
    await server.dataSource.transaction((manager) => server.services.pushTargets.enqueue(manager, [event('AssetAdministrationShell', `urn:push:${t.name}:s2`, '5')]));
    const jobs: { shell_id: string; generation: number }[] = await server.dataSource.query('SELECT shell_id, generation FROM push_jobs WHERE tenant_id = $1 AND target_id = $2 ORDER BY shell_id', [t.id, target.id]);
    expect(jobs.map((j) => j.shell_id)).toEqual([`urn:push:${t.name}:s1`, `urn:push:${t.name}:s2`]);
    expect(jobs.map((j) => j.generation)).toEqual([0, 1]);
    // A rolled-back delivery queues nothing.
    await server.dataSource
      .transaction(async (manager) => {
        await server.services.pushTargets.enqueue(manager, [event('AssetAdministrationShell', `urn:push:${t.name}:other`, '6')]);
        throw new Error('rolled back');
      })
      .catch(() => undefined);
    expect((await server.dataSource.query('SELECT count(*)::int AS n FROM push_jobs WHERE tenant_id = $1', [t.id]))[0].n).toBe(2);
    expect((await json(fetch(`${targets(t.name)}/${target.id}`))).status.backlog).toBe(2);
    // A change of the target keeps its queue (due at once: new settings are tried now) and its state.
    await server.dataSource.query(`UPDATE push_jobs SET next_attempt_at = now() + interval '1 hour', attempts = 5 WHERE tenant_id = $1`, [t.id]);
    await server.dataSource.query(`UPDATE push_targets SET last_error = 'down', last_error_at = now() WHERE tenant_id = $1`, [t.id]);
    const patched = await fetch(`${targets(t.name)}/${target.id}`, { method: 'PATCH', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ endpoint: `http://127.0.0.1:${port}/`, name: 'renamed' }) });
    expect(patched.status).toBe(200);
    expect((await json(patched)).status).toMatchObject({ backlog: 2, lastError: 'down' });
    const due: { attempts: number; due: boolean }[] = await server.dataSource.query('SELECT attempts, next_attempt_at <= now() AS due FROM push_jobs WHERE tenant_id = $1', [t.id]);
    expect(due).toEqual([{ attempts: 0, due: true }, { attempts: 0, due: true }]);
    // Deleting the target drops its queue.
    expect((await fetch(`${targets(t.name)}/${target.id}`, { method: 'DELETE' })).status).toBe(204);
    expect((await server.dataSource.query('SELECT count(*)::int AS n FROM push_jobs WHERE tenant_id = $1', [t.id]))[0].n).toBe(0);
  });
});
