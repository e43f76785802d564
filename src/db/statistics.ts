import type { Logger } from 'pino';
import { DataSource, EntityManager, EntitySubscriberInterface, QueryRunner } from 'typeorm';
import { apartFromRequest } from '../common/client-gone';

export interface StatisticsOptions {
  /** Rows a table must have gained since its last ANALYZE here before it is analyzed again. */
  minRows: number;
  /** The quiet time after the last large commit before the ANALYZE runs (a burst of writes is analyzed once). */
  delayMs: number;
  /** The least time between the starts of two ANALYZE runs. */
  minIntervalMs: number;
  /** The longest the quiet time may be put off by further writes: a steady stream of writes is never quiet. */
  maxDelayMs: number;
}

const DEFAULTS: StatisticsOptions = { minRows: 1_000, delayMs: 1_000, minIntervalMs: 10_000, maxDelayMs: 5_000 };

const upkeeps = new WeakMap<DataSource, StatisticsUpkeep>();

/**
 * Says that `count` rows of `table` were written in the transaction of `db` (a transaction's EntityManager): they
 * count towards the table's next ANALYZE once the transaction commits. Does nothing without a StatisticsUpkeep on
 * the manager's data source.
 */
export function rowsWritten(db: unknown, table: string, count: number): void {
  const manager = db as Partial<EntityManager>;
  if (!manager.connection || !count) return;
  upkeeps.get(manager.connection)?.written(manager.queryRunner, table, count);
}

/**
 * Planner statistics kept fresh after large writes. PostgreSQL plans a statement from its statistics of the
 * table, which a PostgreSQL server's autovacuum gathers only once a tenth of a table has changed and at most every
 * minute, and the embedded database gathers on a schedule (`maintenance.ts`). Until then a large submodel just
 * written looks like one row per submodel to the planner, which may then pick an index that reads every element of
 * the submodel to find one. So after transactions that wrote many rows of a table, that table is analyzed: on a
 * connection of its own (never in the writing request's transaction, never before it has committed), after a quiet
 * time so that a burst of writes is analyzed once (put off by further writes for `maxDelayMs` at most), and at most
 * every `minIntervalMs`.
 */
export class StatisticsUpkeep {
  private readonly options: StatisticsOptions;
  /** Rows written per table in transactions still open. */
  private readonly open = new WeakMap<QueryRunner, Map<string, number>>();
  /** Rows written per table in committed transactions since its last ANALYZE here. */
  private readonly due = new Map<string, number>();
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private lastStart = -Infinity;
  /** When the quiet time now running was first armed. */
  private armedAt?: number;
  private stopped = false;

  constructor(
    private readonly dataSource: DataSource,
    private readonly log: Logger,
    options: Partial<StatisticsOptions> = {},
  ) {
    this.options = { ...DEFAULTS, ...options };
    const subscriber: EntitySubscriberInterface = {
      afterTransactionCommit: (event) => this.ended(event.queryRunner, true),
      afterTransactionRollback: (event) => this.ended(event.queryRunner, false),
    };
    dataSource.subscribers.push(subscriber);
    upkeeps.set(dataSource, this);
  }

  written(runner: QueryRunner | undefined, table: string, count: number): void {
    if (!runner?.isTransactionActive) {
      this.add(table, count);
      return;
    }
    const tables = this.open.get(runner) ?? new Map<string, number>();
    tables.set(table, (tables.get(table) ?? 0) + count);
    this.open.set(runner, tables);
  }

  private ended(runner: QueryRunner, committed: boolean): void {
    // A savepoint's end is not the transaction's.
    if (runner.isTransactionActive) return;
    const tables = this.open.get(runner);
    if (!tables) return;
    this.open.delete(runner);
    if (committed) for (const [table, count] of tables) this.add(table, count);
  }

  private add(table: string, count: number): void {
    const total = (this.due.get(table) ?? 0) + count;
    this.due.set(table, total);
    if (total >= this.options.minRows) this.arm(this.options.delayMs);
  }

  /**
   * (Re)starts the quiet time, not sooner than `minIntervalMs` after the last start, and not later than `maxDelayMs`
   * after it was first armed.
   */
  private arm(delayMs: number): void {
    if (this.stopped) return;
    clearTimeout(this.timer);
    const now = Date.now();
    this.armedAt ??= now;
    const wait = Math.max(Math.min(delayMs, this.armedAt + this.options.maxDelayMs - now), this.lastStart + this.options.minIntervalMs - now, 0);
    // Armed by a request's write, run for every request after it: not stopped when that request's client goes.
    this.timer = apartFromRequest(() => setTimeout(() => void this.run(), wait));
    this.timer.unref();
  }

  private async run(): Promise<void> {
    this.timer = undefined;
    this.armedAt = undefined;
    if (this.running) {
      // One at a time: what is due by then is looked at when this one ends.
      await this.running;
      if (!this.timer) this.arm(0);
      return;
    }
    const tables = [...this.due].filter(([, count]) => count >= this.options.minRows).map(([table]) => table);
    if (!tables.length || this.stopped) return;
    for (const table of tables) this.due.delete(table);
    this.lastStart = Date.now();
    this.running = (async () => {
      for (const table of tables) {
        await this.dataSource.query(`ANALYZE ${table}`).catch((err: Error) => this.log.warn({ err, table }, 'ANALYZE after a large write failed'));
      }
    })();
    await this.running;
    this.running = undefined;
  }

  /** Resolves once nothing is due, armed or running: for tests and shutdown. */
  async settled(): Promise<void> {
    while (this.timer || this.running) {
      if (this.timer) {
        clearTimeout(this.timer);
        await this.run();
      } else await this.running;
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.running;
  }
}
