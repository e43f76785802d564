import { describe, expect, it } from 'vitest';
import { ReadCache } from '../../src/aas/store/read-cache';

const read = (text: string | null, etag = 'W/"1"') => ({ etag, text, docBytes: text?.length ?? 0 });

function cacheOf(maxBytes = 1_000_000, ttlMs = 60_000) {
  let now = 0;
  const cache = new ReadCache({ maxBytes, ttlMs, now: () => now });
  return { cache, advance: (ms: number) => (now += ms) };
}

describe('ReadCache', () => {
  it('serves what a read filled, per key and per kind of read; the key tells tenants and ids apart', () => {
    const { cache } = cacheOf();
    const a = ReadCache.key('shells', 't1', 'urn:a');
    expect(ReadCache.key('shells', 't2', 'urn:a')).not.toBe(a);
    expect(ReadCache.key('submodels', 't1', 'urn:a')).not.toBe(a);
    expect(ReadCache.key('shells', 't1', 'urn:b')).not.toBe(a);
    expect(ReadCache.key('shells', 't1', 'x'.repeat(2_000)).length).toBeLessThan(100);
    cache.fill(a, 'true', cache.token(), read('{"id":"urn:a"}'));
    expect(cache.get(a, 'true')?.text).toBe('{"id":"urn:a"}');
    expect(cache.get(a, 'NOT has_blobs')).toBeUndefined();
    cache.fill(a, 'NOT has_blobs', cache.token(), read(null));
    expect(cache.get(a, 'NOT has_blobs')).toEqual(read(null));
    expect(cache.get(ReadCache.key('shells', 't2', 'urn:a'), 'true')).toBeUndefined();
  });

  it('does not fill what a read got when a key of its scope was invalidated after the read began', () => {
    const { cache } = cacheOf();
    const a = ReadCache.key('shells', 't', 'a');
    const token = cache.token();
    cache.invalidate(ReadCache.key('shells', 't', 'b'));
    cache.fill(a, 'true', token, read('old'));
    expect(cache.get(a, 'true')).toBeUndefined();
    cache.fill(a, 'true', cache.token(), read('new'));
    expect(cache.get(a, 'true')?.text).toBe('new');
    cache.invalidate(a);
    expect(cache.get(a, 'true')).toBeUndefined();
  });

  it('fills what a read got while only other scopes changed (another tenant, another table), and nothing across a clear', () => {
    const { cache } = cacheOf();
    const a = ReadCache.key('shells', 't', 'a');
    const token = cache.token();
    cache.invalidate(ReadCache.key('shells', 'other-tenant', 'a'));
    cache.invalidate(ReadCache.key('submodels', 't', 'a'));
    cache.fill(a, 'true', token, read('kept'));
    expect(cache.get(a, 'true')?.text).toBe('kept');
    const page = cache.token();
    cache.invalidate(ReadCache.key('shells', 'other-tenant', 'b'));
    cache.fillPage(ReadCache.scope('shells', 't'), 'limit=1', page, read('[page]'));
    expect(cache.getPage(ReadCache.scope('shells', 't'), 'limit=1')?.text).toBe('[page]');
    const before = cache.token();
    cache.clear();
    cache.fill(ReadCache.key('shells', 't', 'c'), 'true', before, read('stale'));
    cache.fillPage(ReadCache.scope('shells', 't'), 'limit=2', before, read('[stale]'));
    expect(cache.get(ReadCache.key('shells', 't', 'c'), 'true')).toBeUndefined();
    expect(cache.getPage(ReadCache.scope('shells', 't'), 'limit=2')).toBeUndefined();
    // A page is spoiled by a change of any identifiable of its scope.
    const late = cache.token();
    cache.invalidate(ReadCache.key('shells', 't', 'z'));
    cache.fillPage(ReadCache.scope('shells', 't'), 'limit=3', late, read('[late]'));
    expect(cache.getPage(ReadCache.scope('shells', 't'), 'limit=3')).toBeUndefined();
  });

  it('neither serves nor fills a key written in a transaction still open, and drops it again when it ends', () => {
    const { cache } = cacheOf();
    const a = ReadCache.key('shells', 't', 'a');
    cache.fill(a, 'true', cache.token(), read('v1'));
    cache.pending(a);
    expect(cache.get(a, 'true')).toBeUndefined();
    // A read during the transaction sees the committed v1: it must not stay once v2 commits.
    cache.fill(a, 'true', cache.token(), read('v1'));
    expect(cache.get(a, 'true')).toBeUndefined();
    cache.pending(a);
    cache.settled(a);
    cache.fill(a, 'true', cache.token(), read('v1'));
    expect(cache.get(a, 'true'), 'one of two writes still open').toBeUndefined();
    cache.settled(a);
    cache.fill(a, 'true', cache.token(), read('v2'));
    expect(cache.get(a, 'true')?.text).toBe('v2');
  });

  it('stays within its bytes, dropping the least recently used first, and takes no answer over an eighth of it', () => {
    const { cache } = cacheOf(20_000);
    const keys = Array.from({ length: 10 }, (_, i) => ReadCache.key('shells', 't', `k${i}`));
    for (const key of keys.slice(0, 5)) cache.fill(key, 'true', cache.token(), read('x'.repeat(1_000)));
    expect(cache.count).toBe(5);
    // Used: k0 becomes the most recent.
    expect(cache.get(keys[0], 'true')).toBeDefined();
    for (const key of keys.slice(5)) cache.fill(key, 'true', cache.token(), read('x'.repeat(1_000)));
    expect(cache.size).toBeLessThanOrEqual(20_000);
    expect(cache.get(keys[1], 'true'), 'least recently used').toBeUndefined();
    expect(cache.get(keys[0], 'true')).toBeDefined();
    expect(cache.get(keys[9], 'true')).toBeDefined();
    const big = ReadCache.key('shells', 't', 'big');
    cache.fill(big, 'true', cache.token(), read('x'.repeat(1_300)));
    expect(cache.get(big, 'true')).toBeUndefined();
    // Replacing an answer counts its new size only, and evicts nothing.
    const [before, count] = [cache.size, cache.count];
    cache.fill(keys[9], 'true', cache.token(), read('x'.repeat(1_000)));
    expect([cache.size, cache.count]).toEqual([before, count]);
  });

  it('counts an answer filled again (two reads that missed at once) once: its size stays, however often', () => {
    // A size that grew with every refill would, past the bound, evict everything and then spin on the one entry left.
    const { cache } = cacheOf(20_000);
    const a = ReadCache.key('shells', 't', 'a');
    const b = ReadCache.key('shells', 't', 'b');
    cache.fill(a, 'true', cache.token(), read('x'.repeat(1_000)));
    cache.fill(a, 'NOT has_blobs', cache.token(), read('y'.repeat(500)));
    cache.fill(b, 'true', cache.token(), read('z'.repeat(1_000)));
    const size = cache.size;
    for (let i = 0; i < 1_000; i++) {
      cache.fill(a, 'true', cache.token(), read('x'.repeat(1_000)));
      cache.fill(a, 'NOT has_blobs', cache.token(), read('y'.repeat(500)));
    }
    expect([cache.size, cache.count]).toEqual([size, 2]);
    expect(cache.get(b, 'true')?.text).toBe('z'.repeat(1_000));
    // A bigger answer for the same read counts the difference.
    cache.fill(a, 'true', cache.token(), read('x'.repeat(1_100)));
    expect(cache.size).toBe(size + 200);
    cache.invalidate(a);
    cache.invalidate(b);
    expect(cache.size).toBe(0);
  });

  it('evicts among entries that were all read since they came in: each gets one second chance, in order', () => {
    const { cache } = cacheOf(20_000);
    const keys = Array.from({ length: 12 }, (_, i) => ReadCache.key('shells', 't', `k${i}`));
    for (const key of keys.slice(0, 8)) cache.fill(key, 'true', cache.token(), read('x'.repeat(1_000)));
    for (const key of keys.slice(0, 8)) expect(cache.get(key, 'true')).toBeDefined();
    for (const key of keys.slice(8)) cache.fill(key, 'true', cache.token(), read('x'.repeat(1_000)));
    expect(cache.size).toBeLessThanOrEqual(20_000);
    // Every old entry had its second chance; the oldest went first, and the newest entries are all there.
    expect(cache.get(keys[0], 'true')).toBeUndefined();
    for (const key of keys.slice(8)) expect(cache.get(key, 'true')).toBeDefined();
    expect(cache.get(keys[7], 'true')).toBeDefined();
  });

  it('serves an entry for its time to live at most', () => {
    const { cache, advance } = cacheOf(1_000_000, 5_000);
    const a = ReadCache.key('shells', 't', 'a');
    cache.fill(a, 'true', cache.token(), read('v1'));
    advance(5_000);
    expect(cache.get(a, 'true')).toBeDefined();
    advance(1);
    expect(cache.get(a, 'true')).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it('is empty and fills nothing while disabled; reads begun before `enable` fill nothing after it', () => {
    const { cache } = cacheOf();
    const a = ReadCache.key('shells', 't', 'a');
    cache.fill(a, 'true', cache.token(), read('v1'));
    cache.disable();
    expect(cache.on).toBe(false);
    expect(cache.get(a, 'true')).toBeUndefined();
    const during = cache.token();
    cache.fill(a, 'true', during, read('v1'));
    cache.enable();
    cache.fill(a, 'true', during, read('v1'));
    expect(cache.get(a, 'true')).toBeUndefined();
    cache.fill(a, 'true', cache.token(), read('v2'));
    expect(cache.get(a, 'true')?.text).toBe('v2');
  });

  it('keeps list pages per scope (a table in a tenant): any invalidation in the scope drops them all, none elsewhere does', () => {
    const { cache } = cacheOf();
    const shells = ReadCache.scope('shells', 't1');
    cache.fillPage(shells, 'limit=2', cache.token(), read('[1,2]', ''));
    cache.fillPage(shells, '', cache.token(), read('[1,2,3]', ''));
    cache.fillPage(ReadCache.scope('shells', 't2'), '', cache.token(), read('[t2]', ''));
    cache.fillPage(ReadCache.scope('submodels', 't1'), '', cache.token(), read('[sm]', ''));
    expect(cache.getPage(shells, 'limit=2')?.text).toBe('[1,2]');
    expect(cache.getPage(shells, 'limit=3')).toBeUndefined();
    // An identifiable of the same id in the same table but another tenant, or in another table: the page stays.
    cache.invalidate(ReadCache.key('shells', 't2', 'urn:x'));
    cache.invalidate(ReadCache.key('submodels', 't1', 'urn:x'));
    expect(cache.getPage(shells, '')?.text).toBe('[1,2,3]');
    expect(cache.getPage(ReadCache.scope('shells', 't2'), '')).toBeUndefined();
    expect(cache.getPage(ReadCache.scope('submodels', 't1'), '')).toBeUndefined();
    // Any shell of t1, listed on those pages or not: both go, and their bytes with them.
    const before = cache.size;
    cache.invalidate(ReadCache.key('shells', 't1', 'urn:not-listed'));
    expect(cache.getPage(shells, '')).toBeUndefined();
    expect(cache.getPage(shells, 'limit=2')).toBeUndefined();
    expect(cache.size).toBeLessThan(before);
    expect(cache.count).toBe(0);
  });

  it('neither serves nor fills a page while an identifiable of its scope is being written, nor one read before an invalidation', () => {
    const { cache } = cacheOf();
    const scope = ReadCache.scope('shells', 't');
    const key = ReadCache.key('shells', 't', 'a');
    cache.fillPage(scope, '', cache.token(), read('[old]', ''));
    cache.pending(key);
    expect(cache.getPage(scope, '')).toBeUndefined();
    cache.fillPage(scope, '', cache.token(), read('[during]', ''));
    expect(cache.getPage(scope, '')).toBeUndefined();
    // A second write of the scope overlaps the first: still pending after the first ends.
    cache.pending(ReadCache.key('shells', 't', 'b'));
    cache.settled(key);
    cache.fillPage(scope, '', cache.token(), read('[during]', ''));
    expect(cache.getPage(scope, '')).toBeUndefined();
    const token = cache.token();
    cache.settled(ReadCache.key('shells', 't', 'b'));
    cache.fillPage(scope, '', token, read('[raced]', ''));
    expect(cache.getPage(scope, '')).toBeUndefined();
    cache.fillPage(scope, '', cache.token(), read('[after]', ''));
    expect(cache.getPage(scope, '')?.text).toBe('[after]');
  });

  it('evicts pages like any answer and forgets them in their scope; serves them for their time to live at most', () => {
    const { cache, advance } = cacheOf(10_000, 1_000);
    const scope = ReadCache.scope('shells', 't');
    for (let n = 0; n < 100; n++) cache.fillPage(scope, `cursor=${n}`, cache.token(), read('x'.repeat(400), ''));
    expect(cache.size).toBeLessThanOrEqual(10_000);
    expect(cache.getPage(scope, 'cursor=99')?.text).toHaveLength(400);
    expect(cache.getPage(scope, 'cursor=0')).toBeUndefined();
    // The scope's set holds only the pages still held, not every page ever filled.
    const held = (cache as unknown as { scopePages: Map<string, Set<string>> }).scopePages.get(scope)!;
    expect(held.size).toBe(cache.count);
    advance(1_001);
    expect(cache.getPage(scope, 'cursor=99')).toBeUndefined();
  });

  it('is off with a size of 0', () => {
    const cache = new ReadCache({ maxBytes: 0, ttlMs: 60_000 });
    const a = ReadCache.key('shells', 't', 'a');
    cache.fill(a, 'true', cache.token(), read('v1'));
    expect(cache.on).toBe(false);
    expect(cache.get(a, 'true')).toBeUndefined();
  });
});
