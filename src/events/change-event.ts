import { gzip } from 'node:zlib';
import type { EntityManager } from 'typeorm';
import { promisify } from 'node:util';
import { encodeBase64Url } from '../common/base64url';
import { EVENT_OBJECTS, EVENT_TYPE_PREFIX, EventEntityType, MAX_MESSAGE_BYTES, METAMODEL_SCHEMA, topicOf } from '../common/events';
import type { ChangeKind } from './outbox.entity';

export { EVENT_OBJECTS, EVENT_TYPE_PREFIX, MAX_MESSAGE_BYTES, METAMODEL_SCHEMA, topicOf };
export type { EventEntityType };

const gzipAsync = promisify(gzip);

/**
 * One committed change of a shell, submodel or concept description, as the publisher delivers it (to MQTT, to the
 * push targets, to GraphQL subscriptions). `seq` is the outbox row's id: the event id, unique and increasing in
 * commit order per object.
 */
export interface ChangeEvent {
  seq: string;
  tenantId: string;
  tenantName: string;
  kind: ChangeKind;
  entityType: EventEntityType;
  entityId: string;
  /** The object's version (its ETag's counter) after the change; for a deletion, the version it deleted. */
  version: number;
  /** When the change was made (its transaction's time). */
  time: Date;
  /** The object's state after the change, as the repository's GET answers it; null for a deletion. */
  state: Record<string, unknown> | null;
}

/**
 * Work done inside the publisher's delivery transaction for the events it delivers, in delivery order (e.g. queueing
 * pushes). It commits with the events' delivery or not at all; a hook that throws makes the batch retried later.
 */
export type DeliveredHook = (manager: EntityManager, events: ChangeEvent[]) => Promise<void>;

/** The URL that reads the object's current state (the repository's GET by id). */
export function stateUrlOf(event: Pick<ChangeEvent, 'entityType' | 'entityId'>, tenantUrl: string): string {
  return `${tenantUrl}/api/v3.0/${EVENT_OBJECTS[event.entityType].path}/${encodeBase64Url(event.entityId)}`;
}

/** What a slim event carries instead of the state: enough to tell what changed and where to read it. */
export interface SlimData {
  id: string;
  kind: ChangeKind;
  version: number;
  url: string;
  /** Bytes of the gzipped full event it stands for. */
  fullBytes: number;
}

/**
 * The CloudEvents 1.0 envelope (structured mode, JSON) of an event. `slim` (an extension attribute) tells a full
 * event (`data` is the state, null for a deletion; `dataschema` the metamodel's schema of the object) from a slim
 * one (`data` is {@link SlimData}; `dataschema` this server's `#/components/schemas/SlimEvent` of the AsyncAPI
 * document). Extension attributes: `tenant`, `objectversion`, `slim`.
 */
export function envelopeOf(event: ChangeEvent, tenantUrl: string, slim?: SlimData): Record<string, unknown> {
  const object = EVENT_OBJECTS[event.entityType];
  return {
    specversion: '1.0',
    id: event.seq,
    source: `${tenantUrl}/api/v3.0/${object.path}`,
    type: `${EVENT_TYPE_PREFIX}.${object.type}.${event.kind}`,
    subject: event.entityId,
    time: event.time.toISOString(),
    datacontenttype: 'application/json',
    dataschema: slim ? `${tenantUrl}/api/v3.0/asyncapi.json#/components/schemas/SlimEvent` : `${METAMODEL_SCHEMA}#/definitions/${object.schema}`,
    tenant: event.tenantName,
    objectversion: event.version,
    slim: !!slim,
    data: slim ?? event.state,
  };
}

/**
 * The bytes of an event's transport message: its envelope as JSON, gzipped. A full event over `maxBytes` is sent
 * slim instead (the object's id, kind and version, and the URL to read its state).
 */
export async function messageOf(event: ChangeEvent, tenantUrl: string, maxBytes = MAX_MESSAGE_BYTES, stateJson?: string | null): Promise<{ bytes: Buffer; slim: boolean }> {
  // With the state's JSON text at hand (as the outbox stores it), it is spliced in rather than parsed and rewritten.
  const text = stateJson === undefined ? JSON.stringify(envelopeOf(event, tenantUrl)) : splice(JSON.stringify(envelopeOf({ ...headOf(event), state: null }, tenantUrl)), stateJson);
  const full = await gzipAsync(text);
  if (full.length <= maxBytes) return { bytes: full, slim: false };
  const slim: SlimData = { id: event.entityId, kind: event.kind, version: event.version, url: stateUrlOf(event, tenantUrl), fullBytes: full.length };
  return { bytes: await gzipAsync(JSON.stringify(envelopeOf(event, tenantUrl, slim))), slim: true };
}

/** An event without its state (the fields an envelope's head needs). */
function headOf(event: ChangeEvent): Omit<ChangeEvent, 'state'> {
  const { seq, tenantId, tenantName, kind, entityType, entityId, version, time } = event;
  return { seq, tenantId, tenantName, kind, entityType, entityId, version, time };
}

/** An envelope's JSON (ending in `"data":null}`) with `stateJson` as its data. */
function splice(envelope: string, stateJson: string | null): string {
  const tail = '"data":null}';
  if (!envelope.endsWith(tail)) throw new Error('an envelope ends with its data');
  return stateJson === null ? envelope : `${envelope.slice(0, -'null}'.length)}${stateJson}}`;
}
