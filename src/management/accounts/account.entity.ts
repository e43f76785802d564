import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';

/** An identity account of the built-in identity service: who logs in interactively. Its id is the token's `sub`. */
@Entity('accounts')
export class AccountEntity {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  /** The login name; unique regardless of case. */
  @Column({ type: 'text' })
  email: string;

  @Column({ name: 'display_name', type: 'text', nullable: true })
  displayName: string | null;

  /** scrypt hash (see auth/secret-hash.ts); null: the account cannot log in with a password. */
  @Column({ name: 'password_hash', type: 'text', nullable: true, select: false })
  passwordHash: string | null;

  /** The password is a one-time one (the bootstrap owner's): the next login must set a new one. */
  @Column({ name: 'must_change_password', type: 'boolean', default: false })
  mustChangePassword: boolean;

  /** Since when the access tokens issued before no longer count: the account was removed from its last organization, or its password was reset. */
  @Column({ name: 'tokens_revoked_at', type: 'timestamptz', nullable: true, select: false })
  tokensRevokedAt: Date | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
