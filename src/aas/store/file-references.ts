import { formatTfp, parseTfp } from '../../files';
import { fileElements } from '../model/file-elements';
import type { JsonObject } from '../model/parse';
import type { Db } from './element-rows-sql';

/**
 * What references the files of a tenant's repository: File element values (at any depth, in Operation variables
 * too) and asset thumbnails. A reference is a tfp (`file:/sphere/{tenant}/{documentId}/{name}`, or `file:///...`);
 * the documentId names the file whatever the spelling (migration FileReferences: `aas_tfp_document`, and the
 * indexes that look it up). Read inside the caller's transaction.
 */

/**
 * The tfps of the tenant's files that the stored shells and submodels with these ids reference, by documentId
 * (each in the canonical spelling).
 */
export async function filesReferencedBy(db: Db, tenant: { id: string; name: string }, ids: { shells: string[]; submodels: string[] }): Promise<Map<string, string>> {
  const documents = new Map<string, string>();
  const add = (value: unknown) => {
    const parsed = typeof value === 'string' ? parseTfp(value) : undefined;
    if (parsed && parsed.tenant === tenant.name) documents.set(parsed.documentId, formatTfp(parsed.tenant, parsed.documentId, parsed.fileName));
  };
  if (ids.shells.length) {
    const shells = (await db.query(
      `SELECT doc #>> '{assetInformation,defaultThumbnail,path}' AS path FROM shells
        WHERE tenant_id = $1 AND md5(id) = ANY (SELECT md5(x) FROM unnest($2::text[]) AS x) AND id = ANY ($2::text[])`,
      [tenant.id, ids.shells],
    )) as { path: string | null }[];
    for (const row of shells) add(row.path);
  }
  if (ids.submodels.length) {
    // The rows of those submodels only (the primary key's prefix), File values and Operations' JSON.
    const rows = (await db.query(
      `SELECT e.model_type, e.v_text, CASE WHEN e.model_type = 'Operation' THEN e.json END AS json
         FROM submodels s JOIN submodel_elements e ON e.tenant_id = s.tenant_id AND e.submodel_seq = s.seq
        WHERE s.tenant_id = $1 AND md5(s.id) = ANY (SELECT md5(x) FROM unnest($2::text[]) AS x) AND s.id = ANY ($2::text[])
          AND e.model_type IN ('File', 'Operation')`,
      [tenant.id, ids.submodels],
    )) as { model_type: string; v_text: string | null; json: JsonObject | null }[];
    for (const row of rows) {
      if (row.model_type === 'File') add(row.v_text);
      else for (const file of fileElements(row.json)) add(file.value);
    }
  }
  return documents;
}

/** Which of these documentIds any stored shell or submodel of the tenant references. */
export async function filesStillReferenced(db: Db, tenantId: string, documentIds: string[]): Promise<Set<string>> {
  if (!documentIds.length) return new Set();
  const rows = (await db.query(
    `SELECT aas_tfp_document(v_text) AS d FROM submodel_elements
      WHERE tenant_id = $1 AND model_type = 'File' AND aas_tfp_document(v_text) = ANY ($2::text[])
     UNION
     SELECT aas_tfp_document(doc #>> '{assetInformation,defaultThumbnail,path}') FROM shells
      WHERE tenant_id = $1 AND aas_tfp_document(doc #>> '{assetInformation,defaultThumbnail,path}') = ANY ($2::text[])
     UNION
     SELECT d FROM submodel_elements e, unnest($2::text[]) AS d
      WHERE e.tenant_id = $1 AND e.model_type = 'Operation' AND strpos(e.json::text, d) > 0`,
    [tenantId, documentIds],
  )) as { d: string }[];
  return new Set(rows.map((row) => row.d));
}
