import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { GroupMemberEntity } from '../../../src/management/user-groups/group-member.entity';
import { UserGroupEntity } from '../../../src/management/user-groups/user-group.entity';
import { checkScreen, goTo, launchBrowser, openConsole, signInThroughUi } from '../../support/admin-browser';
import { newServiceAccount } from '../../support/identity';
import { joinedMember, newOrganization } from '../../support/management';
import { TestServer, startTestServer } from '../../support/server';
import { hasTools } from '../../support/system-tools';

let server: TestServer;
let browser: Browser;

/** Chooses an option of a labelled select by its visible text. */
async function choose(scope: Page | ReturnType<Page['getByRole']>, label: string, option: string) {
  await scope.getByLabel(label, { exact: true }).selectOption({ label: option });
}

describe.skipIf(!hasTools('chromium'))('admin console: role assignments', () => {
  beforeAll(async () => {
    server = await startTestServer(inject('databaseUrl'));
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it('an owner assigns, sees names and effective roles, removes with confirmation; the server refuses a duplicate; a reader only looks', async () => {
    const { owner, organization, user: ownerUser } = await newOrganization(server, 'Roles Org');
    const org = organization.id;
    const tenantName = `roles-${Date.now().toString(36)}`;
    const tenant = (await owner.call('POST', `/organizations/${org}/tenants`, { name: tenantName })).body as { id: string; name: string };
    const other = (await owner.call('POST', `/organizations/${org}/tenants`, { name: `${tenantName}-b` })).body as { id: string; name: string };
    const sa = await newServiceAccount(server, org);
    const saName = (await owner.call('GET', `/organizations/${org}/service-accounts/${sa.id}`)).body.name as string;
    const alice = (await joinedMember(server, owner, org, { displayName: 'Alice Example' })).user;
    const manager = server.dataSource.manager;
    const group = await manager.save(manager.create(UserGroupEntity, { organizationId: org, name: 'group@auditors' }));
    await manager.insert(GroupMemberEntity, { groupId: group.id, principalType: 'user', principalId: alice.id });

    const { context, page, problems } = await openConsole(browser, server.url);
    await signInThroughUi(page, server.url, ownerUser);
    await goTo(page, server.url, `/org/${org}/roles`, 'Role assignments');
    const wide = page.getByRole('region', { name: 'Organization-wide role assignments' });
    await expect.poll(() => wide.textContent()).toContain('organization-owner');
    await checkScreen(page, 'roles');

    // reader organization-wide for the group
    await page.getByRole('button', { name: 'Assign a role organization-wide' }).click();
    const dialog = page.getByRole('dialog');
    await choose(dialog, 'Kind of principal', 'Group');
    await choose(dialog, 'Group', 'group@auditors');
    await choose(dialog, 'Role', 'reader');
    await checkScreen(page, 'roles-assign-dialog');
    await dialog.getByRole('button', { name: 'Assign' }).click();
    await expect.poll(() => page.getByRole('dialog').count()).toBe(0);
    await expect.poll(() => wide.textContent()).toContain('group@auditors');
    const wideOnServer = (await owner.call('GET', `/organizations/${org}/role-assignments`)).body.result;
    expect(wideOnServer).toContainEqual(expect.objectContaining({ role: 'reader', principalType: 'group', principalId: group.id, tenantId: null }));

    // contributor on one tenant for the service account
    await choose(page, 'Tenant', tenant.name);
    await page.getByRole('button', { name: 'Assign a role on this tenant' }).click();
    await choose(dialog, 'Kind of principal', 'Service account');
    await choose(dialog, 'Service account', saName);
    await choose(dialog, 'Role', 'contributor');
    await dialog.getByRole('button', { name: 'Assign' }).click();
    await expect.poll(() => page.getByRole('dialog').count()).toBe(0);
    const onTenant = page.getByRole('region', { name: `Role assignments of tenant ${tenant.name}` });
    await expect.poll(() => onTenant.textContent()).toContain(saName);
    expect(await onTenant.textContent()).toContain('contributor');
    expect(await onTenant.textContent()).toContain(ownerUser.email); // granted by the owner, shown by name
    const tenantOnServer = (await owner.call('GET', `/organizations/${org}/cloud/${tenant.id}/role-assignments`)).body.result;
    expect(tenantOnServer).toEqual([expect.objectContaining({ role: 'contributor', principalType: 'service-account', principalId: sa.id })]);
    await checkScreen(page, 'roles-assigned');

    // the same again: the server refuses it, and says why
    await page.getByRole('button', { name: 'Assign a role on this tenant' }).click();
    await choose(dialog, 'Kind of principal', 'Service account');
    await choose(dialog, 'Service account', saName);
    await choose(dialog, 'Role', 'contributor');
    await dialog.getByRole('button', { name: 'Assign' }).click();
    await expect.poll(() => dialog.getByRole('alert').textContent()).toContain('That principal has this role here already.');
    await checkScreen(page, 'roles-assign-refused');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    expect((await owner.call('GET', `/organizations/${org}/cloud/${tenant.id}/role-assignments`)).body.result).toHaveLength(1);

    // effective roles of the user: through the group, organization-wide, cascading to both tenants
    const effective = page.getByRole('region', { name: 'Effective roles' });
    await choose(effective, 'Kind of principal', 'User');
    await choose(effective, 'User', `Alice Example (${alice.email})`);
    await expect.poll(() => effective.textContent()).toContain('reader: through group group@auditors');
    const aliceTenants = effective.getByRole('region', { name: `Roles of Alice Example (${alice.email}) on tenants` });
    await expect.poll(() => aliceTenants.textContent()).toContain(other.name);
    expect(await aliceTenants.textContent()).toContain(tenant.name);
    expect(await aliceTenants.textContent()).toContain('reader: organization-wide role, through group group@auditors');
    await checkScreen(page, 'roles-effective-user');

    // effective roles of the service account: its tenant role, assigned directly, on that tenant only
    await choose(effective, 'Kind of principal', 'Service account');
    await choose(effective, 'Service account', saName);
    const saTenants = effective.getByRole('region', { name: `Roles of ${saName} on tenants` });
    await expect.poll(() => saTenants.textContent()).toContain('contributor: assigned directly');
    expect(await saTenants.textContent()).toContain(tenant.name);
    expect(await saTenants.textContent()).not.toContain(other.name);
    expect(await effective.textContent()).toContain('No organization-wide role.');
    await checkScreen(page, 'roles-effective-service-account');

    // removing asks first; then the server no longer has it, and the effective roles follow
    await onTenant.getByRole('button', { name: `Remove contributor of ${saName}` }).click();
    const confirm = page.getByRole('dialog', { name: 'Remove this role assignment?' });
    expect(await confirm.textContent()).toContain(saName);
    await checkScreen(page, 'roles-remove-confirm');
    await confirm.getByRole('button', { name: 'Remove the role' }).click();
    await expect.poll(() => page.getByRole('dialog').count()).toBe(0);
    await expect.poll(() => page.getByText('No role assignment for this tenant alone.').count()).toBe(1);
    expect((await owner.call('GET', `/organizations/${org}/cloud/${tenant.id}/role-assignments`)).body.result).toEqual([]);
    await expect.poll(() => effective.textContent()).toContain('No role on any tenant.');
    expect(problems).toEqual([]);
    await context.close();

    // a reader (through the group) sees the assignments by name and the effective roles, and no way to change them
    const reader = await openConsole(browser, server.url);
    await signInThroughUi(reader.page, server.url, alice);
    await goTo(reader.page, server.url, `/org/${org}/roles`, 'Role assignments');
    const readerWide = reader.page.getByRole('region', { name: 'Organization-wide role assignments' });
    await expect.poll(() => readerWide.textContent()).toContain('group@auditors');
    expect(await reader.page.getByText('only an organization owner changes them').count()).toBe(1);
    expect(await reader.page.getByRole('button', { name: /^Assign/ }).count()).toBe(0);
    expect(await reader.page.getByRole('button', { name: /^Remove/ }).count()).toBe(0);
    await checkScreen(reader.page, 'roles-reader');
    expect(reader.problems).toEqual([]);
    await reader.context.close();
  });
});
