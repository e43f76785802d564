import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The tenant file repository: one row per file (its tfp's documentId, name, captured metadata, the id of its
 * current content), and the content itself in fixed-size chunks when the database is the blob store. A
 * replaced file's new content is written under a new `content_id` and the old chunks are deleted in the same
 * transaction, so readers never see a mix. Files go with their tenant, chunks with their file.
 */
export class Files1764200000000 implements MigrationInterface {
  name = 'Files1764200000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE files (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
        document_id uuid NOT NULL,
        file_name text NOT NULL,
        content_type text NOT NULL,
        size bigint NOT NULL,
        sha256 text NOT NULL,
        store text NOT NULL,
        content_id uuid NOT NULL,
        chunk_size integer NOT NULL,
        metadata jsonb NOT NULL DEFAULT '{}'::jsonb,
        seq bigint GENERATED ALWAYS AS IDENTITY,
        version integer NOT NULL DEFAULT 1,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        UNIQUE (tenant_id, document_id)
      )`);
    await q.query('CREATE INDEX files_tenant_seq ON files (tenant_id, seq)');
    await q.query('CREATE INDEX files_metadata ON files USING gin (metadata jsonb_path_ops)');
    await q.query(`
      CREATE TABLE file_chunks (
        file_id uuid NOT NULL REFERENCES files(id) ON DELETE CASCADE,
        content_id uuid NOT NULL,
        n integer NOT NULL,
        data bytea NOT NULL,
        PRIMARY KEY (file_id, content_id, n)
      )`);
    // File contents are mostly compressed already (PDF, images, zips): storing them out of line without trying
    // to compress them again saves the CPU.
    await q.query('ALTER TABLE file_chunks ALTER COLUMN data SET STORAGE EXTERNAL');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE file_chunks');
    await q.query('DROP TABLE files');
  }
}
