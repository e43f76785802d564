import { MigrationInterface, QueryRunner } from 'typeorm';
import { distributeOnCitus } from '../src/db/distribution';

/** ASCII letters only are upper-cased (as src/aas/semantics/semantic-key.ts does): `upper` would follow the collation. */
const LOWER = "'abcdefghijklmnopqrstuvwxyz'";
const UPPER = "'ABCDEFGHIJKLMNOPQRSTUVWXYZ'";

/**
 * The semantic connector (src/aas/semantics/): what semantic ids mean and which of them are equivalent.
 * - `semantic_norm(id)`: the equivalence key of a semantic id. An IRDI (ISO 29002-5: `RAI#DI#VI`, ECLASS
 *   `0173-1#02-AAO677#002`, IEC CDD `0112/2///61360_4#AAE001#001`) loses its version and is upper-cased (ASCII)
 *   (`irdi:0173-1#02-AAO677`); the ECLASS IRI form `https://api.eclass-cdp.com/0173-1-02-AAO677-002` and the ISO
 *   29002-5 long form `0173/1///02#AAO677#002` give the key of the short IRDI; `urn:irdi:` before an IRDI is dropped;
 *   any other id is its own key (trimmed). SQL, so that the indexes below and the TypeScript side agree.
 * - `semantic_norms(keys)`: the keys of the `value:` filter keys of a submodel's `semantic_keys`.
 * - `semantic_case_of(doc)`: the keys of every key value of a concept description's `isCaseOf` references.
 * - `semantic_dictionaries`, `semantic_entries`: dictionaries a tenant imported, one entry per concept, with its
 *   IEC 61360 content and a text of its names, definitions and id for the text search.
 * - `semantic_equivalence_sets`, `semantic_equivalences`: sets of ids the tenant declares equivalent.
 * Ids may be 2,000 characters, more than a B-tree entry holds: the key indexes hold their md5. The functions name
 * `public.semantic_norm` with its schema: PostgreSQL builds indexes with a search_path of pg_catalog only.
 */
