import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';

/** A user of an organization: an identity account that accepted an invitation (or created the organization). */
@Entity('organization_users')
export class OrganizationUserEntity {
  @PrimaryColumn({ name: 'organization_id', type: 'uuid' })
  organizationId: string;

  @PrimaryColumn({ name: 'account_id', type: 'uuid' })
  accountId: string;

  @Column({ type: 'bigint', insert: false, update: false })
  seq: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
