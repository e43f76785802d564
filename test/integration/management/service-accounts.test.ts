import { Writable } from 'node:stream';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { ServiceAccountSecretEntity } from '../../../src/management/service-accounts/service-account-secret.entity';
import { assignRole, clientWithRole, graphql } from '../../support/grants';
import { clientCredentials, newUser, tokenRequest } from '../../support/identity';
import { ManagementClient, managementClient, newOrganization } from '../../support/management';
import { TestServer, startTestServer } from '../../support/server';

let server: TestServer;
let raw = '';
beforeAll(async () => {
  // Every log line at debug level, so the secret-value test can search them all.
  const sink = new Writable({
    write(chunk, _encoding, done) {
      raw += chunk;
      done();
    },
  });
  server = await startTestServer(inject('databaseUrl'), {}, pino({ level: 'debug' }, sink));
});
afterAll(() => server?.close());

const UNKNOWN = '00000000-0000-4000-8000-000000000000';

async function newAccount(owner: ManagementClient, organizationId: string, body: unknown = { name: 'robot' }) {
  const res = await owner.call('POST', `/organizations/${organizationId}/service-accounts`, body);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res;
}

async function newSecret(owner: ManagementClient, path: string, body: unknown = {}) {
  const res = await owner.call('POST', `${path}/secrets`, body);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as { secret: { id: string; active: boolean; expiresAt: string | null }; value: string; clientId: string; tokenUrl: string };
}

const tokenStatus = async (clientId: string, secret: string) =>
  (await tokenRequest(server, { grant_type: 'client_credentials', scope: 'api_access', client_id: clientId, client_secret: secret })).status;

