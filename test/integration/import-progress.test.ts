import { randomUUID } from 'node:crypto';
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { minimalPackage, zipOf } from '../support/aasx-package';
import { TestServer, json, sampleShell, startTestServer } from '../support/server';
import { TestIssuer, startTestIssuer } from '../support/tokens';

/**
 * `POST {tenant}/sphere/api/v1.0/import?progress={uuid}` and `GET {tenant}/sphere/api/v1.0/import/progress/{uuid}`:
 * while an import runs, the caller that started it is told its phase; nobody else is, and bad ids are 400.
 */
let server: TestServer;
let issuer: TestIssuer;
let tenant: string;
let other: string;

beforeAll(async () => {
  issuer = await startTestIssuer();
  server = await startTestServer(inject('databaseUrl'));
  tenant = (await server.createTenant({ showcase: false, trust: issuer })).name;
  other = (await server.createTenant({ showcase: false, trust: issuer })).name;
});
afterAll(async () => {
  await server?.close();
  await issuer?.close();
});

const bearer = (subject: string) => ({ authorization: `Bearer ${issuer.sign({ roles: ['contributor'] }, { subject })}` });
const importUrl = (name: string, query = '') => `${server.url}/tenants/${name}/sphere/api/v1.0/import${query}`;
const progressUrl = (name: string, id: string) => `${server.url}/tenants/${name}/sphere/api/v1.0/import/progress/${id}`;

/** A package with one shell, two submodels and a concept description (4 documents), ids under `prefix`. */
function packageOf(prefix: string): Buffer {
  const env = {
    assetAdministrationShells: [sampleShell(`${prefix}:shell`)],
    submodels: [
      { modelType: 'Submodel', id: `${prefix}:sm1`, idShort: 'One' },
      { modelType: 'Submodel', id: `${prefix}:sm2`, idShort: 'Two' },
    ],
    conceptDescriptions: [{ modelType: 'ConceptDescription', id: `${prefix}:cd` }],
  };
  return zipOf(minimalPackage(JSON.stringify(env)));
}

/** The multipart body of an upload of `bytes` in the part `file`. */
function multipart(bytes: Buffer): { body: Buffer; type: string } {
  const boundary = `----progress${randomUUID()}`;
  const head = `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="p.aasx"\r\nContent-Type: application/asset-administration-shell-package\r\n\r\n`;
  return { body: Buffer.concat([Buffer.from(head), bytes, Buffer.from(`\r\n--${boundary}--\r\n`)]), type: `multipart/form-data; boundary=${boundary}` };
}

/** A POST whose body is sent in two parts: the first at once, the rest when `finish` is called; resolves with the answer. */
function slowUpload(url: string, headers: Record<string, string>, bytes: Buffer) {
  const { body, type } = multipart(bytes);
  const half = Math.floor(body.length / 2);
  let finish!: () => void;
  const answer = new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = http.request(url, { method: 'POST', headers: { ...headers, 'content-type': type, 'content-length': String(body.length) } });
    req.on('response', (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode!, body: text }));
    });
    req.on('error', reject);
    req.write(body.subarray(0, half));
    finish = () => req.end(body.subarray(half));
  });
  return { answer, finish: () => finish() };
}

const upload = (url: string, headers: Record<string, string>, bytes: Buffer) => {
  const { body, type } = multipart(bytes);
  return fetch(url, { method: 'POST', headers: { ...headers, 'content-type': type }, body });
};

