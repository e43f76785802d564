import { CHANGE_KINDS, EVENT_OBJECTS, EVENT_TYPE_PREFIX, EventEntityType, MAX_MESSAGE_BYTES, METAMODEL_SCHEMA, topicOf } from '../../src/common/events';
import type { Json } from './bundle';

/**
 * The AsyncAPI 3.0 document of a tenant's change events (`GET {tenant_url}/api/v3.0/asyncapi.json`, beside the
 * OpenAPI document): the MQTT broker, one channel per topic (README "Change events"), the CloudEvents envelope of
 * full and slim events. Built from the same names the publisher uses (src/common/events.ts).
 */
export interface AsyncApiOptions {
  /** `{tenant_url}` of the tenant the copy is for. */
  tenantUrl: string;
  tenant: string;
  /** The broker (MQTT_URL, without credentials); absent: the server publishes no MQTT (subscriptions only). */
  mqttUrl?: string;
}

const ENTITY_TYPES = Object.keys(EVENT_OBJECTS) as EventEntityType[];

/** `{Shell|Submodel|ConceptDescription}{Created|Updated|Deleted}`: a channel's, operation's and message's name. */
const nameOf = (entityType: EventEntityType, kind: string) =>
  `${entityType === 'AssetAdministrationShell' ? 'Shell' : entityType}${kind[0].toUpperCase()}${kind.slice(1)}`;

/** The envelope's members (CloudEvents 1.0 structured mode and this server's extension attributes). */
function envelopeSchema(entityType: EventEntityType, kind: string, tenantUrl: string): Json {
  const object = EVENT_OBJECTS[entityType];
  return {
    type: 'object',
    required: ['specversion', 'id', 'source', 'type', 'subject', 'time', 'datacontenttype', 'dataschema', 'tenant', 'objectversion', 'slim', 'data'],
    properties: {
      specversion: { const: '1.0' },
      id: { type: 'string', description: 'The event id (the outbox id): unique, increasing in commit order per object. Repeats (at-least-once delivery) carry the same id.' },
      source: { const: `${tenantUrl}/api/v3.0/${object.path}` },
      type: { const: `${EVENT_TYPE_PREFIX}.${object.type}.${kind}` },
      subject: { type: 'string', description: `The ${entityType}'s id.` },
      time: { type: 'string', format: 'date-time', description: "The change's time (its transaction's start)." },
      datacontenttype: { const: 'application/json' },
      dataschema: { type: 'string', format: 'uri', description: `The metamodel's ${object.schema} schema for a full event, #/components/schemas/SlimEvent of this document for a slim one.` },
      tenant: { type: 'string', description: 'The tenant (the repository name in the topic).' },
      objectversion: { type: 'integer', minimum: 0, description: "The object's version after the change (the counter of its ETag); for a deletion, the version deleted." },
      slim: { type: 'boolean', description: `true when the full event's gzipped message would exceed ${MAX_MESSAGE_BYTES} bytes: then data is a SlimEvent.` },
      data: { description: 'The state (full event) or a SlimEvent (slim event): see `slim`.' },
    },
    if: { properties: { slim: { const: true } } },
    then: { properties: { data: { $ref: '#/components/schemas/SlimEvent' }, dataschema: { const: `${tenantUrl}/api/v3.0/asyncapi.json#/components/schemas/SlimEvent` } } },
    else: {
      properties: {
        data:
          kind === 'deleted'
            ? { type: 'null', description: 'A deleted object has no state.' }
            : { type: 'object', description: `The ${entityType} after the change, as GET answers it (${METAMODEL_SCHEMA}#/definitions/${object.schema}).` },
        dataschema: { const: `${METAMODEL_SCHEMA}#/definitions/${object.schema}` },
      },
    },
  };
}

export function asyncApiDocument(options: AsyncApiOptions): Json {
  const channels: Json = {};
  const operations: Json = {};
  const messages: Json = {};
  for (const entityType of ENTITY_TYPES) {
    for (const kind of CHANGE_KINDS) {
      const name = nameOf(entityType, kind);
      const address = topicOf({ tenantName: options.tenant, entityType, kind });
      messages[name] = {
        name,
        title: `${entityType} ${kind}`,
        contentType: 'application/cloudevents+json',
        summary: `A ${entityType} of tenant ${options.tenant} was ${kind}. The MQTT payload is this envelope as JSON, gzipped (MQTT 5 user property content-encoding: gzip).`,
        payload: envelopeSchema(entityType, kind, options.tenantUrl),
        bindings: { mqtt: { contentType: 'application/cloudevents+json', bindingVersion: '0.2.0' } },
      };
      channels[name] = {
        address,
        title: address,
        description: `Eclipse BaSyx's topic for this event, with the tenant as the repository's name. Only while the tenant has change events on (eventsEnabled).`,
        ...(options.mqttUrl ? { servers: [{ $ref: '#/servers/broker' }] } : {}),
        messages: { [name]: { $ref: `#/components/messages/${name}` } },
      };
      operations[`receive${name}`] = {
        action: 'receive',
        channel: { $ref: `#/channels/${name}` },
        messages: [{ $ref: `#/channels/${name}/messages/${name}` }],
        bindings: { mqtt: { qos: 1, bindingVersion: '0.2.0' } },
      };
    }
  }
  const broker = options.mqttUrl ? new URL(options.mqttUrl) : undefined;
  return {
    asyncapi: '3.0.0',
    info: {
      title: `Change events of tenant ${options.tenant}`,
      version: '1.0.0',
      description:
        'Committed changes of the tenant\'s shells, submodels and concept descriptions (created, updated, deleted; element-level changes fire none), ' +
        'delivered at least once, in commit order per object, over MQTT (QoS 1) as gzipped CloudEvents 1.0. ' +
        `A message is at most ${MAX_MESSAGE_BYTES} bytes: a larger event is sent slim. The same events reach GraphQL subscriptions (changeEvents at /graphql over WebSocket).`,
    },
    ...(broker
      ? { servers: { broker: { host: broker.host, protocol: broker.protocol.replace(/:$/, ''), protocolVersion: '5', description: 'The MQTT broker the server publishes to (MQTT_URL).' } } }
      : {}),
    defaultContentType: 'application/cloudevents+json',
    channels,
    operations,
    components: {
      messages,
      schemas: {
        SlimEvent: {
          type: 'object',
          description: 'What a slim event carries instead of the state: what changed and where to read it.',
          required: ['id', 'kind', 'version', 'url', 'fullBytes'],
          additionalProperties: false,
          properties: {
            id: { type: 'string', description: "The object's id." },
            kind: { enum: [...CHANGE_KINDS] },
            version: { type: 'integer', minimum: 0 },
            url: { type: 'string', format: 'uri', description: 'GET reads the object (its current state, which may be newer).' },
            fullBytes: { type: 'integer', description: 'The size of the gzipped full event it stands for.' },
          },
        },
      },
    },
  };
}
