import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Finding what references a stored file, so that an import which overwrites shells and submodels removes the
 * files only the overwritten content referenced (src/aas/store/file-references.ts).
 *
 * `aas_tfp_document(text)` is the documentId of a service file path (`file:/sphere/{tenant}/{documentId}/{name}`,
 * also spelled `file:///sphere/...`), NULL for any other text: the part of a tfp that names one file whatever the
 * spelling of its name. The indexes look a documentId up among File element values and shell thumbnails; the
 * third finds a tenant's Operations, whose variables (File elements among them) stay inside their row's JSON.
 */
export class FileReferences1795764566655 implements MigrationInterface {
  name = 'FileReferences1795764566655';

  async up(q: QueryRunner): Promise<void> {
    // PL/pgSQL, as aas_number: never inlined, so that the index expressions and the queries stay the same call.
    await q.query(`
      CREATE FUNCTION aas_tfp_document(t text) RETURNS text LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $fn$
      BEGIN
        RETURN substring(t from '^file:/(?://)?sphere/[a-z0-9-]+/([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})/[^/]+$');
      END $fn$`);
    await q.query(`CREATE INDEX submodel_elements_file_documents ON submodel_elements (tenant_id, aas_tfp_document(v_text)) WHERE model_type = 'File'`);
    await q.query(`CREATE INDEX submodel_elements_operations ON submodel_elements (tenant_id) WHERE model_type = 'Operation'`);
    await q.query(`CREATE INDEX shells_thumbnail_documents ON shells (tenant_id, aas_tfp_document(doc #>> '{assetInformation,defaultThumbnail,path}'))`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP INDEX shells_thumbnail_documents');
    await q.query('DROP INDEX submodel_elements_operations');
    await q.query('DROP INDEX submodel_elements_file_documents');
    await q.query('DROP FUNCTION aas_tfp_document(text)');
  }
}
