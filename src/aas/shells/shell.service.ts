import { type AasVersion, neededVersion, parsePartFor } from '../versions';
import { DataSource, EntityManager } from 'typeorm';
import { cursorList } from '../../common/cursor';
import { badRequest, conflict, notFound } from '../../graphql/errors';
import { TenantEntity } from '../../management/tenants/tenant.entity';
import { JsonObject } from '../model/parse';
import { asSubmodelModelReference, withSubmodelModelReferences } from '../model/submodel-references';
import { judgeReplacement, readDocument, verifyDocument, verifyReplacement } from '../model/verify-document';
import { IdentifiableTextFilter, filterText, identifiableTextConditions, leftChars, likeContains, likePrefix } from '../query/text-match';
import { CacheSync } from '../store/cache-sync';
import { Condition, IdentifiableStore, Page, originOf, pageOfList } from '../store/identifiable-store';
import type { ListAnswers, StoredText, WriteOptions } from '../store/identifiable-store';
import { ShellEntity } from './shell.entity';

export type { Page } from '../store/identifiable-store';

export interface AssetIdFilter {
  name: string;
  value: string;
}

/** Absent and null both mean "no condition" (GraphQL clients may send an explicit null). */
export interface ShellFilter extends IdentifiableTextFilter {
  assetIds?: AssetIdFilter[] | null;
  idShort?: string | null;
  assetKind?: string | null;
  assetType?: string | null;
  /** Text filters (query/text-match: case-sensitive, wildcards literal): a displayName text of any language. */
  displayName?: string | null;
  displayNameStartsWith?: string | null;
  displayNameContains?: string | null;
}

/** Options of a write: the request's `If-Match`, and a transaction to join. */
export interface ShellWrite {
  ifMatch?: string | null;
  manager?: EntityManager;
  /** The version of the metamodel the write comes through: whose constraints judge it (default '3.0'; see WriteOptions). */
  aasVersion?: AasVersion;
}

function isSubmodelReference(ref: JsonObject): boolean {
  const keys = ref.keys as { type: string }[];
  return ref.type === 'ModelReference' && keys.length === 1 && keys[0].type === 'Submodel';
}

function submodelIdOf(ref: JsonObject): string {
  return (ref.keys as { value: string }[])[0].value;
}

/** The ids of the submodels a shell references, in order. */
export function referencedSubmodelIds(shell: JsonObject): string[] {
  return ((shell.submodels ?? []) as JsonObject[]).filter(isSubmodelReference).map(submodelIdOf);
}

/**
 * Conditions of a shell filter. Asset ids match by name and value (a shell's `globalAssetId` as the name
 * `globalAssetId`, AASd-116), all of them: one lookup in the GIN index on `asset_ids`.
 */
function shellConditions(filter: ShellFilter): Condition[] {
  const conditions: Condition[] = [];
  if (filter.idShort != null) conditions.push(['id_short = ?', filter.idShort]);
  if (filter.assetKind != null) conditions.push(['asset_kind = ?', filter.assetKind]);
  if (filter.assetType != null) conditions.push(['asset_type = ?', filter.assetType]);
  if (filter.assetIds?.length) {
    const pairs = filter.assetIds.map(({ name, value }) => ({ name, value }));
    conditions.push(['asset_ids @> ?::jsonb', JSON.stringify(pairs)]);
  }
  return [...conditions, ...textConditions(filter)];
}

/** How many leading characters of a displayName text `aas_text_prefixes` indexes (migration FilterQueries). */
const TEXT_PREFIXES_INDEXED = 128;

/** A displayName text (any language) matching a LIKE pattern: cheap per row, no index. */
const DISPLAY_NAME_LIKE = 'EXISTS (SELECT FROM unnest(display_names) AS t WHERE t LIKE ?)';

/**
 * Conditions of the text filters, answered in SQL: idShort and id as for every identifiable; a displayName text or
 * prefix through the GIN index of displayName prefixes; contains matches read the tenant's rows (no index). 400 for
 * a bad value. Each index condition comes with its cheap equivalent on the texts themselves, which is exact past
 * what the index holds, and which PostgreSQL evaluates first (it orders a row filter's conditions by cost) where
 * it reads a common prefix along the primary key: `aas_text_prefixes` then runs only for the rows that match.
 */
