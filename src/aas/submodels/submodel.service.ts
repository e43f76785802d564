import { type AasVersion, mapElementDownToV30, mergeV30Element, neededVersion, readElementFor } from '../versions';
import { DataSource, EntityManager } from 'typeorm';
import { MAX_LIMIT, cursorList, decodeCursor, encodeCursor } from '../../common/cursor';
import { badRequest, conflict, notFound } from '../../graphql/errors';
import { TenantEntity } from '../../management/tenants/tenant.entity';
import { JsonObject, Violation, refuseViolations } from '../model/parse';
import { judgeReplacement, readDocument, verifyDocument, verifyDocumentKeeping } from '../model/verify-document';
import type { ElementEdit, Step } from '../store/element-edit';
import { refuseDuplicateIdShort, refuseIntroduced } from './element-checks';
import { referenceFilterKeys } from '../model/reference-keys';
import { leftOutInV30 } from '../model/v31-mapping';
import { IdentifiableTextFilter, identifiableTextConditions } from '../query/text-match';
import { ShellService, referencedSubmodelIds } from '../shells/shell.service';
import { CacheSync } from '../store/cache-sync';
import { Condition, IdentifiableStore, Page, assertLimit, originOf, pageOfList } from '../store/identifiable-store';
import type { ListAnswers, StoredText, WriteOptions } from '../store/identifiable-store';
import {
  Level,
  Segment,
  childrenOf,
  containsBlob,
  descendantPaths,
  parseIdShortPath,
  segmentsOf,
  shapeForOutput,
  stepsOf,
  withMetadata,
} from './element-tree';
import { SubmodelEntity } from './submodel.entity';
import { applyElementValue, applySubmodelValue, propertyValueTypes, propertyValueWrite } from './value-only';

/** Absent and null both mean "no condition". `semanticKey` is a filter key (`model/reference-keys`). */
export interface SubmodelFilter extends IdentifiableTextFilter {
  semanticKey?: string | null;
  /** Equivalence keys (src/aas/semantics/): submodels whose semanticId has a key with one of them. */
  semanticNorms?: string[] | null;
  idShort?: string | null;
  kind?: string | null;
}

/** Through which shell a submodel is addressed (`/shells/{id}/submodels/...`): it must reference it. */
export interface Scope {
  shellId?: string | null;
}

export interface SubmodelWrite extends Scope {
  ifMatch?: string | null;
  /**
   * The version of the metamodel a write comes through (default '3.0'): whose constraints judge it; through V3.0 an
   * element write is made from what V3.0 sees and keeps the V3.1 parts it did not touch (`mergeV30Element`).
   */
  aasVersion?: AasVersion;
  /** Join this transaction (element-level changes that go with a stored file). */
  manager?: EntityManager;
}

/** An element with its place: the submodel it is in, that submodel's entity tag, its path and step kinds. */
export interface ElementAt {
  submodelId: string;
  etag: string;
  element: JsonObject;
  path: Segment[];
  /** The modelType of each step of the path. */
  types: string[];
  /** Read through V3.0, it is V3.1 content (mapped down, or holding what only V3.1 allows): the answer says so. */
  mapped?: boolean;
  /** The element as stored, where `element` is mapped down from it (its paths keep the stored indexes). */
  stored?: JsonObject;
}

/**
 * The version an element needs where it is (`types`: the modelType of each step of its path, its own last): what
 * `neededVersion` finds in it, and an idShort on the item of a list (AASd-120, removed in V3.1).
 */
export function neededInPlace(element: JsonObject, types: string[]): AasVersion {
  if (types.length > 1 && types[types.length - 2] === 'SubmodelElementList' && typeof element.idShort === 'string') return '3.1';
  return neededVersion({ modelType: 'Submodel', id: 'element', submodelElements: [element] });
}

function filterConditions(filter: SubmodelFilter): Condition[] {
  const conditions: Condition[] = [];
  if (filter.idShort != null) conditions.push(['id_short = ?', filter.idShort]);
  if (filter.kind != null) conditions.push(['kind = ?', filter.kind]);
  if (filter.semanticKey != null) conditions.push(['semantic_keys @> ARRAY[?::text]', filter.semanticKey]);
  if (filter.semanticNorms != null) conditions.push(['semantic_norms(semantic_keys) && ?::text[]', filter.semanticNorms]);
  return [...conditions, ...identifiableTextConditions(filter)];
}

