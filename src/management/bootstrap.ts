import { DataSource } from 'typeorm';
import { hashSecret, newSecretValue } from '../auth/secret-hash';
import { AccountEntity } from './accounts/account.entity';
import { OrganizationEntity } from './organizations/organization.entity';
import { RoleAssignmentEntity } from './role-assignments/role-assignment.entity';
import { ServiceAccountSecretEntity } from './service-accounts/service-account-secret.entity';
import { ServiceAccountEntity } from './service-accounts/service-account.entity';
import { TenantEntity } from './tenants/tenant.entity';
import { OrganizationUserEntity } from './users/organization-user.entity';

export interface Bootstrapped {
  organization: OrganizationEntity;
  tenant: TenantEntity;
  owner: AccountEntity;
  /** The owner's one-time password: said once, in the log; only its hash is kept, and it must be changed at first login. */
  oneTimePassword: string;
}

/**
 * On the very first start (no organization yet): the first organization, its single user (an identity account
 * of the built-in identity service, `organization-owner`) with a generated one-time password, and its tenant
 * named `default`; with `provisioningClient`, also a service account owning it. Several replicas starting at once create it once. Returns undefined when it existed already.
 */
export async function bootstrap(
  dataSource: DataSource,
  options: { ownerEmail: string; defaultTenantShowcase: boolean; provisioningClient?: { id: string; secret: string } },
): Promise<Bootstrapped | undefined> {
  const oneTimePassword = newSecretValue();
  const passwordHash = await hashSecret(oneTimePassword);
  const clientSecretHash = options.provisioningClient && (await hashSecret(options.provisioningClient.secret));
  return dataSource.transaction(async (manager) => {
    // Serialize concurrent first starts of several replicas.
    await manager.query('LOCK TABLE organizations IN EXCLUSIVE MODE');
    if ((await manager.count(OrganizationEntity)) > 0) return undefined;
    const organization = await manager.save(manager.create(OrganizationEntity, { name: 'default', platform: true }));
    const owner = await manager.save(
      manager.create(AccountEntity, { email: options.ownerEmail, displayName: 'Organization owner', passwordHash, mustChangePassword: true }),
    );
    await manager.insert(OrganizationUserEntity, { organizationId: organization.id, accountId: owner.id });
    await manager.insert(RoleAssignmentEntity, {
      organizationId: organization.id,
      tenantId: null,
      role: 'organization-owner',
      principalType: 'user',
      principalId: owner.id,
      createdBy: 'bootstrap',
    });
    if (options.provisioningClient) {
      // For scripted set-ups (docker/compose.yaml): a service account that owns the organization, with the
      // operator's own client id and secret; only the secret's hash is kept, as for every other secret.
      const { id } = options.provisioningClient;
      await manager.insert(ServiceAccountEntity, { id, organizationId: organization.id, name: 'provisioning', description: 'Created on the first start from BOOTSTRAP_CLIENT_ID / BOOTSTRAP_CLIENT_SECRET.' });
      await manager.insert(ServiceAccountSecretEntity, { serviceAccountId: id, hash: clientSecretHash!, hint: options.provisioningClient.secret.slice(0, 4), description: 'bootstrap' });
      await manager.insert(RoleAssignmentEntity, { organizationId: organization.id, tenantId: null, role: 'organization-owner', principalType: 'service-account', principalId: id, createdBy: 'bootstrap' });
    }
    const tenant = await manager.save(
      manager.create(TenantEntity, {
        organizationId: organization.id,
        name: 'default',
        friendlyName: 'Default tenant',
        tag: null,
        showcase: options.defaultTenantShowcase,
        eventsEnabled: false,
      }),
    );
    return { organization, tenant, owner, oneTimePassword };
  });
}
