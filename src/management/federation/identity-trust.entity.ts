import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';

/**
 * Federation: an organization (or one tenant of it, `tenantId`) trusts tokens of an external issuer with this
 * audience, verified with the keys at `jwksUri`. The token's roles are read at `rolesClaim`, a dot path
 * (`roles` for Entra ID, `realm_access.roles` for Keycloak), and hold where the trust does.
 */
@Entity('identity_trusts')
export class IdentityTrustEntity {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column({ name: 'organization_id', type: 'uuid' })
  organizationId: string;

  @Column({ name: 'tenant_id', type: 'uuid', nullable: true })
  tenantId: string | null;

  @Column({ type: 'bigint', insert: false, update: false })
  seq: string;

  @Column({ type: 'text' })
  issuer: string;

  @Column({ type: 'text' })
  audience: string;

  @Column({ name: 'jwks_uri', type: 'text' })
  jwksUri: string;

  @Column({ name: 'roles_claim', type: 'text', default: 'roles' })
  rolesClaim: string;

  /** The public client registered at the issuer for the admin console: set, the console offers a sign-in with it. */
  @Column({ name: 'sign_in_client_id', type: 'text', nullable: true })
  signInClientId: string | null;

  /** The name on the console's sign-in button; none: the issuer's host. */
  @Column({ name: 'sign_in_name', type: 'text', nullable: true })
  signInName: string | null;

  @Column({ type: 'integer', default: 1 })
  version: number;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
