import { Column, CreateDateColumn, Entity, PrimaryColumn, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';

/** An AASX package of the AASX File Server; its bytes are a file of the tenant file repository (`file`, a tfp). */
@Entity('aasx_packages')
export class AasxPackageEntity {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  /** The shard key: it leads the primary key (docs/scale-out.md). */
  @PrimaryColumn({ name: 'tenant_id', type: 'uuid' })
  tenantId: string;

  /** Insertion order: the keyset for paging; bigint comes back as text. */
  @Column({ type: 'bigint', insert: false, update: false })
  seq: string;

  /** The tfp of the package's bytes. */
  @Column({ type: 'text' })
  file: string;

  @Column({ name: 'file_name', type: 'text' })
  fileName: string;

  /** The ids of the shells the package holds, read from the package. */
  @Column({ name: 'aas_ids', type: 'text', array: true })
  aasIds: string[];

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