/** What `heads` and `listHeads` leave out. */
const WITHOUT_ELEMENTS = ['submodelElements'];

/** The stored text serves a read without Blob values only where the submodel has none (`findText`'s `usable`). */
const WITHOUT_BLOBS = 'NOT has_blobs';

/** The list name in the cursors of `paths`. */
const PATHS_LIST = 'submodel-paths';
/** How many submodels `paths` reads first; each further batch doubles, up to a page of the store. */
const FIRST_BATCH = 16;

/** Where the cursor of `paths` left off: the submodel's insertion number and the index of the path in its paths. */
function pathCursorPosition(list: string, cursor: string): { seq: number; index: number } {
  const key = decodeCursor(list, cursor);
  const match = typeof key === 'string' ? /^(\d{1,15}):(\d{1,9})$/.exec(key) : null;
  if (!match) throw badRequest('The cursor is not one this server issued for this list.');
  return { seq: Number(match[1]), index: Number(match[2]) };
}

/** The text of the 404 a read of the absent submodel `id` answers. */
const notFoundText = (id: string) => `Submodel '${id}' not found.`;

/**
 * The Submodel Repository: submodels and, inside them, their elements. Every change goes through the store,
 * under the submodel's row lock and `If-Match`: whole documents through `write`, every element-level change
 * through `editElements`, which touches only that element's rows. Element-level changes fire no change event
 * (platform spec, Events 4).
 */
export class SubmodelService {
  private readonly store: IdentifiableStore<SubmodelEntity>;

  constructor(
    dataSource: DataSource,
    private readonly shells: ShellService,
    cache?: CacheSync,
  ) {
    this.store = new IdentifiableStore(dataSource, {
      table: 'submodels',
      entity: SubmodelEntity,
      modelType: 'Submodel',
      elementRows: true,
      columns: (doc) => ({
        aasVersion: neededVersion(doc),
        idShort: (doc.idShort as string | undefined) ?? null,
        kind: (doc.kind as string | undefined) ?? 'Instance',
        semanticKeys: referenceFilterKeys(doc.semanticId as JsonObject | undefined),
        hasBlobs: containsBlob(doc),
      }),
    }, cache);
  }

  /** `view`: the version of the metamodel the reader speaks (V3.0 readers get what needs V3.1 mapped down). */
  list(tenant: TenantEntity, filter: SubmodelFilter, limit: number, cursor?: string | null, view: AasVersion = '3.0'): Promise<Page<JsonObject>> {
    return this.store.page(tenant, filterConditions(filter), limit, cursor, undefined, view);
  }

  /**
   * The idShortPaths of the elements of the submodels `filter` selects, one flat list in insertion order of the
   * submodels (each submodel's paths depth-first, or only its top-level ones with `core`), paged over the paths.
   * The cursor names the submodel (its insertion number) and the position in its paths of the last path given,
   * so the next page resumes right after it even when the page ended inside a submodel; when that submodel has
   * been deleted meanwhile, the next one follows. Submodels are read in batches that grow while more are needed.
   */
  async paths(tenant: TenantEntity, filter: SubmodelFilter, level: Level, limit: number, cursor?: string | null): Promise<Page<string>> {
    assertLimit(limit);
    const conditions = filterConditions(filter);
    const list = cursorList(PATHS_LIST, tenant.id, conditions, level);
    const after = cursor == null ? undefined : pathCursorPosition(list, cursor);
    if (after) conditions.push(['seq >= ?', after.seq]);
    // One path more than the page holds says whether another page follows.
    const found: { seq: number; index: number; path: string }[] = [];
    let batch = Math.min(limit + 1, FIRST_BATCH);
    let next: string | undefined | null = null;
    do {
      const page = await this.store.page(tenant, conditions, batch, next);
      for (const submodel of page.items) {
        const seq = originOf(submodel)!.seq;
        const paths = descendantPaths(submodel, [], level === 'core');
        for (let index = after?.seq === seq ? after.index + 1 : 0; index < paths.length && found.length <= limit; index++) {
          found.push({ seq, index, path: paths[index] });
        }
        if (found.length > limit) break;
      }
      next = page.cursor;
      batch = Math.min(batch * 2, MAX_LIMIT);
    } while (next && found.length <= limit);
    const items = found.slice(0, limit);
    const last = items[items.length - 1];
    return {
      items: items.map((item) => item.path),
      cursor: found.length > limit ? encodeCursor(list, `${last.seq}:${last.index}`) : undefined,
    };
  }

