import { Column, CreateDateColumn, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';

/** A shell stored as its AAS JSON document, with the columns that queries filter on pulled out beside it. */
@Entity('shells')
export class ShellEntity {
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

  @Column({ name: 'asset_kind', type: 'text' })
  assetKind: string;

  @Column({ name: 'asset_type', type: 'text', nullable: true })
  assetType: string | null;

  @Column({ name: 'global_asset_id', type: 'text', nullable: true })
  globalAssetId: string | null;

  /** `{name, value}` pairs of the specific asset ids, plus `globalAssetId` as one, for the `assetIds` filter. */
  @Column({ name: 'asset_ids', type: 'jsonb' })
  assetIds: { name: string; value: string }[];

  /** The texts of the displayName, every language, for the displayName filters (index: see migration FilterQueries). */
  @Column({ name: 'display_names', type: 'text', array: true })
  displayNames: string[];

  /** The ids of the submodels the shell references (`referencedSubmodelIds`), for search (migration ShellSubmodelIds). */
  @Column({ name: 'submodel_ids', type: 'text', array: true })
  submodelIds: string[];

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
