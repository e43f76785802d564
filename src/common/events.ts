/**
 * The names of change events, shared by the publisher (src/events/change-event.ts) and the AsyncAPI document that
 * describes them (rest-facade/openapi/asyncapi-document.ts): pure data.
 */

/** The identifiables whose changes are events, as `outbox.entity_type` names them. */
export type EventEntityType = 'AssetAdministrationShell' | 'Submodel' | 'ConceptDescription';

/** The kinds of change. */
export const CHANGE_KINDS = ['created', 'updated', 'deleted'] as const;

/** How each kind of object is named in topics, event types and URLs. */
export const EVENT_OBJECTS: Record<EventEntityType, { repository: string; collection: string; type: string; path: string; schema: string }> = {
  AssetAdministrationShell: { repository: 'aas-repository', collection: 'shells', type: 'shell', path: 'shells', schema: 'AssetAdministrationShell' },
  Submodel: { repository: 'sm-repository', collection: 'submodels', type: 'submodel', path: 'submodels', schema: 'Submodel' },
  ConceptDescription: { repository: 'cd-repository', collection: 'conceptDescriptions', type: 'concept-description', path: 'concept-descriptions', schema: 'ConceptDescription' },
};

/** The metamodel's JSON schema (V3.0), where the full events' `dataschema` points. */
export const METAMODEL_SCHEMA = 'https://raw.githubusercontent.com/admin-shell-io/aas-specs/IDTA-01001-3-0/schemas/json/aas.json';
/** The CloudEvents `type` prefix of this server's events. */
export const EVENT_TYPE_PREFIX = 'io.asset-platform';

/** The transport message limit of the platform spec (Limits: change event transport message, 512 kB). */
export const MAX_MESSAGE_BYTES = 512 * 1024;

/**
 * The MQTT topic of an event, as Eclipse BaSyx names them, with the tenant as the repository's name:
 * `aas-repository/{tenant}/shells/{created|updated|deleted}`, `sm-repository/{tenant}/submodels/...`,
 * `cd-repository/{tenant}/conceptDescriptions/...`.
 */
export function topicOf(event: { tenantName: string; entityType: EventEntityType; kind: (typeof CHANGE_KINDS)[number] }): string {
  const object = EVENT_OBJECTS[event.entityType];
  return `${object.repository}/${event.tenantName}/${object.collection}/${event.kind}`;
}
