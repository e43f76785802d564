import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';

@Entity('organizations')
export class OrganizationEntity {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  /** Insertion order: the keyset for paging, and the first half of the ETag. */
  @Column({ type: 'bigint', insert: false, update: false })
  seq: string;

  @Column({ type: 'text' })
  name: string;

  /** The organization created on the first start: its owners administer the server itself (signing keys). */
  @Column({ type: 'boolean', default: false })
  platform: boolean;

  /** Bumped by every update: the ETag is `"{seq}-{version}"`. */
  @Column({ type: 'integer', default: 1 })
  version: number;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