  /** `view`: the version of the metamodel the reader speaks (V3.0 readers get what needs V3.1 mapped down). */
  async get(tenant: TenantEntity, id: string, scope: Scope = {}, view: AasVersion = '3.0'): Promise<JsonObject> {
    await this.checkScope(tenant, id, scope);
    const doc = await this.store.find(tenant, id, view);
    if (!doc) throw notFound(notFoundText(id));
    return doc;
  }

  /**
   * The submodel as JSON text, shaped by `level` and BLOB values. A deep read that needs no Blob value removed
   * passes the stored document through as PostgreSQL writes it: a large submodel is not parsed and serialized
   * again here.
   */
  async getText(tenant: TenantEntity, id: string, scope: Scope, level: Level, withBlobValue: boolean, view: AasVersion = '3.0'): Promise<{ text: string; etag: string; mapped?: boolean; mappedForV30?: string[] }> {
    await this.checkScope(tenant, id, scope);
    if (level === 'deep') {
      const stored = await this.store.findText(tenant, id, withBlobValue ? 'true' : WITHOUT_BLOBS, view);
      if (!stored) throw notFound(notFoundText(id));
      if (stored.text !== null) return { text: stored.text, etag: stored.etag };
    }
    const read = await this.get(tenant, id, {}, view);
    const doc = shapeForOutput(read, level, withBlobValue);
    return { text: JSON.stringify(doc), etag: originOf(doc)!.etag, mapped: Boolean(originOf(read)!.mapped?.length), mappedForV30: originOf(read)!.mapped };
  }

  /**
   * What `getText` answers for a deep read without Blob values (`GET /submodels/{id}` without modifiers), where the
   * stored text serves as it is: from the read cache, else from the database in one statement; where it is absent,
   * the text of the route's 404; undefined where it must be shaped first (the route answers that).
   */
  async storedText(tenant: TenantEntity, id: string, view: AasVersion = '3.0'): Promise<StoredText | undefined> {
    const stored = await this.store.storedText(tenant, id, WITHOUT_BLOBS, view);
    return stored === null ? { absent: notFoundText(id) } : stored;
  }

  /** Whole list answers (`GET` of the collection) cached per query string, for the façade's hot reads. */
  listAnswers(tenant: TenantEntity): ListAnswers | undefined {
    return this.store.listAnswers(tenant);
  }

  /** Submodels by id, for DataLoaders. */
  findMany(tenant: TenantEntity, ids: readonly string[], view: AasVersion = '3.0'): Promise<Map<string, JsonObject>> {
    return this.store.findMany(tenant, ids, undefined, view);
  }

  /** Submodels by id without their elements (descriptors): the elements never leave the database. */
  heads(tenant: TenantEntity, ids: readonly string[]): Promise<Map<string, JsonObject>> {
    return this.store.findMany(tenant, ids, WITHOUT_ELEMENTS);
  }

  /** A page of `list` without the submodels' elements. */
  listHeads(tenant: TenantEntity, filter: SubmodelFilter, limit: number, cursor?: string | null): Promise<Page<JsonObject>> {
    return this.store.page(tenant, filterConditions(filter), limit, cursor, WITHOUT_ELEMENTS);
  }

