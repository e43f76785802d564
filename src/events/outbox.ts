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
 * `payload`: the state after the change, or its JSON text where the caller wrote it already (a large document, in slices).
 */
export async function recordChange(
  manager: EntityManager,
  tenant: TenantEntity,
  kind: ChangeKind,
  entityType: EventEntityType,
  entityId: string,
  version: number,
  payload: Record<string, unknown> | string | null,
  pushTargets?: boolean,
): Promise<boolean> {
  const events = tenant.eventsEnabled;
  // Known to take nothing (the caller asked in a statement of its own): no statement at all.
  if (!events && pushTargets === false) return false;
  const written: unknown[] = await manager.query(
    `INSERT INTO outbox (tenant_id, kind, entity_type, entity_id, version, payload, events)
     SELECT $1, $2, $3, $4, $5, $6, $7 WHERE $7 OR EXISTS (SELECT 1 FROM push_targets WHERE tenant_id = $1)
     RETURNING seq`,
    [tenant.id, kind, entityType, entityId, version, events && payload !== null ? (typeof payload === 'string' ? payload : JSON.stringify(payload)) : null, events],
  );
  return written.length > 0;
}

/**
 * SQL of a CTE named `outbox_row` that records a change as `recordChange` does, for a statement that makes the change
 * itself: one outbox row for each row of the CTE `changed` (`version`: the version after the change, or the one
 * deleted), where events are on for the tenant (`$1`) or it has push targets. `bind` adds a parameter to the
 * statement; `$2` is the entity's id. The CTE returns a row for each outbox row.
 */
export function changeRecordCte(
  tenant: TenantEntity,
  kind: ChangeKind,
  entityType: EventEntityType,
  payload: Record<string, unknown> | null,
  changed: string,
  bind: (value: unknown) => string,
): string {
  const events = bind(tenant.eventsEnabled);
  const state = bind(tenant.eventsEnabled && payload !== null ? JSON.stringify(payload) : null);
  return `outbox_row AS (INSERT INTO outbox (tenant_id, kind, entity_type, entity_id, version, payload, events)
      SELECT $1, ${bind(kind)}::text, ${bind(entityType)}::text, $2, ${changed}.version, ${state}::json, ${events}::boolean FROM ${changed}
      WHERE ${events}::boolean OR EXISTS (SELECT 1 FROM push_targets WHERE tenant_id = $1)
      RETURNING 1)`;
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
