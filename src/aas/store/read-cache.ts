import { hash } from 'node:crypto';
import { BoundedMemo } from '../../common/bounded-memo';

/** What a cached read answered: the JSON text (null where the stored document needs shaping first) and its tag. */
export interface CachedRead {
  etag: string;
  text: string | null;
  /** The stored document's size, which the request's read budget is charged. */
  docBytes: number;
}

interface Entry {
  /** One answer per kind of read (e.g. with or without Blob values) of the same identifiable. */
  reads: Map<string, CachedRead>;
  /** What the entry is counted as: twice each text's length (a JS string holds at most two bytes a character). */
  size: number;
  filledAt: number;
  /** Read since it was filled or last given its second chance (eviction: see `fill`). */
  used: boolean;
}

export interface ReadCacheOptions {
  /** The bound of all entries together, in bytes; 0 turns the cache off. */
  maxBytes: number;
  /** How long an entry may serve at most, whatever else happens (a backstop; invalidation is what keeps it fresh). */
  ttlMs: number;
  /** Whether it starts serving at once; false while it waits for the change stream of other replicas (`enable`). */
  enabled?: boolean;
  now?: () => number;
}

/** Bytes counted for one entry beside its texts (keys, maps, tags). */
const ENTRY_OVERHEAD = 256;

/**
 * The SHA-256 digests of recently looked-up ids: a hot read hashes the id of every request, which cost it more than
 * the cache look-up itself; a repeated id costs one map look-up. Bounded by count and by the characters it keeps
 * alive (ids run to 2,000 characters); the oldest entry goes first.
 */
const DIGESTS_MAX_CHARS = 1024 * 1024;
const DIGESTS = new BoundedMemo<string>(4096, DIGESTS_MAX_CHARS);

function digestOf(id: string): string {
  const known = DIGESTS.get(id);
  if (known !== undefined) return known;
  const digest = hash('sha256', id, 'base64');
  if (id.length <= DIGESTS_MAX_CHARS / 64) DIGESTS.set(id, digest, id.length);
  return digest;
}

/** Page entries' keys begin so: no table is named so (identifiable keys begin with their table). */
const PAGE = 'page ';

/**
 * The serialized answers of identifiable reads (shells, submodels, concept descriptions), per tenant, bounded in
 * bytes (least recently used first out), filled on read and invalidated by the write path.
 *
 * Correctness rests on three rules. A read takes a `token` before it reads the database and fills only if no key of
 * its scope (its table in its tenant) was invalidated since (a read that raced a write never stores what it read). A key written in an
 * open transaction is `pending` until that transaction ends: it is not served and not filled meanwhile, and it is
 * invalidated once more when the transaction ends (so the writing process never reads its own write stale). Writes of
 * other replicas invalidate through `invalidate` as their notifications arrive; while that stream is down the cache
 * is `disable`d (empty, filling nothing) and re-`enable`d only once it listens again.
 */
export class ReadCache {
  private readonly entries = new Map<string, Entry>();
  private readonly pendingKeys = new Map<string, number>();
  /** The cached list pages of each scope (a table in a tenant), by their entry keys. */
  private readonly scopePages = new Map<string, Set<string>>();
  /** Scopes with a key written in a transaction still open (`pending`), and how many such writes. */
  private readonly pendingScopes = new Map<string, number>();
  private bytes = 0;
  private generation = 0;
  /**
   * The generation of each scope's last invalidation, and of the last `clear`: a fill is refused only when its own
   * scope (or everything) changed since its token. One global stamp would let every write of any tenant, here or on
   * another replica, spoil the fills of all reads under way; with many replicas writing, little would ever be cached.
   */
  private readonly scopeChanged = new Map<string, number>();
  private cleared = 0;
  private enabled: boolean;
  private readonly now: () => number;

  constructor(private readonly options: ReadCacheOptions) {
    this.enabled = options.enabled ?? true;
    this.now = options.now ?? Date.now;
  }

  /** The key of an identifiable: its table, its tenant and a SHA-256 of its id (ids run to 2,000 characters). */
  static key(table: string, tenantId: string, id: string): string {
    return `${table}:${tenantId}:${digestOf(id)}`;
  }

  /** The scope of lists an identifiable key belongs to: its table in its tenant. */
  static scope(table: string, tenantId: string): string {
    return `${table}:${tenantId}`;
  }

  get on(): boolean {
    return this.options.maxBytes > 0 && this.enabled;
  }

  /** Bytes held now (as counted: see Entry.size). */
  get size(): number {
    return this.bytes;
  }

  get count(): number {
    return this.entries.size;
  }

  /** The answer of the read `variant` of `key`, when held and fresh. */
  get(key: string, variant: string): CachedRead | undefined {
    if (!this.on) return undefined;
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (this.now() - entry.filledAt > this.options.ttlMs) {
      this.drop(key, entry);
      return undefined;
    }
    const read = entry.reads.get(variant);
    if (!read) return undefined;
    // Marked only: moving the entry to the back on every read cost a page of 100 cached shells 5% of its CPU.
    entry.used = true;
    return read;
  }

  /**
   * A list page of `scope` (the whole answer, e.g. the JSON text of `GET /shells?limit=100`), by what selects it
   * (`query`, the request's query string); undefined while one of the scope's identifiables is being written.
   */
  getPage(scope: string, query: string): CachedRead | undefined {
    return this.pendingScopes.has(scope) ? undefined : this.get(PAGE + scope + '?' + query, '');
  }

