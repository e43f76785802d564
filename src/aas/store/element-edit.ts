import { notFound } from '../../graphql/errors';
import { JsonObject } from '../model/parse';
import { ElementRow, RowSignatures, assemble, rowChanges, signaturesOf, subtreeRows } from '../submodels/element-rows';
import { childrenOf, containsBlob } from '../submodels/element-tree';
import {
  Db,
  childSemanticIds,
  closeListGap,
  deleteSubtree,
  NodeRow,
  PendingRows,
  PrefetchedRows,
  ReadRow,
  ElementWriteBasis,
  ElementWrites,
  finishElementWrite,
  lastChildPosition,
  pathTaken,
  readNode,
  readSubtree,
  readSubtreeById,
  writeElementsOnce,
  writeNodeJson,
} from './element-rows-sql';

/** A step of an element path: an idShort, or an index into a list. */
export type Step = string | number;

/** Steps as an idShortPath, `a.b[2]`: the form element rows store their path in. */
export function pathText(steps: Step[]): string {
  return steps.map((step, i) => (typeof step === 'number' ? `[${step}]` : i ? `.${step}` : step)).join('');
}

/** `{1,2}`, PostgreSQL's text of an integer array, as numbers. */
export const ordOf = (text: string) => (text === '{}' ? [] : text.slice(1, -1).split(',').map(Number));

const jsonBytes = (rows: Pick<ElementRow, 'json'>[]) => rows.reduce((sum, row) => sum + Buffer.byteLength(JSON.stringify(row.json)), 0);

/**
 * The element at `steps` of the submodel `id` (in `table`, found by `byId`: SQL over `$1`, the tenant, and `$2`, the
 * id), assembled from its rows, with its modelTypes on the way and its size (null when absent), and the submodel's
 * row `seq` and `version`, all in one statement; null when the submodel does not exist.
 */
export async function readElementById(
  db: Db,
  table: string,
  byId: string,
  tenantId: string,
  id: string,
  steps: Step[],
): Promise<{ seq: string; version: number; found: { element: JsonObject; types: string[]; bytes: number } | null } | null> {
  const read = await readSubtreeById(db, table, byId, tenantId, id, pathText(steps));
  if (!read) return null;
  return { seq: read.seq, version: read.version, found: read.rows.length ? { ...assembled(read.rows), types: read.types } : null };
}

/** The element of a subtree's rows (the element's first), its own row and their JSON size, taken before assembly. */
function assembled(rows: ReadRow<JsonObject>[]): { element: JsonObject; root: ReadRow<JsonObject>; own: JsonObject; bytes: number } {
  const bytes = jsonBytes(rows);
  const [root, ...descendants] = rows;
  const own = { ...root.json };
  return { element: assemble(root.json, descendants, root.depth), root, own, bytes };
}

/**
 * Thrown by an `ElementEdit` read without the lock when its change cannot be written as one statement (it must
 * write rows before it reads others): the store then makes it under the submodel's row lock.
 */
export class LockNeeded extends Error {}

/** Model types whose element rows have no rows below them. */
const CONTAINERS = new Set(['SubmodelElementCollection', 'SubmodelElementList', 'Entity', 'AnnotatedRelationshipElement']);
/** Model types that hold, or may hold, a Blob (an Operation in its variables). */
const BLOB_HOLDERS = new Set(['Blob', 'Operation']);