  /** The submodels a shell references, paged in the order of its references; dangling references are skipped. */
  async ofShell(tenant: TenantEntity, shellId: string, limit: number, cursor?: string | null): Promise<Page<JsonObject>> {
    const ids = referencedSubmodelIds(await this.shells.get(tenant, shellId));
    const page = pageOfList(cursorList('shell-submodels', tenant.id, shellId), ids, (id) => id, limit, cursor);
    const found = await this.store.findMany(tenant, page.items);
    return { items: page.items.flatMap((id): JsonObject[] => { const doc = found.get(id); return doc ? [doc] : []; }), cursor: page.cursor };
  }

  /** Creates or overwrites a submodel the caller verified (imports; `manager`: inside the import's transaction). */
  put(tenant: TenantEntity, doc: JsonObject, options: WriteOptions = {}): Promise<'created' | 'updated'> {
    return this.store.put(tenant, doc, options);
  }

  /** Creates or overwrites many submodels the caller verified, in batches, in the import's transaction (`putMany` of the store). */
  putMany(tenant: TenantEntity, docs: JsonObject[], manager: EntityManager, between?: (written: number, elements: number) => Promise<void>): Promise<('created' | 'updated')[]> {
    return this.store.putMany(tenant, docs, manager, between);
  }

  async create(tenant: TenantEntity, json: unknown, options: SubmodelWrite = {}): Promise<JsonObject> {
    const doc = await verifyDocument('Submodel', json, undefined, options.aasVersion);
    const id = doc.id as string;
    return this.store.create(tenant, doc, () => conflict(`Submodel '${id}' already exists.`), options);
  }

  /**
   * `create` of a submodel its caller built in the canonical order of its properties (the DCC conversion), in the
   * caller's transaction (`manager`): it is written while the worker verifies it, instead of after. The write stands
   * only when the verification passes and finds `json` canonical, so what was written is what `create` writes; a
   * submodel the verification refuses is refused as by `create` (its error wins over the write's, and the caller's
   * transaction rolls the write back); a valid one that is not canonical is written again, canonical, after a
   * savepoint undid the first write. `json` is plain JSON data (`verifyDocumentKeeping`).
   */
  async createCanonical(tenant: TenantEntity, json: JsonObject, options: SubmodelWrite & { manager: EntityManager }): Promise<JsonObject> {
    const { manager } = options;
    const exists = () => conflict(`Submodel '${String(json.id)}' already exists.`);
    await manager.query('SAVEPOINT submodel_create_canonical');
    const [verdict, written] = await Promise.allSettled([
      verifyDocumentKeeping('Submodel', json, options.aasVersion),
      this.store.create(tenant, json, exists, options),
    ]);
    if (verdict.status === 'rejected') throw verdict.reason;
    if (verdict.value.same) {
      if (written.status === 'rejected') throw written.reason;
      await manager.query('RELEASE SAVEPOINT submodel_create_canonical');
      return written.value;
    }
    await manager.query('ROLLBACK TO SAVEPOINT submodel_create_canonical');
    return this.store.create(tenant, verdict.value.doc, exists, options);
  }

  /** PUT: refused only for violations the stored submodel did not already have (`verifyReplacement`). */
  async replace(tenant: TenantEntity, id: string, json: unknown, options: SubmodelWrite = {}): Promise<JsonObject> {
    const read = await readDocument('Submodel', json, options.aasVersion);
    this.checkId(read.doc, id);
    await this.checkScope(tenant, id, options);
    // Judged against the stored submodel only where the new one has violations: else written without reading it.
    const next = read.violations.length ? (current: JsonObject) => judgeReplacement('Submodel', read, current, options.aasVersion) : read.doc;
    return this.store.replace(tenant, id, next, () => notFound(`Submodel '${id}' not found.`), { ifMatch: options.ifMatch, aasVersion: options.aasVersion });
  }

  /**
   * PATCH (level core): the attributes the body has replace the submodel's; the others stay. As every whole-submodel
   * change (`update`), made and judged in the version it comes through.
   */
  async patch(tenant: TenantEntity, id: string, json: unknown, options: SubmodelWrite = {}): Promise<JsonObject> {
    const body = (await readDocument('Submodel', json, options.aasVersion)).doc;
    this.checkId(body, id);
    return this.update(tenant, id, options, (current) => ({ ...current, ...body }));
  }

