/** How long failures are counted, and how long a key stays refused once it reached the limit. */
export const FAILURE_WINDOW_MS = 60_000;
/** Keys remembered at most (distinct client ids, accounts, addresses); the oldest go first beyond that. */
const MAX_KEYS = 100_000;

interface Window {
  started: number;
  failures: number;
}

/**
 * Counts failed authentications (bad client secrets, bad passwords) per key — a client id, an account, a client
 * address — in fixed one-minute windows. A key with `limit` failures in its window is refused until the window
 * ends, before any slow hash is computed. In memory, per replica: a replica restart forgets the counts.
 */
export class FailureLimiter {
  private readonly windows = new Map<string, Window>();

  constructor(
    private readonly limit: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Seconds until `key` may try again, or 0 when it may now. */
  retryAfter(key: string): number {
    const window = this.live(key);
    if (!window || window.failures < this.limit) return 0;
    return Math.max(1, Math.ceil((window.started + FAILURE_WINDOW_MS - this.now()) / 1000));
  }

  fail(key: string): void {
    const window = this.live(key);
    if (window) {
      window.failures++;
      return;
    }
    if (this.windows.size >= MAX_KEYS) this.prune();
    this.windows.set(key, { started: this.now(), failures: 1 });
  }

  /** A success forgets the key's failures. */
  reset(key: string): void {
    this.windows.delete(key);
  }

  private live(key: string): Window | undefined {
    const window = this.windows.get(key);
    if (window && this.now() - window.started >= FAILURE_WINDOW_MS) {
      this.windows.delete(key);
      return undefined;
    }
    return window;
  }

  private prune(): void {
    const now = this.now();
    for (const [key, window] of this.windows) if (now - window.started >= FAILURE_WINDOW_MS) this.windows.delete(key);
    // Still full (a flood of distinct keys within a minute): the oldest entries go.
    for (const key of this.windows.keys()) {
      if (this.windows.size < MAX_KEYS * 0.9) break;
      this.windows.delete(key);
    }
  }
}
