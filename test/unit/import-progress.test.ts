import { describe, expect, it } from 'vitest';
import { ImportProgress, MAX_WATCHED_IMPORTS, WatchedImports } from '../../src/aas/import/import-progress';

describe('ImportProgress: where an import is, for a client that watches it', () => {
  it('receiving until the first phase, then the phase each log line stands for, with the counts of the moment', () => {
    const progress = new ImportProgress(undefined);
    expect(progress.status()).toEqual({ phase: 'receiving', elapsedMs: expect.any(Number) });
    progress.phase('reading the package');
    expect(progress.status().phase).toBe('reading');
    progress.phase('read');
    expect(progress.status()).toEqual({ phase: 'verifying', elapsedMs: expect.any(Number) });
    let read = 0;
    progress.tick('reading documents', () => ({ read, of: 3 }));
    read = 2;
    // The counts are read when the client asks, not when the import last ticked.
    expect(progress.status().documents).toEqual({ done: 2, of: 3 });
    progress.phase('verified', { shells: 1 });
    expect(progress.status()).toEqual({ phase: 'storing', elapsedMs: expect.any(Number) });
    progress.tick('storing', () => ({ stored: 1, of: 3, elements: 10, elementsOf: 20 }));
    expect(progress.status().documents).toEqual({ done: 1, of: 3 });
    progress.phase('done', { counts: {} });
    expect(progress.status()).toEqual({ phase: 'done', elapsedMs: expect.any(Number) });
  });
});

describe('WatchedImports', () => {
  it('tells an import to its holder only, refuses its key while it runs, and forgets it when stopped', () => {
    const watched = new WatchedImports();
    const first = watched.watch('t k', 'alice', new ImportProgress(undefined));
    expect(first).not.toBe('taken');
    expect(watched.statusOf('t k', 'alice')?.phase).toBe('receiving');
    expect(watched.statusOf('t k', 'bob')).toBeUndefined();
    expect(watched.statusOf('u k', 'alice')).toBeUndefined();
    expect(watched.watch('t k', 'bob', new ImportProgress(undefined))).toBe('taken');
    if (first !== 'taken') first.stop();
    expect(watched.statusOf('t k', 'alice')).toBeUndefined();
    expect(watched.watch('t k', 'bob', new ImportProgress(undefined))).not.toBe('taken');
  });

  it(`watches at most ${MAX_WATCHED_IMPORTS} at once: one more runs unwatched, and its stop leaves the others`, () => {
    const watched = new WatchedImports();
    for (let i = 0; i < MAX_WATCHED_IMPORTS; i++) watched.watch(`t ${i}`, 'h', new ImportProgress(undefined));
    const extra = watched.watch('t extra', 'h', new ImportProgress(undefined));
    expect(extra).not.toBe('taken');
    expect(watched.statusOf('t extra', 'h')).toBeUndefined();
    if (extra !== 'taken') extra.stop();
    expect(watched.statusOf('t 0', 'h')?.phase).toBe('receiving');
  });
});