  async patchMetadata(tenant: TenantEntity, id: string, json: unknown, options: SubmodelWrite = {}): Promise<JsonObject> {
    return this.update(tenant, id, options, (current) => {
      const next = withMetadata(current, json);
      this.checkId(next, id);
      return next;
    });
  }

  async patchValue(tenant: TenantEntity, id: string, value: unknown, options: SubmodelWrite = {}): Promise<JsonObject> {
    return this.update(tenant, id, options, (current) => applySubmodelValue(current, value));
  }

  /** Deletes the submodel; through a shell, also the shell's reference to it, in the same transaction. */
  async delete(tenant: TenantEntity, id: string, options: SubmodelWrite = {}): Promise<void> {
    await this.checkScope(tenant, id, options);
    const absent = () => notFound(`Submodel '${id}' not found.`);
    if (options.shellId == null) return this.store.delete(tenant, id, absent, { ifMatch: options.ifMatch, manager: options.manager });
    await this.store.transaction(async (manager) => {
      await this.store.delete(tenant, id, absent, { ifMatch: options.ifMatch, manager });
      await this.shells.removeSubmodelRef(tenant, options.shellId!, id, { manager });
    });
  }

  /** The submodel's top-level elements, paged; as a reader of `view` sees them (V3.0: mapped down as the submodel is). */
  async elements(tenant: TenantEntity, id: string, scope: Scope, limit: number, cursor?: string | null, view: AasVersion = '3.0'): Promise<Page<ElementAt>> {
    const submodel = await this.get(tenant, id, scope, view);
    const mappedDown = view === '3.0' && (originOf(submodel)?.mapped?.length ?? 0) > 0;
    const elements = (submodel.submodelElements ?? []) as JsonObject[];
    const page = pageOfList(cursorList('submodel-elements', tenant.id, id, scope.shellId ?? null), elements, (e) => e.idShort as string, limit, cursor);
    const etag = originOf(submodel)!.etag;
    const stored = originOf(submodel)?.stored;
    const storedOf = (element: JsonObject) => (stored?.submodelElements as JsonObject[] | undefined)?.find((e) => e.idShort === element.idShort);
    const items = page.items.map((element) => ({
      ...(stored ? { stored: storedOf(element) } : {}),
      submodelId: id,
      etag,
      element,
      path: [{ idShort: element.idShort as string }],
      types: [element.modelType as string],
      mapped: view === '3.0' && (mappedDown || neededInPlace(element, [element.modelType as string]) === '3.1'),
    }));
    return { items, cursor: page.cursor };
  }

  /**
   * The idShortPaths of the submodel's elements (depth-first; only the top-level ones with `core`), paged over
   * the paths themselves: a page holds at most `limit` paths, wherever in the tree they are. A V3.0 reader (`view`)
   * gets the paths of what V3.0 sees, each as it addresses the element: a list's items by the index they are stored
   * at (an item V3.0 does not see, a relationship without an end, is skipped and keeps its index). `mapped`: the
   * submodel is V3.1 content.
   */
  async elementPaths(tenant: TenantEntity, id: string, scope: Scope, level: Level, limit: number, cursor?: string | null, view: AasVersion = '3.0'): Promise<Page<string> & { mapped?: boolean }> {
    assertLimit(limit); // before the read: a bad limit is 400 whether the submodel exists or not
    const stored = await this.get(tenant, id, scope, '3.1');
    const paths = descendantPaths(stored, [], level === 'core', [], view === '3.0' ? leftOutInV30 : undefined);
    const page = pageOfList(cursorList('submodel-element-paths', tenant.id, id, scope.shellId ?? null, level), paths, (path) => path, limit, cursor);
    return view === '3.0' && neededVersion(stored) === '3.1' ? { ...page, mapped: true } : page;
  }

