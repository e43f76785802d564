import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';

export type MemberType = 'user' | 'service-account';

@Entity('group_members')
export class GroupMemberEntity {
  @PrimaryColumn({ name: 'group_id', type: 'uuid' })
  groupId: string;

  @PrimaryColumn({ name: 'principal_type', type: 'text' })
  principalType: MemberType;

  /** An account id (user) or a service account id. */
  @PrimaryColumn({ name: 'principal_id', type: 'uuid' })
  principalId: string;

  @Column({ type: 'bigint', insert: false, update: false })
  seq: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