export class SemanticConnector1795820000000 implements MigrationInterface {
  name = 'SemanticConnector1795820000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE FUNCTION semantic_norm(id text) RETURNS text
        LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
        AS $$ SELECT CASE
          WHEN u ~* '^https?://api\\.eclass-cdp\\.com/0173-1-[0-9A-Z]{2}-[0-9A-Z]{6}(-[0-9]{1,3})?/?$'
            THEN 'irdi:0173-1#' || translate(substring(u from '(?i)eclass-cdp\\.com/0173-1-([0-9A-Z]{2})-') || '-' || substring(u from '(?i)eclass-cdp\\.com/0173-1-[0-9A-Z]{2}-([0-9A-Z]{6})'), ${LOWER}, ${UPPER})
          WHEN u ~ '^0173/1///[0-9A-Za-z]{2}#[^# \\t\\n\\r\\f\\v]+(#[^# \\t\\n\\r\\f\\v]*)?$'
            THEN 'irdi:0173-1#' || translate(substring(u from '^0173/1///([0-9A-Za-z]{2})#') || '-' || substring(u from '^0173/1///[0-9A-Za-z]{2}#([^#]+)'), ${LOWER}, ${UPPER})
          WHEN u ~ '^[0-9]{4}[-/][^# \\t\\n\\r\\f\\v]*#[^# \\t\\n\\r\\f\\v]+(#[^# \\t\\n\\r\\f\\v]*)?$'
            THEN 'irdi:' || translate(substring(u from '^([^#]+#[^#]+)'), ${LOWER}, ${UPPER})
          ELSE t END
        FROM (SELECT t, CASE WHEN t ~* '^urn:irdi:' THEN substr(t, 10) ELSE t END AS u FROM (SELECT btrim(id, E' \\t\\r\\n') AS t) AS a) AS b $$`);
    await q.query(`
      CREATE FUNCTION semantic_norms(keys text[]) RETURNS text[]
        LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
        AS $$ SELECT ARRAY(SELECT public.semantic_norm(substr(k, 7)) FROM unnest(keys) AS k WHERE left(k, 6) = 'value:') $$`);
    await q.query(`
      CREATE FUNCTION semantic_case_of(doc jsonb) RETURNS text[]
        LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
        AS $$ SELECT ARRAY(SELECT public.semantic_norm(k->>'value')
          FROM jsonb_array_elements(CASE WHEN jsonb_typeof(doc->'isCaseOf') = 'array' THEN doc->'isCaseOf' ELSE '[]' END) AS r,
               jsonb_array_elements(CASE WHEN jsonb_typeof(r->'keys') = 'array' THEN r->'keys' ELSE '[]' END) AS k
          WHERE jsonb_typeof(k->'value') = 'string') $$`);
    await q.query('CREATE INDEX concept_descriptions_semantic_norm ON concept_descriptions (tenant_id, md5(semantic_norm(id)))');
    await q.query('CREATE INDEX concept_descriptions_semantic_case_of ON concept_descriptions USING gin (semantic_case_of(doc)) WITH (fastupdate = off)');
    await q.query('CREATE INDEX submodels_semantic_norms ON submodels USING gin (semantic_norms(semantic_keys)) WITH (fastupdate = off)');
    await q.query('CREATE INDEX submodel_elements_semantic_norm ON submodel_elements (tenant_id, md5(semantic_norm(semantic_key)), submodel_seq) WHERE semantic_key IS NOT NULL');
    await q.query(`CREATE TABLE semantic_dictionaries (
      tenant_id uuid NOT NULL,
      id uuid NOT NULL,
      seq bigint GENERATED ALWAYS AS IDENTITY,
      name text NOT NULL,
      format text NOT NULL,
      entry_count integer NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (tenant_id, id))`);
    await q.query('CREATE UNIQUE INDEX semantic_dictionaries_seq ON semantic_dictionaries (tenant_id, seq)');
    await q.query(`CREATE TABLE semantic_entries (
      tenant_id uuid NOT NULL,
      dictionary_id uuid NOT NULL,
      seq bigint GENERATED ALWAYS AS IDENTITY,
      concept_id text NOT NULL,
      norm text NOT NULL,
      content jsonb NOT NULL,
      search_text text NOT NULL,
      is_case_of text[] NOT NULL DEFAULT '{}',
      PRIMARY KEY (tenant_id, seq),
      FOREIGN KEY (tenant_id, dictionary_id) REFERENCES semantic_dictionaries (tenant_id, id) ON DELETE CASCADE)`);
    await q.query('CREATE INDEX semantic_entries_norm ON semantic_entries (tenant_id, md5(norm))');
    await q.query('CREATE INDEX semantic_entries_dictionary ON semantic_entries (tenant_id, dictionary_id, seq)');
    await q.query('CREATE INDEX semantic_entries_is_case_of ON semantic_entries USING gin (is_case_of) WITH (fastupdate = off)');
    await q.query(`CREATE TABLE semantic_equivalence_sets (
      tenant_id uuid NOT NULL,
      id uuid NOT NULL,
      seq bigint GENERATED ALWAYS AS IDENTITY,
      name text,
      created_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (tenant_id, id))`);
    await q.query('CREATE UNIQUE INDEX semantic_equivalence_sets_seq ON semantic_equivalence_sets (tenant_id, seq)');
    await q.query(`CREATE TABLE semantic_equivalences (
      tenant_id uuid NOT NULL,
      set_id uuid NOT NULL,
      ord integer NOT NULL,
      member text NOT NULL,
      norm text NOT NULL,
      PRIMARY KEY (tenant_id, set_id, ord),
      FOREIGN KEY (tenant_id, set_id) REFERENCES semantic_equivalence_sets (tenant_id, id) ON DELETE CASCADE)`);
    await q.query('CREATE INDEX semantic_equivalences_norm ON semantic_equivalences (tenant_id, md5(norm))');
    // On a Citus database the new tables are distributed by tenant, as the others (src/db/distribution.ts). Their keys to
    // `tenants` (a reference table there) come after: a table created with one would become a Citus local table, which
    // Citus cannot distribute while it has an identity column (`seq`).
    await distributeOnCitus((sql, params) => q.query(sql, params));
    for (const table of ['semantic_dictionaries', 'semantic_equivalence_sets']) {
      await q.query(`ALTER TABLE ${table} ADD FOREIGN KEY (tenant_id) REFERENCES tenants(id) ON DELETE CASCADE`);
    }
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE semantic_equivalences');
    await q.query('DROP TABLE semantic_equivalence_sets');
    await q.query('DROP TABLE semantic_entries');
    await q.query('DROP TABLE semantic_dictionaries');
    await q.query('DROP INDEX submodel_elements_semantic_norm');
    await q.query('DROP INDEX submodels_semantic_norms');
    await q.query('DROP INDEX concept_descriptions_semantic_case_of');
    await q.query('DROP INDEX concept_descriptions_semantic_norm');
    await q.query('DROP FUNCTION semantic_case_of(jsonb)');
    await q.query('DROP FUNCTION semantic_norms(text[])');
    await q.query('DROP FUNCTION semantic_norm(text)');
  }
}
