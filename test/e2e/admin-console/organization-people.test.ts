import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { ServiceAccountSecretEntity } from '../../../src/management/service-accounts/service-account-secret.entity';
import { ServiceAccountEntity } from '../../../src/management/service-accounts/service-account.entity';
import { GroupMemberEntity } from '../../../src/management/user-groups/group-member.entity';
import { UserGroupEntity } from '../../../src/management/user-groups/user-group.entity';
import { OrganizationUserEntity } from '../../../src/management/users/organization-user.entity';
import { checkScreen, goTo, launchBrowser, openConsole, signInThroughUi, waitForHeading } from '../../support/admin-browser';
import { assignRole, graphql } from '../../support/grants';
import { TestUser, clientCredentialsToken, newUser } from '../../support/identity';
import { newOrganization } from '../../support/management';
import { TestServer, startTestServer } from '../../support/server';
import { hasTools } from '../../support/system-tools';

let server: TestServer;
let browser: Browser;

/** The text of a Copyable value on the page (its `<code>` carries `data-copy="{label}"`). */
const copied = (page: Page, label: string) => page.locator(`[data-copy="${label}"]`).textContent() as Promise<string>;

/** The names of the buttons inside the page's main area. */
const mainButtons = (page: Page) => page.locator('main button').evaluateAll((buttons) => buttons.map((b) => b.getAttribute('aria-label') ?? b.textContent ?? ''));

