import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn } from 'typeorm';
import type { RoleName } from '../../auth/roles';

export type AssigneeType = 'user' | 'service-account' | 'group';

/** Binds a role to a user, service account or group, organization-wide (`tenantId` null) or for one tenant. */
@Entity('role_assignments')
export class RoleAssignmentEntity {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column({ name: 'organization_id', type: 'uuid' })
  organizationId: string;

  @Column({ name: 'tenant_id', type: 'uuid', nullable: true })
  tenantId: string | null;

  @Column({ type: 'bigint', insert: false, update: false })
  seq: string;

  @Column({ type: 'text' })
  role: RoleName;

  @Column({ name: 'principal_type', type: 'text' })
  principalType: AssigneeType;

  @Column({ name: 'principal_id', type: 'uuid' })
  principalId: string;

  @Column({ name: 'created_by', type: 'text' })
  createdBy: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
