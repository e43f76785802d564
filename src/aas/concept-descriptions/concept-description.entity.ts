import { Column, CreateDateColumn, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';

/** A concept description stored as its AAS JSON document, with its filter columns beside it. */
@Entity('concept_descriptions')
export class ConceptDescriptionEntity {
  @PrimaryColumn({ name: 'tenant_id', type: 'uuid' })
  tenantId: string;

  /** Insertion order; the keyset for paging. */
  @PrimaryColumn({ type: 'bigint', insert: false, update: false })
  seq: string;

  /** The AAS identifier; unique per tenant through an index on its MD5 (see the migration). */
  @Column({ type: 'text' })
  id: string;

  @Column({ name: 'id_short', type: 'text', nullable: true })
  idShort: string | null;

  /** Canonical keys of the `isCaseOf` references (`model/reference-keys`). */
  @Column({ name: 'is_case_of', type: 'text', array: true })
  isCaseOf: string[];

  /** Canonical keys of the embedded data specifications' `dataSpecification` references. */
  @Column({ name: 'data_specifications', type: 'text', array: true })
  dataSpecifications: string[];

  @Column({ type: 'jsonb' })
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- jsonb: any JSON document
  doc: Record<string, any>;

  @Column({ type: 'integer' })
  version: number;

  /** The newest version of the AAS metamodel its content needs ('3.0' or '3.1'; src/aas/versions). */
  @Column({ name: 'aas_version', type: 'text' })
  aasVersion: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