function textConditions(filter: ShellFilter): Condition[] {
  const conditions: Condition[] = identifiableTextConditions(filter);
  const displayName = filterText('displayName', filter.displayName);
  const displayNameStartsWith = filterText('displayNameStartsWith', filter.displayNameStartsWith);
  const displayNameContains = filterText('displayNameContains', filter.displayNameContains);
  if (displayName !== undefined) {
    conditions.push(['display_names @> ARRAY[?::text]', displayName]);
    conditions.push(['aas_text_prefixes(display_names) @> ARRAY[?::text]', leftChars(displayName, TEXT_PREFIXES_INDEXED)]);
  }
  if (displayNameStartsWith !== undefined) {
    conditions.push([DISPLAY_NAME_LIKE, likePrefix(displayNameStartsWith)]);
    conditions.push(['aas_text_prefixes(display_names) @> ARRAY[?::text]', leftChars(displayNameStartsWith, TEXT_PREFIXES_INDEXED)]);
  }
  if (displayNameContains !== undefined) {
    conditions.push([DISPLAY_NAME_LIKE, likeContains(displayNameContains)]);
  }
  return conditions;
}

/** The text of the 404 a read of the absent shell `id` answers. */
const notFoundText = (id: string) => `Shell '${id}' not found.`;

/** The AAS Repository's shells. Every change to a shell goes through the store's write path. */
export class ShellService {
  private readonly store: IdentifiableStore<ShellEntity>;

  constructor(dataSource: DataSource, cache?: CacheSync) {
    this.store = new IdentifiableStore(dataSource, {
      table: 'shells',
      entity: ShellEntity,
      modelType: 'AssetAdministrationShell',
      columns: (doc) => {
        const info = doc.assetInformation as { assetKind: string; assetType?: string; globalAssetId?: string; specificAssetIds?: AssetIdFilter[] };
        const assetIds = (info.specificAssetIds ?? []).map(({ name, value }) => ({ name, value }));
        if (info.globalAssetId !== undefined) assetIds.unshift({ name: 'globalAssetId', value: info.globalAssetId });
        return {
          aasVersion: neededVersion(doc),
          idShort: (doc.idShort as string | undefined) ?? null,
          assetKind: info.assetKind,
          assetType: info.assetType ?? null,
          globalAssetId: info.globalAssetId ?? null,
          assetIds,
          submodelIds: referencedSubmodelIds(doc),
          displayNames: ((doc.displayName ?? []) as { text: string }[]).map((name) => name.text),
        };
      },
    }, cache);
  }

  /** `view`: the version of the metamodel the reader speaks (V3.0 readers get what needs V3.1 mapped down). */
  list(tenant: TenantEntity, filter: ShellFilter, limit: number, cursor?: string | null, view: AasVersion = '3.0'): Promise<Page<JsonObject>> {
    return this.store.page(tenant, shellConditions(filter), limit, cursor, undefined, view);
  }

  /** The shells `list` would give, as JSON texts never parsed here (the REST list). */
  listText(tenant: TenantEntity, filter: ShellFilter, limit: number, cursor?: string | null, view: AasVersion = '3.0'): Promise<Page<string>> {
    return this.store.pageText(tenant, shellConditions(filter), limit, cursor, view);
  }

  /** The ids of the shells `list` would give (discovery): one index lookup, no document read. */
  ids(tenant: TenantEntity, filter: ShellFilter, limit: number, cursor?: string | null): Promise<Page<string>> {
    return this.store.pageIds(tenant, shellConditions(filter), limit, cursor);
  }

  async get(tenant: TenantEntity, id: string, view: AasVersion = '3.0'): Promise<JsonObject> {
    const doc = await this.store.find(tenant, id, view);
    if (!doc) throw notFound(notFoundText(id));
    return doc;
  }

