import { Column, CreateDateColumn, Entity, PrimaryColumn, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';

/** What an explicit instance serves: AAS Discovery (full profile) or an AAS Registry (full profile). */
export type InstanceKind = 'discovery' | 'aas-registry';

/** A named explicit discovery service or AAS registry of a tenant, at `{tenant_url}/{name}/api/v3.0`. */
@Entity('registry_instances')
export class RegistryInstanceEntity {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  /** The shard key: it leads the primary key (docs/scale-out.md). */
  @PrimaryColumn({ name: 'tenant_id', type: 'uuid' })
  tenantId: string;

  /** Creation order: the keyset for paging. */
  @Column({ type: 'bigint', insert: false, update: false })
  seq: string;

  @Column({ type: 'text' })
  name: string;

  @Column({ type: 'text' })
  kind: InstanceKind;

  @Column({ type: 'integer', default: 1 })
  version: number;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}

/** A shell descriptor of an explicit AAS registry, its submodel descriptors inside the document. */
@Entity('shell_descriptors')
export class ShellDescriptorEntity {
  @PrimaryColumn({ name: 'instance_id', type: 'uuid' })
  instanceId: string;

  @PrimaryColumn({ type: 'bigint', insert: false, update: false })
  seq: string;

  /** The shard key: it leads the primary key (docs/scale-out.md). */
  @PrimaryColumn({ name: 'tenant_id', type: 'uuid' })
  tenantId: string;

  @Column({ type: 'text' })
  id: string;

  @Column({ name: 'id_short', type: 'text', nullable: true })
  idShort: string | null;

  @Column({ name: 'asset_kind', type: 'text', nullable: true })
  assetKind: string | null;

  @Column({ name: 'asset_type', type: 'text', nullable: true })
  assetType: string | null;

  @Column({ name: 'global_asset_id', type: 'text', nullable: true })
  globalAssetId: string | null;

  /** `{name, value}` of the specific asset ids, plus `globalAssetId` as one (AASd-116), for lookups. */
  @Column({ name: 'asset_ids', type: 'jsonb' })
  assetIds: { name: string; value: string }[];

  /** Filter keys (`model/reference-keys`) of the submodel descriptors' semanticIds. */
  @Column({ name: 'submodel_semantic_ids', type: 'text', array: true })
  submodelSemanticIds: string[];

  @Column({ type: 'jsonb' })
  doc: Record<string, unknown>;

  @Column({ type: 'integer' })
  version: number;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}

/** The asset links of one shell in an explicit discovery service. */
@Entity('asset_links')
export class AssetLinkEntity {
  @PrimaryColumn({ name: 'instance_id', type: 'uuid' })
  instanceId: string;

  @PrimaryColumn({ type: 'bigint', insert: false, update: false })
  seq: string;

  /** The shard key: it leads the primary key (docs/scale-out.md). */
  @PrimaryColumn({ name: 'tenant_id', type: 'uuid' })
  tenantId: string;

  @Column({ name: 'aas_id', type: 'text' })
  aasId: string;

  /** The SpecificAssetIds as they were posted. */
  @Column({ type: 'jsonb' })
  links: Record<string, unknown>[];

  /** `{name, value}` of each link, for lookups. */
  @Column({ name: 'asset_ids', type: 'jsonb' })
  assetIds: { name: string; value: string }[];

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
