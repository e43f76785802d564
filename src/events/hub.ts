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

  /** Calls `listener` with every event delivered from now on; the returned function unsubscribes. */
  subscribe(listener: ChangeListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
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
