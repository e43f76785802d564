import { MigrationInterface, QueryRunner } from 'typeorm';
import { ElementLocator1763900000001 } from './1763900000001-ElementLocator';

/** The key of the child list of the node `n` (SQL), by its modelType (as `element-tree.ts`'s `childrenOf`). */
const childKey = (n: string) => `(CASE ${n}->>'modelType'
  WHEN 'SubmodelElementCollection' THEN 'value' WHEN 'SubmodelElementList' THEN 'value'
  WHEN 'Entity' THEN 'statements' WHEN 'AnnotatedRelationshipElement' THEN 'annotations' END)`;

/** The child elements of the node `n` (SQL), or an empty array (the key absent, or not an array). */
const children = (n: string) => `(CASE WHEN jsonb_typeof(${n} -> ${childKey(n)}) = 'array' THEN ${n} -> ${childKey(n)} ELSE '[]'::jsonb END)`;

/**
 * Submodel elements as rows of their own (`src/aas/submodels/element-rows.ts` describes the layout), so that a
 * query condition on an element is an index lookup, reading one element reads one row and its descendants, and
 * a value write changes the rows of that element only. `submodels.doc` keeps the submodel's head: the document
 * without `submodelElements`; `submodels.doc_bytes` stops being computed from it and is kept by the store as the
 * size of the whole document (the read budget counts what a read returns).
 *
 * `aas_number(text)` and `aas_datetime(text)` are the query language's casts of a value (IDTA-01002-3 `$numCast`,
 * `$dateTimeCast`): NULL where the text does not convert. The typed value columns hold them; they are the same
 * expressions as the query translation's casts (src/aas/query/sql.ts), and a test holds the two to each other.
 */
