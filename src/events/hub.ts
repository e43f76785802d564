import { AppError } from '../graphql/errors';
import type { ChangeEvent } from './change-event';

export type ChangeListener = (event: ChangeEvent) => void;

/**
 * The delivered change events of this process, fanned out to in-process listeners (GraphQL subscriptions, caches).
 * The publisher emits each event once it is delivered (committed as published), in delivery order, which is commit
 * order per object; events another replica delivered arrive through PostgreSQL NOTIFY (see `publisher.ts`).
 * A listener that throws is logged and stays subscribed; it never stops the others.
 */
export class ChangeHub {
  private readonly listeners = new Set<ChangeListener>();

  constructor(private readonly onListenerError: (err: unknown) => void = () => undefined) {}

  private firstListener?: () => void;

  /** Calls `listener` with every event delivered from now on; the returned function unsubscribes. */
  subscribe(listener: ChangeListener): () => void {
    this.listeners.add(listener);
    if (this.listeners.size === 1) this.firstListener?.();
    return () => this.listeners.delete(listener);
  }

  /** Calls `call` whenever a listener subscribes to an empty hub (e.g. to start listening for other replicas' events). */
  onFirstListener(call: () => void): void {
    this.firstListener = call;
  }

  emit(events: ChangeEvent[]): void {
    for (const event of events) {
      for (const listener of this.listeners) {
        try {
          listener(event);
        } catch (err) {
          this.onListenerError(err);
        }
      }
    }
  }

  get size(): number {
    return this.listeners.size;
  }
}

/** Events one subscriber may have waiting; past it, the subscription ends with an error instead of growing. */
export const MAX_WAITING_EVENTS = 1_000;

/**
 * The hub's events that `accept` takes, as an async iterator, at most `max` waiting: a subscriber that cannot keep
 * up ends with an error rather than holding an ever longer queue. Ending it (`return`) unsubscribes.
 */
export function listen(hub: ChangeHub, accept: (event: ChangeEvent) => boolean, max: number): AsyncIterableIterator<ChangeEvent> {
  const queue: ChangeEvent[] = [];
  let waiting: ((result: IteratorResult<ChangeEvent>) => void) | undefined;
  let ended = false;
  let overflowed = false;
  const unsubscribe = hub.subscribe((event) => {
    if (ended || !accept(event)) return;
    if (waiting) {
      const resolve = waiting;
      waiting = undefined;
      resolve({ value: event, done: false });
    } else if (queue.length >= max) {
      overflowed = true;
      unsubscribe();
    } else {
      queue.push(event);
    }
  });
  const end = (): IteratorResult<ChangeEvent> => {
    ended = true;
    unsubscribe();
    queue.length = 0;
    waiting?.({ value: undefined, done: true });
    waiting = undefined;
    return { value: undefined, done: true };
  };
  return {
    next() {
      if (queue.length) return Promise.resolve({ value: queue.shift()!, done: false });
      if (overflowed) {
        end();
        return Promise.reject(new AppError('BAD_REQUEST', `More than ${max} change events waited for this subscriber; the subscription ended. Subscribe again (and read the objects' current state).`));
      }
      if (ended) return Promise.resolve({ value: undefined, done: true });
      return new Promise((resolve) => (waiting = resolve));
    },
    return() {
      return Promise.resolve(end());
    },
    throw(err: unknown) {
      end();
      return Promise.reject(err);
    },
    [Symbol.asyncIterator]() {
      return this;
    },
  };
}
