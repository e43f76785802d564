import { type AasVersion, neededVersion } from '../versions';
import { DataSource, EntityManager } from 'typeorm';
import { badRequest, conflict, notFound } from '../../graphql/errors';
import { TenantEntity } from '../../management/tenants/tenant.entity';
import type { JsonObject } from '../model/parse';
import { judgeReplacement, readDocument, verifyDocument } from '../model/verify-document';
import { referenceKey } from '../model/reference-keys';
import { CacheSync } from '../store/cache-sync';
import { Condition, IdentifiableStore, Page, originOf } from '../store/identifiable-store';
import type { ListAnswers, StoredText, WriteOptions } from '../store/identifiable-store';
import { ConceptDescriptionEntity } from './concept-description.entity';

/** Absent and null both mean "no condition"; the references are canonical keys (`model/reference-keys`). */
export interface ConceptDescriptionFilter {
  idShort?: string | null;
  isCaseOfKey?: string | null;
  dataSpecificationKey?: string | null;
}

export interface ConceptDescriptionWrite {
  ifMatch?: string | null;
  /** The version of the metamodel the write comes through: whose constraints judge it (default '3.0'). */
  aasVersion?: AasVersion;
}

/** The text of the 404 a read of the absent concept description `id` answers. */
const notFoundText = (id: string) => `Concept description '${id}' not found.`;

/** The Concept Description Repository. Every change goes through the store's write path. */
export class ConceptDescriptionService {
  private readonly store: IdentifiableStore<ConceptDescriptionEntity>;

  constructor(dataSource: DataSource, cache?: CacheSync) {
    this.store = new IdentifiableStore(dataSource, {
      table: 'concept_descriptions',
      entity: ConceptDescriptionEntity,
      modelType: 'ConceptDescription',
      columns: (doc) => ({
        aasVersion: neededVersion(doc),
        idShort: (doc.idShort as string | undefined) ?? null,
        isCaseOf: ((doc.isCaseOf ?? []) as JsonObject[]).map(referenceKey),
        dataSpecifications: ((doc.embeddedDataSpecifications ?? []) as JsonObject[]).map((eds) =>
          referenceKey(eds.dataSpecification as JsonObject),
        ),
      }),
    }, cache);
  }

  list(tenant: TenantEntity, filter: ConceptDescriptionFilter, limit: number, cursor?: string | null, view: AasVersion = '3.0'): Promise<Page<JsonObject>> {
    const conditions: Condition[] = [];
    if (filter.idShort != null) conditions.push(['id_short = ?', filter.idShort]);
    if (filter.isCaseOfKey != null) conditions.push(['is_case_of @> ARRAY[?::text]', filter.isCaseOfKey]);
    if (filter.dataSpecificationKey != null) conditions.push(['data_specifications @> ARRAY[?::text]', filter.dataSpecificationKey]);
    return this.store.page(tenant, conditions, limit, cursor, undefined, view);
  }

  async get(tenant: TenantEntity, id: string, view: AasVersion = '3.0'): Promise<JsonObject> {
    const doc = await this.store.find(tenant, id, view);
    if (!doc) throw notFound(notFoundText(id));
    return doc;
  }

  /** The concept description as JSON text, as stored (the read cache's, when it holds it). */
  async getText(tenant: TenantEntity, id: string, view: AasVersion = '3.0'): Promise<{ text: string; etag: string; mapped?: boolean; mappedForV30?: string[] }> {
    const stored = await this.store.findText(tenant, id, 'true', view);
    if (!stored) throw notFound(notFoundText(id));
    if (stored.text !== null) return { text: stored.text, etag: stored.etag };
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

  /** Concept descriptions by id, for DataLoaders. */
  findMany(tenant: TenantEntity, ids: readonly string[], view: AasVersion = '3.0'): Promise<Map<string, JsonObject>> {
    return this.store.findMany(tenant, ids, undefined, view);
  }

  /** Creates or overwrites a concept description the caller verified (imports; `manager`: inside the import's transaction). */
  put(tenant: TenantEntity, doc: JsonObject, options: WriteOptions = {}): Promise<'created' | 'updated'> {
    return this.store.put(tenant, doc, options);
  }

  /** Creates or overwrites many concept descriptions the caller verified, in batches, in the import's transaction (`putMany` of the store). */
  putMany(tenant: TenantEntity, docs: JsonObject[], manager: EntityManager, between?: (written: number, elements: number) => Promise<void>): Promise<('created' | 'updated')[]> {
    return this.store.putMany(tenant, docs, manager, between);
  }

  async create(tenant: TenantEntity, json: unknown, options: ConceptDescriptionWrite = {}): Promise<JsonObject> {
    const doc = await verifyDocument('ConceptDescription', json, undefined, options.aasVersion);
    const id = doc.id as string;
    return this.store.create(tenant, doc, () => conflict(`Concept description '${id}' already exists.`), options);
  }

  async replace(tenant: TenantEntity, id: string, json: unknown, options: ConceptDescriptionWrite = {}): Promise<JsonObject> {
    const read = await readDocument('ConceptDescription', json, options.aasVersion);
    if (read.doc.id !== id) throw badRequest(`The concept description's id '${String(read.doc.id)}' differs from the id in the path '${id}'.`);
    // Refused only for violations the stored one did not already have: judged against it where there are any.
    const next = read.violations.length ? (current: JsonObject) => judgeReplacement('ConceptDescription', read, current, options.aasVersion) : read.doc;
    return this.store.replace(tenant, id, next, () => notFound(`Concept description '${id}' not found.`), options);
  }

  async delete(tenant: TenantEntity, id: string, options: ConceptDescriptionWrite = {}): Promise<void> {
    await this.store.delete(tenant, id, () => notFound(`Concept description '${id}' not found.`), options);
  }
}