  /** The shell as JSON text, as stored (the read cache's, when it holds it). */
  async getText(tenant: TenantEntity, id: string, view: AasVersion = '3.0'): Promise<{ text: string; etag: string; mapped?: boolean; mappedForV30?: string[] }> {
    const stored = await this.store.findText(tenant, id, 'true', view);
    if (!stored) throw notFound(notFoundText(id));
    if (stored.text !== null) return { text: stored.text, etag: stored.etag };
    // A V3.0 reader of a shell that needs V3.1: mapped down.
    const doc = await this.get(tenant, id, view);
    // `mapped`: what a V3.0 reader gets was mapped down (the answer says so).
    return { text: JSON.stringify(doc), etag: originOf(doc)!.etag, mapped: Boolean(originOf(doc)!.mapped?.length), mappedForV30: originOf(doc)!.mapped };
  }

  /**
   * What `getText` answers where the stored text serves as it is: from the read cache, else from the database in one
   * statement; where it is absent, the text of the route's 404; undefined where a V3.0 reader gets it mapped down (the
   * route answers that).
   */
  async storedText(tenant: TenantEntity, id: string, view: AasVersion = '3.0'): Promise<StoredText | undefined> {
    const stored = await this.store.storedText(tenant, id, 'true', view);
    return stored === null ? { absent: notFoundText(id) } : stored;
  }

  /** Whole list answers (`GET` of the collection) cached per query string, for the façade's hot reads. */
  listAnswers(tenant: TenantEntity): ListAnswers | undefined {
    return this.store.listAnswers(tenant);
  }

  /** Shells by id, for DataLoaders. */
  findMany(tenant: TenantEntity, ids: readonly string[], view: AasVersion = '3.0'): Promise<Map<string, JsonObject>> {
    return this.store.findMany(tenant, ids, undefined, view);
  }

  async submodelRefs(tenant: TenantEntity, id: string, limit: number, cursor?: string | null): Promise<Page<JsonObject>> {
    const refs = ((await this.get(tenant, id)).submodels ?? []) as JsonObject[];
    return pageOfList(cursorList('submodel-refs', tenant.id, id), refs, submodelIdOf, limit, cursor);
  }

  /** Creates or overwrites a shell the caller verified (imports; `manager`: inside the import's transaction). */
  put(tenant: TenantEntity, doc: JsonObject, options: WriteOptions = {}): Promise<'created' | 'updated'> {
    return this.store.put(tenant, doc, options);
  }

  /** Creates or overwrites many shells the caller verified, in batches, in the import's transaction (`putMany` of the store). */
  putMany(tenant: TenantEntity, docs: JsonObject[], manager: EntityManager, between?: (written: number, elements: number) => Promise<void>): Promise<('created' | 'updated')[]> {
    return this.store.putMany(tenant, docs, manager, between);
  }

  async create(tenant: TenantEntity, json: unknown, options: ShellWrite = {}): Promise<JsonObject> {
    const doc = await verifyDocument('AssetAdministrationShell', withSubmodelModelReferences(json), undefined, options.aasVersion);
    return this.store.create(tenant, doc, () => conflict(`Shell '${doc.id as string}' already exists.`), options);
  }

  async replace(tenant: TenantEntity, id: string, json: unknown, options: ShellWrite = {}): Promise<JsonObject> {
    const read = await readDocument('AssetAdministrationShell', withSubmodelModelReferences(json), options.aasVersion);
    if (read.doc.id !== id) throw badRequest(`The shell's id '${String(read.doc.id)}' differs from the id in the path '${id}'.`);
    // Judged against the stored shell only where the new one has violations (only new ones count).
    const next = read.violations.length ? (current: JsonObject) => judgeReplacement('AssetAdministrationShell', read, current, options.aasVersion) : read.doc;
    return this.store.replace(tenant, id, next, () => notFound(`Shell '${id}' not found.`), options);
  }

  async delete(tenant: TenantEntity, id: string, options: ShellWrite = {}): Promise<void> {
    await this.store.delete(tenant, id, () => notFound(`Shell '${id}' not found.`), options);
  }

