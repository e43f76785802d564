import type { Logger } from 'pino';

/** Progress is logged at most this often while documents are read or stored (each phase logs its end anyway). */
export const PROGRESS_INTERVAL_MS = 2000;

/**
 * The log of one import: a line per phase (`import: <phase>`), and progress lines while a phase that goes document
 * by document takes long. Every line carries the milliseconds since the import started.
 */
export class ImportProgress {
  private readonly started = Date.now();
  private last = Date.now();

  constructor(
    private readonly log: Logger | undefined,
    private readonly intervalMs = PROGRESS_INTERVAL_MS,
  ) {}

  /** A phase reached. */
  phase(phase: string, fields: Record<string, unknown> = {}): void {
    this.last = Date.now();
    this.log?.info({ ...fields, ms: this.last - this.started }, `import: ${phase}`);
  }

  /** Progress within a phase, logged when `intervalMs` have passed since the last line. */
  tick(phase: string, fields: () => Record<string, unknown>): void {
    if (!this.log || Date.now() - this.last < this.intervalMs) return;
    this.phase(phase, fields());
  }

  get elapsedMs(): number {
    return Date.now() - this.started;
  }
}