describe.skipIf(!hasTools('chromium'))('admin console: users and invitations, service accounts, user groups', () => {
  let owner: TestUser;
  let ownerToken: string;
  let organizationId: string;
  let serviceAccountId: string;
  let groupId: string;

  beforeAll(async () => {
    server = await startTestServer(inject('databaseUrl'));
    browser = await launchBrowser();
    const created = await newOrganization(server, 'People at work');
    owner = created.user;
    ownerToken = await owner.token();
    organizationId = created.organization.id;
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it('an owner invites an account (pending), revokes the invitation (revoked); an unknown account is refused with the server\'s message', async () => {
    const invitee = await newUser(server, { displayName: 'Invited Person' });
    const { context, page, problems } = await openConsole(browser, server.url);
    await signInThroughUi(page, server.url, owner);
    await goTo(page, server.url, `/org/${organizationId}/users`, 'Users and invitations');
    const users = page.getByRole('region', { name: 'Users of the organization' });
    expect(await users.textContent()).toContain(owner.email);
    await checkScreen(page, 'users');

    const accountField = page.getByLabel('Account id of the person to invite');
    await accountField.fill('00000000-0000-4000-8000-000000000000');
    await page.getByRole('button', { name: 'Invite', exact: true }).click();
    await expect.poll(() => page.getByRole('alert').allTextContents()).toEqual([expect.stringContaining("No identity account has the id '00000000-0000-4000-8000-000000000000'")]);

    await accountField.fill(invitee.id);
    await page.getByRole('button', { name: 'Invite', exact: true }).click();
    const invitations = page.getByRole('region', { name: 'Invitations to the organization' });
    await expect.poll(() => invitations.textContent()).toContain(invitee.id);
    const row = invitations.getByRole('row').filter({ hasText: invitee.id });
    expect(await row.textContent()).toContain('Pending');
    const stored = async () =>
      (await graphql(server, ownerToken, 'query ($o: ID!) { invitations(organizationId: $o) { result { accountId status } } }', { o: organizationId })).body.data
        .invitations.result as { accountId: string; status: string }[];
    expect(await stored()).toEqual([{ accountId: invitee.id, status: 'pending' }]);
    await checkScreen(page, 'users-invitation-pending');

    await row.getByRole('button', { name: `Revoke the invitation of ${invitee.id}` }).click();
    const dialog = page.getByRole('dialog', { name: 'Revoke the invitation?' });
    await expect.poll(() => dialog.isVisible()).toBe(true);
    await checkScreen(page, 'users-revoke-dialog');
    await dialog.getByRole('button', { name: 'Revoke invitation' }).click();
    await expect.poll(() => row.textContent()).toContain('Revoked');
    expect(await row.getByRole('button').count()).toBe(0);
    expect(await stored()).toEqual([{ accountId: invitee.id, status: 'revoked' }]);

    // The status filter asks the server for one status.
    await page.getByLabel('Show invitations').selectOption('pending');
    await expect.poll(() => page.getByText('No pending invitations.').count()).toBe(1);
    await page.getByLabel('Show invitations').selectOption('revoked');
    await expect.poll(() => invitations.textContent()).toContain(invitee.id);
    expect(problems).toEqual([]);
    await context.close();
  });

  it('an owner creates a service account, whose one-time secret gets a token; rotation shows a new secret that works, and the old one stops as chosen', async () => {
    const { context, page, problems } = await openConsole(browser, server.url);
    await signInThroughUi(page, server.url, owner);
    await goTo(page, server.url, `/org/${organizationId}/service-accounts`, 'Service accounts');
    await checkScreen(page, 'service-accounts');

    await page.getByRole('button', { name: 'New service account' }).click();
    const create = page.getByRole('dialog', { name: 'New service account' });
    await create.getByLabel('Name', { exact: true }).fill('Gateway Berlin');
    await create.getByLabel('Description (optional)').fill('Pushes the line sensors');
    await checkScreen(page, 'service-account-create-dialog');
    await create.getByRole('button', { name: 'Create service account' }).click();
    const panel = page.getByRole('region', { name: 'Copy the new secret of Gateway Berlin now' });
    await expect.poll(() => panel.count(), { timeout: 20_000 }).toBe(1);
    expect(await panel.textContent()).toContain('This secret cannot be shown again.');
    const account = await server.dataSource.manager.findOneByOrFail(ServiceAccountEntity, { organizationId, name: 'Gateway Berlin' });
    serviceAccountId = account.id;
    expect(account.description).toBe('Pushes the line sensors');
    expect(await copied(page, 'client id')).toBe(account.id);
    const firstSecret = await copied(page, 'client secret');
    expect(firstSecret.length).toBeGreaterThan(20);
    expect(await copied(page, 'token URL')).toBe(`${server.url}/oidc/token`);
    await checkScreen(page, 'service-account-one-time-secret');
    // The secret shown is the real one: it gets a token at the token endpoint.
    await expect(clientCredentialsToken(server, account.id, firstSecret)).resolves.toMatch(/^ey/);

    // Once hidden, the value is nowhere on the page any more.
    await page.getByRole('button', { name: 'I have copied it: hide the secret' }).click();
    await expect.poll(() => panel.count()).toBe(0);
    expect(await page.content()).not.toContain(firstSecret);
    const secrets = page.getByRole('region', { name: 'Secrets of Gateway Berlin' });
    expect(await secrets.textContent()).toContain(`${firstSecret.slice(0, 4)}…`);
    await checkScreen(page, 'service-account-details');

    // Rotation: the old secret stops at once (the choice offered), the new one works.
    await page.getByRole('button', { name: 'Rotate secret' }).click();
    const dialog = page.getByRole('dialog', { name: 'Rotate the secret of Gateway Berlin' });
    await expect.poll(() => dialog.isVisible()).toBe(true);
    await dialog.getByLabel('The current secret keeps working for').selectOption({ label: 'Stops working now' });
    await checkScreen(page, 'service-account-rotate-dialog');
    await dialog.getByRole('button', { name: 'Rotate', exact: true }).click();
    await expect.poll(() => panel.count(), { timeout: 20_000 }).toBe(1);
    const secondSecret = await copied(page, 'client secret');
    expect(secondSecret).not.toBe(firstSecret);
    expect(await panel.textContent()).toContain(`The previous secret (${firstSecret.slice(0, 4)}…) works until`);
    await expect(clientCredentialsToken(server, account.id, secondSecret)).resolves.toMatch(/^ey/);
    await expect(clientCredentialsToken(server, account.id, firstSecret)).rejects.toThrow(/client credentials refused/);
    await expect.poll(() => secrets.getByRole('row').count()).toBe(3);
    expect(await secrets.textContent()).toMatch(/Expired.*Works/);

    // An edit sends the etag: a change made meanwhile is not overwritten, the conflict is shown.
    await graphql(server, ownerToken, 'mutation ($o: ID!, $s: ID!) { updateServiceAccount(organizationId: $o, serviceAccountId: $s, input: { description: "Changed elsewhere" }) { id } }', {
      o: organizationId,
      s: account.id,
    });
    await page.getByLabel('Description', { exact: true }).fill('My description');
    await page.getByRole('button', { name: 'Save name and description' }).click();
    const conflict = page.locator('.conflict');
    await expect.poll(() => conflict.count()).toBe(1);
    expect(await conflict.textContent()).toContain('Changed elsewhere');
    expect((await server.dataSource.manager.findOneByOrFail(ServiceAccountEntity, { id: account.id })).description).toBe('Changed elsewhere');
    await conflict.getByRole('button', { name: 'Reload the current version' }).click();
    await expect.poll(() => page.getByLabel('Description', { exact: true }).inputValue()).toBe('Changed elsewhere');
    expect(problems).toEqual([]);
    await context.close();
  });

  it('an owner creates a user group: a name without group@ is refused (by the form, and by the server), a good one is created; the service account joins it', async () => {
    expect(serviceAccountId).toBeTruthy();
    const { context, page, problems } = await openConsole(browser, server.url);
    await signInThroughUi(page, server.url, owner);
    await goTo(page, server.url, `/org/${organizationId}/groups`, 'User groups');
    await checkScreen(page, 'user-groups');

    await page.getByRole('button', { name: 'New user group' }).click();
    const create = page.getByRole('dialog', { name: 'New user group' });
    const name = create.getByLabel('Name', { exact: true });
    expect(await name.inputValue()).toBe('group@');
    await name.fill('Operators');
    await create.getByRole('button', { name: 'Create user group' }).click();
    await expect.poll(() => page.getByRole('alert').allTextContents()).toEqual(["The name must start with group@ followed by the group's name."]);
    await checkScreen(page, 'user-group-bad-name');
    // What the form lets through, the server still judges, and its message is shown.
    await name.fill('group@ ');
    await create.getByRole('button', { name: 'Create user group' }).click();
    await expect.poll(() => page.getByRole('alert').allTextContents()).toEqual(["name must start with 'group@' followed by the group's name."]);
    expect(await server.dataSource.manager.countBy(UserGroupEntity, { organizationId })).toBe(0);

    await name.fill('group@operators');
    await create.getByRole('button', { name: 'Create user group' }).click();
    await waitForHeading(page, 'User group group@operators');
    const group = await server.dataSource.manager.findOneByOrFail(UserGroupEntity, { organizationId, name: 'group@operators' });
    groupId = group.id;

    // The owner is not offered to itself; the service account is.
    const addForm = page.getByRole('region', { name: 'Add members' });
    expect(await addForm.textContent()).not.toContain(owner.email);
    await addForm.getByLabel('Gateway Berlin').check();
    await addForm.getByRole('button', { name: 'Add 1 selected' }).click();
    const members = page.getByRole('region', { name: 'Members of group@operators' });
    await expect.poll(async () => ((await members.count()) ? members.textContent() : '')).toContain('Gateway Berlin');
    const stored = await graphql(server, ownerToken, 'query ($o: ID!, $g: ID!) { userGroupMembers(organizationId: $o, groupId: $g) { result { id type name } } }', {
      o: organizationId,
      g: group.id,
    });
    expect(stored.body.data.userGroupMembers.result).toEqual([{ id: serviceAccountId, type: 'service-account', name: 'Gateway Berlin' }]);
    await checkScreen(page, 'user-group');
    expect(problems).toEqual([]);
    await context.close();
  });

  it('a reader of the organization sees users, invitations, service accounts, secrets, groups and members, with no write action', async () => {
    expect(groupId).toBeTruthy();
    const reader = await newUser(server, { displayName: 'Reading Person' });
    await server.dataSource.manager.insert(OrganizationUserEntity, { organizationId, accountId: reader.id });
    await assignRole(server, organizationId, { type: 'user', id: reader.id }, 'reader');
    const { context, page, problems } = await openConsole(browser, server.url);
    await signInThroughUi(page, server.url, reader);

    await goTo(page, server.url, `/org/${organizationId}/users`, 'Users and invitations');
    await expect.poll(() => page.getByRole('region', { name: 'Users of the organization' }).textContent()).toContain(owner.email);
    expect(await page.getByRole('region', { name: 'Invitations to the organization' }).textContent()).toContain('Revoked');
    expect(await page.getByLabel('Account id of the person to invite').count()).toBe(0);
    expect(await mainButtons(page)).toEqual([]);
    await checkScreen(page, 'users-reader');

    await goTo(page, server.url, `/org/${organizationId}/service-accounts?account=${serviceAccountId}`, 'Service accounts');
    await expect.poll(() => page.getByRole('region', { name: 'Secrets of Gateway Berlin' }).count()).toBe(1);
    expect(await page.getByRole('region', { name: 'Secrets of Gateway Berlin' }).getByRole('row').count()).toBe(3);
    expect(await mainButtons(page)).toEqual(['Copy client id of Gateway Berlin']);
    expect(await page.getByLabel('Name', { exact: true }).count()).toBe(0);
    await checkScreen(page, 'service-accounts-reader');

    await goTo(page, server.url, `/org/${organizationId}/groups`, 'User groups');
    expect(await page.getByRole('region', { name: 'User groups', exact: true }).textContent()).toContain('group@operators');
    expect(await mainButtons(page)).toEqual([]);
    await page.getByRole('link', { name: 'group@operators' }).click();
    await waitForHeading(page, 'User group group@operators');
    await expect.poll(() => page.getByRole('region', { name: 'Members of group@operators' }).textContent()).toContain('Gateway Berlin');
    expect(await mainButtons(page)).toEqual([]);
    expect(await page.getByRole('region', { name: 'Add members' }).count()).toBe(0);
    await checkScreen(page, 'user-group-reader');
    expect(problems).toEqual([]);
    await context.close();
  });
  it('an owner renames a group (etag sent), removes a member, a secret, the service account, the group and a user, each after confirming', async () => {
    const joiner = await newUser(server, { displayName: 'Leaving Soon' });
    const invited = await graphql(server, ownerToken, 'mutation ($o: ID!, $a: ID!) { inviteUser(organizationId: $o, input: { accountId: $a }) { id } }', { o: organizationId, a: joiner.id });
    await graphql(server, await joiner.token(), 'mutation ($i: ID!) { acceptInvitation(invitationId: $i) { status } }', { i: invited.body.data.inviteUser.id });
    const { context, page, problems } = await openConsole(browser, server.url);
    await signInThroughUi(page, server.url, owner);
    const confirm = async (title: string, button: string) => {
      const dialog = page.getByRole('dialog', { name: title });
      await expect.poll(() => dialog.isVisible()).toBe(true);
      await dialog.getByRole('button', { name: button }).click();
      await expect.poll(() => dialog.count()).toBe(0);
    };

    // The group: renamed with its etag, its member removed, then deleted.
    await goTo(page, server.url, `/org/${organizationId}/groups/${groupId}`, 'User group group@operators');
    await page.getByLabel('Name', { exact: true }).fill('group@line-operators');
    await page.getByRole('button', { name: 'Save name and description' }).click();
    await waitForHeading(page, 'User group group@line-operators');
    await expect.poll(() => page.getByRole('region', { name: 'Members of group@line-operators' }).count()).toBe(1);
    await page.getByRole('button', { name: 'Remove Gateway Berlin from the group' }).click();
    await confirm('Remove the member from the group?', 'Remove member');
    await expect.poll(() => page.getByText('The group has no members.').count()).toBe(1);
    expect(await server.dataSource.manager.countBy(GroupMemberEntity, { groupId })).toBe(0);
    await page.getByRole('button', { name: 'Delete user group' }).click();
    await confirm('Delete user group group@line-operators?', 'Delete user group');
    await waitForHeading(page, 'User groups');
    expect(await server.dataSource.manager.countBy(UserGroupEntity, { id: groupId })).toBe(0);

    // The service account: its expired secret deleted, then the account itself.
    await goTo(page, server.url, `/org/${organizationId}/service-accounts?account=${serviceAccountId}`, 'Service accounts');
    const secrets = page.getByRole('region', { name: 'Secrets of Gateway Berlin' });
    await expect.poll(() => secrets.getByRole('row').count()).toBe(3);
    const expired = secrets.getByRole('row').filter({ hasText: 'Expired' });
    await expired.getByRole('button').click();
    await confirm('Delete this secret?', 'Delete secret');
    await expect.poll(() => secrets.getByRole('row').count()).toBe(2);
    expect(await server.dataSource.manager.countBy(ServiceAccountSecretEntity, { serviceAccountId })).toBe(1);
    await page.getByRole('button', { name: 'Delete service account' }).click();
    await confirm('Delete service account Gateway Berlin?', 'Delete service account');
    await expect.poll(() => page.getByText('The organization has no service accounts.').count()).toBe(1);
    expect(await server.dataSource.manager.countBy(ServiceAccountEntity, { id: serviceAccountId })).toBe(0);

    // A user who joined: removed from the organization.
    await goTo(page, server.url, `/org/${organizationId}/users`, 'Users and invitations');
    const users = page.getByRole('region', { name: 'Users of the organization' });
    await expect.poll(() => users.textContent()).toContain(joiner.email);
    expect(await page.getByRole('region', { name: 'Invitations to the organization' }).getByRole('row').filter({ hasText: 'Leaving Soon' }).textContent()).toContain('Accepted');
    await users.getByRole('button', { name: `Remove ${joiner.email} from the organization` }).click();
    await checkScreen(page, 'users-remove-dialog');
    await confirm('Remove the user from the organization?', 'Remove user');
    await expect.poll(() => users.textContent()).not.toContain(joiner.email);
    expect(await server.dataSource.manager.countBy(OrganizationUserEntity, { organizationId, accountId: joiner.id })).toBe(0);
    expect(problems).toEqual([]);
    await context.close();
  });
});