  /**
   * PUT of the asset information, read and judged in the version the write comes through (`options.aasVersion`):
   * through V3.1 `Role` and V3.1's longer identifiers are taken; through V3.0 the V3.1 parts of the stored shell it did
   * not touch stay (`update`).
   */
  async replaceAssetInformation(tenant: TenantEntity, id: string, json: unknown, options: ShellWrite = {}): Promise<JsonObject> {
    const assetInformation = parsePartFor(options.aasVersion ?? '3.0', 'AssetInformation', json);
    // The whole shell is judged: shell-level constraints may span the new asset information (only new violations count).
    return this.update(tenant, id, (current) => verifyReplacement('AssetAdministrationShell', { ...current, assetInformation }, current, options.aasVersion), options);
  }

  /**
   * Sets (or, with null, removes) the asset's default thumbnail, under the shell's row lock: what else the asset
   * information holds stays as it is then. 404 when removing a thumbnail the shell does not have.
   */
  async setThumbnail(tenant: TenantEntity, id: string, thumbnail: { path: string; contentType: string } | null, options: ShellWrite = {}): Promise<JsonObject> {
    return this.update(
      tenant,
      id,
      (current) => {
        const { defaultThumbnail, ...info } = current.assetInformation as JsonObject;
        if (!thumbnail && !defaultThumbnail) throw notFound(`Shell '${id}' has no thumbnail.`);
        return verifyReplacement('AssetAdministrationShell', { ...current, assetInformation: thumbnail ? { ...info, defaultThumbnail: thumbnail } : info }, current, options.aasVersion);
      },
      options,
    );
  }

  async addSubmodelRef(tenant: TenantEntity, id: string, json: unknown, options: ShellWrite = {}): Promise<JsonObject> {
    const ref = parsePartFor(options.aasVersion ?? '3.0', 'Reference', asSubmodelModelReference(json));
    if (!isSubmodelReference(ref)) {
      throw badRequest('A submodel reference is a ModelReference with exactly one key, of type Submodel.');
    }
    const submodelId = submodelIdOf(ref);
    await this.update(
      tenant,
      id,
      (current) => {
        const refs = (current.submodels ?? []) as JsonObject[];
        if (refs.some((r) => submodelIdOf(r) === submodelId)) {
          throw conflict(`Shell '${id}' already references submodel '${submodelId}'.`);
        }
        return { ...current, submodels: [...refs, ref] };
      },
      options,
    );
    return ref;
  }

  /** Adds the specific asset ids the shell lacks (by name and value), under its row lock; the ones it has stay (DCC conversion). */
  async addSpecificAssetIds(tenant: TenantEntity, id: string, ids: { name: string; value: string }[], options: ShellWrite = {}): Promise<JsonObject> {
    return this.update(
      tenant,
      id,
      (current) => {
        const info = current.assetInformation as JsonObject;
        const present = (info.specificAssetIds ?? []) as { name: string; value: string }[];
        const added = ids.filter((n) => !present.some((p) => p.name === n.name && p.value === n.value));
        return added.length ? verifyReplacement('AssetAdministrationShell', { ...current, assetInformation: { ...info, specificAssetIds: [...present, ...added] } }, current, options.aasVersion) : current;
      },
      options,
    );
  }

  async removeSubmodelRef(tenant: TenantEntity, id: string, submodelId: string, options: ShellWrite = {}): Promise<JsonObject> {
    return this.update(
      tenant,
      id,
      (current) => {
        const refs = (current.submodels ?? []) as JsonObject[];
        const kept = refs.filter((r) => submodelIdOf(r) !== submodelId);
        if (kept.length === refs.length) throw notFound(`Shell '${id}' has no reference to submodel '${submodelId}'.`);
        const { submodels: _dropped, ...rest } = current;
        return kept.length ? { ...rest, submodels: kept } : rest;
      },
      options,
    );
  }

  /**
   * Read-modify-write of an existing shell: written only if it is still the version read (`IdentifiableStore.replace`).
   * Through V3.0 (`options.aasVersion`) `modify` gets what V3.0 sees of the shell and its result is merged onto the
   * stored one; the shell's recorded version is that of the document written.
   */
  private update(tenant: TenantEntity, id: string, modify: (current: JsonObject) => JsonObject | Promise<JsonObject>, options: ShellWrite): Promise<JsonObject> {
    return this.store.replace(tenant, id, modify, () => notFound(`Shell '${id}' not found.`), options);
  }
}
