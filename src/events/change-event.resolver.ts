import { GraphQLJSONObject } from 'graphql-scalars';
import { Arg, Authorized, Field, ID, Int, ObjectType, Resolver, Root, SubscribeResolverData, Subscription, registerEnumType } from 'type-graphql';
import { admitToTenant } from '../auth/policy';
import type { Context } from '../graphql/context';
import type { ChangeEvent } from './change-event';
import { MAX_WAITING_EVENTS, listen } from './hub';

export enum ChangeKindValue {
  created = 'created',
  updated = 'updated',
  deleted = 'deleted',
}
registerEnumType(ChangeKindValue, { name: 'ChangeKind', description: 'What a change event reports.' });

export enum ChangeObjectType {
  AssetAdministrationShell = 'AssetAdministrationShell',
  Submodel = 'Submodel',
  ConceptDescription = 'ConceptDescription',
}
registerEnumType(ChangeObjectType, { name: 'ChangeObjectType', description: 'The kind of object a change event is about (its modelType).' });

@ObjectType('ChangeEvent', { description: 'A committed change of a shell, submodel or concept description (the MQTT events, README "Change events").' })
export class ChangeEventType {
  @Field(() => ID, { description: 'The event id (the outbox id): unique, increasing in commit order; the same as the MQTT event\'s.' })
  id: string;

  @Field()
  tenant: string;

  @Field(() => ChangeKindValue)
  kind: ChangeKindValue;

  @Field(() => ChangeObjectType)
  type: ChangeObjectType;

  @Field({ description: 'The id of the object that changed.' })
  objectId: string;

  @Field(() => Int, { description: 'The object\'s version after the change (the counter of its ETag); for a deletion, the version deleted.' })
  version: number;

  @Field({ description: 'When the change was made (its transaction\'s time).' })
  time: Date;

  @Field(() => GraphQLJSONObject, { nullable: true, description: 'The object after the change, as the repository answers it; null for a deletion.' })
  state: Record<string, unknown> | null;
}

interface ChangeEventArgs {
  tenant: string;
  types?: ChangeObjectType[] | null;
  kinds?: ChangeKindValue[] | null;
}

@Resolver(() => ChangeEventType)
export class ChangeEventResolver {
  @Authorized('reader')
  @Subscription(() => ChangeEventType, {
    description:
      'The change events of a tenant that opted in (`eventsEnabled`), from now on, optionally only of some object types and kinds. ' +
      'Served over WebSocket at /graphql (graphql-ws); the token goes in the connection_init payload as `Authorization: Bearer ...`. Needs `reader` on the tenant.',
    subscribe: subscribeToChanges,
  })
  changeEvents(
    @Root() event: ChangeEvent,
    @Arg('tenant') _tenant: string,
    @Arg('types', () => [ChangeObjectType], { nullable: true }) _types?: ChangeObjectType[] | null,
    @Arg('kinds', () => [ChangeKindValue], { nullable: true }) _kinds?: ChangeKindValue[] | null,
  ): ChangeEventType {
    return {
      id: event.seq,
      tenant: event.tenantName,
      kind: event.kind as ChangeKindValue,
      type: event.entityType as ChangeObjectType,
      objectId: event.entityId,
      version: event.version,
      time: event.time,
      state: event.state,
    };
  }
}

/**
 * The subscription's source: checked by the same access rule as its field (the field's `@Authorized` runs on each
 * event as it is resolved; this runs once, before anything is listened to, so a caller without access gets the
 * not-found or forbidden error at once), then the hub's events of that tenant, filtered.
 */
async function subscribeToChanges({ args, context }: SubscribeResolverData<unknown, ChangeEventArgs, Context>): Promise<AsyncIterable<ChangeEvent>> {
  const { tenant: name, types, kinds } = args;
  const tenant = await admitToTenant(context, name, 'reader');
  return listen(
    context.services.changes,
    (event) => event.tenantId === tenant.id && (!types?.length || types.includes(event.entityType as ChangeObjectType)) && (!kinds?.length || kinds.includes(event.kind as ChangeKindValue)),
    MAX_WAITING_EVENTS,
  );
}
