import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn } from 'typeorm';

export type ChangeKind = 'created' | 'updated' | 'deleted';

/** A change event, written in the same transaction as the change; the publisher delivers it, marks it, prunes it later. */
@Entity('outbox')
export class OutboxEntity {
  @PrimaryGeneratedColumn('identity', { type: 'bigint', generatedIdentity: 'ALWAYS' })
  seq: string;

  @Column({ name: 'tenant_id', type: 'uuid' })
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

  @Column({ name: 'published_at', type: 'timestamptz', nullable: true })
  publishedAt: Date | null;
}