describe('service accounts', () => {
  it('create, get, list, PUT and PATCH with ETags, delete', async () => {
    const { owner, organization } = await newOrganization(server);
    const base = `/organizations/${organization.id}/service-accounts`;
    const created = await newAccount(owner, organization.id, { name: 'robot', description: 'does things' });
    const account = created.body;
    expect(account).toMatchObject({ name: 'robot', description: 'does things', clientId: account.id, tokenUrl: `${server.url}/oidc/token` });
    expect(account.etag).toBeUndefined();
    expect(created.headers.get('location')).toBe(`${server.url}/api/v1${base}/${account.id}`);
    const etag = created.headers.get('etag')!;
    expect(etag).toMatch(/^"\d+-1"$/);

    const got = await owner.call('GET', `${base}/${account.id}`);
    expect(got.status).toBe(200);
    expect(got.body).toEqual(account);
    const list = await owner.call('GET', base);
    expect(list.body.result.map((a: { id: string }) => a.id)).toEqual([account.id]);
    expect(list.body.paging_metadata).toEqual({});

    expect((await owner.call('PUT', `${base}/${account.id}`, { name: 'robot 2' }, { 'if-match': '"1-9"' })).status).toBe(412);
    const put = await owner.call('PUT', `${base}/${account.id}`, { name: 'robot 2' }, { 'if-match': etag });
    expect(put.status).toBe(200);
    // PUT replaces: the description not given is gone.
    expect(put.body).toMatchObject({ name: 'robot 2', description: null });
    const patch = await owner.call('PATCH', `${base}/${account.id}`, { description: 'again' }, { 'if-match': put.headers.get('etag')! });
    expect(patch.status).toBe(200);
    expect(patch.body).toMatchObject({ name: 'robot 2', description: 'again' });
    expect((await owner.call('PATCH', `${base}/${account.id}`, { description: null })).body.description).toBeNull();

    expect((await owner.call('DELETE', `${base}/${account.id}`, undefined, { 'if-match': etag })).status).toBe(412);
    const deleted = await owner.call('DELETE', `${base}/${account.id}`);
    expect(deleted.status).toBe(204);
    expect((await owner.call('GET', `${base}/${account.id}`)).status).toBe(404);
    expect((await owner.call('DELETE', `${base}/${account.id}`)).status).toBe(404);
  });

  it('pages with limit and cursor', async () => {
    const { owner, organization } = await newOrganization(server);
    for (const name of ['a', 'b', 'c']) await newAccount(owner, organization.id, { name });
    const base = `/organizations/${organization.id}/service-accounts`;
    const first = await owner.call('GET', `${base}?limit=2`);
    expect(first.body.result.map((a: { name: string }) => a.name)).toEqual(['a', 'b']);
    const second = await owner.call('GET', `${base}?limit=2&cursor=${first.body.paging_metadata.cursor}`);
    expect(second.body.result.map((a: { name: string }) => a.name)).toEqual(['c']);
    for (const query of ['limit=0', 'limit=251', 'limit=x', 'cursor=bogus']) expect((await owner.call('GET', `${base}?${query}`)).status, query).toBe(400);
  });

  it('bad input is 400, unknown ids 404', async () => {
    const { owner, organization } = await newOrganization(server);
    const base = `/organizations/${organization.id}/service-accounts`;
    const bad = [{}, { name: '' }, { name: '  ' }, { name: 5 }, { name: 'x'.repeat(201) }, { name: 'a', description: 'x'.repeat(2001) }, { name: 'a', extra: 1 }, [], 'null'];
    for (const body of bad) expect((await owner.call('POST', base, body)).status, JSON.stringify(body)).toBe(400);
    expect((await owner.call('POST', base, '{"name":')).status).toBe(400);
    const { id } = (await newAccount(owner, organization.id)).body;
    expect((await owner.call('PUT', `${base}/${id}`, {})).status).toBe(400);
    expect((await owner.call('PATCH', `${base}/${id}`, { name: null })).status).toBe(400);
    expect((await owner.call('PATCH', `${base}/${id}`, { name: '' })).status).toBe(400);
    for (const other of ['not-a-uuid', UNKNOWN]) {
      expect((await owner.call('GET', `${base}/${other}`)).status).toBe(404);
      expect((await owner.call('PATCH', `${base}/${other}`, { name: 'x' })).status).toBe(404);
      expect((await owner.call('DELETE', `${base}/${other}`)).status).toBe(404);
      expect((await owner.call('GET', `${base}/${other}/secrets`)).status).toBe(404);
    }
    // A service account of another organization is unknown here.
    const elsewhere = await newOrganization(server);
    const theirs = (await newAccount(elsewhere.owner, elsewhere.organization.id)).body.id;
    expect((await owner.call('GET', `${base}/${theirs}`)).status).toBe(404);
    expect((await owner.call('DELETE', `${base}/${theirs}`)).status).toBe(404);
    expect((await owner.call('POST', `${base}/${theirs}/secrets`, {})).status).toBe(404);
  });

  it('who may: strangers 404, readers read but do not write (403), no token 401', async () => {
    const { owner, organization } = await newOrganization(server);
    const base = `/organizations/${organization.id}/service-accounts`;
    const { id } = (await newAccount(owner, organization.id)).body;
    const { secret } = await newSecret(owner, `${base}/${id}`);
    const stranger = managementClient(server, await (await newUser(server)).token());
    const reader = await clientWithRole(server, organization.id, 'reader');
    const anonymous = managementClient(server, null);
    const writes: [string, string, unknown?][] = [
      ['POST', base, { name: 'x' }],
      ['PUT', `${base}/${id}`, { name: 'x' }],
      ['PATCH', `${base}/${id}`, { name: 'x' }],
      ['DELETE', `${base}/${id}`],
      ['POST', `${base}/${id}/secrets`, {}],
      ['POST', `${base}/${id}/secrets/rotate`, {}],
      ['DELETE', `${base}/${id}/secrets/${secret.id}`],
    ];
    const reads: [string, string][] = [
      ['GET', base],
      ['GET', `${base}/${id}`],
      ['GET', `${base}/${id}/secrets`],
    ];
    for (const [method, path, body] of [...writes, ...reads]) {
      expect((await stranger.call(method, path, body)).status, `${method} ${path}`).toBe(404);
      expect((await anonymous.call(method, path, body)).status, `${method} ${path}`).toBe(401);
    }
    for (const [method, path, body] of writes) expect((await reader.call(method, path, body)).status, `${method} ${path}`).toBe(403);
    for (const [method, path] of reads) expect((await reader.call(method, path)).status, `${method} ${path}`).toBe(200);
  });

  it('delete takes its role assignments and group memberships along; refused (409) when it is the last owner', async () => {
    const { owner, organization, user } = await newOrganization(server);
    const base = `/organizations/${organization.id}/service-accounts`;
    const { id } = (await newAccount(owner, organization.id)).body;
    const manager = server.dataSource.manager;
    await assignRole(server, organization.id, { type: 'service-account', id }, 'organization-owner');
    const [group] = await manager.query(`INSERT INTO user_groups (organization_id, name) VALUES ($1, 'group@robots') RETURNING id`, [organization.id]);
    await manager.query(`INSERT INTO group_members (group_id, principal_type, principal_id) VALUES ($1, 'service-account', $2)`, [group.id, id]);

    // The user is the other owner: take that away, and the service account is the last one (deleting itself).
    const { value } = await newSecret(owner, `${base}/${id}`);
    await manager.query(`DELETE FROM role_assignments WHERE principal_id = $1`, [user.id]);
    const itself = managementClient(server, (await clientCredentials(server, id, value)).access_token);
    const refused = await itself.call('DELETE', `${base}/${id}`);
    expect(refused.status).toBe(409);
    expect(refused.body.messages[0].text).toMatch(/organization-owner/);
    expect((await itself.call('GET', `${base}/${id}`)).status).toBe(200);
    await assignRole(server, organization.id, { type: 'user', id: user.id }, 'organization-owner');

    expect((await owner.call('DELETE', `${base}/${id}`)).status).toBe(204);
    expect(await manager.query('SELECT id FROM role_assignments WHERE principal_id = $1', [id])).toEqual([]);
    expect(await manager.query('SELECT group_id FROM group_members WHERE principal_id = $1', [id])).toEqual([]);
    expect(await manager.query('SELECT id FROM service_account_secrets WHERE service_account_id = $1', [id])).toEqual([]);
  });
});

