import type { PGlite } from '@electric-sql/pglite';

interface Pending {
  handlerId: number;
  message: Uint8Array;
  /** Opens expensive work (starts with EXPENSIVE_MARK): served after the cheap statements waiting beside it. */
  expensive: boolean;
  /** How many times a cheap statement went before it; at PASS_LIMIT it goes next, so it is never starved. */
  passed: number;
  onData: (data: Uint8Array) => void;
  resolve: () => void;
  reject: (err: unknown) => void;
}

/** The byte PostgreSQL puts in ReadyForQuery ('Z') when the session is idle, outside any transaction. */
const IDLE = 0x49; // 'I'
const READY_FOR_QUERY = 0x5a; // 'Z'
const QUERY = 0x51; // 'Q'
const PARSE = 0x50; // 'P'

/**
 * The comment that opens the first statement of expensive work (a query of the query language, a search: the
 * `BEGIN` of `boundedRead`), so that the embedded database's one session serves the cheap statements waiting
 * beside it first. On a PostgreSQL server it is a comment (and names the work in pg_stat_activity).
 */
export const EXPENSIVE_MARK = '/* expensive */';
const MARK = Buffer.from(EXPENSIVE_MARK);
/** Cheap statements that may go before one queued expensive one. */
const PASS_LIMIT = 64;

/** Whether the first message of `message` is a simple query or a Parse whose text starts with EXPENSIVE_MARK. */
export function opensExpensiveWork(message: Uint8Array): boolean {
  const bytes = Buffer.from(message.buffer, message.byteOffset, message.byteLength);
  if (bytes.length < 5 + MARK.length) return false;
  let text = 5;
  if (bytes[0] === PARSE) {
    // Parse: the statement's name (a C string), then its text.
    const nameEnd = bytes.indexOf(0, 5);
    if (nameEnd < 0) return false;
    text = nameEnd + 1;
  } else if (bytes[0] !== QUERY) {
    return false;
  }
  return bytes.subarray(text, text + MARK.length).equals(MARK);
}

/** The transaction status of the last ReadyForQuery in a stream of backend messages, if there is one. */
export function lastReadyStatus(output: Buffer): number | undefined {
  let status: number | undefined;
  let offset = 0;
  while (offset + 5 <= output.length) {
    const length = output.readInt32BE(offset + 1);
    if (length < 4) break;
    if (output[offset] === READY_FOR_QUERY && offset + 6 <= output.length) status = output[offset + 5];
    offset += 1 + length;
  }
  return status;
}

/**
 * Shares PGlite's single session between the connections of the embedded server.
 *
 * pglite-socket 0.2's own queue only keeps a connection's messages together inside a transaction, so the
 * Parse/Bind/Execute/Sync messages of different connections interleave in the one session (wrong answers), and
 * it stops for good after a failed message (a hang). Here a connection owns the session from its first message
 * until PostgreSQL reports the session idle again (ReadyForQuery 'I'), as a real server's separate backends
 * would behave; other connections' messages wait their turn.
 *
 * When the session is free, the first waiting connection gets it, except that expensive work (its first statement
 * marked with EXPENSIVE_MARK) lets the cheap statements waiting beside it go first (up to PASS_LIMIT of them). With
 * expensive work one at a time on the embedded database (docs/api.md), a cheap statement so waits for at most the one
 * expensive transaction that holds the session, never for a queue of them.
 */
export class SessionQueue {
  private readonly pending: Pending[] = [];
  private owner: number | undefined;
  private running = false;

  constructor(private readonly db: PGlite) {}

  enqueue(handlerId: number, message: Uint8Array, onData: (data: Uint8Array) => void): Promise<void> {
    return new Promise((resolve, reject) => {
      this.pending.push({ handlerId, message, expensive: opensExpensiveWork(message), passed: 0, onData, resolve, reject });
      void this.run();
    });
  }

  clearQueueForHandler(handlerId: number): void {
    for (let i = this.pending.length - 1; i >= 0; i--) {
      if (this.pending[i].handlerId === handlerId) this.pending.splice(i, 1)[0].reject(new Error('connection closed'));
    }
  }

  /** A connection that went away while owning the session gives it back, rolling back what it left open. */
  async clearTransactionIfNeeded(handlerId: number): Promise<void> {
    if (this.owner !== handlerId) return;
    if (this.db.isInTransaction()) await this.db.exec('ROLLBACK');
    this.owner = undefined;
    void this.run();
  }

  private next(): Pending | undefined {
    const index = this.owner === undefined ? this.freeTurn() : this.pending.findIndex((p) => p.handlerId === this.owner);
    return index < 0 ? undefined : this.pending.splice(index, 1)[0];
  }

  /** Who gets the free session: the first waiting, unless it is expensive work and a cheap statement waits too. */
  private freeTurn(): number {
    const first = this.pending[0];
    if (!first?.expensive || first.passed >= PASS_LIMIT) return 0;
    // Never ahead of an earlier message of its own connection (a client that sent more before its answer came).
    const cheap = this.pending.findIndex((p, i) => !p.expensive && !this.pending.slice(0, i).some((q) => q.handlerId === p.handlerId));
    if (cheap < 0) return 0;
    for (let i = 0; i < cheap; i++) this.pending[i].passed++;
    return cheap;
  }

  private async run(): Promise<void> {
    if (this.running) return;
    this.running = true;
    try {
      for (let item = this.next(); item; item = this.next()) {
        // PGlite hands over each flush of its send buffer (8 KB) as a view of its memory, which the next flush
        // overwrites: each is copied as it comes, and the answer goes to the connection in one write once it is
        // complete (and, by execProtocolRawStream, synced to disk), its status read from the copy.
        const chunks: Buffer[] = [];
        const deliver = (): Buffer => {
          const output = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks);
          if (output.length > 0) item!.onData(output);
          return output;
        };
        try {
          await this.db.runExclusive(() =>
            this.db.execProtocolRawStream(item!.message, { onRawData: (data) => chunks.push(Buffer.from(data)) }),
          );
          const output = deliver();
          // Until the session is idle again (mid extended-query, or in a transaction) it stays this connection's.
          this.owner = lastReadyStatus(output) === IDLE ? undefined : item.handlerId;
          item.resolve();
        } catch (err) {
          deliver();
          this.owner = this.db.isInTransaction() ? item.handlerId : undefined;
          item.reject(err);
        }
      }
    } finally {
      this.running = false;
    }
  }
}