  /**
   * One element: located in the database, so only the element is read, whatever the submodel's size. A V3.0 reader
   * (`view`) gets it mapped down (`mapElementDownToV30`); an element V3.0 has no form of is absent for it.
   */
  async element(tenant: TenantEntity, id: string, path: string, scope: Scope = {}, view: AasVersion = '3.0'): Promise<ElementAt> {
    const segments = parseIdShortPath(path);
    await this.checkScope(tenant, id, scope);
    const result = await this.store.findElement(tenant, id, stepsOf(segments));
    if (!result) throw notFound(`Submodel '${id}' not found.`);
    if (!result.found) throw notFound(`No element at '${path}'.`);
    const element = view === '3.0' ? mapElementDownToV30(result.found.element).json : result.found.element;
    if (!element) throw notFound(`No element at '${path}' in AAS V3.0 (it is a V3.1 element V3.0 has no form of).`);
    const mapped = view === '3.0' && neededInPlace(result.found.element, result.found.types) === '3.1';
    const stored = element === result.found.element ? {} : { stored: result.found.element };
    return { submodelId: id, etag: result.etag, element, path: segments, types: result.found.types, ...(mapped ? { mapped } : {}), ...stored };
  }

  /** Adds an element to the submodel (no path) or to the collection, list, entity or relationship at `path`. */
  async createElement(tenant: TenantEntity, id: string, path: string | null, json: unknown, options: SubmodelWrite = {}): Promise<ElementAt> {
    const parentSteps = path == null ? [] : stepsOf(parseIdShortPath(path));
    const version = options.aasVersion ?? '3.0';
    const read = readElementFor(version, json);
    // A new element: every violation it has is one it introduces.
    refuseViolations('SubmodelElement', read.violations);
    const element = read.doc;
    return this.editElement(tenant, id, options, async (edit) => {
      const parent = await edit.node(parentSteps);
      if (!parent) throw notFound(`No element at '${path}'.`);
      if (version === '3.0' && leftOutInV30(parent.json)) throw notFound(`No element at '${path}' in AAS V3.0 (it is a V3.1 element V3.0 has no form of).`);
      const children = childrenOf({ modelType: parent.type });
      if (!children) throw badRequest(`The ${parent.type} at '${path}' cannot hold elements.`);
      if (!children.byIndex && typeof element.idShort === 'string' && (await edit.hasChild(parent, element.idShort))) {
        throw conflict(`An element '${element.idShort}' already exists at '${path ?? ''}'.`);
      }
      await refuseIntroduced(edit, parent, read, null, version);
      return { steps: await edit.append(parent, element), element, types: [...parent.types, element.modelType as string] };
    }, { steps: parentSteps, descendants: false, children: { idShort: typeof element.idShort === 'string' ? element.idShort : undefined } });
  }

  async replaceElement(tenant: TenantEntity, id: string, path: string, json: unknown, options: SubmodelWrite = {}): Promise<ElementAt> {
    const read = readElementFor(options.aasVersion ?? '3.0', json);
    return this.changeElement(tenant, id, path, options, (_current, steps) => {
      const last = steps[steps.length - 1];
      if (typeof last === 'string' && read.doc.idShort !== last) {
        throw badRequest(`The element's idShort '${String(read.doc.idShort)}' differs from the path's '${last}'.`);
      }
      return read;
    }, true);
  }

  /**
   * Changes one element as `change` says, under the submodel's row lock, judged by what it changes; for services
   * that derive the new element from the current one (attachments).
   */
  async updateElement(tenant: TenantEntity, id: string, path: string, change: (current: JsonObject) => JsonObject, options: SubmodelWrite = {}): Promise<ElementAt> {
    return this.changeElement(tenant, id, path, options, (current) => readElementFor(options.aasVersion ?? '3.0', change(current)));
  }

  /** PATCH (level core): the attributes the body has replace the element's; the others, children among them, stay. */
  async patchElement(tenant: TenantEntity, id: string, path: string, json: unknown, options: SubmodelWrite = {}): Promise<ElementAt> {
    const version = options.aasVersion ?? '3.0';
    const body = readElementFor(version, json).doc;
    return this.changeElement(tenant, id, path, options, (current) => {
      if (body.modelType !== current.modelType) {
        throw badRequest(`The body is a ${String(body.modelType)}; the element at '${path}' is a ${String(current.modelType)}.`);
      }
      if (body.idShort !== current.idShort) throw badRequest(`The body's idShort differs from the element's.`);
      return { ...readElementFor(version, { ...current, ...body }), sets: Object.keys(body) };
    });
  }

