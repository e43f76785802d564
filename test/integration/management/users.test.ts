import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { InvitationEntity } from '../../../src/management/invitations/invitation.entity';
import { newUser } from '../../support/identity';
import { managementClient, newOrganization } from '../../support/management';
import { TestServer, startTestServer, testAuth } from '../../support/server';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer(inject('databaseUrl'));
});
afterAll(() => server?.close());

const NIL = '00000000-0000-4000-8000-000000000000';

describe('sign-up (POST /accounts)', () => {
  it('creates an identity account without a token; the account logs in and reads itself', async () => {
    const anonymous = managementClient(server, null);
    const email = `signup-${Date.now()}@example.com`;
    const created = await anonymous.call('POST', '/accounts', { email, password: 'a long enough password', displayName: 'Ada' });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ email, displayName: 'Ada' });
    expect(created.body).not.toHaveProperty('password');
    expect(created.headers.get('location')).toBe(`${server.url}/api/v1/accounts/${created.body.id}`);
    const again = await anonymous.call('POST', '/accounts', { email: email.toUpperCase(), password: 'another long password' });
    expect(again.status).toBe(409);
    const other = await newUser(server);
    const client = managementClient(server, await other.token());
    expect((await client.call('GET', `/accounts/${other.id}`)).body.email).toBe(other.email);
    expect((await client.call('GET', `/accounts/${created.body.id}`)).status).toBe(404);
    expect((await anonymous.call('GET', `/accounts/${other.id}`)).status).toBe(401);
  });

  it('bad input is 400 and nothing is created', async () => {
    const anonymous = managementClient(server, null);
    for (const body of [{}, { email: 'no-at-sign', password: 'a long enough password' }, { email: 'a@example.com', password: 'short' }, { email: 'a@example.com' }, { email: 5, password: 'a long enough password' }, { email: 'b@example.com', password: 'a long enough password', role: 'admin' }]) {
      const res = await anonymous.call('POST', '/accounts', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.messages[0].text).toBeTruthy();
    }
    expect(await server.services.accounts.byEmail('a@example.com')).toBeNull();
  });

  it('is 403 when sign-up is switched off', async () => {
    const closed = await startTestServer(inject('databaseUrl'), { auth: { ...testAuth, signupEnabled: false } });
    try {
      const res = await managementClient(closed, null).call('POST', '/accounts', { email: `x-${Date.now()}@example.com`, password: 'a long enough password' });
      expect(res.status).toBe(403);
    } finally {
      await closed.close();
    }
  });
});

