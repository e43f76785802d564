import { Column, CreateDateColumn, Entity, PrimaryColumn, PrimaryGeneratedColumn } from 'typeorm';

export type ChangeKind = 'created' | 'updated' | 'deleted';

/**
 * A change, written in the same transaction as the change; the publisher delivers it to each transport, marks it
 * per transport, prunes it later. A change event of a tenant that opted in (`events`), or, for a tenant with push
 * targets and without change events, only the push worker's notice of the change.
 */
@Entity('outbox')
export class OutboxEntity {
  @PrimaryGeneratedColumn('identity', { type: 'bigint', generatedIdentity: 'ALWAYS' })
  seq: string;

  /** The shard key: it leads the primary key (docs/scale-out.md). */
  @PrimaryColumn({ name: 'tenant_id', type: 'uuid' })
  tenantId: string;

  @Column({ type: 'text' })
  kind: ChangeKind;

  @Column({ name: 'entity_type', type: 'text' })
  entityType: string;

  @Column({ name: 'entity_id', type: 'text' })
  entityId: string;

  /** The object's version after the change (for a deletion: the version deleted). */
  @Column({ type: 'int' })
  version: number;

  /** The changed state of the object; null for a deletion. */
  @Column({ type: 'json', nullable: true })
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- jsonb: any JSON document
  payload: Record<string, any> | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  /** Whether it is a change event (MQTT, subscriptions); false: it only queues pushes. */
  @Column({ type: 'boolean', default: true })
  events: boolean;

  /** When the push queues and the subscriptions got it (every delivering replica makes this delivery). */
  @Column({ name: 'published_at', type: 'timestamptz', nullable: true })
  publishedAt: Date | null;

  /** When it was published to MQTT (only replicas with MQTT_URL make this delivery). */
  @Column({ name: 'mqtt_published_at', type: 'timestamptz', nullable: true })
  mqttPublishedAt: Date | null;
}
