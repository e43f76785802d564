import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';

/** Stored states; "expired" is a pending invitation whose `expiresAt` has passed, computed when read. */
export type InvitationState = 'pending' | 'accepted' | 'revoked';

@Entity('invitations')
export class InvitationEntity {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column({ name: 'organization_id', type: 'uuid' })
  organizationId: string;

  /** The invited identity account. */
  @Column({ name: 'account_id', type: 'uuid' })
  accountId: string;

  @Column({ type: 'bigint', insert: false, update: false })
  seq: string;

  @Column({ type: 'text', default: 'pending' })
  state: InvitationState;

  /** Subject of the principal that invited. */
  @Column({ name: 'invited_by', type: 'text' })
  invitedBy: string;

  @Column({ name: 'expires_at', type: 'timestamptz' })
  expiresAt: Date;

  @Column({ type: 'integer', default: 1 })
  version: number;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