  /**
   * Stores a list page of `scope` read since `token`. It is dropped when any identifiable of the scope is
   * invalidated (written here or, through `invalidate`, on another replica), so it is as fresh as a GET by id.
   */
  fillPage(scope: string, query: string, token: number, read: CachedRead): void {
    if (this.pendingScopes.has(scope)) return;
    const key = PAGE + scope + '?' + query;
    this.fillIn(key, scope, '', token, read);
    if (!this.entries.has(key)) return;
    let pages = this.scopePages.get(scope);
    if (!pages) this.scopePages.set(scope, (pages = new Set()));
    pages.add(key);
  }

  /** Taken before a read of the database; `fill` with it stores the answer only if nothing of its scope was invalidated since. */
  token(): number {
    return this.generation;
  }

  fill(key: string, variant: string, token: number, read: CachedRead): void {
    this.fillIn(key, scopeOf(key), variant, token, read);
  }

  /** Whether nothing of `scope` was invalidated (and nothing cleared) since `token` was taken. */
  private freshSince(scope: string, token: number): boolean {
    return token >= this.cleared && token >= (this.scopeChanged.get(scope) ?? 0);
  }

  private fillIn(key: string, scope: string, variant: string, token: number, read: CachedRead): void {
    if (!this.on || !this.freshSince(scope, token) || this.pendingKeys.has(key)) return;
    const added = 2 * (read.text?.length ?? 0) + ENTRY_OVERHEAD;
    // One answer may take an eighth of the cache at most: a huge submodel does not flush everything else.
    if (added > this.options.maxBytes / 8) return;
    let entry = this.entries.get(key);
    if (entry) {
      // Taken out whole (its old answer of this variant with it), then counted again with the new answer.
      this.bytes -= entry.size;
      const old = entry.reads.get(variant);
      if (old) entry.size -= 2 * (old.text?.length ?? 0) + ENTRY_OVERHEAD;
      this.entries.delete(key);
    } else entry = { reads: new Map(), size: 0, filledAt: this.now(), used: false };
    entry.reads.set(variant, read);
    entry.size += added;
    this.entries.set(key, entry);
    this.bytes += entry.size;
    // Least recently used out first, as a second-chance (clock) list: entries are in order of filling or of their
    // last second chance; the first one goes unless it was read since (or is the one just filled, which the others
    // make room for), in which case it moves to the back, unmarked. The new answer is at most an eighth of the bound,
    // so it never stands alone over it; were the count ever wrong, the loop stops there rather than spin.
    while (this.bytes > this.options.maxBytes && this.entries.size > 1) {
      const [oldest, first] = this.entries.entries().next().value!;
      this.entries.delete(oldest);
      if (first.used || oldest === key) {
        first.used = false;
        this.entries.set(oldest, first);
      } else {
        this.bytes -= first.size;
        this.forgetPage(oldest);
      }
    }
  }

  /** A committed change of `key` (here or on another replica): its answers go, and reads under way fill nothing. */
  invalidate(key: string): void {
    const scope = scopeOf(key);
    this.scopeChanged.set(scope, ++this.generation);
    const entry = this.entries.get(key);
    if (entry) this.drop(key, entry);
    const pages = this.scopePages.get(scope);
    if (!pages) return;
    this.scopePages.delete(scope);
    for (const page of pages) {
      const held = this.entries.get(page);
      if (held) this.drop(page, held);
    }
  }

  /** `key` is being written in a transaction still open: not served or filled until `settled`. */
  pending(key: string): void {
    this.pendingKeys.set(key, (this.pendingKeys.get(key) ?? 0) + 1);
    const scope = scopeOf(key);
    this.pendingScopes.set(scope, (this.pendingScopes.get(scope) ?? 0) + 1);
    this.invalidate(key);
  }

  /** The transaction that wrote `key` (`pending`) ended, committed or not. */
  settled(key: string): void {
    const left = (this.pendingKeys.get(key) ?? 1) - 1;
    if (left > 0) this.pendingKeys.set(key, left);
    else this.pendingKeys.delete(key);
    const scope = scopeOf(key);
    const writes = (this.pendingScopes.get(scope) ?? 1) - 1;
    if (writes > 0) this.pendingScopes.set(scope, writes);
    else this.pendingScopes.delete(scope);
    this.invalidate(key);
  }

  /** Empties the cache and fills nothing until `enable` (the change stream of other replicas is down). */
  disable(): void {
    this.enabled = false;
    this.clear();
  }

  /** Serves and fills again, starting empty; reads begun before fill nothing. */
  enable(): void {
    this.clear();
    this.enabled = true;
  }

  clear(): void {
    this.cleared = ++this.generation;
    // Every stamp is older than the clear now, which refuses all the same: the map starts again.
    this.scopeChanged.clear();
    this.entries.clear();
    this.scopePages.clear();
    this.bytes = 0;
  }

  private drop(key: string, entry: Entry): void {
    this.entries.delete(key);
    this.bytes -= entry.size;
    this.forgetPage(key);
  }

  /** An evicted or dropped page leaves its scope's set (which would otherwise grow with every page ever filled). */
  private forgetPage(key: string): void {
    if (!key.startsWith(PAGE)) return;
    const scope = key.slice(PAGE.length, key.indexOf('?'));
    const pages = this.scopePages.get(scope);
    if (!pages) return;
    pages.delete(key);
    if (!pages.size) this.scopePages.delete(scope);
  }
}

/** The scope of an identifiable key: everything before its id's hash (`ReadCache.key`; the hash has no colon). */
function scopeOf(key: string): string {
  return key.slice(0, key.lastIndexOf(':'));
}