  async patchElementMetadata(tenant: TenantEntity, id: string, path: string, json: unknown, options: SubmodelWrite = {}): Promise<ElementAt> {
    return this.changeElement(tenant, id, path, options, (current) => readElementFor(options.aasVersion ?? '3.0', withMetadata(current, json)));
  }

  /** Values only: the element's structure stays; its new values are judged as any change of it. */
  async patchElementValue(tenant: TenantEntity, id: string, path: string, value: unknown, options: SubmodelWrite = {}): Promise<ElementAt> {
    // A Property's value: one statement that checks the valueType where it finds the element (else the way below).
    const property = options.shellId == null ? propertyValueTypes(value) : undefined;
    if (property) {
      const steps = stepsOf(parseIdShortPath(path));
      const written = await this.store.writePropertyValue(tenant, id, steps, property, { ifMatch: options.ifMatch, manager: options.manager });
      if (written) {
        // Through V3.0 as V3.0 sees it (a Property is never left out; its value and valueType are never mapped).
        const element = (options.aasVersion ?? '3.0') === '3.0' ? mapElementDownToV30(written.json).json! : written.json;
        return { submodelId: id, etag: written.etag, element, path: segmentsOf(steps), types: [...written.above, 'Property'] };
      }
    }
    return this.changeElement(tenant, id, path, options, (current) => {
      // A Property's value that its valueType takes changes nothing else: no whole read and verification needed.
      const property = propertyValueWrite(current, value);
      return property ? { doc: property, violations: [], onlyValue: true } : readElementFor(options.aasVersion ?? '3.0', applyElementValue(current, value));
    });
  }

  async deleteElement(tenant: TenantEntity, id: string, path: string, options: SubmodelWrite = {}): Promise<void> {
    const steps = stepsOf(parseIdShortPath(path));
    // Removing an element introduces no violation: nothing is verified.
    await this.editElement(tenant, id, options, async (edit) => {
      const node = await edit.node(steps);
      if (!node) throw notFound(`No element at '${path}'.`);
      // What V3.0 does not see it cannot remove: only a V3.1 write changes it.
      if ((options.aasVersion ?? '3.0') === '3.0' && leftOutInV30(node.json)) throw notFound(`No element at '${path}' in AAS V3.0 (it is a V3.1 element V3.0 has no form of).`);
      await edit.remove(node, await edit.parentOf(steps));
      return null;
      // Its rows below it too: a delete without the lock compares them (`ElementEdit.remove`).
    }, { steps, descendants: true });
  }

  /**
   * Replaces the element at `path` with what `change` reads from it (with the violations it has): refused for a
   * violation the element did not have before in its place; renamed, its path follows (unique among its siblings).
   */
  private async changeElement(
    tenant: TenantEntity,
    id: string,
    path: string,
    options: SubmodelWrite,
    /**
     * `onlyValue`: the change set a value its element's constraints were checked for, nothing else (`propertyValueWrite`);
     * `sets`: the members it set, the rest taken from the current element as it is.
     */
    change: (current: JsonObject, steps: Step[]) => { doc: JsonObject; violations: Violation[]; onlyValue?: boolean; sets?: string[] },
    /** The new element does not derive from the current one (PUT): what the current one holds may not matter. */
    replacing = false,
  ): Promise<ElementAt> {
    const steps = stepsOf(parseIdShortPath(path));
    const version = options.aasVersion ?? '3.0';
    return this.editElement(tenant, id, options, async (edit) => {
      const current = await edit.subtree(steps);
      if (!current) throw notFound(`No element at '${path}'.`);
      // Through V3.1 made from and judged against the element as stored. Through V3.0 made from and judged against
      // what V3.0 sees of the element, then merged onto it so that the V3.1 parts it did not touch stay (mergeV30Element).
      const view = version === '3.1' ? current.element : mapElementDownToV30(current.element).json;
      if (!view) throw notFound(`No element at '${path}' in AAS V3.0 (it is a V3.1 element V3.0 has no form of).`);
      const before = structuredClone(view);
      const after = change(view === current.element ? current.element : structuredClone(view), steps);
      const parent = await edit.parentOf(steps);
      if (!replacing && (after.onlyValue || after.sets)) edit.consultedAllBut(current, after.sets ?? ['value']);
      else if (!replacing) edit.consulted(current);
      // Its idShort, semanticId and place unchanged, a value-only change introduces nothing the checks below could find.
      if (!after.onlyValue) {
        if (parent.type !== 'SubmodelElementList' && after.doc.idShort !== before.idShort) await refuseDuplicateIdShort(edit, parent, after.doc.idShort);
        if (await refuseIntroduced(edit, parent, after, { element: before, node: current }, version)) edit.consulted(current);
      }
      const stored = view === current.element ? after.doc : mergeV30Element(current.element, after.doc);
      return { steps: await edit.replace(current, parent, stored), element: after.doc, types: [...parent.types, after.doc.modelType as string] };
    }, { steps, descendants: true });
  }

