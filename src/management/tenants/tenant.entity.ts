import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';

@Entity('tenants')
export class TenantEntity {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column({ name: 'organization_id', type: 'uuid' })
  organizationId: string;

  /** Insertion order: the keyset for paging, and the first half of the ETag. */
  @Column({ type: 'bigint', insert: false, update: false })
  seq: string;

  /** Bumped by every update. */
  @Column({ type: 'integer', default: 1 })
  version: number;

  /** The slug in the tenant URL: lowercase letters, digits and inner dashes, at most 63 characters (a DNS label). */
  @Column({ type: 'text', unique: true })
  name: string;

  @Column({ name: 'friendly_name', type: 'text', nullable: true })
  friendlyName: string | null;

  @Column({ type: 'text', nullable: true })
  tag: string | null;

  /** Showcase mode: the tenant API needs no token. Never for production data. */
  @Column({ type: 'boolean', default: false })
  showcase: boolean;

  /** Change events are an opt-in tenant feature. */
  @Column({ name: 'events_enabled', type: 'boolean', default: false })
  eventsEnabled: boolean;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