/** Compares two `ord`s as PostgreSQL compares integer arrays. */
function compareOrd(a: number[], b: number[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return a[i] - b[i];
  return a.length - b.length;
}

/** A place in a submodel that holds elements or is one: the submodel itself (`ord` []) or one of its elements. */
export interface ElementNode {
  steps: Step[];
  ord: number[];
  /** Its idShortPath; '' for the submodel. */
  path: string;
  /** `Submodel`, or the element's modelType. */
  type: string;
  /** Its own JSON without child elements (for the submodel: its head). */
  json: JsonObject;
  /** The modelTypes on the way to it, its own last (none for the submodel). */
  types: string[];
  /** Its row's version as read without the lock (`xmin`); none for the submodel. */
  x?: string;
}

/** An element with its whole subtree, as stored. */
export interface ElementSubtree extends ElementNode {
  element: JsonObject;
  /** Its rows as stored: only the rows that change are written. */
  before: RowSignatures;
  bytes: number;
  /** Its rows' `ord` and version (`xmin`) as read without the lock. */
  versions: { ord: number[]; x: string }[];
}

/**
 * The element-level write of one submodel, inside the transaction that holds the submodel's row lock (opened by
 * `IdentifiableStore.editElements`): reads and writes only the rows a change touches (the element's subtree; a
 * container's own row where its empty child list goes; the following items of a list whose indices shift), and
 * keeps count of what the submodel's row must say afterwards (`finish`).
 */
export class ElementEdit {
  private bytes = 0;
  /** Row writes kept for `finish`, which makes them in the statement that writes the submodel's row. */
  private readonly pending: PendingRows = { remove: [], update: [], add: [] };
  private blobAdded = false;
  private blobRemoved = false;
  private headChanged = false;

  // Read without the lock (`unlocked`): what the one statement of `finishOnce` compares and writes besides the rows.
  /** The whole version must still be the one read: the edit read more than the rows it compares. */
  private whole = false;
  /** Rows (their `ord` text) whose versions must be as read: `ord@xmin` each; `ranges`, whose whole range is compared. */
  private readonly versions = new Map<string, string>();
  private readonly ranges = new Map<string, { ord: number[]; subtree: boolean }>();
  private located?: { ord: number[]; path: string; type: string; but?: { keys: string[]; rest: JsonObject } };
  private locatedBytes?: number;
  private topDepends = false;
  private topChanged = false;
  private readonly touched = new Map<string, { ord: number[]; json: JsonObject | null }>();
  private blobRecount?: number[];
  /** Subtrees whose content the change or its verdict depends on (`consulted`), or all of it but its value. */
  private readonly consultedSubtrees = new Set<ElementSubtree>();
  private readonly consultedBut = new Map<ElementSubtree, string[]>();
  /** An element appended to a parent that is not a list: where it goes is decided under the lock (`ElementWrites.append`). */
  private appended?: ElementWrites['append'];
  /** Elements whose rows a replace wrote, with the new path of a rename: entries of the submodel's `element_log`. */
  private readonly logged: { ord: number[]; path?: string }[] = [];

  constructor(
    private readonly db: Db,
    private readonly tenantId: string,
    private readonly seq: string,
    /** The submodel without its elements. */
    readonly head: JsonObject,
    /** Rows read with the submodel's lock, as they are under it (`lockSubmodel`), or read without it: not read again. */
    private readonly prefetched?: PrefetchedRows,
    /** Read without the lock: the submodel's version and `top_elements_version` as read. The write is `finishOnce`. */
    private readonly unlocked?: { version: number; top: number },
  ) {}

  /** A read beyond the rows read first: with no lock, the write then compares the whole version. */
  private readMore(): void {
    this.whole = true;
  }

  /** The write depends on the row `ord` as read (its version `x`), or with `subtree` on every row of its range. */
  private dependOn(ord: number[], rows: { ord: number[]; x?: string }[], subtree: boolean): void {
    if (!this.unlocked) return;
    const key = ord.join(',');
    if (!this.ranges.get(key)?.subtree) this.ranges.set(key, { ord, subtree });
    for (const row of rows) {
      if (row.x === undefined) this.whole = true;
      else this.versions.set(row.ord.join(','), `{${row.ord.join(',')}}@${row.x}`);
    }
  }

  /**
   * `parent`'s child list changes in a way its row must show (a list's items, a rename, its empty list dropped): its
   * row gets a new version (with `json` where its own JSON changes too); at the top level, `top_elements_version` is
   * raised.
   */
  private touch(parent: ElementNode, json: JsonObject | null = null): void {
    if (!this.unlocked) return;
    if (!parent.ord.length) {
      this.topDepends = true;
      this.topChanged = true;
      return;
    }
    this.dependOn(parent.ord, [{ ord: parent.ord, x: parent.x }], false);
    const key = parent.ord.join(',');
    this.touched.set(key, { ord: parent.ord, json: json ?? this.touched.get(key)?.json ?? null });
  }

  /** The change, or the verdict on it, depends on what `current` holds (not only on where it is). */
  consulted(current: ElementSubtree): void {
    this.consultedSubtrees.add(current);
  }

  /**
   * The change depends on everything `current` holds but the members `keys`, which it sets (a new value judged by
   * the valueType; a PATCH's members).
   */
  consultedAllBut(current: ElementSubtree, keys: string[]): void {
    this.consultedBut.set(current, keys);
  }

  /**
   * The row of the element at `path` (its own, not its subtree) among the rows read with the lock, with the
   * modelTypes above it; null when they show nothing there, undefined when they do not tell.
   */
  private prefetchedNode(path: string): NodeRow | null | undefined {
    const read = this.prefetched;
    if (!read) return undefined;
    const chain = read.rows.length ? [...read.above, read.rows[0]] : read.above;
    const at = chain.findIndex((row) => row.path === path);
    if (at >= 0) return { ord: chain[at].ord, type: chain[at].type, path, json: chain[at].json, above: chain.slice(0, at).map((row) => row.type), x: chain[at].x };
    return path === read.path ? null : undefined;
  }

  /** The submodel as the place of its top-level elements. */
  get submodel(): ElementNode {
    return { steps: [], ord: [], path: '', type: 'Submodel', json: this.head, types: [] };
  }

  /** The element at `steps` as a place (its own row, not its subtree); the submodel for no steps. Null when absent. */
  async node(steps: Step[]): Promise<ElementNode | null> {
    if (!steps.length) return this.submodel;
    const path = pathText(steps);
    const prefetched = this.prefetchedNode(path);
    if (prefetched === undefined) this.readMore();
    const row = prefetched === undefined ? await readNode(this.db, this.tenantId, this.seq, path) : prefetched;
    if (!row) return null;
    return { steps, ord: ordOf(row.ord), path: row.path, type: row.type, json: row.json, types: [...row.above, row.type], x: row.x };
  }

  /** The element at `steps` with its descendants, assembled; null when absent. */
  async subtree(steps: Step[]): Promise<ElementSubtree | null> {
    const path = pathText(steps);
    const read = this.prefetched;
    if (!(read?.descendants && read.path === path)) this.readMore();
    const { rows, types } =
      read?.descendants && read.path === path
        ? { rows: read.rows, types: read.rows.length ? [...read.above.map((row) => row.type), read.rows[0].type] : [] }
        : await readSubtree(this.db, this.tenantId, this.seq, path);
    if (!rows.length) return null;
    // Before `assemble`, which puts the children into their parents' objects.
    const before = await signaturesOf(rows.map((row) => ({ ord: ordOf(row.ord), path: row.path, json: row.json })));
    const { element, root, own, bytes } = assembled(rows);
    const versions = rows.map((row) => ({ ord: ordOf(row.ord), x: row.x ?? '' }));
    return { steps, ord: ordOf(root.ord), path: root.path, type: root.type, json: own, types, element, before, bytes, versions, x: root.x };
  }

  /** The place that holds the element at `steps` (it exists: it was read). */
  async parentOf(steps: Step[]): Promise<ElementNode> {
    const parent = await this.node(steps.slice(0, -1));
    if (!parent) throw notFound(`No element at '${pathText(steps)}'.`);
    return parent;
  }

  /** The idShortPath a child of `parent` named `idShort` has. */
  childPath(parent: ElementNode, idShort: string): string {
    return parent.path ? `${parent.path}.${idShort}` : idShort;
  }

  /** Whether `parent` (not a list) has a child named `idShort`. */
  hasChild(parent: ElementNode, idShort: string): Promise<boolean> {
    const path = this.childPath(parent, idShort);
    const asked = this.prefetched?.children?.taken;
    if (asked?.path === path) return Promise.resolve(asked.taken);
    this.readMore();
    return pathTaken(this.db, this.tenantId, this.seq, path, parent.ord.length + 1);
  }

  /** The position of the last child of `parent`; -1 when it has none. */
  private lastChildPosition(parent: ElementNode): Promise<number> {
    const read = this.prefetched;
    if (read?.children && read.path === parent.path) return Promise.resolve(read.children.lastPosition);
    this.readMore();
    return lastChildPosition(this.db, this.tenantId, this.seq, parent.ord);
  }

  /** The distinct semanticIds `parent`'s children have, but the child at `except`. */
  childSemanticIds(parent: ElementNode, except?: ElementNode): Promise<JsonObject[]> {
    this.readMore();
    return childSemanticIds(this.db, this.tenantId, this.seq, parent.ord, except?.ord ?? null);
  }

  /** Appends `element` to `parent`'s children; returns its steps. */
  async append(parent: ElementNode, element: JsonObject): Promise<Step[]> {
    const byIndex = childrenOf({ modelType: parent.type })!.byIndex;
    const position = (await this.lastChildPosition(parent)) + 1;
    const step: Step = byIndex ? position : (element.idShort as string);
    const path = byIndex ? `${parent.path}[${position}]` : this.childPath(parent, element.idShort as string);
    const rows = subtreeRows(element, [...parent.ord, position], path);
    this.pending.add.push(...rows);
    this.bytes += jsonBytes(rows);
    this.blobAdded ||= containsBlob(element);
    if (byIndex) this.touch(parent);
    else if (this.unlocked) {
      // Outside a list an add depends on its parent being the element read (its row version), and, compared under the
      // lock with the submodel's `element_log`, on no sibling having taken its idShort since the read; it goes after
      // the last child there is then. The parent's row and the submodel's list of elements keep their versions, so
      // adds of other idShorts do not make it read again.
      if (parent.ord.length) this.dependOn(parent.ord, [{ ord: parent.ord, x: parent.x }], false);
      this.appended = { parent: parent.ord, path, last: position - 1 };
    }
    await this.dropEmptyChildList(parent);
    return [...parent.steps, step];
  }

  /**
   * Replaces the element `current` with `element` (its idShort may differ: its path and its descendants' follow);
   * only the rows that differ are written. Returns the element's steps.
   */
  async replace(current: ElementSubtree, parent: ElementNode, element: JsonObject): Promise<Step[]> {
    const last = current.steps[current.steps.length - 1];
    const renamed = typeof last === 'string' && element.idShort !== last;
    const path = renamed ? this.childPath(parent, element.idShort as string) : current.path;
    const rows = subtreeRows(element, current.ord, path);
    if (this.unlocked) {
      // Its place's rules are judged against its parent's JSON; a new name against its siblings (read: `whole`).
      if (parent.ord.length) this.dependOn(parent.ord, [{ ord: parent.ord, x: parent.x }], false);
      if (renamed) this.touch(parent);
      // One row for one row, the stored one of a type without rows below it and without a Blob, and the change
      // independent of what it held: written whatever it holds now, where it still is.
      const stored = current.versions.length === 1 && !CONTAINERS.has(current.type) && !BLOB_HOLDERS.has(current.type);
      if (stored && rows.length === 1 && !renamed && !this.consultedSubtrees.has(current)) {
        // Made from the element as read, setting the members `keys`: the rest of it must still be as read.
        const keys = this.consultedBut.get(current);
        const rest = keys && Object.fromEntries(Object.entries(current.json).filter(([key]) => !keys.includes(key)));
        this.located = { ord: current.ord, path: current.path, type: current.type, ...(keys && { but: { keys, rest: rest! } }) };
        this.pending.update.push(rows[0]);
        this.locatedBytes = jsonBytes(rows);
        this.blobAdded ||= containsBlob(element);
        return current.steps;
      }
      this.dependOn(current.ord, current.versions, true);
      // Rows in its range may come and go: an add below it, or under it, that read before compares that.
      this.logged.push({ ord: current.ord, ...(renamed && { path }) });
      if (containsBlob(current.element) && !containsBlob(element)) {
        // Whether a Blob remains is asked of the other rows, as they are only where nothing was written since.
        this.whole = true;
        this.blobRecount = current.ord;
      }
    }
    // A row at a place that had one changes in place; the others go or come.
    const { remove, add } = await rowChanges(current.before, rows);
    const replaced = new Set(remove.map((ord) => ord.join(',')));
    for (const row of add) (replaced.delete(row.ord.join(',')) ? this.pending.update : this.pending.add).push(row);
    this.pending.remove.push(...[...replaced].map((ord) => ord.split(',').map(Number)));
    this.bytes += jsonBytes(rows) - current.bytes;
    this.blobAdded ||= containsBlob(element);
    this.blobRemoved ||= containsBlob(current.element);
    return renamed ? [...parent.steps, element.idShort as string] : current.steps;
  }

  /** Deletes the element `current` with its subtree; in a list, the items after it move up one index. */
  async remove(current: ElementNode, parent: ElementNode): Promise<void> {
    if (this.unlocked) {
      if (this.pending.subtree || this.pending.listItem) throw new LockNeeded();
      if (parent.type === 'SubmodelElementList') {
        // The items after it move up one index: their rows are read in the statement, as of the whole version.
        this.whole = true;
        this.pending.listItem = { list: parent.ord, path: parent.path, index: current.ord[current.ord.length - 1] };
        this.touch(parent);
        return;
      }
      const read = this.prefetched;
      const path = current.path;
      if (read?.descendants && read.path === path && read.rows.length) {
        this.dependOn(current.ord, read.rows.map((row) => ({ ord: ordOf(row.ord), x: row.x })), true);
        // A Blob among the rows gone: whether one remains is asked of the other rows (read: `whole`).
        if (read.rows.some((row) => row.type === 'Blob' || (row.type === 'Operation' && JSON.stringify(row.json).includes('"Blob"')))) this.whole = true;
      } else this.whole = true;
      // Outside a list nothing else moves: its parent's row and the submodel's list of elements keep their versions,
      // so deletes of other elements do not make it read again. An add below it since the read is in the log.
    }
    // Outside a list nothing moves: the rows go in the statement of `finish`.
    if (parent.type !== 'SubmodelElementList' && !this.pending.subtree) {
      this.pending.subtree = current.ord;
      return;
    }
    const gone = await deleteSubtree(this.db, this.tenantId, this.seq, current.ord);
    this.bytes -= gone.bytes;
    this.blobRemoved ||= gone.blobs;
    if (parent.type === 'SubmodelElementList') {
      await closeListGap(this.db, this.tenantId, this.seq, parent.ord, parent.path, current.ord[current.ord.length - 1]);
    }
  }

  /**
   * A container keeps its child list in its own JSON only while the list is empty (`"value": []`, see
   * element-rows.ts); with a child, the list is its rows.
   */
  private async dropEmptyChildList(parent: ElementNode): Promise<void> {
    const key = childrenOf({ modelType: parent.type })!.key;
    if (!(key in parent.json)) return;
    const { [key]: _empty, ...rest } = parent.json;
    parent.json = rest;
    if (parent.ord.length && this.unlocked) this.touch(parent, rest);
    else if (parent.ord.length) await writeNodeJson(this.db, this.tenantId, this.seq, parent.ord, rest);
    else this.headChanged = true;
  }

  /**
   * Writes the rows kept for the end and the submodel's row (a new version, its size, whether it holds a Blob, its
   * head where that changed; with `needs31`, its recorded version '3.1'), in one statement.
   */
  finish(needs31 = false): Promise<void> {
    return finishElementWrite(this.db, this.tenantId, this.seq, this.pending, {
      bytes: this.bytes,
      blobAdded: this.blobAdded,
      blobRemoved: this.blobRemoved,
      head: this.headChanged ? this.submodelHead() : undefined,
      needs31,
    });
  }

  /**
   * The write of an edit read without the lock, as one statement (`writeElementsOnce`): what it depends on is
   * compared there, under the submodel's lock. Null when the submodel's row is gone; `written` null when the basis
   * no longer held (read again). `needs31`: the submodel's recorded version becomes '3.1' in the same statement.
   */
  finishOnce(writer: Db, ifMatchTags: string[] | null, notify: { payload: string } | undefined, needs31 = false) {
    const basis = this.unlocked!;
    const ranges = [...this.ranges.values()];
    const expect = [...this.versions.keys()]
      .map((key) => ({ ord: key === '' ? [] : key.split(',').map(Number), text: this.versions.get(key)! }))
      .sort((a, b) => compareOrd(a.ord, b.ord))
      .map((row) => row.text)
      .join(' ');
    const narrow: ElementWriteBasis['narrow'] = this.whole
      ? null
      : { rows: ranges, expect, top: this.topDepends ? basis.top : undefined };
    return writeElementsOnce(writer, this.tenantId, this.seq, ifMatchTags, { version: basis.version, located: this.located, narrow }, {
      rows: this.pending,
      touch: [...this.touched.values()],
      bytes: this.bytes,
      locatedBytes: this.locatedBytes,
      blobAdded: this.blobAdded,
      blobRecount: this.blobRecount,
      head: this.headChanged ? this.submodelHead() : undefined,
      topChanged: this.topChanged,
      append: this.appended,
      logged: this.logged,
      needs31,
      notify,
    });
  }

  private submodelHead(): JsonObject {
    const { submodelElements: _empty, ...head } = this.head;
    return head;
  }
}