  /**
   * The one write path of elements, REST and GraphQL alike: `edit` reads and writes, through the store's
   * `ElementEdit`, only the rows its change touches, under the submodel's row lock and `If-Match`.
   */
  private async editElement<T extends { steps: Step[]; element: JsonObject; types: string[] } | null>(
    tenant: TenantEntity,
    id: string,
    options: SubmodelWrite,
    edit: (elements: ElementEdit) => Promise<T>,
    at?: { steps: Step[]; descendants: boolean; children?: { idShort?: string } },
  ): Promise<T extends null ? void : ElementAt> {
    await this.checkScope(tenant, id, options);
    // Written through V3.1 with what V3.0 lacks (in its place: an idShort on a list's item too), the submodel needs V3.1.
    const needs31 = options.aasVersion === '3.1' ? (result: T) => result !== null && neededInPlace(result.element, result.types) === '3.1' : undefined;
    const { result, etag } = await this.store.editElements(tenant, id, edit, { ifMatch: options.ifMatch, manager: options.manager }, at, needs31);
    if (result === null) return undefined as T extends null ? void : ElementAt;
    return { submodelId: id, etag, element: result.element, path: segmentsOf(result.steps), types: result.types } as T extends null ? void : ElementAt;
  }

  /**
   * A whole-submodel change: `modify` makes the new document from the stored one (without changing it), which is
   * refused only for violations the stored one did not already have. In the version the write comes through: through
   * V3.1 made from the submodel as stored and judged by V3.1's constraints; through V3.0 made from what V3.0 sees of
   * it, judged by V3.0's, and merged onto it so that the V3.1 parts it did not touch stay (`IdentifiableStore.replace`).
   * The submodel's recorded version is that of the document written.
   */
  private async update(
    tenant: TenantEntity,
    id: string,
    options: SubmodelWrite,
    modify: (current: JsonObject) => JsonObject | { doc: JsonObject; violations: Violation[] },
  ): Promise<JsonObject> {
    await this.checkScope(tenant, id, options);
    const next = async (current: JsonObject) => {
      const made = modify(current);
      const read = 'violations' in made && 'doc' in made ? (made as { doc: JsonObject; violations: Violation[] }) : await readDocument('Submodel', made, options.aasVersion);
      return judgeReplacement('Submodel', read, current, options.aasVersion);
    };
    return this.store.replace(tenant, id, next, () => notFound(`Submodel '${id}' not found.`), { ifMatch: options.ifMatch, aasVersion: options.aasVersion });
  }

  private checkId(doc: JsonObject, id: string): void {
    if (doc.id !== id) throw badRequest(`The submodel's id '${String(doc.id)}' differs from the id in the path '${id}'.`);
  }

  /** Through a shell, only the submodels it references exist. */
  private async checkScope(tenant: TenantEntity, id: string, scope: Scope): Promise<void> {
    if (scope.shellId == null) return;
    const shell = await this.shells.get(tenant, scope.shellId);
    if (!referencedSubmodelIds(shell).includes(id)) throw notFound(`Shell '${scope.shellId}' does not reference submodel '${id}'.`);
  }
}

