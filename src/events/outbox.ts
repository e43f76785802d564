import { EventEmitter } from 'node:events';
import { EntityManager } from 'typeorm';
import { TenantEntity } from '../management/tenants/tenant.entity';
import type { EventEntityType } from './change-event';
import { ChangeKind } from './outbox.entity';

/**
 * Records a change inside the caller's transaction, so the record exists exactly when the change does (a rolled-back
 * write leaves none). Change events are opt-in per tenant (`eventsEnabled`); push targets need no opt-in, so a tenant
 * without change events that has push targets gets a record too, marked as no event (`events` false, without the
 * state: the push reads the current state), which only the push queues take. For other tenants this writes nothing.
 * One statement either way, none where `pushTargets` (the caller's answer to whether the tenant has any, asked in
 * the same transaction) is false and events are off. Returns whether it wrote one: the caller then calls {@link outboxWritten} after its commit.
 */
export async function recordChange(
  manager: EntityManager,
  tenant: TenantEntity,
  kind: ChangeKind,
  entityType: EventEntityType,
  entityId: string,
  version: number,
  payload: Record<string, unknown> | null,
  pushTargets?: boolean,
): Promise<boolean> {
  const events = tenant.eventsEnabled;
  // Known to take nothing (the caller asked in a statement of its own): no statement at all.
  if (!events && pushTargets === false) return false;
  const written: unknown[] = await manager.query(
    `INSERT INTO outbox (tenant_id, kind, entity_type, entity_id, version, payload, events)
     SELECT $1, $2, $3, $4, $5, $6, $7 WHERE $7 OR EXISTS (SELECT 1 FROM push_targets WHERE tenant_id = $1)
     RETURNING seq`,
    [tenant.id, kind, entityType, entityId, version, events && payload !== null ? JSON.stringify(payload) : null, events],
  );
  return written.length > 0;
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
