import { AsyncLocalStorage } from 'node:async_hooks';
import { AppError } from '../graphql/errors';

/**
 * How many bytes of stored documents one request may read (RESPONSE_LIMIT). Aliases, large pages and large
 * documents multiply what one small request can make the server load and answer; the budget stops that with a
 * clear error before the memory is spent. The reads of one request run one after another under it, so each
 * sees what the earlier ones used: a page is cut in SQL at the budget, a single document is refused once the
 * budget is spent (so one request overshoots by at most one document).
 */
export class ReadBudget {
  private used = 0;
  /** The reads of `run`, one after another; none until the first (most requests read from memory or not at all). */
  private queue: Promise<unknown> | undefined;
  /** Reads of `run` not yet settled. */
  private pending = 0;

  constructor(readonly limit: number) {}

  get remaining(): number {
    return Math.max(0, this.limit - this.used);
  }

  charge(bytes: number): void {
    this.used += bytes;
  }

  /** Runs `read` after the reads before it, with the bytes still allowed; it charges what it read. */
  run<T>(read: (remaining: number) => Promise<T>): Promise<T> {
    this.pending++;
    const turn = (this.queue ?? Promise.resolve())
      .then(() => {
        if (this.remaining === 0) throw responseTooLarge(this.limit);
        return read(this.remaining);
      })
      .finally(() => this.pending--);
    this.queue = turn.catch(() => undefined);
    return turn;
  }

  /**
   * What `run` does for a document already in memory (a read-cache hit) of `bytes`, done at once: charged, or refused
   * as too large (thrown) when it does not fit what is left. Only while no read of `run` is under way or waiting
   * (`idle`), so the order of the request's reads stays the order they were asked in.
   */
  chargeWhole(bytes: number): void {
    if (!this.idle) throw new Error('chargeWhole while reads are under way');
    if (this.remaining === 0 || bytes > this.remaining) throw responseTooLarge(this.limit);
    this.used += bytes;
  }

  /** Whether no read of `run` is under way or waiting. */
  get idle(): boolean {
    return this.pending === 0;
  }
}

export function responseTooLarge(limit: number): AppError {
  return new AppError(
    'RESPONSE_TOO_LARGE',
    `The answer would exceed ${limit} bytes of stored documents (RESPONSE_LIMIT): ask for fewer items (limit), fewer aliases or fewer documents.`,
  );
}

const current = new AsyncLocalStorage<ReadBudget>();

/** Runs `work` (one request) under a fresh budget of `limit` bytes. */
export function withReadBudget<T>(limit: number, work: () => T): T {
  return current.run(new ReadBudget(limit), work);
}

/** The budget of the request this code runs for; outside any request, an unlimited one. */
export function readBudget(): ReadBudget {
  return current.getStore() ?? new ReadBudget(Number.MAX_SAFE_INTEGER);
}