/** Asks for the progress until `until` holds of the answer (the server works meanwhile); the last answer. */
async function progressUntil(url: string, headers: Record<string, string>, until: (status: number, body: { phase?: string }) => boolean) {
  for (;;) {
    const res = await fetch(url, { headers });
    const body = await json(res);
    if (until(res.status, body)) return { status: res.status, body };
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function expectResult(status: number, body: { messages?: { code: string; messageType: string; text: string }[] }, expected: number, text: RegExp) {
  expect(status, JSON.stringify(body)).toBe(expected);
  expect(body.messages?.[0]).toMatchObject({ code: String(expected), messageType: 'Error' });
  expect(body.messages?.[0].text).toMatch(text);
}

describe('watching an AASX import', () => {
  it('while the upload comes in: receiving, to its caller only; a second import under the same id is 409; gone when it has ended', async () => {
    const id = randomUUID();
    const alice = bearer('alice');
    const first = slowUpload(importUrl(tenant, `?progress=${id}`), alice, packageOf('urn:progress:a'));
    const receiving = await progressUntil(progressUrl(tenant, id), alice, (status) => status === 200);
    expect(receiving.body).toEqual({ phase: 'receiving', elapsedMs: expect.any(Number) });

    // Nobody else is told: another caller, no token, another tenant; the id in capitals is the same id.
    for (const [url, headers] of [
      [progressUrl(tenant, id), bearer('bob')],
      [progressUrl(tenant, id), {}],
      [progressUrl(other, id), alice],
    ] as const) {
      const res = await fetch(url, { headers });
      expectResult(res.status, await json(res), 404, /No import with progress id .* of this caller runs on this tenant/);
    }
    expect((await fetch(progressUrl(tenant, id.toUpperCase()), { headers: alice })).status).toBe(200);

    // The same id again while the first runs: refused before its upload is read, and it stores nothing.
    const twice = await upload(importUrl(tenant, `?progress=${id}`), alice, packageOf('urn:progress:twice'));
    expectResult(twice.status, await json(twice), 409, /has this progress id already/);
    expect((await fetch(`${server.api(tenant)}/shells`, { headers: alice }).then(json)).result.map((s: { id: string }) => s.id)).not.toContain('urn:progress:twice:shell');

    first.finish();
    const done = await first.answer;
    expect(done.status, done.body).toBe(200);
    expect(JSON.parse(done.body).counts).toMatchObject({ shells: 1, submodels: 2, conceptDescriptions: 1 });
    const ended = await fetch(progressUrl(tenant, id), { headers: alice });
    expectResult(ended.status, await json(ended), 404, /it may have ended/);
    // The id is free again once the import has ended.
    expect((await upload(importUrl(tenant, `?progress=${id}`), alice, packageOf('urn:progress:again'))).status).toBe(200);
  });

  it('while it stores: storing, with how many documents of how many are stored, answered while the import holds the database', async () => {
    const id = randomUUID();
    const alice = bearer('alice');
    // The import is held before it stores its submodels (after its shell), until the test lets it go on.
    const submodels = server.services.submodels;
    const putMany = submodels.putMany;
    let reached!: () => void;
    const atSubmodels = new Promise<void>((resolve) => (reached = resolve));
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    submodels.putMany = async (...args) => {
      reached();
      await released;
      return putMany.apply(submodels, args);
    };
    try {
      const res = upload(importUrl(tenant, `?progress=${id}`), alice, packageOf('urn:progress:b'));
      await atSubmodels;
      const storing = await fetch(progressUrl(tenant, id), { headers: alice });
      expect(storing.status).toBe(200);
      expect(await storing.json()).toEqual({ phase: 'storing', elapsedMs: expect.any(Number), documents: { done: 1, of: 4 } });
      release();
      expect((await res).status).toBe(200);
    } finally {
      release();
      submodels.putMany = putMany;
    }
    expect((await fetch(progressUrl(tenant, id), { headers: alice })).status).toBe(404);
  });

  it('bad ids are 400 with a Result: nothing is imported', async () => {
    const alice = bearer('alice');
    for (const bad of ['1', 'not-a-uuid', `${randomUUID()}x`, '']) {
      const res = await upload(importUrl(tenant, `?progress=${encodeURIComponent(bad)}`), alice, packageOf('urn:progress:bad'));
      expectResult(res.status, await json(res), 400, /progress must be a UUID/);
    }
    const twice = await upload(importUrl(tenant, `?progress=${randomUUID()}&progress=${randomUUID()}`), alice, packageOf('urn:progress:bad'));
    expect(twice.status).toBe(400);
    expect((await fetch(`${server.api(tenant)}/shells`, { headers: alice }).then(json)).result.map((s: { id: string }) => s.id)).not.toContain('urn:progress:bad:shell');
    for (const bad of ['1', 'not-a-uuid', `${randomUUID()}x`]) {
      const res = await fetch(progressUrl(tenant, bad), { headers: alice });
      expectResult(res.status, await json(res), 400, /progress id must be a UUID/);
    }
    const unknown = await fetch(progressUrl(tenant, randomUUID()), { headers: alice });
    expectResult(unknown.status, await json(unknown), 404, /No import with progress id/);
    const query = await fetch(`${progressUrl(tenant, randomUUID())}?limit=1`, { headers: alice });
    expect(query.status).toBe(400);
  });
});