describe('users and invitations', () => {
  it('invite → listed pending → accepted by the invited account → a user; list, get, remove', async () => {
    const { owner, organization, user: ownerUser } = await newOrganization(server);
    const invitee = await newUser(server);
    const inviteeClient = managementClient(server, await invitee.token());
    const invited = await owner.call('POST', `/organizations/${organization.id}/users/invite`, { accountId: invitee.id });
    expect(invited.status).toBe(201);
    expect(invited.body).toMatchObject({ organizationId: organization.id, accountId: invitee.id, status: 'pending' });
    expect(invited.headers.get('etag')).toMatch(/^"\d+-1"$/);
    const id = invited.body.id;

    expect((await owner.call('POST', `/organizations/${organization.id}/users/invite`, { accountId: invitee.id })).status).toBe(409);
    expect((await owner.call('GET', `/organizations/${organization.id}/invitations?status=pending`)).body.result.map((i: { id: string }) => i.id)).toEqual([id]);
    expect((await owner.call('GET', `/organizations/${organization.id}/invitations?status=accepted`)).body.result).toEqual([]);
    expect((await inviteeClient.call('GET', '/me/invitations')).body.result.map((i: { id: string }) => i.id)).toEqual([id]);

    // Not the invited account: 404; the invited one: accepted.
    expect((await owner.call('POST', `/invitations/${id}/accept`)).status).toBe(404);
    const accepted = await inviteeClient.call('POST', `/invitations/${id}/accept`);
    expect(accepted.status).toBe(200);
    expect(accepted.body.status).toBe('accepted');
    expect((await inviteeClient.call('POST', `/invitations/${id}/accept`)).status).toBe(409);

    const users = await owner.call('GET', `/organizations/${organization.id}/users`);
    expect(users.body.result.map((u: { id: string }) => u.id)).toEqual([ownerUser.id, invitee.id]);
    expect(users.body.result[1]).toMatchObject({ email: invitee.email, organizationId: organization.id });
    expect((await owner.call('GET', `/organizations/${organization.id}/users/${invitee.id}`)).body.email).toBe(invitee.email);
    // A user without roles sees the organization it joined, nothing more.
    expect((await inviteeClient.call('GET', `/organizations/${organization.id}`)).status).toBe(200);
    expect((await inviteeClient.call('GET', `/organizations/${organization.id}/users`)).status).toBe(404);

    expect((await owner.call('DELETE', `/organizations/${organization.id}/users/${invitee.id}`)).status).toBe(204);
    expect((await owner.call('GET', `/organizations/${organization.id}/users/${invitee.id}`)).status).toBe(404);
    expect((await owner.call('DELETE', `/organizations/${organization.id}/users/${invitee.id}`)).status).toBe(404);
  });

  it('revoke: a revoked invitation cannot be accepted; If-Match; expired ones are listed as expired and renewed by a new invite', async () => {
    const { owner, organization } = await newOrganization(server);
    const a = await newUser(server);
    const b = await newUser(server);
    const inv = await owner.call('POST', `/organizations/${organization.id}/users/invite`, { accountId: a.id });
    expect((await owner.call('POST', `/organizations/${organization.id}/invitations/${inv.body.id}/revoke`, undefined, { 'if-match': '"0-0"' })).status).toBe(412);
    const revoked = await owner.call('POST', `/organizations/${organization.id}/invitations/${inv.body.id}/revoke`, undefined, { 'if-match': inv.headers.get('etag')! });
    expect(revoked.body.status).toBe('revoked');
    expect((await owner.call('POST', `/organizations/${organization.id}/invitations/${inv.body.id}/revoke`)).status).toBe(409);
    expect((await managementClient(server, await a.token()).call('POST', `/invitations/${inv.body.id}/accept`)).status).toBe(409);

    const invB = await owner.call('POST', `/organizations/${organization.id}/users/invite`, { accountId: b.id });
    await server.dataSource.manager.update(InvitationEntity, { id: invB.body.id }, { expiresAt: new Date(Date.now() - 1000) });
    expect((await owner.call('GET', `/organizations/${organization.id}/invitations/${invB.body.id}`)).body.status).toBe('expired');
    expect((await owner.call('GET', `/organizations/${organization.id}/invitations?status=expired`)).body.result.map((i: { id: string }) => i.id)).toEqual([invB.body.id]);
    expect((await owner.call('GET', `/organizations/${organization.id}/invitations?status=pending`)).body.result).toEqual([]);
    const bClient = managementClient(server, await b.token());
    expect((await bClient.call('POST', `/invitations/${invB.body.id}/accept`)).status).toBe(409);
    const renewed = await owner.call('POST', `/organizations/${organization.id}/users/invite`, { accountId: b.id });
    expect(renewed.body).toMatchObject({ id: invB.body.id, status: 'pending' });
    expect((await bClient.call('POST', `/invitations/${invB.body.id}/accept`)).status).toBe(200);
  });

  it('the last owner cannot be removed; bad input and strangers', async () => {
    const { owner, organization, user } = await newOrganization(server);
    const last = await owner.call('DELETE', `/organizations/${organization.id}/users/${user.id}`);
    expect(last.status).toBe(409);
    expect((await owner.call('GET', `/organizations/${organization.id}/users/${user.id}`)).status).toBe(200);
    for (const body of [{}, { accountId: 'nope' }, { accountId: 5 }, { accountId: NIL, extra: true }]) {
      expect((await owner.call('POST', `/organizations/${organization.id}/users/invite`, body)).status, JSON.stringify(body)).toBe(400);
    }
    expect((await owner.call('POST', `/organizations/${organization.id}/users/invite`, { accountId: NIL })).status).toBe(404);
    expect((await owner.call('POST', `/organizations/${organization.id}/users/invite`, { accountId: user.id })).status).toBe(409);
    expect((await owner.call('GET', `/organizations/${organization.id}/invitations?status=bogus`)).status).toBe(400);
    expect((await owner.call('GET', `/organizations/${organization.id}/invitations/${NIL}`)).status).toBe(404);
    expect((await owner.call('GET', `/organizations/${organization.id}/users/not-a-uuid`)).status).toBe(404);
    expect((await owner.call('POST', `/invitations/not-a-uuid/accept`)).status).toBe(404);
    const stranger = managementClient(server, await (await newUser(server)).token());
    expect((await stranger.call('GET', `/organizations/${organization.id}/users`)).status).toBe(404);
    expect((await stranger.call('POST', `/organizations/${organization.id}/users/invite`, { accountId: user.id })).status).toBe(404);
    expect((await managementClient(server, null).call('GET', `/organizations/${organization.id}/users`)).status).toBe(401);
  });
});
