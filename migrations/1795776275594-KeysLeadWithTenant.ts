import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Every tenant-owned table leads its primary key, its unique indexes and its foreign keys to other tenant-owned
 * tables with `tenant_id`, the shard key when the database is distributed (Citus; docs/scale-out.md). Citus needs
 * that of a distributed table, and it routes a statement that names the tenant to one shard.
 *
 * - `outbox`, `files`, `aasx_packages`, `registry_instances`: primary key `(tenant_id, …)`.
 * - `shell_descriptors`, `asset_links`: primary key and unique index with `tenant_id`; their foreign key to their
 *   registry instance through `(tenant_id, instance_id)`.
 * - `file_chunks` gains `tenant_id` (its file's), in its primary key and its foreign key to `files`.
 * - `submodel_elements` go with their submodel by a foreign key with ON DELETE CASCADE instead of a trigger: Citus
 *   refuses triggers on distributed tables. Its check costs about a third more per inserted row than the trigger
 *   did (docs/scale-out.md has the figures).
 */
export class KeysLeadWithTenant1795776275594 implements MigrationInterface {
  name = 'KeysLeadWithTenant1795776275594';

  async up(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE outbox DROP CONSTRAINT outbox_pkey, ADD CONSTRAINT outbox_pkey PRIMARY KEY (tenant_id, seq)');
    await q.query('ALTER TABLE aasx_packages DROP CONSTRAINT aasx_packages_pkey, ADD CONSTRAINT aasx_packages_pkey PRIMARY KEY (tenant_id, id)');

    // Files and their chunks.
    await q.query('ALTER TABLE file_chunks DROP CONSTRAINT file_chunks_file_id_fkey');
    await q.query('ALTER TABLE file_chunks ADD COLUMN tenant_id uuid');
    await q.query('UPDATE file_chunks c SET tenant_id = f.tenant_id FROM files f WHERE f.id = c.file_id');
    await q.query('ALTER TABLE file_chunks ALTER COLUMN tenant_id SET NOT NULL');
    await q.query('ALTER TABLE file_chunks DROP CONSTRAINT file_chunks_pkey, ADD CONSTRAINT file_chunks_pkey PRIMARY KEY (tenant_id, file_id, content_id, n)');
    await q.query('ALTER TABLE files DROP CONSTRAINT files_pkey, ADD CONSTRAINT files_pkey PRIMARY KEY (tenant_id, id)');
    await q.query(`ALTER TABLE file_chunks ADD CONSTRAINT file_chunks_file_fkey
      FOREIGN KEY (tenant_id, file_id) REFERENCES files (tenant_id, id) ON DELETE CASCADE`);

    // Registry instances and what they hold.
    await q.query('ALTER TABLE shell_descriptors DROP CONSTRAINT shell_descriptors_instance_id_fkey');
    await q.query('ALTER TABLE asset_links DROP CONSTRAINT asset_links_instance_id_fkey');
    await q.query('ALTER TABLE registry_instances DROP CONSTRAINT registry_instances_pkey, ADD CONSTRAINT registry_instances_pkey PRIMARY KEY (tenant_id, id)');
    for (const [table, unique, expression] of [
      ['shell_descriptors', 'shell_descriptors_id', 'md5(id)'],
      ['asset_links', 'asset_links_aas_id', 'md5(aas_id)'],
    ]) {
      await q.query(`ALTER TABLE ${table} DROP CONSTRAINT ${table}_pkey, ADD CONSTRAINT ${table}_pkey PRIMARY KEY (tenant_id, instance_id, seq)`);
      await q.query(`DROP INDEX ${unique}`);
      await q.query(`CREATE UNIQUE INDEX ${unique} ON ${table} (tenant_id, instance_id, ${expression})`);
      await q.query(`ALTER TABLE ${table} ADD CONSTRAINT ${table}_instance_fkey
        FOREIGN KEY (tenant_id, instance_id) REFERENCES registry_instances (tenant_id, id) ON DELETE CASCADE`);
    }

    // Element rows go with their submodel.
    await q.query('DROP TRIGGER submodels_delete_element_rows ON submodels');
    await q.query('DROP FUNCTION aas_delete_element_rows()');
    await q.query(`ALTER TABLE submodel_elements ADD CONSTRAINT submodel_elements_submodel_fkey
      FOREIGN KEY (tenant_id, submodel_seq) REFERENCES submodels (tenant_id, seq) ON DELETE CASCADE`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE submodel_elements DROP CONSTRAINT submodel_elements_submodel_fkey');
    await q.query(`
      CREATE FUNCTION aas_delete_element_rows() RETURNS trigger LANGUAGE plpgsql AS $fn$
      BEGIN
        DELETE FROM submodel_elements e USING gone WHERE e.tenant_id = gone.tenant_id AND e.submodel_seq = gone.seq;
        RETURN NULL;
      END $fn$`);
    await q.query(`
      CREATE TRIGGER submodels_delete_element_rows AFTER DELETE ON submodels
        REFERENCING OLD TABLE AS gone FOR EACH STATEMENT EXECUTE FUNCTION aas_delete_element_rows()`);

    for (const [table, unique, expression] of [
      ['shell_descriptors', 'shell_descriptors_id', 'md5(id)'],
      ['asset_links', 'asset_links_aas_id', 'md5(aas_id)'],
    ]) {
      await q.query(`ALTER TABLE ${table} DROP CONSTRAINT ${table}_instance_fkey`);
      await q.query(`DROP INDEX ${unique}`);
      await q.query(`CREATE UNIQUE INDEX ${unique} ON ${table} (instance_id, ${expression})`);
      await q.query(`ALTER TABLE ${table} DROP CONSTRAINT ${table}_pkey, ADD CONSTRAINT ${table}_pkey PRIMARY KEY (instance_id, seq)`);
    }
    await q.query('ALTER TABLE registry_instances DROP CONSTRAINT registry_instances_pkey, ADD CONSTRAINT registry_instances_pkey PRIMARY KEY (id)');
    for (const table of ['shell_descriptors', 'asset_links']) {
      await q.query(`ALTER TABLE ${table} ADD CONSTRAINT ${table}_instance_id_fkey FOREIGN KEY (instance_id) REFERENCES registry_instances (id) ON DELETE CASCADE`);
    }

    await q.query('ALTER TABLE file_chunks DROP CONSTRAINT file_chunks_file_fkey');
    await q.query('ALTER TABLE files DROP CONSTRAINT files_pkey, ADD CONSTRAINT files_pkey PRIMARY KEY (id)');
    await q.query('ALTER TABLE file_chunks DROP CONSTRAINT file_chunks_pkey, ADD CONSTRAINT file_chunks_pkey PRIMARY KEY (file_id, content_id, n)');
    await q.query('ALTER TABLE file_chunks DROP COLUMN tenant_id');
    await q.query('ALTER TABLE file_chunks ADD CONSTRAINT file_chunks_file_id_fkey FOREIGN KEY (file_id) REFERENCES files (id) ON DELETE CASCADE');

    await q.query('ALTER TABLE aasx_packages DROP CONSTRAINT aasx_packages_pkey, ADD CONSTRAINT aasx_packages_pkey PRIMARY KEY (id)');
    await q.query('ALTER TABLE outbox DROP CONSTRAINT outbox_pkey, ADD CONSTRAINT outbox_pkey PRIMARY KEY (seq)');
  }
}
