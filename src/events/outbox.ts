import { EventEmitter } from 'node:events';
import { EntityManager } from 'typeorm';
import { TenantEntity } from '../management/tenants/tenant.entity';
import type { EventEntityType } from './change-event';
import { ChangeKind } from './outbox.entity';

/**
 * Records a change event inside the caller's transaction, so the event exists exactly when the change does (a
 * rolled-back write leaves no event). Change events are opt-in per tenant; for other tenants this writes nothing.
 * Returns whether it wrote one: the caller then calls {@link outboxWritten} after its commit.
 */
export async function recordChange(
  manager: EntityManager,
  tenant: TenantEntity,
  kind: ChangeKind,
  entityType: EventEntityType,
  entityId: string,
  version: number,
  payload: Record<string, unknown> | null,
): Promise<boolean> {
  if (!tenant.eventsEnabled) return false;
  await manager.query('INSERT INTO outbox (tenant_id, kind, entity_type, entity_id, version, payload) VALUES ($1, $2, $3, $4, $5, $6)', [
    tenant.id,
    kind,
    entityType,
    entityId,
    version,
    payload === null ? null : JSON.stringify(payload),
  ]);
  return true;
}

/**
 * Committed outbox writes of this process: the publishers of this process start a delivery round at once instead of
 * at their next poll. (Writes of other replicas are found by polling.)
 */
export const outboxWrites = new EventEmitter().setMaxListeners(0);

/** Tells this process's publishers that an outbox row was committed. */
export function outboxWritten(): void {
  outboxWrites.emit('written');
}
