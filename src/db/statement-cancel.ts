import { Client, ClientConfig } from 'pg';
import { ClientGoneError, requestSignal } from '../common/client-gone';

/**
 * Statements that end a transaction or tidy a connection: they run even for a client that has gone, so that what
 * its work began is rolled back and the connection goes back to the pool clean.
 */
const TIDYING = /^\s*(ROLLBACK|RELEASE|DEALLOCATE|DISCARD)\b/i;

/** The application_name of the server's connections (data-source.ts): a cancel stops no other program's statement. */
export const APPLICATION_NAME = 'asset-platform';

/** PostgreSQL's query_canceled. */
const QUERY_CANCELED = '57014';

/** A statement's config (`client.query({ text, values })`) may name the signal it runs under, null for none. */
export interface SignalledQuery {
  clientGone?: AbortSignal | null;
}

interface PgInternals {
  processID: number;
  _getActiveQuery(): object | null;
  /** Statements not yet sent, and sent but not yet answered (pg pipelines). */
  _queryQueue: object[];
  _sentQueryQueue?: object[];
}

/**
 * The pool's connection class for a PostgreSQL server: a statement sent for a request (the request's client-gone
 * signal, `requestSignal`, or the one its config names) is cancelled when that client goes. PostgreSQL has no
 * cancel on the connection itself: another connection asks `pg_cancel_backend` for this one's backend, once it
 * has checked that the statement under way is still the request's (a connection goes back to the pool as soon as
 * its statement ends). The cancelled statement fails with a ClientGoneError, as does a statement sent after the
 * client went (but for ROLLBACK and the like): the work stops there and its transaction rolls back.
 *
 * The embedded database runs one statement at a time in one engine that cannot be interrupted; it never gets this
 * class (a cancel would wait behind the statement it should stop).
 */
export function cancellableClient(base: typeof Client, cancelConfig: ClientConfig): typeof Client {
  return class CancellableClient extends base {
    /** The signal each statement sent was sent under (pg's Query objects). */
    private readonly signalOf = new WeakMap<object, AbortSignal>();
    /** The signals this connection listens to: one listener per request, however many statements it sends. */
    private readonly watched = new WeakSet<AbortSignal>();

    private get internals(): PgInternals {
      return this as unknown as PgInternals;
    }

    override query(...args: unknown[]): never {
      const config = args[0] as (SignalledQuery & { text?: string }) | string | undefined;
      const named = typeof config === 'object' && config !== null && 'clientGone' in config;
      const signal = named ? (config.clientGone ?? undefined) : requestSignal();
      const text = typeof config === 'string' ? config : config?.text;
      if (named) delete (config as SignalledQuery).clientGone;
      if (signal?.aborted && !(text !== undefined && TIDYING.test(text)) && typeof (config as { submit?: unknown })?.submit !== 'function') {
        const err = new ClientGoneError();
        const callback = args.at(-1);
        if (typeof callback === 'function') {
          process.nextTick(() => (callback as (e: Error) => void)(err));
          return undefined as never;
        }
        return Promise.reject(err) as never;
      }
      if (!signal) return (super.query as (...a: unknown[]) => never)(...args);
      // A statement the cancel stopped: the client's going is the reason, not the database.
      const stopped = (err: unknown) => (signal.aborted && (err as { code?: string } | null)?.code === QUERY_CANCELED ? Object.assign(new ClientGoneError(), { cause: err }) : err);
      const callback = args.at(-1);
      if (typeof callback === 'function') {
        args[args.length - 1] = (err: unknown, res: unknown) => (callback as (e: unknown, r: unknown) => void)(err ? stopped(err) : err, res);
      }
      const result = (super.query as (...a: unknown[]) => unknown)(...args);
      // The Query object just made: under way already, or last in the queue.
      const { _queryQueue: waiting, _sentQueryQueue: pipelined = [] } = this.internals;
      const sent = waiting.at(-1) ?? pipelined.at(-1) ?? this.internals._getActiveQuery();
      if (sent) this.signalOf.set(sent, signal);
      if (!this.watched.has(signal)) {
        this.watched.add(signal);
        signal.addEventListener('abort', () => void this.cancel(signal), { once: true });
      }
      if (typeof callback !== 'function' && result && typeof (result as Promise<unknown>).then === 'function') {
        return (result as Promise<unknown>).catch((err: unknown) => {
          throw stopped(err);
        }) as never;
      }
      return result as never;
    }

    /** Cancels this connection's statement under way if it was sent under `signal`. */
    private async cancel(signal: AbortSignal): Promise<void> {
      const ours = () => {
        const active = this.internals._getActiveQuery();
        return active != null && this.signalOf.get(active) === signal;
      };
      if (!ours()) return;
      const canceller = new Client({ ...cancelConfig, connectionTimeoutMillis: cancelConfig.connectionTimeoutMillis ?? 5_000 });
      canceller.on('error', () => undefined);
      try {
        await canceller.connect();
        // Still ours, just before the cancel is sent: the statement did not end (and another begin) meanwhile.
        // Only a statement of this server's, under way: a pooler in between reports a pid of its own, not a backend's.
        if (ours()) {
          await canceller.query(
            `SELECT pg_cancel_backend(pid) FROM pg_stat_activity
              WHERE pid = $1 AND state = 'active' AND datname = current_database() AND application_name = $2`,
            [this.internals.processID, APPLICATION_NAME],
          );
        }
      } catch {
        // The database cannot be reached for the cancel: the statement ends at its statement_timeout.
      } finally {
        await canceller.end().catch(() => undefined);
      }
    }
  } as unknown as typeof Client;
}
