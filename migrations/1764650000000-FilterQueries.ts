import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Filter queries by text: prefix (`...StartsWith`) and contains (`...Contains`) matches on shells' and submodels'
 * idShort and id, shells' displayName texts, files' displayName. No pg_trgm (the embedded database has none):
 * - idShort prefixes: a `text_pattern_ops` B-tree, which serves `LIKE 'abc%'` whatever the database's collation.
 * - id prefixes: ids may be 2,000 characters, more than a B-tree entry holds (~2.7 kB), so the index holds the
 *   first 256 characters (at most 1 kB in UTF-8); a longer prefix is checked against the whole id as well.
 * - shells' displayName: a `display_names` column of all its texts (every language), filled here for the rows
 *   that exist, and a GIN index on all prefixes of each text up to 128 characters (`aas_text_prefixes`; a
 *   LangStringNameType text has at most 128): a prefix or an exact text is one index lookup.
 * - files' displayName: a B-tree on its first 256 characters, as for ids.
 * Contains matches use no index: they read the tenant's rows in insertion order inside PostgreSQL until a page is full.
 *
 * `aas_text_prefixes` costs ~16 µs for two texts of 17 characters (an ARRAY subquery: 3x faster than array_agg
 * with DISTINCT; GIN drops duplicate keys itself). Where the planner reads a common prefix along the primary key
 * instead of the index, it would run per row: the shell service pairs it with a cheap LIKE on the texts, which
 * PostgreSQL evaluates first.
 */
export class FilterQueries1764650000000 implements MigrationInterface {
  name = 'FilterQueries1764650000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE FUNCTION aas_text_prefixes(texts text[]) RETURNS text[]
        LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
        AS $$ SELECT ARRAY(SELECT left(t, n) FROM unnest(texts) AS t, generate_series(1, least(char_length(t), 128)) AS n) $$`);
    await q.query(`ALTER TABLE shells ADD COLUMN display_names text[] NOT NULL DEFAULT '{}'`);
    await q.query(`
      UPDATE shells SET display_names = ARRAY(SELECT s->>'text' FROM jsonb_array_elements(doc->'displayName') AS s WHERE s->>'text' IS NOT NULL)
       WHERE jsonb_typeof(doc->'displayName') = 'array'`);
    // As the other GIN indexes of shells: no pending list, which every lookup would scan until a vacuum merged it.
    await q.query('CREATE INDEX shells_display_name_prefixes ON shells USING gin (aas_text_prefixes(display_names)) WITH (fastupdate = off)');
    await q.query('CREATE INDEX shells_id_short_pattern ON shells (tenant_id, id_short text_pattern_ops)');
    await q.query('CREATE INDEX shells_id_prefix ON shells (tenant_id, left(id, 256) text_pattern_ops)');
    await q.query('CREATE INDEX submodels_id_short_pattern ON submodels (tenant_id, id_short text_pattern_ops)');
    await q.query('CREATE INDEX submodels_id_prefix ON submodels (tenant_id, left(id, 256) text_pattern_ops)');
    await q.query(`CREATE INDEX files_display_name_prefix ON files (tenant_id, left(metadata->>'displayName', 256) text_pattern_ops)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP INDEX files_display_name_prefix');
    await q.query('DROP INDEX submodels_id_prefix');
    await q.query('DROP INDEX submodels_id_short_pattern');
    await q.query('DROP INDEX shells_id_prefix');
    await q.query('DROP INDEX shells_id_short_pattern');
    await q.query('DROP INDEX shells_display_name_prefixes');
    await q.query('ALTER TABLE shells DROP COLUMN display_names');
    await q.query('DROP FUNCTION aas_text_prefixes(text[])');
  }
}
