import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn } from 'typeorm';

/** A client secret of a service account. Only its slow hash is kept; the value is shown once, at creation. */
@Entity('service_account_secrets')
export class ServiceAccountSecretEntity {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column({ name: 'service_account_id', type: 'uuid' })
  serviceAccountId: string;

  @Column({ type: 'bigint', insert: false, update: false })
  seq: string;

  /** scrypt hash (auth/secret-hash.ts). Never selected unless asked for, never in a response. */
  @Column({ type: 'text', select: false })
  hash: string;

  /** The value's first characters, to tell secrets apart. */
  @Column({ type: 'text' })
  hint: string;

  @Column({ type: 'text', nullable: true })
  description: string | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @Column({ name: 'expires_at', type: 'timestamptz', nullable: true })
  expiresAt: Date | null;
}
