import { createHash, randomBytes } from 'node:crypto';
import http from 'node:http';
import { Writable } from 'node:stream';
import pino from 'pino';
import { afterAll, beforeAll, expect, inject, it } from 'vitest';
import type { Config } from '../../src/config';
import type { TenantEntity } from '../../src/management/tenants/tenant.entity';
import { minimalPackage, zipOf } from './aasx-package';
import { TestServer, json, startTestServer } from './server';
import { PATIENCE_MS } from './timing';

/** The upload limit of the suite's server: small, so that 413 is cheap to reach. */
export const UPLOAD_LIMIT = 4 * 1024 * 1024;

export interface FileSuiteOptions {
  /** Settings beyond the upload limit (the blob store). */
  config?(): Partial<Config>;
  /** How many stored contents (chunks, objects) the blob store holds for a tenant, committed. */
  contents(server: TestServer, tenant: TenantEntity): Promise<number>;
}

export const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
export const enc = (tfp: string) => encodeURIComponent(tfp);

/** POSTs (or PUTs) a multipart form with `bytes` as the part `file`. */
export function sendFile(
  url: string,
  bytes: Buffer,
  options: { method?: string; name?: string; type?: string; fields?: Record<string, string>; headers?: Record<string, string> } = {},
): Promise<Response> {
  const form = new FormData();
  for (const [name, value] of Object.entries(options.fields ?? {})) form.append(name, value);
  form.append('file', new Blob([bytes], { type: options.type ?? 'application/octet-stream' }), options.name ?? 'data.bin');
  return fetch(url, { method: options.method ?? 'POST', body: form, headers: options.headers });
}

/**
 * The file repository's behaviour over HTTP, the same for every blob store: round trips, ranges, ETags,
 * replacement, deletion, metadata, filters, the deprecated location, bad tfps, limits and cut-off uploads.
 */