export class ElementRows1764700000000 implements MigrationInterface {
  name = 'ElementRows1764700000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE FUNCTION aas_number(t text) RETURNS numeric LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $fn$
      BEGIN
        RETURN CASE WHEN t ~ '^\\s*[+-]?(\\d+\\.?\\d*|\\.\\d+)([eE][+-]?\\d{1,3})?\\s*$' THEN btrim(t)::numeric END;
      END $fn$`);
    // Year 1..9999, a real calendar day, an offset or none (UTC). The cast itself is deterministic because the
    // text always carries its offset: IMMUTABLE is true to what it does. PL/pgSQL, so that PostgreSQL never
    // inlines the function and then sees the timestamptz cast (which it marks STABLE) in a generated column.
    await q.query(`
      CREATE FUNCTION aas_datetime(t text) RETURNS timestamptz LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $fn$
      BEGIN
        RETURN CASE WHEN t ~ '^(000[1-9]|00[1-9][0-9]|0[1-9][0-9]{2}|[1-9][0-9]{3})-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])[Tt ]([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](\\.[0-9]{1,9})?([Zz]|[+-]([01][0-9]|2[0-3]):[0-5][0-9])?$'
          THEN (CASE WHEN substr(t, 9, 2)::int <= extract(day from make_date(substr(t, 1, 4)::int, substr(t, 6, 2)::int, 1) + interval '1 month - 1 day')
            THEN (CASE WHEN t ~ '([Zz]|[+-][0-9]{2}:[0-9]{2})$' THEN upper(t) ELSE t || 'Z' END)::timestamptz END) END;
      END $fn$`);
    // `json` (the text as written), not `jsonb`: a whole read concatenates the rows' texts, and PostgreSQL then
    // skips rendering each row from its binary form (a third of the read); the few conditions on other
    // attributes than the columns cast the rows they look at.
    await q.query(`
      CREATE TABLE submodel_elements (
        tenant_id uuid NOT NULL,
        submodel_seq bigint NOT NULL,
        ord integer[] NOT NULL,
        path text NOT NULL,
        id_short text,
        model_type text NOT NULL,
        semantic_key text,
        v_text text,
        v_num numeric GENERATED ALWAYS AS (aas_number(v_text)) STORED,
        v_time timestamptz GENERATED ALWAYS AS (aas_datetime(v_text)) STORED,
        json json NOT NULL,
        PRIMARY KEY (tenant_id, submodel_seq, ord)
      )`);
    // The rows go with their submodel, also when a tenant's deletion cascades to it: one statement-level trigger
    // instead of a foreign key, whose check on every inserted row doubled the cost of writing a large submodel.
    await q.query(`
      CREATE FUNCTION aas_delete_element_rows() RETURNS trigger LANGUAGE plpgsql AS $fn$
      BEGIN
        DELETE FROM submodel_elements e USING gone WHERE e.tenant_id = gone.tenant_id AND e.submodel_seq = gone.seq;
        RETURN NULL;
      END $fn$`);
    await q.query(`
      CREATE TRIGGER submodels_delete_element_rows AFTER DELETE ON submodels
        REFERENCING OLD TABLE AS gone FOR EACH STATEMENT EXECUTE FUNCTION aas_delete_element_rows()`);
    await q.query(`
      INSERT INTO submodel_elements (tenant_id, submodel_seq, ord, path, id_short, model_type, semantic_key, v_text, json)
      WITH RECURSIVE el (tenant_id, submodel_seq, ord, path, n) AS (
        SELECT s.tenant_id, s.seq, ARRAY[(c.i - 1)::int], c.v->>'idShort', c.v
          FROM submodels s, jsonb_array_elements(CASE WHEN jsonb_typeof(s.doc->'submodelElements') = 'array' THEN s.doc->'submodelElements' ELSE '[]' END) WITH ORDINALITY c (v, i)
        UNION ALL
        SELECT el.tenant_id, el.submodel_seq, el.ord || (c.i - 1)::int,
          CASE WHEN el.n->>'modelType' = 'SubmodelElementList' THEN el.path || '[' || (c.i - 1) || ']' ELSE el.path || '.' || (c.v->>'idShort') END,
          c.v
          FROM el, jsonb_array_elements(${children('el.n')}) WITH ORDINALITY c (v, i)
      )
      SELECT tenant_id, submodel_seq, ord, path, n->>'idShort', n->>'modelType', n->'semanticId'->'keys'->0->>'value',
        CASE WHEN jsonb_typeof(n->'value') = 'string' THEN n->>'value' END,
        (CASE WHEN jsonb_array_length(${children('n')}) > 0 THEN n - ${childKey('n')} ELSE n END)::json
      FROM el`);
    await q.query(`ALTER TABLE submodels ALTER COLUMN doc_bytes DROP EXPRESSION`);
    await q.query(`UPDATE submodels SET doc = doc - 'submodelElements' WHERE jsonb_typeof(doc->'submodelElements') = 'array' AND jsonb_array_length(doc->'submodelElements') > 0`);
    // An element by its path: the path's first 256 characters keep the entry within a B-tree page's limit and
    // the entries near the order rows are written in (an md5 scattered them: three times the insert cost).
    await q.query('CREATE INDEX submodel_elements_path ON submodel_elements (tenant_id, submodel_seq, left(path, 256))');
    // Conditions on elements: by semanticId with a number or text value, by idShort with a number.
    // With the submodel, the index alone answers which submodels have a value: a common value is an index-only
    // merge with the submodels, not a sort of its rows.
    await q.query('CREATE INDEX submodel_elements_semantic_number ON submodel_elements (tenant_id, semantic_key, v_num, submodel_seq) WHERE semantic_key IS NOT NULL');
    // How often a value goes with a semanticId: estimates for conditions on both (a common value of one property).
    await q.query('CREATE STATISTICS submodel_elements_semantic_values (mcv) ON semantic_key, v_num FROM submodel_elements');
    await q.query('CREATE INDEX submodel_elements_semantic_text ON submodel_elements (tenant_id, semantic_key, md5(v_text)) WHERE semantic_key IS NOT NULL');
    await q.query('CREATE INDEX submodel_elements_id_short ON submodel_elements (tenant_id, id_short, v_num)');
    // A value's first 256 characters (a B-tree entry has a size limit; values are any length), for patterns with a
    // literal start (`$starts-with`, an anchored `$regex`): the query translation adds the matching prefix range.
    await q.query('CREATE INDEX submodel_elements_id_short_text ON submodel_elements (tenant_id, id_short, left(v_text, 256) text_pattern_ops)');
    // Elements are no longer located inside documents.
    await q.query('DROP FUNCTION aas_locate(jsonb, jsonb)');
  }

  async down(q: QueryRunner): Promise<void> {
    await new ElementLocator1763900000001().up(q);
    // The documents get their elements back, in `ord` order at every level.
    await q.query(`
      CREATE FUNCTION pg_temp.aas_subtree(t uuid, s bigint, o integer[], n jsonb) RETURNS jsonb LANGUAGE plpgsql AS $fn$
      DECLARE children jsonb; key text;
      BEGIN
        SELECT jsonb_agg(pg_temp.aas_subtree(t, s, e.ord, e.json::jsonb) ORDER BY e.ord) INTO children
          FROM submodel_elements e WHERE e.tenant_id = t AND e.submodel_seq = s AND e.ord > o AND e.ord < o || 2147483647 AND cardinality(e.ord) = cardinality(o) + 1;
        IF children IS NULL THEN RETURN n; END IF;
        key := CASE n->>'modelType' WHEN 'Entity' THEN 'statements' WHEN 'AnnotatedRelationshipElement' THEN 'annotations' WHEN 'Submodel' THEN 'submodelElements' ELSE 'value' END;
        RETURN n || jsonb_build_object(key, children);
      END $fn$`);
    await q.query(`UPDATE submodels SET doc = pg_temp.aas_subtree(tenant_id, seq, '{}', doc)`);
    await q.query('DROP TABLE submodel_elements');
    await q.query('DROP TRIGGER submodels_delete_element_rows ON submodels');
    await q.query('DROP FUNCTION aas_delete_element_rows()');
    await q.query('ALTER TABLE submodels DROP COLUMN doc_bytes');
    await q.query('ALTER TABLE submodels ADD COLUMN doc_bytes bigint GENERATED ALWAYS AS (octet_length(doc::text)) STORED');
    await q.query('DROP FUNCTION aas_datetime(text)');
    await q.query('DROP FUNCTION aas_number(text)');
  }
}
