import { ConceptDescriptionEntity } from '../aas/concept-descriptions/concept-description.entity';
import { ShellEntity } from '../aas/shells/shell.entity';
import { SubmodelEntity } from '../aas/submodels/submodel.entity';
import { OutboxEntity } from '../events/outbox.entity';
import { FileEntity } from '../files/file.entity';
import { AasxPackageEntity } from '../aas/packages/package.entity';
import { AssetLinkEntity, RegistryInstanceEntity, ShellDescriptorEntity } from '../aas/registry/registry.entities';
import { OrganizationEntity } from '../management/organizations/organization.entity';
import { TenantEntity } from '../management/tenants/tenant.entity';
import { AccountEntity } from '../management/accounts/account.entity';
import { InvitationEntity } from '../management/invitations/invitation.entity';
import { ServiceAccountEntity } from '../management/service-accounts/service-account.entity';
import { ServiceAccountSecretEntity } from '../management/service-accounts/service-account-secret.entity';
import { UserGroupEntity } from '../management/user-groups/user-group.entity';
import { GroupMemberEntity } from '../management/user-groups/group-member.entity';
import { RoleAssignmentEntity } from '../management/role-assignments/role-assignment.entity';
import { IdentityTrustEntity } from '../management/federation/identity-trust.entity';
import { OrganizationUserEntity } from '../management/users/organization-user.entity';

export const entities = [
  OrganizationEntity,
  TenantEntity,
  ShellEntity,
  SubmodelEntity,
  ConceptDescriptionEntity,
  OutboxEntity,
  AccountEntity,
  OrganizationUserEntity,
  InvitationEntity,
  ServiceAccountEntity,
  ServiceAccountSecretEntity,
  UserGroupEntity,
  GroupMemberEntity,
  RoleAssignmentEntity,
  IdentityTrustEntity,
  FileEntity,
  AasxPackageEntity,
  RegistryInstanceEntity,
  ShellDescriptorEntity,
  AssetLinkEntity,
];