describe('service account secrets', () => {
  it('the value is returned once, works at the token endpoint, and is kept only as a hash', async () => {
    const { owner, organization } = await newOrganization(server);
    const { id } = (await newAccount(owner, organization.id)).body;
    const path = `/organizations/${organization.id}/service-accounts/${id}`;
    const created = await newSecret(owner, path, { description: 'ci' });
    expect(created).toMatchObject({ clientId: id, tokenUrl: `${server.url}/oidc/token`, secret: { description: 'ci', expiresAt: null, active: true } });
    expect(created.value.length).toBeGreaterThanOrEqual(32);
    expect(Object.keys(created.secret).sort()).toEqual(['active', 'createdAt', 'description', 'expiresAt', 'hint', 'id']);
    const tokens = await clientCredentials(server, created.clientId, created.value);
    expect(tokens.token_type).toMatch(/bearer/i);

    const stored = await server.dataSource.manager.findOneOrFail(ServiceAccountSecretEntity, { where: { id: created.secret.id }, select: { hash: true, hint: true } });
    expect(stored.hash).toMatch(/^scrypt\$/);
    expect(stored.hash).not.toContain(created.value);

    const list = await owner.call('GET', `${path}/secrets`);
    expect(list.status).toBe(200);
    expect(list.body.result).toEqual([created.secret]);
    expect(JSON.stringify(list.body)).not.toContain(created.value);
    expect(JSON.stringify(list.body)).not.toMatch(/hash|value/i);

    // Deleted, it stops working.
    expect((await owner.call('DELETE', `${path}/secrets/${created.secret.id}`)).status).toBe(204);
    expect(await tokenStatus(id, created.value)).not.toBe(200);
    expect((await owner.call('DELETE', `${path}/secrets/${created.secret.id}`)).status).toBe(404);
    expect((await owner.call('DELETE', `${path}/secrets/not-a-uuid`)).status).toBe(404);
    expect((await owner.call('GET', `${path}/secrets`)).body.result).toEqual([]);
  });

  it('an expired secret does not work and is listed as inactive; at most two active secrets', async () => {
    const { owner, organization } = await newOrganization(server);
    const { id } = (await newAccount(owner, organization.id)).body;
    const path = `/organizations/${organization.id}/service-accounts/${id}`;
    // Valid for an hour, then made to run out below: a loaded machine cannot let it expire before its time.
    const short = await newSecret(owner, path, { validForSeconds: 3_600 });
    expect(Date.parse(short.secret.expiresAt!)).toBeGreaterThan(Date.now() + 3_000_000);
    const later = await newSecret(owner, path, { expiresAt: new Date(Date.now() + 3_600_000).toISOString() });
    const third = await owner.call('POST', `${path}/secrets`, {});
    expect(third.status).toBe(409);
    expect(third.body.messages[0].text).toMatch(/2 active secrets/);

    await server.dataSource.query(`UPDATE service_account_secrets SET expires_at = now() - interval '1 second' WHERE id = $1`, [short.secret.id]);
    expect(await tokenStatus(id, short.value)).not.toBe(200);
    // With one active secret left, a secret can be added again; with no options, the body may be left out.
    const bare = await owner.call('POST', `${path}/secrets`);
    expect(bare.status).toBe(201);
    expect(await tokenStatus(id, bare.body.value)).toBe(200);
    expect((await owner.call('DELETE', `${path}/secrets/${bare.body.secret.id}`)).status).toBe(204);
    expect(await tokenStatus(id, later.value)).toBe(200);
    const list = await owner.call('GET', `${path}/secrets`);
    expect(list.body.result.map((s: { id: string; active: boolean }) => [s.id, s.active])).toEqual([
      [short.secret.id, false],
      [later.secret.id, true],
    ]);
    // The expired one no longer counts: a second active secret may be added.
    await newSecret(owner, path);
  });

  it('rotation: a new secret, the previous one keeps working until its (never later) expiry; 409 with two active', async () => {
    const { owner, organization } = await newOrganization(server);
    const { id } = (await newAccount(owner, organization.id)).body;
    const path = `/organizations/${organization.id}/service-accounts/${id}`;
    const first = await newSecret(owner, path);
    const rotated = await owner.call('POST', `${path}/secrets/rotate`, { description: 'next' });
    expect(rotated.status).toBe(201);
    expect(rotated.body).toMatchObject({ clientId: id, secret: { description: 'next', active: true }, previousSecret: { id: first.secret.id, active: true } });
    const day = Date.parse(rotated.body.previousSecret.expiresAt) - Date.now();
    expect(day).toBeGreaterThan(86_300_000);
    expect(day).toBeLessThanOrEqual(86_400_000);
    expect(await tokenStatus(id, first.value)).toBe(200);
    expect(await tokenStatus(id, rotated.body.value)).toBe(200);
    expect((await owner.call('POST', `${path}/secrets/rotate`, {})).status).toBe(409);

    // The previous one gone, rotate again: previousSecretValidForSeconds 0 ends the old secret at once.
    expect((await owner.call('DELETE', `${path}/secrets/${first.secret.id}`)).status).toBe(204);
    const now = await owner.call('POST', `${path}/secrets/rotate`, { previousSecretValidForSeconds: 0 });
    expect(now.status).toBe(201);
    expect(now.body.previousSecret.id).toBe(rotated.body.secret.id);
    expect(await tokenStatus(id, rotated.body.value)).not.toBe(200);
    expect(await tokenStatus(id, now.body.value)).toBe(200);

    // Never extends: a secret expiring in 100 s keeps that expiry through a rotation with the default day.
    const other = await newOrganization(server);
    const otherId = (await newAccount(other.owner, other.organization.id)).body.id;
    const otherPath = `/organizations/${other.organization.id}/service-accounts/${otherId}`;
    const soon = await newSecret(other.owner, otherPath, { validForSeconds: 100 });
    const kept = await other.owner.call('POST', `${otherPath}/secrets/rotate`, {});
    expect(kept.body.previousSecret.expiresAt).toBe(soon.secret.expiresAt);
    // Rotating without an active secret just adds one.
    const lone = await newOrganization(server);
    const loneId = (await newAccount(lone.owner, lone.organization.id)).body.id;
    const loneRotation = await lone.owner.call('POST', `/organizations/${lone.organization.id}/service-accounts/${loneId}/secrets/rotate`, {});
    expect(loneRotation.status).toBe(201);
    expect(loneRotation.body.previousSecret).toBeNull();
  });

  it('bad input is 400', async () => {
    const { owner, organization } = await newOrganization(server);
    const { id } = (await newAccount(owner, organization.id)).body;
    const path = `/organizations/${organization.id}/service-accounts/${id}`;
    const bad = [
      { expiresAt: '2001-01-01T00:00:00Z' },
      { expiresAt: 'tomorrow' },
      { expiresAt: 5 },
      { expiresAt: new Date(Date.now() + 60_000).toISOString(), validForSeconds: 60 },
      { validForSeconds: 0 },
      { validForSeconds: -5 },
      { validForSeconds: 1.5 },
      { validForSeconds: '60' },
      { description: 'x'.repeat(2001) },
      { value: 'my own secret' },
      [],
    ];
    for (const body of bad) expect((await owner.call('POST', `${path}/secrets`, body)).status, JSON.stringify(body)).toBe(400);
    for (const body of [...bad, { previousSecretValidForSeconds: -1 }, { previousSecretValidForSeconds: 'day' }]) {
      expect((await owner.call('POST', `${path}/secrets/rotate`, body)).status, JSON.stringify(body)).toBe(400);
    }
    expect((await owner.call('GET', `${path}/secrets?limit=0`)).status).toBe(400);
    expect((await owner.call('GET', `${path}/secrets`)).body.result).toEqual([]);
  });

  it('no GraphQL type has a field that exposes a hash', async () => {
    const { body } = await graphql(server, null, '{ __schema { types { name fields { name } inputFields { name } } } }');
    const fields = (body.data.__schema.types as { name: string; fields: { name: string }[] | null; inputFields: { name: string }[] | null }[]).flatMap((t) =>
      [...(t.fields ?? []), ...(t.inputFields ?? [])].map((f) => `${t.name}.${f.name}`),
    );
    expect(fields).toContain('ServiceAccountSecret.hint');
    expect(fields).toContain('NewServiceAccountSecret.value');
    expect(fields.filter((f) => /hash/i.test(f))).toEqual([]);
  });

  it("the value never appears in the server's log lines (debug level), REST or GraphQL", async () => {
    const { owner, organization } = await newOrganization(server);
    const { id } = (await newAccount(owner, organization.id)).body;
    const path = `/organizations/${organization.id}/service-accounts/${id}`;
    const rest = await newSecret(owner, path);
    const { body } = await graphql(
      server,
      owner.token,
      'mutation($o: ID!, $s: ID!) { rotateServiceAccountSecret(organizationId: $o, serviceAccountId: $s, input: {}) { value secret { id } } }',
      { o: organization.id, s: id },
    );
    const viaGraphql: string = body.data.rotateServiceAccountSecret.value;
    expect(await tokenStatus(id, rest.value)).toBe(200);
    expect(await tokenStatus(id, viaGraphql)).toBe(200);
    expect(await tokenStatus(id, `${viaGraphql}x`)).not.toBe(200);
    expect(raw).toContain(id);
    expect(raw).not.toContain(rest.value);
    expect(raw).not.toContain(viaGraphql);
  });
});
