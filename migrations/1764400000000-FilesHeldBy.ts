import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Files another module holds: an AASX package's bytes are a file of the tenant's file repository, but only the
 * AASX File Server may change or remove them. `held_by` names the holder ('aasx-package'); the file repository's
 * own routes do not see held files, so a package can no longer lose its bytes through `DELETE /files/{tfp}`.
 * Files of packages stored before this migration are marked from the packages' rows.
 */
export class FilesHeldBy1764400000000 implements MigrationInterface {
  name = 'FilesHeldBy1764400000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE files ADD COLUMN held_by text');
    await q.query(`
      UPDATE files f SET held_by = 'aasx-package'
        FROM aasx_packages p
       WHERE p.tenant_id = f.tenant_id AND split_part(p.file, '/', 4) = f.document_id::text`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE files DROP COLUMN held_by');
  }
}
