import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `aas_locate(doc, steps)`: finds a submodel element by its idShortPath inside the stored document, in the
 * database. Element reads and value writes then move one element, not the whole submodel, between PostgreSQL
 * and the server, and a value write is one `jsonb_set` at the path this returns.
 *
 * `steps` is a JSON array of idShorts (strings) and list indices (numbers). The result is one row: `path`, the
 * `text[]` path for `#>` and `jsonb_set` (e.g. `{submodelElements,4,value,2}`); `types`, the modelType of each
 * step; `element`, the element. No row when nothing is there. Children are a collection's and a list's `value`,
 * an entity's `statements` and an annotated relationship's `annotations`; a list is addressed by index only,
 * the others by idShort only (the same rules as `element-tree.ts`).
 */
export class ElementLocator1763900000001 implements MigrationInterface {
  name = 'ElementLocator1763900000001';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE OR REPLACE FUNCTION aas_locate(doc jsonb, steps jsonb)
      RETURNS TABLE (path text[], types text[], element jsonb)
      LANGUAGE plpgsql IMMUTABLE STRICT AS $fn$
      DECLARE
        node jsonb := doc; key text; kind text; children jsonb; step jsonb; pos int; n int;
        p text[] := '{}'; t text[] := '{}';
      BEGIN
        FOR step IN SELECT value FROM jsonb_array_elements(steps) LOOP
          kind := node->>'modelType';
          key := CASE kind
            WHEN 'Submodel' THEN 'submodelElements'
            WHEN 'SubmodelElementCollection' THEN 'value'
            WHEN 'SubmodelElementList' THEN 'value'
            WHEN 'Entity' THEN 'statements'
            WHEN 'AnnotatedRelationshipElement' THEN 'annotations' END;
          IF key IS NULL THEN RETURN; END IF;
          children := node->key;
          IF children IS NULL THEN RETURN; END IF;
          n := jsonb_array_length(children);
          pos := NULL;
          IF jsonb_typeof(step) = 'number' THEN
            IF kind = 'SubmodelElementList' AND (step)::int BETWEEN 0 AND n - 1 THEN pos := (step)::int; END IF;
          ELSIF kind <> 'SubmodelElementList' THEN
            FOR j IN 0 .. n - 1 LOOP
              IF children->j->>'idShort' = step #>> '{}' THEN pos := j; EXIT; END IF;
            END LOOP;
          END IF;
          IF pos IS NULL THEN RETURN; END IF;
          node := children->pos;
          p := p || key || pos::text;
          t := t || (node->>'modelType');
        END LOOP;
        path := p; types := t; element := node;
        RETURN NEXT;
      END $fn$`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP FUNCTION aas_locate(jsonb, jsonb)');
  }
}
