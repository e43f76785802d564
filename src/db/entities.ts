import { ConceptDescriptionEntity } from '../aas/concept-descriptions/concept-description.entity';
import { ShellEntity } from '../aas/shells/shell.entity';
import { SubmodelEntity } from '../aas/submodels/submodel.entity';
import { OutboxEntity } from '../events/outbox.entity';
import { OrganizationEntity } from '../management/organizations/organization.entity';
import { TenantEntity } from '../management/tenants/tenant.entity';

export const entities = [OrganizationEntity, TenantEntity, ShellEntity, SubmodelEntity, ConceptDescriptionEntity, OutboxEntity];
