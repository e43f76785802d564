import { Column, CreateDateColumn, Entity, PrimaryColumn, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';
import type { FileMetadata } from './metadata';

/** A file of a tenant's file repository; its content lives in the blob store the row names. */
@Entity('files')
export class FileEntity {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  /** The shard key: it leads the primary key (docs/scale-out.md). */
  @PrimaryColumn({ name: 'tenant_id', type: 'uuid' })
  tenantId: string;

  /** The unique part of the tfp. */
  @Column({ name: 'document_id', type: 'uuid' })
  documentId: string;

  @Column({ name: 'file_name', type: 'text' })
  fileName: string;

  @Column({ name: 'content_type', type: 'text' })
  contentType: string;

  /** Bytes; bigint comes back from PostgreSQL as text. */
  @Column({ type: 'bigint' })
  size: string;

  /** SHA-256 of the content, lower-case hex. */
  @Column({ type: 'text' })
  sha256: string;

  /** Where the content is: `postgres` (file_chunks) or `s3`. */
  @Column({ type: 'text' })
  store: string;

  /** The current content's id: a replace writes a new one beside the old and switches over on commit. */
  @Column({ name: 'content_id', type: 'uuid' })
  contentId: string;

  /** Bytes per chunk (every chunk but the last is full), for ranges; unused by object stores. */
  @Column({ name: 'chunk_size', type: 'integer' })
  chunkSize: number;

  @Column({ type: 'jsonb' })
  metadata: FileMetadata;

  /**
   * The module that holds this file ('aasx-package'), or null for a file of the repository itself. Only its
   * holder reads, changes or removes a held file; the repository's routes and lists do not see it.
   */
  @Column({ name: 'held_by', type: 'text', nullable: true })
  heldBy: string | null;

  /** Insertion order: the keyset for paging. */
  @Column({ type: 'bigint', insert: false, update: false })
  seq: string;

  @Column({ type: 'integer', default: 1 })
  version: number;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
