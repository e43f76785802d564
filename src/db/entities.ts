import { ShellEntity } from '../aas/shells/shell.entity';
import { OutboxEntity } from '../events/outbox.entity';
import { OrganizationEntity } from '../management/organizations/organization.entity';
import { TenantEntity } from '../management/tenants/tenant.entity';

export const entities = [OrganizationEntity, TenantEntity, ShellEntity, OutboxEntity];
