import type { Logger } from 'pino';

/** Progress is logged at most this often while documents are read or stored (each phase logs its end anyway). */
export const PROGRESS_INTERVAL_MS = 2000;

/**
 * Where an import is, as its client is told: receiving the upload, reading the package, verifying its documents,
 * storing them, done.
 */
export type ImportPhase = 'receiving' | 'reading' | 'verifying' | 'storing' | 'done';

/** What a client that watches an import is told (`GET {tenant}/sphere/api/v1.0/import/progress/{id}`). */
export interface ImportStatus {
  phase: ImportPhase;
  /** Milliseconds since the server took the request (its upload included). */
  elapsedMs: number;
  /** While documents are verified or stored: how many of how many. */
  documents?: { done: number; of: number };
}

/** The phase a client is told for each line the import logs. */
const PHASE_OF: Record<string, ImportPhase> = {
  'reading the package': 'reading',
  read: 'verifying',
  'reading documents': 'verifying',
  verified: 'storing',
  'files stored': 'storing',
  storing: 'storing',
  done: 'done',
};

type Counts = () => Record<string, unknown>;

/**
 * The log of one import: a line per phase (`import: <phase>`), and progress lines while a phase that goes document
 * by document takes long. Every line carries the milliseconds since the import started. It also keeps where the
 * import is, for a client that watches it (`status`).
 */
export class ImportProgress {
  private readonly accepted = Date.now();
  /** When the first phase was reached: the log's milliseconds count from there, not from the upload. */
  private started = Date.now();
  private begun = false;
  private last = Date.now();
  private current: ImportPhase = 'receiving';
  private counts: Counts | undefined;

  constructor(
    private readonly log: Logger | undefined,
    private readonly intervalMs = PROGRESS_INTERVAL_MS,
  ) {}

  /** A phase reached. */
  phase(phase: string, fields: Record<string, unknown> = {}): void {
    if (!this.begun) {
      this.begun = true;
      this.started = Date.now();
    }
    this.enter(phase);
    this.counts = undefined;
    this.last = Date.now();
    this.log?.info({ ...fields, ms: this.last - this.started }, `import: ${phase}`);
  }

  /**
   * Progress within a phase, logged when `intervalMs` have passed since the last line. `fields` is kept for a
   * watching client, which reads it when it asks (its counts are the import's, read then).
   */
  tick(phase: string, fields: Counts): void {
    this.enter(phase);
    this.counts = fields;
    if (!this.log || Date.now() - this.last < this.intervalMs) return;
    this.phase(phase, fields());
    this.counts = fields;
  }

  /** Where the import is now. */
  status(): ImportStatus {
    const counts = this.counts?.();
    const done = counts?.read ?? counts?.stored;
    const of = counts?.of;
    return {
      phase: this.current,
      elapsedMs: Date.now() - this.accepted,
      ...(typeof done === 'number' && typeof of === 'number' ? { documents: { done, of } } : {}),
    };
  }

  get elapsedMs(): number {
    return Date.now() - this.started;
  }

  private enter(phase: string): void {
    this.current = PHASE_OF[phase] ?? this.current;
  }
}

/** How many imports one server keeps watch of at once; one more runs unwatched (its client is told no phase). */
export const MAX_WATCHED_IMPORTS = 1_000;

/** An import watched under its client's key, until `stop`. */
export interface WatchedImport {
  progress: ImportProgress;
  stop(): void;
}

/**
 * The imports running on this server that a client watches, by the key their client chose (with the tenant), each
 * with the holder that may read it: the server answers an import's phase to the caller that started it only.
 * Kept in memory while the import runs, on the replica that runs it.
 */
export class WatchedImports {
  private readonly running = new Map<string, { holder: string; progress: ImportProgress }>();

  /**
   * Watches a new import under `key` until `stop` is called; `taken` when one running has the key. Past
   * MAX_WATCHED_IMPORTS the import runs unwatched.
   */
  watch(key: string, holder: string, progress: ImportProgress): WatchedImport | 'taken' {
    if (this.running.has(key)) return 'taken';
    if (this.running.size >= MAX_WATCHED_IMPORTS) return { progress, stop: () => undefined };
    const entry = { holder, progress };
    this.running.set(key, entry);
    return {
      progress,
      stop: () => {
        if (this.running.get(key) === entry) this.running.delete(key);
      },
    };
  }

  /** Where the import under `key` is, for its holder; undefined for any other caller, or when none runs. */
  statusOf(key: string, holder: string): ImportStatus | undefined {
    const entry = this.running.get(key);
    return entry && entry.holder === holder ? entry.progress.status() : undefined;
  }
}
