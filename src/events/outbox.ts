import { EntityManager } from 'typeorm';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import { TenantEntity } from '../management/tenants/tenant.entity';
import { ChangeKind, OutboxEntity } from './outbox.entity';

/**
 * Records a change event inside the caller's transaction, so the event exists exactly when the change does.
 * Change events are opt-in per tenant; for other tenants this writes nothing.
 */
export async function recordChange(
  manager: EntityManager,
  tenant: TenantEntity,
  kind: ChangeKind,
  entityType: string,
  entityId: string,
  payload: Record<string, unknown> | null,
): Promise<void> {
  if (!tenant.eventsEnabled) return;
  await manager.insert(OutboxEntity, {
    tenantId: tenant.id,
    kind,
    entityType,
    entityId,
    payload: payload as QueryDeepPartialEntity<OutboxEntity['payload']>,
  });
}