export function fileRepositorySuite(options: FileSuiteOptions): void {
  let server: TestServer;
  let tenant: TenantEntity;
  let other: TenantEntity;
  const requestLines: { url?: string; status?: number }[] = [];
  const files = () => `${server.url}/tenants/${tenant.name}/sphere/api/v1.0/files`;

  beforeAll(async () => {
    // The server's request log, to know when a cut-off upload has been answered (and rolled back).
    const sink = new Writable({
      write(chunk, _enc, done) {
        for (const line of String(chunk).split('\n').filter(Boolean)) {
          const parsed = JSON.parse(line);
          if (parsed.msg === 'request') requestLines.push(parsed);
          // What the server logs as an error is a bug here: shown with the test's output.
          if (parsed.level >= 50) process.stderr.write(`${line}\n`);
        }
        done();
      },
    });
    const base = options.config?.() ?? {};
    server = await startTestServer(inject('databaseUrl'), { ...base, files: { store: base.files?.store ?? { kind: 'postgres' }, uploadLimitBytes: UPLOAD_LIMIT }, logLevel: 'info' }, pino({ level: 'info' }, sink));
    tenant = await server.createTenant({ showcase: true });
    other = await server.createTenant({ showcase: true });
  });
  afterAll(async () => {
    await server?.close();
  });

  async function upload(bytes: Buffer, opts: Parameters<typeof sendFile>[2] = {}) {
    const res = await sendFile(files(), bytes, opts);
    expect(res.status, await res.clone().text()).toBe(201);
    return json(res);
  }

  it('stores an upload and gives it back byte for byte, with its tfp, SHA-256, type and name', async () => {
    const bytes = randomBytes(UPLOAD_LIMIT - 12_345);
    const res = await sendFile(files(), bytes, { name: 'Manual ü 1.pdf', type: 'application/pdf' });
    expect(res.status).toBe(201);
    const body = await json(res);
    expect(body.tfp).toMatch(new RegExp(`^file:/sphere/${tenant.name}/[0-9a-f-]{36}/Manual%20%C3%BC%201\\.pdf$`));
    expect(body).toMatchObject({ fileName: 'Manual ü 1.pdf', contentType: 'application/pdf', size: bytes.length, sha256: sha256(bytes), attributes: [] });
    expect(res.headers.get('location')).toBe(`/tenants/${tenant.name}/sphere/api/v1.0/files/${enc(body.tfp)}`);

    const down = await fetch(`${files()}/${enc(body.tfp)}`);
    expect(down.status).toBe(200);
    const got = Buffer.from(await down.arrayBuffer());
    expect(got.length).toBe(bytes.length);
    expect(sha256(got)).toBe(sha256(bytes));
    expect(down.headers.get('content-type')).toBe('application/pdf');
    expect(down.headers.get('content-length')).toBe(String(bytes.length));
    expect(down.headers.get('content-disposition')).toBe(`attachment; filename="Manual _ 1.pdf"; filename*=UTF-8''Manual%20%C3%BC%201.pdf`);
    expect(down.headers.get('etag')).toBe(`"sha256-${Buffer.from(sha256(bytes), 'hex').toString('base64url')}"`);
    expect(down.headers.get('x-content-type-options')).toBe('nosniff');

    // The tfp base64url-encoded, as AAS identifiers are, names the same file.
    const b64 = await fetch(`${files()}/${Buffer.from(body.tfp).toString('base64url')}`);
    expect(sha256(Buffer.from(await b64.arrayBuffer()))).toBe(sha256(bytes));
    // Empty files too.
    const empty = await upload(Buffer.alloc(0), { name: 'empty.txt', type: 'text/plain' });
    const emptyDown = await fetch(`${files()}/${enc(empty.tfp)}`);
    expect(emptyDown.status).toBe(200);
    expect((await emptyDown.arrayBuffer()).byteLength).toBe(0);
  });

  it('answers a single byte range with 206, an unsatisfiable one with 416, and a matching If-None-Match with 304', async () => {
    const bytes = randomBytes(700_000);
    const { tfp } = await upload(bytes);
    const url = `${files()}/${enc(tfp)}`;
    for (const [range, start, end] of [
      ['bytes=0-99', 0, 99],
      ['bytes=262100-262200', 262_100, 262_200],
      ['bytes=699990-', 699_990, 699_999],
      ['bytes=-10', 699_990, 699_999],
      ['bytes=600000-9999999', 600_000, 699_999],
    ] as const) {
      const res = await fetch(url, { headers: { range } });
      expect(res.status, range).toBe(206);
      expect(res.headers.get('content-range')).toBe(`bytes ${start}-${end}/700000`);
      expect(Buffer.from(await res.arrayBuffer()).equals(bytes.subarray(start, end + 1)), range).toBe(true);
    }
    const unsatisfiable = await fetch(url, { headers: { range: 'bytes=700000-' } });
    expect(unsatisfiable.status).toBe(416);
    expect(unsatisfiable.headers.get('content-range')).toBe('bytes */700000');
    expect((await json(unsatisfiable)).messages[0].code).toBe('416');
    // Several ranges, or no byte range at all: the whole file.
    expect((await fetch(url, { headers: { range: 'bytes=0-1,5-6' } })).status).toBe(200);
    expect((await fetch(url, { headers: { range: 'lines=1-2' } })).status).toBe(200);

    const etag = (await fetch(url, { method: 'HEAD' })).headers.get('etag')!;
    const notModified = await fetch(url, { headers: { 'if-none-match': etag } });
    expect(notModified.status).toBe(304);
    expect(notModified.headers.get('etag')).toBe(etag);
    expect((await fetch(url, { headers: { 'if-none-match': '"other"' } })).status).toBe(200);
  });

  it('replaces the content with PUT, keeping tfp and name, and deletes for good with DELETE', async () => {
    const first = randomBytes(300_000);
    const stored = await upload(first, { name: 'drawing.dxf', type: 'image/vnd.dxf' });
    const url = `${files()}/${enc(stored.tfp)}`;
    const second = randomBytes(500_000);
    const put = await sendFile(url, second, { method: 'PUT', name: 'other-name.bin', type: 'application/octet-stream' });
    expect(put.status, await put.clone().text()).toBe(200);
    expect(await json(put)).toMatchObject({ tfp: stored.tfp, fileName: 'drawing.dxf', size: second.length, sha256: sha256(second), contentType: 'application/octet-stream' });
    const down = await fetch(url);
    expect(sha256(Buffer.from(await down.arrayBuffer()))).toBe(sha256(second));
    const before = await options.contents(server, tenant);

    const del = await fetch(url, { method: 'DELETE' });
    expect(del.status).toBe(204);
    expect((await fetch(url)).status).toBe(404);
    expect((await fetch(`${url}/metadata`)).status).toBe(404);
    expect((await fetch(url, { method: 'DELETE' })).status).toBe(404);
    expect(await options.contents(server, tenant)).toBeLessThan(before);
  });

  it('keeps metadata: displayName, a VDI 2770 classification, up to 50 attributes; refuses what breaks the rules with 400', async () => {
    const stored = await upload(Buffer.from('hello'), { name: 'hello.txt', type: 'text/plain', fields: { displayName: 'Greeting', classification: '03-02', attributes: JSON.stringify([{ key: 'lang', value: 'en' }]) } });
    expect(stored).toMatchObject({ displayName: 'Greeting', classification: '03-02', attributes: [{ key: 'lang', value: 'en' }] });
    const url = `${files()}/${enc(stored.tfp)}/metadata`;
    const put = (body: unknown) => fetch(url, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

    const attributes = Array.from({ length: 50 }, (_, i) => ({ key: `k${i}`, value: 'v'.repeat(2048) }));
    const ok = await put({ displayName: 'Hello', classification: '02-04', attributes });
    expect(ok.status).toBe(200);
    const got = await json(await fetch(url));
    expect(got).toMatchObject({ tfp: stored.tfp, fileName: 'hello.txt', contentType: 'text/plain', size: 5, sha256: sha256(Buffer.from('hello')), displayName: 'Hello', classification: '02-04' });
    expect(got.attributes).toHaveLength(50);
    expect(typeof got.createdAt).toBe('string');

    for (const bad of [
      { attributes: [...attributes, { key: 'k50', value: '' }] },
      { attributes: [{ key: 'x'.repeat(2049), value: '' }] },
      { attributes: [{ key: 'x', value: 'x'.repeat(2049) }] },
      { attributes: [{ key: 'x', value: '1' }, { key: 'x', value: '2' }] },
      { classification: '05-01' },
      { classification: 'Operation' },
      { displayName: 42 },
      { unknown: true },
    ]) {
      const res = await put(bad);
      expect(res.status, JSON.stringify(bad).slice(0, 80)).toBe(400);
      expect((await json(res)).messages[0].code).toBe('400');
    }
    expect((await json(await fetch(url))).classification).toBe('02-04');
    // PUT replaces: what is not given is cleared.
    expect(await json(await put({ displayName: 'Only' }))).toMatchObject({ displayName: 'Only', attributes: [] });
    expect((await json(await fetch(url))).classification).toBeUndefined();
    // Bad metadata in an upload form: 400, and nothing stored.
    const before = await options.contents(server, tenant);
    const refused = await sendFile(files(), randomBytes(300_000), { fields: { classification: 'nope' } });
    expect(refused.status).toBe(400);
    const badJson = await sendFile(files(), randomBytes(1000), { fields: { attributes: '[{' } });
    expect(badJson.status).toBe(400);
    expect(await options.contents(server, tenant)).toBe(before);
  });

  it('filters files by metadata and content type, paged with limit and cursor', async () => {
    const mark = randomBytes(4).toString('hex');
    const a = await upload(Buffer.from('a'), { type: 'text/plain', fields: { displayName: `a-${mark}`, classification: '01-01', attributes: JSON.stringify([{ key: 'batch', value: mark }]) } });
    const b = await upload(Buffer.from('b'), { type: 'image/png', fields: { displayName: `b-${mark}`, classification: '01-01', attributes: JSON.stringify([{ key: 'batch', value: mark }, { key: 'x', value: 'y' }]) } });
    const list = async (query: string) => {
      const res = await fetch(`${files()}?${query}`);
      expect(res.status, query).toBe(200);
      return json(res);
    };
    expect((await list(`displayName=a-${mark}`)).result.map((f: { tfp: string }) => f.tfp)).toEqual([a.tfp]);
    expect((await list(`attribute.batch=${mark}`)).result.map((f: { tfp: string }) => f.tfp)).toEqual([a.tfp, b.tfp]);
    expect((await list(`attribute.batch=${mark}&attribute.x=y`)).result.map((f: { tfp: string }) => f.tfp)).toEqual([b.tfp]);
    expect((await list(`attribute.batch=${mark}&contentType=image/*`)).result.map((f: { tfp: string }) => f.tfp)).toEqual([b.tfp]);
    expect((await list(`attribute.batch=${mark}&contentType=text/plain&classification=01-01`)).result.map((f: { tfp: string }) => f.tfp)).toEqual([a.tfp]);
    const page1 = await list(`attribute.batch=${mark}&limit=1`);
    expect(page1.result.map((f: { tfp: string }) => f.tfp)).toEqual([a.tfp]);
    const page2 = await list(`attribute.batch=${mark}&limit=1&cursor=${page1.paging_metadata.cursor}`);
    expect(page2.result.map((f: { tfp: string }) => f.tfp)).toEqual([b.tfp]);
    expect(page2.paging_metadata).toEqual({});
    for (const bad of ['limit=0', 'limit=251', 'cursor=nonsense', 'colour=red']) expect((await fetch(`${files()}?${bad}`)).status, bad).toBe(400);
    // Another tenant sees none of them.
    const elsewhere = await json(await fetch(`${server.url}/tenants/${other.name}/sphere/api/v1.0/files?attribute.batch=${mark}`));
    expect(elsewhere.result).toEqual([]);
  });

  it('serves the same routes at the deprecated /api/v3.0/files, saying so', async () => {
    const old = `${server.url}/tenants/${tenant.name}/api/v3.0/files`;
    const res = await sendFile(old, Buffer.from('legacy'), { name: 'legacy.txt', type: 'text/plain' });
    expect(res.status).toBe(201);
    expect(res.headers.get('deprecation')).toMatch(/^@\d+$/);
    const { tfp } = await json(res);
    const down = await fetch(`${old}/${enc(tfp)}`);
    expect(await down.text()).toBe('legacy');
    expect(down.headers.get('deprecation')).toMatch(/^@\d+$/);
    expect(down.headers.get('link')).toBe(`</tenants/${tenant.name}/sphere/api/v1.0/files/${enc(tfp)}>; rel="successor-version"`);
    expect((await fetch(`${files()}/${enc(tfp)}`)).headers.get('deprecation')).toBeNull();
  });

  it('answers tfps it cannot decode, or that name nothing of this tenant, with 400 or 404, never 500', async () => {
    const { tfp: foreign } = await json(await sendFile(`${server.url}/tenants/${other.name}/sphere/api/v1.0/files`, Buffer.from('x')));
    const { tfp: mine } = await upload(Buffer.from('mine'), { name: 'mine.txt' });
    const documentId = mine.split('/')[3];
    const candidates = [
      '%',
      '%zz',
      '%E0%A4%A',
      'Zm9v',
      '!!!',
      '====',
      enc('file:/sphere/../../etc/passwd'),
      enc(`file:/sphere/${tenant.name}/../${documentId}/mine.txt`),
      enc(`file:/sphere/${tenant.name}/${documentId}/..`),
      enc(`file:/sphere/${tenant.name}/not-a-uuid/mine.txt`),
      enc(`file:/sphere/${tenant.name}/${documentId}/other.txt`),
      enc(`file:/sphere/${tenant.name}/00000000-0000-4000-8000-000000000000/mine.txt`),
      enc('file:/etc/passwd'),
      enc('http://example.com/x'),
      enc(foreign),
      Buffer.from(foreign).toString('base64url'),
      enc(`${mine}%`),
    ];
    for (const raw of candidates) {
      for (const method of ['GET', 'PUT', 'DELETE']) {
        const res = method === 'PUT' ? await sendFile(`${files()}/${raw}`, Buffer.from('y'), { method }) : await fetch(`${files()}/${raw}`, { method });
        expect([400, 404], `${method} ${raw}`).toContain(res.status);
        expect((await json(res)).messages[0].code).toBe(String(res.status));
      }
    }
    // Another tenant's tfp is that tenant's: here it names nothing (404), and the file stays.
    expect((await fetch(`${files()}/${enc(foreign)}`)).status).toBe(404);
    expect((await fetch(`${server.url}/tenants/${other.name}/sphere/api/v1.0/files/${enc(foreign)}`)).status).toBe(200);
    expect((await fetch(`${files()}/${enc(mine)}`)).status).toBe(200);
  });

  it('refuses an upload over FILE_UPLOAD_LIMIT with 413 and stores nothing; exactly the limit is fine', async () => {
    const before = await options.contents(server, tenant);
    const listed = (await json(await fetch(files()))).result.length;
    const over = await sendFile(files(), randomBytes(UPLOAD_LIMIT + 1));
    expect(over.status).toBe(413);
    expect((await json(over)).messages[0].code).toBe('413');
    expect(await options.contents(server, tenant)).toBe(before);
    expect((await json(await fetch(files()))).result.length).toBe(listed);
    const exact = await sendFile(files(), randomBytes(UPLOAD_LIMIT));
    expect(exact.status).toBe(201);
    // Not multipart, no file part, a second file: refused.
    expect((await fetch(files(), { method: 'POST', headers: { 'content-type': 'application/octet-stream' }, body: 'x' })).status).toBe(415);
    const noFile = new FormData();
    noFile.append('displayName', 'x');
    expect((await fetch(files(), { method: 'POST', body: noFile })).status).toBe(400);
    const two = new FormData();
    two.append('file', new Blob(['a']), 'a');
    two.append('file', new Blob(['b']), 'b');
    expect((await fetch(files(), { method: 'POST', body: two })).status).toBe(400);
    expect((await fetch(files(), { method: 'POST', headers: { 'content-type': 'multipart/form-data; boundary=x' }, body: '--x\r\nnonsense' })).status).toBe(400);
  });

  it('leaves nothing behind when the client goes away mid-upload, and keeps the old content when a replacement is cut off', async () => {
    const { tfp } = await upload(Buffer.from('original'), { name: 'keep.txt', type: 'text/plain' });
    const before = await options.contents(server, tenant);
    const listed = (await json(await fetch(files()))).result.length;
    const path = new URL(files()).pathname;
    for (const [method, target] of [['POST', path], ['PUT', `${path}/${enc(tfp)}`]] as const) {
      const answered = requestLines.length;
      await cutOffUpload(server.url, method, target, 3 * 1024 * 1024);
      // The server logs the request once it is done with it: by then the store has rolled back.
      await waitFor(() => requestLines.slice(answered).some((line) => line.url === target));
    }
    expect(await options.contents(server, tenant)).toBe(before);
    expect((await json(await fetch(files()))).result.length).toBe(listed);
    expect(await (await fetch(`${files()}/${enc(tfp)}`)).text()).toBe('original');
  });

  it('an AASX import that overwrites removes the contents of the files only the replaced content referenced', async () => {
    const importing = await server.createTenant({ showcase: true });
    const env = {
      assetAdministrationShells: [{ modelType: 'AssetAdministrationShell', id: 'urn:fs:shell', assetInformation: { assetKind: 'Instance', globalAssetId: 'urn:fs:asset' } }],
      submodels: [{ modelType: 'Submodel', id: 'urn:fs:sm', submodelElements: [{ modelType: 'File', idShort: 'Manual', contentType: 'application/pdf', value: 'file:/aasx/files/manual.pdf' }] }],
    };
    const upload = async () => {
      const res = await sendFile(`${server.api(importing.name)}/upload`, zipOf(minimalPackage(JSON.stringify(env))), { name: 'p.aasx', type: 'application/asset-administration-shell-package' });
      expect(res.status, await res.clone().text()).toBe(200);
      return json(res);
    };
    const first = await upload();
    const stored = await options.contents(server, importing);
    expect(stored).toBeGreaterThan(0);
    const second = await upload();
    expect(await options.contents(server, importing)).toBe(stored);
    const filesOf = `${server.url}/tenants/${importing.name}/sphere/api/v1.0/files`;
    expect((await fetch(`${filesOf}/${enc(first.files[0].tfp)}`)).status).toBe(404);
    expect(await (await fetch(`${filesOf}/${enc(second.files[0].tfp)}`)).text()).toBe('%PDF-1.4 not really');
  });

  it('removes every stored content of a tenant when the tenant is deleted, and no other tenant\'s', async () => {
    const doomed = await server.createTenant({ showcase: true });
    const doomedFiles = `${server.url}/tenants/${doomed.name}/sphere/api/v1.0/files`;
    for (const size of [10, 300 * 1024]) {
      expect((await sendFile(doomedFiles, randomBytes(size))).status).toBe(201);
    }
    const kept = await upload(Buffer.from('kept'), { name: 'kept.txt' });
    const otherBefore = await options.contents(server, tenant);
    expect(await options.contents(server, doomed)).toBeGreaterThan(0);
    await server.services.tenants.deleteIn(doomed.organizationId, doomed.id, null);
    expect(await options.contents(server, doomed)).toBe(0);
    expect(await options.contents(server, tenant)).toBe(otherBefore);
    expect(await (await fetch(`${files()}/${enc(kept.tfp)}`)).text()).toBe('kept');
  });
}

/** Sends the start of a multipart upload announcing more than it sends, then drops the connection. */
async function cutOffUpload(base: string, method: string, path: string, send: number): Promise<void> {
  const url = new URL(base);
  const boundary = 'cutoff-boundary';
  const head = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="cut.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`);
  await new Promise<void>((resolve) => {
    const req = http.request({ host: url.hostname, port: url.port, method, path, headers: { 'content-type': `multipart/form-data; boundary=${boundary}`, 'content-length': String(head.length + send * 2) } });
    req.on('error', () => resolve());
    req.write(head);
    let sent = 0;
    const pump = () => {
      while (sent < send) {
        const chunk = randomBytes(64 * 1024);
        sent += chunk.length;
        if (!req.write(chunk)) return void req.once('drain', pump);
      }
      setTimeout(() => {
        req.destroy();
        resolve();
      }, 200);
    };
    pump();
  });
}

async function waitFor(check: () => boolean, timeoutMs = PATIENCE_MS): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > until) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 50));
  }
}

