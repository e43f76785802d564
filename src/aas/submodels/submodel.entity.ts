import { Column, CreateDateColumn, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';

/**
 * A submodel stored as its AAS JSON document without its elements (they are rows of `submodel_elements`, see
 * `element-rows.ts`), with the columns that queries filter on pulled out beside it.
 */
@Entity('submodels')
export class SubmodelEntity {
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

  /** `Instance` or `Template` (absent in the document means Instance). */
  @Column({ type: 'text' })
  kind: string;

  /** Filter keys of the semantic id (`model/reference-keys`). */
  @Column({ name: 'semantic_keys', type: 'text', array: true })
  semanticKeys: string[];

  /** Whether any Blob element is in the document: without one, no output needs BLOB values removed. */
  @Column({ name: 'has_blobs', type: 'boolean' })
  hasBlobs: boolean;

  @Column({ type: 'jsonb' })
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- jsonb: any JSON document
  doc: Record<string, any>;

  /** The size of the whole document's JSON, elements included (they are rows of their own): the read budget's count. */
  @Column({ name: 'doc_bytes', type: 'bigint' })
  docBytes: string;

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
